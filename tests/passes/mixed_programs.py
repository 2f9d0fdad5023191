"""Kernels mixing cube and vector work, as ExpandMixedKernel receives them (after InferTileMemorySpace)."""

from __future__ import annotations

import textwrap

from shared_programs import MIXED_ATTENTION

import pypto.language as pl
from pypto import ir, passes
from pypto.pipeline.default import front_passes, lowering_passes

_MAIN = """
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, {params}) -> {ret}:
        c = self.k({args})
        return c
"""

_KERNELS = {
    # A linear layer: matmul, then bias and relu on the vector side (cube -> vector).
    "mm_bias_relu": (
        "a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16], bias: pl.Tensor[[64, 64], pl.FP32], "
        "c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
        "pl.Tensor[[64, 64], pl.FP32]",
        """
        a1 = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        b1 = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        a0 = pl.move(a1, target_memory=pl.Mem.Left)
        b0 = pl.move(b1, target_memory=pl.Mem.Right)
        acc = pl.matmul(a0, b0)
        x = pl.move(acc, target_memory=pl.Mem.Vec)
        bt = pl.load(bias, [0, 0], [64, 64])
        y = pl.add(x, bt)
        z = pl.relu(y)
        out = pl.store(z, [0, 0], c)
        return out
        """,
    ),
    # A bias row broadcast down the columns: under an UP_DOWN split every lane needs the whole row.
    "mm_bias_row": (
        "a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16], bias: pl.Tensor[[1, 64], pl.FP32], "
        "c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
        "pl.Tensor[[64, 64], pl.FP32]",
        """
        a1 = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        b1 = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(a1, target_memory=pl.Mem.Left), pl.move(b1, target_memory=pl.Mem.Right))
        x = pl.move(acc, target_memory=pl.Mem.Vec)
        row = pl.load(bias, [0, 0], [1, 64])
        out = pl.store(pl.col_expand_add(x, row), [0, 0], c)
        return out
        """,
    ),
    # A K loop accumulating on the cube side, then an epilogue on the vector side: the vector kernel
    # keeps no copy of the loop.
    "k_loop_exp": (
        "a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
        "pl.Tensor[[64, 64], pl.FP32]",
        """
        a1 = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b1 = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        first = pl.matmul(pl.move(a1, target_memory=pl.Mem.Left), pl.move(b1, target_memory=pl.Mem.Right))
        for k, (acc,) in pl.range(1, 4, init_values=(first,)):
            ak = pl.load(a, [0, k * 64], [64, 64], target_memory=pl.Mem.Mat)
            bk = pl.load(b, [k * 64, 0], [64, 64], target_memory=pl.Mem.Mat)
            nxt = pl.matmul_acc(acc, pl.move(ak, target_memory=pl.Mem.Left), pl.move(bk, target_memory=pl.Mem.Right))
            total = pl.yield_(nxt)
        out = pl.store(pl.exp(pl.move(total, target_memory=pl.Mem.Vec)), [0, 0], c)
        return out
        """,
    ),
    # The vector side prepares the left operand, the cube multiplies (vector -> cube).
    "vec_to_cube": (
        "a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
        "pl.Tensor[[64, 64], pl.FP32]",
        """
        av = pl.load(a, [0, 0], [64, 128])
        sq = pl.mul(av, av)
        a0 = pl.move(sq, target_memory=pl.Mem.Left)
        b1 = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        b0 = pl.move(b1, target_memory=pl.Mem.Right)
        acc = pl.matmul(a0, b0)
        out = pl.store(acc, [0, 0], c)
        return out
        """,
    ),
    # A loop whose matmul results the vector side accumulates: carries repaired per side.
    "loop_c2v": (
        "a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16], c: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
        "pl.Tensor[[256, 64], pl.FP32]",
        """
        a1 = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        a0 = pl.move(a1, target_memory=pl.Mem.Left)
        total = pl.create_tile([64, 64], dtype=pl.FP32)
        zero = pl.mul(total, 0.0)
        for i, (acc_v,) in pl.range(4, init_values=(zero,)):
            b1 = pl.load(b, [i * 64, 0], [64, 64], target_memory=pl.Mem.Mat)
            b0 = pl.move(b1, target_memory=pl.Mem.Right)
            mm = pl.matmul(a0, b0)
            v = pl.move(mm, target_memory=pl.Mem.Vec)
            nxt = pl.add(acc_v, pl.exp(v))
            pl.store(nxt, [i * 64, 0], c)
            acc_out = pl.yield_(nxt)
        return c
        """,
    ),
    # A hand-split epilogue: each AIV lane takes its half of the matmul result (pl.split_aiv).
    "split_aiv_exp": (
        "a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
        "pl.Tensor[[64, 64], pl.FP32]",
        """
        pl.func_attr({"split_aiv": True})
        a1 = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        b1 = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        a0 = pl.move(a1, target_memory=pl.Mem.Left)
        b0 = pl.move(b1, target_memory=pl.Mem.Right)
        acc = pl.matmul(a0, b0)
        for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.tile.aiv_shard(acc, split=1)
            e = pl.exp(h)
            pl.store(e, [lane * 32, 0], c)
        return c
        """,
    ),
}

