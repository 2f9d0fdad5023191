"""Issue 13: the established pypto.language names (pl.TaskId, aliases, value forms, decorator options)."""

from __future__ import annotations

import pytest
from pypto.language.parser.diagnostics import ParserError

import pypto.language as pl
from pypto import ir


def test_task_id_is_the_task_id_scalar() -> None:
    assert pl.TaskId == pl.Scalar[pl.TASK_ID] == ir.ScalarType(pl.TASK_ID)


def test_program_from_string_parses_text() -> None:
    text = """
@pl.program
class P:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        return n + 1
"""
    ir.assert_structural_equal(pl.program_from_string(text), pl.parse_program(text))


def test_arange_aliases_and_op_modules() -> None:
    from pypto.language.op import tensor_ops, tile_ops, unified_ops

    assert pl.tensor.arange is pl.tensor.ci is pl.arange
    assert pl.tile.arange is pl.tile.ci
    assert pl.op.create_tile is pl.create_tile is pl.tile.create
    assert unified_ops.add is pl.add and unified_ops.exp is pl.exp
    assert tile_ops.add is pl.tile.add and tile_ops.load is pl.load
    assert tensor_ops.create is pl.tensor.create


def test_arg_direction_tables() -> None:
    from pypto.language.arg_direction import DIRECTION_TO_NAME, NAME_TO_DIRECTION

    assert DIRECTION_TO_NAME[pl.ArgDirection.OutputExisting] == "output_existing"
    assert NAME_TO_DIRECTION["no_dep"] is pl.ArgDirection.NoDep is pl.adir.no_dep
    assert set(DIRECTION_TO_NAME) == set(pl.ArgDirection)
    assert {NAME_TO_DIRECTION[n] for n in DIRECTION_TO_NAME.values()} == set(pl.ArgDirection)


def test_annotations_called_as_values() -> None:
    assert pl.Tensor([64, 128], pl.FP32) == pl.Tensor[[64, 128], pl.FP32]
    assert pl.Tile([16, 16], pl.FP16, pl.Mem.Vec) == pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec]
    assert pl.Scalar(pl.INT64) == pl.Scalar[pl.INT64]
    x = ir.Var("x", pl.Tensor[[64], pl.FP32])
    value = pl.Tensor(expr=x)
    assert value.unwrap() is x
    assert pl.add(value, value).unwrap().op.name == "tensor.add"
    n = ir.Var("n", pl.Scalar[pl.INDEX])
    assert pl.Scalar(expr=n).unwrap() is n


def test_annotation_value_errors_are_pypto_type_errors() -> None:
    x = ir.Var("x", pl.Tensor[[64], pl.FP32])
    with pytest.raises(ir.IRTypeError, match=r"pl.Tile\(expr=...\) wraps an ir.Expr of Tile type, got an expression"):
        pl.Tile(expr=x)
    with pytest.raises(ir.IRTypeError, match="pl.Tensor needs at least a shape and a dtype"):
        pl.Tensor([64])


def test_dsl_reads_the_established_names() -> None:
    program = pl.parse_program(
        """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 16], pl.INT32], out: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> pl.Tensor[[1, 16], pl.INT32]:
        t: pl.Tile[[1, 16], pl.INT32] = pl.tile.arange(0, [1, 16], dtype=pl.INT32)
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, 16], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32]:
        out: pl.Tensor[[1, 16], pl.INT32] = pl.create_tensor([1, 16], dtype=pl.INT32)
        out, tid = pl.submit(self.k, x, out)
        t2: pl.TaskId = tid
        return out
"""
    )
    text = program.as_python()
    assert "pl.tile.ci(pl.const(0, pl.INT32), [1, 16], dtype=pl.INT32, descending=False)" in text
    assert "t2: pl.Scalar[pl.TASK_ID] = tid" in text


def test_function_attrs_keyword() -> None:
    @pl.function(attrs={"auto_scope": False})
    def f(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x

    assert f.attrs.auto_scope is False

    with pytest.raises(ParserError, match=r"bad attrs= \(FunctionAttrs: field 'auto_scope': Input should be"):

        @pl.function(attrs={"auto_scope": 3})
        def g(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            return x


def test_program_strict_ssa() -> None:
    with pytest.raises(ParserError, match="strict"):

        @pl.program(strict_ssa=True)
        class P:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                x: pl.Scalar[pl.INDEX] = n
                x = x + 1
                return x

    @pl.program
    class Q:
        @pl.function
        def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            x: pl.Scalar[pl.INDEX] = n
            x = x + 1
            return x

    assert Q.get_function("main") is not None


def test_optimizations_module_entries() -> None:
    assert pl.optimizations.split is pl.split
    assert pl.optimizations.cross_core_slot is pl.cross_core_slot
    program = pl.parse_program(
        """
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.optimizations.split(pl.SplitMode.UP_DOWN)]):
            t: pl.Tile[[64], pl.FP32] = pl.load(x, [0], [64])
            out = pl.store(t, [0], out)
        return out
"""
    )
    text = program.as_python()
    assert "optimizations=[pl.split(pl.SplitMode.UP_DOWN)]" in text
