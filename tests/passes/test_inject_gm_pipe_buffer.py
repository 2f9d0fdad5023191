"""InjectGMPipeBuffer: on a2a3 each kernel with a cross-core pipe, and the Group and Spmd wrappers
launching it, take the GM ring as a last parameter, which the orchestration allocates; the program
computes what it did."""

from __future__ import annotations

from mixed_programs import placed
from tile_programs import inputs

import pypto.language as pl
from pypto import ir, passes
from pypto.backend import A5
from pypto.interp.testing import assert_pass_preserves
from pypto.passes import PassContext


def _injected(name: str, opts: str = "") -> tuple[ir.Program, ir.Program]:
    split = passes.expand_mixed_kernel()(placed(name, opts))
    return split, assert_pass_preserves(passes.inject_gm_pipe_buffer(), split, inputs(split), entry="main")


def _ring(func: ir.Function) -> tuple[str, str, list[int]]:
    ring, direction = func.params[-1], func.param_directions[-1]
    return ring.name_hint, direction.name, [d.value for d in ring.type.shape]


def test_the_kernels_and_their_group_take_the_ring_the_orchestration_allocates() -> None:
    _, after = _injected("group_caller")
    # One 16 KiB slot (the 64x64 FP32 product) times the default 8 slots of a one-way pipe, in FP32.
    for name in ("mm_aic", "mm_aiv", "grp"):
        assert _ring(after.get_function(name)) == ("__gm_pipe_buffer", "Out", [8 * 16384 // 4])
    group = after.get_function("grp")
    assert [c.args[-1] for c in ir.flatten_to_stmts(group.body)[:2] for c in [_call(c)]] == [group.params[-1]] * 2
    create, call = ir.flatten_to_stmts(after.get_function("main").body)[:2]
    assert create.value.op.name == "tensor.create" and [d.value for d in create.var.type.shape] == [32768]
    assert call.value.args[-1] is create.var


def _call(stmt: ir.Stmt) -> ir.Call:
    return stmt.value if isinstance(stmt, ir.AssignStmt) else stmt.expr


def test_an_spmd_launch_gets_one_ring_per_block() -> None:
    _, after = _injected("attention")
    # Both directions of 2 slots of a 64x64 tile (16 KiB FP32 scores, 8 KiB FP16 probabilities: the
    # slot holds the larger), on 2 blocks.
    ring = 2 * 2 * 16384 // 4 * 2
    for func in after.functions.values():
        if func.func_type is not ir.FunctionType.Orchestration:
            assert _ring(func) == ("__gm_pipe_buffer", "Out", [ring]), func.name
    create = ir.flatten_to_stmts(after.get_function("main").body)[0]
    assert [d.value for d in create.var.type.shape] == [ring]


def test_a_platform_whose_rings_are_on_chip_is_left_alone() -> None:
    with PassContext(platform=A5):
        split = passes.expand_mixed_kernel()(placed("group_caller"))
        assert passes.inject_gm_pipe_buffer()(split) is split


_DYNAMIC_BLOCKS = '''
import pypto.language as pl

@pl.program
class DynamicBlocks:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], n: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        for i in pl.spmd(n):
            c = pl.matmul(pl.slice(a, [64, 64], [i * 64, 0]), b, out_dtype=pl.FP32)
            out = pl.assemble(out, pl.exp(c), [i * 64, 0])
        return out
'''


def test_an_spmd_launch_on_a_run_time_number_of_blocks_allocates_as_many_rings() -> None:
    chain = passes.front_passes() + passes.lowering_passes()
    upto = [p.name for p in chain].index("InjectGMPipeBuffer")
    after = passes.PassManager(chain[:upto + 1]).run(pl.parse(_DYNAMIC_BLOCKS))
    main = after.get_function("main")
    create = next(s for s in ir.flatten_to_stmts(main.body) if isinstance(s, ir.AssignStmt)
                  and s.value.op.name == "tensor.create")
    (elems,) = create.var.type.shape
    assert isinstance(elems, ir.Mul) and elems.left.value == 8 * 16384 // 4 and elems.right is main.params[2]
    # The kernels' extent is a symbol: their entry finds one block's ring at block_idx * (extent / block_num).
    (extent,) = after.get_function("main_incore_0_aiv").params[-1].type.shape
    assert isinstance(extent, ir.Var) and extent.name_hint == "__gm_pipe_buffer_elems"
