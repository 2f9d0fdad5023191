"""InlineFunctions: splice Inline functions into their call sites (spec/passes.md §4.1)."""

from __future__ import annotations

import itertools

from pypto.languages.invariants import InlineFunctionsEliminated
from pypto.languages.invariants.walk import block, expr_calls, function_index, stmt_defs, walk
from pypto.languages.surface import surface

from pypto.ir.enums import FunctionType
from pypto.ir.expr import Call, ConstBool, ConstFloat, ConstInt, Expr, GlobalVar, MakeTuple, Var
from pypto.ir.function import Function, Program
from pypto.ir.node import IRNode
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, ReturnStmt, SeqStmts, Stmt, WhileStmt

from .base import ProgramPass, Rewriter
from .errors import PassError
from .util import Substitute, block_of, flat, reblock, rebuild

NAME = "InlineFunctions"
_ATOMS = (Var, ConstInt, ConstFloat, ConstBool)


def _inline_callee(expr: Expr, inline: dict[str, Function]) -> Function | None:
    if isinstance(expr, Call) and isinstance(expr.op, GlobalVar):
        return inline.get(expr.op.name)
    return None


def _check_recursion(inline: dict[str, Function]) -> None:
    """Raise naming a cycle of inline functions that call each other."""
    calls = {
        name: sorted({c.op.name for c in function_index(f).of(Call) if _inline_callee(c, inline)})
        for name, f in inline.items()
    }
    state: dict[str, int] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for nxt in calls[name]:
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt) :] + [name, nxt] if nxt in path else [name, nxt]
                raise PassError(NAME, "recursive inline functions: " + " -> ".join(cycle), inline[nxt].span)
            if nxt not in state:
                visit(nxt, path + [name])
        state[name] = 2

    for name in sorted(inline):
        if name not in state:
            visit(name, [])


class _Splicer:
    """Expands the inline calls of one function (statement-level calls only)."""

    rewrite = Rewriter(NAME)

    def __init__(self, inline: dict[str, Function], counter: itertools.count) -> None:
        self.inline = inline
        self.counter = counter

    @rewrite.register(SeqStmts)
    def _seq(self, node: SeqStmts) -> Stmt:
        out: list[Stmt] = []
        for s in node.stmts:
            out.extend(self.expand(s))
        return reblock(node, out)

    @rewrite.register(AssignStmt, EvalStmt)
    def _single(self, node: Stmt) -> Stmt:
        out = self.expand(node)
        return block_of(out, node.span)

    def expand(self, s: Stmt) -> list[Stmt]:
        value = s.value if isinstance(s, AssignStmt) else s.expr if isinstance(s, EvalStmt) else None
        target = _inline_callee(value, self.inline) if value is not None else None
        if target is None:
            return [self.rewrite.children(s)] if not isinstance(s, (AssignStmt, EvalStmt)) else [s]
        lhs = s.var if isinstance(s, AssignStmt) else None
        spliced = self.splice(target, value, lhs, s)
        return [x for item in spliced for x in self.expand(item)]

    def splice(self, f: Function, call: Call, lhs: Var | None, site: Stmt) -> list[Stmt]:
        k = next(self.counter)
        stmts = flat(block(f.body))
        if not stmts or not isinstance(stmts[-1], ReturnStmt):
            results: list[Expr] = []
        else:
            results = list(stmts[-1].value)
            stmts = stmts[:-1]
        if any(isinstance(n, ReturnStmt) for s in stmts for n in walk(s)):
            raise PassError(NAME, f"inline function '{f.name}' returns before its end", f.span)
        local_defs = [v for s in stmts for n in walk(s) if isinstance(n, Stmt) for v in stmt_defs(n)]
        assigned = set(local_defs)
        prefix: list[Stmt] = []
        mapping: dict[Var, Expr] = {}
        for param, arg in zip(f.params, call.args):
            if param in assigned or not isinstance(arg, _ATOMS):
                local = Var(f"{param.name_hint}_inline{k}", param.type, arg.span)
                prefix.append(AssignStmt(local, arg, site.span))
                mapping[param] = local
            else:
                mapping[param] = arg
        binders = {
            v
            for s in stmts
            for n in walk(s)
            if isinstance(n, (ForStmt, WhileStmt))
            for v in ([n.loop_var] if isinstance(n, ForStmt) else []) + list(n.iter_args)
        }
        for v in local_defs:
            if v not in mapping and v not in binders:
                mapping[v] = Var(f"{v.name_hint}_inline{k}", v.type, v.span)
        sub = Substitute(mapping, fresh=lambda v: f"{v.name_hint}_inline{k}")
        body = [sub(s) for s in stmts]
        values = [sub(e) for e in results]
        out = prefix + body
        if lhs is not None:
            value = values[0] if len(values) == 1 else MakeTuple(values, site.span)
            if value is not lhs:
                out.append(
                    rebuild(site, value=value) if isinstance(site, AssignStmt) else AssignStmt(lhs, value, site.span)
                )
        else:
            out += [EvalStmt(v, site.span) for v in values if expr_calls(v)]
        return out


def _nested_inline_call(func: Function, inline: dict[str, Function]) -> IRNode | None:
    """A call to an inline function left inside an expression, if any."""
    for c in function_index(func).of(Call):
        if _inline_callee(c, inline) is not None:
            return c
    return None


class InlineFunctions(ProgramPass):
    """Remove Inline functions by splicing their bodies at each call statement.

    before:  @pl.function(type=pl.FunctionType.Inline)       after:  (sq is gone)
             def sq(self, x):
                 y = pl.mul(x, x)
                 return y
             ...                                              ...
             r = self.sq(a)                                   y_inline0 = pl.mul(a, a)
                                                              r = y_inline0
    """

    name = NAME
    source = surface
    target = surface
    produces = frozenset({InlineFunctionsEliminated})

    def run(self, program: Program) -> Program:
        inline = {f.name: f for f in program.functions.values() if f.func_type is FunctionType.Inline}
        if not inline:
            return program
        _check_recursion(inline)
        counter = itertools.count()
        funcs = []
        for f in program.functions.values():
            if f.name in inline:
                continue
            if _nested_inline_call(f, inline) is not None:
                f = rebuild(f, body=_Splicer(inline, counter).rewrite(f.body))
                left = _nested_inline_call(f, inline)
                if left is not None:
                    raise PassError(
                        NAME,
                        f"call to inline function '{left.op.name}' inside an expression; assign its result "
                        "to a variable first",
                        left.span,
                    )
            funcs.append(f)
        return Program(funcs, program.name, program.span)


def inline_functions() -> InlineFunctions:
    """The InlineFunctions pass."""
    return InlineFunctions()
