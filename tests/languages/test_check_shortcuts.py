"""The checkers' shortcuts (a flat-function scan, ``holds_if`` conditions, rule pre-filters) change
no verdict: every invariant reports the same violations with them as without them."""

from __future__ import annotations

from pathlib import Path

import pytest
from inv_helpers import INDEX, prog, single
from pypto.languages.invariants import ALL, calls, grammar, ssa
from pypto.languages.invariants.base import clear_caches

from pypto import ir, passes
from test_call_invariants import READ_AFTER

_SPAN = ir.Span.unknown()
_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_TILE = "pl.Tile[[64, 64], pl.FP32]"
_TENSOR = "pl.Tensor[[64, 64], pl.FP32]"


def _flat(*stmts: ir.Stmt) -> ir.Stmt:
    return ir.SeqStmts(list(stmts), _SPAN)


def _malformed() -> list[ir.Program]:
    """Flat functions that break the properties the shortcuts are about."""
    x, x2, ghost, n, n2 = (ir.Var(name, INDEX) for name in ("x", "x", "ghost", "n", "n"))
    kernel = f"""
        @pl.program
        class K:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {_TENSOR}, out: pl.Out[{_TENSOR}]) -> {_TENSOR}:
                t: {_TILE} = pl.load(a, [0, 0], [64, 64])
                u: {_TILE} = BODY
                r: {_TENSOR} = pl.store(u, [0, 0], out)
                return r
        """
    return [
        single("ghost", [], _flat(ir.AssignStmt(x, ghost, _SPAN), ir.ReturnStmt([x], _SPAN)), [INDEX]),
        single("twice", [n], _flat(ir.AssignStmt(x, n, _SPAN), ir.AssignStmt(x, x, _SPAN), ir.ReturnStmt([x]))),
        single("shadow", [n], _flat(ir.AssignStmt(x, n, _SPAN), ir.AssignStmt(x2, x, _SPAN), ir.ReturnStmt([x2]))),
        single("params", [n, n2], _flat(ir.AssignStmt(x, n2, _SPAN), ir.ReturnStmt([x], _SPAN)), [INDEX]),
        single("use_then_def", [], _flat(ir.AssignStmt(x, ir.Add(x, ir.ConstInt(1, ir.INDEX, _SPAN), ir.INDEX, _SPAN), _SPAN), ir.ReturnStmt([x]))),
        single("nested_seq", [n], _flat(_flat(ir.AssignStmt(x, n, _SPAN)), ir.ReturnStmt([x], _SPAN)), [INDEX]),
        single("one_child", [n], _flat(ir.ReturnStmt([n], _SPAN)), [INDEX]),
        single("yield_first", [n], _flat(ir.YieldStmt([n], _SPAN), ir.ReturnStmt([n], _SPAN)), [INDEX]),
        single("eval", [n], _flat(ir.EvalStmt(ghost, _SPAN), ir.ReturnStmt([n], _SPAN)), [INDEX]),
        prog(kernel.replace("BODY", "pl.add(pl.exp(t), t)")),
        prog(kernel.replace("BODY", "pl.exp(t)").replace("return r", "return pl.store(u, [0, 0], out)")),
        prog(READ_AFTER),
    ]


def _dynamic_dim() -> ir.Program:
    """A flat function reading a dimension variable of its parameter's type: defined at entry."""
    x, dim = ir.Var("x", INDEX), ir.Var("d", INDEX)
    param = ir.Var("t", ir.TensorType([dim, 4], ir.FP32))
    return single("dynamic", [param], _flat(ir.AssignStmt(x, dim, _SPAN), ir.ReturnStmt([x], _SPAN)), [INDEX])


def _corpus() -> list[ir.Program]:
    import pypto.language as pl

    sources = [pl.parse(path.read_text()) for path in sorted(_EXAMPLES.glob("*.py"))]
    lowered = [passes.PassManager(passes.front_passes(), verify=False).run(p) for p in sources]
    return sources + lowered + [_dynamic_dim()] + _malformed()


def _findings(program: ir.Program) -> list[tuple]:
    clear_caches()
    out = []
    for inv in sorted(ALL.values(), key=lambda i: i.name):
        out += [(v.rule, v.code, v.message, id(v.node), v.span, v.function) for v in inv.check(program)]
    return out


def test_shortcuts_change_no_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = _corpus()
    fast = [_findings(p) for p in corpus]
    monkeypatch.setattr(ssa, "_flat_scan", lambda func: None)
    monkeypatch.setattr(calls, "calls_functions", lambda func: True)
    monkeypatch.setattr(grammar, "_active", lambda rules, func, classes: rules)
    for inv in ALL.values():
        monkeypatch.setattr(inv, "holds_if", None)
    slow = [_findings(p) for p in corpus]
    assert fast == slow
    # The malformed programs do break something, so the comparison covers the full checkers' texts.
    assert all(found for found in fast[-len(_malformed()) :])
