"""InferTileMemorySpace: every kernel tile gets a memory space, operands are moved into the spaces
their ops accept, and the program enters the placed dialect computing what it computed before."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from pass_helpers import before_after
from tile_programs import INFER, PROGRAMS, front, inputs, unplaced

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages import outlined, placed, tiled
from pypto.ir.errors import VerificationError

# Programs whose kernels leave spaces to the pass: (program, loads that target Mat).
UNPLACED = {
    "matmul_from_vec": (),
    "accumulate_in_loop": ("x", "y"),
    "branches_disagree": ("m",),
    "softmax": (),
}


def infer(program: ir.Program) -> ir.Program:
    return assert_pass_preserves(passes.infer_tile_memory_space(), program, inputs(program), entry="main")


def kernel_text(program: ir.Program) -> list[str]:
    """The printed statements of the program's kernel, one per line."""
    (func,) = [f for f in program.functions.values() if ir.is_incore_type(f.func_type)]
    return [line.strip() for line in func.as_python().splitlines()[2:]]


@pytest.mark.parametrize("name", sorted(INFER))
def test_snapshot(name: str, snapshot) -> None:
    before = front(name)
    after = infer(before)
    assert after in placed
    assert before_after("InferTileMemorySpace", before, after) == snapshot


@pytest.mark.parametrize("name", sorted(UNPLACED))
def test_snapshot_unplaced(name: str, snapshot) -> None:
    before = unplaced(front(name), UNPLACED[name])
    assert before in tiled and before not in placed
    after = infer(before)
    assert after in placed
    assert before_after("InferTileMemorySpace", before, after) == snapshot


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_kernels_with_every_space_settled_are_unchanged(name: str) -> None:
    program = front(name)
    assert program in outlined
    assert infer(program) is program


def test_spec_example_moves_operands_into_left_and_right() -> None:
    lines = kernel_text(infer(unplaced(front("matmul_from_vec"))))
    assert lines[:5] == [
        "x: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)",
        "y: pl.Tile[[64, 32], pl.FP16, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Vec)",
        "x_Left: pl.Tile[[16, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(x, target_memory=pl.Mem.Left)",
        "y_Right: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(y, target_memory=pl.Mem.Right)",
        "z: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x_Left, y_Right)",
    ]
    # The second matmul reuses the moves of the same block.
    assert lines[5] == "w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x_Left, y_Right)"


def test_an_explicit_target_memory_is_kept() -> None:
    lines = kernel_text(infer(front("matmul_from_vec")))
    assert lines[1].startswith("y: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(")
    assert lines[3] == "y_Right: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(y, target_memory=pl.Mem.Right)"


def test_a_loop_carry_takes_the_space_its_body_yields() -> None:
    program = infer(front("accumulate_in_loop"))
    func = program.get_function("mm_loop")
    loop = next(s for s in func.body.stmts if isinstance(s, ir.ForStmt))
    (acc,), (result,) = loop.iter_args, loop.return_vars
    assert acc.type.memory_space is result.type.memory_space is ir.MemorySpace.Acc
    assert acc.initValue.name_hint == "init_Acc"
    assert "init_Acc: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.move(init, target_memory=pl.Mem.Acc)" in (
        kernel_text(program)
    )


def test_an_if_result_takes_the_first_branch_space() -> None:
    lines = kernel_text(infer(unplaced(front("branches_disagree"), ("m",))))
    assert "m_Vec: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(m, target_memory=pl.Mem.Vec)" in lines
    assert "r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(m_Vec)" in lines


def test_moves_are_made_per_block_and_not_shared_between_branches() -> None:
    lines = kernel_text(infer(front("moves_per_block")))
    moves = [line.split(":")[0] for line in lines if "pl.tile.move(m," in line]
    assert moves == ["m_Vec", "m_Vec_1", "m_Vec_2"]
    assert "s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(r, m_Vec_2)" in lines


def test_a_move_in_an_enclosing_block_is_reused_inside_a_loop() -> None:
    lines = kernel_text(infer(front("move_reused_inside")))
    moves = [line.split(":")[0] for line in lines if "pl.tile.move(m," in line]
    assert moves == ["m_Vec"]
    assert "nxt: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, m_Vec)" in lines


def test_a_pass_manager_takes_the_pass_from_tiled_to_placed() -> None:
    # The kernels are written in tile ops, so the program starts in tiled; placed also guarantees
    # what the tile-stage passes establish inside tiled.
    stage = [passes.elide_tensor_carries(), passes.flatten_tile_nd_to_2d(), passes.legalize_tile_cast(),
             passes.canonicalize_tile_slice(), passes.infer_tile_memory_space()]
    manager = passes.PassManager(stage, start=tiled)
    assert manager.final_dialect is placed
    after = manager.run(front("matmul_from_vec"))
    assert "x_Left" in "\n".join(kernel_text(after))


_TENSOR_KERNEL = """
    @pl.program
    class TensorKernel:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
            y = pl.add(x, x)
            return y
"""


