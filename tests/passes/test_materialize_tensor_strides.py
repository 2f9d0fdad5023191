"""MaterializeTensorStrides: tensor views get packed canonical strides; the program enters split_core."""

from __future__ import annotations

import pytest
from pass_helpers import before_after
from tile_programs import PROGRAMS, front, inputs

from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages import split_core, tiled
from pypto.passes import PassError
from pypto.passes.materialize_tensor_strides import packed_strides

CHAIN = ("infer_tile_memory_space", "resolve_backend_op_layouts", "expand_mixed_kernel", "inject_gm_pipe_buffer",
         "normalize_return_order", "split_vector_kernel")


def before_strides(name: str) -> ir.Program:
    program = front(name)
    for factory in CHAIN:
        program = getattr(passes, factory)()(program)
    return program


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_snapshot(name: str, snapshot) -> None:
    before = before_strides(name)
    after = assert_pass_preserves(passes.materialize_tensor_strides(), before, inputs(before), entry="main")
    assert after in split_core
    assert before_after("MaterializeTensorStrides", before, after) == snapshot


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_tile_stage_takes_tiled_to_split_core(name: str) -> None:
    stage = ("elide_tensor_carries", "flatten_tile_nd_to_2d", "legalize_tile_cast", "canonicalize_tile_slice", *CHAIN,
             "materialize_tensor_strides")
    manager = passes.PassManager([getattr(passes, f)() for f in stage], start=tiled)
    assert manager.final_dialect is split_core
    program = front(name)
    assert_pass_preserves(manager, program, inputs(program), entry="main")


def test_packed_strides() -> None:
    dims = [ir.ConstInt(4, ir.DataType.INDEX), ir.ConstInt(64, ir.DataType.INDEX), ir.ConstInt(32, ir.DataType.INDEX)]
    assert [s.value for s in packed_strides(dims, ir.TensorLayout.ND)] == [2048, 32, 1]
    assert [s.value for s in packed_strides(dims, ir.TensorLayout.DN)] == [2048, 1, 64]


def test_a_view_without_strides_gets_them_everywhere_it_appears() -> None:
    program = before_strides("tile_add")
    kernel = program.get_function("tile_add")
    a = kernel.params[0]
    dn = ir.TensorType(a.type.shape, a.type.dtype, None, ir.TensorView([], ir.TensorLayout.DN))
    viewed = ir.Var(a.name_hint, dn, a.span)
    load = kernel.body.stmts[0]
    call = ir.op.tile.load(viewed, [0, 0], [128, 128])
    body = ir.SeqStmts([ir.AssignStmt(load.var, call, load.span), *kernel.body.stmts[1:]])
    kernel = ir.replace(kernel, params=[viewed, *kernel.params[1:]], body=body)
    program = ir.Program([kernel, program.get_function("main")], program.name)
    assert program not in split_core
    after = passes.materialize_tensor_strides()(program)
    func = after.get_function("tile_add")
    want = "pl.Tensor[[128, 128], pl.FP32, pl.TensorView(stride=[1, 128], layout=pl.TensorLayout.DN)]"
    assert str(func.params[0].type) == want
    assert func.body.stmts[0].value.args[0] is func.params[0]
    assert after in split_core


def test_a_pipeline_loop_is_an_error() -> None:
    program = before_strides("loop_carry")
    kernel = program.get_function("scale_loop")
    loop = kernel.body.stmts[1]
    piped = ir.replace(loop, kind=ir.ForKind.Pipeline, attrs=ir.replace(loop.attrs, pipeline_stages=2))
    body = ir.SeqStmts([kernel.body.stmts[0], piped, *kernel.body.stmts[2:]])
    program = ir.Program([ir.replace(kernel, body=body), program.get_function("main")], program.name)
    with pytest.raises(PassError, match="pl.pipeline loop in 'scale_loop': software pipelining is not implemented"):
        passes.materialize_tensor_strides()(program)


def test_the_precheck_finds_a_view_without_strides_in_a_nested_tuple_only() -> None:
    kernel = before_strides("tile_add").get_function("tile_add")
    t = kernel.params[0].type
    unstrided = ir.TensorType(t.shape, t.dtype, None, ir.TensorView([], ir.TensorLayout.DN))
    nested = ir.replace(kernel, return_types=[ir.TupleType([kernel.return_types[0], ir.TupleType([unstrided])])])
    pass_ = passes.materialize_tensor_strides()
    assert not pass_.applies(kernel)
    assert pass_.applies(nested)
