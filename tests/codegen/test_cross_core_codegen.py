"""Explicit cross-core programs (issue 30): a Group of an AIV and an AIC kernel joined by tpush/tpop
pipes prints as one PTO module, as CCE kernels on pto-isa's TPipe/TPUSH/TPOP/TFREE, and as one
mixed task in the orchestration; memory planning places the reserved rings."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_programs import DYNAMIC_ROWS_MIXED, MIXED_ATTENTION, cube_to_vector

import pypto.language as pl
from pypto import ir
from pypto.codegen.cce import generate_cce
from pypto.codegen.errors import CodegenError
from pypto.codegen.unsupported import UnsupportedOpError
from pypto.ir.errors import VerificationError
from pypto.ir.op_registry import all_entries
from pypto.ir.ops.cross_core_ops import PIPE_OP_DIRECTION

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cross_core_pipes.py"


def _compiled(tmp_path: Path) -> dict[str, str]:
    compiled = ir.compile(pl.loads_program(str(EXAMPLE)), output_dir=tmp_path / "out")
    return {name: (tmp_path / "out" / name).read_text() for name in compiled.files
            if name.endswith((".pto", ".cpp", ".py")) and not name.startswith(("passes_dump", "debug"))}


def _lines(text: str) -> list[str]:
    return [line.strip().split(" loc(")[0] for line in text.splitlines()]


def test_the_group_is_one_pto_module_with_its_pipes(tmp_path: Path) -> None:
    files = _compiled(tmp_path)
    assert [f for f in files if f.startswith("ptoas/")] == ["ptoas/square_matmul.pto"]
    lines = _lines(files["ptoas/square_matmul.pto"])
    assert lines.count("module attributes {pto.target_arch = \"a2a3\"} {") == 1
    for line in [
        '%buf0 = pto.import_reserved_buffer {name = "a_slots", peer_func = @multiply} -> i32',
        # Each pipe has its part of the GM ring, as in CCE: pipe 2 after pipe 0's two 8 KiB slots.
        "pto.aiv_initialize_pipe {id = 0, dir_mask = 2, slot_size = 8192, slot_num = 2} "
        "(gm_slot_buffer = %arg2 : !pto.ptr<f32>, c2v_consumer_buf = %c0_i32 : i32, v2c_consumer_buf = %buf0 : i32)",
        "%c4096_index = arith.constant 4096 : index",
        "%gm_pipe_2 = pto.addptr %arg2, %c4096_index : !pto.ptr<f32> -> !pto.ptr<f32>",
        "pto.aiv_initialize_pipe {id = 2, dir_mask = 2, slot_size = 8192, slot_num = 2} "
        "(gm_slot_buffer = %gm_pipe_2 : !pto.ptr<f32>, c2v_consumer_buf = %c0_i32 : i32, "
        "v2c_consumer_buf = %buf1 : i32)",
        '%buf1 = pto.reserve_buffer {name = "b_slots", size = 16384, location = #pto.address_space<mat>, '
        "auto = false, base = 16384} -> i32",
        "%a_mat = pto.tpop_from_aiv {id = 0, split = 0} -> !pto.tile_buf<loc=mat, dtype=f16, rows=64, cols=64, "
        "v_row=?, v_col=?, blayout=col_major, slayout=row_major, fractal=512, pad=0>",
        "pto.tfree_from_aiv {id = 2, split = 0}",
    ]:
        assert line in lines
    assert any(line.startswith("pto.tpush_to_aic(%a_sq : !pto.tile_buf<loc=vec") and line.endswith(
        "{id = 0, split = 0}") for line in lines)


def test_cce_kernels_use_one_pipe_object_per_id(tmp_path: Path) -> None:
    files = _compiled(tmp_path)
    cube = _lines(files["kernels/aic/multiply.cpp"])
    vector = _lines(files["kernels/aiv/prepare.cpp"])
    for lines in (cube, vector):
        assert "using Pipe2 = TPipe<2, 2, 8192, 2, 2>;" in lines
        assert "int32_t buf1 = 16384;" in lines  # the AUTO base memory planning gave the cube's ring
    # Each pipe has its part of the GM ring: pipe 0 two slots of 8 KiB (4096 FP32), pipe 2 after it.
    assert "Pipe0 pipe_0((__gm__ void*)__gm_pipe_buffer, static_cast<uint32_t>(0), static_cast<uint32_t>(buf0));" \
        in cube
    assert ("Pipe2 pipe_2((__gm__ void*)(__gm_pipe_buffer + 4096), static_cast<uint32_t>(0), "
            "static_cast<uint32_t>(buf1));") in cube
    assert "TPOP<Pipe0, Mat_64x64_fp16, TileSplitAxis::TILE_NO_SPLIT>(pipe_0, a_mat);" in cube
    assert "TFREE<Pipe2, TileSplitAxis::TILE_NO_SPLIT>(pipe_2);" in cube
    assert "TPUSH<Pipe0, Vec_64x64_fp16, TileSplitAxis::TILE_NO_SPLIT>(pipe_0, a_sq);" in vector
    # A popped tile lives in the pipe slot: declared, never placed.
    assert "Mat_64x64_fp16 a_mat(64, 64);" in cube and not any(line.startswith("TASSIGN(a_mat") for line in cube)
    # Each kernel reads its parameters where the Group's task puts them: c is the Group's third tensor.
    assert "__gm__ ChipTensor* c_tensor = reinterpret_cast<__gm__ ChipTensor*>(args[2]);" in cube


def test_a_two_way_pipe_prints_as_one_one_way_pipe_per_direction(tmp_path: Path) -> None:
    # pto-isa's CPU model shares a two-way TPipe's slots between the directions and, once the ring
    # wraps, hands the vector a later cube->vector tile before an earlier one: each direction gets its
    # own one-way TPipe, with the flags (V->C: id + 2) and GM slots (V->C after C->V) of a2a3's two-way pipe.
    ir.compile(pl.parse("import pypto.language as pl\n" + MIXED_ATTENTION), output_dir=tmp_path / "att")
    kernels = tmp_path / "att" / "kernels"
    cube = _lines((kernels / "aic" / "main_incore_0_aic.cpp").read_text())
    vector = _lines((kernels / "aiv" / "main_incore_0_aiv.cpp").read_text())
    for lines in (cube, vector):
        assert [line for line in lines if "TPipe" in line or line.startswith("Pipe0")] == [
            "using Pipe0_c2v = TPipe<0, 1, 16384, 2, 2>;",
            "using Pipe0_v2c = TPipe<2, 2, 16384, 2, 2>;",
            "Pipe0_c2v pipe_0_c2v((__gm__ void*)__gm_pipe_buffer, static_cast<uint32_t>(c2v_buf), "
            "static_cast<uint32_t>(v2c_buf));",
            # two slots of 16 KiB (8192 FP32) past the C->V slots
            "Pipe0_v2c pipe_0_v2c((__gm__ void*)(__gm_pipe_buffer + 8192), static_cast<uint32_t>(c2v_buf), "
            "static_cast<uint32_t>(v2c_buf));",
        ]
    assert [line for line in cube if line.startswith(("TPUSH", "TPOP", "TFREE"))] == [
        "TPUSH<Pipe0_c2v, Acc_64x64_fp32, TileSplitAxis::TILE_NO_SPLIT>(pipe_0_c2v, s_tile);",
        "TPOP<Pipe0_v2c, Mat_64x64_fp16, TileSplitAxis::TILE_NO_SPLIT>(pipe_0_v2c, p_tile_Left_mat);",
        "TFREE<Pipe0_v2c, TileSplitAxis::TILE_NO_SPLIT>(pipe_0_v2c);",
        "TPUSH<Pipe0_c2v, Acc_64x64_fp32, TileSplitAxis::TILE_NO_SPLIT>(pipe_0_c2v, t__tmp_v2_tile);",
    ]
    assert [line for line in vector if line.startswith(("TPUSH", "TPOP", "TFREE"))][:5] == [
        "TPOP<Pipe0_c2v, Vec_64x64_fp32, TileSplitAxis::TILE_NO_SPLIT>(pipe_0_c2v, s_tile_Vec);",
        "TFREE<Pipe0_c2v, TileSplitAxis::TILE_NO_SPLIT>(pipe_0_c2v);",
        "TPUSH<Pipe0_v2c, Vec_64x64_fp16, TileSplitAxis::TILE_NO_SPLIT>(pipe_0_v2c, p_tile);",
        "TPOP<Pipe0_c2v, Vec_64x64_fp32, TileSplitAxis::TILE_NO_SPLIT>(pipe_0_c2v, t__tmp_v2_tile_Vec);",
        "TFREE<Pipe0_c2v, TileSplitAxis::TILE_NO_SPLIT>(pipe_0_c2v);",
    ]
    # The PTO module keeps the two-way pipe: a2a3's TPipe gives each direction its own ring.
    pto = (tmp_path / "att" / "ptoas" / "main_incore_0.pto").read_text()
    assert pto.count("_initialize_pipe {dir_mask = 3, slot_size = 16384, slot_num = 2}") == 2


def _pipe_lines(tmp_path: Path, *edits: tuple[str, str]) -> list[list[str]]:
    source = EXAMPLE.read_text()
    for old, new in edits:
        assert old in source
        source = source.replace(old, new)
    ir.compile(pl.parse(source), output_dir=tmp_path / "out")
    return [[line for line in _lines((tmp_path / "out" / "kernels" / side).read_text()) if "TPipe<" in line]
            for side in ("aic/multiply.cpp", "aiv/prepare.cpp")]


def test_pipes_print_disjoint_cross_core_flags(tmp_path: Path) -> None:
    # A one-way TPipe<F, ...> takes the flags F and F + 1 (docs/codegen.md#cross-core-flags).
    for lines in _pipe_lines(tmp_path / "one_way"):
        assert lines == ["using Pipe0 = TPipe<0, 2, 8192, 2, 2>;", "using Pipe2 = TPipe<2, 2, 8192, 2, 2>;"]
    # A two-way pipe 0 takes 0 to 3 (its V->C half prints at 2), so the next pipe is 4.
    two_way = ("dir_mask=2, slot_size=8192, slot_num=2, id=0", "dir_mask=3, slot_size=8192, slot_num=2, id=0")
    for lines in _pipe_lines(tmp_path / "two_way", two_way, ("id=2)", "id=4)")):
        assert lines == ["using Pipe0_c2v = TPipe<0, 1, 8192, 2, 2>;", "using Pipe0_v2c = TPipe<2, 2, 8192, 2, 2>;",
                         "using Pipe4 = TPipe<4, 2, 8192, 2, 2>;"]


def test_a_pipe_within_the_flags_of_a_two_way_pipe_is_refused_before_codegen(tmp_path: Path) -> None:
    # It printed TPipe<2, 2, ...> twice, which pto-isa runs as one pipe.
    source = EXAMPLE.read_text().replace("dir_mask=2, slot_size=8192, slot_num=2, id=0",
                                         "dir_mask=3, slot_size=8192, slot_num=2, id=0")
    with pytest.raises(VerificationError) as err:
        ir.compile(pl.parse(source), output_dir=tmp_path / "out")
    assert "PIPE_FLAGS_OVERLAP in 'multiply': pipes 0 and 2 share cross-core flags" in str(err.value)


def test_every_pipe_op_of_the_registry_has_its_direction() -> None:
    pipe_ops = {e.name for e in all_entries() if e.name.split(".")[1].startswith(("tpush_", "tpop_", "tfree_"))}
    assert set(PIPE_OP_DIRECTION) == pipe_ops
    # Derived from each op's core side: the cube (AIC) pushes C->V (1) and pops and frees V->C (2).
    assert PIPE_OP_DIRECTION == {"tile.tpush_to_aiv": 1, "tile.tpop_from_aic": 1, "system.tfree_to_aic": 1,
                                 "tile.tpush_to_aic": 2, "tile.tpop_from_aiv": 2, "system.tfree_to_aiv": 2}


def test_the_group_call_is_one_mixed_task(tmp_path: Path) -> None:
    files = _compiled(tmp_path)
    orch = _lines(files["orchestration/main.cpp"])
    start = orch.index("// Task 0: square_matmul")
    assert "uint32_t square_matmul_gm_pipe_buffer_0_ci_shapes[1] = {8192};" in orch  # two pipes' 16 KiB rings
    assert orch[start + 1:start + 8] == [
        "CoreTaskArgs params_t0;",
        "params_t0.add_input(ext_a);",
        "params_t0.add_input(ext_b);",
        "params_t0.add_output(ext_c);",
        "params_t0.add_output(square_matmul_gm_pipe_buffer_0);",
        "MixedKernels mixed_0 = {1, 0, INVALID_KERNEL_ID};",
        "rt_submit_task(mixed_0, params_t0);",
    ]
    config = files["kernel_config.py"]
    assert '"func_id": 0, "name": "prepare"' in config and '"func_id": 1, "name": "multiply"' in config


def test_a_cluster_scope_is_a_group_submitted_as_one_mixed_task(tmp_path: Path) -> None:
    source = EXAMPLE.read_text()
    source = source[:source.index("    @pl.function(type=pl.FunctionType.Group)")] + source[
        source.index("    @pl.function(type=pl.FunctionType.Orchestration)"):]
    cluster = "        with pl.cluster():\n            self.prepare(a, b)\n            c = self.multiply(c)\n"
    source = source.replace("        c = self.square_matmul(a, b, c)\n", cluster)
    path = tmp_path / "cluster.py"
    path.write_text(source)
    compiled = ir.compile(pl.loads_program(str(path)), output_dir=tmp_path / "cluster")
    assert sorted(f for f in compiled.files if f.startswith("ptoas/")) == ["ptoas/main_cluster_0.pto"]
    orch = _lines((tmp_path / "cluster" / "orchestration" / "main.cpp").read_text())
    assert "// Task 0: main_cluster_0" in orch
    assert "MixedKernels mixed_0 = {1, 0, INVALID_KERNEL_ID};" in orch


def test_a_pop_of_a_dynamically_valid_tile_passes_its_valid_shape(tmp_path: Path) -> None:
    ir.compile(pl.parse(DYNAMIC_ROWS_MIXED), output_dir=tmp_path / "dyn")
    pto = _lines((tmp_path / "dyn" / "ptoas" / "mm.pto").read_text())
    assert ("%t__tmp_v2 = pto.tpop_from_aic(%arg4, %c64_index) {split = 0} -> !pto.tile_buf<loc=vec, dtype=f32, "
            "rows=64, cols=64, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>") in pto
    vector = _lines((tmp_path / "dyn" / "kernels" / "aiv" / "mm_aiv.cpp").read_text())
    assert "Vec_64x64_fp32 t__tmp_v2(n, 64);" in vector
    assert "TPOP<Pipe0, Vec_64x64_fp32, TileSplitAxis::TILE_NO_SPLIT>(pipe_0, t__tmp_v2);" in vector


# A hand-written pipe with split code 3 (rows split 33 / 32 between the AIV lanes).
ODD_SPLIT = cube_to_vector("out = pl.store(c, [0, 0], out)\npl.tfree_to_aic(c)", split=3, dual=True)


def test_an_odd_extent_split_is_refused_before_the_first_pass_when_cce_is_printed(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedOpError) as err:
        ir.compile(pl.parse(ODD_SPLIT), output_dir=tmp_path / "odd")
    assert err.value.message == ("tile.tpush_to_aiv with split=3 (an odd-extent split) cannot be compiled: the cce "
                                 "target has no rule for it")
    assert err.value.span.begin_line == next(
        k for k, line in enumerate(ODD_SPLIT.splitlines(), start=1) if "pl.tpush_to_aiv(acc, split=3)" in line)
    assert err.value.hint == (
        "pto-isa's CPU model (a2a3sim) splits a tile between the AIV lanes in even halves only: give the split axis "
        "an even extent and use split=1 (up/down) or split=2 (left/right), or compile with skip_ptoas=True to print "
        "the PTO module (which has it) only")
    compiled = ir.compile(pl.parse(ODD_SPLIT), output_dir=tmp_path / "pto", skip_ptoas=True)  # PTO prints it
    pto = (tmp_path / "pto" / "ptoas" / "mm.pto").read_text()
    assert "{split = 3}" in pto
    with pytest.raises(CodegenError) as direct:  # generate_cce called alone refuses it too
        generate_cce(compiled.final_program)
    assert direct.value.message == "no rule for tile.tpush_to_aiv with split=3 (an odd-extent split) in cce"
    assert (direct.value.span.begin_line, direct.value.hint) == (err.value.span.begin_line, err.value.hint)


def test_an_unsplit_mixed_kernel_runs_its_vector_part_on_both_lanes_lane_1_replaying(tmp_path: Path) -> None:
    example = EXAMPLE.parent / "mixed_linear_relu.py"
    compiled = ir.compile(pl.loads_program(str(example)), output_dir=tmp_path / "mlr")
    assert "MixedKernels mixed_0 = {0, 1, 1};" in (tmp_path / "mlr" / "orchestration" / "main.cpp").read_text()
    pto = _lines((tmp_path / "mlr" / "ptoas" / "main_incore_0.pto").read_text())
    signature = next(line for line in pto if line.startswith("func.func @main_incore_0_aiv("))
    assert signature.split(") attributes")[0].endswith("%__pypto_spmd_subblock_idx: i32")
    lane_1 = pto[pto.index("} else {") + 1:]
    assert [line.split(" {")[0].split(" = ")[-1] for line in lane_1[:3]] == [
        "pto.tpop_from_aic", "pto.tfree_from_aic", "}"]
    assert "kernels/aiv/main_incore_0_aiv.cpp" in compiled.files
    vector = _lines((tmp_path / "mlr" / "kernels" / "aiv" / "main_incore_0_aiv.cpp").read_text())
    assert "int64_t lane = __pypto_spmd_subblock_idx;" in vector
    # One store (lane 0's); each lane pops the tile.
    assert sum(line.startswith("TSTORE(") for line in vector) == 1
    assert sum(line.startswith("TPOP<") for line in vector) == 2
