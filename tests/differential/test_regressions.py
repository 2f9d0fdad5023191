"""Counterexamples the differential tests found, shrunk, each kept with the behaviour it now has."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.ir.errors import VerificationError
from pypto.analysis import walk
from pypto.transform.errors import PassError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# A mutant dropped `type=pl.FunctionType.InCore` from a kernel: its tile ops sat in an Opaque function
# that no pass lowers, and InitMemRef's output failed the memref checks (tiles without MemRefs).
OPAQUE_TILE_OPS = """
import pypto.language as pl


@pl.program
class P:
    @pl.function
    def k0(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        out = self.k0(x, out)
        return out
"""


def test_tile_ops_in_an_opaque_function_are_refused_once_at_the_pipeline_input(tmp_path: Path) -> None:
    # no pass makes an Opaque function a kernel: the input is refused, once for the function, at its first tile op
    with pytest.raises(VerificationError) as err:
        ir.compile(pl.parse(OPAQUE_TILE_OPS), output_dir=tmp_path / "out", dump_passes=False)
    lines = str(err.value).splitlines()
    assert lines[0] == "program 'P' is not in dialect 'surface' (pipeline input): 1 violation"
    assert lines[1] == (
        "[surface] TileOpsInKernels TILE_OP_IN_OPAQUE in 'k0': tile ops tile.load, tile.store in Opaque function 'k0'"
        " (tile ops run in kernels: declare it @pl.function(type=pl.FunctionType.InCore) or put them in a"
        " pl.at(level=pl.Level.CORE_GROUP) scope)"
    )
    assert lines[3:] == ["    at <string>:9:41"]


# Mutant 5366 of tensor_softmax: `pl.row_expand_sub(x, m)` became `pl.sub(x, m)`. The tensor op
# broadcasts the [64, 1] column, but the lowering built a `tile.sub` of [64, 128] and [64, 1];
# ResolveBackendOpLayouts then reshaped the col-major column to [1, 64] and an OpValueError without a
# location escaped. Binary ops with a row or column vector now lower to the row/col broadcast forms.
BROADCAST = """
import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[{r}, {c}], pl.{dt}], v: pl.Tensor[{vshape}, pl.{vdt}], y: pl.Out[pl.Tensor[[{r}, {c}], pl.{dt}]]) -> pl.Tensor[[{r}, {c}], pl.{dt}]:
        with pl.at(level=pl.Level.CORE_GROUP):
            r: pl.Tensor[[{r}, {c}], pl.{dt}] = {expr}
            y[:] = r
        return y
"""

SOFTMAX_SUB = """
import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64, 128], pl.FP32], y: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            m: pl.Tensor[[64, 1], pl.FP32] = pl.row_max(x)
            shifted: pl.Tensor[[64, 128], pl.FP32] = pl.sub(x, m)
            y[:] = shifted
        return y
