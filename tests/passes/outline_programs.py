"""Tensor-level DSL programs for the outlining tests (OutlineHierarchy/Incore/ClusterScopes).

Each entry is the source of one ``@pl.program`` whose entry is ``main``; ``ssa_program(name)``
returns it as the outlining passes receive it (after the front passes, in the ``ssa`` dialect).
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

import pypto.language as pl
from pypto import ir, passes

_T = "pl.Tensor[[64, 64], pl.FP32]"
_ROWS = "pl.Tensor[[128, 64], pl.FP32]"

INCORE = {
    "tensor_ops": f"""
        @pl.program
        class TensorOps:
            @pl.function
            def main(self, a: {_T}, b: {_T}) -> {_T}:
                c: {_T} = pl.add(a, b)
                with pl.at(level=pl.Level.CORE_GROUP):
                    d: {_T} = pl.mul(c, a)
                    e: {_T} = pl.exp(d)
                f: {_T} = pl.add(e, d)
                return f
    """,
    "writes_captured_tensor": f"""
        @pl.program
        class WritesCaptured:
            @pl.function
            def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    y: {_T} = pl.add(x, x)
                    out[:] = y
                return out
    """,
    "bare_store_in_two_scopes": f"""
        @pl.program
        class ShiftScaled:
            @pl.function
            def main(self, x: {_T}, tmp: pl.Out[{_T}], y: pl.Out[{_T}]) -> {_T}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [0, 0], [64, 64])
                    pl.store(pl.mul(t, 3.0), [0, 0], tmp)
                with pl.at(level=pl.Level.CORE_GROUP):
                    u = pl.load(tmp, [0, 0], [64, 64])
                    pl.store(pl.add(u, 1.0), [0, 0], y)
                return y
    """,
    "bare_stores_into_one_tensor_in_three_scopes": f"""
        @pl.program
        class ThreeStores:
            @pl.function
            def main(self, x: {_T}, acc: pl.InOut[{_T}]) -> {_T}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.store(pl.load(x, [0, 0], [64, 64]), [0, 0], acc)
                with pl.at(level=pl.Level.CORE_GROUP):
                    a = pl.load(acc, [0, 0], [64, 64])
                    pl.store(pl.add(a, a), [0, 0], acc)
                with pl.at(level=pl.Level.CORE_GROUP):
                    b = pl.load(acc, [0, 0], [64, 64])
                    pl.store(pl.mul(b, 3.0), [0, 0], acc)
                return acc
    """,
    "bare_store_read_back": f"""
        @pl.program
        class StoreReadBack:
            @pl.function
            def main(self, x: {_T}, acc: pl.InOut[{_T}]) -> {_T}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    a = pl.load(acc, [0, 0], [64, 64])
                    t = pl.load(x, [0, 0], [64, 64])
                    pl.store(pl.add(a, t), [0, 0], acc)
                    s = pl.store(pl.add(a, a), [0, 0], acc)
                return acc
    """,
    "reads_and_writes_captured_tensor": f"""
        @pl.program
        class ReadsAndWrites:
            @pl.function
            def main(self, x: {_T}, acc: pl.InOut[{_T}]) -> {_T}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    y: {_T} = pl.add(acc, x)
                    acc[:] = y
                return acc
    """,
    "row_blocks_in_a_loop": f"""
        @pl.program
        class RowBlocks:
            @pl.function
            def main(self, x: {_ROWS}, out: pl.Out[{_ROWS}]) -> {_ROWS}:
                for i in pl.range(4):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = x[i * 32 : i * 32 + 32, :]
                        y = pl.exp(t)
                        out[i * 32 : i * 32 + 32, :] = y
                return out
    """,
    "scopes_under_if_and_name_hints": f"""
        @pl.program
        class Hinted:
            @pl.function
            def main(self, x: {_T}, n: pl.Scalar[pl.INDEX]) -> {_T}:
                if n > 3:
                    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
                        y: {_T} = pl.mul(x, 2.0)
                else:
                    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
                        y: {_T} = pl.add(x, x)
                with pl.at(level=pl.Level.CORE_GROUP):
                    z: {_T} = pl.sub(y, x)
                return z
    """,
    "tasks_and_no_dep": f"""
        @pl.program
        class Tasks:
            @pl.function
            def main(self, x: {_T}, out: pl.Out[{_T}], side: pl.Out[{_T}]) -> {_T}:
                with pl.at(level=pl.Level.CORE_GROUP) as t0:
                    y: {_T} = pl.add(x, x)
                with pl.at(level=pl.Level.CORE_GROUP, deps=[t0], allow_early_resolve=True, no_dep_args=[side]):
                    z: {_T} = pl.mul(y, x)
                    side[:] = z
                    out[:] = z
                return out
    """,
    "split_and_slot_num": f"""
        @pl.program
        class Split:
            @pl.function
            def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16]) -> {_T}:
                with pl.at(level=pl.Level.CORE_GROUP,
                           optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)]):
                    c: {_T} = pl.matmul(a, b, out_dtype=pl.FP32)
                    d: {_T} = pl.exp(c)
                return d
    """,
}

_KERNEL = f"""
            @pl.function(type=pl.FunctionType.InCore)
            def scale(self, x: {_ROWS}, out: pl.Out[{_ROWS}]) -> {_ROWS}:
                b = pl.tile.get_block_idx()
                t: pl.Tile[[32, 64], pl.FP32] = pl.load(x, [b * 32, 0], [32, 64])
                u: pl.Tile[[32, 64], pl.FP32] = pl.add(t, t)
                r: {_ROWS} = pl.store(u, [b * 32, 0], out)
                return r
