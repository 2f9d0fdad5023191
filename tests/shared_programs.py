"""Program texts that several test modules read (import from here rather than copying)."""

# An Inline function whose pl.unroll bound is a parameter: only after InlineFunctions splices the
# call does the bound become known, and here it is a runtime value, so UnrollLoops fails at line 9
# (the text starts with a newline) / line 8 once stripped.
INLINE_UNROLL = """
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def rep(self, k: pl.Scalar[pl.INDEX], acc: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i in pl.unroll(k):
            acc = acc + i
        return acc

    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        r: pl.Scalar[pl.INDEX] = self.rep(n, n)
        return r
"""

# MemoryReuse strategies (tests/passes/test_pass_options.py, tests/sim/test_pass_options_sim.py):
# four Vec tiles live [1,3] (32 KiB), [2,5] (24 KiB), [4,7] (16 KiB) and [6,8] (24 KiB), numbering
# the statements. Decreasing by size, the second 24 KiB tile may join the 32 KiB or the other 24 KiB
# buffer: first fit takes the 32 KiB one and leaves the 16 KiB tile no room (72 KiB in all); best
# fit takes the 24 KiB one and the 16 KiB tile then fits the 32 KiB buffer (56 KiB).
FOUR_TILES = """
import pypto.language as pl


@pl.program
class FourTiles:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[112, 128], pl.FP32],
          out: pl.Out[pl.Tensor[[192, 128], pl.FP32]]) -> pl.Tensor[[192, 128], pl.FP32]:
        ta: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 128])
        tb: pl.Tile[[48, 128], pl.FP32, pl.Mem.Vec] = pl.load(x, [64, 0], [48, 128])
        o1: pl.Tensor[[192, 128], pl.FP32] = pl.store(ta, [0, 0], out)
        td: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [32, 128])
        o2: pl.Tensor[[192, 128], pl.FP32] = pl.store(tb, [64, 0], o1)
        tc: pl.Tile[[48, 128], pl.FP32, pl.Mem.Vec] = pl.load(x, [32, 0], [48, 128])
        o3: pl.Tensor[[192, 128], pl.FP32] = pl.store(td, [112, 0], o2)
        o4: pl.Tensor[[192, 128], pl.FP32] = pl.store(tc, [144, 0], o3)
        return o4

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[112, 128], pl.FP32],
             out: pl.Out[pl.Tensor[[192, 128], pl.FP32]]) -> pl.Tensor[[192, 128], pl.FP32]:
        out = self.k(x, out)
        return out
"""

# A mixed kernel whose product is valid on a runtime number of rows ``n``: the tile the vector side
# pops is valid on ``n`` rows too (tests/codegen/test_cross_core_codegen.py checks the printed pop,
# tests/sim/test_cross_core_sim.py runs it).
DYNAMIC_ROWS_MIXED = """
import pypto.language as pl


@pl.program
class DynamicRows:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], n: pl.Scalar[pl.INDEX],
           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a_mat = pl.load(a, [0, 0], [64, 64], valid_shape=[n, 64], target_memory=pl.Mem.Mat)
        b_mat = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(a_mat, target_memory=pl.Mem.Left), pl.move(b_mat, target_memory=pl.Mem.Right))
        out = pl.store(pl.exp(pl.move(acc, target_memory=pl.Mem.Vec)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], n: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = self.mm(a, b, n, out)
        return out
"""


# A mixed kernel like attention: QK^T to the vector side, exp back to the cube for PV, accumulated on
# the vector side over four trips, on two SPMD blocks through two-slot pipes both ways (no import
# line: the pass tests add it).
MIXED_ATTENTION = """
@pl.program
class Attention:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[64, 64], pl.FP16], k: pl.Tensor[[256, 64], pl.FP16],
             v: pl.Tensor[[256, 64], pl.FP16],
             o: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        for blk in pl.spmd(2, optimizations=[pl.cross_core_slot(slot_num=2)]):
            acc = pl.full([64, 64], dtype=pl.FP32, value=0.0)
            for i in pl.range(4):
                kt = pl.slice(k, [64, 64], [i * 64, 0])
                vt = pl.slice(v, [64, 64], [i * 64, 0])
                s = pl.matmul(q, kt, b_trans=True, out_dtype=pl.FP32)
                p = pl.cast(pl.exp(pl.mul(s, 0.125)), pl.FP16)
                acc = pl.add(acc, pl.matmul(p, vt, out_dtype=pl.FP32))
            o = pl.assemble(o, acc, [blk * 64, 0])
        return o
"""


_CUBE_TO_VECTOR = """
import pypto.language as pl


@pl.program
class CubeToVector:
    @pl.function(type=pl.FunctionType.AIC)
    def mm_aic(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16]):
        peer = pl.import_peer_buffer(name="c2v_buf", peer_func="mm_aiv")
        pl.aic_initialize_pipe(peer, pl.const(0, pl.INT32), dir_mask=1, slot_size=16384, slot_num=2)
        a_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        a_left: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.move(a_mat, target_memory=pl.Mem.Left)
        b_right: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.move(b_mat, target_memory=pl.Mem.Right)
        acc: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.matmul(a_left, b_right)
        pl.tpush_to_aiv(acc, split=SPLIT)

    @pl.function(ATTRStype=pl.FunctionType.AIV)
    def mm_aiv(self, out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
RESERVE
        pl.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=16384, slot_num=2)
        c: pl.Tile[[ROWS, 64], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=SPLIT)
BODY
        return out

    @pl.function(type=pl.FunctionType.Group)
    def mm(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        self.mm_aic(a, b)
        out = self.mm_aiv(out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = self.mm(a, b, out)
        return out
"""

# cube_to_vector's default vector work: exp of the popped tile, the slot freed, the result stored.
EXP_BODY = """
e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(c)
pl.tfree_to_aic(c)
out = pl.store(e, [0, 0], out)
"""
RING = 'buf = pl.reserve_buffer(name="c2v_buf", size=32768, base=pl.AUTO)'


def cube_to_vector(body: str = EXP_BODY, *, split: int = 0, dual: bool = False, reserve: str = RING) -> str:
    """The text of a Group ``mm`` of two hand-written kernels over one cube->vector pipe (two 16 KiB slots;
    tests/passes/test_split_vector_kernel.py, test_pipe_buffer_planning.py, tests/codegen/test_cross_core_codegen.py
    and tests/sim/test_cross_core_sim.py vary it):
    ``mm_aic`` multiplies two 64x64 FP16 tensors and pushes the FP32 product with split code ``split``;
    ``mm_aiv`` reserves the ring with the lines ``reserve`` (binding ``buf``), pops the product into ``c``
    (its 32-row half under a split) and runs ``body`` (unindented lines that free ``c`` and write ``out``).
    ``dual`` launches ``mm_aiv`` on both vector lanes (``dual_aiv_dispatch``)."""

    def indent(text: str) -> str:
        return "\n".join("        " + line for line in text.strip().splitlines())

    fill = {"SPLIT": str(split), "ATTRS": 'attrs={"dual_aiv_dispatch": True}, ' if dual else "",
            "ROWS": "32" if split else "64", "RESERVE": indent(reserve), "BODY": indent(body)}
    text = _CUBE_TO_VECTOR
    for key, value in fill.items():
        text = text.replace(key, value)
    return text
