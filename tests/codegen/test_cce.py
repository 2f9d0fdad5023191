"""The CCE emitter (spec/codegen.md §3): kernel files printed from hand-written programs in the final
(``runtime``) form, and the errors for what it cannot print. The simulator tier runs these kernels
(tests/sim/test_cce_kernels.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.backend import A2A3, A5
from pypto.codegen.cce import CceEmitter, generate_cce
from pypto.codegen.errors import CodegenError
from pypto.codegen.cce_types import tile_template
from pypto.ir.datatype import DataType
from pypto.ir.enums import MemorySpace, PadValue
from pypto.ir.errors import VerificationError
from pypto.ir.types import TileType, TileView

PROGRAMS = Path(__file__).resolve().parent / "data" / "cce"

KERNELS = [
    ("tile_add", "kernels/aiv/tile_add.cpp"),
    ("row_blocks", "kernels/aiv/block_add_scale.cpp"),
    ("row_softmax", "kernels/aiv/row_softmax.cpp"),
    ("matmul", "kernels/aic/matmul_move.cpp"),
    ("matmul", "kernels/aic/matmul_split_k.cpp"),
    ("scaled_sum", "kernels/aiv/scaled_sum.cpp"),
    ("int8_row_expand", "kernels/aiv/int8_row_expand.cpp"),
]


def _generate(name: str) -> dict[str, str]:
    return generate_cce(pl.loads_program(PROGRAMS / f"{name}.py"))


@pytest.mark.parametrize(("program", "path"), KERNELS, ids=[p.split("/")[-1][:-4] for _, p in KERNELS])
def test_kernel_snapshot(program: str, path: str, snapshot) -> None:
    assert _generate(program)[path] == snapshot


def test_one_file_per_kernel_and_none_for_orchestration() -> None:
    assert sorted(_generate("tile_add")) == ["kernels/aiv/tile_add.cpp"]  # main is orchestration
    assert sorted(_generate("matmul")) == ["kernels/aic/matmul_move.cpp", "kernels/aic/matmul_split_k.cpp"]


def test_the_wrapper_unpacks_tensors_then_scalars_and_forwards_them() -> None:
    text = _generate("row_blocks")["kernels/aiv/block_add_scale.cpp"]
    assert text.index("#include <cstdint>") < text.index("#include <pto/pto-inst.hpp>")
    assert ("static __aicore__ void block_add_scale(__gm__ float* a, __gm__ float* b, __gm__ float* c, "
            "int64_t row, float alpha) {") in text
    assert "    union { uint64_t u64; float val; } alpha_conv;\n    alpha_conv.u64 = args[4];\n" in text
    assert "    block_add_scale(a, b, c, row, alpha);\n}\n" in text


_PLACED = 'pl.system.bar_all(attrs={"auto_sync": True})'  # InsertPipeSync's end of a kernel (PipeSyncPlaced)


def _kernel(body: str, params: str = "x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
            kind: str = "AIV", synced: bool = True) -> str:
    """A one-kernel program around ``body``; ``synced`` ends it as InsertPipeSync does."""
    stmts = body.strip().splitlines()
    if synced:
        stmts.insert(len(stmts) - 1 if stmts[-1].startswith("return") else len(stmts), _PLACED)
    lines = "\n".join("        " + line for line in stmts)
    return (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
        f"    @pl.function(type=pl.FunctionType.{kind})\n"
        f"    def k(self, {params}) -> pl.Tensor[[64, 64], pl.FP32]:\n{lines}\n"
    )


_VEC = "pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, {off}, 16384), pl.Mem.Vec]"
_ALLOC = "mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)"


def _codegen_error(source: str, tmp_path: Path) -> CodegenError:
    path = tmp_path / "k.py"
    path.write_text(source)
    program = pl.loads_program(path)
    with pytest.raises(CodegenError) as info:
        generate_cce(program)
    return info.value


def test_an_op_without_a_table_entry_is_no_rule_with_its_span(tmp_path: Path) -> None:
    err = _codegen_error(_kernel(f"""
{_ALLOC}
t: {_VEC.format(off=0)} = pl.load(x, [0, 0], [64, 64])
u: {_VEC.format(off=16384)} = pl.tile.sin(t)
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(u, [0, 0], y)
return y1
"""), tmp_path)
    assert err.message == "no rule for tile.sin in cce"
    assert (err.span.filename, err.span.begin_line) == (str(tmp_path / "k.py"), 10)
    assert "the cce op table has no entry for 'tile.sin'" in str(err)


def test_a_tile_carry_yielded_from_another_buffer_is_refused(tmp_path: Path) -> None:
    err = _codegen_error(_kernel(f"""
{_ALLOC}
acc: {_VEC.format(off=0)} = pl.load(x, [0, 0], [64, 64])
for i, (a,) in pl.range(2, init_values=(acc,)):
    n: {_VEC.format(off=16384)} = pl.tile.exp(a)
    a1 = pl.yield_(n)
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(a1, [0, 0], y)
return y1
"""), tmp_path)
    assert err.message == "no rule for a tile carry whose yielded value is in another buffer in cce"
    assert err.span.begin_line == 12  # the yield


def _dynamic_kernel(x_type: str) -> str:
    tile = "pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])]"
    return _kernel(f"""
{_ALLOC}
t: {tile} = pl.load(x, [0, 0], [64, 64], [n, 64])
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(t, [0, 0], y)
return y1
""", params=f"x: {x_type}, n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]").replace(
        "\n\n\n@pl.program", '\n\nN = pl.dynamic("N")\n\n\n@pl.program')


def test_a_dynamic_window_is_a_shape_constructor_argument(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(_dynamic_kernel("pl.Tensor[[N, 64], pl.FP32]"))
    text = generate_cce(pl.loads_program(path))["kernels/aiv/k.cpp"]
    assert ("  using GT_dx64_fp32 = GlobalTensor<float, Shape<1, 1, 1, -1, 64>, Stride<4096, 4096, 4096, 64, 1>, "
            "Layout::ND>;\n") in text
    assert "  Vec_64x64_fp32 t(n, 64);\n" in text
    assert "  GT_dx64_fp32 x_gt(x, GT_dx64_fp32::Shape(1, 1, 1, n, 64));\n  TLOAD(t, x_gt);\n" in text
    assert "  GT_dx64_fp32 y_gt(y, GT_dx64_fp32::Shape(1, 1, 1, n, 64));\n  TSTORE(y_gt, t);\n" in text


def test_a_dynamic_inner_dimension_is_read_off_the_argument_as_the_row_stride(tmp_path: Path) -> None:
    """x: [64, N]: the kernel takes N from the ChipTensor's shapes and passes it as the GlobalTensor's row stride."""
    path = tmp_path / "k.py"
    path.write_text(_dynamic_kernel("pl.Tensor[[64, N], pl.FP32]"))
    text = generate_cce(pl.loads_program(path))["kernels/aiv/k.cpp"]
    assert "static __aicore__ void k(__gm__ float* x, __gm__ float* y, int64_t n, int64_t N) {\n" in text
    assert ("  using GT_dx64_fp32 = GlobalTensor<float, Shape<1, 1, 1, -1, 64>, Stride<4096, 4096, 4096, -1, 1>, "
            "Layout::ND>;\n") in text
    assert ("  GT_dx64_fp32 x_gt(x, GT_dx64_fp32::Shape(1, 1, 1, n, 64), "
            "GT_dx64_fp32::Stride(4096, 4096, 4096, N, 1));\n  TLOAD(t, x_gt);\n") in text
    assert ("    // Dynamic dimension: N\n    int64_t N = static_cast<int64_t>(x_tensor->shapes[1]);\n\n"
            "    // Forward to the kernel function\n    k(x, y, n, N);\n") in text


def test_a_dynamic_dimension_the_kernel_does_not_read_is_no_parameter(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(_dynamic_kernel("pl.Tensor[[N, 64], pl.FP32]"))
    text = generate_cce(pl.loads_program(path))["kernels/aiv/k.cpp"]
    assert "static __aicore__ void k(__gm__ float* x, __gm__ float* y, int64_t n) {\n" in text
    assert "shapes[" not in text


def test_an_element_of_a_tensor_with_a_dynamic_row_pitch_is_offset_by_it(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(_kernel("""
v: pl.Scalar[pl.FP32] = pl.tensor.read(x, [n, 3])
y1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.write(y, [0, 0], v)
return y1
""", params="x: pl.Tensor[[64, N], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]").replace(
        "\n\n\n@pl.program", '\n\nN = pl.dynamic("N")\n\n\n@pl.program'))
    text = generate_cce(pl.loads_program(path))["kernels/aiv/k.cpp"]
    assert "  float v = x[(n * N + 3)];\n" in text


def test_a_program_outside_the_runtime_dialect_is_refused_before_printing() -> None:
    program = pl.parse_program(_kernel("""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(t, [0, 0], y)
