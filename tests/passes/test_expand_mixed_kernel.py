"""ExpandMixedKernel: single-side InCore kernels become AIC or AIV; a mixed kernel becomes AIC + AIV
kernels in a Group joined by tpush/tpop pipes, and runs as before on the interpreter."""

from __future__ import annotations

import pytest
from mixed_programs import NAMES, placed
from pass_helpers import before_after
from tile_programs import PROGRAMS, front, inputs

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.analysis import function_index, walk
from pypto.ir.node import replace
from pypto.ir.stmt import SplitAivScopeStmt
from pypto.languages.invariants import MixedKernelExpanded
from pypto.languages.invariants.affinity import Affinity
from pypto.language.parser.diagnostics.exceptions import ParserWarning
from pypto.languages.placed import placed as placed_dialect
from pypto.languages.synced import synced
from pypto.passes import PassError

SIDES = {"tile_add": "AIV", "matmul": "AIC", "loop_carry": "AIV", "softmax": "AIV"}


def tiled(name: str) -> ir.Program:
    return passes.infer_tile_memory_space()(front(name))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_snapshot(name: str, snapshot) -> None:
    before = tiled(name)
    after = assert_pass_preserves(passes.expand_mixed_kernel(), before, inputs(before), entry="main")
    assert MixedKernelExpanded.check(after) == []
    assert SplitAivScopeStmt not in {type(n) for n in walk(after)}
    assert before_after("ExpandMixedKernel", before, after) == snapshot


@pytest.mark.parametrize("name", sorted(SIDES))
def test_each_kernel_runs_on_one_side(name: str) -> None:
    after = passes.expand_mixed_kernel()(tiled(name))
    kinds = {f.name: f.func_type.name for f in after.functions.values()}
    kernel = next(k for k in kinds if k != "main")
    assert kinds == {"main": "Orchestration", kernel: SIDES[name]}
    level = after.get_function(kernel).level
    assert level is (ir.Level.AIC if SIDES[name] == "AIC" else ir.Level.AIV)


def test_callers_keep_calling_the_kernel_by_name() -> None:
    before = tiled("matmul")
    after = passes.expand_mixed_kernel()(before)
    assert after.get_function("main") is before.get_function("main")
    call = after.get_function("main").body.stmts[0].value
    assert call.op.name == "matmul" and after.get_function(call.op.name).func_type is ir.FunctionType.AIC


def test_a_program_without_incore_kernels_is_unchanged() -> None:
    program = passes.expand_mixed_kernel()(tiled("softmax"))
    assert passes.expand_mixed_kernel()(program) is program


def _split(name: str, opts: str = "") -> tuple[ir.Program, ir.Program]:
    before = placed(name, opts)
    return before, assert_pass_preserves(passes.expand_mixed_kernel(), before, inputs(before), entry="main")


@pytest.mark.parametrize("name", NAMES)
def test_a_mixed_kernel_splits_and_keeps_its_results(name: str, snapshot) -> None:
    before, after = _split(name)
    assert MixedKernelExpanded.check(after) == []
    assert SplitAivScopeStmt not in {type(n) for n in walk(after)}
    assert before_after("ExpandMixedKernel", before, after) == snapshot
    assert ir.structural_equal(pl.parse(after.as_python()), after)  # printed output is what a user writes


SPLITS = {  # program -> (kernel, directions of its pipe, slot size in bytes, slots)
    "mm_bias_relu": ("k", 1, 16384, 8),
    "mm_bias_row": ("k", 1, 16384, 8),
    "k_loop_exp": ("k", 1, 16384, 8),
    "vec_to_cube": ("k", 2, 16384, 8),
    "loop_c2v": ("k", 1, 16384, 8),
    "mm_softmax": ("main_incore_0", 1, 16384, 8),
    "linear_relu_at": ("main_incore_0", 1, 16384, 8),
    "split_aiv_exp": ("k", 1, 16384, 8),  # a slot holds the cube's whole tile, both lanes' halves
    "attention": ("main_incore_0", 3, 16384, 2),  # pl.cross_core_slot(slot_num=2)
}


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_the_split_is_an_aic_an_aiv_kernel_and_a_group(name: str) -> None:
    kernel, dir_mask, slot_size, slot_num = SPLITS[name]
    after = passes.expand_mixed_kernel()(placed(name))
    kinds = {f.name: f.func_type.name for f in after.functions.values() if f.func_type.name != "Orchestration"}
    expected = {f"{kernel}_aic": "AIC", f"{kernel}_aiv": "AIV", kernel: "Group"}
    if name == "attention":
        expected[f"{kernel}_spmd"] = "Spmd"  # the Spmd wrapper keeps its type and now calls the Group
    assert kinds == expected
    inits = [c for f in (f"{kernel}_aic", f"{kernel}_aiv") for c in _calls(after.get_function(f))
             if c.op.name.endswith("_initialize_pipe")]
    assert [c.kwargs for c in inits] == [{"dir_mask": dir_mask, "slot_size": slot_size, "slot_num": slot_num}] * 2


