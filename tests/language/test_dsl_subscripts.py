"""Subscripts of tensors, tiles, tuples and arrays, read and written (the seed's indexing rules)."""

from __future__ import annotations

import textwrap

import pytest
from dsl_helpers import assert_roundtrip

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import (
    InvalidOperationError,
    ParserTypeError,
    ParserWarning,
    UnsupportedFeatureError,
)


def parse(body: str) -> ir.Function:
    text = (
        "@pl.function(type=pl.FunctionType.InCore)\n"
        "def f(x: pl.Tensor[[64, 32], pl.FP32], c: pl.Tensor[[4, 64, 32], pl.FP32], i: pl.INDEX, n: pl.INDEX):\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
        + "\n"
    )
    return pl.parse(text)


def shapes(func: ir.Function) -> list[list[int]]:
    return [
        [d.value if isinstance(d, ir.ConstInt) else d.name_hint for d in s.var.type.shape]
        for s in func.body.stmts
        if isinstance(s, ir.AssignStmt)
    ]


def test_tensor_slices_keep_dims_and_scalars_drop_them() -> None:
    func = parse("a = x[0:16, :]\nb = x[i]\nd = x[8:, 4:20]\ne = c[1, 0:8]\ng = x[i:i + 8, :]\nh = x[:, :n]")
    assert shapes(func)[:4] == [[16, 32], [32], [56, 16], [8, 32]]
    g, h = func.body.stmts[4:6]
    assert g.var.type.shape[0].value == 8  # i:i+8 has the static extent 8
    assert h.var.type.shape[1] is func.params[3]  # :n has the extent n
    assert_roundtrip(func)


def test_full_rank_scalar_index_reads_an_element() -> None:
    func = parse("s = x[i, 3]\nt = pl.load(x, [0, 0], [64, 32])\nu = t[1, 2]")
    assert func.body.stmts[0].value.op.name == "tensor.read" and func.body.stmts[2].value.op.name == "tile.read"
    assert func.body.stmts[2].var.type == ir.ScalarType(pl.FP32)
    assert_roundtrip(func)


def test_tile_slices() -> None:
    func = parse("t = pl.load(x, [0, 0], [64, 32])\na = t[0:16, 8:24]\nb = t[16:32]")
    a, b = func.body.stmts[1:3]
    assert a.value.op.name == "tile.slice" and [d.value for d in a.var.type.shape] == [16, 16]
    assert [d.value for d in b.var.type.shape] == [16, 32]
    assert_roundtrip(func)


def test_tile_index_below_2d_is_promoted_with_a_warning() -> None:
    with pytest.warns(ParserWarning, match=r"tile index gives a 1-D result; tiles are 2-D, so it is promoted to shape \[1, 32\]"):
        func = parse("t = pl.load(x, [0, 0], [64, 32])\nrow = t[3]")
    row = func.body.stmts[1]
    assert [d.value for d in row.var.type.shape] == [1, 32]
    assert [d.value for d in row.value.args[4].elements] == [0]  # drop_dims lists the indexed axis
    assert_roundtrip(func)


def test_tile_column_index_is_promoted_to_a_row() -> None:
    """The seed: a tile result below 2-D becomes ``[1, N]``, and drop_dims lists the scalar-indexed axes."""
    with pytest.warns(ParserWarning, match=r"promoted to shape \[1, 16\]"):
        func = parse("t = pl.load(x, [0, 0], [64, 32])\ncol = t[0:16, 8]")
    col = func.body.stmts[1]
    assert str(col.value) == "pl.tile.slice(t, [16, 1], [0, 8], [], [1])"
    assert [d.value for d in col.var.type.shape] == [1, 16]
    assert_roundtrip(func)


def test_tuple_and_array_subscripts() -> None:
    text = textwrap.dedent(
        """
        @pl.function
        def f(n: pl.INDEX) -> pl.INDEX:
            pair = [n, n + 1]
            second = pair[1]
            ids = pl.array.create(4, pl.INT32)
            ids[1] = pl.const(7, pl.INT32)
            first = ids[0]
            return second
        """
    )
    func = pl.parse(text)
    stmts = func.body.stmts
    assert isinstance(stmts[1].value, ir.TupleGetItemExpr) and stmts[1].value.index == 1
    assert stmts[3].value.op.name == "array.update_element" and stmts[3].value.args[0] is stmts[2].var
    assert stmts[3].var is not stmts[2].var and stmts[4].value.args[0] is stmts[3].var  # a new version of ids
    assert stmts[4].value.op.name == "array.get_element"
    assert_roundtrip(func)


def test_subscript_writes() -> None:
    func = parse(
        """
        y = pl.tensor.create([16, 32], dtype=pl.FP32)
        c[1, 0:16] = y
        x[0:16, :] = y
        x[i, 3] = pl.const(1.0, pl.FP32)
        """
    )
    reshape_assemble, assemble, write = func.body.stmts[1:4]
    assert reshape_assemble.value.op.name == "tensor.assemble" and reshape_assemble.value.args[0] is func.params[1]
    assert reshape_assemble.var is not func.params[1] and reshape_assemble.var.name_hint == "c"
    assert reshape_assemble.value.args[1].op.name == "tensor.reshape"
    assert [d.value for d in reshape_assemble.value.args[1].type.shape] == [1, 16, 32]
    assert assemble.value.op.name == "tensor.assemble" and assemble.value.args[1] is func.body.stmts[0].var
    assert write.value.op.name == "tensor.write"
    assert_roundtrip(func)


def test_write_through_a_non_variable_is_rejected() -> None:
    with pytest.raises(UnsupportedFeatureError, match="chained subscript assignment"):
        parse("x[0][1] = x[0, 0]")


def test_symbolic_slice_extents_simplify() -> None:
    """Extents are the canonical affine form of ``hi - lo``: ``i + 8:i + 24`` is 16, ``(i+1)*8`` minus ``i*8`` is 8."""
    func = parse("a = x[:, i + 8:i + 24]\nb = x[i * 8:(i + 1) * 8, :]\nd = x[i:i + n, :]\ne = pl.add(a, x[0:64, 0:16])")
    assert shapes(func)[:2] == [[64, 16], [8, 32]]
    assert ir.python_print(func.body.stmts[2].var.type.shape[0]) == "n"
    assert_roundtrip(func)


def test_symbolic_empty_slice_is_rejected() -> None:
    with pytest.raises(InvalidOperationError, match=r"empty slice i \+ 8:i \+ 8: its extent is 0"):
        parse("a = x[:, i + 8:i + 8]")


def test_explicit_slice_shape_simplifies() -> None:
    """A shape written as an expression of the offsets (``[16, i + 128 - (i + 64)]``) is the constant."""
    func = parse("a = pl.slice(x, [16, i + 24 - (i + 8)], [0, i + 8])\nb = pl.add(a, x[0:16, 0:16])")
    assert shapes(func) == [[16, 16], [16, 16]]
    assert_roundtrip(func)


def test_annotation_against_a_symbolic_extent() -> None:
    """The annotation is compared with the simplified extent: 16 matches, 32 is an error naming both."""
    parse("a: pl.Tensor[[64, 16], pl.FP32] = x[:, i + 8:i + 24]")
    parse("a: pl.Tensor[[n, 32], pl.FP32] = x[i:i + n, :]")
    with pytest.raises(ParserTypeError, match=r"dimension 1 is 16, expected 32"):
        parse("a: pl.Tensor[[64, 32], pl.FP32] = pl.slice(x, [64, i + 24 - (i + 8)], [0, i + 8])")