return y1
"""))
    with pytest.raises(VerificationError, match="is not in dialect 'synced' \\(cce code generation\\)"):
        CceEmitter(A2A3)(program)


def test_a_kernel_without_placed_pipe_sync_is_refused() -> None:
    program = pl.parse_program(_kernel(f"""
{_ALLOC}
t: {_VEC.format(off=0)} = pl.load(x, [0, 0], [64, 64])
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(t, [0, 0], y)
return y1
""", synced=False))
    with pytest.raises(VerificationError) as err:
        CceEmitter(A2A3)(program)
    assert str(err.value).splitlines()[:2] == [
        "program 'P' is not in dialect 'synced' (cce code generation): 1 violation",
        "[synced] PipeSyncPlaced SYNC_NOT_PLACED in 'k': AIV kernel 'k' has no pipe synchronisation placed "
        "(run InsertPipeSync: it ends every kernel with system.bar_all(attrs={'auto_sync': True}))",
    ]


def test_scalar_carries_and_if_results_are_cpp_variables() -> None:
    program = pl.parse_program(_kernel(f"""
{_ALLOC}
acc: {_VEC.format(off=0)} = pl.load(x, [0, 0], [64, 64])
s0: pl.Scalar[pl.INDEX] = 0
for i, (a, s) in pl.range(0, n, 2, init_values=(acc, s0)):
    if i < 4:
        v = pl.yield_(s + i)
    else:
        v = pl.yield_(s - 1)
    b: {_VEC.format(off=0)} = pl.tile.exp(a)
    a1, s1 = pl.yield_(b, v // 3)
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(a1, [s1, 0], y)
return y1
""", params="x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]"))
    body = generate_cce(program)["kernels/aiv/k.cpp"].split("// --- Kernel entry point ---")[0]
    assert body.split("TLOAD(acc, x_gt);\n")[1] == (
        "  int64_t s0 = 0;\n"
        "  int64_t s = s0;\n"
        "  for (int64_t i = 0; i < n; i += 2) {\n"
        "    int64_t v;\n"
        "    if (i < 4) {\n"
        "      v = s + i;\n"
        "    } else {\n"
        "      v = s - 1;\n"
        "    }\n"
        "    TEXP(b, acc);\n"
        "    s = (v / 3 - (((v % 3) != 0) && ((v < 0) != (3 < 0))));\n"
        "  }\n"
        "  GT_64x64_fp32 y_gt(y + s * 64);\n"
        "  TSTORE(y_gt, acc);\n"  # the loop result is the carry's buffer
        "  pipe_barrier(PIPE_ALL);\n"
        "}\n\n"
    )


def test_the_launch_identity_is_a_parameter_read_once_by_the_entry() -> None:
    program = pl.parse_program(_kernel(f"""
{_ALLOC}
blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
t: {_VEC.format(off=0)} = pl.load(x, [blk * 64, 0], [64, 64])
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(t, [0, 0], y)
return y1
""", params="x: pl.Tensor[[256, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]"))
    text = generate_cce(program)["kernels/aiv/k.cpp"]
    assert '#include "tensor.h"\n#include "intrinsic.h"\nusing namespace pto;\n' in text
    assert "static __aicore__ void k(__gm__ float* x, __gm__ float* y, int32_t __pypto_spmd_block_idx) {" in text
    assert "  int64_t blk = __pypto_spmd_block_idx;\n" in text
    assert "  GT_64x64_fp32 x_gt(x + (blk * 64) * 64);\n" in text
    assert "    int32_t __pypto_spmd_block_idx = get_block_idx(args);\n" in text
    assert "    k(x, y, __pypto_spmd_block_idx);\n" in text


def test_the_platform_is_the_chip_whose_capacities_are_checked() -> None:
    program = pl.loads_program(PROGRAMS / "tile_add.py")  # 131072 bytes of Vec
    assert generate_cce(program, A5) == generate_cce(program, A2A3) == generate_cce(program)
    small = A2A3.model_copy(update={"capacity": {**A2A3.capacity, MemorySpace.Vec: 65536}})
    with pytest.raises(VerificationError, match=r"Vec buffer usage \(131072 bytes\) exceeds platform limit \(65536"):
        generate_cce(program, small)


def test_a_tile_copy_on_the_same_buffer_names_the_same_handle() -> None:
    program = pl.parse_program(_kernel(f"""
{_ALLOC}
t: {_VEC.format(off=0)} = pl.load(x, [0, 0], [64, 64])
r: {_VEC.format(off=0)} = t
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(r, [0, 0], y)
return y1
"""))
    body = generate_cce(program)["kernels/aiv/k.cpp"].split("// --- Kernel entry point ---")[0]
    assert body.split("TLOAD(t, x_gt);\n")[1] == (
        "  GT_64x64_fp32 y_gt(y);\n  TSTORE(y_gt, t);\n  pipe_barrier(PIPE_ALL);\n}\n\n"
    )
    assert "TMOV" not in body and " r(" not in body


def test_a_tile_copy_to_another_buffer_is_a_tmov() -> None:
    program = pl.parse_program(_kernel(f"""
{_ALLOC}
t: {_VEC.format(off=0)} = pl.load(x, [0, 0], [64, 64])
r: {_VEC.format(off=16384)} = t
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(r, [0, 0], y)
return y1
"""))
    body = generate_cce(program)["kernels/aiv/k.cpp"].split("// --- Kernel entry point ---")[0]
    assert "  TASSIGN(r, 0x4000);\n" in body
    assert body.split("TLOAD(t, x_gt);\n")[1] == (
        "  TMOV(r, t);\n  GT_64x64_fp32 y_gt(y);\n  TSTORE(y_gt, r);\n  pipe_barrier(PIPE_ALL);\n}\n\n"
    )


def test_an_assemble_inserts_in_place_or_copies_its_target_first() -> None:
    program = pl.parse_program(_kernel(f"""
mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 36864)
t: {_VEC.format(off=0)} = pl.load(x, [0, 0], [64, 64])
p: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 32768, 4096), pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64])
copy: {_VEC.format(off=16384)} = pl.tile.assemble(t, p, [0, 0])
same: {_VEC.format(off=0)} = pl.tile.assemble(t, p, [16, 0])
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(copy, [0, 0], y)
return y1
"""))
    body = generate_cce(program)["kernels/aiv/k.cpp"].split("// --- Kernel entry point ---")[0]
    assert "  TMOV(copy, t);\n  TINSERT(copy, p, 0, 0);\n  TINSERT(same, p, 16, 0);\n" in body


def test_a_clamped_load_reads_its_valid_region_cut_at_the_source_edge() -> None:
    program = pl.parse_program(_kernel(f"""
{_ALLOC}
t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec, pl.TileView(valid_shape=[48, 64])] = \
    pl.load(x, [16, 0], [64, 64], clamp=True)
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(t, [0, 0], y)
return y1
"""))
    body = generate_cce(program)["kernels/aiv/k.cpp"].split("// --- Kernel entry point ---")[0]
    assert "  GT_48x64_fp32 x_gt(x + 1024);\n  TLOAD(t, x_gt);\n" in body


def test_names_that_are_cpp_keywords_are_suffixed() -> None:
    source = _kernel(f"""
{_ALLOC}
int: {_VEC.format(off=0)} = pl.load(double, [0, 0], [64, 64])
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(int, [0, 0], y)
return y1
""", params="double: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]").replace(
        "def k(", "def double(")
    text = generate_cce(pl.parse_program(source))["kernels/aiv/double.cpp"]
    assert "static __aicore__ void double_(__gm__ float* double__1, __gm__ float* y) {" in text
    assert "TLOAD(int_, double__1_gt);" in text
    assert "    double_(double__1, y);\n" in text


def test_names_the_target_headers_declare_are_suffixed() -> None:
    """half and bfloat16_t are pto-isa typedefs, int8_t a <stdint.h> one, PIPE_V an enumerator and
    TLOAD a function the kernel calls: as C++ names of a kernel or its variables they do not build."""
    source = _kernel(f"""
{_ALLOC}
bfloat16_t: {_VEC.format(off=0)} = pl.load(int8_t, [0, 0], [64, 64])
PIPE_V: {_VEC.format(off=0)} = pl.tile.exp(bfloat16_t)
TLOAD: pl.Tensor[[64, 64], pl.FP32] = pl.store(PIPE_V, [0, 0], y)
return TLOAD
""", params="int8_t: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]").replace(
        "def k(", "def half(")
    text = generate_cce(pl.parse_program(source))["kernels/aiv/half.cpp"]
    assert "static __aicore__ void half_(__gm__ float* int8_t_, __gm__ float* y) {" in text
    assert "TLOAD(bfloat16_t_, int8_t__gt);" in text
    assert "TEXP(PIPE_V_, bfloat16_t_);" in text
    assert "    half_(int8_t_, y);\n" in text


def test_a_strided_slice_is_declared_with_its_source_pitch() -> None:
    """A [64, 32] window of a 64 x 64 tile (stride [64, 1]) is a 64 x 64 Tile whose valid region is
    the window: TSUBVIEW offsets it by its source's pitch, and every op reads its rows 64 apart."""
    program = pl.parse_program(_kernel(f"""
{_ALLOC}
t: {_VEC.format(off=0)} = pl.load(x, [0, 0], [64, 64])
hi: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec,
            pl.TileView(stride=[64, 1])] = pl.tile.slice(t, [64, 32], [0, 32])
e: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_0, 16384, 8192), pl.Mem.Vec] = pl.tile.exp(hi)
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(e, [0, 0], y)
return y1
"""))
    body = generate_cce(program)["kernels/aiv/k.cpp"].split("// --- Kernel entry point ---")[0]
    assert "  using Vec_64x64_fp32 = Tile<TileType::Vec, float, 64, 64, BLayout::RowMajor, -1, -1>;\n" in body
    assert "  using Vec_64x32_fp32 = Tile<TileType::Vec, float, 64, 32, BLayout::RowMajor, -1, -1>;\n" in body
    assert "  Vec_64x64_fp32 hi(64, 32);\n  TASSIGN(hi, 0x0);\n" in body
    assert "  Vec_64x32_fp32 e(64, 32);\n" in body
    assert "  TSUBVIEW(hi, t, 0, 32);\n  TEXP(e, hi);\n" in body


