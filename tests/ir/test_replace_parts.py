"""replace_parts and with_attrs: the unvalidated copy a pass makes from validated parts, its fallback to the
validated replace, and the boundary check refusing a malformed program built through it."""

from __future__ import annotations

import pytest

from pypto import ir, passes
from pypto.ir import op_registry
from pypto.analysis import function_index
from pypto.ir.errors import IRTypeError, VerificationError
from pypto.ir.enums import ArgDirection
from pypto.ir.expr import Call, GlobalVar, Submit, Var
from pypto.ir.node import replace
from pypto.ir.parts import replace_parts, with_attrs
from pypto.ir.stmt import AssignStmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.types import TileType
from pypto.language.parser.text_parser import parse_program
from pypto.languages import memref
from pypto.transform.util import block_of

SRC = '''import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        ta: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        tb: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(ta, ta)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.store(tb, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = self.k(a, out)
        return out
'''


def planned() -> ir.Program:
    """The program in the memref dialect (every tile has a MemRef with an address)."""
    program = passes.PassManager(passes.front_passes()).run(parse_program(SRC))
    for p in (passes.init_memref(), passes.memory_reuse(), passes.allocate_memory_addr()):
        program = p(program)
    return memref.validate(program)


def with_stmt(program: ir.Program, old: AssignStmt, new: AssignStmt) -> ir.Program:
    """``program`` with kernel statement ``old`` replaced by ``new``."""
    func = kernel(program)
    stmts = [new if s is old else s for s in flatten_to_stmts(func.body)]
    funcs = [replace(func, body=block_of(stmts, func.body.span)) if f is func else f
             for f in program.functions.values()]
    return ir.Program(funcs, program.name, program.span)


def kernel(program: ir.Program) -> ir.Function:
    return next(f for f in program.functions.values() if f.func_type == ir.FunctionType.AIV)


def add_stmt(program: ir.Program) -> AssignStmt:
    return next(s for s in flatten_to_stmts(kernel(program).body)
                if isinstance(s, AssignStmt) and isinstance(s.value, Call) and s.value.op.name == "tile.add")


def test_copies_without_validation_and_a_var_copy_is_a_new_variable() -> None:
    stmt = add_stmt(planned())
    var = stmt.var
    copy = replace_parts(var, name_hint="renamed")
    assert type(copy) is Var and copy is not var
    assert copy.name_hint == "renamed" and copy.type is var.type and copy.span is var.span
    assert copy.unique_id != var.unique_id
    call = replace_parts(stmt.value, args=[var, var])
    assert call.args == [var, var] and call.op is stmt.value.op and call.attrs is stmt.value.attrs
    assert ir.structural_equal(replace_parts(stmt, var=copy), AssignStmt(copy, stmt.value, stmt.span))


def test_other_changes_are_validated() -> None:
    call = add_stmt(planned()).value
    with pytest.raises(IRTypeError, match="args"):
        replace_parts(call, args="not a list")  # another class: the validated replace refuses it
    with pytest.raises(IRTypeError, match="kwarg"):
        replace_parts(call, kwargs={"bad": object()})  # not a plain field: the constructor checks it


def test_the_boundary_check_refuses_an_undefined_operand() -> None:
    program = planned()
    stmt = add_stmt(program)
    stray = replace_parts(stmt.value.args[0], name_hint="stray")  # a variable no statement defines
    bad = with_stmt(program, stmt, replace_parts(stmt, value=replace_parts(stmt.value, args=[stray, stray])))
    with pytest.raises(VerificationError, match="'stray' is used before it is defined"):
        memref.validate(bad)


def test_the_boundary_check_refuses_a_tile_without_memref() -> None:
    program = planned()
    stmt = add_stmt(program)
    t = stmt.var.type
    bare = TileType(list(t.shape), t.dtype, None, t.tile_view, t.memory_space)
    bad = with_stmt(program, stmt, replace_parts(stmt, var=replace_parts(stmt.var, type=bare)))
    with pytest.raises(VerificationError, match="tile 'tb' has no MemRef"):
        memref.validate(bad)