def test_a_tensor_level_kernel_fails_the_tiled_dialect_check() -> None:
    with pytest.raises(VerificationError) as err:
        passes.infer_tile_memory_space()(pl_program(_TENSOR_KERNEL))
    assert "[tiled] IncoreTileOps TENSOR_OP_IN_KERNEL in 'k': tensor.add in a InCore function" in str(err.value)


def test_a_tensor_level_kernel_is_inferred_after_conversion() -> None:
    converted = passes.convert_tensor_to_tile_ops()(pl_program(_TENSOR_KERNEL))
    after = passes.infer_tile_memory_space()(converted)
    assert "y_tile: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(x_tile, x_tile)" in "\n".join(kernel_text(after))


def pl_program(source: str) -> ir.Program:
    program = pl.parse("import pypto.language as pl\n\n" + textwrap.dedent(source))
    return passes.PassManager(passes.front_passes()).run(program)


def test_applied_on_its_own_it_takes_rank_3_tiles_and_nested_calls() -> None:
    """What the established pass requires (SSA kernels of tile ops in flat blocks), not what the tile
    stage establishes before it in the pipeline: tiles of rank 3 and calls nested in arguments."""
    source = """
        @pl.program
        class Early:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor[[2, 16, 64], pl.FP16], c: pl.Tensor[[16, 64], pl.FP16],
                  b: pl.Tensor[[64, 32], pl.FP16], out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP16]],
                  mm: pl.Out[pl.Tensor[[16, 32], pl.FP32]]
                  ) -> tuple[pl.Tensor[[2, 16, 64], pl.FP16], pl.Tensor[[16, 32], pl.FP32]]:
                x: pl.Tile[[2, 16, 64], pl.FP16] = pl.load(a, [0, 0, 0], [2, 16, 64])
                out2: pl.Tensor[[2, 16, 64], pl.FP16] = pl.store(pl.add(x, x), [0, 0, 0], out)
                z: pl.Tile[[16, 32], pl.FP32] = pl.matmul(pl.load(c, [0, 0], [16, 64]),
                                                          pl.load(b, [0, 0], [64, 32]))
                mm2: pl.Tensor[[16, 32], pl.FP32] = pl.store(z, [0, 0], mm)
                return out2, mm2
    """
    program = pl.parse("import pypto.language as pl\n\n" + textwrap.dedent(source))
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(shape).astype(np.float16) for shape in ((2, 16, 64), (16, 64), (64, 32))]
    args += [np.zeros((2, 16, 64), np.float16), np.zeros((16, 32), np.float32)]
    after = assert_pass_preserves(passes.infer_tile_memory_space(), program, args, entry="k")
    text = "\n".join(kernel_text(after))
    assert "x: pl.Tile[[2, 16, 64], pl.FP16, pl.Mem.Vec] = pl.tile.load(a, [0, 0, 0]" in text
    assert "pl.tile.store(pl.tile.add(x, x), [0, 0, 0], out)" in text
    assert "tile_Left: pl.Tile[[16, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(pl.tile.load(c," in text
    assert "z: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(tile_Left, tile_Right)" in text


_FILLPAD_OF_MAT = """
@pl.program
class F:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP16],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]) -> pl.Tensor[[16, 64], pl.FP16]:
        t: pl.Tile[[16, 64], pl.FP16] = pl.load(x, [0, 0], [16, 64], [8, 64], target_memory=pl.Mem.Mat)
        f: pl.Tile[[16, 64], pl.FP16] = pl.tile.fillpad(t)
        out = pl.store(f, [0, 0], out)
        return out
"""


def test_a_fillpad_of_a_mat_tile_reads_a_vec_copy() -> None:
    # TFILLPAD is a vector instruction: the registry puts its operand and result in Vec.
    lines = kernel_text(passes.infer_tile_memory_space()(pl_program(_FILLPAD_OF_MAT)))
    assert lines[1].startswith("t_Vec: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec")
    assert lines[1].endswith("= pl.tile.move(t, target_memory=pl.Mem.Vec)")
    assert lines[2].startswith("f: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec")
    assert lines[2].endswith("= pl.tile.fillpad(t_Vec, pad_value=pl.PadValue.zero)")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_kernel_the_precheck_calls_settled_is_one_the_rewrite_leaves_alone(name: str) -> None:
    # The precheck skips the rewrite: it may say "settled" only where the rewrite changes nothing.
    from pypto.passes.infer_tile_memory_space import _settled

    for program in (front(name), unplaced(front(name), UNPLACED.get(name, ()))):
        for func in program.functions.values():
            if not ir.is_incore_type(func.func_type):
                continue
            run = passes.infer_tile_memory_space()._copy()
            run.start(func, program)
            rewritten = run.function(func)
            if _settled(func):
                assert rewritten is func
            else:
                assert rewritten is not func or not _straight(func)


def _straight(func: ir.Function) -> bool:
    from pypto.transform.util import straight_line

    return straight_line(func) is not None
