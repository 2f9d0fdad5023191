"""Buffer roots of orchestration tensors: which variables name the same GM buffer.

A variable's root is the variable that owns its buffer (a parameter, a ``tensor.create`` result,
or any value with no alias edge). Alias edges
(docs/passes.md#derivecalldirections, docs/passes.md#classifyiterargcarry):

* ``a = b``: a -> b;
* ``r = self.k(..., out, ...)`` where ``k`` returns its parameter ``out`` (or a store into it): r -> the argument
  passed for ``out``; ``t = self.k(...)`` returning a tuple of parameters and ``r = t[i]``: r ->
  the argument of the i-th returned parameter;
* ``r = tensor.assemble(target, ...)``: r -> target;
* a loop iter_arg and its return var -> the iter_arg's init;
* an if's return var -> the values its branches yield, when they have one root.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from pypto.ir import op_registry
from pypto.ir.enums import FunctionType
from pypto.ir.expr import Call, Expr, GlobalVar, MakeTuple, Submit, TupleGetItemExpr, Var
from pypto.ir.function import Function, Program
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

from .callgraph import callee, op_name, through_callee
from .flow import ForwardWalk
from .index import function_index

# Tensor ops whose result is a view into their first argument's buffer. The roots do not follow them
# (a view is a tensor handle of its own); the analyses that need the buffer behind a view do.
VIEW_OPS = frozenset({"tensor.slice", "tensor.reshape", "tensor.view", "tensor.transpose"})


def returned_params(func: Function, root: Callable[[Var], Var] | None = None) -> list[int | None]:
    """For each value ``func`` returns, the index of the parameter it is (None: not a parameter).

    The return is the last one of the body (outside loops and ifs); a returned tuple counts element
    by element. With ``root``, a returned variable counts as the parameter it maps to (the buffer
    it names, e.g. a store into the parameter).
    """
    if root is None:  # what every call of a kernel asks: cached per function
        hit = _RETURNED.get(func)
        if hit is None:
            hit = _RETURNED.put(func, tuple(_returned_params(func, None)))
        return list(hit)
    return _returned_params(func, root)


# returned_params(func) without a root, by function object.
_RETURNED: IdentityCache[Function, tuple[int | None, ...]] = IdentityCache(20_000)


def _returned_params(func: Function, root: Callable[[Var], Var] | None) -> list[int | None]:
    ret = _last_return(func.body)
    if ret is None:
        return []
    index = {p: i for i, p in enumerate(func.params)}
    return [index.get(v if root is None else root(v)) if isinstance(v, Var) else None for v in returned_values(ret)]


def _last_return(body: Stmt) -> ReturnStmt | None:
    """The last return of ``body`` in statement order outside loops and ifs (inside blocks and
    scopes), if any: searched from the end, so a body ending with its return is not walked. Unlike
    :func:`final_return`, statements may follow it and it may return nothing."""
    stack: list[Stmt] = [body]
    while stack:
        s = stack.pop()
        kind = type(s)
        if kind is AssignStmt or kind is EvalStmt:  # the common statements: isinstance is slow (pydantic)
            continue
        if isinstance(s, ReturnStmt):
            return s
        if isinstance(s, SeqStmts):
            stack.extend(s.stmts)  # the last comes off the stack first
        elif isinstance(s, ScopeStmt):
            stack.append(s.body)
    return None


def final_return(body: Stmt) -> ReturnStmt | None:
    """The return that ends ``body`` (outside loops and ifs) with values, if any."""
    last: Stmt | None = body
    while isinstance(last, SeqStmts | ScopeStmt):
        last = last.body if isinstance(last, ScopeStmt) else (last.stmts[-1] if last.stmts else None)
    return last if isinstance(last, ReturnStmt) and last.value else None


def returned_values(ret: ReturnStmt) -> list[Expr]:
    """The values ``ret`` returns, a returned tuple element by element."""
    values = list(ret.value)
    if len(values) == 1 and isinstance(values[0], MakeTuple):
        return list(values[0].elements)
    return values


def computed_in_place(define: AssignStmt | None) -> bool:
    """True when ``define`` computes its tensor with an op of its own (not ``tensor.create``, not a
    view, not a function call): in an orchestration, ``check_orchestration_ops`` refuses such an op
    when a compile starts, so the passes leave its result alone."""
    value = define.value if define is not None else None
    return (
        isinstance(value, Call)
        and not isinstance(value.op, GlobalVar)
        and value.op.name != "tensor.create"
        and value.op.name not in VIEW_OPS
    )


def is_entry(func: Function, program: Program) -> bool:
    """True for an Orchestration function no other function of ``program`` calls: what a call runs."""
    if func.func_type != FunctionType.Orchestration:
        return False
    # A function with no GlobalVar node (every kernel of ops) calls nothing: its calls are not looked at.
    return not any(
        isinstance(call.op, GlobalVar) and call.op.name == func.name
        for other in program.functions.values()
        if other is not func and function_index(other).has(GlobalVar)
        for call in function_index(other).of(Call, Submit)
    )


def _yielded(body: Stmt | None, i: int) -> Expr | None:
    """The ``i``-th value a branch body yields last, if any."""
    stmts = body.stmts if isinstance(body, SeqStmts) else [body]
    last = stmts[-1] if stmts else None
    return last.value[i] if isinstance(last, YieldStmt) and i < len(last.value) else None


class Roots(ForwardWalk[None]):
    """The alias edges of one function (recorded in one walk in program order), resolved to roots on demand."""

    def __init__(self, func: Function | Stmt, program: Program) -> None:
        """The edges of ``func``'s body, or of one statement (a scope body)."""
        self._program = weakref.ref(program)
        self.edges: dict[Var, Var] = {}
        self._calls: dict[Var, Call | Submit] = {}
        # Roots found once the edges are complete (during the walk an edge may still be replaced),
        # for every variable on the way: a chain of calls rebinding one tensor (out_2 = self.k(out_1),
        # out_1 = self.k(out), ...) is followed once, not once per call asking.
        self._known: dict[Var, Var] | None = None
        self.block(func.body if isinstance(func, Function) else func, None)
        self._known = {}

    @property
    def program(self) -> Program:
        """The program whose functions the calls name, held weakly: a cached analysis (:func:`written_roots`)
        must not keep its program alive. Whoever asks a call's alias holds the program."""
        program = self._program()
        if program is None:
            raise ReferenceError("a buffer-roots analysis was asked about a call after its program was freed")
        return program

    def root(self, var: Var) -> Var:
        """The variable owning ``var``'s buffer."""
        edges, known = self.edges, self._known
        if known is None:
            while var in edges:
                var = edges[var]
            return var
        path = []
        while var not in known and var in edges:
            path.append(var)
            var = edges[var]
        found = known.get(var, var)
        for v in path:
            known[v] = found
        return found

    def call_alias(self, call: Call | Submit, position: int) -> Var | None:
        """The argument variable that the ``position``-th result of a function call aliases: the
        argument of the parameter the callee returns there, itself (as NormalizeReturnOrder makes
        it) or written in place (``out = pl.store(t, [0, 0], out); return out`` as parsed)."""
        target = callee(self.program, call)
        if target is None:
            return None
        returned = returned_params(target)
        if position < len(returned) and returned[position] is None:
            returned = through_callee(
                target, lambda: returned_params(target, WrittenRoots(target, self.program).root), returned)
        if position >= len(returned) or returned[position] is None:
            return None
        arg = call.args[returned[position]]  # type: ignore[index]
        return arg if isinstance(arg, Var) else None

    def value_alias(self, value: Expr) -> Var | None:
        """The variable an assigned ``value`` aliases, if any."""
        if isinstance(value, Var):
            return value
        if isinstance(value, (Call, Submit)):
            if isinstance(value.op, GlobalVar):
                return self.call_alias(value, 0)
            if value.op.name == "tensor.assemble" and value.args and isinstance(value.args[0], Var):
                return value.args[0]
            return None
        if isinstance(value, TupleGetItemExpr) and isinstance(value.tuple, Var) and value.tuple in self._calls:
            return self.call_alias(self._calls[value.tuple], value.index)
        return None

    def leaf(self, s: Stmt, state: None) -> None:
        if isinstance(s, AssignStmt):
            if isinstance(s.value, (Call, Submit)) and isinstance(s.value.op, GlobalVar):
                self._calls[s.var] = s.value
            alias = self.value_alias(s.value)
            # a variable re-defined from its own buffer (out = self.k(a, out), pre-SSA) keeps its edge:
            # an edge into its own chain would be a cycle
            if alias is not None and self.root(alias) is not self.root(s.var):
                self.edges[s.var] = alias

    def join(self, s: IfStmt, before: None, then_end: None, else_end: None) -> None:
        for i, rv in enumerate(s.return_vars):
            values = [_yielded(body, i) for body in (s.then_body, s.else_body)]
            if all(isinstance(v, Var) for v in values) and self.root(values[0]) is self.root(values[1]) is not rv:
                self.edges[rv] = values[0]

    def enter_loop(self, s: ForStmt | WhileStmt, state: None) -> None:
        for it, rv in zip(s.iter_args, s.return_vars):
            if isinstance(it.initValue, Var):
                for v in (it, rv):
                    if self.root(it.initValue) is not v:
                        self.edges[v] = it.initValue


