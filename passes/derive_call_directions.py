"""DeriveCallDirections: the call-site direction of every argument of a function call
(docs/passes.md#derivecalldirections)."""

from __future__ import annotations

from pypto.analysis import callee, calls_functions, function_index
from pypto.analysis.roots import Roots
from pypto.analysis.wrapper_directions import forwarded_directions
from pypto.languages.invariants import STRUCTURAL, CallDirectionsResolved, SplitIncoreOrch
from pypto.languages.memref import memref

from pypto.ir.enums import ArgDirection, ForKind, FunctionType, ParamDirection
from pypto.ir.expr import Call, Expr, GlobalVar, Submit, Var
from pypto.ir.function import Function, Program
from pypto.ir.node import replace
from pypto.ir.parts import with_attrs
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, WhileStmt
from pypto.ir.types import TensorType

from pypto.transform.base import ProgramPass
from pypto.transform.errors import PassError
from pypto.transform.program_rebuild import with_functions
from pypto.transform.rewrite import Result, Rewrite, on
from pypto.transform.util import rebuild

_WRAPPERS = (FunctionType.Group, FunctionType.Spmd)


class DeriveCallDirections(ProgramPass):
    """Write ``attrs["arg_directions"]`` on every Call/Submit of a program function.

    Phase 0 raises each Group/Spmd wrapper's parameter directions to those its kernel calls give them
    (:func:`~pypto.analysis.wrapper_directions.forwarded_directions`: read before the first write is
    InOut), to a fixpoint; never lowered (``In < Out < InOut``).
    Then each argument gets, from its callee parameter and the buffer root of the argument
    (through assignments, loop carries and call results):

    ====== ======== ============================================================ ==================
    param  argument condition                                                    direction
    ====== ======== ============================================================ ==================
    any    non-tensor                                                            Scalar
    In     tensor                                                                Input
    InOut  tensor                                                                InOut
    Out    tensor   inside a non-Parallel ``for`` or a ``while``                 InOut
    Out    tensor   an earlier statement of the scope wrote the same root        InOut
    Out    tensor   the root is an InOut parameter of the enclosing function     InOut
    Out    tensor   otherwise                                                    OutputExisting
    ====== ======== ============================================================ ==================

    "Earlier writer": a scan per block with the set of roots written by Out/InOut arguments; each
    ``for``/``while``/``if`` is one unit entered with a copy of the set (an ``else`` does not see
    its ``then``), whose writes join the set after it. The arguments listed in
    ``attrs["arg_direction_overrides"]`` (``pl.no_dep``, ``no_dep_args=``) are ``NoDep``, and so is
    a ``NoDep`` already in ``arg_directions``; the overrides stay; the pass is idempotent; Submits
    stay Submits::

        before:  for i in pl.range(4):                  after:  for i in pl.range(4):
                     out = self.k(a, out)                           out = self.k(a, out, attrs={"arg_directions":
                                                                        [pl.ArgDirection.Input, pl.ArgDirection.InOut]})
        before:  y = self.k(a, y, attrs={"arg_direction_overrides": [0]})       # y = self.k(pl.no_dep(a), y)
        after:   y = self.k(a, y, attrs={"arg_directions": [pl.ArgDirection.NoDep, pl.ArgDirection.OutputExisting],
                                         "arg_direction_overrides": [0]})
    """

    source = memref
    # Applied on its own, as the established pass: any program whose kernels are outlined (it reads
    # only calls and parameter directions), before SSA or memory planning too.
    accepts = STRUCTURAL | {SplitIncoreOrch}
    produces = frozenset({CallDirectionsResolved})

    def run(self, program: Program) -> Program:
        program = _raise_wrappers(program)
        # Only calls of functions get directions: a kernel that calls none is kept without a walk.
        funcs = [_Directions().run(f, program) if calls_functions(f) else f for f in program.functions.values()]
        return with_functions(program, funcs)


def _raise_wrappers(program: Program) -> Program:
    """Phase 0: wrapper parameter directions raised to the kernel parameters they feed."""
    changed = True
    while changed:
        changed = False
        for func in program.functions.values():
            if func.func_type not in _WRAPPERS:
                continue
            dirs = _effective(func, program)
            if dirs != list(func.param_directions):
                program = Program([replace(func, param_directions=dirs) if f is func else f
                                   for f in program.functions.values()], program.name, program.span)
                changed = True
    return program


def _effective(func: Function, program: Program) -> list[ParamDirection]:
    uses = forwarded_directions(func, program)
    return [max(d, uses.get(p, d)) for p, d in zip(func.params, func.param_directions)]


def _calls_function(value: Expr) -> bool:
    return isinstance(value, (Call, Submit)) and isinstance(value.op, GlobalVar)


