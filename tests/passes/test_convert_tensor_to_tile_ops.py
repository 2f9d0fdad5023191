"""ConvertTensorToTileOps (spec/passes.md §4.11): tensor ops in kernels become loads, tile ops and
stores; snapshots, interpreter preservation, the output contract the tile-stage passes read, errors."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from pass_helpers import before_after

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages.outlined import outlined as outlined_dialect
from pypto.languages.synced import synced
from pypto.passes import PassError

_T = "pl.Tensor[[64, 128], pl.FP32]"
_H = "pl.Tensor[[64, 128], pl.FP16]"

PROGRAMS = {
    "elementwise_chain": f"""
        @pl.program
        class Chain:
            @pl.function
            def main(self, a: {_T}, b: {_T}, out: pl.Out[{_T}]) -> {_T}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    c = pl.add(a, b)
                    d = pl.exp(c)
                    e = pl.mul(d, 2.0)
                    out[:] = e
                return out
    """,
    "softmax_rows": f"""
        @pl.program
        class Softmax:
            @pl.function
            def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    m = pl.row_max(x)
                    s = pl.row_expand_sub(x, m)
                    e = pl.exp(s)
                    z = pl.row_sum(e)
                    out[:] = pl.row_expand_div(e, z)
                return out
    """,
    "row_blocks_in_a_loop": f"""
        @pl.program
        class RowBlocks:
            @pl.function
            def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
                for i in pl.range(4):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = x[i * 16 : i * 16 + 16, :]
                        y = pl.add(pl.exp(t), 1.0)
                        out[i * 16 : i * 16 + 16, :] = y
                return out
    """,
    "matmul_in_at": f"""
        @pl.program
        class Matmul:
            @pl.function
            def main(self, a: {_H}, b: pl.Tensor[[128, 64], pl.FP16],
                     out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    c = pl.matmul(a, b, out_dtype=pl.FP32)
                    out[:] = c
                return out
    """,
    "matmul_of_row_blocks_in_a_loop": """
        @pl.program
        class MatmulRows:
            @pl.function
            def main(self, a: pl.Tensor[[128, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
                     out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
                for i in pl.range(2):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        blk = a[i * 64 : i * 64 + 64, :]
                        c = pl.matmul(blk, b, out_dtype=pl.FP32)
                        out[i * 64 : i * 64 + 64, :] = c
                return out
    """,
    "spmd_row_blocks": f"""
        @pl.program
        class SpmdRows:
            @pl.function
            def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
                for i in pl.spmd(4):
                    t = x[i * 16 : i * 16 + 16, :]
                    out[i * 16 : i * 16 + 16, :] = pl.mul(t, 3.0)
                return out
    """,
    "kernel_returns_a_new_tensor": f"""
        @pl.program
        class Returns:
            @pl.function
            def main(self, a: {_T}, b: {_T}) -> {_T}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    c = pl.sub(a, b)
                    d = pl.abs(c)
                f = pl.add(d, c)
                return f
    """,
    "cluster_wrapper_forwards_outputs": f"""
        @pl.program
        class ClusterPair:
            @pl.function
            def main(self, a: {_T}, b: {_T}) -> tuple[{_T}, {_T}]:
                with pl.cluster():
                    with pl.at(level=pl.Level.CORE_GROUP):
                        c = pl.add(a, b)
                        d = pl.mul(c, a)
                return c, d
    """,
    "if_and_cast_in_a_kernel": f"""
        @pl.program
        class IfCast:
            @pl.function
            def main(self, x: {_T}, n: pl.Scalar[pl.INDEX], out: pl.Out[{_H}]) -> {_H}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    if n > 1:
                        y = pl.exp(x)
                    else:
                        y = x
                    out[:] = pl.cast(y, pl.FP16)
                return out
    """,
    "carry_and_element_write_in_a_kernel": f"""
        @pl.program
        class Carry:
            @pl.function
            def main(self, x: {_T}, n: pl.Scalar[pl.INDEX], out: pl.Out[{_T}], flag: pl.Out[pl.Tensor[[4], pl.FP32]]) -> {_T}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    for i, (acc,) in pl.range(n, init_values=(x,)):
                        acc2 = pl.yield_(pl.maximum(acc, pl.neg(x)))
                    r = pl.reshape(acc2, [128, 64])
                    out[:] = pl.reshape(pl.exp(r), [64, 128])
                    flag[0] = 1.0
                return out
    """,
    "copies_of_kernel_values": f"""
        @pl.program
        class Copies:
            @pl.function
            def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    y = pl.exp(x)
                    z = y
                    w = x
                    out[:] = pl.add(z, w)
                return out
    """,
    "lower_rank_windows": """
        @pl.program
        class LowerRank:
            @pl.function
            def main(self, x: pl.Tensor[[4, 16, 64], pl.FP32],
                     out: pl.Out[pl.Tensor[[24, 64], pl.FP32]]) -> pl.Tensor[[24, 64], pl.FP32]:
                for i in pl.range(4):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        r = pl.slice(x, [1, 64], [i, 3, 0])
                        out[i : i + 1, :] = pl.exp(r)
                        w = pl.slice(x, [64], [i, 5, 0], [40])
                        out[4 + i, :] = pl.neg(w)
                with pl.at(level=pl.Level.CORE_GROUP):
                    b = pl.slice(x, [16, 64], [2, 0, 0])
                    out[8:24, :] = pl.add(b, 1.0)
                return out
    """,
    "compares_and_scalar_rhs": f"""
        @pl.program
        class Compares:
            @pl.function
            def main(self, x: {_T}, y: {_T}, out: pl.Out[{_T}]) -> {_T}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.add(pl.cmp(x, y, cmp_type=2), pl.cmp(pl.maximum(x, 0.0), 0.5, cmp_type=5))
                return out
    """,
    "sort_a_row": """
        @pl.program
        class SortRow:
            @pl.function
            def main(self, x: pl.Tensor[[1, 128], pl.FP32], idx: pl.Tensor[[1, 128], pl.UINT32],
                     out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.mrgsort(pl.sort32(x, idx), block_len=64)
                return out
    """,
    # A tensor created in the scope and stored into is a tile the kernel returns (a new Out param).
    "store_into_a_created_tensor": """
        @pl.program
        class StoreCreated:
            @pl.function
            def main(self, x: pl.Tensor[[32, 32], pl.FP32],
                     out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    a = pl.load(x, [0, 0], [16, 32])
                    tmp = pl.create_tensor([32, 32], dtype=pl.FP32)
                    tmp = pl.store(pl.exp(a), [0, 0], tmp)
                    tmp = pl.store(a, [16, 0], tmp)
                with pl.at(level=pl.Level.CORE_GROUP):
                    out = pl.store(pl.add(pl.load(tmp, [0, 0], [32, 32]), 1.0), [0, 0], out)
                return out
    """,
}


def source(text: str) -> str:
    return "import pypto.language as pl\n\n" + textwrap.dedent(text)


def outlined(text: str) -> ir.Program:
    """The program as ConvertTensorToTileOps receives it: front passes, then the outline passes."""
    program = passes.PassManager(passes.front_passes()).run(pl.parse(source(text)))
    for p in (passes.outline_hierarchy_scopes(), passes.outline_incore_scopes(), passes.outline_cluster_scopes()):
        program = p(program)
    return program


def kernel(program: ir.Program) -> ir.Function:
    (func,) = [f for f in program.functions.values() if ir.is_incore_type(f.func_type)][:1]
    return func


def inputs(program: ir.Program, scalar: int) -> list[object]:
    rng = np.random.default_rng(5)
    args: list[object] = []
    for p in program.get_function("main").params:
        if isinstance(p.type, ir.ScalarType):
            args.append(scalar)
            continue
        shape = [d.value for d in p.type.shape]
        if p.type.dtype == ir.DataType.UINT32:
            args.append(rng.permutation(int(np.prod(shape))).astype(np.uint32).reshape(shape))
            continue
        dtype = np.float16 if p.type.dtype == ir.DataType.FP16 else np.float32
        args.append(rng.standard_normal(shape).astype(dtype))
    return args


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_snapshot(name: str, snapshot) -> None:
    before = outlined(PROGRAMS[name])
    assert before_after("ConvertTensorToTileOps", before, passes.convert_tensor_to_tile_ops()(before)) == snapshot


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_preserves_what_the_program_computes(name: str) -> None:
    program = outlined(PROGRAMS[name])
    for scalar in (0, 2):
        assert_pass_preserves(passes.convert_tensor_to_tile_ops(), program, inputs(program, scalar))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_rest_of_the_lowering_pipeline_takes_the_output_and_keeps_its_meaning(name: str) -> None:
    # From ConvertTensorToTileOps on, through memory planning and pipe sync to the synced dialect.
    rest = passes.PassManager(passes.lowering_passes()[4:], start=outlined_dialect)
    assert rest.get_pass_names()[0] == "ConvertTensorToTileOps"
    program = outlined(PROGRAMS[name])
    after = assert_pass_preserves(rest, program, inputs(program, 2))
    assert rest.final_dialect is synced and after is not program


def test_a_tile_level_program_passes_through_as_the_same_object() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "row_softmax.py"
    program = passes.PassManager(passes.front_passes()).run(pl.loads_program(str(example)))
    for p in (passes.outline_hierarchy_scopes(), passes.outline_incore_scopes(), passes.outline_cluster_scopes()):
        program = p(program)
    assert passes.convert_tensor_to_tile_ops()(program) is program


def test_tensor_params_are_loaded_once_at_the_entry() -> None:
    after = passes.convert_tensor_to_tile_ops()(outlined(PROGRAMS["softmax_rows"]))
    stmts = ir.flatten_to_stmts(kernel(after).body)
    loads = [s for s in stmts if isinstance(s, ir.AssignStmt) and s.value.op.name == "tile.load"]
    assert [s.var.name_hint for s in loads] == ["x_tile"] and stmts[0] is loads[0]
    assert loads[0].value.kwargs["target_memory"] is ir.MemorySpace.Vec


def test_matmul_operands_are_loaded_into_mat() -> None:
    after = passes.convert_tensor_to_tile_ops()(outlined(PROGRAMS["matmul_in_at"]))
    text = kernel(after).as_python()
    assert "a_mat: pl.Tile[[64, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat)" in text
    assert "c_tile: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_mat)" in text


def test_a_row_vector_broadcast_of_a_dtype_the_expand_form_refuses_expands_first() -> None:
    # pto-isa's TROWEXPANDADD takes no INT8: the row vector is broadcast, then added elementwise.
    program = outlined("""
        @pl.program
        class Int8RowAdd:
            @pl.function
            def main(self, x: pl.Tensor[[64, 128], pl.INT8], v: pl.Tensor[[64, 1], pl.INT8],
                     out: pl.Out[pl.Tensor[[64, 128], pl.INT8]]) -> pl.Tensor[[64, 128], pl.INT8]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.add(x, v)
                return out
    """)
    text = kernel(passes.convert_tensor_to_tile_ops()(program)).as_python()
    assert "pl.tile.row_expand(x_tile, v_tile)" in text and "row_expand_add" not in text
    rng = np.random.default_rng(3)
    args = [rng.integers(-50, 50, (64, 128)).astype(np.int8), rng.integers(-50, 50, (64, 1)).astype(np.int8),
            np.zeros((64, 128), np.int8)]
    assert_pass_preserves(passes.convert_tensor_to_tile_ops(), program, args)


def test_the_sqrt_of_an_integer_tensor_is_taken_in_fp32() -> None:
    # pto-isa's TSQRT takes FP16/FP32; tensor.sqrt of an integer is FP32.
    program = outlined("""
        @pl.program
        class IntSqrt:
            @pl.function
            def main(self, x: pl.Tensor[[64, 128], pl.INT32],
                     out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.sqrt(x)
                return out
    """)
    text = kernel(passes.convert_tensor_to_tile_ops()(program)).as_python()
    assert "pl.tile.cast(x_tile, target_type=pl.FP32, mode='round')" in text
    assert "pl.tile.sqrt(cast_tile)" in text
    args = [np.random.default_rng(4).integers(0, 1000, (64, 128)).astype(np.int32), np.zeros((64, 128), np.float32)]
    assert_pass_preserves(passes.convert_tensor_to_tile_ops(), program, args)


def test_returned_tiles_become_out_params_that_callers_create() -> None:
    after = passes.convert_tensor_to_tile_ops()(outlined(PROGRAMS["kernel_returns_a_new_tensor"]))
    k = kernel(after)
    assert [p.name_hint for p in k.params] == ["a", "b", "ret0_out", "ret1_out"]
    assert k.param_directions[2:] == [ir.ParamDirection.Out, ir.ParamDirection.Out]
    main = ir.flatten_to_stmts(after.get_function("main").body)
    creates = [s.var.name_hint for s in main if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and s.value.op.name == "tensor.create"]
    assert creates == ["ret0_out", "ret1_out"]


def test_wrappers_forward_new_out_params() -> None:
    after = passes.convert_tensor_to_tile_ops()(outlined(PROGRAMS["cluster_wrapper_forwards_outputs"]))
    (group,) = [f for f in after.functions.values() if f.func_type is ir.FunctionType.Group]
    assert [p.name_hint for p in group.params][-2:] == ["ret0_out", "ret1_out"]
    assert group.param_directions[-2:] == [ir.ParamDirection.Out, ir.ParamDirection.Out]


def test_a_written_in_param_becomes_out_or_inout() -> None:
    program = pl.parse(source("""
        @pl.program
        class Written:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
                z = pl.add(x, y)
                x2 = pl.assemble(x, z, [0, 0])
                y2 = pl.assemble(y, z, [0, 0])
                return x2
    """))
    program = passes.PassManager(passes.front_passes()).run(program)
    after = passes.convert_tensor_to_tile_ops()(program)
    assert after.get_function("k").param_directions == [ir.ParamDirection.InOut, ir.ParamDirection.InOut]


def test_an_in_param_written_through_a_loop_carry_becomes_out() -> None:
    t = "pl.Tensor[[64, 16], pl.FP32]"
    program = pl.parse(source(f"""
        @pl.program
        class Carried:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: {t}, y: {t}) -> {t}:
                for i, (acc,) in pl.range(4, init_values=(y,)):
                    t = x[i * 16 : i * 16 + 16, :]
                    acc2 = pl.assemble(acc, pl.add(t, t), [i * 16, 0])
                    r = pl.yield_(acc2)
                return r
    """))
    program = passes.PassManager(passes.front_passes()).run(program)
    after = passes.convert_tensor_to_tile_ops()(program)
    assert after.get_function("k").param_directions == [ir.ParamDirection.In, ir.ParamDirection.Out]


_ERRORS = {
    "no_lowering": (
        """
        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    y = pl.part_max(x, x)
                    out[:] = y
                return out
        """,
        "ConvertTensorToTileOps: tensor.part_max has no tile lowering, so it cannot run in kernel 'main_incore_0' "
        "at <string>:9:13",
        "compute it in the orchestration, or express it with other tensor ops",
    ),
    "gather_along_rows": (
        """
        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[16, 64], pl.FP32], idx: pl.Tensor[[16, 32], pl.INT32],
                     out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.gather(x, -1, idx)
                return out
        """,
        "ConvertTensorToTileOps: tensor.gather has no tile lowering, so it cannot run in kernel 'main_incore_0' "
        "at <string>:10:22",
        "load the tiles and use pl.tile.gather(src, indices, tmp), whose indices count row-major over the "
        "whole source tile (row r, column c is r * columns + c)",
    ),
    "slice_with_a_non_foldable_bound": (
        """
        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
                     out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = x[n:64, :]
                    out[n:64, :] = pl.exp(t)
                return out
        """,
        "ConvertTensorToTileOps: the slice shape 64 - n is not a constant, but a tile needs a static shape "
        "at <string>:10:17",
        "give the slice bounds a constant difference, e.g. x[i * 32 : i * 32 + 32]; a tail block keeps the static "
        "shape and narrows valid_shape, e.g. pl.slice(x, [32, 64], [i, 0], valid_shape=[rows, 64])",
    ),
    "bulk_store_and_element_write_into_one_tensor": (
        """
        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.exp(x)
                    out[0, 0] = 1.0
                return out
        """,
        "ConvertTensorToTileOps: 'out' is written both by a bulk store and by tensor.write in one kernel; the two "
        "writes are not ordered on the device at <string>:10:13",
        "write the element into the tile before storing it",
    ),
}


@pytest.mark.parametrize("name", sorted(_ERRORS))
def test_error(name: str) -> None:
    text, message, hint = _ERRORS[name]
    program = outlined(text)
    with pytest.raises(PassError) as err:
        passes.convert_tensor_to_tile_ops()(program)
    text, _, where = message.rpartition(" at ")
    lines = str(err.value).splitlines()
    assert (lines[0], lines[1].lstrip(), lines[-1].lstrip()) == (f"{text}", f"--> {where}", f"= hint: {hint}")
