"""ConvertToSSA: give every variable exactly one definition (docs/passes.md#converttossa).

In the surface dialect a variable is a Var object that may be assigned many times. Which
assignments are one source variable is decided by the parser, the only place that knows Python's
scoping (pypto/language/parser/core.py), and recorded in Var identity alone: this pass never joins
two Vars because they share a name. The parser makes a new Var for a straight-line re-assignment
(so such code is SSA as parsed, as in the established parser) and re-defines the Var where one
variable has several assignments that a later read may see: a body re-assigning a name another
block bound (an enclosing one, or an earlier branch or loop body; not in ``strict_ssa`` functions,
whose bodies are scopes of their own), and every re-assignment in a function that leaves a block
early (break, continue, a return before its last statement), whose code after the jump
CtrlFlowTransform moves into a branch. An ``@pl.inline`` helper's variables are its own Vars.
Passes before this one keep that identity: InlineFunctions and UnrollLoops copy variables
consistently, CtrlFlowTransform moves statements unchanged, and where the result reads as
straight-line code without jumps, UnrollLoops and CtrlFlowTransform give re-definitions in the
block that bound the variable new Vars (pypto.transform.reassign), as the parser would::

    parsed:  t = n * 10            # the caller's t  after:  t__ssa_v0 = n * 10
             if n > 2:                                       if n > 2:
                 t_1 = n + 100     # an inlined helper's t       t__ssa_v1 = n + 100
             else:                                               t__phi_v3 = pl.yield_(t__ssa_v1)
                 t_1 = n + 200                               else:
             u = t_1                                             t__ssa_v2 = n + 200
             return t + u                                        t__phi_v3 = pl.yield_(t__ssa_v2)
                                                             u = t__phi_v3
                                                             return t__ssa_v0 + u

The pass walks each function in order with an environment mapping every variable to its current
SSA value:

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

from collections import Counter

from pypto.analysis import (
    Liveness,
    NameSupply,
    base_name,
    defined_vars,
    expr_vars,
    function_index,
    scope_task_id,
    stmt_defs,
)
from pypto.analysis.index import FunctionIndex
from pypto.languages.invariants import NormalizedStmtStructure, SSAForm
from pypto.languages.ssa import ssa
from pypto.languages.surface import surface

from pypto.ir.enums import ParamDirection
from pypto.ir.expr import Expr, IterArg, Var
from pypto.ir.function import Function
from pypto.ir.parts import copy_parts
from pypto.ir.span import Span
from pypto.ir.stmt import (
    AssignStmt,
    BreakStmt,
    ContinueStmt,
    ForStmt,
    IfStmt,
    ScopeStmt,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from pypto.ir.transforms import flatten_to_stmts

from .ctrl_flow_transform import jumps, structure_loop
from pypto.transform.rewrite import BODILESS, Result, Rewrite, RewritePass, on
from pypto.transform.util import block_of, keep_list, rebuild


def _with_yield(stmts: list[Stmt], values: list[Expr], span: Span) -> list[Stmt]:
    """``stmts`` ending in a yield of its old values (if any) followed by ``values``."""
    if stmts and isinstance(stmts[-1], YieldStmt):
        last = stmts[-1]
        return stmts[:-1] + [rebuild(last, value=list(last.value) + values)]
    return stmts + [YieldStmt(values, span)]


def _already_ssa(func: Function) -> bool:
    """True for a straight-line function (no compound statement) whose variables are each defined
    once under distinct names: every variable keeps its object, so the rewrite would return ``func``."""
    stmts = flatten_to_stmts(func.body)
    if not BODILESS.issuperset(map(type, stmts)):
        return False
    defined = list(func.params) + [s.var for s in stmts if type(s) is AssignStmt]  # the only definer here
    return len(set(defined)) == len(defined) == len({v.name_hint for v in defined})


def _flowless(index: FunctionIndex) -> bool:
    """True for a function (``index`` of its nodes) without an if or a loop: only those read the
    variables live after them (``ConvertToSSA.after``), so no block needs the liveness walk (a scope
    passes ``after`` on to its body unread)."""
    return not index.has(IfStmt, ForStmt, WhileStmt)


class _Jumps(Rewrite):
    """Restructure non-kernel loops that jump and assign, before SSA construction."""

    def __init__(self, live: Liveness) -> None:
        self.live = live
        self.start()

    @on(ForStmt, WhileStmt)
    def _loop(self, node: ForStmt | WhileStmt) -> Result:
        node = self.children(node)
        body = flatten_to_stmts(node.body)
        if not any(jumps(s, (BreakStmt, ContinueStmt)) for s in body) or not self.live.modified(node.body):
            return node
        return structure_loop(node, self.names)


class ConvertToSSA(RewritePass):
    """Rename re-assigned variables; thread changed values through phis, iter_args and yields.

    before:  x = 0                         after:  x__ssa_v0 = 0
             if c:                                 if c:
                 x = 1                                 x__ssa_v1 = 1
             y = x + 1                                 x__phi_v2 = pl.yield_(x__ssa_v1)
                                                   else:
                                                       x__phi_v2 = pl.yield_(x__ssa_v0)
                                                   y = x__phi_v2 + 1
    """

    source = surface
    target = ssa
    produces = frozenset({SSAForm})
    invalidates = frozenset({NormalizedStmtStructure})

    def function(self, func: Function) -> Function:
        if _already_ssa(func):
            return func
        self.live = Liveness()
        index = function_index(func)
        self.flowless = _flowless(index)
        self.after = frozenset()
        if index.has(BreakStmt, ContinueStmt):
            func = rebuild(func, body=_Jumps(self.live).body(func.body))
        defined = defined_vars(func)
        if func is self.func:  # the names the supply must avoid are those of ``defined``: one walk
            self.names = NameSupply(lambda: [v.name_hint for v in defined])
        # "defined before" for the phi checks (into the one scope directly: ChainMap.update is per item)
        self.remap.maps[0].update((p, p) for p in func.params)
        task_ids = [scope_task_id(s) for s in function_index(func).of(ScopeStmt)]
        self.count = Counter(defined + [t for t in task_ids if t is not None])
        self.names_of: dict[str, set[Var]] = {}
        for var in self.count:
            self.names_of.setdefault(var.name_hint, set()).add(var)
        self.order = {var: i for i, var in enumerate(self.count)}
        return super().function(func)

    def block(self, stmts: list[Stmt]) -> list[Stmt]:
        """Each statement rewritten knowing the variables read after it (``self.after``)."""
        if self.flowless or all(type(s) in BODILESS for s in stmts):
            return super().block(stmts)  # only compound statements read ``self.after``
        out: list[Stmt] = []
        for s, after in zip(stmts, self.live.live_after(list(stmts), self.env.get("live_out", frozenset()))):
            self.after = after
            out += super().block([s])
        return out

    def keeps(self, var: Var) -> bool:
        return self.count[var] <= 1 and len(self.names_of.get(var.name_hint, ())) <= 1

    def version(self, var: Var, kind: str) -> str:
        base = base_name(var.name_hint)
        return self.names.name(base, lambda n: f"{base}__{kind}_v{n}")

    def named(self, var: Var, kind: str, span: Span) -> Var:
        """A new variable of ``var``'s type named as its next ``kind`` version, at ``span``."""
        name = self.version(var, kind)
        if type(var) is Var:  # a copy with a new name and span: no validation (both fields of their class)
            return copy_parts(var, {"name_hint": name, "span": span})
        return Var(name, var.type, span)

    def fresh(self, var: Var) -> Var:
        """The SSA variable of one definition of ``var``, visible from here on."""
        new = var if self.keeps(var) else self.named(var, "ssa", var.span)
        self.remap[var] = new
        return new

    def sorted(self, vars_: frozenset[Var] | set[Var]) -> list[Var]:
        return sorted(vars_, key=lambda v: self.order.get(v, len(self.order)))

    @on(AssignStmt)
    def _assign(self, s: AssignStmt) -> Result:
        value = self.expr(s.value)
        return rebuild(s, var=self.fresh(s.var), value=value)

    @on(ScopeStmt)
    def _scope(self, s: ScopeStmt) -> Result:
        attrs = {k: v if k == "task_id_var" else self.expr(v) for k, v in s.attrs.items()}  # deps=[...] etc.
        with self.scope({"live_out": self.after}, remap=False):  # scopes are transparent
            body = self.reblock(s.body, self.block(flatten_to_stmts(s.body)))
        tid = scope_task_id(s)
        if tid is not None:  # ``as tid`` is defined when the scope ends
            attrs["task_id_var"] = self.fresh(tid)
        if any(attrs[k] is not v for k, v in s.attrs.items()):
            return rebuild(s, body=body, attrs=attrs)
        # Only the body changed, and a scope derives nothing from its body: the copy needs no validation.
        return s if body is s.body else copy_parts(s, {"body": body})

    @on(IfStmt)
    def _if(self, s: IfStmt) -> Result:
        after, cond = self.after, self.expr(s.condition)
        with self.scope({"live_out": after}) as env_then:
            then = self.block(flatten_to_stmts(s.then_body))
        with self.scope({"live_out": after}) as env_else:
            other = self.block(flatten_to_stmts(s.else_body)) if s.else_body is not None else []
        changed = self.live.modified(s.then_body) | self.live.modified(s.else_body)
        before = {v: self.remap.get(v) for v in changed}
        return_vars = [self.fresh(rv) for rv in s.return_vars]
        then_vals, else_vals = [], []
        for v in self.sorted((changed & after) - set(s.return_vars)):
            tv, ev = env_then.get(v, before[v]), env_else.get(v, before[v])
            if tv is before[v] and ev is before[v]:
                continue
            if tv is None or ev is None:
                raise self.error(
                    f"'{v.name_hint}' is assigned in only one branch of this if and read after it; "
                    "assign it before the if or in both branches",
                    s.span,
                )
            phi = self.named(v, "phi", s.span)
            then_vals.append(tv)
            else_vals.append(ev)
            return_vars.append(phi)
            self.remap[v] = phi
        if then_vals:
            then = _with_yield(then, then_vals, s.then_body.span)
            other = _with_yield(other, else_vals, s.span)
        if s.else_body is not None:
            else_body = self.reblock(s.else_body, other)
        else:
            else_body = block_of(other, s.span) if other else None
        return rebuild(
            s,
            condition=cond,
            then_body=self.reblock(s.then_body, then),
            else_body=else_body,
            return_vars=keep_list(return_vars, s.return_vars),
        )

    def out_param_init(self, var: Var, loop: Stmt) -> Expr:
        """The init of a value first defined inside a loop: the matching Out/InOut parameter."""
        for p, d in zip(self.func.params, self.func.param_directions):
            if d is not ParamDirection.In and p.type == var.type:
                return self.remap.get(p, p)
        raise self.error(
            f"'{var.name_hint}' is first assigned inside this loop and read after it or in a later iteration; "
            "give it a value before the loop",
            loop.span,
        )

    @on(ForStmt, WhileStmt)
    def _loop(self, s: ForStmt | WhileStmt) -> Result:
        after, is_for = self.after, isinstance(s, ForStmt)
        bounds = [self.expr(e) for e in (s.start, s.stop, s.step)] if is_for else []
        head = self.live.block(s.body).gen
        if not is_for:
            head = head | frozenset(expr_vars(s.condition))
        binders = set(stmt_defs(s)) - set(s.return_vars)
        carried = self.sorted((self.live.modified(s.body) - binders) & (head | after))
        iter_args = []
        for ia in s.iter_args:
            init = self.expr(ia.initValue)
            if self.keeps(ia) and init is ia.initValue:
                iter_args.append(ia)
            else:
                name = ia.name_hint if self.keeps(ia) else self.version(ia, "iter")
                iter_args.append(IterArg(name, ia.type, init, ia.span))
        new_args = []
        for v in carried:
            init = self.remap[v] if v in self.remap else self.out_param_init(v, s)
            new_args.append(IterArg(self.version(v, "iter"), v.type, init, s.span))
        loop_var = self.fresh(s.loop_var) if is_for else None
        with self.scope({"live_out": frozenset(head | after)}):
            inner = self.remap.maps[0]  # the loop body's scope (ChainMap.update writes item by item)
            inner.update(zip(s.iter_args, iter_args))
            inner.update(zip(carried, new_args))
            if is_for:
                self.remap[s.loop_var] = loop_var
            cond = self.expr(s.condition) if not is_for else None
            body = self.block(flatten_to_stmts(s.body))
            carried_vals = [self.remap[v] for v in carried]
            iter_vals = [self.remap[ia] for ia in s.iter_args]
        if s.iter_args and not (body and isinstance(body[-1], YieldStmt)):
            body = body + [YieldStmt(iter_vals + carried_vals, s.span)]
        elif carried_vals:
            body = _with_yield(body, carried_vals, s.span)
        if s.return_vars:
            return_vars = [self.fresh(rv) for rv in s.return_vars]
        else:
            return_vars = [self.named(ia, "rv", s.span) for ia in s.iter_args]
        self.remap.maps[0].update(zip(s.iter_args, return_vars))
        for v in carried:
            rv = self.named(v, "rv", s.span)
            return_vars.append(rv)
            self.remap[v] = rv
        fields: dict[str, object] = {
            "iter_args": keep_list(iter_args + new_args, s.iter_args),
            "body": self.reblock(s.body, body),
            "return_vars": keep_list(return_vars, s.return_vars),
        }
        if is_for:
            fields.update(loop_var=loop_var, start=bounds[0], stop=bounds[1], step=bounds[2])
        else:
            fields.update(condition=cond)
        return rebuild(s, **fields)