def test_a_scatter_zeroes_its_destination_first_as_a2a3_does() -> None:
    program = pl.parse_program(_kernel(f"""
mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
d: {_VEC.format(off=0)} = pl.load(x, [0, 0], [64, 64])
s: {_VEC.format(off=16384)} = pl.load(x, [0, 0], [64, 64])
i: pl.Tile[[64, 64], pl.INT32, pl.MemRef(mem_vec_0, 32768, 16384), pl.Mem.Vec] = pl.load(ix, [0, 0], [64, 64])
r: {_VEC.format(off=0)} = pl.tile.scatter(d, s, i)
y1: pl.Tensor[[64, 64], pl.FP32] = pl.store(r, [0, 0], y)
return y1
""", params="x: pl.Tensor[[64, 64], pl.FP32], ix: pl.Tensor[[64, 64], pl.INT32], "
             "y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]"))
    body = generate_cce(program)["kernels/aiv/k.cpp"].split("// --- Kernel entry point ---")[0]
    assert "  TEXPANDS(r, 0);\n  TSCATTER(r, s, i);\n" in body


def _tile_kernel(shape: list[int], dtype: str, body: str) -> str:
    """A kernel loading ``x`` into ``t`` and storing what ``body`` leaves in ``u``."""
    ty = f"pl.Tensor[{shape}, pl.{dtype}]"
    return (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        f"    def k(self, x: {ty}, y: pl.Out[{ty}]) -> {ty}:\n"
        f"        t = pl.load(x, [0, 0], {shape})\n"
        f"        {body}\n"
        "        y = pl.store(u, [0, 0], y)\n        return y\n\n"
        "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        f"    def main(self, x: {ty}, y: pl.Out[{ty}]) -> {ty}:\n        y = self.k(x, y)\n        return y\n"
    )


