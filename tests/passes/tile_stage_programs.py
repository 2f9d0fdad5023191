"""Tile-level kernels for the tile-stage passes between outlining and InferTileMemorySpace
(FlattenTileNdTo2D, LegalizeTileCast, CanonicalizeTileSlice, ResolveBackendOpLayouts).

Each entry is the source of one ``@pl.program`` whose ``main`` orchestration calls one kernel;
``front(name)`` returns it after the front pipeline (already in ``outlined``), ``inputs`` gives
random data for ``main`` (as ``tile_programs.inputs``).
"""

from __future__ import annotations

import textwrap

import numpy as np

import pypto.language as pl
from pypto import ir, passes

_T3 = "pl.Tensor[[4, 8, 32], pl.FP32]"

# Kernels with rank > 2 tiles, for FlattenTileNdTo2D.
ND = {
    "nd_elementwise": """
        @pl.program
        class NdElementwise:
            @pl.function(type=pl.FunctionType.InCore)
            def k(
                self,
                a: pl.Tensor[[2, 16, 64], pl.FP32],
                b: pl.Tensor[[2, 16, 64], pl.FP32],
                c: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]],
            ) -> pl.Tensor[[2, 16, 64], pl.FP32]:
                x = pl.load(a, [0, 0, 0], [2, 16, 64])
                y = pl.load(b, [0, 0, 0], [2, 16, 64])
                e = pl.exp(x)
                s = pl.add(e, y)
                m = pl.mul(s, 2.0)
                tmp = pl.create_tile([2, 16, 64], dtype=pl.FP32)
                r = pl.row_sum(m, tmp)
                d = pl.row_expand_div(m, r)
                out = pl.store(d, [0, 0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                a: pl.Tensor[[2, 16, 64], pl.FP32],
                b: pl.Tensor[[2, 16, 64], pl.FP32],
                c: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]],
            ) -> pl.Tensor[[2, 16, 64], pl.FP32]:
                c = self.k(a, b, c)
                return c
        """,
    "nd_loop_partial": f"""
        @pl.program
        class NdLoopPartial:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {_T3}, n: pl.Scalar[pl.INDEX], c: pl.Out[{_T3}]) -> {_T3}:
                x = pl.load(a, [0, 0, 0], [4, 8, 32], valid_shape=[3, 8, 32])
                for i, (acc,) in pl.range(n, init_values=(x,)):
                    nxt = pl.add(acc, x)
                    acc_out = pl.yield_(nxt)
                v = pl.tile.read(acc_out, [1, 2, 3])
                w = pl.tile.write(acc_out, [2, 7, 31], v)
                out = pl.store(w, [0, 0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: {_T3}, n: pl.Scalar[pl.INDEX], c: pl.Out[{_T3}]) -> {_T3}:
                c = self.k(a, n, c)
                return c
        """,
    "nd_slice_assemble": f"""
        @pl.program
        class NdSliceAssemble:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {_T3}, c: pl.Out[{_T3}]) -> {_T3}:
                x = pl.load(a, [0, 0, 0], [4, 8, 32])
                s = pl.slice(x, [1, 8, 32], [2, 0, 0])
                e = pl.exp(s)
                r = pl.assemble(x, e, [1, 0, 0])
                out = pl.store(r, [0, 0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: {_T3}, c: pl.Out[{_T3}]) -> {_T3}:
                c = self.k(a, c)
                return c
        """,
    "nd_batch_matmul": """
        @pl.program
        class NdBatchMatmul:
            @pl.function(type=pl.FunctionType.InCore)
            def k(
                self,
                a: pl.Tensor[[2, 16, 32], pl.FP16],
                b: pl.Tensor[[2, 32, 16], pl.FP16],
                c: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]],
            ) -> pl.Tensor[[2, 16, 16], pl.FP32]:
                x = pl.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat)
                y = pl.load(b, [0, 0, 0], [2, 32, 16], target_memory=pl.Mem.Mat)
                xl = pl.move(x, target_memory=pl.Mem.Left)
                yr = pl.move(y, target_memory=pl.Mem.Right)
                z = pl.batch_matmul(xl, yr)
                out = pl.store(z, [0, 0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                a: pl.Tensor[[2, 16, 32], pl.FP16],
                b: pl.Tensor[[2, 32, 16], pl.FP16],
                c: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]],
            ) -> pl.Tensor[[2, 16, 16], pl.FP32]:
                c = self.k(a, b, c)
                return c
        """,
}