@pytest.mark.parametrize(("name", "group", "kernel"), [("group_caller", "grp", "mm"),
                                                      ("cluster_mm_exp", "main_cluster_0", "main_incore_0")])
def test_a_group_calling_a_mixed_kernel_launches_its_two_kernels(name: str, group: str, kernel: str) -> None:
    after = _split(name)[1]
    kinds = {f.name: f.func_type.name for f in after.functions.values()}
    # No Group of the split's own: a Group is one mixed task of one AIC and one AIV kernel.
    assert kinds == {f"{kernel}_aic": "AIC", f"{kernel}_aiv": "AIV", group: "Group", "main": "Orchestration"}
    called = [c.op.name for c in function_index(after.get_function(group)).of(ir.Call)]
    assert called == [f"{kernel}_aic", f"{kernel}_aiv"]


def _calls(func: ir.Function) -> list[ir.Call]:
    return [c for c in function_index(func).of(ir.Call) if not isinstance(c.op, ir.GlobalVar)]


def test_cross_core_slot_sets_the_pipe_depth_and_the_ring_size() -> None:
    _, after = _split("mm_softmax", ", optimizations=[pl.cross_core_slot(slot_num=2)]")
    aiv = after.get_function("main_incore_0_aiv")
    reserve, init = _calls(aiv)[:2]
    assert reserve.kwargs == {"name": "main_incore_0_c2v_slot_buffer", "size": 2 * 16384, "base": -1}
    assert init.kwargs["slot_num"] == 2


def test_a_pipe_of_two_slots_feeds_four_tiles_through_the_group() -> None:
    before = placed("loop_c2v")
    kernel = before.get_function("k")
    narrow = ir.Program([replace_attrs(kernel, slot_num=2), before.get_function("main")], before.name, before.span)
    assert_pass_preserves(passes.expand_mixed_kernel(), narrow, inputs(narrow), entry="main")


def replace_attrs(func: ir.Function, **attrs: object) -> ir.Function:
    return replace(func, attrs={**func.attrs, **attrs})


def test_each_popped_tile_is_freed_after_its_last_use() -> None:
    after = passes.expand_mixed_kernel()(placed("mm_bias_relu"))
    names = [c.op.name for c in _calls(after.get_function("k_aiv"))]
    assert names == ["system.reserve_buffer", "system.aiv_initialize_pipe", "tile.tpop_from_aic", "tile.load",
                     "tile.add", "system.tfree_to_aic", "tile.relu", "tile.store"]


def test_pl_split_up_down_gives_each_aiv_lane_half_the_rows(snapshot) -> None:
    before, after = _split("mm_softmax", ", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]")
    assert before_after("ExpandMixedKernel", before, after) == snapshot
    aiv = after.get_function("main_incore_0_aiv")
    assert aiv.attrs == {"split": ir.SplitMode.UP_DOWN}
    assert ir.structural_equal(pl.parse(after.as_python()), after)


