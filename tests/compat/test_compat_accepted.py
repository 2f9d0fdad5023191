"""Issue 13: cases the established API accepts (reshape onto a row prefix is in test_compat_op_checks.py)."""

from __future__ import annotations

import numpy as np
import pytest
from pypto.compiled import CompiledProgram
from pypto.interp import run
from pypto.language.parser.diagnostics import ParserError
from pypto.language.parser.diagnostics.renderer import ErrorRenderer

import pypto.language as pl
from pypto import ir
from pypto.ir.op import tensor as T
from pypto.ir.op import tile as L

D, Mem = ir.DataType, ir.MemorySpace


def test_mgather_takes_a_gm_index_tensor_and_gives_an_nz_result() -> None:
    mem = ir.Var("m", ir.TensorType([1024, 64], D.FP16))
    idx = ir.Var("i", ir.TensorType([16], D.INT32))
    got = L.mgather(mem, idx, target_memory=Mem.Mat)
    assert str(got) == "pl.tile.mgather(m, i, coalesce='row', gather_oob='undefined', target_memory=pl.Mem.Mat)"
    assert str(got.type) == "pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat]"
    view = got.type.get_effective_tile_view()
    assert (view.blayout, view.slayout) == (ir.TileLayout.col_major, ir.TileLayout.row_major)  # NZ
    with pytest.raises(ir.IRValueError, match="'idx' requires an integer dtype, got FP32"):
        L.mgather(mem, ir.Var("f", ir.TensorType([16], D.FP32)))


GEMV = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16],
          o: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        am = pl.load(a, [0, 0], [1, 64], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        al = pl.move(am, target_memory=pl.Mem.Left)
        br = pl.move(bm, target_memory=pl.Mem.Right)
        acc: pl.Tile[[1, 32], pl.FP32, pl.Mem.Acc] = pl.gemv(al, br)
        acc2 = pl.gemv_acc(acc, al, br)
        out = pl.store(acc2, [0, 0], o)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[1, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16]) -> pl.Tensor[[1, 32], pl.FP32]:
        o = pl.create_tensor([1, 32], dtype=pl.FP32)
        r = self.k(a, b, o)
        return r
"""


def test_gemv_with_a_1_by_n_accumulator_runs_and_compiles(tmp_path) -> None:
    prog = pl.parse(GEMV)
    rng = np.random.default_rng(0)
    a, b = rng.random((1, 64)).astype(np.float16), rng.random((64, 32)).astype(np.float16)
    (got,) = run(prog, a, b).returns
    np.testing.assert_allclose(got, 2 * (a.astype(np.float32) @ b.astype(np.float32)), rtol=1e-3)
    assert isinstance(ir.compile(prog, str(tmp_path)), CompiledProgram)


def test_tensor_and_with_an_int_rhs_becomes_ands() -> None:
    x = ir.Var("x", ir.TensorType([4, 8], D.INT32))
    assert str(T.and_(x, 3)) == "pl.tensor.ands(x, pl.const(3, pl.INT32))"
    assert str(T.or_(x, 3)) == "pl.tensor.ors(x, pl.const(3, pl.INT32))"
    assert str(T.shl(x, 1)) == "pl.tensor.shls(x, pl.const(1, pl.INT32))"
    assert str(T.and_(x, x)) == "pl.tensor.and_(x, x)"
    t = ir.Var("t", ir.TileType([4, 8], D.INT32, None, None, Mem.Vec))
    assert str(L.and_(t, 3)) == "pl.tile.ands(t, pl.const(3, pl.INT32))"
    f = pl.parse(
        """
@pl.function
def f(x: pl.Tensor[[4, 8], pl.INT32]) -> pl.Tensor[[4, 8], pl.INT32]:
    y = pl.tensor.and_(x, 6)
    return y
"""
    )
    assert "pl.tensor.ands(x, pl.const(6, pl.INT32))" in str(f)
    data = np.arange(32, dtype=np.int32).reshape(4, 8)
    np.testing.assert_array_equal(run(f, data).returns[0], data & 6)


FUNC_TEXT = """import pypto.language as pl

@pl.function
def f(x: pl.Tensor[[4, 8], pl.FP32]) -> pl.Tensor[[4, 8], pl.FP32]:
    y = pl.add(x, x)
    return y
"""


def test_a_function_from_a_string_has_spans_and_its_errors_render_without_a_file() -> None:
    f = pl.parse(FUNC_TEXT)
    assert isinstance(f, ir.Function) and (f.span.filename, f.span.begin_line) == ("<string>", 4)
    prog = pl.program_from_string(FUNC_TEXT)
    assert [fn.name for fn in prog.functions.values()] == ["f"]
    with pytest.raises(ParserError) as info:
        pl.parse(FUNC_TEXT.replace("pl.add(x, x)", "pl.add(x, missing)"))
    text = ErrorRenderer(use_color=False).render(info.value)
    assert text.splitlines()[1:4] == [
        "  --> <string>:5:19",
        "  |",
        "5 |     y = pl.add(x, missing)",
    ]
