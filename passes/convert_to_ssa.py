"""ConvertToSSA: give every variable exactly one definition (spec/passes.md §4.4).

In the surface dialect a variable is a Var object that may be assigned many times. This pass walks
each function in order with an environment mapping every such variable to its current SSA value:

* a variable defined more than once (or sharing its name with another) gets a version per
  definition, ``x__ssa_vN``; a variable defined once keeps its object and name;
* an ``if`` whose branches change variables read later gets phi return vars ``x__phi_vN``, each
  branch ending in a yield (an ``else`` is created when needed); a variable assigned in only one
  branch and read afterwards is an error;
* a loop whose body changes variables that the next iteration or the code after the loop reads
  carries them as iter_args ``x__iter_vN`` (init: the value before the loop), the body yields the
  new value, and later code reads the return var ``x__rv_vN``. A variable first assigned in the
  loop gets the matching ``Out``/``InOut`` parameter (same type) as init, or is an error;
* loops already in SSA form (iter_args and yields written by the user) keep their carries and gain
  any extra ones; pre-SSA loops with iter_args but no yield get the yield and return vars.

Scopes are transparent. A non-kernel loop that jumps (break/continue) and assigns variables is
first restructured as CtrlFlowTransform does for kernels. Versions of one variable share a counter::

    before:  acc = 0                       after:  acc__ssa_v0 = 0
             for i in pl.range(4):                 for i, (acc__iter_v1,) in pl.range(4, init_values=(acc__ssa_v0,)):
                 acc = acc + i                         acc__ssa_v2 = acc__iter_v1 + i
                                                       acc__rv_v3 = pl.yield_(acc__ssa_v2)
"""

from __future__ import annotations

import itertools

from pypto.languages.invariants import NormalizedStmtStructure, SSAForm
from pypto.languages.invariants.walk import base_name, block, expr_vars, function_index, stmt_defs, walk
from pypto.languages.ssa import ssa
from pypto.languages.surface import surface

from pypto.ir.enums import ParamDirection
from pypto.ir.expr import Expr, IterArg, Var
from pypto.ir.function import Function, Program
from pypto.ir.stmt import (
    AssignStmt,
    BreakStmt,
    ContinueStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)

from .base import FunctionPass, Rewriter
from .ctrl_flow_transform import jumps, structure_loop
from .errors import PassError
from .liveness import Liveness
from .util import block_of, flat, keep_list, rebuild, same_list

NAME = "ConvertToSSA"



def _with_yield(stmts: list[Stmt], values: list[Expr], span: object) -> list[Stmt]:
    """``stmts`` ending in a yield of its old values (if any) followed by ``values``."""
    if stmts and isinstance(stmts[-1], YieldStmt):
        last = stmts[-1]
        return stmts[:-1] + [YieldStmt(list(last.value) + values, last.span)]
    return stmts + [YieldStmt(values, span)]


class _Jumps:
    """Restructure non-kernel loops that jump and assign, before SSA construction."""

    rewrite = Rewriter(NAME + ".jumps")

    def __init__(self, live: Liveness) -> None:
        self.live = live
        self.names = itertools.count()

    @rewrite.register(ForStmt, WhileStmt)
    def _loop(self, node: ForStmt | WhileStmt) -> Stmt:
        node = self.rewrite.children(node)
        body = flat(block(node.body))
        if not any(jumps(s, (BreakStmt, ContinueStmt)) for s in body) or not self.live.modified(node.body):
            return node
        out = structure_loop(node, self.names)
        return out[0] if len(out) == 1 else SeqStmts(out, node.span)


