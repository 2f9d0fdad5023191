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


def vt(shape: tuple[int, int], base: int, off: int, dtype: str = "FP32", space: str = "Vec") -> str:
    """A planned tile type on ``mem_<space>_<base>`` at byte ``off``."""
    size = shape[0] * shape[1] * (2 if dtype in ("FP16", "BF16") else 4)
    return f"pl.Tile[[{shape[0]}, {shape[1]}], pl.{dtype}, pl.MemRef(mem_{space.lower()}_{base}, {off}, {size}), pl.Mem.{space}]"


def kernel(header: str, body: str, allocs: dict[str, int], ret: str, ftype: str = "AIV") -> str:
    """A one-kernel program: ``header`` is the parameter list, ``allocs`` the ``tile.alloc`` bases and sizes."""
    lines = [f"{name}: pl.Ptr = pl.tile.alloc(pl.Mem.{name.split('_')[1].capitalize()}, {size})"
             for name, size in allocs.items()]
    text = textwrap.indent("\n".join(lines) + "\n" + textwrap.dedent(body).strip(), " " * 8)
    return f"""
@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.{ftype})
    def kern(self, {header}) -> {T if 'out: pl.Out' in header and '128, 128' in header else 'pl.Tensor[[64, 64], pl.FP32]'}:
{text}
        return {ret}
"""


T64 = "pl.Tensor[[64, 64], pl.FP32]"
T64H = "pl.Tensor[[64, 64], pl.FP16]"
A = vt((64, 64), 0, 0)
B = vt((64, 64), 1, 16384)
C = vt((64, 64), 2, 32768)
R = "pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_{b}, {o}, 256), pl.Mem.Vec]"

