"""The flat-function scan that UseAfterDef and SSAForm share (read off the node index) gives the
verdicts of their full checkers: self-uses, uses in evaluations and returns, later definitions,
re-definitions (also after a failed use), valid-shape reads."""

from __future__ import annotations

import pytest
from inv_helpers import INDEX
from pypto.languages.invariants import SSAForm, UseAfterDef, ssa
from pypto.languages.invariants.base import clear_caches

from pypto import ir
from pypto.analysis import view_vars

P, X, Y, Z = (ir.Var(name, INDEX) for name in "pxyz")


def _call(*args: ir.Expr, result: ir.Type = INDEX) -> ir.Call:
    return ir.Call(ir.GlobalVar("g"), list(args), result)


def _tile(valid: ir.Expr) -> ir.TileType:
    return ir.TileType([16, 16], ir.DataType.FP32, tile_view=ir.TileView(valid_shape=[valid, 16]))


T_Y, T_P = ir.Var("ty", _tile(Y)), ir.Var("tp", _tile(P))


def _func(*stmts: ir.Stmt, params: tuple[ir.Var, ...] = (P,)) -> ir.Function:
    body = stmts[0] if len(stmts) == 1 else ir.SeqStmts(list(stmts))
    return ir.Function("f", list(params), [INDEX], body)


_CASES = {
    "defined": (_func(ir.AssignStmt(X, _call(P)), ir.ReturnStmt([X])), (True, True)),
    "self use": (_func(ir.AssignStmt(X, _call(X)), ir.ReturnStmt([X])), (False, True)),
    "later definition": (
        _func(ir.AssignStmt(X, _call(Y)), ir.AssignStmt(Y, _call(P)), ir.ReturnStmt([X])), (False, True)),
    "later definition, a variable value": (
        _func(ir.AssignStmt(X, Y), ir.AssignStmt(Y, P), ir.ReturnStmt([X])), (False, True)),
    "later definition, nested": (
        _func(ir.AssignStmt(X, _call(_call(_call(Y)))), ir.AssignStmt(Y, P), ir.ReturnStmt([X])), (False, True)),
    "redefinition": (
        _func(ir.AssignStmt(X, _call(P)), ir.AssignStmt(X, _call(X)), ir.ReturnStmt([X])), (True, False)),
    "undefined use, then a redefinition": (
        _func(ir.AssignStmt(X, _call(Z)), ir.AssignStmt(X, _call(P)), ir.ReturnStmt([X])), (False, False)),
    "return of a later-defined variable": (
        _func(ir.AssignStmt(X, _call(P)), ir.ReturnStmt([Y]), ir.AssignStmt(Y, P)), (False, True)),
    "parameter redefined": (_func(ir.AssignStmt(P, _call(P)), ir.ReturnStmt([P])), (True, False)),
    "parameter twice": (_func(ir.ReturnStmt([P]), params=(P, P)), (True, False)),
    "evaluation of an undefined": (_func(ir.EvalStmt(_call(Z)), ir.ReturnStmt([P])), (False, True)),
    "one statement": (_func(ir.ReturnStmt([Z])), (False, True)),
    "empty": (_func(), (True, True)),
    "valid shape defined later": (
        _func(ir.AssignStmt(T_Y, _call(P, result=T_Y.type)), ir.AssignStmt(Y, P), ir.ReturnStmt([P])),
        (False, True)),
    "valid shape defined before": (
        _func(ir.AssignStmt(Y, P), ir.AssignStmt(T_Y, _call(P, result=T_Y.type)), ir.ReturnStmt([P])),
        (True, True)),
    "valid shape of a parameter": (_func(ir.AssignStmt(T_P, _call(P, result=T_P.type)), ir.ReturnStmt([P])),
                                   (True, True)),
    # The scan counts the variable nodes not ready where they stand: one per variable an assignment
    # defines first, so an extra one is a failed use, also beside re-definitions and parameters.
    "self use, then a redefinition": (
        _func(ir.AssignStmt(X, _call(X)), ir.AssignStmt(X, _call(P)), ir.ReturnStmt([X])), (False, False)),
    "use before a definition, among defined uses": (
        _func(ir.AssignStmt(X, _call(P, P)), ir.AssignStmt(Y, _call(Z, X)), ir.AssignStmt(Z, _call(Y)),
              ir.ReturnStmt([Z])), (False, True)),
    "parameter redefined, then a later definition used": (
        _func(ir.AssignStmt(P, _call(Y)), ir.AssignStmt(Y, _call(P)), ir.ReturnStmt([Y])), (False, False)),
    "many definitions and uses": (
        _func(ir.AssignStmt(X, _call(P)), ir.AssignStmt(Y, _call(X, P)), ir.AssignStmt(Z, _call(Y, X)),
              ir.EvalStmt(_call(Z, Y, X, P)), ir.ReturnStmt([Z, P])), (True, True)),
}


@pytest.mark.parametrize("name", sorted(_CASES))
def test_the_flat_scan_agrees_with_the_full_checkers(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    func, verdict = _CASES[name]
    program = ir.Program([func], "p")
    assert ssa._scan(func) == verdict
    monkeypatch.setattr(ssa, "_flat_scan", lambda f: None)
    clear_caches()
    assert (not UseAfterDef.check(program), not SSAForm.check(program)) == verdict


def test_a_nested_block_is_not_flat() -> None:
    assert ssa._scan(_func(ir.SeqStmts([ir.AssignStmt(X, _call(P))]), ir.ReturnStmt([X]))) is None


def test_a_loop_after_flat_functions_of_the_same_other_classes_is_not_flat() -> None:
    """Whether a set of node classes is flat is remembered per set: a function that adds a loop to
    the classes of a flat one is a new set, walked by the full checkers (its later use is reported)."""
    flat = _func(ir.AssignStmt(X, _call(P)), ir.ReturnStmt([X]))
    assert ssa._scan(flat) == (True, True)
    loop = ir.ForStmt(Y, 0, 4, 1, [], ir.SeqStmts([ir.AssignStmt(Z, _call(X))]), [])
    looped = _func(ir.AssignStmt(X, _call(P)), loop, ir.ReturnStmt([X]))
    assert ssa._scan(looped) is None
    late = _func(loop, ir.AssignStmt(X, _call(P)), ir.ReturnStmt([X]))
    assert [v.code for v in UseAfterDef.check(ir.Program([late], "p"))] == ["401"]


def test_view_vars_of_static_and_dynamic_views() -> None:
    """A view of constant extents reads no variable; one with a variable extent reads it."""
    static = ir.TileType([16, 16], ir.DataType.FP32, tile_view=ir.TileView(valid_shape=[8, 16]))
    assert view_vars(static) == ()
    assert view_vars(_tile(Y)) == (Y,)
    assert view_vars(ir.TupleType([static, _tile(P)])) == (P,)