def rebinding_loop(roots: Roots, func: Function, var: Var) -> Var | None:
    """The first loop result on ``var``'s alias chain whose loop yields a tensor of another buffer than
    its initial one (None: there is none). The roots follow a carry to its init only, so such a
    result is not the init's buffer after the loop: only the last iteration's tensor is."""
    loops = {rv: (s, i) for s in function_index(func).of(ForStmt, WhileStmt) for i, rv in enumerate(s.return_vars)}
    while var in roots.edges:
        if var in loops:
            s, i = loops[var]
            init = s.iter_args[i].initValue
            y = _yielded(s.body, i)
            if not (isinstance(y, Var) and isinstance(init, Var) and roots.root(y) is roots.root(init)):
                return var
        var = roots.edges[var]
    return None


_WRITTEN_POSITION: dict[str, int | None] = {}  # op name -> written_position; asked of every op call


def written_position(name: str) -> int | None:
    """The position of the parameter op ``name`` writes (its result aliases that argument: the op
    registry's first written parameter), or None."""
    found = _WRITTEN_POSITION.get(name, -1)
    if found != -1:
        return found
    entry = op_registry.lookup(name)
    if entry is None:
        return None  # not cached: the op may be registered later
    written = entry.written_params()
    found = _WRITTEN_POSITION[name] = [p.name for p in entry.params].index(written[0]) if written else None
    return found


