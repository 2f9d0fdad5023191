"""ExpandMixedKernel: single-side InCore kernels become AIC or AIV; a mixed kernel is an error."""

from __future__ import annotations

import pytest
from pass_helpers import before_after
from tile_programs import PROGRAMS, front, inputs

from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages.invariants import MixedKernelExpanded
from pypto.passes import PassError

SIDES = {"tile_add": "AIV", "matmul": "AIC", "loop_carry": "AIV", "softmax": "AIV"}


def tiled(name: str) -> ir.Program:
    return passes.infer_tile_memory_space()(front(name))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_snapshot(name: str, snapshot) -> None:
    before = tiled(name)
    after = assert_pass_preserves(passes.expand_mixed_kernel(), before, inputs(before), entry="main")
    assert MixedKernelExpanded.check(after) == []
    assert before_after("ExpandMixedKernel", before, after) == snapshot


@pytest.mark.parametrize("name", sorted(SIDES))
def test_each_kernel_runs_on_one_side(name: str) -> None:
    after = passes.expand_mixed_kernel()(tiled(name))
    kinds = {f.name: f.func_type.name for f in after.functions.values()}
    kernel = next(k for k in kinds if k != "main")
    assert kinds == {"main": "Orchestration", kernel: SIDES[name]}
    level = after.get_function(kernel).level
    assert level is (ir.Level.AIC if SIDES[name] == "AIC" else ir.Level.AIV)


def test_callers_keep_calling_the_kernel_by_name() -> None:
    before = tiled("matmul")
    after = passes.expand_mixed_kernel()(before)
    assert after.get_function("main") is before.get_function("main")
    call = after.get_function("main").body.stmts[0].value
    assert call.op.name == "matmul" and after.get_function(call.op.name).func_type is ir.FunctionType.AIC


def test_a_program_without_incore_kernels_is_unchanged() -> None:
    program = passes.expand_mixed_kernel()(tiled("softmax"))
    assert passes.expand_mixed_kernel()(program) is program


def test_a_mixed_kernel_is_an_error_naming_both_sides() -> None:
    with pytest.raises(PassError) as err:
        passes.expand_mixed_kernel()(tiled("accumulate_in_loop"))
    assert str(err.value) == (
        "ExpandMixedKernel: kernel 'mm_loop' mixes cube and vector work (cube op tile.load at <string>:14:13; "
        "vector op tile.create at <string>:16:16; cross-core op tile.move at <string>:18:9); mixed kernels are "
        "not supported yet: write the cube part and the vector part as separate InCore kernels at <string>:14:13"
    )


def test_a_move_between_sides_alone_makes_a_kernel_mixed() -> None:
    with pytest.raises(PassError, match="kernel 'k' mixes cube and vector work .*cross-core op tile.move"):
        passes.expand_mixed_kernel()(tiled("move_reused_inside"))
