"""Which variables of a pre-SSA function are one source variable: ConvertToSSA's view of re-assignment.

The parser makes a new ``Var`` for a straight-line re-assignment; a re-assignment of a name another
block bound (an enclosing one, or an earlier branch or loop body whose names stay bound after it)
re-defines that block's ``Var``, except in ``strict_ssa`` functions, where each body is a scope of
its own. So a variable read after the block defining it ends stands for its name, as in Python:
when a pass moved a straight-line re-assignment into a branch (CtrlFlowTransform guarding the code
after an early return), the new variable re-assigns the one its name was bound to before (Python's
scoping: names stay bound after the body defining them; a loop's variable and iter_args only inside
the loop), if both have the same type. :func:`source_variables` maps such variables to the first
variable of their name; :func:`origins` gives every re-assignment's first variable (for ordering).
"""

from __future__ import annotations

from pypto.ir.expr import Var
from pypto.ir.function import Function
from pypto.ir.stmt import AssignStmt, ForStmt, IfStmt, ScopeStmt, SeqStmts, Stmt, WhileStmt

from .defuse import block, expr_vars, stmt_exprs


class _Walk:
    """One walk in statement order keeping both scopings: Python's name bindings and the blocks."""

    def __init__(self, func: Function) -> None:
        self.names: dict[str, Var] = {}
        self.frames: list[set[Var]] = [set(func.params)]
        self.defined: set[Var] = set(func.params)
        self.leaked: set[Var] = set()
        self.redefinitions: list[tuple[Var, Var]] = []  # (new variable, the one its name was bound to)
        for p in func.params:
            self.names[p.name_hint] = p

    def frame_of(self, var: Var) -> int | None:
        for depth in range(len(self.frames) - 1, -1, -1):
            if var in self.frames[depth]:
                return depth
        return None

    def use(self, stmt: Stmt) -> None:
        for expr in stmt_exprs(stmt):
            for var in expr_vars(expr):
                if var in self.defined and self.frame_of(var) is None:
                    self.leaked.add(var)

    def bind(self, var: Var) -> None:
        self.frames[-1].add(var)
        self.defined.add(var)
        self.names[var.name_hint] = var

    def assign(self, var: Var) -> None:
        bound = self.names.get(var.name_hint)
        if bound is not None and bound is not var and bound.type == var.type:
            self.redefinitions.append((var, bound))
        self.bind(var)

    def body(self, stmt: Stmt | None, binders: list[Var]) -> None:
        saved = {v.name_hint: self.names.get(v.name_hint) for v in binders}
        self.frames.append(set())
        for var in binders:
            self.bind(var)
        self.block(stmt)
        self.frames.pop()
        for name, var in saved.items():
            if var is None:
                self.names.pop(name, None)
            else:
                self.names[name] = var

    def block(self, stmt: Stmt | None) -> None:
        for item in block(stmt):
            self.stmt(item)

    def stmt(self, stmt: Stmt) -> None:
        self.use(stmt)
        if isinstance(stmt, SeqStmts):
            self.block(stmt)
        elif isinstance(stmt, ScopeStmt):
            self.block(stmt.body)
        elif isinstance(stmt, IfStmt):
            self.body(stmt.then_body, [])
            self.body(stmt.else_body, [])
            for var in stmt.return_vars:
                self.bind(var)
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            binders = ([stmt.loop_var] if isinstance(stmt, ForStmt) else []) + list(stmt.iter_args)
            if isinstance(stmt, WhileStmt):
                saved = self.frames
                self.frames = saved + [set(binders)]
                for var in expr_vars(stmt.condition):
                    if var in self.defined and self.frame_of(var) is None:
                        self.leaked.add(var)
                self.frames = saved
            self.body(stmt.body, binders)
            for var in stmt.return_vars:
                self.bind(var)
        elif isinstance(stmt, AssignStmt):
            self.assign(stmt.var)


def _walk(func: Function) -> _Walk:
    walk = _Walk(func)
    walk.block(func.body)
    return walk


def source_variables(func: Function) -> dict[Var, Var]:
    """Each variable read after its block that re-assigns an earlier one (see the module
    docstring), mapped to the first variable of that name; others are not in the map."""
    walk = _walk(func)
    first: dict[Var, Var] = {}
    for var, bound in walk.redefinitions:
        if var in walk.leaked:
            first[var] = first.get(bound, bound)
    return first


def origins(func: Function) -> dict[Var, Var]:
    """Each variable that re-assigns a name bound to a variable of the same type, mapped to the
    first variable of that chain of re-assignments."""
    first: dict[Var, Var] = {}
    for var, bound in _walk(func).redefinitions:
        first[var] = first.get(bound, bound)
    return first
