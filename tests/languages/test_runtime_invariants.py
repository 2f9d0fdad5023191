"""RuntimeScopesMaterialized and IterArgCarryClassified."""

from __future__ import annotations

from inv_helpers import INDEX, found, single
from pypto.languages.invariants import IterArgCarryClassified, RuntimeScopesMaterialized

from pypto import ir

_SPAN = ir.Span.unknown()
_FT = ir.FunctionType


def _loop(attrs: dict) -> tuple[ir.Var, ir.Stmt]:
    n = ir.Var("n", INDEX)
    carry = ir.IterArg("acc", INDEX, n)
    rv = ir.Var("rv", INDEX)
    loop = ir.ForStmt(
        ir.Var("i", INDEX), 0, 4, 1, [carry], ir.YieldStmt([carry]), [rv], _SPAN, ir.ForKind.Sequential, attrs
    )
    return n, ir.SeqStmts([loop, ir.ReturnStmt([rv])], _SPAN)


def test_runtime_scopes_materialized() -> None:
    n, body = _loop({})
    auto = single("main", [n], body, [INDEX], func_type=_FT.Orchestration)
    assert found(RuntimeScopesMaterialized, auto) == [
        ("AUTO_SCOPE", "Orchestration function still has auto_scope=True", "function main"),
    ]
    explicit = ir.Program([ir.replace(auto.get_function("main"), attrs={"auto_scope": False})], "P", _SPAN)
    assert found(RuntimeScopesMaterialized, explicit) == []
    assert found(RuntimeScopesMaterialized, single("main", [n], body, [INDEX])) == []


def test_iter_arg_carry_classified() -> None:
    n, body = _loop({})
    program = single("main", [n], body, [INDEX], func_type=_FT.Orchestration)
    assert [(c, m) for c, m, _ in found(IterArgCarryClassified, program)] == [
        ("UNCLASSIFIED_CARRY", "loop carry slots [0] have no iter_arg_rebind_<i>"),
    ]
    n, classified = _loop({"iter_arg_rebind_0": False})
    assert found(IterArgCarryClassified, single("main", [n], classified, [INDEX], func_type=_FT.Orchestration)) == []