# AIV/AIC kernels for InsertPipeSync (entry ``kern``).
KERNELS: dict[str, str] = {
    "tile_add": kernel(
        f"a: {T64}, b: {T64}, c: pl.Out[{T64}]",
        f"""
        ta: {A} = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        tb: {B} = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        tc: {A} = pl.add(ta, tb)
        c: {T64} = pl.store(tc, [0, 0], c)
        """, {"mem_vec_0": 16384, "mem_vec_1": 16384}, "c"),
    # the user orders MTE2 -> V with their own flags (event 0): the add needs no second pair
    "user_flags": kernel(
        f"a: {T64}, b: {T64}, c: pl.Out[{T64}]",
        f"""
        ta: {A} = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        tb: {B} = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        tc: {A} = pl.add(ta, tb)
        c: {T64} = pl.store(tc, [0, 0], c)
        """, {"mem_vec_0": 16384, "mem_vec_1": 16384}, "c"),
    # a user barrier of every pipe, and a user flag pair of V -> MTE3 holding event 0 elsewhere
    "user_barrier": kernel(
        f"a: {T64}, b: {T64}, c: pl.Out[{T64}]",
        f"""
        ta: {A} = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        tb: {B} = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        pl.system.bar_all()
        tc: {A} = pl.add(ta, tb)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        td: {A} = pl.exp(tc)
        c: {T64} = pl.store(td, [0, 0], c)
        """, {"mem_vec_0": 16384, "mem_vec_1": 16384}, "c"),
    # two vector ops in a row on one buffer need a barrier inside the V pipe
    "add_then_scale": kernel(
        f"a: {T64}, b: {T64}, alpha: pl.Scalar[pl.FP32], c: pl.Out[{T64}]",
        f"""
        ta: {A} = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        tb: {B} = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        tc: {A} = pl.add(ta, tb)
        td: {A} = pl.mul(tc, alpha)
        c: {T64} = pl.store(td, [0, 0], c)
        """, {"mem_vec_0": 16384, "mem_vec_1": 16384}, "c"),
    # a set right after its producer, before unrelated loads; overlapping pairs get different ids
    "early_sets": kernel(
        f"a: {T64}, b: {T64}, d: {T64}, c: pl.Out[{T64}]",
        f"""
        ta: {A} = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        tb: {B} = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        td: {C} = pl.load(d, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        ea: {A} = pl.exp(ta)
        eb: {B} = pl.exp(tb)
        s: {A} = pl.add(ea, eb)
        t: {A} = pl.add(s, td)
        c: {T64} = pl.store(t, [0, 0], c)
        """, {"mem_vec_0": 16384, "mem_vec_1": 16384, "mem_vec_2": 16384}, "c"),
    # the loop reuses the load buffer: the next iteration's load waits for this iteration's add
    "loop_carry": kernel(
        f"x: {T64}, n: pl.Scalar[pl.INDEX], c: pl.Out[{T64}]",
        f"""
        acc0: {A} = pl.tile.full([64, 64], dtype=pl.FP32, value=0.0)
        for i, (acc,) in pl.range(n, init_values=(acc0,)):
            t: {B} = pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
            acc2: {A} = pl.add(acc, t)
            acc3 = pl.yield_(acc2)
        c: {T64} = pl.store(acc3, [0, 0], c)
        """, {"mem_vec_0": 16384, "mem_vec_1": 16384}, "c"),
    # a branch: the store after it waits for the vector op of either branch
    "branch": kernel(
        f"a: {T64}, n: pl.Scalar[pl.INDEX], c: pl.Out[{T64}]",
        f"""
        ta: {A} = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        if n > 0:
            tb: {A} = pl.exp(ta)
            tr = pl.yield_(tb)
        else:
            tb2: {A} = pl.neg(ta)
            tr = pl.yield_(tb2)
        c: {T64} = pl.store(tr, [0, 0], c)
        """, {"mem_vec_0": 16384}, "c"),
    # a GM round trip: the reload waits for the store (MTE3 -> MTE2) through the store's result
    "store_then_reload": kernel(
        f"a: {T64}, c: pl.Out[{T64}]",
        f"""
        ta: {A} = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        c2: {T64} = pl.store(ta, [0, 0], c)
        tb: {B} = pl.load(c2, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        tc: {B} = pl.exp(tb)
        c3: {T64} = pl.store(tc, [0, 0], c2)
        """, {"mem_vec_0": 16384, "mem_vec_1": 16384}, "c3"),
    "row_softmax": kernel(
        f"x: {T64}, c: pl.Out[{T64}]",
        f"""
        t: {A} = pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        tmp: {C} = pl.tile.full([64, 64], dtype=pl.FP32, value=0.0)
        mx: {R.format(b=3, o=49152)} = pl.row_max(t, {'tmp'})
        e: {B} = pl.row_expand_sub(t, mx)
        e2: {B} = pl.exp(e)
        s: {R.format(b=3, o=49152)} = pl.row_sum(e2, {'tmp'})
        r: {A} = pl.row_expand_div(e2, s)
        c: {T64} = pl.store(r, [0, 0], c)
        """.replace("{'tmp'}", "tmp"), {"mem_vec_0": 16384, "mem_vec_1": 16384, "mem_vec_2": 16384, "mem_vec_3": 256},
        "c"),
    "matmul": kernel(
        f"a: {T64H}, b: {T64H}, c: pl.Out[{T64}]",
        f"""
        a_l1: {vt((64, 64), 0, 0, 'FP16', 'Mat')} = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b_l1: {vt((64, 64), 1, 8192, 'FP16', 'Mat')} = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        a_l0: {vt((64, 64), 0, 0, 'FP16', 'Left')} = pl.move(a_l1, target_memory=pl.Mem.Left)
        b_l0: {vt((64, 64), 0, 0, 'FP16', 'Right')} = pl.move(b_l1, target_memory=pl.Mem.Right)
        acc: {vt((64, 64), 0, 0, 'FP32', 'Acc')} = pl.matmul(a_l0, b_l0)
        c: {T64} = pl.store(acc, [0, 0], c)
        """, {"mem_mat_0": 8192, "mem_mat_1": 8192, "mem_left_0": 8192, "mem_right_0": 8192, "mem_acc_0": 16384},
        "c", ftype="AIC"),
}


def kernel_inputs(func: ir.Function, seed: int = 0) -> list[object]:
    """Seeded inputs for a kernel: tensors of its parameter shapes and dtypes, 3 for scalars."""
    rng = np.random.default_rng(seed)
    out: list[object] = []
    for p in func.params:
        if isinstance(p.type, ir.TensorType):
            dtype = np.float16 if p.type.dtype == ir.DataType.FP16 else np.float32
            out.append((rng.standard_normal([d.value for d in p.type.shape]) * 0.5).astype(dtype))
        elif p.type.dtype == ir.DataType.FP32:
            out.append(1.5)
        else:
            out.append(3)
    return out


