"""The statement walker: executes functions of any dialect on run-time values.

The walker knows control flow, variables, calls and launches; what an op *means* is looked up in
:mod:`pypto.interp.semantics` by op name. Control flow:

* ``for`` of every kind runs sequentially (parallel, unroll and pipeline loops included); iter_args
  start at their init values, each iteration leaves the next values (see :meth:`Machine._iteration`:
  the body's trailing ``yield``, or, in a pre-SSA body without one, the iter_args as the body
  re-assigned them), and the return vars receive the final ones. ``while`` re-evaluates its
  condition with the current iter_args.
* ``break``/``continue`` (surface dialect) leave or restart the innermost loop; ``return`` leaves
  the function; a function body's trailing ``yield`` is its return.
* ``if`` binds its return vars to the yield of the branch taken.
* Scopes run their body in program order; ``SpmdScopeStmt`` runs it once per block index (never
  when its ``predicate`` attr is false) and ``SplitAivScopeStmt`` once per AIV lane; a scope's
  ``task_id_var`` attr is bound to a fresh id.
* Calls to program functions bind parameters by reference (tensors are GM buffers, so a callee
  writing an Out/InOut parameter writes the caller's tensor). A launch with ``core_num`` (on the
  Submit, in the call's attrs, or on a Spmd callee's attrs) runs the callee once per block; an AIV
  callee with a ``split`` or ``dual_aiv_dispatch`` attr runs once per lane. ``Submit`` returns the
  callee's results plus a fresh task id; a false ``predicate`` skips the task.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from pypto.analysis.callgraph import recursion_message
from pypto.analysis.lanes import runs_on_both_lanes
from pypto.analysis.roots import WrittenRoots
from pypto.ir import expr as E
from pypto.ir import stmt as S
from pypto.ir.enums import ForKind, FunctionType
from pypto.ir.function import Function, Program
from pypto.ir.type_base import ScalarType
from pypto.ir.types import ShapedType, TileType

from pypto.ir.numpy_dtypes import normalize_scalar
from .errors import InterpreterError, OpError
from .group import GroupRun, Process
from .memory import AddressMemory, plan_extents, tile_address
from pypto.ir.scalar_eval import eval_binary, eval_unary
from .semantics import OpContext, RunState, lookup
from .semantics.common import cast_data
from .values import ArrayValue, TileValue


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    def __init__(self, values: list[Any]) -> None:
        self.values = values


_CONTROL = (_Break, _Continue, _Return)

# Loop iterations one run may execute: a while loop that never ends stops with an error naming it.
DEFAULT_MAX_STEPS = 1_000_000
# Errors of op implementations and numpy that become InterpreterErrors at the failing statement.
_RUNTIME_ERRORS = (OpError, ArithmeticError, ValueError, IndexError, TypeError, KeyError)


class Frame:
    """The variables of one function invocation and, in address mode, its memory."""

    __slots__ = ("env", "memory")

    def __init__(self, memory: AddressMemory | None) -> None:
        self.env: dict[E.Var, Any] = {}
        self.memory = memory


class Machine:
    """Executes the functions of one program against a shared :class:`RunState`."""

    def __init__(
        self, program: Program | None, state: RunState, memory_mode: str = "auto", max_steps: int = DEFAULT_MAX_STEPS
    ) -> None:
        if memory_mode not in ("auto", "values", "addresses"):
            raise InterpreterError(f"memory must be 'auto', 'values' or 'addresses', got {memory_mode!r}")
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise InterpreterError(f"max_steps must be an int >= 1, got {max_steps!r}")
        self.program = program
        self.state = state
        self.memory_mode = memory_mode
        self.max_steps = max_steps
        self.steps = 0  # loop iterations run so far (all loops of the run)
        # The functions being run, outermost first, per thread (a Group's kernels run on threads that
        # take turns, so one list would interleave them).
        self._running = threading.local()
        self._extents: dict[int, dict | None] = {}
        self._stmt: dict[type, Callable[[Any, Frame], Any]] = {
            S.SeqStmts: self._seq,
            S.AssignStmt: self._assign,
            S.EvalStmt: self._eval_stmt,
            S.IfStmt: self._if,
            S.ForStmt: self._for,
            S.WhileStmt: self._while,
            S.YieldStmt: self._yield,
            S.ReturnStmt: self._return,
            S.BreakStmt: self._break,
            S.ContinueStmt: self._continue,
            S.InlineStmt: self._inline,
        }
        self._expr: dict[type, Callable[[Any, Frame], Any]] = {
            E.Var: self._var,
            E.IterArg: self._var,
            E.ConstInt: self._const,
            E.ConstFloat: self._const,
            E.ConstBool: self._const,
            E.Call: self._call,
            E.Submit: self._submit,
            E.MakeTuple: self._make_tuple,
            E.TupleGetItemExpr: self._tuple_get,
        }
        self._operator_kinds = frozenset(E.BinaryExpr.__subclasses__() + E.UnaryExpr.__subclasses__())
        for cls in self._operator_kinds:
            self._expr[cls] = self._operators

    # ------------------------------------------------------------------ functions

    def call_function(self, func: Function, args: list[Any]) -> list[Any]:
        """Run ``func`` on ``args`` (already run-time values); return its return values."""
        if len(args) != len(func.params):
            raise OpError(f"function '{func.name}' takes {len(func.params)} arguments, got {len(args)}")
        if func.func_type == FunctionType.Group and self.state.group is None:
            return self._run_group(func, args)
        active = self._active()
        if func.name in active:  # the program never ends: refused like the compile's NoRecursion
            cycle = active[active.index(func.name):] + [func.name]
            raise OpError(recursion_message(cycle))
        frame = Frame(self._memory_for(func))
        if func.func_type == FunctionType.Group:
            frame.env = _GroupEnv()
        for param, arg in zip(func.params, args):
            self._check_value(param, arg, frame.env, f"argument '{param.name_hint}' of '{func.name}'")
            frame.env[param] = arg
        active.append(func.name)
        try:
            result = self.exec_stmt(func.body, frame)
        except _Return as ret:
            return ret.values
        except (_Break, _Continue) as ctl:
            word = "break" if isinstance(ctl, _Break) else "continue"
            raise InterpreterError(f"'{word}' outside a loop in function '{func.name}'", func.span) from None
        finally:
            active.pop()
        return [] if result is None else result

    def _active(self) -> list[str]:
        active = getattr(self._running, "functions", None)
        if active is None:
            active = self._running.functions = []
        return active

    def _run_group(self, func: Function, args: list[Any]) -> list[Any]:
        """Run a Group: its body launches its kernels as processes (pypto.interp.group), which then
        run together; results of kernel calls read after the body are the kernels' results."""
        run = self.state.group = GroupRun(func.name, self.state)
        try:
            results = self.call_function(func, args)
            run.run_all()
        finally:
            self.state.group = None
        return [r.value() if isinstance(r, _Pending) else r for r in results]

    def _memory_for(self, func: Function) -> AddressMemory | None:
        if self.memory_mode == "values":
            return None
        key = id(func)
        if key not in self._extents:
            self._extents[key] = plan_extents(func)
        extents = self._extents[key]
        if extents is None:
            if self.memory_mode == "addresses":
                raise OpError(f"function '{func.name}' has tiles without allocated addresses")
            return None
        return AddressMemory(extents)

    def _check_value(self, var: E.Var, value: Any, env: dict[E.Var, Any], what: str) -> None:
        """Check a tensor/tile against ``var``'s static shape; bind its dynamic dims on first sight."""
        t = var.type
        if not isinstance(t, ShapedType) or not isinstance(value, ArrayValue):
            return
        shape = value.data.shape
        if len(t.shape) != len(shape):
            raise OpError(f"{what} has shape {list(shape)} but its type is {t}")
        for dim, n in zip(t.shape, shape):
            if isinstance(dim, E.ConstInt):
                if dim.value != n:
                    raise OpError(f"{what} has shape {list(shape)} but its type is {t}")
            elif type(dim) is E.Var:
                bound = env.get(dim)
                if bound is None:
                    env[dim] = int(n)
                elif bound != n:
                    raise OpError(f"{what} has shape {list(shape)} but '{dim.name_hint}' is {bound}")

    # ------------------------------------------------------------------ statements

    def exec_stmt(self, stmt: S.Stmt, frame: Frame) -> list[Any] | None:
        """Execute ``stmt``; return the values of a trailing ``yield`` (None if it yields nothing)."""
        handler = self._stmt.get(type(stmt))
        if handler is None:
            if not isinstance(stmt, S.ScopeStmt):
                raise InterpreterError(f"cannot interpret statement {type(stmt).__name__}", stmt.span)
            handler = self._scope
        try:
            return handler(stmt, frame)
        except (InterpreterError, *_CONTROL):
            raise
        except _RUNTIME_ERRORS as err:
            raise InterpreterError(
                str(err) if isinstance(err, OpError) else f"{type(err).__name__}: {err}", stmt.span
            ) from err

    def _seq(self, stmt: S.SeqStmts, frame: Frame) -> list[Any] | None:
        for s in stmt.stmts:
            result = self.exec_stmt(s, frame)
            if result is not None:
                return result
        return None

    def _assign(self, stmt: S.AssignStmt, frame: Frame) -> None:
        self._bind(stmt.var, self.eval(stmt.value, frame), frame, carry=False)

    def _bind(self, var: E.Var, value: Any, frame: Frame, carry: bool) -> None:
        """Bind ``var``; in address mode place a tile at its address (carries alias without copying)."""
        self._check_value(var, value, frame.env, f"value of '{var.name_hint}'")
        t = var.type
        if frame.memory is not None and isinstance(t, TileType) and isinstance(value, TileValue):
            address = tile_address(t)
            if address is not None:
                view = frame.memory.view(t.memory_space, address, value.data.shape, value.data.dtype)
                space = frame.memory.buffers[t.memory_space]
                if not carry and np.may_share_memory(space, value.data) and not _same_memory(view, value.data):
                    # A zero-copy view op (slice, transpose_view) reads its source's bytes where they
                    # are; copying them densely to the view's address would clobber the source.
                    frame.env[var] = TileValue(value.data, value.dtype, value.valid, t.memory_space)
                    return
                if not carry and not _same_memory(view, value.data):
                    np.copyto(view, value.data)
                value = TileValue(view, value.dtype, value.valid, t.memory_space)
        frame.env[var] = value

    def _eval_stmt(self, stmt: S.EvalStmt, frame: Frame) -> None:
        self.eval(stmt.expr, frame)

    def _if(self, stmt: S.IfStmt, frame: Frame) -> None:
        branch = stmt.then_body if self.eval(stmt.condition, frame) else stmt.else_body
        result = self.exec_stmt(branch, frame) if branch is not None else None
        if stmt.return_vars:
            self._bind_all(stmt.return_vars, result, frame, "if branch")

    def _bind_all(self, targets: list[E.Var], values: list[Any] | None, frame: Frame, what: str) -> None:
        if values is None or len(values) != len(targets):
            got = "no yield" if values is None else f"{len(values)} values"
            raise OpError(f"{what} yields {got} for {len(targets)} variables")
        for var, value in zip(targets, values):
            self._bind(var, value, frame, carry=True)

    def _for(self, stmt: S.ForStmt, frame: Frame) -> None:
        start, stop, step = (int(self.eval(e, frame)) for e in (stmt.start, stmt.stop, stmt.step))
        if step == 0:
            raise OpError("for loop with step 0")
        if stmt.kind == ForKind.Unroll and stmt.iter_args:
            raise OpError("an unrolled loop cannot have iter_args")
        values = [self.eval(ia.initValue, frame) for ia in stmt.iter_args]
        env = frame.env
        i = start
        while (i < stop) if step > 0 else (i > stop):
            env[stmt.loop_var] = i
            for ia, v in zip(stmt.iter_args, values):
                self._bind(ia, v, frame, carry=True)
            i += step
            values, broke = self._iteration(stmt, frame)
            if broke:
                break
        if stmt.return_vars:
            self._bind_all(stmt.return_vars, values, frame, "for loop")

    def _iteration(self, stmt: S.ForStmt | S.WhileStmt, frame: Frame) -> tuple[list[Any], bool]:
        """Run one iteration of a loop body; return the values it carries on and whether it broke out.

        An iteration that reaches the body's trailing ``yield`` carries the yielded values (SSA form).
        One that does not carries the current value of each iter_arg. That is the meaning of the
        surface dialect's pre-SSA loops, whose body has no yield (ConvertToSSA adds it): the parser
        turns ``x = x + 1`` in ``for (x,) in pl.while_(init_values=(x0,))`` or
        ``for i, (x,) in pl.range(n, init_values=(x0,))`` into an assignment to the IterArg object
        ``x`` itself, so its value at the end of the iteration (or at a ``break``/``continue``) is the
        carried one. An SSA body never re-assigns an IterArg, so an iteration it leaves by ``break``
        or ``continue`` carries the values it started with.
        """
        self.steps += 1
        if self.steps > self.max_steps:
            kind = "for" if isinstance(stmt, S.ForStmt) else "while"
            raise InterpreterError(
                f"step limit reached: {self.max_steps} loop iterations ran and this {kind} loop was starting "
                "another; the program may not terminate (pass a larger max_steps= to run longer)",
                stmt.span,
            )
        broke = False
        try:
            result = self.exec_stmt(stmt.body, frame)
        except _Break:
            result, broke = None, True
        except _Continue:
            result = None
        if result is None:
            return [frame.env[ia] for ia in stmt.iter_args], broke
        if len(result) != len(stmt.iter_args):
            kind = "for" if isinstance(stmt, S.ForStmt) else "while"
            raise OpError(
                f"{kind} loop body ends with a yield of {len(result)} values for {len(stmt.iter_args)} iter_args"
            )
        return result, broke

    def _while(self, stmt: S.WhileStmt, frame: Frame) -> None:
        values = [self.eval(ia.initValue, frame) for ia in stmt.iter_args]
        while True:
            for ia, v in zip(stmt.iter_args, values):
                self._bind(ia, v, frame, carry=True)
            if not self.eval(stmt.condition, frame):
                break
            values, broke = self._iteration(stmt, frame)
            if broke:
                break
        if stmt.return_vars:
            self._bind_all(stmt.return_vars, values, frame, "while loop")

    def _yield(self, stmt: S.YieldStmt, frame: Frame) -> list[Any]:
        return [self.eval(v, frame) for v in stmt.value]

    def _return(self, stmt: S.ReturnStmt, frame: Frame) -> None:
        raise _Return([self.eval(v, frame) for v in stmt.value])

    def _break(self, stmt: S.BreakStmt, frame: Frame) -> None:
        raise _Break()

    def _continue(self, stmt: S.ContinueStmt, frame: Frame) -> None:
        raise _Continue()

    def _inline(self, stmt: S.InlineStmt, frame: Frame) -> None:
        raise OpError("inline source text (InlineStmt) has no reference semantics")

    def _scope(self, stmt: S.ScopeStmt, frame: Frame) -> list[Any] | None:
        result = None
        st = self.state
        if isinstance(stmt, S.SpmdScopeStmt):
            if self._dispatched(stmt, frame):
                n = int(self.eval(stmt.core_num, frame))
                saved = (st.block_idx, st.block_num)
                try:
                    for b in range(n):
                        st.block_idx, st.block_num = b, n
                        result = self.exec_stmt(stmt.body, frame)
                finally:
                    st.block_idx, st.block_num = saved
        elif isinstance(stmt, S.SplitAivScopeStmt):
            saved = (st.subblock_idx, st.subblock_num)
            try:
                for lane in range(stmt.count):
                    st.subblock_idx, st.subblock_num = lane, stmt.count
                    result = self.exec_stmt(stmt.body, frame)
            finally:
                st.subblock_idx, st.subblock_num = saved
        else:
            result = self.exec_stmt(stmt.body, frame)
        task_var = stmt.attrs.get("task_id_var")
        if isinstance(task_var, E.Var):
            frame.env[task_var] = st.new_task_id()
        return result

    def _dispatched(self, stmt: S.SpmdScopeStmt, frame: Frame) -> bool:
        """False when the scope's predicate skips it: then each variable its body defines as a new
        name of an outer tensor (``out__ssa_v1 = pl.assemble(out, ...)``, a kernel's Out result)
        names that tensor, unchanged, as the outlined Submit's results would."""
        predicate = stmt.attrs.get("predicate")
        if predicate is None or self.eval(predicate, frame):
            return True
        if self.program is None:
            raise OpError("a spmd scope with a predicate needs the whole program, not a lone Function")
        roots = WrittenRoots(stmt.body, self.program)
        for var in roots.edges:
            root = roots.root(var)
            if root in frame.env:
                frame.env[var] = frame.env[root]
        return False

    # ------------------------------------------------------------------ expressions

    def eval(self, e: E.Expr, frame: Frame) -> Any:
        """The run-time value of expression ``e``."""
        handler = self._expr.get(type(e))
        if handler is None:
            if isinstance(e, E.Var):
                return self._var(e, frame)
            raise OpError(f"cannot evaluate expression {type(e).__name__}")
        return handler(e, frame)

    def _var(self, e: E.Var, frame: Frame) -> Any:
        try:
            return frame.env[e]
        except KeyError:
            raise OpError(f"variable '{e.name_hint}' is used before it is defined") from None

    def _const(self, e: E.ConstInt | E.ConstFloat | E.ConstBool, frame: Frame) -> Any:
        # The value as the dtype holds it (pl.const(200, pl.INT8) is -56), exactly as Simplify folds it.
        return normalize_scalar(e.value, e.dtype)

    def _operators(self, e: E.BinaryExpr | E.UnaryExpr, frame: Frame) -> Any:
        """A tree of scalar operators, evaluated left to right with an explicit stack: a chain of
        any depth costs one frame (operands of other kinds go through :meth:`eval`)."""
        kinds = self._operator_kinds
        values: list[Any] = []
        todo: list[tuple[E.Expr, bool]] = [(e, False)]
        while todo:
            node, operands_done = todo.pop()
            if operands_done:
                if isinstance(node, E.BinaryExpr):
                    right = values.pop()
                    values.append(eval_binary(type(node), values.pop(), right, node.dtype))
                else:
                    values.append(eval_unary(type(node), values.pop(), node.dtype))
            elif type(node) not in kinds:
                values.append(self.eval(node, frame))
            elif isinstance(node, E.BinaryExpr):
                todo += ((node, True), (node.right, False), (node.left, False))
            else:
                todo += ((node, True), (node.operand, False))
        return values[0]

    def _make_tuple(self, e: E.MakeTuple, frame: Frame) -> tuple[Any, ...]:
        return tuple(self.eval(x, frame) for x in e.elements)

    def _tuple_get(self, e: E.TupleGetItemExpr, frame: Frame) -> Any:
        value = self.eval(e.tuple, frame)
        if not isinstance(value, tuple) or not 0 <= e.index < len(value):
            raise OpError(f"tuple index {e.index} out of range for {value!r}")
        return value[e.index]

    def _call(self, e: E.Call, frame: Frame) -> Any:
        if isinstance(e.op, E.GlobalVar):
            results = self._launch(e, frame, core_num=e.attrs.get("core_num"))
            if results is None:
                return None
            return results[0] if len(results) == 1 else (tuple(results) if results else None)
        args = []
        for a in e.args:  # a loop, not a comprehension: one frame less per nested call
            args.append(self.eval(a, frame))
        return self._apply_op(e, args)

    def _apply_op(self, e: E.Call | E.Submit, args: list[Any]) -> Any:
        impl = lookup(e.op.name)
        try:
            value = impl(OpContext(e, self.state), *args)
        except OpError as err:
            raise OpError(f"{e.op.name}: {err}") from err
        except TypeError as err:
            raise OpError(f"{e.op.name}: bad arguments ({len(args)} given): {err}") from err
        return self._conform(e, value)

    def _conform(self, e: E.Expr, value: Any) -> Any:
        """Give an op result its declared dtype and check its static shape against the call type."""
        t = e.type
        if isinstance(value, ArrayValue) and isinstance(t, ShapedType):
            dims = [d.value if isinstance(d, E.ConstInt) else None for d in t.shape]
            shape = value.data.shape
            if len(dims) != len(shape) or any(d is not None and d != n for d, n in zip(dims, shape)):
                raise OpError(f"{e.op.name}: produced shape {list(shape)} but the call's type is {t}")
            if value.dtype != t.dtype:
                if not isinstance(value, TileValue):
                    raise OpError(f"{e.op.name}: produced a {value.dtype} tensor but the call's type is {t}")
                value = TileValue(cast_data(value.data, t.dtype), t.dtype, value.valid, value.space)
        elif isinstance(t, ScalarType) and isinstance(value, (int, float, bool, np.generic)):
            if not t.dtype.is_task_id():
                value = normalize_scalar(value, t.dtype)
        return value

    def _submit(self, e: E.Submit, frame: Frame) -> Any:
        if not isinstance(e.op, E.GlobalVar):
            value = self._apply_op(e, [self.eval(a, frame) for a in e.args])
            return (value, self.state.new_task_id())
        results = self._launch(e, frame, core_num=e.core_num, predicate=e.predicate)
        task_id = self.state.new_task_id()
        return tuple(results) + (task_id,) if results else task_id

    def _launch(
        self, e: E.Call | E.Submit, frame: Frame, core_num: Any, predicate: E.Expr | None = None
    ) -> list[Any] | None:
        """Run the program function called by ``e`` once per block and lane; its return values."""
        if self.program is None:
            raise OpError(f"calls function '{e.op.name}' but the interpreter was given a lone Function")
        func = self.program.get_function(e.op.name)
        if func is None:
            raise OpError(f"calls unknown function '{e.op.name}'")
        args = [self.eval(a, frame) for a in e.args]
        if predicate is not None and not self.eval(predicate, frame):
            return _skipped_results(func, args, self.program)
        if core_num is None and func.func_type == FunctionType.Spmd:
            core_num = func.attrs.get("core_num")
        blocks = (
            int(self.eval(core_num, frame) if isinstance(core_num, E.Expr) else core_num)
            if core_num is not None
            else None
        )
        lanes = 2 if runs_on_both_lanes(func) else None
        st = self.state
        saved = (st.block_idx, st.block_num, st.subblock_idx, st.subblock_num)
        results: list[Any] = []
        try:
            for b in range(blocks) if blocks is not None else (None,):
                if b is not None:
                    st.block_idx, st.block_num = b, blocks
                for lane in range(lanes) if lanes is not None else (None,):
                    if lane is not None:
                        st.subblock_idx, st.subblock_num = lane, lanes
                    results = self._run_kernel(func, args)
        finally:
            st.block_idx, st.block_num, st.subblock_idx, st.subblock_num = saved
        return results


    def _run_kernel(self, func: Function, args: list[Any]) -> list[Any]:
        """Run ``func`` now, or, launched by a Group's body, as a process of that group."""
        run = self.state.group
        if run is None or func.func_type not in (FunctionType.AIC, FunctionType.AIV):
            return self.call_function(func, args)
        proc = run.spawn(func.name, func.func_type.name, lambda: self.call_function(func, args))
        return [_Pending(run, proc, i) for i in range(len(func.return_types))]


