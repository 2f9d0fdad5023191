"""The PTO-ISA MLIR emitter on hand-written final-form programs: the spec's examples verbatim,
snapshots of the issue's kernels, locations, targets and the "no rule" errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto.backend import A2A3, BackendType, platform_for
from pypto.codegen.errors import CodegenError
from pypto.codegen.pto import PtoEmitter, generate_pto

import pto_programs as programs

V64 = ("!pto.tile_buf<loc=vec, dtype=f32, rows=64, cols=64, v_row=?, v_col=?, blayout=row_major, slayout=none_box, "
       "fractal=512, pad=0>")
W = V64.replace("rows=64", "rows=16")
TM = ("!pto.tile_buf<loc=mat, dtype=f16, rows=64, cols=64, v_row=?, v_col=?, blayout=col_major, slayout=row_major, "
      "fractal=512, pad=0>")
TL = TM.replace("loc=mat", "loc=left")
TR = ("!pto.tile_buf<loc=right, dtype=f16, rows=64, cols=64, v_row=?, v_col=?, blayout=row_major, slayout=col_major, "
      "fractal=512, pad=0>")
TA = ("!pto.tile_buf<loc=acc, dtype=f32, rows=64, cols=64, v_row=?, v_col=?, blayout=col_major, slayout=row_major, "
      "fractal=1024, pad=0>")
P16, P32 = "!pto.partition_tensor_view<64x64xf16>", "!pto.partition_tensor_view<64x64xf32>"
TV16 = "!pto.tensor_view<?x?xf16>"

# spec/codegen.md §1.11-§1.13, copied line by line with the type abbreviations spelled out (the
# spec asks for them in full). Our output is identical: no deliberate difference. Examples B and C
# show only the func.func; the module wrapper around it is §1.1's.
SPEC_A = """\
module attributes {pto.target_arch = "a2a3"} {
  func.func @add_kernel(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: !pto.ptr<f32>) attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {
    %c0_i64 = arith.constant 0 : i64
    %c16384_i64 = arith.constant 16384 : i64
    %c64_index = arith.constant 64 : index
    %c1_index = arith.constant 1 : index
    %c0_index = arith.constant 0 : index
    %a_view = pto.make_tensor_view %arg0, shape = [%c64_index, %c64_index], strides = [%c64_index, %c1_index] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf32>
    %b_view = pto.make_tensor_view %arg1, shape = [%c64_index, %c64_index], strides = [%c64_index, %c1_index] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf32>
    %c_view = pto.make_tensor_view %arg2, shape = [%c64_index, %c64_index], strides = [%c64_index, %c1_index] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf32>
    %ta = pto.alloc_tile addr = %c0_i64 valid_row = %c64_index valid_col = %c64_index : V
    %a_pview = pto.partition_view %a_view, offsets = [%c0_index, %c0_index], sizes = [%c64_index, %c64_index] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<64x64xf32>
    pto.tload ins(%a_pview : !pto.partition_tensor_view<64x64xf32>) outs(%ta : V)
    %tb = pto.alloc_tile addr = %c16384_i64 valid_row = %c64_index valid_col = %c64_index : V
    %b_pview = pto.partition_view %b_view, offsets = [%c0_index, %c0_index], sizes = [%c64_index, %c64_index] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<64x64xf32>
    pto.tload ins(%b_pview : !pto.partition_tensor_view<64x64xf32>) outs(%tb : V)
    %tc = pto.alloc_tile addr = %c0_i64 valid_row = %c64_index valid_col = %c64_index : V
    pto.tadd ins(%ta, %tb : V, V) outs(%tc : V)
    %c_pview = pto.partition_view %c_view, offsets = [%c0_index, %c0_index], sizes = [%c64_index, %c64_index] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<64x64xf32>
    pto.tstore ins(%tc : V) outs(%c_pview : !pto.partition_tensor_view<64x64xf32>)
    return
  }
}
""".replace(": V", ": " + V64).replace(", V", ", " + V64)

SPEC_B = """\
module attributes {pto.target_arch = "a2a3"} {
  func.func @sum4(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>) attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {
    %c0_i64 = arith.constant 0 : i64
    %c4096_i64 = arith.constant 4096 : i64
    %c64_index = arith.constant 64 : index
    %c1_index = arith.constant 1 : index
    %c16_index = arith.constant 16 : index
    %cst = arith.constant 0.00000000000000000e+00 : f32
    %c0_index = arith.constant 0 : index
    %c4_index = arith.constant 4 : index
    %x_view = pto.make_tensor_view %arg0, shape = [%c64_index, %c64_index], strides = [%c64_index, %c1_index] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf32>
    %out_view = pto.make_tensor_view %arg1, shape = [%c16_index, %c64_index], strides = [%c64_index, %c1_index] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf32>
    %acc = pto.alloc_tile addr = %c0_i64 valid_row = %c16_index valid_col = %c64_index : W
    pto.texpands ins(%cst : f32) outs(%acc : W)
    %row_rv = scf.for %i = %c0_index to %c4_index step %c1_index iter_args(%row_iter = %c0_index) -> (index) {
      %t = pto.alloc_tile addr = %c4096_i64 valid_row = %c16_index valid_col = %c64_index : W
      %0 = arith.maxsi %row_iter, %c0_index : index
      %x_pview = pto.partition_view %x_view, offsets = [%0, %c0_index], sizes = [%c16_index, %c64_index] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
      pto.tload ins(%x_pview : !pto.partition_tensor_view<16x64xf32>) outs(%t : W)
      %acc_next = pto.alloc_tile addr = %c0_i64 valid_row = %c16_index valid_col = %c64_index : W
      pto.tadd ins(%acc, %t : W, W) outs(%acc_next : W)
      %1 = arith.addi %row_iter, %c16_index : index
      scf.yield %1 : index
    }
    %out_pview = pto.partition_view %out_view, offsets = [%c0_index, %c0_index], sizes = [%c16_index, %c64_index] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
    pto.tstore ins(%acc : W) outs(%out_pview : !pto.partition_tensor_view<16x64xf32>)
    return
  }
}
""".replace(": W", ": " + W).replace(", W", ", " + W)

SPEC_C = """\
module attributes {pto.target_arch = "a2a3"} {
  func.func @mm(%arg0: !pto.ptr<f16>, %arg1: !pto.ptr<f16>, %arg2: !pto.ptr<f32>) attributes {pto.kernel_kind = #pto.kernel_kind<cube>} {
    %c0_i64 = arith.constant 0 : i64
    %c8192_i64 = arith.constant 8192 : i64
    %c64_index = arith.constant 64 : index
    %c1_index = arith.constant 1 : index
    %c0_index = arith.constant 0 : index
    %a_view = pto.make_tensor_view %arg0, shape = [%c64_index, %c64_index], strides = [%c64_index, %c1_index] {layout = #pto.layout<nd>} : TV16
    %b_view = pto.make_tensor_view %arg1, shape = [%c64_index, %c64_index], strides = [%c64_index, %c1_index] {layout = #pto.layout<nd>} : TV16
    %c_view = pto.make_tensor_view %arg2, shape = [%c64_index, %c64_index], strides = [%c64_index, %c1_index] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf32>
    %a_l1 = pto.alloc_tile addr = %c0_i64 valid_row = %c64_index valid_col = %c64_index : TM
    %a_pview = pto.partition_view %a_view, offsets = [%c0_index, %c0_index], sizes = [%c64_index, %c64_index] : TV16 -> P16
    pto.tload ins(%a_pview : P16) outs(%a_l1 : TM)
    %b_l1 = pto.alloc_tile addr = %c8192_i64 valid_row = %c64_index valid_col = %c64_index : TM
    %b_pview = pto.partition_view %b_view, offsets = [%c0_index, %c0_index], sizes = [%c64_index, %c64_index] : TV16 -> P16
    pto.tload ins(%b_pview : P16) outs(%b_l1 : TM)
    %a_l0 = pto.alloc_tile addr = %c0_i64 valid_row = %c64_index valid_col = %c64_index : TL
    pto.tmov ins(%a_l1 : TM) outs(%a_l0 : TL)
    %b_l0 = pto.alloc_tile addr = %c0_i64 valid_row = %c64_index valid_col = %c64_index : TR
    pto.tmov ins(%b_l1 : TM) outs(%b_l0 : TR)
    %acc = pto.alloc_tile addr = %c0_i64 valid_row = %c64_index valid_col = %c64_index : TA
    pto.tmatmul ins(%a_l0, %b_l0 : TL, TR) outs(%acc : TA)
    %c_pview = pto.partition_view %c_view, offsets = [%c0_index, %c0_index], sizes = [%c64_index, %c64_index] : !pto.tensor_view<?x?xf32> -> P32
    pto.tstore ins(%acc : TA) outs(%c_pview : P32)
    return
  }
}
"""
for _short, _full in (("TV16", TV16), ("P16", P16), ("P32", P32), ("TM", TM), ("TL", TL), ("TR", TR), ("TA", TA)):
    SPEC_C = SPEC_C.replace(_short, _full)


def _pto(name: str, folder: Path, **kwargs: object) -> dict[str, str]:
    return generate_pto(programs.load(name, folder), locations=False, **kwargs)


@pytest.mark.parametrize(("name", "unit", "expected"), [
    ("add_64", "add_kernel", SPEC_A),
    ("sum4", "sum4", SPEC_B),
    ("matmul", "mm", SPEC_C),
])
def test_the_spec_examples_print_verbatim(tmp_path: Path, name: str, unit: str, expected: str) -> None:
    units = _pto(name, tmp_path)
    assert list(units) == [unit]  # the orchestration is not a PTO unit
    assert units[unit].splitlines() == expected.splitlines()
    assert units[unit] == expected


@pytest.mark.parametrize("name", sorted(programs.SOURCES))
def test_kernels_snapshot(tmp_path: Path, snapshot, name: str) -> None:
    units = _pto(name, tmp_path)
    assert "".join(f"// ptoas/{unit}.pto\n{text}" for unit, text in units.items()) == snapshot


def test_the_128x128_add_and_the_softmax_use_the_planned_addresses(tmp_path: Path) -> None:
    add = _pto("add_128", tmp_path)["tile_add"]
    assert "%tc = pto.alloc_tile addr = %c0_i64" in add  # on ta's buffer
    assert "%tb = pto.alloc_tile addr = %c65536_i64" in add
    softmax = _pto("softmax", tmp_path)["softmax"]
    column = ("!pto.tile_buf<loc=vec, dtype=f32, rows=64, cols=1, v_row=?, v_col=?, blayout=col_major, "
              "slayout=none_box, fractal=512, pad=0>")
    assert f"%mx = pto.alloc_tile addr = %c32768_i64 valid_row = %c64_index valid_col = %c1_index : {column}" in softmax
    ops = [line.split()[0] for line in softmax.splitlines() if line.strip().startswith("pto.t")]
    assert ops == ["pto.tload", "pto.trowmax", "pto.trowexpandsub", "pto.texp", "pto.trowsum", "pto.trowexpanddiv",
                   "pto.tstore"]


def test_scalar_parameters_follow_the_tensors(tmp_path: Path) -> None:
    text = _pto("scale_rows", tmp_path)["scale_rows"]
    assert ("func.func @scale_rows(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: f32, %arg3: index)"
            in text)
    assert f"pto.tmuls ins(%t, %arg2 : {W}, f32) outs(%s : {W})" in text
    # the tile accumulator is the only carry: no iter_args, no yield
    assert "    scf.for %i = %c0_index to %c2_index step %c1_index {\n" in text and "scf.yield" not in text


def test_an_if_declares_its_tile_phi_at_the_head(tmp_path: Path) -> None:
    lines = _pto("branch", tmp_path)["pick"].splitlines()
    head = lines.index(f"    %r = pto.alloc_tile addr = %c16384_i64 valid_row = %c64_index valid_col = %c64_index : {V64}")
    assert head < next(i for i, line in enumerate(lines) if "%t = pto.alloc_tile" in line)
    assert "    %row = scf.if %0 -> (index) {" in lines
    assert "      scf.yield %c0_index : index" in lines
    assert f"    pto.tstore ins(%r : {V64}) outs(%out_pview : !pto.partition_tensor_view<64x64xf32>)" in lines


def test_a5_is_the_target_arch_of_ascend950(tmp_path: Path) -> None:
    units = _pto("add_64", tmp_path, platform=platform_for(BackendType.Ascend950))
    assert units["add_kernel"].splitlines()[0] == 'module attributes {pto.target_arch = "a5"} {'
    assert units["add_kernel"].splitlines()[1:] == SPEC_A.splitlines()[1:]


def test_op_lines_end_with_their_source_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = programs.load("sum4", tmp_path)
    lines = generate_pto(program, locations=True)["sum4"].splitlines()
    assert lines[13] == f'    pto.texpands ins(%cst : f32) outs(%acc : {W}) loc("sum4.py":11:86)'
    assert lines[14].endswith("{") and "loc(" not in lines[14]  # structural lines have none
    assert lines[21] == '      %1 = arith.addi %row_iter, %c16_index : index loc("sum4.py":17:45)'
    assert lines[22] == '      scf.yield %1 : index loc("sum4.py":18:30)'
    assert lines[23] == "    }"
    assert all("loc(" not in line for line in lines[:12])  # nor constants and views
    monkeypatch.setenv("PYPTO_EMIT_PTO_LOC", "0")
    assert PtoEmitter(A2A3)(program)["sum4"] == SPEC_B
    monkeypatch.setenv("PYPTO_EMIT_PTO_LOC", "1")
    assert PtoEmitter(A2A3)(program)["sum4"].splitlines() == lines


KERNEL = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64])
{body}
        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.store(r, [0, 0], out)
        return out_1
'''


def _kernel(tmp_path: Path, body: str) -> dict[str, str]:
    return generate_pto(programs.load("k", tmp_path, KERNEL.format(body=body)), locations=False)


def test_an_op_without_a_rule_is_an_error_with_its_span(tmp_path: Path) -> None:
    body = "        r: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.sin(t)"
    with pytest.raises(CodegenError) as err:
        _kernel(tmp_path, body)
    assert err.value.message == "no rule for tile.sin in pto"
    assert (err.value.span.begin_line, err.value.span.begin_column) == (11, 84)
    assert err.value.hint == "the pto op table has no entry for 'tile.sin'"
    assert str(err.value).splitlines()[:2] == ["no rule for tile.sin in pto", f"   --> {tmp_path}/k.py:11:84"]


def test_a_descending_loop_is_an_error(tmp_path: Path) -> None:
    body = ("        for i in pl.range(4, 0, -1):\n"
            "            pl.system.bar_v()\n"
            "        r = t")
    with pytest.raises(CodegenError, match="no rule for a loop with step -1 in pto") as err:
        _kernel(tmp_path, body)
    assert err.value.span.begin_line == 11
    assert err.value.hint == "device loops ascend: rewrite the loop with a positive step"


def test_scalar_arithmetic_lowers_to_arith(tmp_path: Path) -> None:
    body = ("        for i in pl.range(4):\n"
            "            if i < 2:\n"
            "                pl.system.bar_v()\n"
            "        r = t")
    text = _kernel(tmp_path, body)["k"]
    assert "      %0 = arith.cmpi slt, %i, %c2_index : index\n      scf.if %0 {\n        pto.barrier <PIPE_V>\n" in text


def test_views_scalar_reads_spmd_indices_and_while(tmp_path: Path) -> None:
    lines = _pto("views", tmp_path)["views"].splitlines()
    assert lines[1].startswith("  func.func @views(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: index, "
                               "%__pypto_spmd_block_idx: i32, %__pypto_spmd_block_num: i32) attributes")
    v16 = V64.replace("rows=64", "rows=16")
    body = [line.strip() for line in lines]
    assert "%0 = arith.addi %arg2, %c64_index : index" in body  # x[1, n] at 1 * 64 + n
    assert "%v = pto.load_scalar %arg0[%0] : !pto.ptr<f32> -> f32" in body
    assert "%b = arith.index_cast %__pypto_spmd_block_idx : i32 to index" in body
    half = V64.replace("rows=64", "rows=8").replace("v_row=?, v_col=?", "v_row=8, v_col=64")
    assert f"%half = pto.subview %t[%b, %c0_index] sizes [8, 64] : {v16} -> {half}" in body
    assert f"%flat = pto.treshape %t : {v16} -> {V64.replace('rows=64, cols=64', 'rows=8, cols=128')}" in body
    start = body.index("%k_rv = scf.while (%k = %c0_index) : (index) -> (index) {")
    assert body[start + 1:start + 7] == [
        "%1 = arith.cmpi slt, %k, %arg2 : index",
        "scf.condition(%1) %k : index",
        "} do {",
        "^bb0(%2 : index):",
        "%3 = arith.addi %2, %c1_index : index",
        "scf.yield %3 : index",
    ]


def test_matmul_acc_under_a_runtime_init_cond_prints_both_forms(tmp_path: Path) -> None:
    text = _pto("matmul_acc", tmp_path)["mm_k"]
    assert (f"      scf.if %4 {{\n        pto.tmatmul ins(%a_l0, %b_l0 : {TL}, {TR}) outs(%acc : {TA})\n      }} else {{\n"
            f"        pto.tmatmul.acc ins(%acc, %a_l0, %b_l0 : {TA}, {TL}, {TR}) outs(%acc : {TA})\n      }}\n") in text
    assert "%acc_next" not in text  # the result is the accumulator's buffer


def test_assemble_in_place_and_into_a_copy(tmp_path: Path) -> None:
    body = [line.strip() for line in _pto("assemble", tmp_path)["assemble"].splitlines()]
    v16, v8 = V64.replace("rows=64", "rows=16"), V64.replace("rows=64", "rows=8")
    window = v8.replace("v_row=?, v_col=?", "v_row=8, v_col=64")
    at = body.index(f"%1 = pto.subview %t[%c0_index, %c0_index] sizes [8, 64] valid [%c8_index, %c64_index] : "
                    f"{v16} -> {window}")
    assert "%same" not in " ".join(body)  # in place: the result is t's buffer
    assert body[at + 1] == f"pto.tmov ins(%part : {v8}) outs(%1 : {window})"
    assert body[at + 2:at + 4] == [
        f"%copy = pto.alloc_tile addr = %c6144_i64 valid_row = %c16_index valid_col = %c64_index : {v16}",
        f"pto.tmov ins(%t : {v16}) outs(%copy : {v16})",
    ]
    assert "%0 = pto.partition_view %x_view, offsets = [%c8_index, %c0_index]" in " ".join(body)  # x_pview is taken
    assert body[-5:-2] == ["%v = pto.load_scalar %arg0[%c0_index] : !pto.ptr<f32> -> f32",
                           "pto.store_scalar %v, %arg1[%c1023_index] : !pto.ptr<f32>, f32", "return"]


def test_scalar_casts_and_float_comparisons(tmp_path: Path) -> None:
    body = ("        for i in pl.range(4):\n"
            "            w: pl.Scalar[pl.INT32] = pl.cast(i, pl.INT32)\n"
            "            f: pl.Scalar[pl.FP32] = pl.cast(w, pl.FP32)\n"
            "            if f > 1.5:\n"
            "                pl.system.bar_v()\n"
            "        r = t")
    lines = [line.strip() for line in _kernel(tmp_path, body)["k"].splitlines()]
    start = lines.index("scf.for %i = %c0_index to %c4_index step %c1_index {")
    assert lines[start + 1:start + 6] == [
        "%0 = arith.index_cast %i : index to i32",
        "%1 = arith.sitofp %0 : i32 to f32",
        "%2 = arith.cmpf ogt, %1, %cst : f32",
        "scf.if %2 {",
        "pto.barrier <PIPE_V>",
    ]
    assert "%cst = arith.constant 1.50000000000000000e+00 : f32" in lines



def test_scalar_abs_and_pow(tmp_path: Path) -> None:
    body = ("        for i in pl.range(4):\n"
            "            w: pl.Scalar[pl.INT32] = pl.cast(i - 2, pl.INT32)\n"
            "            f: pl.Scalar[pl.FP32] = pl.cast(w, pl.FP32)\n"
            "            if abs(w) ** 2 > 1 and abs(f) ** 2.0 > 1.5:\n"
            "                pl.system.bar_v()\n"
            "        r = t")
    lines = [line.strip() for line in _kernel(tmp_path, body)["k"].splitlines()]
    start = lines.index("%3 = arith.subi %c0_i32, %1 : i32")
    assert lines[start:start + 8] == [
        "%3 = arith.subi %c0_i32, %1 : i32",
        "%4 = arith.maxsi %1, %3 : i32",
        "%5 = arith.index_cast %4 : i32 to index",
        "%6 = math.ipowi %5, %c2_index : index",
        "%7 = arith.cmpi sgt, %6, %c1_index : index",
        "%8 = arith.negf %2 : f32",
        "%9 = arith.maximumf %2, %8 : f32",
        "%10 = math.powf %9, %cst : f32",
    ]

UNSIGNED = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 64], pl.UINT32],
          out: pl.Out[pl.Tensor[[16, 64], pl.UINT32]]) -> pl.Tensor[[16, 64], pl.UINT32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        t: pl.Tile[[16, 64], pl.UINT32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64])
        u: pl.Scalar[pl.UINT32] = pl.tensor.read(x, [0, 0])
        w: pl.Scalar[pl.UINT32] = u // pl.const(3, pl.UINT32)
        s: pl.Tile[[16, 64], pl.UINT32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.ands(t, w)
        pl.system.sync_set(pipe=pl.PipeType.V, event_id=3, ffts_mode=1)
        pl.system.fence()
        out_1: pl.Tensor[[16, 64], pl.UINT32] = pl.store(s, [0, 0], out)
        return out_1
'''


def test_unsigned_scalars_bridge_to_signless_arith(tmp_path: Path) -> None:
    lines = [line.strip() for line in generate_pto(programs.load("k", tmp_path, UNSIGNED), locations=False)["k"]
             .splitlines()]
    tile = V64.replace("rows=64", "rows=16").replace("dtype=f32", "dtype=ui32")
    assert lines[lines.index("%u = pto.load_scalar %arg0[%c0_index] : !pto.ptr<ui32> -> ui32") + 1:][:6] == [
        "%0 = builtin.unrealized_conversion_cast %u : ui32 to i32",
        "%1 = arith.divui %0, %c3_i32 : i32",
        "%2 = builtin.unrealized_conversion_cast %1 : i32 to ui32",
        "%s = pto.alloc_tile addr = %c0_i64 valid_row = %c16_index valid_col = %c64_index : " + tile,
        "%3 = builtin.unrealized_conversion_cast %2 : ui32 to i32",  # tands takes its scalar as i32
        f"pto.tands ins(%t, %3 : {tile}, i32) outs(%s : {tile})",
    ]
    assert "pto.sync.set <PIPE_V>, 3 {ffts_mode = 1 : i32}" in lines
    assert "pto.fence.barrier_all #pto.fence_scope<gm>" in lines


def test_a_tile_parameter_has_no_rule(tmp_path: Path) -> None:
    source = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, t: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096), pl.Mem.Vec],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.store(t, [0, 0], out)
        return out_1
'''
    with pytest.raises(CodegenError) as err:
        generate_pto(programs.load("k", tmp_path, source))
    assert err.value.message == "no rule for a TileType parameter 't' in pto"
    assert (err.value.span.begin_line, err.value.hint) == (7, "kernel parameters are tensors (GM pointers) and scalars")


def test_a_group_is_one_module_holding_its_kernels(tmp_path: Path) -> None:
    source = '''
@pl.program
class G:
    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(self, x: pl.Tensor[[16, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64])
        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.store(t, [0, 0], out)
        return out_1

    @pl.function(type=pl.FunctionType.Group)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out_1: pl.Tensor[[16, 64], pl.FP32] = self.k_aiv(
            x, out, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
        return out_1
'''
    units = generate_pto(programs.load("g", tmp_path, source))
    assert list(units) == ["k"]  # the kernel prints inside its Group's module, not on its own
    assert units["k"].count("func.func @k_aiv(") == 1


def test_two_scalar_carries_are_one_multi_result_loop(tmp_path: Path) -> None:
    body = ("        for i, (a, b) in pl.range(4, init_values=(0, 1)):\n"
            "            a2: pl.Scalar[pl.INDEX] = a + b\n"
            "            a_rv, b_rv = pl.yield_(b, a2)\n"
            "        pl.system.sync_set(a_rv, pipe=pl.PipeType.V)\n"
            "        pl.system.sync_wait(b_rv, pipe=pl.PipeType.V)\n"
            "        r = t")
    lines = [line.strip() for line in _kernel(tmp_path, body)["k"].splitlines()]
    start = lines.index("%a_rv:2 = scf.for %i = %c0_index to %c4_index step %c1_index "
                        "iter_args(%a = %c0_index, %b = %c1_index) -> (index, index) {")
    assert lines[start + 1:start + 6] == [
        "%0 = arith.addi %a, %b : index",
        "scf.yield %b, %0 : index, index",
        "}",
        "pto.sync.set <PIPE_V>, %a_rv#0",  # a dynamic event id is an index operand
        "pto.sync.wait <PIPE_V>, %a_rv#1",
    ]


def test_syncall_hard_and_soft(tmp_path: Path) -> None:
    source = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, ws: pl.Tensor[[48], pl.INT32], n: pl.Scalar[pl.INT32]):
        pl.system.syncall(core_type="aiv_only")
        pl.system.syncall(gm_workspace=ws, used_cores=n, mode="soft", core_type="aiv_only")
'''
    lines = [line.strip() for line in generate_pto(programs.load("k", tmp_path, source), locations=False)["k"]
             .splitlines()]
    assert lines[-6:-2] == [
        "pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<aiv_only>",
        "%ws_pview = pto.partition_view %ws_view, offsets = [%c0_index], sizes = [%c48_index] : "
        "!pto.tensor_view<?xi32> -> !pto.partition_tensor_view<48xi32>",
        "pto.syncall(%ws_pview, %arg1 : !pto.partition_tensor_view<48xi32>, i32) mode = #pto.sync_all_mode<soft>, "
        "core_type = #pto.sync_core_type<aiv_only>",
        "return",
    ]
    assert "%ws_view = pto.make_tensor_view %arg0, shape = [%c48_index], strides = [%c1_index] " \
           "{layout = #pto.layout<nd>} : !pto.tensor_view<?xi32>" in lines


def test_tensor_view_layouts_and_strides(tmp_path: Path) -> None:
    source = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)],
          d: pl.Tensor[[64, 32], pl.FP32, pl.TensorView(stride=[1, 64], layout=pl.TensorLayout.DN)],
          s: pl.Out[pl.Tensor[[64, 1], pl.FP32]]) -> pl.Tensor[[64, 1], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        t: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_0, 0, 256), pl.Mem.Vec] = pl.load(x, [0, 0], [64, 1])
        u: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_0, 0, 256), pl.Mem.Vec] = pl.load(d, [0, 0], [64, 1])
        s_1: pl.Tensor[[64, 1], pl.FP32] = pl.store(u, [0, 0], s)
        return s_1
'''
    lines = [line.strip() for line in generate_pto(programs.load("k", tmp_path, source), locations=False)["k"]
             .splitlines()]
    views = [line for line in lines if "make_tensor_view" in line]
    assert [line.split(" {layout")[0].split("shape = ")[1] for line in views] == [
        "[%c64_index, %c64_index], strides = [%c64_index, %c1_index]",  # the view's strides
        "[%c64_index, %c32_index], strides = [%c1_index, %c64_index]",
        "[%c64_index, %c1_index], strides = [%c1_index, %c64_index]",  # a column vector is forced to DN
    ]
    assert ["#pto.layout<nd>" in views[0], "#pto.layout<dn>" in views[1], "#pto.layout<dn>" in views[2]] == [True] * 3


def test_a_strided_slice_keeps_its_source_pitch(tmp_path: Path) -> None:
    """The subview of a [16, 32] window of a 16 x 64 tile is a 16 x 64 buffer (its rows stay 64
    apart), in its definition and in every use."""
    body = ("        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)\n"
            "        hi: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec,\n"
            "                    pl.TileView(stride=[64, 1])] = pl.tile.slice(t, [16, 32], [0, 32])\n"
            "        r: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 4096, 2048), pl.Mem.Vec] = pl.tile.exp(hi)")
    lines = [line.strip() for line in _kernel(tmp_path, body)["k"].splitlines()]
    (subview,) = [line for line in lines if "pto.subview" in line]
    (exp,) = [line for line in lines if line.startswith("pto.texp")]
    assert subview.startswith("%hi = pto.subview %t[%c0_index, %c32_index] sizes [16, 32] : ")
    assert subview.endswith("-> !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row=16, v_col=32, "
                            "blayout=row_major, slayout=none_box, fractal=512, pad=0>")
    assert exp.startswith("pto.texp ins(%hi : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, ")