@pytest.mark.parametrize(("shape", "dtype", "body", "message", "hint"), [
    ([4, 3], "FP32", "u = pl.tile.exp(t)",
     "no rule for a row_major FP32 tile of shape [4, 3]: its rows are 3 elements, not a whole number of 32-byte "
     "blocks (8 FP32 elements) in cce",
     "pad its columns to a multiple of 8 (shape [4, 8]) and mark the used part with valid_shape"),
    ([1, 256], "FP32", "u = pl.tile.move(t, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.col_major)",
     "no rule for a col_major FP32 tile of shape [1, 256]: its columns are 1 elements, not a whole number of "
     "32-byte blocks (8 FP32 elements) in cce",
     "pad its rows to a multiple of 8 (shape [8, 256]) and mark the used part with valid_shape, or keep it row-major"),
])
def test_a_tile_whose_lines_are_not_whole_32_byte_blocks_is_refused(
    tmp_path: Path, shape: list[int], dtype: str, body: str, message: str, hint: str
) -> None:
    """pto-isa's Tile static_asserts it; the kernel would not build."""
    with pytest.raises(CodegenError) as info:
        ir.compile(pl.parse(_tile_kernel(shape, dtype, body)), output_dir=tmp_path / "out", dump_passes=False)
    assert info.value.message == message
    assert info.value.hint == hint