"""


def _tile_ops(program: ir.Program) -> list[str]:
    return [n.op.name for f in program.functions.values() for n in walk(f.body)
            if isinstance(n, ir.Call) and n.op.name.startswith("tile.") and n.op.name not in ("tile.load", "tile.store")]


def _converted(text: str) -> ir.Program:
    """The program up to and including ConvertTensorToTileOps."""
    names = [p.name for p in passes.builtin_passes()]
    return passes.PassManager(passes.builtin_passes()[: names.index("ConvertTensorToTileOps") + 1]).run_passes(pl.parse(text))


def _preserved(text: str, inputs: list[np.ndarray]) -> ir.Program:
    """The program after every pass, the interpreter checked to agree after each."""
    program = pl.parse(text)
    for p in passes.builtin_passes():
        program = assert_pass_preserves(p, program, inputs)
    return program


def _inputs(*shapes_dtypes: tuple[tuple[int, ...], type]) -> list[np.ndarray]:
    rng = np.random.default_rng(5366)
    return [rng.uniform(1, 4, shape).astype(dtype) for shape, dtype in shapes_dtypes]


def test_the_softmax_mutant_lowers_the_column_to_row_expand_sub(tmp_path: Path) -> None:
    x, y = _inputs(((64, 128), np.float32), ((64, 128), np.float32))
    _preserved(SOFTMAX_SUB, [x, y])
    converted = _converted(SOFTMAX_SUB)
    assert _tile_ops(converted) == ["tile.create", "tile.row_max", "tile.row_expand_sub"]
    ir.compile(pl.parse(SOFTMAX_SUB), output_dir=tmp_path / "out", dump_passes=False)


_FORM = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "maximum": "max", "minimum": "min"}


@pytest.mark.parametrize("vector", ["row", "col"])
@pytest.mark.parametrize("vector_first", [False, True], ids=["tile-vector", "vector-tile"])
@pytest.mark.parametrize("op", sorted(_FORM))
def test_a_binary_op_with_a_row_or_column_vector_keeps_its_meaning(op: str, vector_first: bool, vector: str) -> None:
    vshape = [16, 1] if vector == "row" else [1, 32]
    expr = f"pl.{op}(v, x)" if vector_first else f"pl.{op}(x, v)"
    text = BROADCAST.format(r=16, c=32, dt="FP32", vdt="FP32", vshape=vshape, expr=expr)
    x, v, y = _inputs(((16, 32), np.float32), (tuple(vshape), np.float32), ((16, 32), np.float32))
    _preserved(text, [x, v, y])
    ops = _tile_ops(_converted(text))
    if vector_first and op in ("sub", "div"):  # no reversed form: the vector is broadcast first
        assert ops == [f"tile.{vector}_expand", f"tile.{op}"]
    else:
        assert ops == [f"tile.{vector}_expand_{_FORM[op]}"]


@pytest.mark.parametrize(
    ("dt", "vdt", "expr", "ops"),
    [
        ("INT32", "INT32", "pl.div(x, v)", ["tile.row_expand", "tile.div"]),  # integer division is not row_expand_div's
        ("FP16", "FP32", "pl.sub(v, x)", ["tile.cast", "tile.row_expand", "tile.sub"]),  # x is cast up to FP32
    ],
    ids=["int-div", "mixed-dtypes"],
)
def test_broadcasts_without_an_exact_expand_form_broadcast_the_vector_first(dt: str, vdt: str, expr: str, ops: list[str]) -> None:
    text = BROADCAST.format(r=16, c=32, dt="FP32" if dt == "FP16" else dt, vdt=vdt, vshape=[16, 1], expr=expr)
    text = text.replace("x: pl.Tensor[[16, 32], pl.FP32]", f"x: pl.Tensor[[16, 32], pl.{dt}]")
    npd = {"INT32": np.int32, "FP16": np.float16, "FP32": np.float32}
    x, v, y = _inputs(((16, 32), npd[dt]), ((16, 1), npd[vdt]), ((16, 32), np.float32 if dt == "FP16" else npd[dt]))
    _preserved(text, [x, v, y])
    assert _tile_ops(_converted(text)) == ops


@pytest.mark.parametrize("vshape", [[16, 32], [16, 1]], ids=["same-shape", "row-vector"])
def test_operands_of_different_dtypes_are_cast_to_the_promoted_dtype(vshape: list[int], tmp_path: Path) -> None:
    # An FP16 tensor plus an FP32 one is FP32; the tile ops take one dtype, so the FP16 tile is cast up.
    text = BROADCAST.format(r=16, c=32, dt="FP32", vdt="FP32", vshape=vshape, expr="pl.add(x, v)")
    text = text.replace("x: pl.Tensor[[16, 32], pl.FP32]", "x: pl.Tensor[[16, 32], pl.FP16]")
    x, v, y = _inputs(((16, 32), np.float16), (tuple(vshape), np.float32), ((16, 32), np.float32))
    _preserved(text, [x, v, y])
    add = "tile.add" if vshape == [16, 32] else "tile.row_expand_add"
    assert _tile_ops(_converted(text)) == ["tile.cast", add]
    ir.compile(pl.parse(text), output_dir=tmp_path / "out", dump_passes=False)


def test_a_broadcast_of_both_operands_is_refused_with_a_hint(tmp_path: Path) -> None:
    text = BROADCAST.format(r=16, c=32, dt="FP32", vdt="FP32", vshape=[1, 32], expr="pl.add(w, v)")
    text = text.replace("x: pl.Tensor[[16, 32], pl.FP32]", "x: pl.Tensor[[16, 32], pl.FP32], w: pl.Tensor[[16, 1], pl.FP32]")
    with pytest.raises(PassError) as err:
        ir.compile(pl.parse(text), output_dir=tmp_path / "out", dump_passes=False)
    assert str(err.value).splitlines() == [
        "ConvertTensorToTileOps: tensor.add broadcasts [16, 1] and [1, 32]; the vector units broadcast "
        "only an [M, 1] row vector or a [1, N] column vector against a tile of the result's shape",
        "   --> <string>:10:47",
        "   |",
        "10 |             r: pl.Tensor[[16, 32], pl.FP32] = pl.add(w, v)",
        "   |                                               ^^^^^^^^^^^^",
        "   = hint: broadcast an operand first with pl.row_expand(target, vec) or pl.col_expand(target, vec), or "
        "reshape it",
    ]


def test_a_tile_op_broadcasting_a_col_major_column_is_refused_with_a_hint(tmp_path: Path) -> None:
    # Its [1, N] reshape would have broadcast the column along the other axis: wrong results, or an
    # OpValueError escaping the pass when the tile is not square.
    text = (EXAMPLES / "row_softmax.py").read_text().replace("pl.row_expand_sub(t, row_max)", "pl.sub(t, row_max)")
    with pytest.raises(PassError) as err:
        ir.compile(pl.parse(text), output_dir=tmp_path / "out", dump_passes=False)
    assert str(err.value).splitlines() == [
        "ResolveBackendOpLayouts: tile.sub broadcasts the column [64, 1] over [64, 64], but the vector "
        "unit runs it only on operands of one shape",
        "   --> <string>:17:9",
        "   |",
        "17 |         shifted: pl.Tile[[64, 64], pl.FP32] = pl.sub(t, row_max)",
        "   |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "   = hint: broadcast the column with pl.row_expand_sub(tile, column)",
    ]
