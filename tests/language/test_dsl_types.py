"""Type annotations: every form of spec/ir.md §4 parses from the printed text and back, and the
annotation classes build the same types at Python level."""

from __future__ import annotations

import pytest
from dsl_helpers import assert_roundtrip

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import ParserTypeError, UndefinedVariableError
from pypto.language.typing import UnresolvedAnnotation


@pytest.mark.parametrize(
    "annotation",
    [
        "pl.Scalar[pl.INT64]",
        "pl.Tensor[[64, 128], pl.FP32]",
        "pl.Tensor[[64, 128], pl.FP16, pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.DN)]",
        "pl.Tensor[[64, 128], pl.FP16, pl.TensorView(valid_shape=[32, 128], stride=[], layout=pl.TensorLayout.ND, pad=pl.PadValue.zero)]",
        "pl.Tile[[16, 16], pl.FP16]",
        "pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc]",
        'pl.Tile[[16, 16], pl.FP16, pl.MemRef("mem_vec_0", pl.const(0, pl.INT64), 512), pl.Mem.Vec]',
        "pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec, pl.TileView(valid_shape=[8, 16], pad=pl.PadValue.max)]",
        "pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major)]",
        'pl.Tile[[16, 16], pl.FP16, pl.MemRef("buf", slots=2)[1], pl.Mem.Vec]',
        "pl.Array[16, pl.INT32]",
        "pl.Tuple[pl.Scalar[pl.INDEX], pl.Tensor[[4], pl.FP32]]",
        "pl.Tuple[()]",
        "pl.Ptr",
        "pl.UnknownType",
    ],
)
def test_type_round_trips(annotation: str) -> None:
    func = pl.parse(f"@pl.function\ndef f(x: {annotation}):\n    pass\n")
    printed = func.as_python().splitlines()[1]
    assert printed == f"def f(x: {annotation}):"
    assert_roundtrip(func)


def test_bare_dtype_is_a_scalar_and_fp8_alias() -> None:
    func = pl.parse("@pl.function\ndef f(x: pl.FP8, y: pl.TASK_ID):\n    pass\n")
    assert func.params[0].type == ir.ScalarType(pl.FP8E4M3FN) and func.params[1].type == ir.ScalarType(pl.TASK_ID)


def test_tensor_layout_shorthand() -> None:
    func = pl.parse("@pl.function\ndef f(x: pl.Tensor[[64, 128], pl.FP16, pl.NZ]):\n    pass\n")
    assert func.params[0].type.tensor_view.layout == pl.TensorLayout.NZ
    assert_roundtrip(func)


def test_symbolic_and_composite_dimensions() -> None:
    text = (
        'N = pl.dynamic("N")\n\n@pl.function\n'
        "def f(x: pl.Tensor[[N, pl.const(2, pl.INDEX) * N], pl.FP32], n: pl.INDEX) -> pl.Tensor[[N, n], pl.FP32]:\n"
        "    y: pl.Tensor[[n, 64], pl.FP32] = pl.tensor.create([n, 64], dtype=pl.FP32)\n"
        "    return x\n"
    )
    func = pl.parse(text)
    n_dim, composite = func.params[0].type.shape
    assert n_dim.name_hint == "N" and isinstance(composite, ir.Mul) and composite.right is n_dim
    assert func.return_types[0].shape[1] is func.params[1]
    assert_roundtrip(func, auto_mapping=True)


def test_memref_bases_are_shared_by_name_within_a_function() -> None:
    func = pl.parse(
        '@pl.function\ndef f(a: pl.Tile[[16, 16], pl.FP16, pl.MemRef("mem_vec_0", 0, 512), pl.Mem.Vec],'
        ' b: pl.Tile[[16, 16], pl.FP16, pl.MemRef("mem_vec_0", 512, 512), pl.Mem.Vec]):\n    pass\n'
    )
    a, b = (p.type.memref for p in func.params)
    assert ir.MemRef.same_allocation(a, b) and not ir.MemRef.may_alias(a, b)


def test_python_level_annotations_build_the_same_types() -> None:
    assert pl.Tensor[[4, 8], pl.FP32] == ir.TensorType([4, 8], pl.FP32)
    assert pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] == ir.TileType([16, 16], pl.FP16, memory_space=pl.Mem.Vec)
    assert pl.Scalar[pl.INT64] == ir.ScalarType(pl.INT64)
    assert pl.Array[8, pl.TASK_ID] == ir.ArrayType(pl.TASK_ID, 8)
    assert pl.Tuple[pl.INT64, pl.Scalar[pl.FP32]] == ir.TupleType([ir.ScalarType(pl.INT64), ir.ScalarType(pl.FP32)])
    out = pl.Out[pl.Tensor[[4], pl.FP32]]
    assert out.direction == pl.ParamDirection.Out and out.type == ir.TensorType([4], pl.FP32)


BAD_DTYPE = "fp32"


def test_invalid_python_level_annotation_is_reported_by_the_parser() -> None:
    bad = pl.Tensor[[64], BAD_DTYPE]
    assert isinstance(bad, UnresolvedAnnotation)
    with pytest.raises(ParserTypeError, match="pl.Tensor: expected a dtype such as pl.FP32, got str 'fp32'"):

        @pl.function
        def f(x: pl.Tensor[[64], BAD_DTYPE]):
            pass


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        ("pl.Tensor[[64]]", "pl.Tensor needs at least a shape and a dtype"),
        ("pl.Tensor[64, pl.FP32]", "the shape must be a list such as [64, 128]"),
        ("pl.Tensor[[1.5], pl.FP32]", "a shape dimension must be an int or pl.dynamic(...)"),
        ("pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec, pl.Mem.Acc]", "memory_space given twice"),
        ("pl.Scalar[pl.INT64, pl.INT32]", "pl.Scalar takes exactly one dtype"),
        ("pl.Tensor", "pl.Tensor needs its items, e.g. pl.Tensor[[64, 64], pl.FP32]"),
        ("pl.Mem.Vec", "is not a type annotation"),
        ("pl.Array[n, pl.INT32]", "the extent must be a static int"),
    ],
)
def test_invalid_annotations(annotation: str, message: str) -> None:
    with pytest.raises(ParserTypeError) as err:
        pl.parse(f"@pl.function\ndef f(n: pl.INDEX, x: {annotation}):\n    pass\n")
    assert message in err.value.message


def test_undefined_name_in_a_type() -> None:
    with pytest.raises(UndefinedVariableError, match="'pl' has no attribute 'FP33'"):
        pl.parse("@pl.function\ndef f(x: pl.Tensor[[4], pl.FP33]):\n    pass\n")