def written_arg(value: Expr) -> Expr | None:
    """The argument an op call writes (its result aliases it), or None."""
    name = op_name(value)
    position = written_position(name) if name is not None else None
    return value.args[position] if position is not None and position < len(value.args) else None


class WrittenRoots(Roots):
    """Roots through every op that writes an argument in place (``r = pl.store(t, offs, out)``: r ->
    out; the op registry's written parameter) and through callees that return a parameter so
    written: the buffers a skipped task leaves as they were (the interpreter's false predicate)."""

    def value_alias(self, value: Expr) -> Var | None:
        if isinstance(value, (Call, Submit)) and not isinstance(value.op, GlobalVar):
            k = written_position(value.op.name)
            if k is not None:
                arg = value.args[k] if k < len(value.args) else None
                return arg if isinstance(arg, Var) else None
        return super().value_alias(value)


# written_roots by function, with the program it was made for (weakly).
_WRITTEN: IdentityCache[Function, tuple[weakref.ref[Program], WrittenRoots]] = IdentityCache(1_000)


def written_roots(func: Function, program: Program) -> WrittenRoots:
    """``WrittenRoots(func, program)``, kept while ``func`` lives for the same ``program`` object
    (callers must not change it): ExportEntryResults and the check of what it produces
    (EntryResultsExported) ask it of one entry of one program in turn."""
    hit = _WRITTEN.get(func)
    if hit is not None and hit[0]() is program:
        return hit[1]
    return _WRITTEN.put(func, (weakref.ref(program), WrittenRoots(func, program)))[1]

