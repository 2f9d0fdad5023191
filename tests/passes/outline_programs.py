"""Tensor-level DSL programs for the outlining tests (OutlineHierarchy/Incore/ClusterScopes).

Each entry is the source of one ``@pl.program`` whose entry is ``main``; ``ssa_program(name)``
returns it as the outlining passes receive it (after the front passes, in the ``ssa`` dialect).
"""

from __future__ import annotations

import textwrap

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