def test_a_boxed_tile_that_is_not_whole_boxes_is_refused(tmp_path: Path) -> None:
    """An INT8 Mat tile is in 16 x 32 boxes: the [32, 16] right operand is half a box wide."""
    a, b, c = "pl.Tensor[[16, 32], pl.INT8]", "pl.Tensor[[32, 16], pl.INT8]", "pl.Tensor[[16, 16], pl.INT32]"
    source = (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        f"    def k(self, a: {a}, b: {b}, o: pl.Out[{c}]) -> {c}:\n"
        "        l = pl.tile.move(pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)\n"
        "        r = pl.tile.move(pl.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)\n"
        "        o = pl.store(pl.tile.matmul(l, r), [0, 0], o)\n        return o\n\n"
        "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        f"    def main(self, a: {a}, b: {b}, o: pl.Out[{c}]) -> {c}:\n        o = self.k(a, b, o)\n        return o\n"
    )
    with pytest.raises(CodegenError) as info:
        ir.compile(pl.parse(source), output_dir=tmp_path / "out", dump_passes=False)
    assert info.value.message == ("no rule for a [32, 16] INT8 tile in 16 x 32 boxes (Mat, fractal 512): not a whole "
                                  "number of boxes in cce")
    assert info.value.hint == "pad the tile to shape [32, 32] and mark the used part with valid_shape"


