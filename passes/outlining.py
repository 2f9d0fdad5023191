"""What the three outlining passes share (docs/passes.md#each-pass): turning a scope into a
function of its live-ins plus the statement that calls (or submits) it.

* Parameters are the scope's live-ins in first-read order, then the variables of the caller that
  only the types of those values mention (a loop variable in a slice's shape).
* Results are the values defined inside and read after the scope, param-explicit: a result whose
  buffer is a captured tensor (``tensor.assemble`` / ``tile.store`` target, a kernel's Out
  argument, a loop carrying it) is returned as that parameter.
* Store targets are outputs (InCore, Cluster and Spmd scopes; not Hierarchy ones): a captured
  tensor V that a ``tile.store`` inside writes is returned as the parameter even when nothing reads
  the store's result; a bare store binds a fresh ``V__store``; the caller binds a fresh version V'
  of V, which every later read of V in the parent reads (so later tasks depend on this one). In a
  Group/Spmd wrapper a captured tensor written by a call inside and read after the scope is one too.
* A captured tensor's direction comes from its uses inside: written only (an op's WRITE operand,
  an Out argument of a call) gives ``Out``, written and read ``InOut``, otherwise ``In``; copies,
  loop carries and yields are transparent.
* The dispatch is a ``Call`` of the new function, or a ``Submit`` when the scope binds a TaskId
  (``as tid``) or carries ``deps=``, ``allow_early_resolve`` or a predicate. ``no_dep_args=``
  become ``attrs["arg_direction_overrides"]`` (their argument indices; DeriveCallDirections
  makes them ``NoDep``); the
  scope's dumped tensors that the dispatch sees (arguments and results) go in its ``dump_vars``.

The body is rewritten before the scope is outlined, so inner scopes go first; their functions are
named after the function they end up in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from pypto.analysis import expr_calls, expr_vars, function_index, stmt_defs, stmt_exprs, type_vars, walk_values
from pypto.analysis.callgraph import function_named
from pypto.analysis.flow import ForwardWalk
from pypto.analysis.roots import returned_params, written_position
from pypto.ir import op_registry
from pypto.ir.datatype import DataType
from pypto.ir.enums import FunctionType, Level, ParamDirection, Role
from pypto.ir.expr import Call, ConstInt, Expr, GlobalVar, IterArg, Submit, TupleGetItemExpr, Var
from pypto.ir.function import Function
from pypto.ir.op_registry import Effect
from pypto.ir.span import Span
from pypto.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from pypto.ir.transforms import deep_clone, flatten_to_stmts, substitute_stmt
from pypto.ir.type_base import ScalarType, TupleType, Type
from pypto.ir.types import TensorType

from pypto.transform.rewrite import Rewrite, RewritePass, on
from pypto.transform.util import block_of

_TASK_ID = ScalarType(DataType.TASK_ID)
# The keys of a scope's attrs that make its dispatch a Submit.
_TASK_KEYS = ("task_id_var", "manual_dep_edges", "allow_early_resolve", "predicate")


# Membership tests on variables go through sets (identity): ``==`` on scalar Exprs builds a
# comparison expression, so ``var in some_list`` can be true for another variable.


class _Statements(ForwardWalk[None]):
    """Every statement of a body in program order, a compound one before its bodies."""

    def __init__(self) -> None:
        self.stmts: list[Stmt] = []

    def leaf(self, s: Stmt, state: None) -> None:
        self.stmts.append(s)

    def enter_loop(self, s: ForStmt | WhileStmt, state: None) -> None:
        self.stmts.append(s)

    def enter_branch(self, s: IfStmt, state: None) -> None:
        self.stmts.append(s)

    def enter_scope(self, s: ScopeStmt, state: None) -> None:
        self.stmts.append(s)


def _stmts(root: Stmt) -> list[Stmt]:
    walk = _Statements()
    walk.block(root, None)
    return walk.stmts


def _read_exprs(stmt: Stmt) -> list[Any]:
    """What ``stmt`` itself evaluates: its expressions, a while condition and scope attrs (deps,
    predicates, dumps), but not the TaskId a scope binds."""
    exprs: list[Any] = list(stmt_exprs(stmt))
    if isinstance(stmt, WhileStmt):
        exprs.append(stmt.condition)
    if isinstance(stmt, ScopeStmt):
        exprs += [v for k, v in stmt.attrs.items() if k != "task_id_var"]
    return exprs


def _vars_of(value: Any) -> Sequence[Var]:
    if isinstance(value, Expr):
        return expr_vars(value)
    return [n for n in walk_values(value) if isinstance(n, Var)]


def reads(root: Stmt) -> Counter[Var]:
    """How often each variable is read in ``root`` (scope attrs included)."""
    return Counter(v for s in _stmts(root) for e in _read_exprs(s) for v in _vars_of(e))


def defs(root: Stmt) -> list[Var]:
    """The variables defined in ``root``, in order (a scope's ``as tid`` included)."""
    return _defs_of(_stmts(root))


def _defs_of(stmts: list[Stmt]) -> list[Var]:
    """:func:`defs` of a body given its statements (``_stmts``)."""
    out: list[Var] = []
    for s in stmts:
        out += stmt_defs(s)
        tid = s.attrs.get("task_id_var") if isinstance(s, ScopeStmt) else None
        if isinstance(tid, Var):
            out.append(tid)
    return out


class _Buffers(_Statements):
    """Which buffer each tensor value of a body stands for (its root variable), and how the body
    uses the buffers of captured variables.

    Not :class:`pypto.analysis.roots.WrittenRoots`, whose facts differ: here a loop result is its
    init's buffer only when the loop yields that buffer (Roots follows every carry to its init), an
    if's result is a buffer of its own, callees include the functions this pass has just added, and
    ``root(v, calls=False)`` stops at the results of function calls (a second memo, not a second walk).
    """

    def __init__(self, body: Stmt, callee: Callable[[str], Function | None],
                 returned: dict[str, list[int | None]] | None = None) -> None:
        super().__init__()
        self.callee = callee
        self._returned = {} if returned is None else returned  # per callee name, shared down the calls
        self.alias: dict[Var, Var] = {}
        self.loops: dict[Var, tuple[Var, Expr]] = {}  # return var -> (iter_arg, yielded value)
        self.calls: dict[Var, Call | Submit] = {}
        self.via_call: set[Var] = set()  # aliases made by a call of a program function
        self.block(body, None)
        # ``root`` per variable, for calls=False and calls=True: asked only once the walk above has
        # filled the maps it reads, so an answer never changes.
        self._roots: tuple[dict[Var, Var], dict[Var, Var]] = ({}, {})

    def leaf(self, s: Stmt, state: None) -> None:
        super().leaf(s, state)
        if isinstance(s, AssignStmt):
            self._assign(s.var, s.value)

    def enter_loop(self, s: ForStmt | WhileStmt, state: None) -> None:
        super().enter_loop(s, state)
        stmts = flatten_to_stmts(s.body)
        values = stmts[-1].value if stmts and isinstance(stmts[-1], YieldStmt) else []
        for k, ia in enumerate(s.iter_args):
            if isinstance(ia.initValue, Var):
                self.alias[ia] = ia.initValue
            if k < len(s.return_vars) and k < len(values):
                self.loops[s.return_vars[k]] = (ia, values[k])

    def _assign(self, var: Var, value: Expr) -> None:
        if isinstance(value, Var):
            self.alias[var] = value
        elif isinstance(value, Call | Submit):
            self.calls[var] = value
            target = self._written_arg(value, 0)
            if target is not None:
                self._alias_call(var, target, value)
        elif isinstance(value, TupleGetItemExpr) and isinstance(value.tuple, Var):
            call = self.calls.get(value.tuple)
            target = self._written_arg(call, value.index) if call is not None else None
            if target is not None:
                self._alias_call(var, target, call)

    def _alias_call(self, var: Var, target: Var, call: Call | Submit) -> None:
        self.alias[var] = target
        if isinstance(call.op, GlobalVar):
            self.via_call.add(var)

    def _written_arg(self, call: Call | Submit, result: int) -> Var | None:
        """The argument whose buffer result ``result`` of ``call`` is, if any."""
        if isinstance(call.op, GlobalVar):
            func = self.callee(call.op.name)
            returned = self.returned(func) if func is not None else []
            k = returned[result] if result < len(returned) else None
        else:
            k = written_position(call.op.name) if result == 0 else None
        arg = call.args[k] if k is not None and k < len(call.args) else None
        return arg if isinstance(arg, Var) else None

    def returned(self, func: Function) -> list[int | None]:
        """For each value ``func`` returns, the index of the parameter whose buffer it is (None: a new
        value; a store into a parameter followed by ``return`` of the store result counts), once per
        callee (a recursive call sees none)."""
        if func.name not in self._returned:
            self._returned[func.name] = []
            self._returned[func.name] = returned_params(func, _Buffers(func.body, self.callee, self._returned).root)
        return self._returned[func.name]

    def root(self, var: Var, calls: bool = True) -> Var:
        """The variable whose buffer ``var`` is (``calls=False``: not looking through the results
        of program-function calls)."""
        memo = self._roots[calls]
        found = memo.get(var)
        if found is None:
            found = memo[var] = self._root(var, calls)
        return found

    def _root(self, var: Var, calls: bool) -> Var:
        seen: set[int] = set()
        while id(var) not in seen:
            seen.add(id(var))
            if var in self.via_call and not calls:
                return var
            if var in self.alias:
                var = self.alias[var]
            elif var in self.loops:
                ia, value = self.loops[var]
                if not (isinstance(value, Var) and self.root(value, calls) is self.root(ia, calls)):
                    return var
                var = ia
            else:
                return var
        return var

    def directions(self, params: Sequence[Var]) -> list[ParamDirection]:
        """For each of ``params``: ``In``, ``Out`` or ``InOut`` from the uses of its buffer in the
        body (one sweep over the statements for all of them)."""
        wanted = set(params)
        written: set[Var] = set()
        read: set[Var] = set()
        for s in self.stmts:
            for root, kind in self._uses(s, wanted):
                if kind is not Effect.READ:
                    written.add(root)
                if kind is not Effect.WRITE:
                    read.add(root)
        return [ParamDirection.InOut if p in written and p in read else ParamDirection.Out if p in written
                else ParamDirection.In for p in params]

    def _uses(self, s: Stmt, wanted: set[Var]) -> list[tuple[Var, Effect]]:
        """The uses ``s`` makes of the buffers of ``wanted``: (buffer, effect) pairs."""
        if isinstance(s, YieldStmt | ReturnStmt) or (isinstance(s, AssignStmt) and isinstance(s.value, Var)):
            return []  # copies and carries pass the buffer on
        exprs = _read_exprs(s)
        if isinstance(s, ForStmt | WhileStmt):
            exprs = [e for e in exprs if not any(e is ia.initValue for ia in s.iter_args)]
        out: list[tuple[Var, Effect]] = []
        for e in exprs:
            # Each read of a variable whose buffer is wanted; an argument of a call inside takes
            # the call's effect on it, the other reads are reads.
            found = [v for v in _vars_of(e) if self.root(v) in wanted]
            if not found:
                continue
            mine = Counter(found)
            for call in expr_calls(e) if isinstance(e, Expr) else []:
                for k, arg in enumerate(call.args):
                    if isinstance(arg, Var) and mine[arg] > 0:
                        mine[arg] -= 1
                        out.append((self.root(arg), self._effect(call, k)))
            out += [(self.root(v), Effect.READ) for v, n in mine.items() for _ in range(n)]
        return out

    def _effect(self, call: Call | Submit, k: int) -> Effect:
        if isinstance(call.op, GlobalVar):
            func = self.callee(call.op.name)
            if func is None or k >= len(func.param_directions):
                return Effect.READ
            return {ParamDirection.Out: Effect.WRITE, ParamDirection.InOut: Effect.READ_WRITE}.get(
                func.param_directions[k], Effect.READ
            )
        entry = op_registry.lookup(call.op.name)
        if entry is None or k >= len(entry.params):
            return Effect.READ
        effect = entry.params[k].effect
        return effect if effect in (Effect.WRITE, Effect.READ_WRITE) else Effect.READ


class Outliner(RewritePass):
    """Base of the outlining passes: ``self.outline(...)`` replaces a scope by a dispatch of a new
    function; ``self.parent`` is the name of the function the current statements end up in."""

    # An Opaque parent that outlined something becomes Orchestration (kernel-outlining passes).
    orchestrates: ClassVar[bool] = False
    # Store targets become outputs of the outlined function (not for Hierarchy scopes).
    exports_stores: ClassVar[bool] = True

    def start(self, func: Function | None = None, program: Any = None) -> None:
        super().start(func, program)
        self.parents = [func.name] if func is not None else []
        self.outlined = 0
        self._mine: set[str] = set()  # names this function's scopes took
        self._uses: Counter[Var] | None = None
        self._defined: set[Var] | None = None
        self._version_of: dict[Var, Var] = {}  # a store target's new version -> the original

    @property
    def parent(self) -> str:
        return self.parents[-1]

    # ---- names ---------------------------------------------------------------------------------

    def taken(self, name: str) -> bool:
        return function_named(self.program, name) is not None or any(f.name == name for f in self._added)

    def available(self, name: str) -> bool:
        """True when no program function and no scope of this function has taken ``name``."""
        return not self.taken(name) and name not in self._mine

    def fresh(self, prefix: str) -> str:
        """``<prefix>_<n>`` for the first ``n`` not taken."""
        n = 0
        while self.taken(f"{prefix}_{n}") or f"{prefix}_{n}" in self._mine:
            n += 1
        return self.reserve(f"{prefix}_{n}")

    def hinted(self, hint: str) -> str:
        """The name for ``name_hint=hint``: itself; ``hint_<n>`` when this function already used
        it; ``<parent>_hint`` when another function's scope or a program function has it."""
        if not self.taken(hint) and hint not in self._mine:
            return self.reserve(hint)
        if hint in self._mine:
            return self.fresh(hint)
        prefixed = f"{self.parent}_{hint}"
        if not self.taken(prefixed) and prefixed not in self._mine:
            return self.reserve(prefixed)
        return self.fresh(prefixed)

    def reserve(self, name: str) -> str:
        self._mine.add(name)
        return name

    def callee(self, name: str) -> Function | None:
        found = function_named(self.program, name) if self.program is not None else None
        return found or next((f for f in self._added if f.name == name), None)

    # ---- outlining -----------------------------------------------------------------------------

    def outline_body(self, node: ScopeStmt, name: str, facts: Mapping[Any, Any] | None = None) -> Stmt:
        """The scope's body rewritten (inner scopes outlined first, named after ``name``)."""
        self.parents.append(name)
        try:
            body = self.body(node.body, dict(facts or {}))
        finally:
            self.parents.pop()
        assert body is not None
        return body

    def outline(
        self,
        node: ScopeStmt,
        body: Stmt,
        name: str,
        func_type: FunctionType,
        *,
        level: Level | None = None,
        role: Role | None = None,
        func_attrs: Mapping[str, Any] | None = None,
        launch: Mapping[str, Any] | None = None,
        no_dep: list[Var] | None = None,
    ) -> list[Stmt]:
        """Add the function made of ``body`` and return the statements dispatching it in place of
        ``node``. ``launch`` holds ``core_num`` / ``sync_start`` of a multi-block dispatch."""
        if self._uses is None:
            self._uses = reads(self.func.body)
            self._defined = set(v for v in defs(self.func.body)) | set(self.func.params)
        buffers = _Buffers(body, self.callee)
        stmts = buffers.stmts  # the body's statements in order, walked once for all that follows
        inside_defs = _defs_of(stmts)
        local = set(inside_defs)
        read = (v for s in stmts for e in _read_exprs(s) for v in _vars_of(e))
        ins = list(dict.fromkeys(v for v in read if v not in local))
        in_type: set[Var] = set()
        for v in ins + inside_defs:
            type_vars(v.type, in_type)
        listed = set(ins)
        ins += [v for v in sorted(in_type, key=lambda v: v.name_hint) if v in self._defined and v not in local
                and v not in listed]
        listed = set(ins)
        for v in no_dep or []:
            if v not in listed or not isinstance(v.type, TensorType):
                raise self.error(
                    f"no_dep_args names '{v.name_hint}', which this scope does not take from outside as a tensor; "
                    "hint: list only tensors defined before the scope and used in it",
                    node.span,
                )
        inside = reads(node)
        outs = [v for v in inside_defs if self._uses[v] > inside[v]]
        tensors = [v for v in ins if isinstance(v.type, TensorType)]
        found = dict(zip(tensors, buffers.directions(tensors)))
        dirs = [found.get(v, ParamDirection.In) for v in ins]
        # Param-explicit returns in kernels and wrappers (an outlined Opaque function may have its
        # writes outlined later, and then reading the param after the kernel call breaks
        # InOutUseValid; a kernel does not look through calls for the same reason).
        wrapper = func_type in (FunctionType.Group, FunctionType.Spmd)
        explicit = wrapper or func_type is FunctionType.InCore
        returned = [self._returned(buffers.root(v, wrapper), v, ins) if explicit else v for v in outs]
        exported, covered = self._exported(body, buffers, ins, dirs, outs, inside, wrapper) if explicit else ([], {})
        if exported:
            body = _NameStores(set(exported)).run(body)
        returned += exported
        bases = [self._version_of.get(v, v).name_hint for v in exported]  # out, not out_1, names out_2
        versions = [Var(self.names.name(b, lambda n, b=b: f"{b}_{n + 1}"), v.type, node.span)
                    for v, b in zip(exported, bases)]
        stmts = flatten_to_stmts(body) + ([ReturnStmt(returned, node.span)] if returned else [])
        func = self._function(name, ins, dirs, [r.type for r in returned], stmts, node.span, func_type,
                              level, role, dict(func_attrs or {}), self._version_of)
        self.add_function(func)
        self.outlined += 1
        dispatch = self.dispatch(node, name, ins, outs + versions, [r.type for r in returned], launch or {},
                                 no_dep or [])
        # Later reads of V in this block (and blocks nested in it) read the new version. V may be an
        # earlier scope's version of a source variable, whose later reads are remapped from that variable.
        for v, version in [*zip(exported, versions), *covered.items()]:
            self.remap.maps[0][self._version_of.get(v, v)] = version
        self._version_of.update({version: self._version_of.get(v, v) for v, version in zip(exported, versions)})
        return dispatch

    def _exported(
        self,
        body: Stmt,
        buffers: _Buffers,
        ins: list[Var],
        dirs: list[ParamDirection],
        outs: list[Var],
        inside: Counter[Var],
        wrapper: bool,
    ) -> tuple[list[Var], dict[Var, Var]]:
        """The captured tensors that become outputs beyond ``outs``, and for those an out already
        stands for, that out."""
        if not self.exports_stores:
            return [], {}
        captured = {v: d for v, d in zip(ins, dirs) if isinstance(v.type, TensorType)}
        targets: list[Var] = []
        for s in buffers.stmts:
            value = s.expr if isinstance(s, EvalStmt) else s.value if isinstance(s, AssignStmt) else None
            if isinstance(value, Call) and getattr(value.op, "name", None) == "tile.store" and len(value.args) > 2:
                dest = value.args[2]
                root = buffers.root(dest, wrapper) if isinstance(dest, Var) else None
                if root is not None and root in captured:
                    targets.append(root)
        if wrapper:  # a kernel call inside wrote it and the parent reads it later
            targets += [v for v, d in captured.items()
                        if d is not ParamDirection.In and self._uses[v] > inside[v]]
        exported: list[Var] = []
        covered: dict[Var, Var] = {}
        for v in dict.fromkeys(targets):
            out = next((o for o in outs if buffers.root(o, wrapper) is v), None)
            if out is not None:
                covered[v] = out
            else:
                exported.append(v)
        return exported, covered

    @staticmethod
    def _returned(root: Var, value: Var, ins: list[Var]) -> Var:
        return root if any(root is v for v in ins) and isinstance(root.type, TensorType) else value

    @staticmethod
    def _function(
        name: str,
        ins: list[Var],
        dirs: list[ParamDirection],
        types: list[Type],
        stmts: list[Stmt],
        span: Span,
        func_type: FunctionType,
        level: Level | None,
        role: Role | None,
        attrs: dict[str, Any],
        version_of: Mapping[Var, Var],
    ) -> Function:
        # Parameters are plain variables: a captured iter_arg stands in as one; a store target's new
        # version keeps the tensor's name.
        plain = {v: Var(version_of[v].name_hint if v in version_of else v.name_hint, v.type, v.span) for v in ins
                 if isinstance(v, IterArg) or v in version_of}
        params = [plain.get(v, v) for v in ins]
        body = block_of(stmts, span)
        if plain:
            body = substitute_stmt(body, plain)
        draft = Function(name, list(zip(params, dirs)), types, body, span, func_type, level, role, attrs)
        return deep_clone(draft)  # every variable of the new function is its own

    def dispatch(
        self,
        node: ScopeStmt,
        name: str,
        args: list[Var],
        outs: list[Var],
        types: list[Type],
        launch: Mapping[str, Any],
        no_dep: list[Var],
    ) -> list[Stmt]:
        span = node.span
        attrs: dict[str, Any] = {}
        if no_dep:
            marked = set(no_dep)
            attrs["arg_direction_overrides"] = [i for i, a in enumerate(args) if a in marked]
        visible = set(args) | set(outs)
        dumps = [v for v in node.attrs.get("dump_vars", []) if v in visible]
        if dumps:
            attrs["dump_vars"] = dumps
        op = GlobalVar(name)
        tid = node.attrs.get("task_id_var")
        if any(k in node.attrs for k in _TASK_KEYS):
            result: Type = TupleType([*types, _TASK_ID]) if types else _TASK_ID
            core_num = launch.get("core_num")
            call: Expr = Submit(
                op, list(args), list(node.attrs.get("manual_dep_edges", [])), {}, attrs, result, span,
                core_num=ConstInt(core_num, DataType.INDEX) if isinstance(core_num, int) else core_num,
                sync_start=bool(launch.get("sync_start", False)),
                allow_early_resolve=bool(node.attrs.get("allow_early_resolve", False)),
                predicate=node.attrs.get("predicate"),
            )
            targets: list[Var | None] = [*outs, tid] if types else []
            if not types:
                return [AssignStmt(tid, call, span) if tid is not None else EvalStmt(call, span)]
        else:
            # A constant block count is stored as the int it prints as (and parses back to).
            attrs.update({k: v.value if isinstance(v, ConstInt) else v for k, v in launch.items()
                          if k != "sync_start" or v})
            result = types[0] if len(types) == 1 else TupleType(list(types))
            call = Call(op, list(args), {}, attrs, result, span)
            if len(outs) == 1:
                return [AssignStmt(outs[0], call, span)]
            if not outs:
                return [EvalStmt(call, span)]
            targets = list(outs)
        packed = Var(self.names.name(name, lambda n: f"{name}_out" + (f"_{n}" if n else "")), result, span)
        unpack = [AssignStmt(v, TupleGetItemExpr(packed, i, span), span)
                  for i, v in enumerate(targets) if v is not None]
        return [AssignStmt(packed, call, span), *unpack]

    # ---- the parent ----------------------------------------------------------------------------

    def function(self, func: Function) -> Function:
        new = super().function(func)
        if self.outlined and self.orchestrates and new.func_type is FunctionType.Opaque and new.level in (
            None, Level.CHIP
        ) and new.role in (None, Role.Orchestrator):
            # Outlining adds no tensor.dim to the parent: without one before, there is none to fold.
            new = _FoldDims().fold(new, "tensor.dim" in function_index(func).op_names)
        return new


class _NameStores(Rewrite):
    """Each bare ``tile.store`` into an exported tensor binds a fresh ``<V>__store``."""

    def __init__(self, targets: set[Var]) -> None:
        self.targets = targets

    def run(self, body: Stmt) -> Stmt:
        self.start()
        return self.reblock(body, self.block(flatten_to_stmts(body)))

    @on(EvalStmt)
    def _store(self, node: EvalStmt) -> Stmt:
        call = node.expr
        if not (isinstance(call, Call) and getattr(call.op, "name", None) == "tile.store" and len(call.args) > 2
                and call.args[2] in self.targets):
            return node
        name = self.names.name("store", lambda n, b=call.args[2].name_hint: f"{b}__store" + (f"_{n}" if n else ""))
        return AssignStmt(Var(name, call.type, node.span), call, node.span)


class _FoldDims(Rewrite):
    """``tensor.dim(p, i)`` of a parameter's dynamic axis becomes the axis' symbol."""

    def fold(self, func: Function, dims: bool = True) -> Function:
        """``func`` made Orchestration, its dims folded (``dims=False``: it calls no ``tensor.dim``,
        the body is kept as it is)."""
        body = func.body
        if dims:
            self.start(func)
            body = self.reblock(body, self.block(flatten_to_stmts(body)))
        return Function(func.name, list(zip(func.params, func.param_directions)), func.return_types, body,
                        func.span, FunctionType.Orchestration, attrs=func.attrs,
                        requires_runtime_binding=func.requires_runtime_binding)

    @on(Call)
    def _dim(self, node: Call) -> Expr:
        if getattr(node.op, "name", None) != "tensor.dim" or len(node.args) != 2:
            return node
        tensor, axis = node.args
        if not (isinstance(axis, ConstInt) and any(tensor is p for p in self.func.params)):
            return node
        shape = tensor.type.shape if isinstance(tensor.type, TensorType) else []
        dim = shape[axis.value] if -len(shape) <= axis.value < len(shape) else None
        return dim if isinstance(dim, Var) else node

