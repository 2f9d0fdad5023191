"""Check every task's tensor windows with a call's values before anything runs (docs/simulator.md#bounds).

``check_windows(program, values)`` walks the orchestration's scalar control flow with the call's
scalars and dynamic dimensions, and at each kernel call evaluates the windows of
:func:`pypto.analysis.windows.kernel_windows` as the generated guard would. The first window outside
its tensor is a :class:`SimulatorBoundsError`, before the build and the run. Where the walk needs a
value the arguments do not give (an element read from a tensor, a loop beyond :data:`STEP_LIMIT`
statements), it stops silently: the guard in the orchestration checks those tasks when they are
submitted.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pypto.analysis.defuse import base_name
from pypto.analysis.windows import BLOCK_NUM, Window, describe_window, kernel_windows
from pypto.ir.errors import OpError
from pypto.ir.scalar_eval import eval_binary, eval_unary
from pypto.ir import expr as E
from pypto.ir import stmt as S
from pypto.ir.enums import FunctionType
from pypto.ir.function import Function, Program
from pypto.ir.types import TensorType

from .errors import SimulatorBoundsError

STEP_LIMIT = 100_000  # statements walked before the check leaves the rest to the run-time guard

_KERNELS = (FunctionType.AIV, FunctionType.AIC)
_HINT = ("a scalar argument or a dynamic dimension puts this window outside the tensor; nothing ran, and the "
         "caller's arrays are unchanged")


class _Unknown(Exception):
    """A value the call's arguments do not determine: the walk stops."""


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def check_windows(program: Program, orchestration: Function, values: Mapping[E.Var, Any]) -> None:
    """Raise SimulatorBoundsError for the first task window outside its tensor, given ``values`` for the
    orchestration's scalar parameters and dynamic dimensions."""
    walk = _Walk(program, dict(values))
    try:
        walk.stmt(orchestration.body)
    except (_Unknown, _Break, _Continue, OpError):
        return


