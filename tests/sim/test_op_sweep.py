"""CI's covering sample of the op sweep (``tests/sim/sweep_ops.py``): every op the CCE target has a
rule for runs at least once on a2a3sim, and equals the interpreter at its dtype's tolerance.

The sample (``sweep_ops.sample``) takes one case per op, FP32 where the op accepts it, rotating the
tile layout, valid region and operand form from op to op, adds the cases of issue 26 and one case of
each dtype no case has yet; ``python tests/sim/sweep_ops.py`` runs every case.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sweep_ops  # noqa: E402
from sweep_recipes import DTYPES, FORMS, LAYOUTS, RECIPES, SKIPPED, VALIDS, Case  # noqa: E402

from pypto.ir.datatype import DataType  # noqa: E402


@pytest.fixture(scope="module")
def sample() -> list[sweep_ops.Planned]:
    return sweep_ops.sample(sorted(RECIPES))


@pytest.fixture(scope="module")
def outcomes(sample: list[sweep_ops.Planned], kernel_cache: Path) -> list[sweep_ops.Outcome]:
    return sweep_ops.sweep(sample, kernel_cache)


def test_every_op_with_a_cce_rule_has_a_recipe_or_a_reason() -> None:
    ops = set(sweep_ops.swept_ops())
    assert set(RECIPES) | set(SKIPPED) == ops
    assert not set(RECIPES) & set(SKIPPED)


def test_the_sample_covers_every_op_dtype_layout_region_and_form(sample: list[sweep_ops.Planned]) -> None:
    cases = [p.case for p in sample]
    assert {c.op for c in cases} == set(RECIPES)
    assert {c.dtype for c in cases} == set(DTYPES)
    assert {c.layout for c in cases} == set(LAYOUTS)
    assert {c.valid for c in cases} == set(VALIDS)
    assert {c.form for c in cases} == set(FORMS)
    assert set(sweep_ops.ISSUE_CASES) <= set(cases)


@pytest.mark.parametrize("op", sorted(RECIPES))
def test_the_op_on_the_simulator_equals_the_interpreter(op: str, outcomes: list[sweep_ops.Outcome]) -> None:
    mine = [o for o in outcomes if o.case.op == op]
    assert mine, f"the sample ran no case of {op}"
    failed = [o.row() for o in mine if o.verdict in sweep_ops.FAILING]
    assert not failed, "\n".join(failed)


def test_col_major_operands_of_ops_row_major_on_the_cpu_model_build_and_match(kernel_cache: Path) -> None:
    """pto-isa's CPU model static_asserts row-major tiles for these (TBinSOps, TColExpandOp, the
    destination of TRowExpandOp, the source of TRowArgMax/Min): ResolveBackendOpLayouts moves their
    col-major operands."""
    ops = ("tile.adds", "tile.muls", "tile.divs", "tile.maximums", "tile.lrelu", "tile.col_expand_sub",
           "tile.row_expand_mul", "tile.row_argmax", "tile.row_argmin")
    cases = [sweep_ops.plan(Case(op, DataType.FP32, "col", "full", "tile")) for op in ops]
    outcomes = sweep_ops.run_batch(cases, kernel_cache)
    assert [(o.case.op, o.verdict) for o in outcomes] == [(op, "ok") for op in ops]


def test_fillpad_fills_a_partial_tile_with_each_pad_value_on_the_simulator(kernel_cache: Path) -> None:
    """TFILLPAD takes the pad value from its destination's tile type, which fillpad's result carries;
    the recipes pad with max, min and zero, and a half tile's +-inf is spelled as its bits."""
    ops = ("tile.fillpad", "tile.fillpad_inplace", "tile.fillpad_expand")
    dtypes = (DataType.FP32, DataType.FP16)
    cases = [sweep_ops.plan(Case(op, dt, "row", "partial", "tile")) for op in ops for dt in dtypes]
    outcomes = sweep_ops.run_batch(cases, kernel_cache)
    assert [(o.case.op, o.case.dtype, o.verdict) for o in outcomes] == [
        (p.case.op, p.case.dtype, "ok") for p in cases]
