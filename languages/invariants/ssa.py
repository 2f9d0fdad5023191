"""Definition and scoping invariants: SSAForm (strict, spec codes) and UseAfterDef (code 401).

Both walk a function's statements keeping the set of visible variables. Scope statements are
transparent. A branch or loop body opens a scope; for UseAfterDef a body without return vars
(pre-SSA form) leaks its definitions to the code after it, for SSAForm nothing leaks. UseAfterDef
also reads the valid shape and strides of an assigned variable's type (a value of the body used
there must be defined before) and the function's attrs (parameters and dynamic dimensions only).

Most functions (kernels) are one flat block of assignments: one shared scan of such a function
(:func:`_flat_scan`) tells whether either property holds, and only a function where one may fail is
walked by that property's full checker, which words the diagnostics.
"""

from __future__ import annotations

import itertools
import operator

from pypto.analysis import (
    block,
    defined_vars,
    expr_vars,
    function_index,
    stmt_defs,
    stmt_exprs,
    type_vars,
    view_vars,
    walk,
    walk_values,
)
from pypto.analysis.index import FunctionIndex, plain_attrs

from pypto.ir.expr import Expr, Var
from pypto.ir.function import Function, Program
from pypto.ir.span import Span
from pypto.ir.stmt import (
    AssignStmt,
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
from pypto.util import IdentityCache

from .base import Invariant, Reporter


def _flat_scan(func: Function) -> tuple[bool, bool] | None:
    """``(UseAfterDef holds, SSAForm holds)`` for a function whose body is one block of
    assignments, evaluations and returns; None for any other function (one scan serves both).

    In such a block every definition stays visible to the end, so a use is defined exactly when
    an earlier statement or a parameter defines it (else the full checker decides: a dynamic
    dimension is defined at entry), and SSA fails exactly when a definition repeats a variable (a
    new variable of an earlier name is a re-assignment in SSA form, not shadowing: one scope).
    """
    index = function_index(func)
    hit = _SCANS.get(index)
    return hit if hit is not None else _SCANS.put(index, _scan(func))


# _scan of the functions that share a node index (a function rebuilt as another kind around the same
# body and parameters, which has no attrs holding nodes): it reads only the body and the parameters.
_SCANS: IdentityCache[FunctionIndex, tuple[bool, bool] | None] = IdentityCache(20_000)


_FLAT = (AssignStmt, EvalStmt, ReturnStmt)
_TYPE = operator.attrgetter("type")


def _flat_classes(classes: frozenset[type]) -> bool:
    """True when every statement class of ``classes`` is a block, an assignment, an evaluation or a
    return (no loop, branch or scope)."""
    flat = _FLAT_SETS.get(classes)
    if flat is None:
        flat = _FLAT_SETS[classes] = not any(
            c not in _FLAT and c is not SeqStmts and issubclass(c, Stmt) for c in classes)
    return flat


# _flat_classes per set of node classes a function holds: a pydantic class's issubclass is slow, and
# functions share a few sets (kernels of the same ops).
_FLAT_SETS: dict[frozenset[type], bool] = {}


def _scan(func: Function) -> tuple[bool, bool] | None:
    """See :func:`_flat_scan`. Read off the node index with C-level maps, not a loop over the
    statements: in the pre-order, an assignment is followed by its variable and then by the nodes
    of its value, and every other variable node is a use (a parameter's own node too), which holds
    when the variable is a parameter or an earlier statement defines it: when the statement after
    the variable's first definition starts at or before the use (positions are compared, so no
    use needs a search for its statement)."""
    index = function_index(func)
    if not _flat_classes(index.classes):  # the cheapest test first: loops and branches are common
        return None
    attr_vars = _attr_vars(func)
    if attr_vars and not set(func.params).issuperset(attr_vars):
        return None
    blocks = index.positions(SeqStmts)  # (the index's own list: no list of the blocks made)
    if blocks and (len(blocks) > 1 or index.nodes[blocks[0]] is not func.body):
        return None
    params = func.params
    nodes = index.nodes
    assign_at = index.positions(AssignStmt)
    assigned = list(map(nodes.__getitem__, map(operator.add, assign_at, itertools.repeat(1))))  # their variables
    defs = [*params, *assigned]
    stmt_at = index.positions(*_FLAT)
    never = len(nodes) + 1
    # Where the statement after each statement starts, and so after each assignment.
    next_start = dict(zip(stmt_at, itertools.chain(itertools.islice(stmt_at, 1, None), (never,))))
    # Each variable's first definition: a parameter's holds from 0, a variable's after its statement.
    ready = dict(zip(reversed(defs), itertools.chain(reversed(list(map(next_start.__getitem__, assign_at))),
                                                     itertools.repeat(0))))
    ssa_ok = len(ready) == len(defs)  # (its keys are the distinct definitions)
    var_at = index.positions(Var)
    # A variable node not ready where it stands is a use before the definition, or the first
    # assignment of a variable that is no parameter (its later ones stand after that statement):
    # the uses hold exactly when the nodes not ready are as many as those variables. (One C-level
    # count, not a list of the uses made apart from the assigned variables' nodes.)
    late = sum(map(operator.gt, map(ready.get, map(nodes.__getitem__, var_at), itertools.repeat(never)),
                   var_at))
    uses_ok = late == len(ready) - len(set(params))
    if uses_ok:
        # The valid shape and strides of an assigned variable's type read values defined before it.
        types = list(map(_TYPE, assigned))
        reads = {key: view_vars(t) for key, t in dict(zip(map(id, types), types)).items()}  # few types
        if any(reads.values()):
            for var, at in zip(assigned, assign_at):
                if not all(ready.get(v, never) <= at for v in reads[id(var.type)]):
                    uses_ok = False
                    break
    return uses_ok, ssa_ok


def _dynamic_vars(func: Function) -> set[Var]:
    """Variables that only appear inside types: program-wide dynamic dimensions, defined at entry."""
    found: set[Var] = set()
    for p in func.params:
        type_vars(p.type, found)
    for t in func.return_types:
        type_vars(t, found)
    for stmt in function_index(func).of(Stmt):
        for v in stmt_defs(stmt):
            type_vars(v.type, found)
    return found - _body_vars(func)


def _body_vars(func: Function) -> set[Var]:
    """The variables the body of ``func`` defines (not its parameters)."""
    return set(defined_vars(func)) - set(func.params)


def _attr_vars(func: Function) -> list[Var]:
    """The variables the function's attrs hold (a block count, a dynamic extent)."""
    attrs = func.attrs
    if not attrs.__pydantic_fields_set__ or plain_attrs(attrs):  # flags, names, numbers (most attrs)
        return []
    return [n for n in walk_values(list(attrs.values())) if isinstance(n, Var)]


class _Visible:
    """A stack of scopes of visible variables (a count per variable: it may be added in two scopes)."""

    def __init__(self) -> None:
        self.frames: list[list[Var]] = [[]]
        self.count: dict[Var, int] = {}

    def add(self, var: Var) -> None:
        self.frames[-1].append(var)
        self.count[var] = self.count.get(var, 0) + 1

    def visible(self, var: Var) -> bool:
        return self.count.get(var, 0) > 0

    def push(self) -> None:
        self.frames.append([])

    def pop(self) -> list[Var]:
        frame = self.frames.pop()
        count = self.count
        for var in frame:
            count[var] -= 1
        return frame


class _Scopes(_Visible):
    """Visible variables, also by name (SSAForm's shadowing rule reads them)."""

    def __init__(self) -> None:
        super().__init__()
        self.by_name: dict[str, list[tuple[Var, int]]] = {}

    def add(self, var: Var) -> None:
        super().add(var)
        self.by_name.setdefault(var.name_hint, []).append((var, len(self.frames)))

    def shadows(self, var: Var) -> bool:
        """True when an enclosing scope defines another visible variable of ``var``'s name."""
        depth = len(self.frames)
        return any(v is not var and d < depth for v, d in self.by_name.get(var.name_hint, ()))

    def pop(self) -> list[Var]:
        frame = super().pop()
        for var in frame:
            same = self.by_name[var.name_hint]
            same[:] = [(v, d) for v, d in same if v is not var]
        return frame


class _SSAChecker:
    def __init__(self, report: Reporter) -> None:
        self.report = report
        self.scopes = _Scopes()
        self.defined: set[Var] = set()

    def define(self, var: Var, node: Stmt | Function) -> None:
        if var in self.defined:
            self.report.error("MULTIPLE_ASSIGNMENT", f"variable '{var.name_hint}' is defined more than once", node)
        else:
            # A new variable of a name defined earlier in the same scope is a re-assignment.
            if self.scopes.shadows(var):
                self.report.error(
                    "NAME_SHADOWING", f"'{var.name_hint}' shadows another variable of the same name", node
                )
        self.defined.add(var)
        self.scopes.add(var)

    def use(self, stmt: Stmt, exprs: tuple[Expr, ...] | None = None) -> None:
        """Check the uses in ``exprs``, the expressions of ``stmt`` (default: all of them)."""
        defined, count = self.defined, self.scopes.count
        for expr in stmt_exprs(stmt) if exprs is None else exprs:
            for var in expr_vars(expr):
                if not count.get(var) and var in defined:
                    self.report.error(
                        "SCOPE_VIOLATION", f"'{var.name_hint}' is used outside the scope that defines it", stmt
                    )

    def body(self, stmt: Stmt | None, defs: list[Var], owner: Stmt) -> None:
        self.scopes.push()
        for var in defs:
            self.define(var, owner)
        self.block(stmt)
        self.scopes.pop()

    def block(self, stmt: Stmt | None) -> None:
        # An assignment (the common statement) is checked here, without calls per statement, when its
        # reads are visible and its variable is new and of a name no visible scope defined (so no
        # diagnostic); the innermost scope is the one open now (a nested body pops its own). So are
        # the reads of the statements that define nothing and evaluate their own fields only.
        scopes, defined = self.scopes, self.defined
        count, by_name, frame, depth = scopes.count, scopes.by_name, scopes.frames[-1], len(scopes.frames)
        get = count.get
        stmts = block(stmt)
        for i, item in enumerate(stmts):
            kind = type(item)
            if kind is AssignStmt:
                if not all(map(get, expr_vars(item.value))):  # a variable not visible
                    self.use(item, (item.value,))
                var = item.var
                name = var.name_hint
                if var in defined or name in by_name:
                    self.define(var, item)
                else:  # define(var, item) for a new variable of a new name, inlined (_Scopes.add's layout)
                    defined.add(var)
                    frame.append(var)
                    count[var] = get(var, 0) + 1
                    by_name[name] = [(var, depth)]
                continue
            if isinstance(item, YieldStmt) and i != len(stmts) - 1:
                self.report.error("MISPLACED_YIELD", "a yield that is not the last statement of its block", item)
            if kind is EvalStmt or kind is ReturnStmt or kind is YieldStmt:
                values = (item.expr,) if kind is EvalStmt else tuple(item.value)  # stmt_exprs(item), inlined
                if not all(get(v) for value in values for v in expr_vars(value)):
                    self.use(item, values)
            else:
                self.stmt(item)

    def trailing_yield(self, body: Stmt | None, owner: Stmt, want: int, what: str) -> None:
        stmts = block(body)
        last = stmts[-1] if stmts else None
        if not isinstance(last, YieldStmt):
            if want:
                self.report.error("MISSING_YIELD", f"{what} does not end with a yield", owner)
        elif len(last.value) != want:
            self.report.error(
                "YIELD_COUNT_MISMATCH", f"{what} yields {len(last.value)} values for {want} carried values", last
            )

    def stmt(self, stmt: Stmt) -> None:
        """Check a statement other than an assignment (:meth:`block` checks those)."""
        if isinstance(stmt, SeqStmts):
            self.block(stmt)
        elif isinstance(stmt, ScopeStmt):
            self.use(stmt)
            self.block(stmt.body)
        elif isinstance(stmt, IfStmt):
            self.use(stmt)
            n = len(stmt.return_vars)
            if n and stmt.else_body is None:
                self.report.error("MISSING_YIELD", "an if with return vars has no else branch", stmt)
            for branch in (stmt.then_body, stmt.else_body):
                if branch is not None:
                    self.body(branch, [], stmt)
                    self.trailing_yield(branch, stmt, n, "an if branch")
            for var in stmt.return_vars:
                self.define(var, stmt)
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            self.loop(stmt)
        else:
            self.use(stmt)
            for var in stmt_defs(stmt):
                self.define(var, stmt)

    def loop(self, stmt: ForStmt | WhileStmt) -> None:
        self.use(stmt)
        if len(stmt.iter_args) != len(stmt.return_vars):
            self.report.error(
                "ITER_ARGS_RETURN_VARS_MISMATCH",
                f"{len(stmt.iter_args)} iter_args but {len(stmt.return_vars)} return vars",
                stmt,
            )
        binders = ([stmt.loop_var] if isinstance(stmt, ForStmt) else []) + list(stmt.iter_args)
        self.scopes.push()
        for var in binders:
            self.define(var, stmt)
        if isinstance(stmt, WhileStmt):
            for var in expr_vars(stmt.condition):
                if var in self.defined and not self.scopes.visible(var):
                    self.report.error(
                        "SCOPE_VIOLATION", f"'{var.name_hint}' is used outside the scope that defines it", stmt
                    )
        self.block(stmt.body)
        self.scopes.pop()
        self.trailing_yield(stmt.body, stmt, len(stmt.iter_args), "a loop body")
        for var in stmt.return_vars:
            self.define(var, stmt)


def _check_ssa(func: Function, program: Program, report: Reporter) -> None:
    flat = _flat_scan(func)
    if flat is not None and flat[1]:
        return
    checker = _SSAChecker(report)
    for p in func.params:
        checker.define(p, func)
    checker.block(func.body)


SSAForm = Invariant.per_function(
    "SSAForm",
    "each variable is defined once and used only in its scope; loops and ifs carry values through yields",
    _check_ssa,
    auto_verified=True,
)


class _DefUseChecker:
    """UseAfterDef: every use is preceded by a definition on the path to it."""

    def __init__(self, func: Function, report: Reporter) -> None:
        self.func = func
        self.report = report
        self.scopes = _Visible()
        self.dynamic: set[Var] | None = None
        self.local: set[Var] | None = None
        self.enclosing: list[Stmt] = []  # the compound statements around the one being checked

    def check_uses(self, stmt: Stmt, exprs: list) -> None:
        count = self.scopes.count
        for expr in exprs:
            for var in expr_vars(expr):
                if count.get(var):
                    continue
                if self.dynamic is None:
                    self.dynamic = _dynamic_vars(self.func)
                if var not in self.dynamic:
                    where = self.use_span(stmt, exprs, var)
                    self.report.error("401", f"'{var.name_hint}' is used before it is defined", stmt, where)

    def use_span(self, stmt: Stmt, exprs: list[Expr], var: Var) -> Span:
        """Where a use of ``var`` in ``stmt`` is reported: the statement; when a pass made it without a
        span, the innermost expression reading ``var`` that has one, else the nearest enclosing statement
        (or the function) that has one. A Var's own span is its definition, not this use."""
        if stmt.span.is_valid():
            return stmt.span
        for expr in exprs:
            reading = [n for n in walk(expr) if isinstance(n, Expr) and not isinstance(n, Var)
                       and n.span.is_valid() and var in expr_vars(n)]
            if reading:
                return reading[-1].span  # pre-order: the last one holding the use is the innermost
        return next((s.span for s in reversed(self.enclosing) if s.span.is_valid()), self.func.span)

    def check_view(self, stmt: AssignStmt) -> None:
        """The valid shape and strides of the assigned variable's type read defined values."""
        for var in view_vars(stmt.var.type):
            if not self.scopes.visible(var) and var in self.body_vars():
                message = f"'{var.name_hint}' is used in the type of '{stmt.var.name_hint}' before it is defined"
                self.report.error("401", message, stmt, self.use_span(stmt, [], var))

    def body_vars(self) -> set[Var]:
        if self.local is None:
            self.local = _body_vars(self.func)
        return self.local

    def check_attrs(self) -> None:
        """A function attribute reads parameters or dynamic dimensions, never a value of the body."""
        for var in _attr_vars(self.func):
            if var in self.body_vars():
                self.report.error(
                    "401", f"function attribute uses '{var.name_hint}', which only the body defines", self.func
                )

    def block(self, stmt: Stmt | None) -> None:
        # An assignment (the common statement) is checked here, without a call per statement: its
        # variable goes into the innermost scope, the one open now (a nested body pops its own). So
        # are the statements that define nothing and evaluate their own fields only.
        scopes = self.scopes
        count, frame = scopes.count, scopes.frames[-1]
        get = count.get
        for item in block(stmt):
            kind = type(item)
            if kind is AssignStmt:
                if not all(map(get, expr_vars(item.value))):  # a variable not visible
                    self.check_uses(item, [item.value])
                var = item.var
                if view_vars(var.type):
                    self.check_view(item)
                frame.append(var)  # scopes.add(var), inlined
                count[var] = get(var, 0) + 1
            elif kind is EvalStmt:  # (its stmt_exprs, inlined, as for returns and yields below)
                if not all(map(get, expr_vars(item.expr))):
                    self.check_uses(item, [item.expr])
            elif kind is ReturnStmt or kind is YieldStmt:
                if not all(get(v) for value in item.value for v in expr_vars(value)):
                    self.check_uses(item, list(item.value))
            else:
                self.stmt(item)

    def branch(self, body: Stmt | None, leak: bool, defs: list[Var]) -> list[Var]:
        """Check a nested body; return its definitions when they leak to the code after it."""
        self.scopes.push()
        for var in defs:
            self.scopes.add(var)
        self.block(body)
        frame = self.scopes.pop()
        bound = set(defs)
        return [v for v in frame if v not in bound] if leak else []

    def stmt(self, stmt: Stmt) -> None:
        """Check a statement other than an assignment (:meth:`block` checks those)."""
        if isinstance(stmt, (ScopeStmt, IfStmt, ForStmt, WhileStmt)):
            self.enclosing.append(stmt)
            self.compound(stmt)
            self.enclosing.pop()
        elif isinstance(stmt, SeqStmts):
            self.block(stmt)
        else:
            self.check_uses(stmt, stmt_exprs(stmt))
            for var in stmt_defs(stmt):
                self.scopes.add(var)

    def compound(self, stmt: ScopeStmt | IfStmt | ForStmt | WhileStmt) -> None:
        if isinstance(stmt, ScopeStmt):
            self.check_uses(stmt, stmt_exprs(stmt))
            self.block(stmt.body)
            task_id = stmt.attrs.get("task_id_var")  # ``with pl.at(...) as tid``: defined for the code after it
            if task_id is not None:
                self.scopes.add(task_id)
        elif isinstance(stmt, IfStmt):
            self.check_uses(stmt, [stmt.condition])
            leak = not stmt.return_vars
            leaked = self.branch(stmt.then_body, leak, []) + self.branch(stmt.else_body, leak, [])
            for var in leaked + list(stmt.return_vars):
                self.scopes.add(var)
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            self.check_uses(stmt, stmt_exprs(stmt))
            binders = ([stmt.loop_var] if isinstance(stmt, ForStmt) else []) + list(stmt.iter_args)
            self.scopes.push()
            for var in binders:
                self.scopes.add(var)
            if isinstance(stmt, WhileStmt):
                self.check_uses(stmt, [stmt.condition])
            self.block(stmt.body)
            frame = self.scopes.pop()
            bound = set(binders)
            leaked = [v for v in frame if v not in bound] if not stmt.return_vars else []
            for var in leaked + list(stmt.return_vars):
                self.scopes.add(var)


def _check_use_after_def(func: Function, program: Program, report: Reporter) -> None:
    flat = _flat_scan(func)
    if flat is not None and flat[0]:
        return
    checker = _DefUseChecker(func, report)
    for p in func.params:
        checker.scopes.add(p)
    checker.check_attrs()
    checker.block(func.body)


UseAfterDef = Invariant.per_function(
    "UseAfterDef",
    "every use is preceded by a definition: params, earlier statements, loop binders in the body",
    _check_use_after_def,
)