class _Walk:
    def __init__(self, program: Program, env: dict[E.Var, Any]) -> None:
        self.program = program
        self.env = env
        self.steps = 0

    def stmt(self, s: S.Stmt | None) -> list[Any] | None:
        """Run ``s``; a trailing yield's values are returned."""
        self.steps += 1
        if self.steps > STEP_LIMIT:
            raise _Unknown
        if s is None:
            return None
        if isinstance(s, S.SeqStmts):
            result = None
            for child in s.stmts:
                result = self.stmt(child)
            return result
        if isinstance(s, S.ScopeStmt):
            return self.stmt(s.body)
        if isinstance(s, S.YieldStmt):
            return [self.value(v) for v in s.value]
        if isinstance(s, S.AssignStmt):
            self.assign(s.var, s.value)
        elif isinstance(s, S.EvalStmt):
            self.call(s.expr)
        elif isinstance(s, S.ForStmt):
            self.loop(s)
        elif isinstance(s, S.WhileStmt):
            self.while_loop(s)
        elif isinstance(s, S.IfStmt):
            taken = s.then_body if self.eval(s.condition) else s.else_body
            self.bind(s.return_vars, self.stmt(taken))
        elif isinstance(s, S.BreakStmt):
            raise _Break
        elif isinstance(s, S.ContinueStmt):
            raise _Continue
        return None

    def assign(self, var: E.Var, value: E.Expr) -> None:
        if isinstance(value, (E.Call, E.Submit)) and isinstance(value.op, E.GlobalVar):
            self.call(value)
        elif not isinstance(var.type, TensorType):
            self.env[var] = self.eval(value)

    def loop(self, s: S.ForStmt) -> None:
        start, stop, step = self.eval(s.start), self.eval(s.stop), self.eval(s.step)
        if not step:
            raise _Unknown
        self.bind(s.iter_args, [self.value(ia.initValue) for ia in s.iter_args])
        for i in range(start, stop, step):
            self.env[s.loop_var] = i
            if not self.iteration(s):
                break
        self.bind(s.return_vars, [self.env.get(ia) for ia in s.iter_args])

    def while_loop(self, s: S.WhileStmt) -> None:
        self.bind(s.iter_args, [self.value(ia.initValue) for ia in s.iter_args])
        while self.eval(s.condition):
            if not self.iteration(s):
                break
        self.bind(s.return_vars, [self.env.get(ia) for ia in s.iter_args])

    def iteration(self, s: S.ForStmt | S.WhileStmt) -> bool:
        """One run of the body; False after a break."""
        try:
            self.bind(s.iter_args, self.stmt(s.body))
        except _Continue:
            pass
        except _Break:
            return False
        return True

    def bind(self, targets: list[E.Var], values: list[Any] | None) -> None:
        for var, v in zip(targets, values or []):
            if v is not None:
                self.env[var] = v

    def value(self, e: E.Expr) -> Any:
        """A carried value: a scalar's value, None for a tensor (only its type's shape is read)."""
        return None if isinstance(e.type, TensorType) else self.eval(e)

    # ---- tasks ---------------------------------------------------------------------------------------

    def call(self, call: E.Expr) -> None:
        if not (isinstance(call, (E.Call, E.Submit)) and isinstance(call.op, E.GlobalVar)):
            return
        kernel = self.program.get_function(call.op.name)
        if kernel is None or kernel.func_type not in _KERNELS:
            return  # a Spmd launch: checked by the run-time guard
        core_num = call.core_num if isinstance(call, E.Submit) else call.attrs.get("core_num")
        env: dict[E.Var, Any] = {BLOCK_NUM: 1 if core_num is None else self.eval(core_num)
                                 if isinstance(core_num, E.Expr) else core_num}
        shapes: dict[int, list[int]] = {}
        for k, (p, arg) in enumerate(zip(kernel.params, call.args)):
            if isinstance(p.type, TensorType):
                shapes[k] = [self.eval(d) for d in arg.type.shape]
                env.update((d, n) for d, n in zip(p.type.shape, shapes[k]) if isinstance(d, E.Var))
            else:
                env[p] = self.eval(arg)
        for window in kernel_windows(kernel):
            if window.bounded:
                self.window(call, kernel, window, env, shapes[window.param])

    def window(self, call: E.Expr, kernel: Function, window: Window, env: dict[E.Var, Any], dims: list[int]) -> None:
        inner = _Walk(self.program, env)
        if not all(inner.eval(c) for c in window.when):
            return
        los = [inner.eval(e) for e in window.lo]
        his = [inner.eval(e) for e in window.hi]
        if all(lo >= 0 and hi <= d for lo, hi, d in zip(los, his, dims)):
            return
        arg = call.args[window.param]
        where = f" ({Path(call.span.filename).name}:{call.span.begin_line})" if call.span.begin_line > 0 else ""
        tensor = base_name(arg.name_hint) if isinstance(arg, E.Var) else kernel.params[window.param].name_hint
        raise SimulatorBoundsError(describe_window(kernel.name, where, window.op, tensor,
                                                   [f"{lo}:{hi}" for lo, hi in zip(los, his)],
                                                   [str(d) for d in dims]), _HINT)

    # ---- expressions -----------------------------------------------------------------------------------

    def eval(self, e: E.Expr) -> Any:
        if isinstance(e, (E.ConstInt, E.ConstFloat, E.ConstBool)):
            return e.value
        if isinstance(e, E.Var):
            if e not in self.env:
                raise _Unknown
            return self.env[e]
        if isinstance(e, E.BinaryExpr):
            return eval_binary(type(e), self.eval(e.left), self.eval(e.right), e.dtype)
        if isinstance(e, E.UnaryExpr):
            return eval_unary(type(e), self.eval(e.operand), e.dtype)
        if isinstance(e, E.Call) and e.op.name == "tensor.dim" and isinstance(e.args[1], E.ConstInt):
            return self.eval(e.args[0].type.shape[e.args[1].value])
        raise _Unknown
