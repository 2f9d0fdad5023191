"""NormalizeReturnOrder: kernels return their written parameters themselves, in parameter order
(docs/passes.md#normalizereturnorder)."""

from __future__ import annotations

from collections.abc import Generator, Sequence

from pypto.analysis import function_index
from pypto.analysis.roots import written_arg
from pypto.analysis.index import derive_index
from pypto.languages.invariants import ReturnParamsExplicit
from pypto.languages.invariants.functions import _param_aliases as param_aliases
from pypto.languages.placed import placed

from pypto.ir.enums import FunctionType, ParamDirection, is_incore_type
from pypto.ir.expr import Call, Expr, GlobalVar, TupleGetItemExpr, Var
from pypto.ir.function import Function, Program
from pypto.ir.node import replace
from pypto.ir.parts import copy_parts
from pypto.ir.stmt import AssignStmt, ReturnStmt, Stmt
from pypto.ir.type_base import TupleType
from pypto.ir.types import TensorType

from pypto.transform.base import ProgramPass
from pypto.transform.errors import PassError
from pypto.transform.memref_util import block_like
from pypto.transform.program_rebuild import with_functions
from pypto.transform.rewrite import BODILESS, Result, Rewrite, on
from pypto.transform.util import rebuild, same_list, straight_line

_WRAPPERS = (FunctionType.Group, FunctionType.Spmd)


class _Returns(Rewrite):
    """Return statements with write-backs replaced by their parameters, then permuted."""

    def __init__(self, alias: dict[Var, Var], order: list[int] | None) -> None:
        self.alias, self.order = alias, order

    def block(self, stmts: Sequence[Stmt]) -> list[Stmt]:
        # Only returns and the bodies that may hold one change: other statements are kept unvisited
        # (a block of statements without bodies, most kernels, is not walked statement by statement).
        if BODILESS.issuperset(map(type, stmts)):
            return [self._return(s) if type(s) is ReturnStmt else s for s in stmts]
        return super().block(stmts)

    def straight(self, func: Function, stmts: list[Stmt]) -> Function:
        """``func`` rewritten, its body being the statements ``stmts`` of :func:`straight_line`: what
        :meth:`function` makes of it, without its generic steps (parameters, flattening, a validated
        block). Only returns change: the block is a copy of the validated one holding validated
        statements (a malformed one is still refused at the next boundary check)."""
        out = self.block(stmts)
        if same_list(out, stmts):
            return func
        return copy_parts(func, {"body": block_like(func.body, out)})

    def stmt(self, node: Stmt) -> Result:
        return node if type(node) in BODILESS and type(node) is not ReturnStmt else super().stmt(node)

    @on(ReturnStmt)
    def _return(self, node: ReturnStmt) -> Result:
        values = [self.param(self.alias, self.expr(v)) for v in node.value]
        if self.order is not None:
            values = [values[i] for i in self.order]
        if same_list(values, node.value):
            return node
        return copy_parts(node, {"value": values})  # a return derives nothing from its values (Rewrite.children)

    @staticmethod
    def param(alias: dict[Var, Var], value: Expr) -> Expr:
        """The parameter a returned tensor variable is (``value`` itself otherwise)."""
        if isinstance(value, Var) and isinstance(value.type, TensorType):
            return alias.get(value, value)
        return value


class _Callers(Rewrite):
    """Results of calls to reordered functions: the tuple in the new order, items re-indexed."""

    def __init__(self, inverse: dict[str, list[int]], pass_: ProgramPass) -> None:
        self.inverse, self.pass_ = inverse, pass_
        self.results: dict[Var, list[int]] = {}

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        value = self.expr(node.value)
        inverse = self._reordered(value)
        if inverse is None or not isinstance(value.type, TupleType):
            return rebuild(node, value=value)
        self._check_uses(node.var, value)
        old = value.type.types
        rtype = TupleType([old[inverse.index(j)] for j in range(len(old))])
        value = Call(value.op, list(value.args), dict(value.kwargs), value.attrs, rtype, value.span)
        var = Var(node.var.name_hint, rtype, node.var.span)
        self.bind(node.var, var)
        self.results[var] = inverse
        return AssignStmt(var, value, node.span)

    def _reordered(self, value: Expr) -> list[int] | None:
        if isinstance(value, Call) and isinstance(value.op, GlobalVar):
            return self.inverse.get(value.op.name)
        return None

    def _check_uses(self, var: Var, call: Call) -> None:
        index = function_index(self.func)
        items = sum(1 for t in index.of(TupleGetItemExpr) if t.tuple is var)
        uses = sum(1 for v in index.of(Var) if v is var) - 1  # the definition is one occurrence
        if uses != items:
            raise PassError(
                self.pass_.name,
                f"the results of '{call.op.name}' are used as a whole tuple; only their items can follow the "
                "reordered returns (unpack them: a, b = ...)",
                call.span,
            )

    @on(TupleGetItemExpr)
    def _item(self, node: TupleGetItemExpr) -> Expr:
        inverse = self.results.get(node.tuple) if isinstance(node.tuple, Var) else None
        if inverse is None:
            return node
        return TupleGetItemExpr(node.tuple, inverse[node.index], node.span)