class _Builder:
    rename = Rewriter(NAME + ".rename")

    def __init__(self, func: Function, body: Stmt, live: Liveness) -> None:
        self.func = func
        self.source = body
        self.live = live
        self.env: dict[Var, Expr] = {p: p for p in func.params}
        self.counters: dict[str, int] = {}
        self.count: dict[Var, int] = {p: 1 for p in func.params}
        self.names: dict[str, set[Var]] = {}
        self.order: dict[Var, int] = {}
        for var in self._all_defs(body):
            self.count[var] = self.count.get(var, 0) + 1
        for var in list(func.params) + list(self.count):
            self.names.setdefault(var.name_hint, set()).add(var)
            self.order.setdefault(var, len(self.order))

    @staticmethod
    def _all_defs(body: Stmt) -> list[Var]:
        return [v for n in walk(body) if isinstance(n, Stmt) for v in stmt_defs(n)]

    @rename.register(Var)
    def _use(self, node: Var) -> Expr:
        return self.env.get(node, node)

    def keeps(self, var: Var) -> bool:
        return self.count.get(var, 0) <= 1 and len(self.names.get(var.name_hint, ())) <= 1

    def version(self, var: Var, kind: str) -> str:
        base = base_name(var.name_hint)
        n = self.counters.get(base, 0)
        self.counters[base] = n + 1
        return f"{base}__{kind}_v{n}"

    def define(self, var: Var) -> Var:
        if self.keeps(var):
            return var
        return Var(self.version(var, "ssa"), var.type, var.span)

    def sorted(self, vars_: frozenset[Var] | set[Var]) -> list[Var]:
        return sorted(vars_, key=lambda v: self.order.get(v, len(self.order)))

    def run(self) -> Function:
        body = self.source
        old = block(body)
        stmts = self.block(old, frozenset())
        if body is self.func.body and same_list(stmts, old):
            return self.func
        return rebuild(self.func, body=block_of(stmts, self.func.body.span))

    def block(self, stmts: list[Stmt], live_out: frozenset[Var]) -> list[Stmt]:
        out: list[Stmt] = []
        for s, after in zip(stmts, self.live.live_after(stmts, live_out)):
            out.extend(self.stmt(s, after))
        return out

    def body(self, original: Stmt, stmts: list[Stmt]) -> Stmt:
        return original if same_list(stmts, block(original)) else block_of(stmts, original.span)

    def stmt(self, s: Stmt, after: frozenset[Var]) -> list[Stmt]:
        if isinstance(s, SeqStmts):
            return self.block(list(s.stmts), after)
        if isinstance(s, AssignStmt):
            value = self.rename(s.value)
            var = self.define(s.var)
            self.env[s.var] = var
            return [rebuild(s, var=var, value=value)]
        if isinstance(s, EvalStmt):
            return [rebuild(s, expr=self.rename(s.expr))]
        if isinstance(s, (ReturnStmt, YieldStmt)):
            return [rebuild(s, value=keep_list([self.rename(v) for v in s.value], s.value))]
        if isinstance(s, ScopeStmt):
            return [rebuild(s, body=self.body(s.body, self.block(block(s.body), after)))]
        if isinstance(s, IfStmt):
            return [self.if_(s, after)]
        if isinstance(s, (ForStmt, WhileStmt)):
            return [self.loop(s, after)]
        return [s]

    def if_(self, s: IfStmt, after: frozenset[Var]) -> Stmt:
        cond = self.rename(s.condition)
        before = self.env
        self.env = dict(before)
        then = self.block(block(s.then_body), after)
        env_then = self.env
        self.env = dict(before)
        other = self.block(block(s.else_body), after) if s.else_body is not None else []
        env_else = self.env
        self.env = before
        return_vars = []
        for rv in s.return_vars:
            new = self.define(rv)
            self.env[rv] = new
            return_vars.append(new)
        changed = self.live.modified(s.then_body)
        if s.else_body is not None:
            changed = changed | self.live.modified(s.else_body)
        then_vals, else_vals = [], []
        for v in self.sorted((changed & after) - set(s.return_vars)):
            tv, ev = env_then.get(v), env_else.get(v)
            if tv is before.get(v) and ev is before.get(v):
                continue
            if tv is None or ev is None:
                raise PassError(
                    NAME,
                    f"'{v.name_hint}' is assigned in only one branch of this if and read after it; "
                    "assign it before the if or in both branches",
                    s.span,
                )
            phi = Var(self.version(v, "phi"), v.type, s.span)
            then_vals.append(tv)
            else_vals.append(ev)
            return_vars.append(phi)
            self.env[v] = phi
        if then_vals:
            then = _with_yield(then, then_vals, s.then_body.span)
            other = _with_yield(other, else_vals, s.span)
        then_body = self.body(s.then_body, then)
        if s.else_body is not None:
            else_body = self.body(s.else_body, other)
        else:
            else_body = block_of(other, s.span) if other else None
        return rebuild(
            s, condition=cond, then_body=then_body, else_body=else_body, return_vars=keep_list(return_vars, s.return_vars)
        )

    def out_param_init(self, var: Var, loop: Stmt) -> Expr:
        """The init of a value first defined inside a loop: the matching Out/InOut parameter."""
        for p, d in zip(self.func.params, self.func.param_directions):
            if d is not ParamDirection.In and p.type == var.type:
                return self.env.get(p, p)
        raise PassError(
            NAME,
            f"'{var.name_hint}' is first assigned inside this loop and read after it or in a later iteration; "
            "give it a value before the loop",
            loop.span,
        )

    def loop(self, s: ForStmt | WhileStmt, after: frozenset[Var]) -> Stmt:
        is_for = isinstance(s, ForStmt)
        bounds = [self.rename(e) for e in (s.start, s.stop, s.step)] if is_for else []
        summary = self.live.block(s.body)
        head = summary.gen
        if not is_for:
            head = head | frozenset(expr_vars(s.condition))
        binders = set(stmt_defs(s)) - set(s.return_vars)
        carried = self.sorted((self.live.modified(s.body) - binders) & (head | after))
        iter_args = []
        for ia in s.iter_args:
            init = self.rename(ia.initValue)
            if self.keeps(ia) and init is ia.initValue:
                iter_args.append(ia)
            else:
                name = ia.name_hint if self.keeps(ia) else self.version(ia, "iter")
                iter_args.append(IterArg(name, ia.type, init, ia.span))
        new_args = []
        for v in carried:
            init = self.env[v] if v in self.env else self.out_param_init(v, s)
            new_args.append(IterArg(self.version(v, "iter"), v.type, init, s.span))
        loop_var = self.define(s.loop_var) if is_for else None
        outer = self.env
        self.env = dict(outer)
        self.env.update(zip(s.iter_args, iter_args))
        self.env.update(zip(carried, new_args))
        if is_for:
            self.env[s.loop_var] = loop_var
        cond = self.rename(s.condition) if not is_for else None
        body = self.block(block(s.body), frozenset(head | after))
        inner = self.env
        self.env = outer
        explicit = bool(body) and isinstance(body[-1], YieldStmt)
        carried_vals = [inner[v] for v in carried]
        if s.iter_args and not explicit:
            body = body + [YieldStmt([inner[ia] for ia in s.iter_args] + carried_vals, s.span)]
        elif carried_vals:
            body = _with_yield(body, carried_vals, s.span)
        if s.return_vars:
            return_vars = [self.define(rv) for rv in s.return_vars]
            self.env.update(zip(s.return_vars, return_vars))
        else:
            return_vars = [Var(self.version(ia, "rv"), ia.type, s.span) for ia in s.iter_args]
        self.env.update(zip(s.iter_args, return_vars))
        for v in carried:
            rv = Var(self.version(v, "rv"), v.type, s.span)
            return_vars.append(rv)
            self.env[v] = rv
        fields: dict[str, object] = {
            "iter_args": keep_list(iter_args + new_args, s.iter_args),
            "body": self.body(s.body, body),
            "return_vars": keep_list(return_vars, s.return_vars),
        }
        if is_for:
            fields.update(loop_var=loop_var, start=bounds[0], stop=bounds[1], step=bounds[2])
        else:
            fields.update(condition=cond)
        return rebuild(s, **fields)