# Whole programs in the tensor-level form a user writes (``{opts}``: extra ``pl.at`` arguments).
_PROGRAMS = {
    # Matmul then row softmax in one pl.at scope.
    "mm_softmax": """
@pl.program
class MmSoftmax:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP{opts}):
            x = pl.matmul(a, b, out_dtype=pl.FP32)
            m = pl.row_max(x)
            e = pl.exp(pl.row_expand_sub(x, m))
            s = pl.row_sum(e)
            y = pl.row_expand_div(e, s)
            c = pl.assemble(c, y, [0, 0])
        return c
""",
    # A linear layer with bias and relu in one pl.at scope, written with tile ops.
    "linear_relu_at": """
@pl.program
class LinearReluAt:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
             bias: pl.Tensor[[64, 64], pl.FP32],
             c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP{opts}):
            a1 = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
            b1 = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(a1, target_memory=pl.Mem.Left), pl.move(b1, target_memory=pl.Mem.Right))
            y = pl.add(pl.move(acc, target_memory=pl.Mem.Vec), pl.load(bias, [0, 0], [64, 64]))
            c = pl.store(pl.relu(y), [0, 0], c)
        return c
""",
    # A pl.cluster() holding one mixed pl.at scope: the cluster's Group launches the split's kernels.
    "cluster_mm_exp": """
@pl.program
class ClusterMmExp:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.cluster():
            with pl.at(level=pl.Level.CORE_GROUP{opts}):
                x = pl.matmul(a, b, out_dtype=pl.FP32)
                c = pl.assemble(c, pl.exp(x), [0, 0])
        return c
""",
    # A hand-written Group calling a mixed InCore kernel: the Group launches the split's kernels.
    "group_caller": """
@pl.program
class GroupCaller:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
           c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a1 = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b1 = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(a1, target_memory=pl.Mem.Left), pl.move(b1, target_memory=pl.Mem.Right))
        c = pl.store(pl.exp(pl.move(acc, target_memory=pl.Mem.Vec)), [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Group)
    def grp(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
            c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        c = self.mm(a, b, c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        c = self.grp(a, b, c)
        return c
""",
    # Attention-like: QK^T to the vector side, exp back to the cube for PV, accumulated on the vector
    # side over a loop, on two SPMD blocks through two-slot pipes both ways.
    "attention": MIXED_ATTENTION,
}

NAMES = sorted([*_KERNELS, *_PROGRAMS])


def source(name: str, opts: str = "") -> str:
    """The DSL source of program ``name`` (``opts``: extra ``pl.at`` arguments of the whole programs)."""
    if name in _PROGRAMS:
        return _PROGRAMS[name].format(opts=opts)
    params, ret, body = _KERNELS[name]
    args = ", ".join(p.split(":")[0].strip() for p in params.split(", ") if ":" in p)
    kernel = (f"    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, {params}) -> {ret}:\n"
              + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8) + "\n")
    main = textwrap.indent(textwrap.dedent(_MAIN.format(params=params, ret=ret, args=args)).strip("\n"), " " * 4)
    return f"@pl.program\nclass {name.title().replace('_', '')}:\n{kernel}\n{main}\n"


def placed(name: str, opts: str = "") -> ir.Program:
    """Program ``name`` after every pass before ExpandMixedKernel."""
    return before_pass(name, "ExpandMixedKernel", opts)


def before_pass(name: str, pass_name: str, opts: str = "") -> ir.Program:
    """Program ``name`` after every pass before ``pass_name``."""
    chain = front_passes() + lowering_passes()
    upto = [p.name for p in chain].index(pass_name)
    return passes.PassManager(chain[:upto]).run(pl.parse("import pypto.language as pl\n" + source(name, opts)))
