"""Simplify: fold scalar arithmetic, bind constants, collapse decided branches and trivial loops,
then drop dead scalar assignments (spec/passes.md §4.5).

* Every scalar expression leaf is folded: constant operands (``2 * 16`` -> ``32``, also the INDEX
  arithmetic the printer keeps unfolded inside shapes), identities (``x + 0``, ``x * 1``,
  ``x * 0`` for integers, ``x // 1``, ``x % 1``, ``min(a, a)``, ``a and True``, ...), and
  comparisons decided by the value ranges of loop variables, bound scalars and enclosing branch
  conditions. Shape, stride and valid-shape expressions inside types are folded the same way.
* A scalar variable assigned once is bound: to a constant at the function's top level (then it
  is substituted everywhere, types included), otherwise only its value range is recorded, within
  its region. Only variables defined once are bound or narrowed by conditions, so the pass is also
  correct on pre-SSA code.
* Constants fold exactly as the reference interpreter computes them (one definition, in
  :mod:`pypto.interp.scalar_eval`): integers wrap to the dtype's width, FP32/FP16/BF16 round to
  their precision. Nothing is folded where the interpreter raises (integer division by zero,
  negative shift count or integer exponent, ...), for other float dtypes (FP8, FP4, HF*), or when
  the result is inf/nan (no literal spells it). ``x + 0`` is kept for floats (``-0.0 + 0.0`` is
  ``+0.0``).
* An ``if`` whose condition folds to a constant is replaced by the live branch (its return vars by
  that branch's yields); a pure sequential loop (no attrs) with a constant trip count of 0 becomes
  its inits, with 1 its body (loop variable = start, iter_args = inits) unless it breaks or
  continues.
* Finally unused scalar assignments whose value contains no call are removed (TaskId values kept).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pypto.languages.invariants.walk import (
    block,
    expr_calls,
    expr_vars,
    function_index,
    stmt_defs,
    stmt_exprs,
    type_vars,
    walk,
)

from pypto.interp.scalar_eval import constant_value, fold_binary, fold_unary
from pypto.ir import expr as E
from pypto.ir.datatype import DataType
from pypto.ir.enums import ForKind
from pypto.ir.expr import BinaryExpr, ConstBool, ConstFloat, ConstInt, Expr, IterArg, UnaryExpr, Var
from pypto.ir.function import Function, Program
from pypto.ir.span import Span
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
from pypto.ir.type_base import ScalarType, Type
from pypto.ir.types import ShapedType

from .base import FunctionPass, Rewriter
from .ctrl_flow_transform import jumps
from .util import block_of, keep_list, reblock, rebuild, same_list

NAME = "Simplify"
Range = tuple[int, int]

_COMPARE = (E.Eq, E.Ne, E.Lt, E.Le, E.Gt, E.Ge)



def _make(value: Any, dtype: DataType, span: Span) -> Expr | None:
    """The constant of ``dtype`` holding the folded ``value`` (None when nothing was folded)."""
    if value is None:
        return None
    if dtype.is_bool():
        return ConstBool(bool(value), span)
    return ConstInt(int(value), dtype, span) if dtype.is_int() else ConstFloat(float(value), dtype, span)


def _same_dtype(e: Expr, dtype: DataType) -> bool:
    t = e.type
    return isinstance(t, ScalarType) and (t.dtype == dtype or {t.dtype, dtype} <= {DataType.INDEX, DataType.INT64})


def _identity(node: BinaryExpr, a: object, b: object) -> Expr | None:
    """``x + 0`` -> ``x`` and friends; only when the kept operand already has the result dtype."""
    cls, left, right, dtype = type(node), node.left, node.right, node.dtype
    integer = dtype.is_int()
    if cls is E.And:
        if a is True or b is True:
            return right if a is True else left
        if a is False or b is False:
            return ConstBool(False, node.span)
    if cls is E.Or:
        if a is False or b is False:
            return right if a is False else left
        if a is True or b is True:
            return ConstBool(True, node.span)
    if cls in (E.Min, E.Max) and left is right:
        return left
    keep: Expr | None = None
    # x + 0 is not x for floats: -0.0 + 0.0 is +0.0.
    if cls is E.Add and b == 0 and not isinstance(b, bool) and integer:
        keep = left
    elif cls is E.Add and a == 0 and not isinstance(a, bool) and integer:
        keep = right
    elif cls is E.Sub and b == 0 and not isinstance(b, bool) or cls is E.Mul and b == 1 and not isinstance(b, bool):
        keep = left
    elif cls is E.Mul and a == 1 and not isinstance(a, bool):
        keep = right
    elif cls is E.FloorDiv and b == 1 and integer:
        keep = left
    if keep is not None:
        return keep if _same_dtype(keep, dtype) else None
    if integer and (
        (cls is E.Mul and (a == 0 or b == 0)) or (cls is E.FloorMod and b == 1) or (cls is E.Sub and left is right)
    ):
        return ConstInt(0, dtype, node.span)
    return None


class _Simplifier:
    rewrite = Rewriter(NAME, types=True)

    def __init__(self) -> None:
        self.subst: dict[Var, Expr] = {}
        self.ranges: dict[Var, Range] = {}
        self.once: set[Var] = set()

    # ---- expressions -------------------------------------------------------------------------

    @rewrite.register(Var)
    def _var(self, node: Var) -> Expr:
        return self.subst.get(node, node)

    @rewrite.register(ShapedType)
    def _shaped(self, node: ShapedType) -> Type:
        static = all(isinstance(d, ConstInt) for d in node.shape)
        view = getattr(node, "tensor_view", None) or getattr(node, "tile_view", None)
        if static and view is None and node.memref is None:
            return node
        return self.rewrite.children(node)

    @rewrite.register(BinaryExpr)
    def _binary(self, node: BinaryExpr) -> Expr:
        node = self.rewrite.children(node)
        a, b = constant_value(node.left), constant_value(node.right)
        if a is not None and b is not None:
            folded = _make(fold_binary(type(node), a, b, node.dtype), node.dtype, node.span)
            if folded is not None:
                return folded
        simpler = _identity(node, a, b)
        if simpler is not None:
            return simpler
        if type(node) in _COMPARE:
            decided = self.decide(node)
            if decided is not None:
                return ConstBool(decided, node.span)
        return node

    @rewrite.register(UnaryExpr)
    def _unary(self, node: UnaryExpr) -> Expr:
        node = self.rewrite.children(node)
        v = constant_value(node.operand)
        if v is None:
            return node
        return _make(fold_unary(type(node), v, node.dtype), node.dtype, node.span) or node

    # ---- value ranges ------------------------------------------------------------------------

    def interval(self, e: Expr) -> Range | None:
        if isinstance(e, ConstInt):
            return e.value, e.value
        if isinstance(e, Var):
            return self.ranges.get(e)
        if isinstance(e, (E.Add, E.Sub, E.Mul, E.Min, E.Max)):
            a, b = self.interval(e.left), self.interval(e.right)
            if a is None or b is None:
                return None
            if isinstance(e, E.Add):
                return a[0] + b[0], a[1] + b[1]
            if isinstance(e, E.Sub):
                return a[0] - b[1], a[1] - b[0]
            if isinstance(e, E.Min):
                return min(a[0], b[0]), min(a[1], b[1])
            if isinstance(e, E.Max):
                return max(a[0], b[0]), max(a[1], b[1])
            corners = [x * y for x in a for y in b]
            return min(corners), max(corners)
        if isinstance(e, (E.FloorDiv, E.FloorMod)) and isinstance(e.right, ConstInt) and e.right.value > 0:
            a, c = self.interval(e.left), e.right.value
            if a is None:
                return None
            if isinstance(e, E.FloorDiv):
                return a[0] // c, a[1] // c
            return (a[0] % c, a[1] % c) if a[0] // c == a[1] // c else (0, c - 1)
        return None

    def decide(self, node: BinaryExpr) -> bool | None:
        a, b = self.interval(node.left), self.interval(node.right)
        if a is None or b is None:
            return None
        lt = a[1] < b[0]
        ge = a[0] >= b[1]
        rules = {
            E.Lt: (lt, ge),
            E.Ge: (ge, lt),
            E.Le: (a[1] <= b[0], a[0] > b[1]),
            E.Gt: (a[0] > b[1], a[1] <= b[0]),
            E.Eq: (a[0] == a[1] == b[0] == b[1], lt or a[0] > b[1]),
            E.Ne: (lt or a[0] > b[1], a[0] == a[1] == b[0] == b[1]),
        }
        yes, no = rules[type(node)]
        return True if yes else False if no else None

    def refine(self, cond: Expr, holds: bool) -> None:
        """Narrow variable ranges knowing that ``cond`` is ``holds``."""
        if isinstance(cond, E.Not):
            self.refine(cond.operand, not holds)
            return
        if isinstance(cond, E.And) and holds:
            self.refine(cond.left, True)
            self.refine(cond.right, True)
            return
        if type(cond) not in (E.Lt, E.Le, E.Gt, E.Ge):
            return
        flip = {E.Lt: E.Ge, E.Ge: E.Lt, E.Le: E.Gt, E.Gt: E.Le}
        op = type(cond) if holds else flip[type(cond)]
        for var, other, mirrored in ((cond.left, cond.right, False), (cond.right, cond.left, True)):
            bound = self.interval(other)
            # Only a variable defined once keeps the value the condition tested.
            if not isinstance(var, Var) or var not in self.once or bound is None:
                continue
            rel = {E.Lt: E.Gt, E.Gt: E.Lt, E.Le: E.Ge, E.Ge: E.Le}[op] if mirrored else op
            lo, hi = self.ranges.get(var, (-(2**63), 2**63 - 1))
            if rel is E.Lt:
                hi = min(hi, bound[1] - 1)
            elif rel is E.Le:
                hi = min(hi, bound[1])
            elif rel is E.Gt:
                lo = max(lo, bound[0] + 1)
            else:
                lo = max(lo, bound[0])
            self.ranges[var] = (lo, hi)

    # ---- statements --------------------------------------------------------------------------

    def define(self, var: Var) -> Var:
        """``var`` with its type folded (a new variable when the type changes)."""
        new_type = self.rewrite(var.type)
        if new_type is var.type:
            return var
        new = (
            IterArg(var.name_hint, new_type, self.rewrite(var.initValue), var.span)
            if isinstance(var, IterArg)
            else Var(var.name_hint, new_type, var.span)
        )
        self.subst[var] = new
        return new

    def scoped(self, fn: Callable[[], list[Stmt]]) -> list[Stmt]:
        saved = dict(self.ranges)
        try:
            return fn()
        finally:
            self.ranges = saved

    def body(self, original: Stmt, stmts: list[Stmt]) -> Stmt:
        return original if same_list(stmts, block(original)) else block_of(stmts, original.span)

    def block(self, stmts: list[Stmt], top: bool = False) -> list[Stmt]:
        out: list[Stmt] = []
        for s in stmts:
            out.extend(self.stmt(s, top))
        return out

    def stmt(self, s: Stmt, top: bool) -> list[Stmt]:
        if isinstance(s, SeqStmts):
            return self.block(list(s.stmts), top)
        if isinstance(s, AssignStmt):
            return [self.assign(s, top)]
        if isinstance(s, EvalStmt):
            return [rebuild(s, expr=self.rewrite(s.expr))]
        if isinstance(s, (ReturnStmt, YieldStmt)):
            return [rebuild(s, value=keep_list([self.rewrite(v) for v in s.value], s.value))]
        if isinstance(s, IfStmt):
            return self.if_(s)
        if isinstance(s, ForStmt):
            return self.for_(s)
        if isinstance(s, WhileStmt):
            return [self.while_(s)]
        if isinstance(s, ScopeStmt):
            return [rebuild(s, body=self.body(s.body, self.scoped(lambda: self.block(block(s.body)))))]
        return [s]

    def assign(self, s: AssignStmt, top: bool) -> Stmt:
        value = self.rewrite(s.value)
        var = self.define(s.var)
        if isinstance(var.type, ScalarType) and s.var in self.once:
            if top and isinstance(value, (ConstInt, ConstFloat, ConstBool)):
                self.subst[s.var] = value
            else:
                r = self.interval(value)
                if r is not None:
                    self.ranges[var] = r
        return rebuild(s, var=var, value=value)

    def if_(self, s: IfStmt) -> list[Stmt]:
        cond = self.rewrite(s.condition)
        if isinstance(cond, ConstBool):
            chosen = s.then_body if cond.value else s.else_body
            stmts = self.scoped(lambda: self.block(block(chosen)))
            if not s.return_vars:
                return stmts
            if stmts and isinstance(stmts[-1], YieldStmt) and len(stmts[-1].value) == len(s.return_vars):
                self.subst.update(zip(s.return_vars, stmts[-1].value))
                return stmts[:-1]
        return_vars = [self.define(v) for v in s.return_vars]

        def branch(body: Stmt | None, holds: bool) -> list[Stmt]:
            self.refine(cond, holds)
            return self.block(block(body))

        then = self.scoped(lambda: branch(s.then_body, True))
        other = self.scoped(lambda: branch(s.else_body, False)) if s.else_body is not None else None
        return [
            rebuild(
                s,
                condition=cond,
                then_body=self.body(s.then_body, then),
                else_body=self.body(s.else_body, other) if other is not None else None,
                return_vars=keep_list(return_vars, s.return_vars),
            )
        ]

    def iter_args(self, args: list[IterArg]) -> list[IterArg]:
        out = []
        for ia in args:
            init, new_type = self.rewrite(ia.initValue), self.rewrite(ia.type)
            if init is ia.initValue and new_type is ia.type:
                out.append(ia)
                continue
            new = IterArg(ia.name_hint, new_type, init, ia.span)
            self.subst[ia] = new
            out.append(new)
        return out

    def for_(self, s: ForStmt) -> list[Stmt]:
        start, stop, step = self.rewrite(s.start), self.rewrite(s.stop), self.rewrite(s.step)
        bounds = [constant_value(x) for x in (start, stop, step)]
        pure = s.kind is ForKind.Sequential and not s.attrs
        if pure and all(isinstance(x, int) and not isinstance(x, bool) for x in bounds) and bounds[2] != 0:
            trips = len(range(*bounds))
            if trips == 0:
                self.subst.update(zip(s.return_vars, [self.rewrite(ia.initValue) for ia in s.iter_args]))
                return []
            if trips == 1 and not any(jumps(x, (BreakStmt, ContinueStmt)) for x in block(s.body)):
                # A binder the body re-assigns (surface programs only) is set once, not substituted.
                entry: list[Stmt] = []
                for var, value in [(s.loop_var, start), *[(ia, self.rewrite(ia.initValue)) for ia in s.iter_args]]:
                    if var in self.once:
                        self.subst[var] = value
                    else:
                        entry.append(AssignStmt(var, value, s.span))
                stmts = entry + self.scoped(lambda: self.block(block(s.body)))
                if stmts and isinstance(stmts[-1], YieldStmt) and len(stmts[-1].value) == len(s.return_vars):
                    self.subst.update(zip(s.return_vars, stmts[-1].value))
                    stmts = stmts[:-1]
                return stmts
        iter_args = self.iter_args(s.iter_args)
        loop_var = self.define(s.loop_var)

        def run_body() -> list[Stmt]:
            r0, r1, r2 = (self.interval(x) for x in (start, stop, step))
            known = r0 is not None and r1 is not None and r2 is not None
            if known and r2[0] == r2[1] and r2[0] > 0 and s.loop_var in self.once:
                self.ranges[loop_var] = (r0[0], max(r0[0], r1[1] - 1))
            return self.block(block(s.body))

        body = self.scoped(run_body)
        return_vars = [self.define(v) for v in s.return_vars]
        return [
            rebuild(
                s,
                loop_var=loop_var,
                start=start,
                stop=stop,
                step=step,
                iter_args=keep_list(iter_args, s.iter_args),
                body=self.body(s.body, body),
                return_vars=keep_list(return_vars, s.return_vars),
            )
        ]

    def while_(self, s: WhileStmt) -> Stmt:
        iter_args = self.iter_args(s.iter_args)
        cond = self.rewrite(s.condition)
        body = self.scoped(lambda: self.block(block(s.body)))
        return_vars = [self.define(v) for v in s.return_vars]
        return rebuild(
            s,
            condition=cond,
            iter_args=keep_list(iter_args, s.iter_args),
            body=self.body(s.body, body),
            return_vars=keep_list(return_vars, s.return_vars),
        )


def _used(func: Function, body: Stmt) -> set[Var]:
    """Variables read by expressions or appearing in types."""
    used: set[Var] = set()
    for p in func.params:
        type_vars(p.type, used)
    for node in walk(body):
        if isinstance(node, Stmt):
            exprs = stmt_exprs(node) + ([node.condition] if isinstance(node, WhileStmt) else [])
            for e in exprs:
                used.update(expr_vars(e))
            for v in stmt_defs(node):
                type_vars(v.type, used)
    return used


def _dead(s: Stmt, used: set[Var]) -> bool:
    if not isinstance(s, AssignStmt) or s.var in used or not isinstance(s.var.type, ScalarType):
        return False
    return s.var.type.dtype != DataType.TASK_ID and not expr_calls(s.value)


def _sweep(body: Stmt, used: set[Var]) -> Stmt:
    """``body`` without dead assignments (recursively); the same object when none is dead."""
    if isinstance(body, (IfStmt, ForStmt, WhileStmt, ScopeStmt)):
        changes = {}
        for field in ("then_body", "else_body", "body"):
            sub = getattr(body, field, None)
            if sub is not None:
                changes[field] = _sweep(sub, used)
        return rebuild(body, **changes)
    if not isinstance(body, SeqStmts):
        return body
    stmts = [_sweep(s, used) for s in body.stmts if not _dead(s, used)]
    return reblock(body, stmts)


def _eliminate_dead(func: Function, body: Stmt) -> Stmt:
    while True:
        swept = _sweep(body, _used(func, body))
        if swept is body:
            return body
        body = swept


def _nothing_to_do(func: Function) -> bool:
    index = function_index(func)
    if index.has(BinaryExpr, UnaryExpr, IfStmt, ForStmt, WhileStmt):
        return False
    for s in index.of(AssignStmt):
        t = s.var.type
        if isinstance(t, ScalarType):
            return False
        if isinstance(t, ShapedType) and not all(isinstance(d, ConstInt) for d in t.shape):
            return False
    return True


class Simplify(FunctionPass):
    """Fold constants and identities, bind constants, collapse decided ifs and 0/1-trip loops, DCE.

    before:  n = 4                             after:  y = pl.tensor.create([8], dtype=pl.FP32)
             m = n * 2
             if m > 4:
                 y = pl.tensor.create([m], dtype=pl.FP32)
             ...
    """

    name = NAME

    def run_function(self, func: Function, program: Program) -> Function:
        if _nothing_to_do(func):
            return func
        run = _Simplifier()
        counts: dict[Var, int] = {p: 1 for p in func.params}
        for s in function_index(func).of(Stmt):
            for v in stmt_defs(s):
                counts[v] = counts.get(v, 0) + 1
        run.once = {v for v, n in counts.items() if n == 1}
        params = [run.define(p) for p in func.params]
        old = block(func.body)
        stmts = run.block(old, top=True)
        body = func.body if same_list(stmts, old) else block_of(stmts, func.body.span)
        body = _eliminate_dead(func, body)
        returns = [run.rewrite(t) for t in func.return_types]
        return rebuild(
            func, params=keep_list(params, func.params), return_types=keep_list(returns, func.return_types), body=body
        )


def simplify() -> Simplify:
    """The Simplify pass."""
    return Simplify()
