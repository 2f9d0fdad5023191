"""pypto.analysis.roots.returned_params: which parameter each returned value is."""

from __future__ import annotations

import gc
import textwrap
import weakref

import pypto.language as pl
from pypto import ir
from pypto.analysis.roots import WrittenRoots, returned_params, written_roots

SOURCE = """
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[16], pl.FP32]]) -> tuple[
            pl.Tensor[[16], pl.FP32], pl.Tensor[[16], pl.FP32], pl.Tensor[[16], pl.FP32]
        ]:
            t = pl.load(a, [0], [16])
            s = pl.store(t, [0], out)
            return out, s, a
"""


def test_returned_values_map_to_parameters_directly_or_through_a_root() -> None:
    k = pl.parse(textwrap.dedent(SOURCE)).get_function("k")
    assert returned_params(k) == [1, None, 0]
    store = next(s for s in ir.flatten_to_stmts(k.body) if isinstance(s, ir.AssignStmt) and s.var.name_hint == "s")
    assert returned_params(k, lambda v: k.params[1] if v is store.var else v) == [1, 1, 0]


def _function(*stmts: ir.Stmt) -> ir.Function:
    return ir.Function("f", PARAMS, [PARAMS[0].type], ir.SeqStmts(list(stmts)), ir.Span.unknown())


T = ir.TensorType([ir.ConstInt(16, ir.INDEX)], ir.FP32)
PARAMS = [ir.Var("a", T), ir.Var("b", T), ir.Var("c", T)]


def test_the_last_return_outside_loops_and_ifs_counts() -> None:
    # The return is searched from the end of the body: the last one in statement order, through
    # blocks and scopes, never one inside a loop or a branch.
    a, b, c = PARAMS
    i = ir.Var("i", ir.ScalarType(ir.INDEX))
    zero, one = ir.ConstInt(0, ir.INDEX), ir.ConstInt(1, ir.INDEX)
    loop = ir.ForStmt(i, zero, one, one, [], ir.SeqStmts([ir.ReturnStmt([c])]), [])
    branch = ir.IfStmt(ir.Lt(zero, one, ir.BOOL), ir.SeqStmts([ir.ReturnStmt([c])]), None)
    scoped = ir.InCoreScopeStmt(body=ir.SeqStmts([ir.ReturnStmt([b]), ir.EvalStmt(a)]), span=ir.Span.unknown())
    assert returned_params(_function(ir.ReturnStmt([a]), ir.ReturnStmt([b]), loop, branch)) == [1]
    assert returned_params(_function(ir.ReturnStmt([a]), scoped, ir.EvalStmt(c))) == [1]
    assert returned_params(_function(ir.ReturnStmt([a]), ir.SeqStmts([ir.ReturnStmt([c]), ir.EvalStmt(b)]))) == [2]
    assert returned_params(_function(ir.EvalStmt(a), loop, branch)) == []


def test_written_roots_are_kept_for_one_program_object_without_keeping_it_alive() -> None:
    program = pl.parse(textwrap.dedent(SOURCE))
    k = program.get_function("k")
    roots = written_roots(k, program)
    store = next(s for s in ir.flatten_to_stmts(k.body) if isinstance(s, ir.AssignStmt) and s.var.name_hint == "s")
    assert roots.root(store.var) is WrittenRoots(k, program).root(store.var) is k.params[1]
    assert written_roots(k, program) is roots
    other = ir.Program(list(program.functions.values()), program.name)  # the same functions, another program
    assert written_roots(k, other) is not roots
    gone = weakref.ref(program)
    del program, other
    gc.collect()
    assert gone() is None