@pytest.mark.parametrize("name", ["mm_bias_relu", "mm_bias_row", "vec_to_cube", "loop_c2v"])
@pytest.mark.parametrize("mode", [ir.SplitMode.UP_DOWN, ir.SplitMode.LEFT_RIGHT])
def test_a_split_kernel_keeps_its_results(name: str, mode: ir.SplitMode) -> None:
    before = placed(name)
    split = ir.Program([replace_attrs(before.get_function("k"), split=mode), before.get_function("main")],
                       before.name, before.span)
    after = assert_pass_preserves(passes.expand_mixed_kernel(), split, inputs(split), entry="main")
    aiv = after.get_function("k_aiv")
    pops = [c for c in _calls(aiv) if c.op.name in ("tile.tpop_from_aic", "tile.tpush_to_aic")]
    assert [c.kwargs["split"] for c in pops] == [int(mode)] * len(pops)
    init = next(c for c in _calls(aiv) if c.op.name == "system.aiv_initialize_pipe")
    # a slot holds the cube's whole tile (a 64x64 FP32 product, a 64x128 FP16 operand), both lanes' halves
    assert init.kwargs["slot_size"] == 16384


def test_a_reduction_across_the_split_axis_is_refused() -> None:
    with pytest.raises(PassError) as err:
        passes.expand_mixed_kernel()(placed("mm_softmax", ", optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]"))
    assert str(err.value).splitlines() == [
        "ExpandMixedKernel: tile.row_max folds the split axis: under pl.split each AIV lane holds half of it",
        "   --> <string>:10:17",
        "   |",
        "10 |             m = pl.row_max(x)",
        "   |                 ^^^^^^^^^^^^^",
        "   = hint: reduce along the other axis, or split the other way (UP_DOWN for row reductions, LEFT_RIGHT for "
        "column reductions)",
    ]


def test_an_odd_extent_along_the_split_axis_is_refused(tmp_path) -> None:
    # pl.split halves the crossing tiles between the two AIV lanes: an odd row count has no even halves.
    program = pl.parse("""
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[63, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[63, 64], pl.FP32]]) -> pl.Tensor[[63, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            c = pl.assemble(c, pl.exp(pl.matmul(a, b, out_dtype=pl.FP32)), [0, 0])
        return c
""")
    with pytest.raises(PassError) as err:
        ir.compile(program, output_dir=tmp_path / "out")
    assert str(err.value) == (
        "ExpandMixedKernel: pl.split(UP_DOWN) of kernel 'main_incore_0' needs the tiles crossing between "
        "cube and vector to share one even row count, got ['63']\n"
        "  --> <string>:8:9\n"
        "  |\n"
        "8 |         with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):\n"
        "  |         " + "^" * 86 + "\n"
        "  = hint: make the tiles crossing between the sides one even size along the split axis, or split the other "
        "way")


def test_a_scalar_computed_on_one_side_and_used_on_the_other_is_an_error() -> None:
    program = pl.parse("""
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32],
          c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        s = pl.tile.read(t, [0, 0])
        m = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        v = pl.move(m, target_memory=pl.Mem.Vec)
        w = pl.add(v, v)
        out = pl.store(w, [0, 0], c)
        n = pl.cast(s, pl.INDEX)
        m2 = pl.load(a, [n, 0], [16, 16], target_memory=pl.Mem.Mat)
        out2 = pl.store(pl.move(m2, target_memory=pl.Mem.Vec), [0, 0], out)
        return out2
""")
    program = passes.PassManager(passes.front_passes()).run(program)
    with pytest.raises(PassError, match="'s' is computed on the other side of the split kernel but used by 'k_aic'"):
        passes.expand_mixed_kernel()(passes.infer_tile_memory_space()(program))


def test_of_several_values_from_the_other_side_the_error_names_the_first_read() -> None:
    """The reads are looked at in statement order, not in a set's (which varied from run to run)."""
    program = pl.parse("""
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32],
          c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        s = pl.tile.read(t, [0, 0])
        r = pl.tile.read(t, [1, 1])
        q = pl.tile.read(t, [2, 2])
        m = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        v = pl.move(m, target_memory=pl.Mem.Vec)
        out = pl.store(pl.add(v, v), [0, 0], c)
        n = pl.cast(q, pl.INDEX)
        n2 = pl.cast(r, pl.INDEX)
        n3 = pl.cast(s, pl.INDEX)
        m2 = pl.load(a, [n, n2], [16, 16], target_memory=pl.Mem.Mat)
        m3 = pl.load(a, [n3, 0], [16, 16], target_memory=pl.Mem.Mat)
        out2 = pl.store(pl.move(m2, target_memory=pl.Mem.Vec), [0, 0], out)
        out3 = pl.store(pl.move(m3, target_memory=pl.Mem.Vec), [0, 0], out2)
        return out3
""")
    program = passes.PassManager(passes.front_passes()).run(program)
    with pytest.raises(PassError, match="'q' is computed on the other side of the split kernel but used by 'k_aic'"):
        passes.expand_mixed_kernel()(passes.infer_tile_memory_space()(program))