def test_a_tile_type_given_a_memref_is_the_one_the_constructor_makes() -> None:
    stmt = add_stmt(planned())
    t, ref = stmt.var.type, stmt.var.type.memref
    bare = TileType(list(t.shape), t.dtype, None, t.tile_view, t.memory_space)
    copy = replace_parts(bare, memref=ref)
    assert type(copy) is TileType and copy.memref is ref and "memref" in copy.model_fields_set
    assert ir.structural_equal(copy, TileType(list(t.shape), t.dtype, ref, t.tile_view, t.memory_space))
    # without a memory space the constructor derives it from the MemRef: the validated replace runs
    derived = replace_parts(TileType(list(t.shape), t.dtype), memref=ref)
    assert derived.memory_space == t.memory_space


def test_a_memref_copy_is_a_new_variable() -> None:
    ref = add_stmt(planned()).var.type.memref
    copy = replace_parts(ref, name_hint="mem_vec_9", size_=64)
    assert type(copy) is type(ref) and copy.unique_id != ref.unique_id
    assert (copy.name_hint, copy.size, copy.base_, copy.type) == ("mem_vec_9", 64, ref.base_, ref.type)
    with pytest.raises(IRTypeError, match="size_"):
        replace_parts(ref, size_="64")  # another class: the validated replace refuses it


def test_with_attrs_is_the_replace_a_constructor_makes() -> None:
    main = next(f for f in planned().functions.values() if f.func_type == ir.FunctionType.Orchestration)
    call = next(c for c in function_index(main).of(Call) if isinstance(c.op, GlobalVar))
    submit = Submit(call.op, list(call.args), [], type=call.type, span=call.span)
    dirs = [ArgDirection.Input, ArgDirection.OutputExisting]
    for node in (call, submit):
        assert "attrs" not in node.model_fields_set
        for given in ({"arg_directions": dirs}, {"arg_directions": dirs, "user_key": 3}):
            made, validated = with_attrs(node, given), replace(node, attrs=given)
            assert type(made) is type(validated) and "attrs" in made.model_fields_set
            assert dict(made.attrs) == dict(validated.attrs) and type(made.attrs) is type(validated.attrs)
            assert ir.structural_equal(made, validated)
            again = {**made.attrs, "arg_directions": dirs[::-1]}
            assert ir.structural_equal(with_attrs(made, again), replace(made, attrs=again))


def test_with_attrs_validates_by_the_model_of_the_calls_op() -> None:
    # A task_dummy call made without attrs holds the default CallAttrs, yet validates its attrs as TaskDummyAttrs.
    dummy = op_registry.create_op_call("system.task_dummy", [], {}, ir.Span.unknown())
    assert type(dummy.attrs) is ir.CallAttrs
    made, validated = with_attrs(dummy, {"dummy_task": True}), replace(dummy, attrs={"dummy_task": True})
    assert type(made.attrs) is type(validated.attrs) is ir.TaskDummyAttrs
    assert ir.structural_equal(made, validated)


LOOP = '''import pypto.language as pl


@pl.program
class L:
    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, a: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        with pl.scope():
            for i, (acc,) in pl.range(4, init_values=(a,)):
                if n > 0:
                    acc2 = pl.add(acc, acc)
                else:
                    acc2 = pl.add(acc, a)
                acc3 = pl.yield_(acc2)
        return acc3
'''


def test_a_loop_if_or_scope_given_a_body_is_the_one_the_constructor_makes() -> None:
    func = next(iter(parse_program(LOOP).functions.values()))
    index = function_index(func)
    (scope,), (loop,), (branch,) = index.of(ir.RuntimeScopeStmt), index.of(ir.ForStmt), index.of(ir.IfStmt)
    for node, name, body in ((scope, "body", loop), (loop, "body", loop.body), (branch, "then_body", branch.else_body),
                             (branch, "else_body", branch.then_body)):
        copy = replace_parts(node, **{name: body})
        assert type(copy) is type(node) and getattr(copy, name) is body
        assert ir.structural_equal(copy, replace(node, **{name: body}))
    # a body of another class (a block for a bare statement, or none) goes through the validated replace
    with pytest.raises(IRTypeError, match="body"):
        replace_parts(loop, body=None)
    assert replace_parts(branch, else_body=None).else_body is None
    made = with_attrs(loop, {"iter_arg_rebind_0": False})
    assert dict(made.attrs) == {"iter_arg_rebind_0": False} and "attrs" in made.model_fields_set
    assert ir.structural_equal(made, replace(loop, attrs={"iter_arg_rebind_0": False}))
