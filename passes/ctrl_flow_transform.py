"""CtrlFlowTransform: remove break, continue and early returns from kernels (docs/passes.md#ctrlflowtransform).

Innermost loops first. ``continue`` goes first: the statements after a branch that continues move
into the branch's fall-through side, so no jump is left. Then ``break``: a loop that breaks becomes a
``while`` over a fresh flag ``__break_<n>``; ``break`` becomes ``flag = True`` and the rest of the
iteration moves into the other branch; a ``for`` keeps its counter in the loop variable, advanced
only while the flag is down, reads non-constant bounds once, before the loop, as the range did, and
tests the step's sign at run time when it is not a constant::

    before:  for i in pl.range(n):             after:  __break_0: pl.Scalar[pl.BOOL] = False
                 if i > 2:                             __stop_0: pl.Scalar[pl.INDEX] = n
                     break                             i: pl.Scalar[pl.INDEX] = 0
                 x = x + i                             while i < __stop_0 and not __break_0:
                                                           if i > 2:
                                                               __break_0 = True
                                                           else:
                                                               x = x + i
                                                           if not __break_0:
                                                               i = i + 1

A loop that carries values through iter_args and a final ``pl.yield_`` first loses them: its
return variables take the initial values before it and are re-assigned where it yielded, so a
``continue`` keeps the values carried so far and a ``break`` leaves with them; ConvertToSSA threads
them again.

A ``return`` of a kernel function before its last statement goes first: it becomes
``__return_<n> = True``, and the statements after the one holding it run under
``if not __return_<n>``, as does the body of a for loop holding it (the loop keeps its bounds; its
remaining iterations do nothing) and the condition of a while loop; so the last statement is the
kernel's only return. A kernel returns its outputs, so an early return must return the variables
the last one does::

    before:  for i in pl.range(4):              after:  __return_0: pl.Scalar[pl.BOOL] = False
                 out = pl.store(t, [i, 0], out)         for i in pl.range(4):
                 if i == 2:                                 if not __return_0:
                     return out                                 out = pl.store(t, [i, 0], out)
             return out                                         if i == 2:
                                                                    __return_0 = True
                                                        return out

InCore, AIC and AIV functions are rewritten, and so are the InCore scopes
(``pl.at(level=pl.Level.CORE_GROUP)``) of other functions, whose bodies become kernels when they
are outlined; the rest of orchestration code keeps its jumps. The loop restructuring is also what
ConvertToSSA uses for a jumping loop that carries values.
"""

from __future__ import annotations

from pypto.analysis import NameSupply, function_index, stmt_defs, sub_blocks, walk
from pypto.languages.invariants import StructuredCtrlFlow
from pypto.languages.surface import surface

