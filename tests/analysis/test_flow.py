"""pypto.analysis.flow: the forward walk's order, loop fixpoint, branch join and block rewriting."""

from __future__ import annotations

import textwrap

import pypto.language as pl
from pypto import ir
from pypto.analysis import expr_vars, stmt_defs
from pypto.analysis.flow import ForwardWalk

SOURCE = """
    @pl.program
    class P:
        @pl.function
        def main(self, n: pl.Scalar[pl.INDEX], x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            a: pl.Scalar[pl.INDEX] = x + 1
            for i, (u, v) in pl.range(n, init_values=(x, a)):
                if i < 2:
                    c: pl.Scalar[pl.INDEX] = v + 1
                    d: pl.Scalar[pl.INDEX] = pl.yield_(c)
                else:
                    d: pl.Scalar[pl.INDEX] = pl.yield_(u)
                u2, v2 = pl.yield_(d, x)
            with pl.at(level=pl.Level.CORE_GROUP):
                w: pl.Scalar[pl.INDEX] = u2 + v2
            return w
"""


def _main() -> ir.Function:
    return pl.parse(textwrap.dedent(SOURCE)).get_function("main")


def _loop() -> ir.ForStmt:
    return next(s for s in ir.flatten_to_stmts(_main().body) if isinstance(s, ir.ForStmt))


def _name(s: ir.Stmt) -> str:
    return type(s).__name__ + "".join(f" {v.name_hint}" for v in stmt_defs(s) if not isinstance(s, ir.ForStmt))


class _Trace(ForwardWalk[None]):
    def __init__(self) -> None:
        self.events: list[str] = []

    def leaf(self, s: ir.Stmt, state: None) -> None:
        self.events.append(_name(s))

    def enter_loop(self, s: ir.ForStmt | ir.WhileStmt, state: None) -> None:
        self.events.append("enter loop")

    def exit_loop(self, s: ir.ForStmt | ir.WhileStmt, before: None, end: None) -> None:
        self.events.append("exit loop")

    def enter_branch(self, s: ir.IfStmt, state: None) -> None:
        self.events.append("enter if")

    def join(self, s: ir.IfStmt, before: None, then_end: None, else_end: None) -> None:
        self.events.append("join")

    def enter_scope(self, s: ir.ScopeStmt, state: None) -> None:
        self.events.append("enter scope")

    def exit_scope(self, s: ir.ScopeStmt, before: None, end: None) -> None:
        self.events.append("exit scope")


def test_statements_come_in_program_order_with_one_pass_per_loop_by_default() -> None:
    trace = _Trace()
    trace.block(_main().body, None)
    assert trace.events == [
        "AssignStmt a", "enter loop", "enter if", "AssignStmt c", "YieldStmt", "YieldStmt", "join",
        "YieldStmt", "exit loop", "enter scope", "AssignStmt w", "exit scope", "ReturnStmt",
    ]


def test_an_unchanged_walk_returns_the_same_body() -> None:
    main = _main()
    body, _ = _Trace().block(main.body, None)
    assert body is main.body


class _Derived(ForwardWalk[frozenset[str]]):
    """Names whose value may derive from ``x`` (may-analysis: union at joins, loops to a fixpoint)."""

    loop_passes = None

    def __init__(self) -> None:
        self.walks = 0

    def enter_block(self, state: frozenset[str]) -> frozenset[str]:
        self.walks += 1
        return state

    def _flow(self, state: frozenset[str], targets: list[ir.Var], values: list[ir.Expr]) -> frozenset[str]:
        new = {t.name_hint for t, e in zip(targets, values) if any(v.name_hint in state for v in expr_vars(e))}
        return state | new

    def leaf(self, s: ir.Stmt, state: frozenset[str]) -> frozenset[str]:
        if isinstance(s, ir.AssignStmt):
            return self._flow(state, [s.var], [s.value])
        return state

    def enter_loop(self, s: ir.ForStmt | ir.WhileStmt, state: frozenset[str]) -> frozenset[str]:
        return self._flow(state, list(s.iter_args), [ia.initValue for ia in s.iter_args])

    def back_edge(self, s: ir.ForStmt | ir.WhileStmt, head: frozenset[str], end: frozenset[str]) -> frozenset[str]:
        last = ir.flatten_to_stmts(s.body)[-1]
        assert isinstance(last, ir.YieldStmt)
        return head | end | self._flow(end, list(s.iter_args), list(last.value))

    def exit_loop(self, s: ir.ForStmt | ir.WhileStmt, before: frozenset[str], end: frozenset[str]) -> frozenset[str]:
        last = ir.flatten_to_stmts(s.body)[-1]
        assert isinstance(last, ir.YieldStmt)
        return end | self._flow(end, list(s.return_vars), list(last.value))

    def join(self, s: ir.IfStmt, before: frozenset[str], then_end: frozenset[str],
             else_end: frozenset[str]) -> frozenset[str]:
        out = then_end | else_end
        for body in (s.then_body, s.else_body):
            last = ir.flatten_to_stmts(body)[-1]
            assert isinstance(last, ir.YieldStmt)
            out = self._flow(out, list(s.return_vars), list(last.value))
        return out


