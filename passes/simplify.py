"""Simplify: fold scalar arithmetic, bind constants, collapse decided branches and trivial loops,
then drop dead scalar assignments (docs/passes.md#simplify).

* Every scalar expression leaf is folded: constant operands (``2 * 16`` -> ``32``, also the INDEX
  arithmetic the printer keeps unfolded inside shapes), identities (``x + 0``, ``x * 1``,
  ``x * 0`` for integers, ``x // 1``, ``x % 1``, ``min(a, a)``, ``a and True``, ...), and
  comparisons, integer ``//`` and ``%`` by a positive constant, ``min`` and ``max`` decided by the
  value ranges of loop variables, bound scalars and enclosing branch conditions (``i // 8`` -> ``0``,
  ``i % 8`` -> ``i`` for ``i in pl.range(8)``). An INDEX / INT64 sum or difference becomes its canonical affine form
  (:mod:`pypto.ir.affine`) when that is smaller: ``c + 128 - (c + 64)`` -> ``64``.
  Shape, stride and valid-shape expressions inside types are folded the same way.
* A scalar variable assigned once is bound: to a constant at the function's top level (then it
  is substituted everywhere, types included), otherwise only its value range is recorded, within
  its region. Only variables defined once are bound or narrowed by conditions, so the pass is also
  correct on pre-SSA code.
* Constants fold exactly as the reference interpreter computes them (one definition, in
  :mod:`pypto.ir.scalar_eval`): integers wrap to the dtype's width, FP32/FP16/BF16 round to
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

from collections import Counter
from typing import Any

from pypto.analysis import (
    deep_summary,
    defined_vars,
    expr_calls,
    expr_vars,
    function_index,
    stmt_defs,
    stmt_evaluated,
    type_vars,
    walk,
)

from pypto.ir.affine import Memo, simplify_index
from pypto.ir.scalar_eval import constant_value, fold_binary, fold_unary
from pypto.ir import expr as E
from pypto.ir.datatype import DataType
from pypto.ir.enums import ForKind
from pypto.ir.expr import BinaryExpr, Call, ConstBool, ConstFloat, ConstInt, Expr, UnaryExpr, Var
from pypto.ir.function import Function
from pypto.ir.node import ModelBase
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, BreakStmt, ContinueStmt, EvalStmt, ForStmt, IfStmt, Stmt, WhileStmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.type_base import ScalarType
from pypto.ir.types import ShapedType

from .ctrl_flow_transform import jumps
from pypto.transform.rewrite import Result, Rewrite, RewritePass, on
from pypto.transform.util import LEAVES, any_contains, contains, keep_list, rebuild, straight_line

Range = tuple[int, int]

_FOLDABLE = (BinaryExpr, UnaryExpr)
# The exact classes of call operands with nothing to fold (an IterArg is a Var subclass).
_LEAF_TYPES = frozenset({Var, E.IterArg, ConstInt, ConstFloat, ConstBool})
_COMPARE = (E.Eq, E.Ne, E.Lt, E.Le, E.Gt, E.Ge)
_ARITH = (E.Add, E.Sub, E.Mul, E.Min, E.Max)
_SUMS = frozenset({E.Add, E.Sub})  # where affine terms can cancel or constants merge


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


def _operands(e: Expr) -> list[Expr]:
    """The operands whose ranges give the range of ``e``."""
    if isinstance(e, _ARITH):
        return [e.left, e.right]
    if isinstance(e, (E.FloorDiv, E.FloorMod)) and isinstance(e.right, ConstInt) and e.right.value > 0:
        return [e.left]
    return []


def _range_of(e: Expr, ranges: list[Range | None]) -> Range | None:
    """The range of ``e`` from those of its operands."""
    if any(r is None for r in ranges):
        return None
    if isinstance(e, _ARITH):
        a, b = ranges
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
    (a,), c = ranges, e.right.value
    if isinstance(e, E.FloorDiv):
        return a[0] // c, a[1] // c
    return (a[0] % c, a[1] % c) if a[0] // c == a[1] // c else (0, c - 1)


class Simplify(RewritePass):
    """Fold constants and identities, bind constants, collapse decided ifs and 0/1-trip loops, DCE.

    before:  n = 4                             after:  y = pl.tensor.create([8], dtype=pl.FP32)
             m = n * 2
             if m > 4:
                 y = pl.tensor.create([m], dtype=pl.FP32)
             ...
    """

    types = True

    def applies(self, func: Function) -> bool:
        return self._may_fold(func) and not _settled(func)

    def _may_fold(self, func: Function) -> bool:
        """False when no statement, value or type of ``func`` holds anything to fold or bind."""
        stmts = straight_line(func)
        if stmts is None:
            index = function_index(func)
            if index.has(BinaryExpr, UnaryExpr, IfStmt, ForStmt, WhileStmt):
                return True
            kinds = [s.var.type for s in index.of(AssignStmt)]
            return any(isinstance(t, ScalarType) or isinstance(t, ShapedType) and not _static(t) for t in kinds)
        # A straight-line function: one pass over its statements, types and values together.
        for s in stmts:
            kind = type(s)
            if kind is AssignStmt:
                t = s.var.type
                if isinstance(t, ScalarType):
                    return True
                if isinstance(t, ShapedType) and not _CONST_INT.issuperset(map(type, t.shape)):  # _static, inlined
                    return True
                value = s.value
                # Most kernel statements: an op call of variables and constants, nothing to fold.
                if type(value) is Call and not value.kwargs and _LEAF_TYPES.issuperset(map(type, value.args)):
                    if not value.attrs.__pydantic_fields_set__:
                        continue
            elif kind is EvalStmt:
                value = s.expr
            elif any_contains(s.value, _FOLDABLE):  # a return or a yield
                return True
            else:
                continue
            if not isinstance(value, LEAVES) and contains(value, _FOLDABLE):
                return True
        return False

    def function(self, func: Function) -> Function:
        self.once = {v for v, n in Counter(defined_vars(func)).items() if n == 1}
        self.affine: Memo = {}
        new = super().function(func)
        if not any(map(_removable, function_index(new).of(AssignStmt))):
            return new  # the sweep would remove nothing (most functions: no scalar temporaries left)
        return rebuild(new, body=_DeadCode().sweep(new, new.body))

    # ---- expressions -------------------------------------------------------------------------

    @on(BinaryExpr)
    def _binary(self, node: BinaryExpr) -> Expr:
        a, b = constant_value(node.left), constant_value(node.right)
        if a is not None and b is not None:
            folded = _make(fold_binary(type(node), a, b, node.dtype), node.dtype, node.span)
            if folded is not None:
                return folded
        simpler = _identity(node, a, b)
        if simpler is not None:
            return simpler
        if type(node) in _SUMS:
            simpler = simplify_index(node, self.affine)
            if simpler is not node:
                return simpler
        if type(node) in _COMPARE:
            decided = self.decide(node)
            if decided is not None:
                return ConstBool(decided, node.span)
        return self.by_range(node)

    def by_range(self, node: BinaryExpr) -> Expr:
        """Integer ``x // c`` and ``x % c`` (``c > 0``) and ``min``/``max`` decided by value ranges:
        ``i // 8`` -> ``0`` and ``i % 8`` -> ``i`` for ``i in pl.range(8)``, ``min(i, n)`` -> ``i``
        where ``i < n`` always holds."""
        cls = type(node)
        if not node.dtype.is_int() or cls not in (E.FloorDiv, E.FloorMod, E.Min, E.Max):
            return node
        if cls in (E.Min, E.Max):
            a, b = self.interval(node.left), self.interval(node.right)
            if a is None or b is None:
                return node
            first = a[1] <= b[0] if cls is E.Min else a[0] >= b[1]
            second = b[1] <= a[0] if cls is E.Min else b[0] >= a[1]
            keep = node.left if first else node.right if second else None
            return keep if keep is not None and _same_dtype(keep, node.dtype) else node
        c = constant_value(node.right)
        r = self.interval(node.left) if isinstance(c, int) and not isinstance(c, bool) and c > 0 else None
        if r is None or r[0] // c != r[1] // c:
            return node
        if cls is E.FloorDiv:
            return ConstInt(r[0] // c, node.dtype, node.span)
        return node.left if r[0] // c == 0 and _same_dtype(node.left, node.dtype) else node

    @on(UnaryExpr)
    def _unary(self, node: UnaryExpr) -> Expr:
        v = constant_value(node.operand)
        if v is None:
            return node
        return _make(fold_unary(type(node), v, node.dtype), node.dtype, node.span) or node

    # ---- value ranges (facts of the scoped environment, keyed by variable) -------------------

    def interval(self, e: Expr) -> Range | None:
        """The value range of ``e`` (bottom-up with a stack: expressions may be deep)."""
        known: dict[int, Range | None] = {}
        todo: list[tuple[Expr, bool]] = [(e, False)]
        while todo:
            node, ready = todo.pop()
            operands = _operands(node)
            if operands and not ready:
                todo.append((node, True))
                todo.extend((x, False) for x in operands)
            elif isinstance(node, ConstInt):
                known[id(node)] = node.value, node.value
            elif isinstance(node, Var):
                known[id(node)] = self.env.get(node)
            else:
                known[id(node)] = _range_of(node, [known[id(x)] for x in operands]) if operands else None
        return known[id(e)]
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
            lo, hi = self.env.get(var, (-(2**63), 2**63 - 1))
            if rel is E.Lt:
                hi = min(hi, bound[1] - 1)
            elif rel is E.Le:
                hi = min(hi, bound[1])
            elif rel is E.Gt:
                lo = max(lo, bound[0] + 1)
            else:
                lo = max(lo, bound[0])
            self.env[var] = (lo, hi)

    # ---- statements --------------------------------------------------------------------------

    @on(AssignStmt)
    def _assign(self, s: AssignStmt) -> Result:
        value = self.expr(s.value)
        var = self.define(s.var)
        if isinstance(var.type, ScalarType) and s.var in self.once:
            if len(self.env.maps) == 1 and isinstance(value, (ConstInt, ConstFloat, ConstBool)):
                self.bind(s.var, value)  # a top-level constant: substituted everywhere
            else:
                r = self.interval(value)
                if r is not None:
                    self.env[var] = r
        return rebuild(s, var=var, value=value)

    def inline(self, body: Stmt | None, return_vars: list[Var], yields: bool = True) -> list[Stmt]:
        """The statements of a body that replaces its if or loop; its final yield (if ``yields``)
        binds ``return_vars``."""
        with self.scope(remap=False):
            stmts = self.block(flatten_to_stmts(body) if body is not None else [])
        if yields and stmts and isinstance(stmts[-1], YieldStmt) and len(stmts[-1].value) == len(return_vars):
            for var, value in zip(return_vars, stmts.pop().value):
                self.bind(var, value)
        return stmts

    def branch(self, body: Stmt, cond: Expr, holds: bool) -> Stmt:
        with self.scope():
            self.refine(cond, holds)
            return self.reblock(body, self.block(flatten_to_stmts(body)))

    @on(IfStmt)
    def _if(self, s: IfStmt) -> Result:
        cond = self.expr(s.condition)
        if isinstance(cond, ConstBool):
            chosen = s.then_body if cond.value else s.else_body
            last = flatten_to_stmts(chosen)[-1:] if chosen is not None else []
            if not s.return_vars or last and isinstance(last[0], YieldStmt) and len(last[0].value) == len(s.return_vars):
                return self.inline(chosen, s.return_vars, yields=bool(s.return_vars))
        return_vars = [self.define(v) for v in s.return_vars]
        then = self.branch(s.then_body, cond, True)
        other = self.branch(s.else_body, cond, False) if s.else_body is not None else None
        return rebuild(
            s, condition=cond, then_body=then, else_body=other, return_vars=keep_list(return_vars, s.return_vars)
        )

    @on(ForStmt)
    def _for(self, s: ForStmt) -> Result:
        start, stop, step = self.expr(s.start), self.expr(s.stop), self.expr(s.step)
        bounds = [constant_value(x) for x in (start, stop, step)]
        pure = s.kind is ForKind.Sequential and not s.attrs
        if pure and all(isinstance(x, int) and not isinstance(x, bool) for x in bounds) and bounds[2] != 0:
            trips = len(range(*bounds))
            inits = [self.expr(ia.initValue) for ia in s.iter_args]
            if trips == 0:
                for var, value in zip(s.return_vars, inits):
                    self.bind(var, value)
                return None
            if trips == 1 and not any(jumps(x, (BreakStmt, ContinueStmt)) for x in flatten_to_stmts(s.body)):
                # A binder the body re-assigns (surface programs only) is set once, not substituted.
                entry: list[Stmt] = []
                for var, value in [(s.loop_var, start), *zip(s.iter_args, inits)]:
                    if var in self.once:
                        self.bind(var, value)
                    else:
                        entry.append(AssignStmt(var, value, s.span))
                return entry + self.inline(s.body, s.return_vars)
        iter_args = [self.define(ia) for ia in s.iter_args]
        loop_var = self.define(s.loop_var)
        facts: dict[Any, Range] = {}
        r0, r1, r2 = (self.interval(x) for x in (start, stop, step))
        if r0 and r1 and r2 and r2[0] == r2[1] and r2[0] > 0 and s.loop_var in self.once:
            facts[loop_var] = (r0[0], max(r0[0], r1[1] - 1))
        body = self.body(s.body, facts)
        return_vars = [self.define(v) for v in s.return_vars]
        return rebuild(
            s,
            loop_var=loop_var,
            start=start,
            stop=stop,
            step=step,
            iter_args=keep_list(iter_args, s.iter_args),
            body=body,
            return_vars=keep_list(return_vars, s.return_vars),
        )


def _settled(func: Function) -> bool:
    """True when the rewrite and the sweep would both return ``func`` as it is, told without them for
    the usual orchestration (loops whose offsets scale the loop variable, ``i * 64``): no branch, no
    while, no operator but products of a non-constant by a constant other than 0 and 1 (which nothing
    folds, ranges do not decide and affine forms do not shorten), none in a type, no scalar bound to
    a constant, no loop of a constant 0 or 1 trips, and no removable assignment that nothing reads.
    False sends the function through the rewrite."""
    index = function_index(func)
    classes = index.classes
    if IfStmt in classes or WhileStmt in classes:
        return False
    for cls in classes:
        if issubclass(cls, (BinaryExpr, UnaryExpr)) and cls is not E.Mul:
            return False
    for node in index.of(E.Mul):
        a, b = constant_value(node.left), constant_value(node.right)
        if a is not None and b is not None or a in (0, 1) or b in (0, 1):  # ``None in (0, 1)`` is False
            return False
    for t in (*index.types, *func.return_types):
        if any(issubclass(c, (BinaryExpr, UnaryExpr)) for c in deep_summary(t)[1]):
            return False
    for call in index.of(Call):
        if call.kwargs and any(isinstance(v, _MAY_HOLD_IR) for v in call.kwargs.values()):
            return False  # a type in a keyword would be entered by the rewrite, not by the index
    assigns = index.of(AssignStmt)
    for s in assigns:
        if isinstance(s.value, (ConstInt, ConstFloat, ConstBool)) and isinstance(s.var.type, ScalarType):
            return False  # bound (or its range recorded) and substituted
    for loop in index.of(ForStmt):
        bounds = [constant_value(x) for x in (loop.start, loop.stop, loop.step)]
        if (loop.kind is ForKind.Sequential and not loop.attrs and bounds[2] != 0
                and all(isinstance(x, int) and not isinstance(x, bool) for x in bounds) and len(range(*bounds)) <= 1):
            return False
    removable = [s.var for s in assigns if _removable(s)]
    if removable:
        used = _used(func, func.body)
        return all(v in used for v in removable)
    return True


# Keyword values that may hold an IR object (the others: flags, numbers, dtypes, enums).
_MAY_HOLD_IR = (ModelBase, list, tuple, dict)


def _static(t: ShapedType) -> bool:
    return _CONST_INT.issuperset(map(type, t.shape))  # one scan in C (ConstInt has no subclasses)


_CONST_INT = frozenset({ConstInt})


class _DeadCode(Rewrite):
    """Removes unused scalar assignments whose value has no call (TaskIds kept), to a fixpoint."""

    def sweep(self, func: Function, body: Stmt) -> Stmt:
        while True:
            self.start()
            self.used = _used(func, body)
            swept = self.reblock(body, self.block(flatten_to_stmts(body)))
            if swept is body:
                return body
            body = swept

    @on(AssignStmt)
    def _assign(self, s: AssignStmt) -> Result:
        return None if s.var not in self.used and _removable(s) else s


def _removable(s: AssignStmt) -> bool:
    """True when the sweep removes ``s`` if its variable is unused: a scalar (not a TaskId) whose
    value has no call."""
    t = s.var.type
    return isinstance(t, ScalarType) and t.dtype != DataType.TASK_ID and not expr_calls(s.value)


def _used(func: Function, body: Stmt) -> set[Var]:
    """Variables read by expressions or appearing in types."""
    used: set[Var] = set()
    for p in func.params:
        type_vars(p.type, used)
    for node in walk(body):
        if isinstance(node, Stmt):
            for e in stmt_evaluated(node):
                used.update(expr_vars(e))
            for v in stmt_defs(node):
                type_vars(v.type, used)
    return used