def _returned_aliases(func: Function, stmts: list[Stmt] | None) -> tuple[dict[Var, Var], list[ReturnStmt]]:
    """The returns of ``func`` and the parameter each returned variable is (what
    :func:`param_aliases` maps it to, where that is another variable); ``stmts``: its
    :func:`straight_line` statements."""
    if stmts is None:
        alias = {v: p for v, p in param_aliases(func).items() if v is not p}
        return alias, list(function_index(func).of(ReturnStmt))
    returns = [s for s in stmts if type(s) is ReturnStmt]
    # A straight-line body (most kernels): follow each returned variable's definitions back instead of
    # the aliases of every variable (param_aliases's forward walk asks the op registry of every call).
    params = set(func.params)
    defs: dict[Var, list[int]] = {}  # each variable's assignments, by position
    for j, s in enumerate(stmts):
        if isinstance(s, AssignStmt):
            defs.setdefault(s.var, []).append(j)
    found: dict[Var, Var] = {}
    for r in returns:
        for v in r.value:
            p = _flat_alias(v, len(stmts), stmts, defs, params) if isinstance(v, Var) else None
            if p is not None and p is not v:
                found[v] = p
    return found, returns


def _flat_alias(e: Expr, end: int, stmts: list[Stmt], defs: dict[Var, list[int]], params: set[Var]) -> Var | None:
    """What :func:`param_aliases`'s walk maps ``e`` to after the first ``end`` of ``stmts`` (no loop
    among them): the target of its latest assignment there that has one, else itself if a parameter.
    A chain of writes (``y1 = pl.store(t, o, y0)``, ...) is followed with a stack of its own, not by
    recursion: a kernel may store into one output a thousand times."""

    def follow(e: Expr, end: int) -> Generator[tuple[Expr, int], Var | None, Var | None]:
        # Yields (operand, position) to ask that operand's target before the position (sent back).
        if not isinstance(e, Var):
            return None
        for j in reversed(defs.get(e, ())):
            if j >= end:
                continue
            value = stmts[j].value  # type: ignore[attr-defined]
            target = yield value, j
            if target is None:
                written = written_arg(value)
                target = (yield written, j) if written is not None else None
            if target is not None:
                return target
        return e if e in params else None

    stack = [follow(e, end)]
    answer: Var | None = None
    while True:
        try:
            asked = stack[-1].send(answer)
        except StopIteration as done:
            stack.pop()
            if not stack:
                return done.value
            answer = done.value
        else:
            stack.append(follow(*asked))
            answer = None


def _order(func: Function, returns: list[Expr]) -> list[int] | None:
    """Return positions sorted so the values written back to Out/InOut parameters come first, in
    parameter order (None when that is the order already)."""
    written = [p for p, d in zip(func.params, func.param_directions) if d in (ParamDirection.Out, ParamDirection.InOut)]
    rank = {p: i for i, p in enumerate(written)}
    key = [(rank[v], i) if isinstance(v, Var) and v in rank else (len(written), i) for i, v in enumerate(returns)]
    order = sorted(range(len(returns)), key=lambda i: key[i])
    return None if order == list(range(len(returns))) else order


class NormalizeReturnOrder(ProgramPass):
    """Make each kernel or wrapper return the parameter it writes back, and kernels return their
    written parameters in parameter order; callers' tuple items follow.

    before:  def k(self, x, p: Out, q: Out):          after:  def k(self, x, p: Out, q: Out):
                 rq = pl.store(e, [0, 0], q)                       rq = pl.store(e, [0, 0], q)
                 rp = pl.store(t, [0, 0], p)                       rp = pl.store(t, [0, 0], p)
                 return rq, rp                                     return p, q
             r = self.k(x, p, q); a = r[0]; b = r[1]           r = self.k(x, p, q); a = r[1]; b = r[0]
    """

    source = placed
    produces = frozenset({ReturnParamsExplicit})

    def run(self, program: Program) -> Program:
        funcs: dict[str, Function] = {}
        inverse: dict[str, list[int]] = {}
        for func in program.functions.values():
            funcs[func.name] = self._returns(func, inverse)
        if inverse:
            for name, func in funcs.items():
                callers = _Callers(inverse, self)
                callers.start(func, program)
                funcs[name] = callers.function(func)
        return with_functions(program, list(funcs.values()))

    def _returns(self, func: Function, inverse: dict[str, list[int]]) -> Function:
        if not (is_incore_type(func.func_type) or func.func_type in _WRAPPERS):
            return func
        stmts = straight_line(func)
        alias, final = _returned_aliases(func, stmts)
        values = [alias.get(v, v) for v in final[-1].value] if final else []
        order = _order(func, values) if is_incore_type(func.func_type) and len(values) > 1 else None
        if order is None and not any(_Returns.param(alias, v) is not v for r in final for v in r.value):
            return func  # already returns its parameters in order: the same object, so checks stay cached
        rewrite = _Returns(alias, order)
        rewrite.start(func)
        new = rewrite.function(func) if stmts is None else rewrite.straight(func, stmts)
        derive_index(new, func)  # every statement but the returns is kept: the checks walk only those
        if order is None:
            return new
        inverse[func.name] = [order.index(i) for i in range(len(order))]
        return replace(new, return_types=[func.return_types[i] for i in order])
