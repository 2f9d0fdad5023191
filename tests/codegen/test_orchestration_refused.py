"""Tensor ops orchestration code cannot run (data-moving ones, and arithmetic): refused when the
compile starts, at the call, with what to write instead; the same op inside a scope outlined into
a kernel is not refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.codegen.coverage import coverage, load_emitter
from pypto.codegen.errors import CodegenError
from pypto.codegen.orchestration_refused import REFUSED
from pypto.codegen.target import ORCHESTRATION

PROGRAM = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        big = pl.create_tensor([32, 64], dtype=pl.FP32)
BODY
        s = big[16:32, :]
        out = self.k(s, out)
        return out
"""


def _source(body: str) -> str:
    return PROGRAM.replace("BODY", "\n".join(f"        {line}" for line in body.splitlines()))


def test_the_table_lists_only_ops_the_orchestration_target_lacks() -> None:
    missing = set(coverage(ORCHESTRATION, load_emitter(ORCHESTRATION)).missing_ops)
    assert set(REFUSED) <= missing
    assert {op for op in missing if op.startswith("tensor.")} <= set(REFUSED)


def test_an_assemble_in_orchestration_code_is_refused_before_the_passes(tmp_path: Path) -> None:
    source = _source("with pl.manual_scope():\n    big = pl.tensor.assemble(big, x, [16, 0])")
    with pytest.raises(CodegenError) as err:
        ir.compile(pl.parse(source), output_dir=tmp_path / "out", dump_passes=False)
    assert err.value.message == "tensor.assemble cannot run in orchestration code: moving tensor data needs a core"
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "pl.tensor.assemble" in text)
    assert err.value.span.begin_line == line
    assert err.value.hint == REFUSED["tensor.assemble"]
    assert not (tmp_path / "out.failed-1" / "passes_dump").exists()  # no pass ran


@pytest.mark.parametrize("head", ["@pl.function", "@pl.function(type=pl.FunctionType.Orchestration)"])
def test_tensor_arithmetic_outside_a_kernel_scope_is_refused_before_the_passes(head: str, tmp_path: Path) -> None:
    # It used to reach orchestration code generation: "no rule for tensor.adds in orchestration".
    source = f"""
import pypto.language as pl

@pl.program
class P:
    {head}
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = pl.add(x, 1.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.store(pl.load(y, [0, 0], [16, 64]), [0, 0], out)
        return out
"""
    with pytest.raises(CodegenError) as err:
        ir.compile(pl.parse(source, filename="prog.py"), output_dir=tmp_path / "out", dump_passes=False)
    assert err.value.message == "tensor.adds cannot run in orchestration code: computing on tensors needs a core"
    assert err.value.hint == "compute it in a kernel: put the statement in `with pl.at(level=pl.Level.CORE_GROUP): ...`"
    assert (err.value.span.begin_line, err.value.span.begin_column) == (9, 13)


def test_the_write_the_hint_suggests_compiles(tmp_path: Path) -> None:
    program = pl.parse(_source("with pl.at(level=pl.Level.CORE_GROUP):\n    big[16:32, :] = x"))
    compiled = ir.compile(program, output_dir=tmp_path / "out", dump_passes=False)
    assert "orchestration/main.cpp" in compiled.files


def test_a_dependency_on_a_task_id_no_task_produced_is_refused(tmp_path: Path) -> None:
    source = _source("with pl.manual_scope():\n    out, t = pl.submit(self.k, x, out, deps=[prev])").replace(
        "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n        big",
        "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]], prev: pl.Scalar[pl.TASK_ID]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
        "        big",
    )
    with pytest.raises(CodegenError) as err:
        ir.compile(pl.parse(source), output_dir=tmp_path / "out", dump_passes=False)
    assert err.value.message == (
        "the TaskId parameter 'prev' of orchestration function 'main' names no task: the host passes tensors and "
        "numbers, never a submitted task"
    )
    assert err.value.hint.startswith("depend on a task this function submits")