@pytest.mark.parametrize(("dtype", "pad", "text"), [
    (DataType.FP32, PadValue.max, "PadValue::Max"),
    (DataType.INT16, PadValue.min, "PadValue::Min"),
    (DataType.FP16, PadValue.zero, "PadValue::Zero"),
    (DataType.FP16, PadValue.max, "PadValue(0x100007c00ULL)"),
    (DataType.FP16, PadValue.min, "PadValue(0x10000fc00ULL)"),
    (DataType.BF16, PadValue.max, "PadValue(0x100007f80ULL)"),
    (DataType.BF16, PadValue.min, "PadValue(0x10000ff80ULL)"),
])
def test_a_pad_value_is_the_tile_template_argument_and_half_infinities_are_their_bits(
        dtype: DataType, pad: PadValue, text: str) -> None:
    tile = TileType(shape=[16, 32], dtype=dtype, memory_space_=MemorySpace.Vec, tile_view=TileView(pad=pad))
    assert tile_template(tile).endswith(f", SLayout::NoneBox, 512, {text}>")


def test_a_valid_extent_from_the_block_index_says_how_to_launch_a_tail(tmp_path: Path) -> None:
    source = """
import pypto.language as pl

N = pl.dynamic("N")


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[N, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        n = pl.tensor.dim(x, 0)
        for b in pl.spmd((n + 15) // 16):
            rows = pl.min(16, n - b * 16)
            t = pl.load(x, [b * 16, 0], [16, 64], valid_shape=[rows, 64])
            out = pl.store(pl.exp(t), [b * 16, 0], out)
        return out
"""
    with pytest.raises(CodegenError) as info:
        ir.compile(pl.parse(source, filename="k.py"), output_dir=tmp_path / "out", dump_passes=False)
    assert info.value.message == "no rule for tile 't' with a valid shape computed in the kernel body in cce"
    assert info.value.hint.endswith(
        "in a pl.spmd launch (an extent from the block index), launch the whole blocks and run the tail block in a "
        "pl.at scope of its own")
    assert info.value.span.begin_line == 15
