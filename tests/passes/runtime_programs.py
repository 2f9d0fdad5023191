"""Hand-written programs in memref form (planned kernels, orchestration calling them) for the
runtime passes: DeriveCallDirections, MaterializeRuntimeScopes, ClassifyIterArgCarry, InsertPipeSync."""

from __future__ import annotations

import textwrap

import numpy as np

import pypto.language as pl
from pypto import ir

T = "pl.Tensor[[128, 128], pl.FP32]"
V64 = "pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_{i}, {off}, 32768), pl.Mem.Vec]"

# A kernel on 64 rows of a at a scalar row offset, writing out's rows: exp(a) * alpha.
ROW_KERNEL = f"""
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, a: {T}, row: pl.Scalar[pl.INDEX], out: pl.Out[{T}]) -> {T}:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        ta: {V64.format(i=0, off=0)} = pl.load(a, [row, 0], [64, 128], target_memory=pl.Mem.Vec)
        te: {V64.format(i=0, off=0)} = pl.exp(ta)
        out: {T} = pl.store(te, [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.AIV)
    def k_inout(self, a: {T}, acc: pl.InOut[{T}]) -> {T}:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        ta: {V64.format(i=0, off=0)} = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Vec)
        tb: {V64.format(i=1, off=32768)} = pl.load(acc, [0, 0], [64, 128], target_memory=pl.Mem.Vec)
        tc: {V64.format(i=0, off=0)} = pl.add(ta, tb)
        acc: {T} = pl.store(tc, [0, 0], acc)
        return acc
"""


def orch(body: str, params: str = f"a: {T}, out: pl.Out[{T}]", ret: str = "out", extra: str = "") -> str:
    """A program with the row kernels and an orchestration ``main(params)`` running ``body``."""
    body = textwrap.indent(textwrap.dedent(body).strip(), " " * 8)
    return f"""
@pl.program
class Prog:
{ROW_KERNEL}{extra}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, {params}) -> {T}:
{body}
        return {ret}
"""


# Orchestration bodies for the direction table (each main returns `out`).
DIRECTIONS: dict[str, str] = {
    "first_write_is_output_existing": orch("out = self.k(a, 0, out)"),
    "second_write_is_inout": orch("""
        out = self.k(a, 0, out)
        out = self.k(a, 64, out)
    """),
    "inside_sequential_loop": orch("""
        for i, (o,) in pl.range(2, init_values=(out,)):
            o2: {T} = self.k(a, i * 64, o)
            o3 = pl.yield_(o2)
        out = self.k(a, 0, o3)
    """.replace("{T}", T)),
    "inside_parallel_loop": orch("""
        for i in pl.parallel(2):
            out = self.k(a, i * 64, out)
    """),
    "parallel_inside_sequential": orch("""
        for j in pl.range(2):
            for i in pl.parallel(2):
                out = self.k(a, i * 64, out)
    """),
    "while_loop": orch("""
        for (o, n) in pl.while_(init_values=(out, 0)):
            pl.cond(n < 2)
            o2: {T} = self.k(a, n * 64, o)
            o3, n2 = pl.yield_(o2, n + 1)
        out = o3
    """.replace("{T}", T)),
    "inout_param_of_caller": orch("out = self.k(a, 0, out)", params=f"a: {T}, out: pl.InOut[{T}]"),
    "inout_callee_param": orch("out = self.k_inout(a, out)", params=f"a: {T}, out: pl.InOut[{T}]"),
    "internal_tensor_chain": orch(f"""
        t: {T} = pl.create_tensor([128, 128], dtype=pl.FP32)
        t2: {T} = self.k(a, 0, t)
        t3: {T} = self.k(a, 64, t2)
        out = self.k(t3, 0, out)
    """),
    "branch_does_not_see_other_branch": orch(f"""
        if n > 0:
            o1: {T} = self.k(a, 0, out)
            o2 = pl.yield_(o1)
        else:
            o3: {T} = self.k(a, 64, out)
            o2 = pl.yield_(o3)
        out = self.k(a, 0, o2)
    """, params=f"a: {T}, n: pl.Scalar[pl.INDEX], out: pl.Out[{T}]"),
    "group_wrapper_is_raised": orch("out = self.g(a, out)", extra=f"""
    @pl.function(type=pl.FunctionType.Group)
    def g(self, a: {T}, out: {T}) -> {T}:
        out = self.k(a, 0, out)
        return out
"""),
    "submit_stays_submit": orch("""
        out, tid = pl.submit(self.k, a, 0, out)
        out, tid2 = pl.submit(self.k, a, 64, out)
    """),
    "no_dep_is_kept": orch("""
        out = self.k(pl.no_dep(a), 0, out)
        out = self.k(a, 64, out)
    """),
}


def parse(source: str) -> ir.Program:
    """The IR of one program source."""
    return pl.parse("import pypto.language as pl\n\n" + textwrap.dedent(source))


def inputs(program: ir.Program, seed: int = 0) -> list[object]:
    """Seeded inputs for ``main``: tensors of its parameter shapes, 1 for scalars."""
    rng = np.random.default_rng(seed)
    out: list[object] = []
    for p in program.get_function("main").params:
        if isinstance(p.type, ir.TensorType):
            out.append(rng.standard_normal([d.value for d in p.type.shape]).astype(np.float32) * 0.5)
        else:
            out.append(1)
    return out
