"""Tile-level programs for the passes from ``outlined`` to ``split_core``, with inputs to run them.

Each entry is the source of one ``@pl.program`` whose kernels are written with tile ops;
``front(name)`` returns it after the front pipeline (surface -> ssa), which is already in
``outlined`` (the programs have no ``pl.at`` scopes to outline).
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

import pypto.language as pl
from pypto import ir, passes
from pypto.transform.rewrite import RewritePass, on

_T128 = "pl.Tensor[[128, 128], pl.FP32]"
_T64 = "pl.Tensor[[64, 64], pl.FP32]"

PROGRAMS = {
    "tile_add": f"""
        @pl.program
        class TileAdd:
            @pl.function(type=pl.FunctionType.InCore)
            def tile_add(self, a: {_T128}, b: {_T128}, c: pl.Out[{_T128}]) -> {_T128}:
                ta: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [0, 0], [128, 128])
                tb: pl.Tile[[128, 128], pl.FP32] = pl.load(b, [0, 0], [128, 128])
                tc: pl.Tile[[128, 128], pl.FP32] = pl.add(ta, tb)
                out: {_T128} = pl.store(tc, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: {_T128}, b: {_T128}, c: pl.Out[{_T128}]) -> {_T128}:
                c = self.tile_add(a, b, c)
                return c
        """,
    "matmul": """
        @pl.program
        class Matmul:
            @pl.function(type=pl.FunctionType.InCore)
            def matmul(
                self,
                a: pl.Tensor[[64, 64], pl.FP16],
                b: pl.Tensor[[64, 64], pl.FP16],
                c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
            ) -> pl.Tensor[[64, 64], pl.FP32]:
                a_l1 = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
                b_l1 = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
                a_l0 = pl.move(a_l1, target_memory=pl.Mem.Left)
                b_l0 = pl.move(b_l1, target_memory=pl.Mem.Right)
                acc = pl.matmul(a_l0, b_l0)
                out = pl.store(acc, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                a: pl.Tensor[[64, 64], pl.FP16],
                b: pl.Tensor[[64, 64], pl.FP16],
                c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
            ) -> pl.Tensor[[64, 64], pl.FP32]:
                c = self.matmul(a, b, c)
                return c
        """,
    "loop_carry": f"""
        @pl.program
        class LoopCarry:
            @pl.function(type=pl.FunctionType.InCore)
            def scale_loop(self, x: {_T64}, n: pl.Scalar[pl.INDEX], y: pl.Out[{_T64}]) -> {_T64}:
                t = pl.load(x, [0, 0], [64, 64])
                for i, (acc,) in pl.range(n, init_values=(t,)):
                    nxt = pl.add(acc, t)
                    acc_out = pl.yield_(nxt)
                out = pl.store(acc_out, [0, 0], y)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {_T64}, n: pl.Scalar[pl.INDEX], y: pl.Out[{_T64}]) -> {_T64}:
                y = self.scale_loop(x, n, y)
                return y
        """,
    "softmax": f"""
        @pl.program
        class Softmax:
            @pl.function(type=pl.FunctionType.InCore)
            def softmax(self, x: {_T64}, y: pl.Out[{_T64}]) -> {_T64}:
                t = pl.load(x, [0, 0], [64, 64])
                tmp = pl.create_tile([64, 64], dtype=pl.FP32)
                m = pl.row_max(t, tmp)
                s = pl.row_expand_sub(t, m)
                e = pl.exp(s)
                z = pl.row_sum(e, tmp)
                r = pl.row_expand_div(e, z)
                out = pl.store(r, [0, 0], y)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {_T64}, y: pl.Out[{_T64}]) -> {_T64}:
                y = self.softmax(x, y)
                return y
        """,
}

# Kernels whose operands sit in spaces their ops do not accept, for InferTileMemorySpace.
INFER = {
    "matmul_from_vec": """
        @pl.program
        class MatmulFromVec:
            @pl.function(type=pl.FunctionType.InCore)
            def mm(
                self,
                a: pl.Tensor[[16, 64], pl.FP16],
                b: pl.Tensor[[64, 32], pl.FP16],
                c: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
            ) -> pl.Tensor[[16, 32], pl.FP32]:
                x = pl.load(a, [0, 0], [16, 64])
                y = pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
                z = pl.matmul(x, y)
                w = pl.matmul(x, y)
                s = pl.add(z, w)
                out = pl.store(s, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                a: pl.Tensor[[16, 64], pl.FP16],
                b: pl.Tensor[[64, 32], pl.FP16],
                c: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
            ) -> pl.Tensor[[16, 32], pl.FP32]:
                c = self.mm(a, b, c)
                return c
        """,
    "accumulate_in_loop": """
        @pl.program
        class AccumulateInLoop:
            @pl.function(type=pl.FunctionType.InCore)
            def mm_loop(
                self,
                a: pl.Tensor[[16, 64], pl.FP16],
                b: pl.Tensor[[64, 32], pl.FP16],
                n: pl.Scalar[pl.INDEX],
                c: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
            ) -> pl.Tensor[[16, 32], pl.FP32]:
                x = pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
                y = pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
                zero = pl.create_tile([16, 32], dtype=pl.FP32)
                init = pl.mul(zero, 0.0)
                for i, (acc,) in pl.range(n, init_values=(init,)):
                    nxt = pl.matmul_acc(acc, x, y)
                    acc_out = pl.yield_(nxt)
                out = pl.store(acc_out, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                a: pl.Tensor[[16, 64], pl.FP16],
                b: pl.Tensor[[64, 32], pl.FP16],
                n: pl.Scalar[pl.INDEX],
                c: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
            ) -> pl.Tensor[[16, 32], pl.FP32]:
                c = self.mm_loop(a, b, n, c)
                return c
        """,
    "branches_disagree": f"""
        @pl.program
        class BranchesDisagree:
            @pl.function(type=pl.FunctionType.InCore)
            def pick(self, x: {_T64}, flag: pl.Scalar[pl.INDEX], y: pl.Out[{_T64}]) -> {_T64}:
                t = pl.load(x, [0, 0], [64, 64])
                if flag > 0:
                    u = pl.exp(t)
                    r = pl.yield_(u)
                else:
                    m = pl.load(x, [0, 0], [64, 64])
                    r = pl.yield_(m)
                out = pl.store(r, [0, 0], y)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {_T64}, flag: pl.Scalar[pl.INDEX], y: pl.Out[{_T64}]) -> {_T64}:
                y = self.pick(x, flag, y)
                return y
        """,
    "moves_per_block": f"""
        @pl.program
        class MovesPerBlock:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: {_T64}, flag: pl.Scalar[pl.INDEX], y: pl.Out[{_T64}]) -> {_T64}:
                m = pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
                if flag > 0:
                    a = pl.exp(m)
                    r = pl.yield_(a)
                else:
                    b = pl.neg(m)
                    r = pl.yield_(b)
                s = pl.add(r, m)
                out = pl.store(s, [0, 0], y)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {_T64}, flag: pl.Scalar[pl.INDEX], y: pl.Out[{_T64}]) -> {_T64}:
                y = self.k(x, flag, y)
                return y
        """,
    "move_reused_inside": f"""
        @pl.program
        class MoveReusedInside:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: {_T64}, n: pl.Scalar[pl.INDEX], y: pl.Out[{_T64}]) -> {_T64}:
                m = pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
                e = pl.exp(m)
                for i, (acc,) in pl.range(n, init_values=(e,)):
                    nxt = pl.add(acc, m)
                    acc_out = pl.yield_(nxt)
                out = pl.store(acc_out, [0, 0], y)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {_T64}, n: pl.Scalar[pl.INDEX], y: pl.Out[{_T64}]) -> {_T64}:
                y = self.k(x, n, y)
                return y
        """,
}

# Kernels returning several written parameters, for NormalizeReturnOrder.
RETURNS = {
    "two_outputs": f"""
        @pl.program
        class TwoOutputs:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: {_T64}, p: pl.Out[{_T64}], q: pl.Out[{_T64}]) -> tuple[{_T64}, {_T64}]:
                t = pl.load(x, [0, 0], [64, 64])
                e = pl.exp(t)
                rq = pl.store(e, [0, 0], q)
                rp = pl.store(t, [0, 0], p)
                return rq, rp

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {_T64}, p: pl.Out[{_T64}], q: pl.Out[{_T64}]) -> {_T64}:
                a, b = self.k(x, p, q)
                s = pl.add(a, b)
                return s
        """,
}

# Kernels with matmuls on Mat operands too big for L0A/L0B, for AutoTileMatmulL0.
MATMUL_L0 = {
    "big_k": """
        @pl.program
        class BigK:
            @pl.function(type=pl.FunctionType.InCore)
            def mm(
                self,
                a: pl.Tensor[[128, 512], pl.FP16],
                b: pl.Tensor[[512, 128], pl.FP16],
                c: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
            ) -> pl.Tensor[[128, 128], pl.FP32]:
                x = pl.load(a, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
                y = pl.load(b, [0, 0], [512, 128], target_memory=pl.Mem.Mat)
                z = pl.matmul(x, y)
                out = pl.store(z, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                a: pl.Tensor[[128, 512], pl.FP16],
                b: pl.Tensor[[512, 128], pl.FP16],
                c: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
            ) -> pl.Tensor[[128, 128], pl.FP32]:
                c = self.mm(a, b, c)
                return c
        """,
    # Only the left operand is too big; the product is accumulated again in a loop by matmul_acc.
    "big_k_accumulated": """
        @pl.program
        class BigKAccumulated:
            @pl.function(type=pl.FunctionType.InCore)
            def mm_loop(
                self,
                a: pl.Tensor[[64, 1024], pl.FP16],
                b: pl.Tensor[[1024, 32], pl.FP16],
                n: pl.Scalar[pl.INDEX],
                c: pl.Out[pl.Tensor[[64, 32], pl.FP32]],
            ) -> pl.Tensor[[64, 32], pl.FP32]:
                x = pl.load(a, [0, 0], [64, 1024], target_memory=pl.Mem.Mat)
                y = pl.load(b, [0, 0], [1024, 32], target_memory=pl.Mem.Mat)
                first = pl.matmul(x, y)
                for i, (acc,) in pl.range(n, init_values=(first,)):
                    nxt = pl.matmul_acc(acc, x, y)
                    acc_out = pl.yield_(nxt)
                out = pl.store(acc_out, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                a: pl.Tensor[[64, 1024], pl.FP16],
                b: pl.Tensor[[1024, 32], pl.FP16],
                n: pl.Scalar[pl.INDEX],
                c: pl.Out[pl.Tensor[[64, 32], pl.FP32]],
            ) -> pl.Tensor[[64, 32], pl.FP32]:
                c = self.mm_loop(a, b, n, c)
                return c
        """,
    # FP32 operands split into 8-element-granular slabs; the small matmul beside it fits and stays.
    "fp32_big_k_and_small": """
        @pl.program
        class Fp32BigKAndSmall:
            @pl.function(type=pl.FunctionType.InCore)
            def mm_two(
                self,
                a: pl.Tensor[[64, 512], pl.FP32],
                b: pl.Tensor[[512, 64], pl.FP32],
                c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
                d: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
            ) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
                x = pl.load(a, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
                y = pl.load(b, [0, 0], [512, 64], target_memory=pl.Mem.Mat)
                z = pl.matmul(x, y)
                xs = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
                ys = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
                w = pl.matmul(xs, ys)
                out_c = pl.store(z, [0, 0], c)
                out_d = pl.store(w, [0, 0], d)
                return out_c, out_d

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                a: pl.Tensor[[64, 512], pl.FP32],
                b: pl.Tensor[[512, 64], pl.FP32],
                c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
                d: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
            ) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
                c, d = self.mm_two(a, b, c, d)
                return c, d
        """,
}

ALL = {**PROGRAMS, **INFER, **RETURNS, **MATMUL_L0}


class _Unplace(RewritePass):
    """Kernel tiles without memory spaces, loads and creates without a Vec ``target_memory``, as
    a tensor-to-tile conversion leaves them; the loads of ``to_mat`` get ``target_memory=Mat``."""

    types = True
    to_mat: tuple[str, ...] = ()

    def applies(self, func: ir.Function) -> bool:
        return ir.is_incore_type(func.func_type)

    @on(ir.TileType)
    def _tile(self, t: ir.TileType) -> ir.TileType:
        return ir.TileType(t.shape, t.dtype, t.memref, None, None) if t.memory_space is not None else t

    @on(ir.AssignStmt)
    def _assign(self, node: ir.AssignStmt) -> ir.AssignStmt:
        call = self.expr(node.value)
        name = call.op.name if isinstance(call, ir.Call) else ""
        if name in ("tile.load", "tile.create"):
            kwargs = {k: v for k, v in call.kwargs.items() if k != "target_memory"}
            if node.var.name_hint in self.to_mat:
                kwargs["target_memory"] = ir.MemorySpace.Mat
            call = ir.Call(call.op, list(call.args), kwargs, call.attrs, call.type, call.span)
        return ir.AssignStmt(self.define(node.var), call, node.span)


def unplaced(program: ir.Program, to_mat: tuple[str, ...] = ()) -> ir.Program:
    """``program`` with its kernel tiles' memory spaces left to InferTileMemorySpace (see ``_Unplace``)."""
    return _Unplace(to_mat=to_mat).run(program)


def parse(name: str) -> ir.Program:
    """The IR of the program called ``name`` as the parser builds it."""
    return pl.parse("import pypto.language as pl\n\n" + textwrap.dedent(ALL[name]))


def front(name: str) -> ir.Program:
    """The program called ``name`` after the front pipeline (surface -> ssa), without plugin passes."""
    return passes.PassManager(passes.front_passes()).run(parse(name))


def inputs(program: ir.Program, seed: int = 0, scalar: int = 3) -> list[Any]:
    """Random arrays for the tensor parameters of ``main`` (zeros for Out ones) and ``scalar`` for scalars."""
    rng = np.random.default_rng(seed)
    out: list[Any] = []
    main = program.get_function("main")
    for param, direction in zip(main.params, main.param_directions):
        t = param.type
        if isinstance(t, ir.TensorType):
            shape = [d.value for d in t.shape]
            dtype = np.float16 if t.dtype == ir.DataType.FP16 else np.float32
            if direction == ir.ParamDirection.Out:
                out.append(np.zeros(shape, dtype))
            else:
                out.append(rng.uniform(-1.0, 1.0, shape).astype(dtype))
        else:
            out.append(scalar)
    return out
