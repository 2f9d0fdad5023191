"""The check of task windows before a run (pypto.runtime.bounds, docs/simulator.md#bounds): it walks the
orchestration with the call's values exactly (a task behind a false condition or after a break is not
checked), and stops silently where the arguments do not decide, leaving those tasks to the guard."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.compiled import CompiledProgram
from pypto.runtime import SimulatorBoundsError
from pypto.runtime.bounds import check_windows

SOURCE = """
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def block_copy(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
                   row: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [row, 0], [16, 64])
        out = pl.store(t, [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], limit: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(n):
            if i < limit:
                out = self.block_copy(x, out, i * 16)
        return out
"""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return ir.compile(pl.parse(SOURCE, filename="p.py"), output_dir=tmp_path_factory.mktemp("p") / "out")


def check(compiled: CompiledProgram, n: int, limit: int) -> None:
    main = compiled.final_program.get_function("main")
    check_windows(compiled.final_program, main, {main.params[1]: n, main.params[2]: limit})


def test_the_first_window_outside_is_the_error(compiled: CompiledProgram) -> None:
    with pytest.raises(SimulatorBoundsError, match=r"^task 'block_copy' \(p.py:19\) reads x\[64:80, 0:64\] outside its "
                                                   r"shape \[64, 64\]\n  hint: .*nothing ran"):
        check(compiled, 10, 10)


def test_tasks_the_values_do_not_reach_are_not_checked(compiled: CompiledProgram) -> None:
    check(compiled, 10, 4)
    check(compiled, 0, 10)


def test_a_walk_too_long_is_left_to_the_guard(compiled: CompiledProgram) -> None:
    check(compiled, 10**9, 0)  # returns after STEP_LIMIT statements


def test_dynamic_dimensions_come_from_the_arrays() -> None:
    path = Path(__file__).resolve().parents[1] / "examples" / "tensor_dyn_rows.py"
    compiled = ir.compile(pl.loads_program(str(path)), output_dir=None)
    main = compiled.final_program.get_function("main")
    n = main.params[0].type.shape[0]
    check_windows(compiled.final_program, main, {n: 40})
