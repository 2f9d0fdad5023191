"""Dispatch predicates in orchestration C++: the runtime's ``CoreTaskPredicate`` on the task's
args, the comparison flipped when the program wrote it mirrored (docs/codegen.md#orchestration)."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.codegen.errors import CodegenError
from pypto.codegen.orchestration_predicate import PREDICATE_OPS, dispatch_predicate
from pypto.language.parser.expressions import IR_COMPARE

PROGRAM = """
import pypto.language as pl

@pl.program
class Gated:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32],
          out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], g: pl.Tensor[[2, 4], pl.INT32],
             out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        for e in pl.range(2):
            out, t = pl.submit(self.k, x, out, predicate=(PREDICATE))
        return out
"""


def orchestration(predicate: str, tmp_path: Path) -> list[str]:
    ir.compile(pl.parse(PROGRAM.replace("PREDICATE", predicate)), output_dir=tmp_path, dump_passes=False)
    return [line.strip() for line in (tmp_path / "orchestration" / "main.cpp").read_text().splitlines()]


def test_a_predicated_submit_sets_the_runtime_predicate_before_the_submit(tmp_path: Path) -> None:
    lines = orchestration("g[1, e] > 0", tmp_path)
    start = lines.index("CoreTaskPredicate params_t0_pred;")
    assert lines[start : start + 9] == [
        "CoreTaskPredicate params_t0_pred;",
        "params_t0_pred.operand.tensor = &ext_g;",
        "params_t0_pred.operand.ndims = 2;",
        "params_t0_pred.operand.indices[0] = 1;",
        "params_t0_pred.operand.indices[1] = (uint32_t)(e);",
        "params_t0_pred.op = PredicateOp::GT;",
        "params_t0_pred.target = 0;",
        "params_t0.set_predicate(params_t0_pred);",
        "TaskOutputTensors task_0_outs = rt_submit_aiv_task(0, params_t0);",
    ]
    assert not any("get_tensor_data" in line for line in lines)  # never read by the orchestration


@pytest.mark.parametrize(
    ("predicate", "op", "target"),
    [
        ("g[0, 1] == 3", "EQ", 3),
        ("g[0, 1] != -1", "NE", -1),
        ("g[0, 1] < 2", "LT", 2),
        ("g[0, 1] <= 2", "LE", 2),
        ("g[0, 1] >= 2", "GE", 2),
        ("0 < g[0, 1]", "GT", 0),
        ("-2 > g[0, 1]", "LT", -2),
        ("5 <= g[0, 1]", "GE", 5),
        ("5 >= g[0, 1]", "LE", 5),
        ("7 == g[0, 1]", "EQ", 7),
    ],
)
def test_the_tensor_is_the_operand_and_a_mirrored_comparison_is_flipped(
    predicate: str, op: str, target: int, tmp_path: Path
) -> None:
    lines = orchestration(predicate, tmp_path)
    assert f"params_t0_pred.op = PredicateOp::{op};" in lines
    assert f"params_t0_pred.target = {target};" in lines
    assert "params_t0_pred.operand.indices[1] = 1;" in lines


def test_every_comparison_the_parser_accepts_has_a_runtime_op() -> None:
    built = {type(make(ir.ConstInt(1, pl.INDEX), ir.ConstInt(0, pl.INDEX))) for make in IR_COMPARE.values()}
    assert built == set(PREDICATE_OPS)


def test_a_predicate_of_another_shape_has_no_rule() -> None:
    n = ir.Var("n", ir.ScalarType(pl.INDEX))
    with pytest.raises(CodegenError) as err:
        dispatch_predicate(ir.gt(n, ir.ConstInt(0, pl.INDEX)))
    assert err.value.message == "no rule for a dispatch predicate 'n > 0' in orchestration"
    assert err.value.hint == "a predicate is one tensor element compared with an integer literal: predicate=(t[i] > 0)"