class _Pending:
    """A result of a kernel launched inside a Group, known once that kernel has run."""

    def __init__(self, run: GroupRun, proc: Process, index: int) -> None:
        self.run, self.proc, self.index = run, proc, index

    def value(self) -> Any:
        if not self.proc.done:  # the group's body reads it: run the kernels until this one ends
            self.run.run_until(lambda: self.proc.done)
        return self.proc.result[self.index]


class _GroupEnv(dict):
    """The variables of a Group's body: reading a kernel's pending result waits for that kernel."""

    def __getitem__(self, key: E.Var) -> Any:
        value = dict.__getitem__(self, key)
        return value.value() if isinstance(value, _Pending) else value


def _same_memory(a: np.ndarray, b: np.ndarray) -> bool:
    """Both arrays are the very same bytes with the same layout (a copy would be a no-op)."""
    return (
        a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
        and a.strides == b.strides
        and a.shape == b.shape
        and a.dtype == b.dtype
    )


def _skipped_results(func: Function, args: list[Any], program: Program) -> list[Any]:
    """Results of a task skipped by its predicate: the parameters the callee returns (itself, or
    written in place: ``out = pl.store(t, [0], out); return out``), unchanged."""
    body = func.body
    last = body.stmts[-1] if isinstance(body, S.SeqStmts) and body.stmts else body
    if not isinstance(last, (S.ReturnStmt, S.YieldStmt)):
        return []
    root = WrittenRoots(func, program).root
    index = {p: i for i, p in enumerate(func.params)}
    results = []
    for value in last.value:
        i = index.get(root(value)) if isinstance(value, E.Var) else None
        if i is None:
            raise OpError(f"a false predicate skips '{func.name}', whose result is not one of its parameters")
        results.append(args[i])
    return results