def _cast_kernel(cls: str, *steps: str) -> str:
    """A kernel that loads a 16x64 FP32 tile, casts it through ``steps`` (dtypes) and stores it back."""
    lines, prev = [], "x"
    for i, dtype in enumerate(steps):
        lines.append(f"c{i} = pl.cast({prev}, pl.{dtype}, mode='floor')")
        prev = f"c{i}"
    body = "\n".join(" " * 16 + line for line in lines)
    return f"""
        @pl.program
        class {cls}:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor[[16, 64], pl.FP32], c: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
                x = pl.load(a, [0, 0], [16, 64])
{body}
                out = pl.store({prev}, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[16, 64], pl.FP32], c: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
                c = self.k(a, c)
                return c
        """


# Kernels with casts, for LegalizeTileCast: each name lists the casts that have no native form on
# a2a3 (FP32 -> INT8, INT8 -> FP32, BF16 -> FP16, INT16 -> INT32); ``cast_native`` has none.
CASTS = {
    "cast_through_int8": _cast_kernel("CastThroughInt8", "INT8", "FP32"),
    "cast_through_bf16": _cast_kernel("CastThroughBf16", "BF16", "FP16", "FP32"),
    "cast_int16_to_int32": _cast_kernel("CastInt16ToInt32", "INT16", "INT32", "FP32"),
}
CAST_NATIVE = _cast_kernel("CastNative", "FP16", "INT32", "FP32")

_T64 = "pl.Tensor[[64, 64], pl.FP32]"

# Kernels feeding col-major tiles to row-major-only vector ops, for ResolveBackendOpLayouts.
LAYOUTS = {
    "layout_row_vectors": f"""
        @pl.program
        class LayoutRowVectors:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: {_T64}, y: pl.Out[{_T64}]) -> {_T64}:
                t = pl.load(x, [0, 0], [64, 64])
                tmp = pl.create_tile([64, 64], dtype=pl.FP32)
                m = pl.row_max(t, tmp)
                e = pl.exp(m)
                s = pl.row_sum(t, tmp)
                p = pl.mul(e, s)
                r = pl.row_expand_sub(t, p)
                out = pl.store(r, [0, 0], y)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {_T64}, y: pl.Out[{_T64}]) -> {_T64}:
                y = self.k(x, y)
                return y
        """,
    "layout_col_major_tile": f"""
        @pl.program
        class LayoutColMajorTile:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: {_T64}, y: pl.Out[{_T64}]) -> {_T64}:
                t = pl.load(x, [0, 0], [64, 64])
                c = pl.move(t, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.col_major)
                e = pl.exp(c)
                d = pl.add(e, t)
                out = pl.store(d, [0, 0], y)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {_T64}, y: pl.Out[{_T64}]) -> {_T64}:
                y = self.k(x, y)
                return y
        """,
    "layout_rmsnorm": f"""
        @pl.program
        class LayoutRmsNorm:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: {_T64}, y: pl.Out[{_T64}]) -> {_T64}:
                t = pl.load(x, [0, 0], [64, 64])
                sq = pl.mul(t, t)
                tmp = pl.create_tile([64, 64], dtype=pl.FP32)
                s = pl.row_sum(sq, tmp)
                m = pl.mul(s, 1.0 / 64)
                e = pl.add(m, 1e-6)
                r = pl.rsqrt(e)
                o = pl.row_expand_mul(t, r)
                out = pl.store(o, [0, 0], y)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {_T64}, y: pl.Out[{_T64}]) -> {_T64}:
                y = self.k(x, y)
                return y
        """,
    "layout_col_major_reductions": f"""
        @pl.program
        class LayoutColMajorReductions:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: {_T64}, y: pl.Out[{_T64}]) -> {_T64}:
                t = pl.load(x, [0, 0], [64, 64])
                c = pl.move(t, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.col_major)
                tmp = pl.create_tile([64, 64], dtype=pl.FP32)
                s = pl.row_sum(c, tmp)
                m = pl.col_max(c)
                r = pl.row_expand_add(c, s)
                d = pl.col_expand_sub(r, m)
                out = pl.store(d, [0, 0], y)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {_T64}, y: pl.Out[{_T64}]) -> {_T64}:
                y = self.k(x, y)
                return y
        """,
    "layout_loop_carry": f"""
        @pl.program
        class LayoutLoopCarry:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: {_T64}, n: pl.Scalar[pl.INDEX], y: pl.Out[{_T64}]) -> {_T64}:
                t = pl.load(x, [0, 0], [64, 64])
                tmp = pl.create_tile([64, 64], dtype=pl.FP32)
                s = pl.row_sum(t, tmp)
                z = pl.mul(s, 0.5)
                for i, (acc,) in pl.range(n, init_values=(z,)):
                    nxt = pl.add(acc, s)
                    acc_out = pl.yield_(nxt)
                r = pl.row_expand_div(t, acc_out)
                out = pl.store(r, [0, 0], y)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {_T64}, n: pl.Scalar[pl.INDEX], y: pl.Out[{_T64}]) -> {_T64}:
                y = self.k(x, n, y)
                return y
        """,
}