def test_a_split_aiv_kernel_runs_its_aiv_half_on_both_lanes() -> None:
    after = passes.expand_mixed_kernel()(placed("split_aiv_exp"))
    assert after.get_function("k_aiv").attrs == {"split": ir.SplitMode.UP_DOWN, "split_aiv": True}
    assert after.get_function("k_aic").attrs == {}


def test_a_tensor_stored_by_one_side_and_loaded_by_the_other_is_refused() -> None:
    program = pl.parse("""
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16],
          c: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a1 = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(a1, target_memory=pl.Mem.Left), pl.move(a1, target_memory=pl.Mem.Right))
        c1 = pl.store(acc, [0, 0], c)
        t = pl.load(c1, [0, 0], [16, 16])
        c2 = pl.store(pl.exp(t), [0, 0], c1)
        return c2
""")
    program = passes.infer_tile_memory_space()(passes.PassManager(passes.front_passes()).run(program))
    with pytest.raises(PassError) as err:
        passes.expand_mixed_kernel()(program)
    assert "kernel 'k' stores 'c' on the cube side (at <string>:10:14) and loads it back on the vector side" in str(
        err.value)
    assert err.value.hint == "hand the tile across with pl.move instead of a round trip through global memory"


def test_a_hand_written_pipe_whose_slots_cannot_hold_the_tile_is_refused() -> None:
    program = pl.parse("""
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16],
          c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        pl.aic_initialize_pipe(pl.const(0, pl.INT32), pl.const(0, pl.INT32), dir_mask=1, slot_size=512)
        pl.aiv_initialize_pipe(pl.const(0, pl.INT32), pl.const(0, pl.INT32), dir_mask=1, slot_size=512)
        a1 = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(a1, target_memory=pl.Mem.Left), pl.move(a1, target_memory=pl.Mem.Right))
        out = pl.store(pl.exp(pl.move(acc, target_memory=pl.Mem.Vec)), [0, 0], c)
        return out
""")
    program = passes.infer_tile_memory_space()(passes.PassManager(passes.front_passes()).run(program))
    with pytest.raises(PassError) as err:
        passes.expand_mixed_kernel()(program)
    assert str(err.value).splitlines()[:2] == [
        "ExpandMixedKernel: system.aic_initialize_pipe gives slot_size=512, but the split sends 1024-byte "
        "tiles through the pipe", "  --> <string>:8:9"]
    assert str(err.value).splitlines()[-1] == (
        "  = hint: give slot_size=1024 or more, or leave the pipe set-up to ExpandMixedKernel")


@pytest.mark.parametrize("name", NAMES)
def test_the_rest_of_the_pipeline_keeps_the_split_programs_meaning(name: str) -> None:
    # From ResolveBackendOpLayouts through the split, memory planning and pipe sync to the synced dialect.
    chain = passes.lowering_passes()
    start = [p.name for p in chain].index("ResolveBackendOpLayouts")
    program = placed(name)
    rest = passes.PassManager(chain[start:], start=placed_dialect)
    after = assert_pass_preserves(rest, program, inputs(program), entry="main")
    assert rest.final_dialect is synced
    assert {f.func_type.name for f in after.functions.values()} >= {"AIC", "AIV", "Group"}


def test_the_deprecated_split_slot_num_warns_and_still_sets_the_pipe_depth() -> None:
    with pytest.warns(ParserWarning, match=r"pl\.split\(MODE, slot_num=N\) is deprecated"):
        before = placed("mm_softmax", ", optimizations=[pl.split(pl.SplitMode.UP_DOWN, slot_num=2)]")
    after = passes.expand_mixed_kernel()(before)
    init = next(c for c in _calls(after.get_function("main_incore_0_aiv")) if c.op.name.endswith("initialize_pipe"))
    assert init.kwargs == {"dir_mask": 1, "slot_size": 16384, "slot_num": 2}