from pypto.ir import scalar_ops
from pypto.ir.datatype import DataType
from pypto.ir.enums import ForKind, is_incore_type
from pypto.ir.expr import ConstBool, ConstInt, Expr, Var
from pypto.ir.function import Function
from pypto.ir.span import Span
from pypto.ir.node import replace
from pypto.ir.stmt import (
    AssignStmt,
    BreakStmt,
    ContinueStmt,
    ForStmt,
    IfStmt,
    InCoreScopeStmt,
    ReturnStmt,
    ScopeStmt,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from pypto.ir.transforms import flatten_to_stmts, substitute_expr, substitute_stmt
from pypto.ir.type_base import ScalarType

from pypto.transform.errors import PassError
from pypto.transform.reassign import fresh_reassignments
from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import block_of, rebuild, straight_line


def jumps(stmt: Stmt, kind: type | tuple[type, ...]) -> bool:
    """True when ``stmt`` contains a ``kind`` (break/continue) aimed at the enclosing loop."""
    if isinstance(stmt, kind):
        return True
    if isinstance(stmt, (ForStmt, WhileStmt)):
        return False
    return any(jumps(b, kind) for b in sub_blocks(stmt))


def _branch(stmt: Stmt | None) -> list[Stmt]:
    return flatten_to_stmts(stmt) if stmt is not None else []


def _remove(stmts: list[Stmt], kind: type, replacement: list[Stmt]) -> list[Stmt]:
    """``stmts`` without jumps of ``kind``: each becomes ``replacement`` and drops what follows it."""
    out: list[Stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, kind):
            return out + replacement
        if not jumps(s, kind):
            out.append(s)
            continue
        rest = stmts[i + 1 :]
        if isinstance(s, IfStmt) and not s.return_vars:
            then = _remove(_branch(s.then_body) + rest, kind, replacement)
            other = _remove(_branch(s.else_body) + rest, kind, replacement)
            out.append(
                IfStmt(
                    s.condition,
                    block_of(then, s.then_body.span),
                    block_of(other, s.span) if other else None,
                    [],
                    s.span,
                )
            )
            return out
        word = "break" if kind is BreakStmt else "continue"
        where = "a scope" if isinstance(s, ScopeStmt) else "an if with yields"
        raise PassError("CtrlFlowTransform", f"cannot move the code after a '{word}' out of {where}", s.span)
    return out


def _fixed(value: Expr, name: str, setup: list[Stmt]) -> Expr:
    """``value`` as read once at loop entry: constants as they are, anything else copied to ``name``."""
    if isinstance(value, ConstInt):
        return value
    copy = Var(name, value.type, value.span)
    setup.append(AssignStmt(copy, value, value.span))
    return copy


def _counter(loop: ForStmt, i: Var, n: int, setup: list[Stmt]) -> tuple[Expr, Expr]:
    """The continue-condition of the counter ``i`` and its increment ``i + step``.

    The condition is ``i < stop`` for a positive constant step, ``i > stop`` for a negative one, and
    ``step > 0 and i < stop or step < 0 and i > stop`` when the sign is known only at run time. A
    range reads its bounds once, before the first iteration, and the body may re-assign the variables
    they were computed from, so non-constant bounds are copied to ``__stop_<n>``/``__step_<n>`` first.
    """
    span = loop.span
    stop = _fixed(loop.stop, f"__stop_{n}", setup)
    step = _fixed(loop.step, f"__step_{n}", setup)
    up, down = scalar_ops.lt(i, stop, span), scalar_ops.gt(i, stop, span)
    if isinstance(step, ConstInt):
        test = down if step.value < 0 else up
    else:
        zero = ConstInt(0, step.type.dtype if isinstance(step.type, ScalarType) else DataType.INDEX, span)
        test = scalar_ops.or_(
            scalar_ops.and_(scalar_ops.gt(step, zero, span), up, span),
            scalar_ops.and_(scalar_ops.lt(step, zero, span), down, span),
            span,
        )
    return test, scalar_ops.add(i, step, span)


def structure_loop(loop: ForStmt | WhileStmt, names: NameSupply) -> list[Stmt]:
    """``loop`` without break/continue aimed at it, as a list of statements (flag setup first).

    ``names`` numbers the ``__break_<n>`` flags.
    """
    carry: list[Stmt] = []
    body = _branch(loop.body)
    if loop.iter_args and body and isinstance(body[-1], YieldStmt):
        carry, loop = _unyield(loop, names)
        body = _branch(loop.body)
    if any(jumps(s, ContinueStmt) for s in body):
        body = _remove(body, ContinueStmt, [])
    if not any(jumps(s, BreakStmt) for s in body):
        return carry + [rebuild(loop, body=block_of(body, loop.body.span))]
    span = loop.span
    n = names.number("break")
    flag = Var(f"__break_{n}", ScalarType(DataType.BOOL), span)
    body = _remove(body, BreakStmt, [AssignStmt(flag, ConstBool(True, span), span)])
    running = scalar_ops.not_(flag, span)
    setup: list[Stmt] = [AssignStmt(flag, ConstBool(False, span), span)]
    if isinstance(loop, ForStmt):
        # A body that re-assigns the loop variable must not move the count: it gets its own counter.
        i = loop.loop_var
        if any(v is i for s in walk(loop.body) if isinstance(s, Stmt) for v in stmt_defs(s)):
            i = Var(f"__index_{n}", i.type, i.span)
            body.insert(0, AssignStmt(loop.loop_var, i, span))
        test, advance = _counter(loop, i, n, setup)
        setup.append(AssignStmt(i, loop.start, span))
        body.append(IfStmt(running, AssignStmt(i, advance, span), None, [], span))
        condition = scalar_ops.and_(test, running, span)
    else:
        condition = scalar_ops.and_(loop.condition, running, span)
    flagged = WhileStmt(condition, list(loop.iter_args), block_of(body, span), list(loop.return_vars), span)
    return carry + setup + [flagged]


def _unyield(loop: ForStmt | WhileStmt, names: NameSupply) -> tuple[list[Stmt], ForStmt | WhileStmt]:
    """A loop that carries values through iter_args and a final ``pl.yield_`` as a loop without them:
    its return variables take the initial values before it and are re-assigned where it yielded, so
    a ``continue`` or ``break`` keeps the values carried so far (what skipping the yield means), and
    ConvertToSSA threads them again. Yielded values go through ``__carry_<n>_<k>`` temporaries when
    there are several, since each may read the others' previous values::

        before:  for i, (acc,) in pl.range(8, init_values=(x,)):     after:  r = x
                     if i > n:                                               for i in pl.range(8):
                         break                                                   if i > n:
                     r = pl.yield_(acc + i)                                          break
                                                                                 r = r + i
    """
    span = loop.span
    body = _branch(loop.body)
    results = list(loop.return_vars)
    carried: dict[Var, Expr] = dict(zip(loop.iter_args, results))
    setup: list[Stmt] = [AssignStmt(r, a.initValue, span) for r, a in zip(results, loop.iter_args)]
    values = [substitute_expr(v, carried) for v in body[-1].value]
    if len(values) > 1:
        n = names.number("carry")
        temps = [Var(f"__carry_{n}_{k}", r.type, span) for k, r in enumerate(results)]
        tail = [AssignStmt(t, v, span) for t, v in zip(temps, values)]
        tail += [AssignStmt(r, t, span) for r, t in zip(results, temps)]
    else:
        tail = [AssignStmt(r, v, span) for r, v in zip(results, values)]
    new_body = block_of([substitute_stmt(s, carried) for s in body[:-1]] + tail, loop.body.span)
    changes: dict = {"iter_args": [], "return_vars": [], "body": new_body}
    if isinstance(loop, WhileStmt):
        changes["condition"] = substitute_expr(loop.condition, carried)
    return setup, rebuild(loop, **changes)


def _holds_return(stmt: Stmt) -> bool:
    return isinstance(stmt, ReturnStmt) or any(_holds_return(b) for b in sub_blocks(stmt))


def _same_values(early: ReturnStmt, last: ReturnStmt | None) -> bool:
    """Both return the same variables (the parser keeps one Var per name in a function that returns early)."""
    values = last.value if last is not None else []
    return len(early.value) == len(values) and all(isinstance(a, Var) and a is b for a, b in zip(early.value, values))


class _EarlyReturns:
    """A kernel body with its early returns replaced by a flag (see the module docstring)."""

    def __init__(self, flag: Var, last: ReturnStmt | None) -> None:
        self.flag, self.last = flag, last

    def block(self, stmts: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for i, s in enumerate(stmts):
            if isinstance(s, ReturnStmt):
                self._check(s)
                return out + [AssignStmt(self.flag, ConstBool(True, s.span), s.span)]
            if not _holds_return(s):
                out.append(s)
                continue
            out.append(self._nested(s))
            rest = stmts[i + 1 :]
            if rest:
                out.append(self._unless_returned(self.block(rest), s.span))
            return out
        return out

    def _unless_returned(self, stmts: list[Stmt], span: Span) -> IfStmt:
        return IfStmt(scalar_ops.not_(self.flag, span), block_of(stmts, span), None, [], span)

    def _nested(self, s: Stmt) -> Stmt:
        # A loop keeps its bounds (a load's window stays bounded by them): once the flag is up, the
        # remaining iterations of a for loop do nothing, and a while loop stops.
        body = self.block(_branch(s.body)) if isinstance(s, (ForStmt, WhileStmt)) else []
        if isinstance(s, ForStmt):
            if s.kind is not ForKind.Sequential:
                raise PassError("CtrlFlowTransform", f"a return inside a {s.kind.name} loop of a kernel", s.span,
                                "only a sequential loop (pl.range) or a while loop can be left early")
            return rebuild(s, body=self._unless_returned(body, s.body.span))
        if isinstance(s, WhileStmt):
            running = scalar_ops.and_(s.condition, scalar_ops.not_(self.flag, s.span), s.span)
            return rebuild(s, condition=running, body=block_of(body, s.body.span))
        if isinstance(s, IfStmt) and not s.return_vars:
            then = self.block(_branch(s.then_body))
            other = self.block(_branch(s.else_body)) if s.else_body is not None else None
            return rebuild(s, then_body=block_of(then, s.then_body.span),
                           else_body=block_of(other, s.else_body.span) if other else None)
        where = "a scope" if isinstance(s, ScopeStmt) else "an if with yields"
        raise PassError("CtrlFlowTransform", f"a return inside {where} of a kernel", s.span,
                        "return at the end of the kernel instead")

    def _check(self, early: ReturnStmt) -> None:
        if not _same_values(early, self.last):
            raise PassError(
                "CtrlFlowTransform",
                "an early return of a kernel must return the variables its last return does: a kernel returns "
                "the outputs it writes",
                early.span,
                "return the same outputs in both places (e.g. 'return out'), having stored into them",
            )


def _tail_return(stmts: list[Stmt]) -> tuple[list[Stmt], ReturnStmt | None]:
    """``stmts`` without their final return, and that return. An if/else whose branches both end in
    a return of the same variables ends the block too: its returns become one after it."""
    if not stmts:
        return stmts, None
    s = stmts[-1]
    if isinstance(s, ReturnStmt):
        return stmts[:-1], s
    if isinstance(s, IfStmt) and s.else_body is not None and not s.return_vars:
        then, first = _tail_return(_branch(s.then_body))
        other, second = _tail_return(_branch(s.else_body))
        if first is not None and second is not None and _same_values(first, second):
            branches = rebuild(s, then_body=block_of(then, s.then_body.span),
                               else_body=block_of(other, s.else_body.span) if other else None)
            return [*stmts[:-1], branches], first
    return stmts, None


def remove_early_returns(func: Function, names: NameSupply) -> Function:
    """``func`` (a kernel) with a single return, its last statement (``names`` numbers the flag)."""
    stmts = flatten_to_stmts(func.body)
    body, last = _tail_return(stmts)
    span = func.body.span
    if not any(map(_holds_return, body)):
        if last is None or isinstance(stmts[-1], ReturnStmt):
            return func
        return replace(func, body=block_of([*body, last], span))
    flag = Var(f"__return_{names.number('return')}", ScalarType(DataType.BOOL), span)
    new = [AssignStmt(flag, ConstBool(False, span), span), *_EarlyReturns(flag, last).block(body)]
    return replace(func, body=block_of(new + ([last] if last is not None else []), span))


class CtrlFlowTransform(RewritePass):
    """Turn break/continue in kernel code (InCore/AIC/AIV functions, InCore scopes) into structured control flow.

    before:  for i in pl.range(8):              after:  for i in pl.range(8):
                 if i == 3:                                 if i == 3:
                     continue                                   pass
                 x = x + i                                  else:
                                                                x = x + i
    """

    source = surface
    target = surface
    produces = frozenset({StructuredCtrlFlow})

    def applies(self, func: Function) -> bool:
        if straight_line(func) is not None:
            return False
        index = function_index(func)
        if is_incore_type(func.func_type) and len(list(index.of(ReturnStmt))) > 1:
            return True
        return index.has(BreakStmt, ContinueStmt) and (is_incore_type(func.func_type) or index.has(InCoreScopeStmt))

    def function(self, func: Function) -> Function:
        new = remove_early_returns(func, self.names) if is_incore_type(func.func_type) else func
        new = super().function(new)
        # Without its jumps the function reads as straight-line code: re-definitions in the block
        # that bound the variable become new variables, as the parser makes them.
        return new if new is func else fresh_reassignments(new)

    @on(InCoreScopeStmt)
    def _incore(self, node: InCoreScopeStmt) -> Result:
        return rebuild(node, body=self.body(node.body, {"kernel": True}))

    @on(ForStmt, WhileStmt)
    def _loop(self, node: ForStmt | WhileStmt) -> Result:
        node = self.children(node)
        kernel = self.env.get("kernel", is_incore_type(self.func.func_type))
        if not kernel or not any(jumps(s, (BreakStmt, ContinueStmt)) for s in _branch(node.body)):
            return node
        return structure_loop(node, self.names)
