"""MaterializeRuntimeScopes: auto runtime scopes around orchestration bodies, loop bodies and branches."""

from __future__ import annotations

import pytest
from pass_helpers import before_after
from runtime_programs import DIRECTIONS, T, inputs, orch, parse
from pypto.languages.invariants import RuntimeScopesMaterialized

from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.ir.errors import VerificationError

SCOPES = {
    "straight_line": DIRECTIONS["internal_tensor_chain"],
    "sequential_loop": DIRECTIONS["inside_sequential_loop"],
    "if_else": DIRECTIONS["branch_does_not_see_other_branch"],
    "nested_loops": DIRECTIONS["parallel_inside_sequential"],
    "manual_scope": orch("""
        with pl.manual_scope():
            for i in pl.range(2):
                out, tid = pl.submit(self.k, a, i * 64, out)
    """),
}

USER_SCOPE = orch("""
    with pl.scope():
        out = self.k(a, 0, out)
""")


def ready(source: str) -> ir.Program:
    return passes.derive_call_directions()(parse(source))


@pytest.mark.parametrize("name", sorted(SCOPES))
def test_snapshot(name: str, snapshot) -> None:
    before = ready(SCOPES[name])
    after = passes.materialize_runtime_scopes()(before)
    assert RuntimeScopesMaterialized.check(after) == []
    assert before_after("MaterializeRuntimeScopes", before, after) == snapshot


@pytest.mark.parametrize("name", sorted(SCOPES))
def test_preserves_results(name: str) -> None:
    program = ready(SCOPES[name])
    assert_pass_preserves(passes.materialize_runtime_scopes(), program, inputs(program))


def kinds(body: ir.Stmt) -> list[str]:
    return [type(x).__name__ for x in (body.stmts if isinstance(body, ir.SeqStmts) else [body])]


def test_trailing_yield_and_return_stay_after_the_scope() -> None:
    main = passes.materialize_runtime_scopes()(ready(SCOPES["if_else"])).get_function("main")
    assert kinds(main.body) == ["RuntimeScopeStmt", "ReturnStmt"]
    branch = main.body.stmts[0].body.stmts[0]
    assert isinstance(branch, ir.IfStmt)
    assert kinds(branch.then_body) == kinds(branch.else_body) == ["RuntimeScopeStmt", "YieldStmt"]
    assert all(not s.manual for s in (main.body.stmts[0], branch.then_body.stmts[0]))


def test_kernels_are_left_alone_and_the_pass_is_idempotent() -> None:
    before = ready(SCOPES["sequential_loop"])
    once = passes.materialize_runtime_scopes()(before)
    assert once.get_function("k") is before.get_function("k")
    assert passes.materialize_runtime_scopes()(once) is once


def test_auto_scope_false_keeps_the_authors_scopes() -> None:
    source = USER_SCOPE.replace(
        "@pl.function(type=pl.FunctionType.Orchestration)", "@pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)"
    )
    before = ready(source)
    assert passes.materialize_runtime_scopes()(before) is before


def test_no_scope_inside_a_manual_scope() -> None:
    """The body already is one (manual) runtime scope, and nothing goes inside it."""
    after = passes.materialize_runtime_scopes()(ready(SCOPES["manual_scope"]))
    scopes = [n for n in ir_walk(after.get_function("main")) if isinstance(n, ir.RuntimeScopeStmt)]
    assert [s.manual for s in scopes] == [True]
    assert after.get_function("main").attrs["auto_scope"] is False


def ir_walk(func: ir.Function) -> list[object]:
    from pypto.analysis import walk

    return list(walk(func.body))


def test_requires_call_directions() -> None:
    with pytest.raises(VerificationError, match="CallDirectionsResolved"):
        passes.materialize_runtime_scopes()(parse(SCOPES["straight_line"]))


def test_keeps_loop_carry_types() -> None:
    after = passes.materialize_runtime_scopes()(ready(SCOPES["sequential_loop"]))
    loop = next(n for n in ir_walk(after.get_function("main")) if isinstance(n, ir.ForStmt))
    assert str(loop.iter_args[0].type) == T