def test_a_loop_a_side_drops_takes_the_scalars_computing_its_bounds_with_it() -> None:
    # The cube side drops the vector loop; its bound, kept live by that loop until then, goes by a
    # second dead-code run (the one ExpandMixedKernel makes only after a loop or branch was dropped).
    program = pl.parse("""
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX],
          c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        m = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        v = pl.move(m, target_memory=pl.Mem.Vec)
        bound = n + 2
        x = v
        for i in pl.range(bound):
            x = pl.add(x, v)
        out = pl.store(x, [0, 0], c)
        return out
""")
    program = passes.PassManager(passes.front_passes()).run(program)
    after = passes.expand_mixed_kernel()(passes.infer_tile_memory_space()(program))
    assert "bound" not in after.get_function("k_aic").as_python()
    assert "bound: pl.Scalar[pl.INDEX] = n + 2" in after.get_function("k_aiv").as_python()


def test_a_loop_with_only_cube_work_stays_on_the_cube_side() -> None:
    after = passes.expand_mixed_kernel()(placed("k_loop_exp"))
    loops = {name: [n for n in walk(after.get_function(name)) if isinstance(n, ir.ForStmt)]
             for name in ("k_aic", "k_aiv")}
    assert len(loops["k_aic"]) == 1 and loops["k_aiv"] == []


_SPLIT_LINEAR = """
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
             bias: pl.Tensor[[64, 64], pl.FP32], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            a1 = pl.load(a, [0, 0], [64, 128]{a_valid}, target_memory=pl.Mem.Mat)
            b1 = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(a1, target_memory=pl.Mem.Left), pl.move(b1, target_memory=pl.Mem.Right))
            bt = pl.load(bias, [0, 0], [64, 64]{bias_valid})
            y = pl.add(pl.move(acc, target_memory=pl.Mem.Vec), bt)
            c = pl.store(y, [0, 0], c)
        return c
"""


@pytest.mark.parametrize(
    ("a_valid", "bias_valid", "op"),
    [("", ", valid_shape=[40, 64]", "tile.load"), (", valid_shape=[40, 128]", "", "tile.tpop_from_aic")],
)
def test_a_partly_valid_tile_along_the_split_axis_is_refused(a_valid: str, bias_valid: str, op: str) -> None:
    """Halving it would hand lane 1 rows that are not valid (they were computed and stored)."""
    program = pl.parse(_SPLIT_LINEAR.format(a_valid=a_valid, bias_valid=bias_valid))
    with pytest.raises(PassError, match=f"{op} under pl.split has a partly valid extent along the split axis") as err:
        passes.PassManager(passes.front_passes() + passes.lowering_passes()).run(program)
    assert err.value.hint.startswith("make the tile whole along the split axis")


def test_a_tensor_the_kernel_creates_and_hands_across_is_a_clear_error() -> None:
    program = pl.parse("""
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
          c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        tmp: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
        a1 = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        b1 = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(a1, target_memory=pl.Mem.Left), pl.move(b1, target_memory=pl.Mem.Right))
        tmp = pl.store(acc, [0, 0], tmp)
        x = pl.load(tmp, [0, 0], [64, 64])
        out = pl.store(pl.relu(x), [0, 0], c)
        return out
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        c = self.k(a, b, c)
        return c
""")
    with pytest.raises(PassError, match="ExpandMixedKernel: .* on the other side of the split kernel"):
        passes.PassManager(passes.front_passes() + passes.lowering_passes()).run(program)


@pytest.mark.parametrize("program", [*(f"tile:{n}" for n in sorted(PROGRAMS)), *(f"mixed:{n}" for n in NAMES)])
def test_the_side_by_op_names_is_the_side_of_every_call(program: str) -> None:
    # A kernel without function calls counts an op whose name decides its side once; the decision is
    # the one the side of each call gives. A function with calls of functions (main) is looked at
    # call by call.
    from pypto.passes.expand_mixed_kernel import _sides, _single_side

    kind, name = program.split(":")
    before = tiled(name) if kind == "tile" else placed(name)
    for func in before.functions.values():
        index = function_index(func)
        found = _sides(index.of(ir.Call))
        if Affinity.BOUNDARY in found or (Affinity.CUBE in found and Affinity.VECTOR in found):
            split = None
        else:
            split = ir.FunctionType.AIC if Affinity.CUBE in found else ir.FunctionType.AIV
        assert _single_side(index) is split
