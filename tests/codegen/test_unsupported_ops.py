"""A compile refuses, before its first pass, the tile ops a kernel target cannot print
(``pypto.codegen.unsupported``), at the call and naming the target; the table is exactly what the
targets lack, less the ops below that reach the targets another way or belong to other work."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import interp, ir
from pypto.codegen.coverage import coverage, load_emitter
from pypto.codegen.target import CCE, PTO
from pypto.codegen.unsupported import REFUSED, UnsupportedOpError, refusal_message
from pypto.ir import op_registry

# Tile ops a kernel target lacks a rule for that a compile does not refuse, and why.
NOT_REFUSED: dict[str, str] = {}  # tile ops lacking a rule that a compile does not refuse, and why


def _lacking() -> dict[str, set[str]]:
    """Tile or system op -> the kernel targets without a rule for it (array ops are orchestration's)."""
    lacking: dict[str, set[str]] = {}
    for target in (PTO, CCE):
        for op in coverage(target, load_emitter(target)).missing_ops:
            if op.startswith(("tile.", "system.")):
                lacking.setdefault(op, set()).add(target.name)
    return lacking


def test_every_tile_op_a_kernel_target_lacks_is_refused_for_exactly_those_targets_or_has_a_reason() -> None:
    everything = _lacking()
    assert set(NOT_REFUSED) <= set(everything)  # each reason is for an op still lacking a rule
    lacking = {op: targets for op, targets in everything.items() if op not in NOT_REFUSED}
    assert set(REFUSED) == set(lacking)
    assert all(op_registry.lookup(op) is not None for op in REFUSED)


def test_an_op_only_the_cce_target_lacks_compiles_without_the_kernel_cpp() -> None:
    assert refusal_message("tile.mscatter", frozenset({"pto"})) is None
    assert refusal_message("tile.mscatter", frozenset({"pto", "cce"})) == (
        "tile.mscatter cannot be compiled: the cce target has no rule for it (a2a3's MSCATTER scatters whole rows, "
        "not elements)")


_SIN = textwrap.dedent("""
    @pl.program
    class P:
        @pl.function
        def main(self, x: pl.Tensor[[16, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0], [16, 64])
                out = pl.store(pl.sin(t), [0, 0], out)
            return out
""")


def test_a_refused_op_is_an_error_at_its_call_before_any_pass(tmp_path: Path) -> None:
    program = pl.parse(_SIN)
    with pytest.raises(UnsupportedOpError) as err:
        ir.compile(program, output_dir=tmp_path / "out")
    assert err.value.message == ("tile.sin cannot be compiled: the pto and cce targets have no rule for it "
                                 "(pto-isa has no sine instruction)")
    assert err.value.hint == "write the computation with ops the kernel targets print (docs/codegen.md#unsupported)"
    assert err.value.span.begin_line == 9

    x = np.linspace(-1.0, 1.0, 16 * 64, dtype=np.float32).reshape(16, 64)
    result = interp.run(program, x, np.zeros((16, 64), np.float32), entry="main")
    np.testing.assert_allclose(result.outputs["out"], np.sin(x), rtol=1e-6)  # the interpreter still runs it


def test_a_tensor_sin_in_a_kernel_is_refused_by_the_conversion(tmp_path: Path) -> None:
    source = _SIN.replace("t = pl.load(x, [0, 0], [16, 64])", "pass").replace(
        "out = pl.store(pl.sin(t), [0, 0], out)", "out[:] = pl.sin(x)")
    with pytest.raises(ir.PyptoError, match="tensor.sin has no tile lowering, so it cannot run in kernel "
                       r"'main_incore_0'\n") as err:
        ir.compile(pl.parse(source), output_dir=tmp_path / "out")
    assert err.value.hint == "pto-isa has no sine instruction, so no target computes it; the interpreter runs it"


_ARRAY = textwrap.dedent("""
    @pl.program
    class P:
        @pl.function
        def main(self, x: pl.Tensor[[16, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            {outside}
            with pl.at(level=pl.Level.CORE_GROUP):
                {inside}
                t = pl.load(x, [0, 0], [16, 64])
                out = pl.store(t, [0, 0], out)
            return out
""")


def test_an_array_in_kernel_code_is_refused_at_the_call(tmp_path: Path) -> None:
    source = _ARRAY.format(outside="n = 1", inside="a = pl.array.create(4, pl.INT32)")
    with pytest.raises(UnsupportedOpError) as err:
        ir.compile(pl.parse(source), output_dir=tmp_path / "out")
    assert err.value.message == (
        "array.create cannot be compiled in kernel code: the pto and cce targets have no rule for it (arrays "
        "(TaskId arrays, integer arrays) live in the orchestration)")
    assert err.value.span.begin_line == 9 and "outside pl.at / pl.spmd blocks" in err.value.hint


def test_an_array_in_the_orchestration_is_not_refused(tmp_path: Path) -> None:
    source = _ARRAY.format(outside="a = pl.array.create(4, pl.INT32)", inside="n = 1")
    ir.compile(pl.parse(source), output_dir=tmp_path / "out")


_PIPES = (Path(__file__).resolve().parents[2] / "examples" / "cross_core_pipes.py").read_text()


@pytest.mark.parametrize("op", ["sync_set", "sync_wait"])
def test_a_cross_core_flag_is_refused_at_its_call_with_the_pipe_to_use_instead(tmp_path: Path, op: str) -> None:
    # pto-isa's CPU model has no cross-core flag (cpu/TSync.hpp is empty, cpu_stub.hpp defines no
    # ffts_cross_core_sync / wait_flag_dev): a2a3sim cannot run one (docs/codegen.md#cross-core-flags).
    anchor = "        c = pl.store(acc, [0, 0], c)\n"
    path = tmp_path / "flags.py"
    path.write_text(_PIPES.replace(anchor, anchor + f"        pl.system.{op}(0, pipe=pl.PipeType.FIX)\n"))
    with pytest.raises(UnsupportedOpError) as err:
        ir.compile(pl.loads_program(str(path)), output_dir=tmp_path / "out")
    assert err.value.message == (f"system.{op} cannot be compiled: the cce target has no rule for it (pto-isa's CPU "
                                 "backend has no cross-core flag to set or wait on)")
    assert err.value.hint == (
        "order the cube and vector kernels through a pipe instead: a pl.tpush_to_aiv / pl.tpop_from_aic (or "
        "pl.tpush_to_aic / pl.tpop_from_aiv) pair waits as a flag would (docs/codegen.md#cross-core-flags)")
    lines = path.read_text().splitlines()
    assert lines[err.value.span.begin_line - 1].strip().startswith(f"pl.system.{op}(0")
    ir.compile(pl.loads_program(str(path)), output_dir=tmp_path / "pto", skip_ptoas=True)  # the PTO module has it
