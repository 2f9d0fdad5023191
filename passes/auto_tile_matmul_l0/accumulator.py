"""A matmul_acc accumulator too big for L0C: the Acc variables one ``tile.create`` flows into (loop
carries, branch phis, ``tile.matmul_acc`` accumulators) and the copy, for one output block, of the
statement computing it (docs/passes.md#autotilematmull0)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pypto.analysis import op_name, walk
from pypto.ir.expr import Call, Expr, IterArg, Var
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, ReturnStmt, Stmt, WhileStmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.type_base import Type
from pypto.ir.types import TensorType

from pypto.transform.rewrite import Result, Rewrite, on

Fail = Callable[[str, Span], Exception]


@dataclass
class AccWeb:
    """The variables holding the accumulator created as ``init`` inside one statement, and the
    ``tile.matmul_acc`` statements adding to it."""

    init: Var
    vars: set[Var] = field(default_factory=set)
    products: list[AssignStmt] = field(default_factory=list)


def _last_yield(body: Stmt | None) -> YieldStmt | None:
    stmts = flatten_to_stmts(body) if body is not None else []
    return stmts[-1] if stmts and isinstance(stmts[-1], YieldStmt) else None


def acc_web(root: Stmt, init: Var, fail: Fail) -> AccWeb:
    """The accumulator web of ``init`` in ``root``. Errors (``fail``): a reader of the accumulator
    other than a ``tile.matmul_acc`` adding to it, a loop carrying it into a different slot, and a
    statement in ``root`` writing a tensor (it would run once per block)."""
    web = AccWeb(init, {init})
    nodes = walk(root)
    grew = True
    while grew:
        found: list[Var] = []
        for n in nodes:
            if isinstance(n, (ForStmt, WhileStmt)):
                found += [v for ia, rv in zip(n.iter_args, n.return_vars) if ia.initValue in web.vars
                          for v in (ia, rv)]
            elif isinstance(n, IfStmt):
                for y in (_last_yield(n.then_body), _last_yield(n.else_body)):
                    found += [rv for v, rv in zip(y.value, n.return_vars) if v in web.vars] if y else []
            elif (isinstance(n, AssignStmt) and isinstance(n.value, Call) and op_name(n.value) == "tile.matmul_acc"
                  and n.value.args[0] in web.vars):
                found.append(n.var)
        grew = not set(found) <= web.vars
        web.vars.update(found)
    for n in nodes:
        _check(n, web, fail)
    return web


def _check(n: object, web: AccWeb, fail: Fail) -> None:
    """Record ``n`` if it adds to the accumulator; fail if it reads it otherwise or writes a tensor."""
    if isinstance(n, AssignStmt):
        if isinstance(n.var.type, TensorType):
            raise fail(f"'{n.var.name_hint}' writes a tensor inside the statement computing the accumulator "
                       f"'{web.init.name_hint}', which runs once per output block", n.span)
        value = n.value
        if n.var in web.vars and isinstance(value, Call) and op_name(value) == "tile.matmul_acc":
            web.products.append(n)
            args = value.args[1:]
        else:
            args = value.args if isinstance(value, Call) else [value]
        _no_read(args, op_name(value) if isinstance(value, Call) else "an assignment", n.span, web, fail)
    elif isinstance(n, EvalStmt):
        raise fail(f"a statement run for its effect inside the statement computing the accumulator "
                   f"'{web.init.name_hint}', which runs once per output block", n.span)
    elif isinstance(n, ReturnStmt):
        _no_read(n.value, "return", n.span, web, fail)
    elif isinstance(n, (ForStmt, WhileStmt)):
        y = _last_yield(n.body)
        for i, ia in enumerate(n.iter_args):
            if y is not None and i < len(y.value) and (y.value[i] in web.vars) != (ia in web.vars):
                raise fail(f"the loop carries the accumulator '{web.init.name_hint}' in and out of different "
                           f"slots", n.span)
    elif isinstance(n, IfStmt):
        _no_read([n.condition], "a condition", n.span, web, fail)
        yields = [y for y in (_last_yield(n.then_body), _last_yield(n.else_body)) if y is not None]
        for i, rv in enumerate(n.return_vars):
            if any((y.value[i] in web.vars) != (rv in web.vars) for y in yields):
                raise fail(f"one branch yields the accumulator '{web.init.name_hint}' and the other another tile",
                           n.span)


def _no_read(args: list[Expr], what: str, span: Span, web: AccWeb, fail: Fail) -> None:
    for a in args:
        read = [v for v in walk(a) if isinstance(v, Var) and v in web.vars] if isinstance(a, Expr) else []
        if read:
            raise fail(f"{what} reads the accumulator '{read[0].name_hint}' before its last tile.matmul_acc",
                       span)


class BlockCopy(Rewrite):
    """A copy of the statement computing an accumulator, for one output block: every variable it
    defines is new (named by ``fresh``), those of the accumulator with ``block_type``, and each
    ``tile.matmul_acc`` into it is replaced by ``product(stmt, args)`` (its statements and result)."""

    def __init__(self, web: AccWeb, block_type: Type, fresh: Callable[[str], str],
                 product: Callable[[AssignStmt, list[Expr]], tuple[list[Stmt], Var]]) -> None:
        self.start()
        self.web, self.block_type, self.fresh, self.product = web, block_type, fresh, product

    def define(self, var: Var) -> Var:
        vtype = self.block_type if var in self.web.vars else var.type
        name = self.fresh(var.name_hint)
        if isinstance(var, IterArg):
            new: Var = IterArg(name, vtype, self.expr(var.initValue), var.span)
        else:
            new = type(var)(name, vtype, var.span)
        self.bind(var, new)
        return new

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        if node.var not in self.web.vars:
            return self.children(node)
        stmts, var = self.product(node, [self.expr(a) for a in node.value.args])
        self.bind(node.var, var)
        return stmts