# Manual-scope orchestration for ExpandManualPhaseFence (each main returns its last carry).
PHASE_FENCES: dict[str, str] = {
    # 3 phases of 3 branches: each branch waits for the 3 of the previous phase (9 > 3 + 3 edges)
    "parallel_carry_phase_fence": orch("""
        with pl.manual_scope():
            p0: pl.Scalar[pl.TASK_ID] = pl.system.task_invalid()
            for phase, (o, p) in pl.range(3, init_values=(out, p0)):
                for b, (o2, q) in pl.parallel(3, init_values=(o, p)):
                    o3, q2 = pl.submit(self.k, a, (b % 2) * 64, o2, deps=[q])
                    o4, q3 = pl.yield_(o3, q2)
                o5, p2 = pl.yield_(o4, q3)
    """, ret="o5"),
    # 3 producers' TaskIds in an array; 3 consumers each depend on the whole array
    "task_id_array_consumers": orch("""
        with pl.manual_scope():
            t0 = pl.array.create(3, pl.TASK_ID)
            for i, (o, t) in pl.range(3, init_values=(out, t0)):
                o2, tid = pl.submit(self.k, a, (i % 2) * 64, o)
                t2 = pl.array.update_element(t, i, tid)
                o3, t3 = pl.yield_(o2, t2)
            for j, (o4,) in pl.parallel(3, init_values=(o3,)):
                o5, tid2 = pl.submit(self.k, a, (j % 2) * 64, o4, deps=[t3])
                o6 = pl.yield_(o5)
    """, ret="o6"),
    # two consumers in each of 2 sequential trips depend on an array of 3 (12 > 3 + 4 edges)
    "array_consumers_in_a_sequential_loop": orch("""
        with pl.manual_scope():
            t0 = pl.array.create(3, pl.TASK_ID)
            o0, tid = pl.submit(self.k, a, 0, out)
            t1 = pl.array.update_element(t0, 0, tid)
            for j, (o,) in pl.range(2, init_values=(o0,)):
                o2, u = pl.submit(self.k, a, j * 64, o, deps=[t1])
                o3, v = pl.submit(self.k, a, 64 - j * 64, o2, deps=[t1])
                o4 = pl.yield_(o3)
    """, ret="o4"),
    # 2 x 2 edges are not more than 2 + 2: no barrier
    "two_branches_stay_direct": orch("""
        with pl.manual_scope():
            p0: pl.Scalar[pl.TASK_ID] = pl.system.task_invalid()
            for phase, (o, p) in pl.range(3, init_values=(out, p0)):
                for b, (o2, q) in pl.parallel(2, init_values=(o, p)):
                    o3, q2 = pl.submit(self.k, a, b * 64, o2, deps=[q])
                    o4, q3 = pl.yield_(o3, q2)
                o5, p2 = pl.yield_(o4, q3)
    """, ret="o5"),
    # the consumer loop also writes a slot of the array: the set is not stable, no barrier
    "array_updated_in_the_loop_stays_direct": orch("""
        with pl.manual_scope():
            t0 = pl.array.create(3, pl.TASK_ID)
            for j, (o, t) in pl.range(3, init_values=(out, t0)):
                o2, tid = pl.submit(self.k, a, (j % 2) * 64, o, deps=[t])
                t2 = pl.array.update_element(t, j, tid)
                o3, t3 = pl.yield_(o2, t2)
    """, ret="o3"),
    # a consumer with a second dep keeps its direct edges
    "another_dep_stays_direct": orch("""
        with pl.manual_scope():
            o0, first = pl.submit(self.k, a, 0, out)
            p0: pl.Scalar[pl.TASK_ID] = pl.system.task_invalid()
            for phase, (o, p) in pl.range(3, init_values=(o0, p0)):
                for b, (o2, q) in pl.parallel(3, init_values=(o, p)):
                    o3, q2 = pl.submit(self.k, a, (b % 2) * 64, o2, deps=[q, first])
                    o4, q3 = pl.yield_(o3, q2)
                o5, p2 = pl.yield_(o4, q3)
    """, ret="o5"),
}