def _calls_are_statements(func: Function) -> bool:
    """True when each call of a program function in ``func`` is the value of an assignment or an
    evaluation statement (after FlattenCallExpr, always): the node index lists every occurrence, so
    as many such statements as calls leaves none nested."""
    index = function_index(func)
    calls = sum(map(_calls_function, index.of(Call, Submit)))
    direct = sum(_calls_function(s.value) for s in index.of(AssignStmt))
    return calls == direct + sum(_calls_function(s.expr) for s in index.of(EvalStmt))


class _Directions(Rewrite):
    """One function's calls, scanned in order with the set of written roots."""

    def run(self, func: Function, program: Program) -> Function:
        self.start(func, program)
        self.roots = Roots(func, program)
        self.written: set[Var] = set()
        self.loops: list[bool] = []  # per enclosing loop: does it order its iterations?
        self.inout = {self.roots.root(p) for p, d in zip(func.params, func.param_directions)
                      if d is ParamDirection.InOut}
        self.flat = _calls_are_statements(func)
        return self.function(func)

    @on(AssignStmt, EvalStmt)
    def _stmt(self, node: AssignStmt | EvalStmt) -> Result:
        if not self.flat:
            return self.children(node)
        # Every call of a function is a statement's value: the others hold none, and a call's
        # arguments hold none either (no walk of their expressions).
        value = node.value if isinstance(node, AssignStmt) else node.expr
        if not _calls_function(value):
            return node
        new = self._call(value)
        if new is value:
            return node
        return rebuild(node, value=new) if isinstance(node, AssignStmt) else rebuild(node, expr=new)

    def _unit(self, node: ForStmt | WhileStmt, ordered: bool) -> Result:
        outer = self.written
        self.written = set(outer)
        self.loops.append(ordered)
        try:
            new = self.children(node)
        finally:
            self.loops.pop()
            outer |= self.written
            self.written = outer
        return new

    @on(ForStmt)
    def _for(self, node: ForStmt) -> Result:
        return self._unit(node, node.kind is not ForKind.Parallel)

    @on(WhileStmt)
    def _while(self, node: WhileStmt) -> Result:
        return self._unit(node, True)

    @on(IfStmt)
    def _if(self, node: IfStmt) -> Result:
        outer, gained, bodies = self.written, set(), []
        for body in (node.then_body, node.else_body):
            self.written = set(outer)
            bodies.append(self.body(body))
            gained |= self.written
        self.written = outer
        outer |= gained
        return rebuild(node, then_body=bodies[0], else_body=bodies[1])

    @on(Call, Submit)
    def _call(self, node: Call | Submit) -> Expr:
        target = callee(self.program, node) if isinstance(node.op, GlobalVar) else None
        if target is None or not node.args:
            return node
        given = node.attrs.get("arg_directions")
        overridden = set(node.attrs.get("arg_direction_overrides") or [])
        for i in sorted(overridden):
            if i >= len(node.args) or not isinstance(node.args[i].type, TensorType):
                raise PassError(
                    "DeriveCallDirections",
                    f"call to '{target.name}': arg_direction_overrides names argument {i}, which is not a tensor "
                    f"argument of the call ({len(node.args)} arguments)",
                    node.span,
                    "list only the indices of tensor arguments taken out of dependency tracking (pl.no_dep)",
                )
        dirs, writes = [], []
        for i, (arg, pd) in enumerate(zip(node.args, target.param_directions)):
            kept = given is not None and i < len(given) and ArgDirection(given[i]) is ArgDirection.NoDep
            dirs.append(ArgDirection.NoDep if kept or i in overridden else self._direction(arg, pd))
            if isinstance(arg, Var) and isinstance(arg.type, TensorType) and pd is not ParamDirection.In:
                writes.append(self.roots.root(arg))
        self.written.update(writes)
        if given is not None and list(given) == dirs:
            return node
        # Only the attrs change, validated here by the model the constructor chose for them (the op is
        # kept): the call's other fields need no second validation. Most calls have no attrs yet, and
        # spreading an empty attrs model costs more than testing it.
        values = {**node.attrs, "arg_directions": dirs} if node.attrs else {"arg_directions": dirs}
        return with_attrs(node, values)

    def _direction(self, arg: Expr, pd: ParamDirection) -> ArgDirection:
        if not isinstance(arg.type, TensorType):
            return ArgDirection.Scalar
        if pd is ParamDirection.In:
            return ArgDirection.Input
        if pd is ParamDirection.InOut:
            return ArgDirection.InOut
        root = self.roots.root(arg) if isinstance(arg, Var) else None
        if any(self.loops) or root in self.written or root in self.inout:
            return ArgDirection.InOut
        return ArgDirection.OutputExisting