"""

CLUSTER = {
    "spmd_inline_kernel": f"""
        @pl.program
        class SpmdInline:
            @pl.function
            def main(self, x: {_ROWS}, out: pl.Out[{_ROWS}]) -> {_ROWS}:
                for i in pl.spmd(4):
                    t = x[i * 32 : i * 32 + 32, :]
                    y = pl.exp(t)
                    out[i * 32 : i * 32 + 32, :] = y
                return out
    """,
    "spmd_dispatch_with_task": f"""
        @pl.program
        class SpmdTask:
{_KERNEL}
            @pl.function
            def main(self, x: {_ROWS}, out: pl.Out[{_ROWS}], gate: pl.Tensor[[1], pl.INT32]) -> {_ROWS}:
                with pl.spmd(4, sync_start=True, predicate=(gate[0] > 0)) as tid:
                    out = self.scale(x, out)
                return out
    """,
    "spmd_carrier_with_name_hint": f"""
        @pl.program
        class SpmdCarrier:
            @pl.function
            def main(self, x: {_ROWS}, out: pl.Out[{_ROWS}]) -> {_ROWS}:
                with pl.spmd(4, name_hint="rows"):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        b = pl.tile.get_block_idx()
                        t = x[b * 32 : b * 32 + 32, :]
                        y = pl.mul(t, 3.0)
                        out[b * 32 : b * 32 + 32, :] = y
                return out
    """,
    "cluster_of_two_kernels": f"""
        @pl.program
        class ClusterTwo:
            @pl.function
            def main(self, a: {_T}, b: {_T}) -> {_T}:
                with pl.cluster():
                    with pl.at(level=pl.Level.CORE_GROUP):
                        c: {_T} = pl.add(a, b)
                    with pl.at(level=pl.Level.CORE_GROUP):
                        d: {_T} = pl.mul(c, a)
                e: {_T} = pl.sub(d, b)
                return e
    """,
    "cluster_with_bare_store": f"""
        @pl.program
        class ClusterStore:
            @pl.function
            def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
                with pl.cluster():
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(x, [0, 0], [64, 64])
                        pl.store(pl.exp(t), [0, 0], out)
                return out
    """,
    "cluster_of_one_spmd": f"""
        @pl.program
        class ClusterSpmd:
{_KERNEL}
            @pl.function
            def main(self, x: {_ROWS}, out: pl.Out[{_ROWS}], n: pl.Scalar[pl.INDEX]) -> {_ROWS}:
                with pl.cluster():
                    with pl.spmd(n + 1):
                        out = self.scale(x, out)
                return out
    """,
}

HIERARCHY = {
    "host_orchestrator": f"""
        @pl.program
        class Host:
            @pl.function
            def main(self, a: {_T}, b: {_T}) -> {_T}:
                c: {_T} = pl.add(a, b)
                with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                    d: {_T} = pl.mul(c, a)
                return d
    """,
    "nested_levels_and_kernels": f"""
        @pl.program
        class Levels:
            @pl.function
            def main(self, a: {_T}, out: pl.Out[{_T}]) -> {_T}:
                with pl.at(level=pl.Level.HOST):
                    b: {_T} = pl.add(a, a)
                    with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator, name_hint="chip_part"):
                        with pl.at(level=pl.Level.CORE_GROUP):
                            c: {_T} = pl.mul(b, a)
                            out[:] = c
                return out
    """,
}

ALL = {"incore": INCORE, "cluster": CLUSTER, "hierarchy": HIERARCHY}


def source(group: str, name: str) -> str:
    """The full source of program ``name`` of ``group``."""
    return "import pypto.language as pl\n\n" + textwrap.dedent(ALL[group][name])


def ssa_program(group: str, name: str) -> ir.Program:
    """Program ``name`` of ``group`` after the front passes (the outlining passes' input)."""
    return front(source(group, name))


# The scalar arguments a program is run with (default: 1 and 3); integer tensors hold scalar % 2
# (a predicate's gate of 0 skips its spmd scope).
SCALARS = {"scopes_under_if_and_name_hints": (2, 5), "cluster_of_one_spmd": (0, 3), "spmd_dispatch_with_task": (1, 2)}


def inputs(program: ir.Program, scalar: int) -> list[Any]:
    """Arguments for ``main``: ``scalar`` for scalars, fixed random data for float tensors."""
    rng = np.random.default_rng(11)
    args: list[Any] = []
    for p in program.get_function("main").params:
        t = p.type
        if isinstance(t, ir.ScalarType):
            args.append(scalar)
            continue
        shape = [d.value for d in t.shape]
        if t.dtype.is_float():
            args.append(rng.standard_normal(shape).astype(np.float16 if t.dtype == ir.DataType.FP16 else np.float32))
        else:
            args.append(np.full(shape, scalar % 2, dtype=np.int32))
    return args

DYNAMIC = '''
import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class Dynamic:
    @pl.function
    def main(self, x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Scalar[pl.INDEX]:
        n = pl.tensor.dim(x, 0)
        with pl.at(level=pl.Level.CORE_GROUP):
            for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                y = pl.exp(x)
                out[:] = y
        return n
'''


def front(text: str) -> ir.Program:
    """A full program source after the front passes."""
    return passes.PassManager(passes.front_passes()).run(pl.parse(text))