_A = "pl.Tensor[[64, 128], pl.FP16]"
_B = "pl.Tensor[[128, 64], pl.FP16]"
_C = "pl.Tensor[[64, 64], pl.FP32]"

# Kernels slicing Mat tiles into cube operands, for CanonicalizeTileSlice.
SLICES = {
    "slice_k_halves": f"""
        @pl.program
        class SliceKHalves:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {_A}, b: {_B}, c: pl.Out[{_C}]) -> {_C}:
                ta = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
                tb = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
                a0 = pl.slice(ta, [64, 64], [0, 0])
                b0 = pl.slice(tb, [64, 64], [0, 0])
                a1 = pl.slice(ta, [64, 64], [0, 64])
                b1 = pl.slice(tb, [64, 64], [64, 0])
                acc = pl.matmul(a0, b0)
                acc2 = pl.matmul_acc(acc, a1, b1)
                out = pl.store(acc2, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: {_A}, b: {_B}, c: pl.Out[{_C}]) -> {_C}:
                c = self.k(a, b, c)
                return c
        """,
    "slice_k_loop": f"""
        @pl.program
        class SliceKLoop:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {_A}, b: {_B}, c: pl.Out[{_C}]) -> {_C}:
                ta = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
                tb = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
                a0 = pl.slice(ta, [64, 32], [0, 0])
                b0 = pl.slice(tb, [32, 64], [0, 0])
                first = pl.matmul(a0, b0)
                for i, (acc,) in pl.range(1, 4, init_values=(first,)):
                    ak = pl.slice(ta, [64, 32], [0, i * 32])
                    bk = pl.slice(tb, [32, 64], [i * 32, 0])
                    nxt = pl.matmul_acc(acc, ak, bk)
                    acc_out = pl.yield_(nxt)
                out = pl.store(acc_out, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: {_A}, b: {_B}, c: pl.Out[{_C}]) -> {_C}:
                c = self.k(a, b, c)
                return c
        """,
    "slice_shared_lhs": f"""
        @pl.program
        class SliceSharedLhs:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {_A}, b: {_B}, c: pl.Out[{_C}], d: pl.Out[{_C}]) -> tuple[{_C}, {_C}]:
                ta = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
                tb = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
                a0 = pl.slice(ta, [64, 64], [0, 64])
                b0 = pl.slice(tb, [64, 64], [64, 0])
                b1 = pl.slice(tb, [64, 64], [0, 0])
                p = pl.matmul(a0, b0)
                q = pl.matmul(a0, b1)
                out = pl.store(p, [0, 0], c)
                out2 = pl.store(q, [0, 0], d)
                return out, out2

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: {_A}, b: {_B}, c: pl.Out[{_C}], d: pl.Out[{_C}]) -> tuple[{_C}, {_C}]:
                c, d = self.k(a, b, c, d)
                return c, d
        """,
}

ALL = {**ND, **CASTS, "cast_native": CAST_NATIVE, **LAYOUTS, **SLICES}


def integral_inputs(program: ir.Program, seed: int = 0) -> list[np.ndarray]:
    """Integer-valued FP32 data for ``main``'s tensors (zeros for Out ones): every cast chain is exact on it."""
    rng = np.random.default_rng(seed)
    main = program.get_function("main")
    out: list[np.ndarray] = []
    for param, direction in zip(main.params, main.param_directions):
        shape = [d.value for d in param.type.shape]
        if direction == ir.ParamDirection.Out:
            out.append(np.zeros(shape, np.float32))
        else:
            out.append(rng.integers(-100, 100, shape).astype(np.float32))
    return out


def parse(name: str) -> ir.Program:
    """The IR of the program called ``name`` as the parser builds it."""
    return pl.parse("import pypto.language as pl\n\n" + textwrap.dedent(ALL[name]))


def front(name: str) -> ir.Program:
    """The program called ``name`` after the front pipeline (surface -> ssa), without plugin passes."""
    return passes.PassManager(passes.front_passes()).run(parse(name))


def kernel(source: str) -> ir.Program:
    """A one-kernel program from the source of its kernel body (for bad-input tests)."""
    return pl.parse("import pypto.language as pl\n\n" + textwrap.dedent(source))
