"""InlineFunctions: splice Inline functions into their call sites (docs/passes.md#inlinefunctions)."""

from __future__ import annotations

import copy
import itertools

from pypto.analysis import call_graph, expr_calls, find_cycle, function_index, stmt_defs, walk
from pypto.languages.invariants import InlineFunctionsEliminated
from pypto.languages.surface import surface

from pypto.ir.enums import FunctionType
from pypto.ir.expr import Call, ConstBool, ConstFloat, ConstInt, Expr, GlobalVar, MakeTuple, Var
from pypto.ir.function import Function, Program
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, ReturnStmt, Stmt, WhileStmt
from pypto.ir.transforms import copy_binders, flatten_to_stmts

from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import rebuild

_ATOMS = (Var, ConstInt, ConstFloat, ConstBool)


class InlineFunctions(RewritePass):
    """Remove Inline functions by splicing their bodies at each call statement.

    before:  @pl.function(type=pl.FunctionType.Inline)       after:  (sq is gone)
             def sq(self, x):
                 y = pl.mul(x, x)
                 return y
             ...                                              ...
             r = self.sq(a)                                   y_inline0 = pl.mul(a, a)
                                                              r = y_inline0
    """

    source = surface
    target = surface
    produces = frozenset({InlineFunctionsEliminated})

    def run(self, program: Program) -> Program:
        graph = call_graph(program, lambda f: f.func_type is FunctionType.Inline)
        if not graph:
            return program
        cycle = find_cycle(graph)
        if cycle is not None:
            raise self.error("recursive inline functions: " + " -> ".join(cycle), program[cycle[-1]].span)
        run = copy.copy(self)
        run.inline, run.sites = {name: program[name] for name in graph}, itertools.count()
        kept = [f for f in program.functions.values() if f.name not in graph]
        return super(InlineFunctions, run).run(Program(kept, program.name, program.span))

    def callee(self, expr: Expr | None) -> Function | None:
        if isinstance(expr, Call) and isinstance(expr.op, GlobalVar):
            return self.inline.get(expr.op.name)
        return None

    def nested_call(self, func: Function) -> Call | None:
        return next((c for c in function_index(func).of(Call) if self.callee(c) is not None), None)

    def applies(self, func: Function) -> bool:
        return self.nested_call(func) is not None

    def function(self, func: Function) -> Function:
        new = super().function(func)
        left = self.nested_call(new)
        if left is not None:
            raise self.error(
                f"call to inline function '{left.op.name}' inside an expression; assign its result to a variable first",
                left.span,
            )
        return new

    @on(AssignStmt, EvalStmt)
    def _call(self, node: AssignStmt | EvalStmt) -> Result:
        call = node.value if isinstance(node, AssignStmt) else node.expr
        target = self.callee(call)
        return node if target is None else self.block(self.splice(target, call, node))

    def splice(self, f: Function, call: Call, site: AssignStmt | EvalStmt) -> list[Stmt]:
        k = next(self.sites)
        stmts = flatten_to_stmts(f.body)
        stmts = stmts[:-1] if stmts and isinstance(stmts[-1], ReturnStmt) else stmts
        if any(isinstance(n, ReturnStmt) for s in stmts for n in walk(s)):
            raise self.error(f"inline function '{f.name}' returns before its end", f.span)
        local_defs = [v for s in stmts for n in walk(s) if isinstance(n, Stmt) for v in stmt_defs(n)]
        assigned = set(local_defs)
        prefix: list[Stmt] = []
        mapping: dict[Var, Expr] = {}
        if len(f.params) != len(call.args):
            given = f"takes {len(f.params)} arguments, the call gives {len(call.args)}"
            raise self.error(f"inline function '{f.name}' {given}", call.span)
        for param, arg in zip(f.params, call.args):
            if param in assigned or not isinstance(arg, _ATOMS):
                local = Var(f"{param.name_hint}_inline{k}", param.type, arg.span)
                prefix.append(AssignStmt(local, arg, site.span))
                mapping[param] = local
            else:
                mapping[param] = arg
        loops = [n for s in stmts for n in walk(s) if isinstance(n, (ForStmt, WhileStmt))]
        binders = {v for n in loops for v in stmt_defs(n)} - {v for n in loops for v in n.return_vars}
        for v in local_defs:  # loop binders get fresh copies per loop instead
            if v not in mapping and v not in binders:
                mapping[v] = Var(f"{v.name_hint}_inline{k}", v.type, v.span)
        body = flatten_to_stmts(copy_binders(f.body, mapping, lambda v: f"{v.name_hint}_inline{k}"))
        values = list(body.pop().value) if body and isinstance(body[-1], ReturnStmt) else []
        out = prefix + body
        if isinstance(site, EvalStmt):
            return out + [EvalStmt(v, site.span) for v in values if expr_calls(v)]
        value = values[0] if len(values) == 1 else MakeTuple(values, site.span)
        return out + ([rebuild(site, value=value)] if value is not site.var else [])