class ConvertToSSA(FunctionPass):
    """Rename re-assigned variables; thread changed values through phis, iter_args and yields.

    before:  x = 0                         after:  x__ssa_v0 = 0
             if c:                                 if c:
                 x = 1                                 x__ssa_v1 = 1
             y = x + 1                                 x__phi_v2 = pl.yield_(x__ssa_v1)
                                                   else:
                                                       x__phi_v2 = pl.yield_(x__ssa_v0)
                                                   y = x__phi_v2 + 1
    """

    name = NAME
    source = surface
    target = ssa
    produces = frozenset({SSAForm})
    invalidates = frozenset({NormalizedStmtStructure})

    def run_function(self, func: Function, program: Program) -> Function:
        index = function_index(func)
        if not index.has(IfStmt, ForStmt, WhileStmt):
            defs = list(func.params) + [v for s in index.of(Stmt) for v in stmt_defs(s)]
            if len(set(defs)) == len(defs) and len({v.name_hint for v in defs}) == len(defs):
                return func
        live = Liveness()
        body = func.body
        if index.has(BreakStmt, ContinueStmt):
            body = _Jumps(live).rewrite(body)
        return _Builder(func, body, live).run()


def convert_to_ssa() -> ConvertToSSA:
    """The ConvertToSSA pass."""
    return ConvertToSSA()