def test_a_loop_is_walked_until_its_head_state_is_stable() -> None:
    # n is not derived from x; u starts as x (derived), v as a = x + 1 (derived): everything in the
    # loop derives from x after one pass; the second pass confirms it.
    walk = _Derived()
    _, derived = walk.block(_main().body, frozenset({"x"}))
    assert derived == frozenset({"x", "a", "u", "v", "c", "d", "u2", "v2", "w"})
    assert walk.walks == 1 + 2 * 3 + 1  # the body; two passes over the loop body and both branches; the scope


def test_the_fixpoint_carries_facts_around_the_back_edge() -> None:
    # Only v's init derives from n; u picks it up through d in a later iteration (c = v + 1, d = c, u <- d).
    walk = _Derived()
    _, derived = walk.block(_main().body, frozenset({"n"}))
    assert derived == frozenset({"n"})  # a = x + 1 and the inits do not read n
    walk = _Derived()
    loop = _loop()
    _, derived = walk.block(loop, frozenset({"a"}))
    assert {"v", "c", "d", "u", "u2"} <= derived
    assert "v2" not in derived  # v2 takes x


def test_one_pass_misses_what_the_back_edge_brings() -> None:
    class Once(_Derived):
        loop_passes = 1

    loop = _loop()
    _, derived = Once().block(loop, frozenset({"a"}))
    assert "u" not in derived and "c" in derived


class _Defined(ForwardWalk[frozenset[str]]):
    """Names surely defined (must-analysis: intersection at the join)."""

    def leaf(self, s: ir.Stmt, state: frozenset[str]) -> frozenset[str]:
        return state | {v.name_hint for v in stmt_defs(s)}

    def join(self, s: ir.IfStmt, before: frozenset[str], then_end: frozenset[str],
             else_end: frozenset[str]) -> frozenset[str]:
        return (then_end & else_end) | {v.name_hint for v in s.return_vars}


def test_a_branch_join_merges_the_ends_of_both_branches() -> None:
    loop = _loop()
    branch = next(s for s in ir.flatten_to_stmts(loop.body) if isinstance(s, ir.IfStmt))
    _, defined = _Defined().block(branch, frozenset())
    assert defined == frozenset({"d"})  # c only on the then path


class _MarkBlocks(ForwardWalk[None]):
    """Rewrites every block: a ``system.bar_all()`` first."""

    def exit_block(self, body: ir.Stmt, stmts: list[ir.Stmt], state: None) -> ir.Stmt:
        mark = ir.EvalStmt(ir.create_op_call("system.bar_all", [], {}, body.span), body.span)
        return ir.SeqStmts([mark, *stmts], body.span)


def test_rewritten_blocks_are_rebuilt_into_their_statements() -> None:
    body, _ = _MarkBlocks().block(_main().body, None)
    text = ir.Function("main", [], [], body, body.span).as_python()
    assert text.count("pl.system.bar_all()") == 5  # the body, the loop body, then, else, the scope
    lines = [line.strip() for line in text.splitlines()]
    for i, line in enumerate(lines):
        if line.endswith(":") and not line.startswith("def "):
            assert lines[i + 1] == "pl.system.bar_all()", line
