"""AutoTileMatmulL0: Mat-resident matmuls too big for L0A/L0B become K-slab loops that compute the
same product; fitting matmuls and Left/Right operands are left alone; cube ops on dtypes the cube
unit cannot multiply, and matmuls that cannot be made to fit, are pass errors with a hint."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from pass_helpers import before_after
from tile_programs import INFER, MATMUL_L0, PROGRAMS, front, inputs

import pypto.language as pl
from pypto import ir, passes
from pypto.analysis import walk
from pypto.backend import A5
from pypto.interp.testing import assert_pass_preserves
from pypto.ir import op_registry
from pypto.passes import CapacityError, PassContext, PassError
from pypto.passes.auto_tile_matmul_l0 import BLOCKWISE, k_slab, mn_blocks

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# Kernels whose products exceed L0C, stored into their outputs: AutoTileMatmulL0 splits M and N.
BLOCKED = {
    # 256x256 FP32 result; each 128x128 block's operands fit L0A/L0B whole.
    "big_mn": """
        @pl.program
        class BigMN:
            @pl.function(type=pl.FunctionType.InCore)
            def mm(
                self,
                a: pl.Tensor[[256, 64], pl.FP16],
                b: pl.Tensor[[64, 256], pl.FP16],
                c: pl.Out[pl.Tensor[[256, 256], pl.FP32]],
            ) -> pl.Tensor[[256, 256], pl.FP32]:
                x = pl.load(a, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
                y = pl.load(b, [0, 0], [64, 256], target_memory=pl.Mem.Mat)
                z = pl.matmul(x, y)
                out = pl.store(z, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                a: pl.Tensor[[256, 64], pl.FP16],
                b: pl.Tensor[[64, 256], pl.FP16],
                c: pl.Out[pl.Tensor[[256, 256], pl.FP32]],
            ) -> pl.Tensor[[256, 256], pl.FP32]:
                c = self.mm(a, b, c)
                return c
        """,
    # Blocks that also split K, stored at a run-time column of a wider output.
    "big_mn_k_at_column": """
        @pl.program
        class BigMNKAtColumn:
            @pl.function(type=pl.FunctionType.InCore)
            def mm(
                self,
                a: pl.Tensor[[256, 384], pl.FP16],
                b: pl.Tensor[[384, 256], pl.FP16],
                col: pl.Scalar[pl.INDEX],
                c: pl.Out[pl.Tensor[[256, 512], pl.FP32]],
            ) -> pl.Tensor[[256, 512], pl.FP32]:
                x = pl.load(a, [0, 0], [256, 384], target_memory=pl.Mem.Mat)
                y = pl.load(b, [0, 0], [384, 256], target_memory=pl.Mem.Mat)
                z = pl.matmul(x, y)
                out = pl.store(z, [0, col], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                a: pl.Tensor[[256, 384], pl.FP16],
                b: pl.Tensor[[384, 256], pl.FP16],
                col: pl.Scalar[pl.INDEX],
                c: pl.Out[pl.Tensor[[256, 512], pl.FP32]],
            ) -> pl.Tensor[[256, 512], pl.FP32]:
                c = self.mm(a, b, col, c)
                return c
        """,
    # Elementwise ops between the product and its store run block by block.
    "big_mn_exp_scaled": """
        @pl.program
        class BigMNExpScaled:
            @pl.function(type=pl.FunctionType.InCore)
            def mm(
                self,
                a: pl.Tensor[[256, 64], pl.FP16],
                b: pl.Tensor[[64, 256], pl.FP16],
                c: pl.Out[pl.Tensor[[256, 256], pl.FP32]],
            ) -> pl.Tensor[[256, 256], pl.FP32]:
                x = pl.load(a, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
                y = pl.load(b, [0, 0], [64, 256], target_memory=pl.Mem.Mat)
                z = pl.matmul(x, y)
                e = pl.tile.muls(z, 0.125)
                f = pl.exp(e)
                out = pl.store(f, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                a: pl.Tensor[[256, 64], pl.FP16],
                b: pl.Tensor[[64, 256], pl.FP16],
                c: pl.Out[pl.Tensor[[256, 256], pl.FP32]],
            ) -> pl.Tensor[[256, 256], pl.FP32]:
                c = self.mm(a, b, c)
                return c
        """,
    # A [256, 256] accumulator, first K block with a true init_cond in one branch, others accumulating.
    "acc_if_else": """
        @pl.program
        class AccIfElse:
            @pl.function(type=pl.FunctionType.InCore)
            def mm(
                self,
                a: pl.Tensor[[256, 128], pl.FP16],
                b: pl.Tensor[[128, 256], pl.FP16],
                c: pl.Out[pl.Tensor[[256, 256], pl.FP32]],
            ) -> pl.Tensor[[256, 256], pl.FP32]:
                acc = pl.tile.create([256, 256], dtype=pl.FP32, target_memory=pl.Mem.Acc)
                for k in pl.range(2):
                    x = pl.load(a, [0, k * 64], [256, 64], target_memory=pl.Mem.Mat)
                    y = pl.load(b, [k * 64, 0], [64, 256], target_memory=pl.Mem.Mat)
                    if k == 0:
                        acc = pl.matmul_acc(acc, x, y, init_cond=True)
                    else:
                        acc = pl.matmul_acc(acc, x, y)
                out = pl.store(acc, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                a: pl.Tensor[[256, 128], pl.FP16],
                b: pl.Tensor[[128, 256], pl.FP16],
                c: pl.Out[pl.Tensor[[256, 256], pl.FP32]],
            ) -> pl.Tensor[[256, 256], pl.FP32]:
                c = self.mm(a, b, c)
                return c
        """,
    # The init_cond is the loop's first iteration; each [128, 512] x [512, 128] block splits K again.
    "acc_init_cond_k_slabs": """
        @pl.program
        class AccInitCondKSlabs:
            @pl.function(type=pl.FunctionType.InCore)
            def mm(
                self,
                a: pl.Tensor[[256, 1024], pl.FP16],
                b: pl.Tensor[[1024, 256], pl.FP16],
                c: pl.Out[pl.Tensor[[256, 256], pl.FP32]],
            ) -> pl.Tensor[[256, 256], pl.FP32]:
                acc = pl.tile.create([256, 256], dtype=pl.FP32, target_memory=pl.Mem.Acc)
                for k in pl.range(2):
                    x = pl.load(a, [0, k * 512], [256, 512], target_memory=pl.Mem.Mat)
                    y = pl.load(b, [k * 512, 0], [512, 256], target_memory=pl.Mem.Mat)
                    acc = pl.matmul_acc(acc, x, y, init_cond=k == 0)
                f = pl.tile.muls(acc, 0.5)
                out = pl.store(f, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self,
                a: pl.Tensor[[256, 1024], pl.FP16],
                b: pl.Tensor[[1024, 256], pl.FP16],
                c: pl.Out[pl.Tensor[[256, 256], pl.FP32]],
            ) -> pl.Tensor[[256, 256], pl.FP32]:
                c = self.mm(a, b, c)
                return c
        """,
}


def blocked(name: str) -> ir.Program:
    src = "import pypto.language as pl\n\n" + textwrap.dedent(BLOCKED[name])
    return passes.PassManager(passes.front_passes()).run(pl.parse(src))


def auto_tile(program: ir.Program) -> ir.Program:
    return assert_pass_preserves(passes.auto_tile_matmul_l0(), program, inputs(program), entry="main")


def kernel_lines(program: ir.Program) -> list[str]:
    (func,) = [f for f in program.functions.values() if ir.is_incore_type(f.func_type)]
    return [line.strip() for line in func.as_python().splitlines()[2:]]


def kernel(body: str, dtype: str = "pl.FP16", m: int = 64, k: int = 64, n: int = 64) -> ir.Program:
    """A one-kernel program: ``x`` [m, k] and ``y`` [k, n] loaded to Mat, then ``body``."""
    src = f"""
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def mm(self, a: pl.Tensor[[{m}, {k}], {dtype}], b: pl.Tensor[[{k}, {n}], {dtype}]) -> pl.Tensor[[{m}, {k}], {dtype}]:
                x = pl.load(a, [0, 0], [{m}, {k}], target_memory=pl.Mem.Mat)
                y = pl.load(b, [0, 0], [{k}, {n}], target_memory=pl.Mem.Mat)
                {body}
                return a
        """
    return passes.PassManager(passes.front_passes()).run(pl.parse(textwrap.dedent(src)))


@pytest.mark.parametrize("name", sorted(MATMUL_L0))
def test_snapshot(name: str, snapshot) -> None:
    before = front(name)
    after = auto_tile(before)
    assert before_after("AutoTileMatmulL0", before, after) == snapshot


@pytest.mark.parametrize("name", sorted({**PROGRAMS, **INFER}))
def test_programs_whose_matmuls_fit_are_the_same_objects(name: str) -> None:
    program = front(name)
    assert passes.auto_tile_matmul_l0()(program) is program


def test_the_split_is_a_loop_over_k_slabs_into_left_and_right_two_slabs_an_iteration() -> None:
    lines = kernel_lines(auto_tile(front("big_k")))
    left, right = "target_memory=pl.Mem.Left)", "target_memory=pl.Mem.Right)"
    assert lines[2:16] == [
        f"x_k0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(x, 0, 0, [128, 128], {left}",
        f"y_k0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(y, 0, 0, [128, 128], {right}",
        "z_k0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x_k0, y_k0)",
        "for ko, (z_acc,) in pl.range(1, 3, 2, init_values=(z_k0,)):",
        f"x_k: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(x, 0, ko * 128, [128, 128], {left}",
        f"y_k: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(y, ko * 128, 0, [128, 128], {right}",
        f"x_k_1: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(x, 0, ko * 128 + 128, [128, 128], {left}",
        f"y_k_1: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(y, ko * 128 + 128, 0, [128, 128], {right}",
        "z_next: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(z_acc, x_k, y_k)",
        "z_next_1: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(z_next, x_k_1, y_k_1)",
        "z_grouped: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(z_next_1)",
        f"x_k_2: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(x, 0, 384, [128, 128], {left}",
        f"y_k_2: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(y, 384, 0, [128, 128], {right}",
        "z: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(z_grouped, x_k_2, y_k_2)",
    ]


@pytest.mark.parametrize("make, name", [*((front, n) for n in sorted(MATMUL_L0)), *((blocked, n) for n in sorted(BLOCKED))])
def test_each_extract_is_the_call_the_registry_builds(make: Callable[[str], ir.Program], name: str) -> None:
    # The extracts after an operand's first are copies of it with their own offsets: each must equal
    # the call built and checked from its arguments.
    extracts = [node for func in auto_tile(make(name)).functions.values() for node in walk(func.body)
                if isinstance(node, ir.Call) and getattr(node.op, "name", None) == "tile.extract"]
    assert len(extracts) > 2
    for call in extracts:
        built = op_registry.create_op_call("tile.extract", list(call.args), dict(call.kwargs), call.span)
        ir.assert_structural_equal(call, built)
        assert call.type == built.type


def test_a_matmul_acc_accumulates_every_slab() -> None:
    lines = kernel_lines(auto_tile(front("big_k_accumulated")))
    assert "for ko_1, (nxt_acc,) in pl.range(0, 4, 2, init_values=(acc,)):" in lines
    assert "nxt_next: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(nxt_acc, x_k_3, y_k_3)" in lines


@pytest.mark.parametrize("name", sorted(BLOCKED))
def test_blocked_snapshot(name: str, snapshot) -> None:
    before = blocked(name)
    after = auto_tile(before)
    assert before_after("AutoTileMatmulL0", before, after) == snapshot


def test_a_result_too_big_for_l0c_is_stored_block_by_block() -> None:
    lines = kernel_lines(auto_tile(blocked("big_mn")))
    assert lines[2:6] == [
        "x_b0: pl.Tile[[128, 64], pl.FP16, pl.Mem.Left] = pl.tile.extract(x, 0, 0, [128, 64], target_memory=pl.Mem.Left)",
        "y_b0: pl.Tile[[64, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(y, 0, 0, [64, 128], target_memory=pl.Mem.Right)",
        "z_b0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x_b0, y_b0)",
        "out_b0: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(z_b0, [0, 0], c)",
    ]
    stores = [line for line in lines if "tile.store" in line]
    assert stores[1:] == [
        "out_b1: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(z_b1, [0, 128], out_b0)",
        "out_b2: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(z_b2, [128, 0], out_b1)",
        "out: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(z_b3, [128, 128], out_b2)",
    ]


def test_elementwise_ops_after_a_blocked_product_run_block_by_block() -> None:
    lines = kernel_lines(auto_tile(blocked("big_mn_exp_scaled")))
    assert lines[4:8] == [
        "z_b0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x_b0, y_b0)",
        "e_b0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.muls(z_b0, 0.125)",
        "f_b0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.exp(e_b0)",
        "out_b0: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(f_b0, [0, 0], c)",
    ]
    assert lines[-2] == "out: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(f_b3, [128, 128], out_b2)"


def test_a_blocked_product_read_whole_is_an_error_naming_the_reader() -> None:
    lines = ["z = pl.matmul(x, y)", "t = pl.tile.create([256, 256], dtype=pl.FP32)", "s = pl.row_sum(z, t)"]
    body = "\n                ".join(lines)
    program = kernel(body, m=256, k=64, n=256)
    with pytest.raises(PassError) as err:
        passes.auto_tile_matmul_l0()(program)
    assert str(err.value).splitlines() == [
        "AutoTileMatmulL0: tile.matmul of [256, 64] x [64, 256] is split into output blocks (its "
        "[256, 256] result exceeds L0C, 131072 bytes on a2a3), so its result can only go to one store, through "
        "elementwise ops (abs, adds, cast, divs, exp, log, maximums, minimums, muls, neg, recip, relu, rsqrt, sqrt, "
        "subs) at most; tile.row_sum reads it whole",
        "   --> <string>:12:9",  # the row_sum
        "   |",
        "12 |         s = pl.row_sum(z, t)",
        "   |         ^^^^^^^^^^^^^^^^^^^^",
        "   = hint: split M or N in the program (e.g. a loop over row blocks of the output, each multiplied and "
        "consumed whole), or store 'z' into a tensor with pl.store and read the blocks you need from there",
    ]


def test_blocks_at_a_run_time_offset_split_k_too() -> None:
    lines = kernel_lines(auto_tile(blocked("big_mn_k_at_column")))
    assert sum("pl.range(1, 3," in line for line in lines) == 4
    assert "out_b0: pl.Tensor[[256, 512], pl.FP32] = pl.tile.store(z_b0, [0, col], c)" in lines
    assert "out: pl.Tensor[[256, 512], pl.FP32] = pl.tile.store(z_b3, [128, col + 128], out_b2)" in lines


def test_blocks_are_the_largest_then_squarest_that_fit_half_of_l0c() -> None:
    a2a3 = passes.PassContext.current().platform
    assert mn_blocks(256, 64, 256, ir.DataType.FP16, ir.DataType.FP32, a2a3) == (128, 128, None)
    assert mn_blocks(256, 384, 256, ir.DataType.FP16, ir.DataType.FP32, a2a3) == (128, 128, 128)
    assert mn_blocks(512, 64, 128, ir.DataType.FP16, ir.DataType.FP32, a2a3) == (128, 128, None)
    # K=2056 has no slab of whole FP16 fractal rows and a 16-row block of it exceeds L0A.
    assert mn_blocks(16, 2056, 64, ir.DataType.FP16, ir.DataType.FP32, a2a3) is None


def test_blocked_operands_beyond_mat_are_an_error_with_a_hint() -> None:
    program = kernel("z = pl.matmul(x, y)", m=256, k=1024, n=256)
    with pytest.raises(PassError) as err:
        passes.auto_tile_matmul_l0()(program)
    assert str(err.value).splitlines() == [
        "AutoTileMatmulL0: tile.matmul of [256, 1024] x [1024, 256]: the operands take 1048576 bytes of "
        "Mat, more than its 524288 bytes on a2a3",
        "   --> <string>:10:13",
        "   |",
        "10 |         z = pl.matmul(x, y)",
        "   |             ^^^^^^^^^^^^^^^",
        "   = hint: split M or N in the program (a loop over row or column blocks of the output)",
    ]


def test_left_and_right_operands_are_left_alone() -> None:
    program = kernel(
        "z = pl.matmul(pl.move(x, target_memory=pl.Mem.Left), pl.move(y, target_memory=pl.Mem.Right))", k=1024
    )
    assert passes.auto_tile_matmul_l0()(program) is program


def test_slabs_are_whole_fractal_rows_within_half_of_l0() -> None:
    a2a3 = passes.PassContext.current().platform
    assert k_slab(128, 512, 128, ir.DataType.FP16, a2a3) == 128
    assert k_slab(64, 512, 64, ir.DataType.FP32, a2a3) == 128
    assert k_slab(16, 4096, 16, ir.DataType.INT8, a2a3) == 2048
    # 520 = 8 x 65: no proper divisor is a multiple of 16 FP16 elements.
    assert k_slab(128, 520, 128, ir.DataType.FP16, a2a3) is None


def test_a_k_that_cannot_be_split_is_an_error_with_a_hint() -> None:
    # 2056 = 8 x 257 has no slab of whole FP16 fractal rows, and a 16-row block of it exceeds L0A.
    program = kernel("z = pl.matmul(x, y)", m=16, k=2056, n=16)
    with pytest.raises(PassError) as err:
        passes.auto_tile_matmul_l0()(program)
    assert str(err.value).splitlines() == [
        "AutoTileMatmulL0: tile.matmul of [16, 2056] x [2056, 16] does not fit in L0: K=2056 has no slab "
        "of whole 32-byte fractal rows small enough for L0A/L0B on a2a3",
        "   --> <string>:10:13",
        "   |",
        "10 |         z = pl.matmul(x, y)",
        "   |             ^^^^^^^^^^^^^^^",
        "   = hint: split M or N in the program (a loop over row or column blocks of the output)",
    ]


def test_a_result_too_big_for_l0c_that_is_not_stored_is_an_error_with_a_hint() -> None:
    program = kernel("z = pl.matmul(x, y)", m=256, k=64, n=256)
    with pytest.raises(PassError) as err:
        passes.auto_tile_matmul_l0()(program)
    assert str(err.value).splitlines()[:2] == [
        "AutoTileMatmulL0: tile.matmul of [256, 64] x [64, 256] is split into output blocks (its "
        "[256, 256] result exceeds L0C, 131072 bytes on a2a3), so its result can only go to one store, through "
        "elementwise ops (abs, adds, cast, divs, exp, log, maximums, minimums, muls, neg, recip, relu, rsqrt, sqrt, "
        "subs) at most; 'z' is read 0 times",
        "   --> <string>:10:9",
    ]
    assert str(err.value).splitlines()[-1] == (
        "   = hint: split M or N in the program (e.g. a loop over row blocks of the output, each multiplied and "
        "consumed whole), or store 'z' into a tensor with pl.store and read the blocks you need from there")


@pytest.mark.parametrize("dtype", ["pl.INT16", "pl.INT32", "pl.UINT8"])
def test_a_matmul_without_a_cube_form_is_an_error_with_span_and_hint(dtype: str) -> None:
    program = kernel("z = pl.matmul(x, y)", dtype=dtype)
    with pytest.raises(PassError) as err:
        passes.auto_tile_matmul_l0()(program)
    name = dtype.removeprefix("pl.")
    assert str(err.value).splitlines() == [
        f"AutoTileMatmulL0: tile.matmul on {name} operands has no cube form on a2a3 "
        "(the cube unit multiplies BF16, FP16, FP32, INT8)",
        "   --> <string>:10:13",
        "   |",
        "10 |         z = pl.matmul(x, y)",
        "   |             ^^^^^^^^^^^^^^^",
        "   = hint: cast the operands first, e.g. 'pl.cast(x, target_type=pl.FP16)', or compute the product with "
        "vector ops",
    ]


def test_fp8_has_a_cube_form_on_a5_only() -> None:
    program = kernel("z = pl.matmul(x, y)", dtype="pl.FP8E4M3FN")
    with PassContext(platform=A5):
        assert passes.auto_tile_matmul_l0()(program) is program
    with pytest.raises(PassError, match="tile.matmul on FP8E4M3FN operands has no cube form on a2a3"):
        passes.auto_tile_matmul_l0()(program)


def test_the_big_mn_example_compiles_within_l0c(tmp_path: Path) -> None:
    program = pl.loads_program(str(EXAMPLES / "tensor_matmul_big_mn.py"))
    compiled = ir.compile(program, output_dir=tmp_path)
    assert compiled.peak_memory()[ir.MemorySpace.Acc] == 65536
    (cpp,) = (tmp_path / "kernels" / "aic").glob("*.cpp")
    assert cpp.read_text().count("TSTORE(") == 4


@pytest.mark.parametrize("example", ["matmul_big_k", "tensor_matmul_big_k"])
def test_the_big_k_examples_compile_within_l0_and_fail_without_the_pass(example: str, tmp_path: Path) -> None:
    program = pl.loads_program(str(EXAMPLES / f"{example}.py"))
    compiled = ir.compile(program, output_dir=tmp_path / "with")
    peak = compiled.peak_memory()
    # Two 32 KiB slabs in flight, each in its own half of L0A/L0B.
    assert peak[ir.MemorySpace.Left] == peak[ir.MemorySpace.Right] == 65536
    (cpp,) = (tmp_path / "with" / "kernels" / "aic").glob("*.cpp")
    assert cpp.read_text().count("TMATMUL_ACC(") == 3
    without = [p for p in passes.default_passes(plugins=False) if p.name != "AutoTileMatmulL0"]
    with pytest.raises(CapacityError):
        passes.PassManager(without).run(program)


def test_every_blockwise_op_is_a_registered_tile_op() -> None:
    assert sorted(n for n in BLOCKWISE if ir.op_registry.lookup(n) is None or not n.startswith("tile.")) == []


def test_a_product_into_an_accumulator_splits_k_from_a_fresh_first_slab() -> None:
    lines = ["acc = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)",
             "z = pl.matmul_acc(acc, x, y, init_cond=True)"]
    program = kernel("\n                ".join(lines), m=128, k=512, n=128)
    got = [line for line in kernel_lines(passes.auto_tile_matmul_l0()(program)) if "matmul" in line or "range" in line]
    assert got == [
        "z_k0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, x_k0, y_k0, True)",
        "for ko, (z_acc,) in pl.range(1, 3, 2, init_values=(z_k0,)):",
        "z_next: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(z_acc, x_k, y_k)",
        "z_next_1: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(z_next, x_k_1, y_k_1)",
        "z: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(z_grouped, x_k_2, y_k_2)",
    ]


def test_an_accumulator_too_big_for_l0c_is_computed_block_by_block() -> None:
    lines = kernel_lines(auto_tile(blocked("acc_if_else")))
    assert lines[0] == (
        "acc__ssa_v0_b0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = "
        "pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)"
    )
    assert [line for line in lines if "matmul_acc" in line or "store" in line][:3] == [
        "acc__ssa_v2_b0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = "
        "pl.tile.matmul_acc(acc__iter_v1_b0, x_b0_l0, y_b0_l0, True)",
        "acc__ssa_v3_b0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = "
        "pl.tile.matmul_acc(acc__iter_v1_b0, x_b0_l0_1, y_b0_l0_1)",
        "out_b0: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(acc__rv_v5_b0, [0, 0], c)",
    ]
    assert sum(line.startswith("for k_b") for line in lines) == 4
    assert lines[-2] == "out: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(acc__rv_v5_b3, [128, 128], out_b2)"


def test_a_blocked_accumulator_splits_k_from_its_init_cond() -> None:
    lines = kernel_lines(auto_tile(blocked("acc_init_cond_k_slabs")))
    assert [line for line in lines if "matmul_acc" in line or "range" in line][:4] == [
        "for k_b0, (acc__iter_v1_b0,) in pl.range(2, init_values=(acc__ssa_v0_b0,)):",
        "acc__ssa_v2_b0_k0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = "
        "pl.tile.matmul_acc(acc__iter_v1_b0, x_b0_k0, y_b0_k0, k_b0 == 0)",
        "for ko, (acc__ssa_v2_b0_acc,) in pl.range(1, 3, 2, init_values=(acc__ssa_v2_b0_k0,)):",
        "acc__ssa_v2_b0_next: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = "
        "pl.tile.matmul_acc(acc__ssa_v2_b0_acc, x_b0_k, y_b0_k)",
    ]
    assert "f_b1: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.muls(acc__rv_v3_b1, 0.5)" in lines


def acc_kernel(inside: str, after: str = "out = pl.store(acc, [0, 0], c)") -> ir.Program:
    """A kernel accumulating [256, 64] x [64, 256] FP16 blocks into a [256, 256] FP32 accumulator in a
    loop, with ``inside`` in the loop body and ``after`` after it."""
    src = f"""
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def mm(self, a: pl.Tensor[[256, 64], pl.FP16], b: pl.Tensor[[64, 256], pl.FP16],
                   c: pl.Out[pl.Tensor[[256, 256], pl.FP32]]) -> pl.Tensor[[256, 256], pl.FP32]:
                x = pl.load(a, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
                y = pl.load(b, [0, 0], [64, 256], target_memory=pl.Mem.Mat)
                acc = pl.tile.create([256, 256], dtype=pl.FP32, target_memory=pl.Mem.Acc)
                for k in pl.range(2):
                    acc = pl.matmul_acc(acc, x, y, init_cond=k == 0)
                    {inside}
                {after}
                return c
        """
    return passes.PassManager(passes.front_passes()).run(pl.parse(textwrap.dedent(src)))


@pytest.mark.parametrize(("inside", "message"), [
    ("s = pl.tile.muls(acc, 2.0)",
     "tile.muls reads the accumulator 'acc__ssa_v2' before its last tile.matmul_acc"),
    ("t = pl.store(acc, [0, 0], c)",
     "'t' writes a tensor inside the statement computing the accumulator 'acc__ssa_v0', which runs once per output "
     "block"),
])
def test_a_blocked_accumulator_loop_doing_more_is_an_error_with_a_hint(inside: str, message: str) -> None:
    with pytest.raises(PassError) as err:
        passes.auto_tile_matmul_l0()(acc_kernel(inside))
    assert str(err.value).splitlines()[:2] == [f"AutoTileMatmulL0: {message}", "   --> <string>:14:13"]
    assert str(err.value).splitlines()[-1] == (
        "   = hint: keep the loop to loads and tile.matmul_acc into the accumulator, or split M or N in the program "
        "(a loop over row or column blocks of the output)")


def test_a_blocked_accumulator_read_whole_after_its_loop_is_an_error_naming_the_reader() -> None:
    after = "t = pl.tile.create([256, 256], dtype=pl.FP32)\n                s = pl.row_sum(acc, t)"
    with pytest.raises(PassError, match=r"tile.matmul_acc of \[256, 64\] x \[64, 256\] is split into output blocks"
                                        r".* tile.row_sum reads it whole"):
        passes.auto_tile_matmul_l0()(acc_kernel("", after + "\n                c = pl.store(s, [0, 0], c)"))


def test_a_matmul_acc_with_a_run_time_init_cond_splits_k_from_it() -> None:
    lines = ["acc = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)",
             "for i in pl.range(2):",
             "    acc = pl.matmul_acc(acc, x, y, init_cond=i == 0)"]
    program = kernel("\n                ".join(lines), m=128, k=512, n=128)
    got = [line for line in kernel_lines(passes.auto_tile_matmul_l0()(program)) if "matmul" in line]
    assert got == [
        "acc__ssa_v2_k0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = "
        "pl.tile.matmul_acc(acc__iter_v1, x_k0, y_k0, i == 0)",
        "acc__ssa_v2_next: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__ssa_v2_acc, x_k, y_k)",
        "acc__ssa_v2_next_1: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = "
        "pl.tile.matmul_acc(acc__ssa_v2_next, x_k_1, y_k_1)",
        "acc__ssa_v2: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = "
        "pl.tile.matmul_acc(acc__ssa_v2_grouped, x_k_2, y_k_2)",
    ]


def test_a_kernel_with_a_fitting_matmul_still_splits_the_one_that_does_not_fit() -> None:
    # The pass leaves a kernel whose cube ops all fit as it is without rewriting it; one split
    # product among fitting ones is still found.
    program = kernel("u = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)\n"
                     "                v = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)\n"
                     "                w = pl.matmul(u, v)\n"
                     "                z = pl.matmul(x, y)", m=128, k=512, n=128)
    lines = kernel_lines(passes.auto_tile_matmul_l0()(program))
    assert lines[4:9] == [
        "w: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(u, v)",
        "x_k0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(x, 0, 0, [128, 128], "
        "target_memory=pl.Mem.Left)",
        "y_k0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(y, 0, 0, [128, 128], "
        "target_memory=pl.Mem.Right)",
        "z_k0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x_k0, y_k0)",
        "for ko, (z_acc,) in pl.range(1, 3, 2, init_values=(z_k0,)):",
    ]
