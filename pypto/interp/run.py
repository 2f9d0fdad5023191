"""``run``: execute a Program or Function on numpy arrays and Python scalars."""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any

import numpy as np

from pypto.ir import expr as E
from pypto.ir.datatype import DataType
from pypto.ir.enums import ParamDirection
from pypto.ir.function import Function, Program
from pypto.ir.traversal import iter_children
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TensorType, TileType

from pypto.ir.numpy_dtypes import normalize_scalar, numpy_dtype
from .errors import InterpreterError, OpError
from .machine import DEFAULT_MAX_STEPS, Machine
from .semantics import RunState
from .values import TensorValue, TileValue, to_python


@dataclass
class RunResult:
    """What a run produced.

    ``returns``: the entry function's return values (numpy arrays for tensors and tiles, Python
    scalars, tuples for tuple values). ``outputs``: the final contents of the entry's Out and InOut
    tensor parameters, by parameter name (copies of the inputs, updated in place by the run).
    """

    returns: tuple[Any, ...]
    outputs: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def value(self) -> Any:
        """The single return value; ``InterpreterError`` if the entry does not return exactly one."""
        if len(self.returns) != 1:
            raise InterpreterError(f"the entry returned {len(self.returns)} values, not one")
        return self.returns[0]


def run(
    program_or_function: Program | Function,
    *inputs: Any,
    entry: str | None = None,
    memory: str = "auto",
    max_steps: int = DEFAULT_MAX_STEPS,
) -> RunResult:
    """Execute ``program_or_function`` on ``inputs`` and return its results.

    Tensor parameters take numpy arrays (copied, then converted to the parameter's dtype: integers
    must convert exactly, floats are rounded); an Out parameter's contents count as unwritten, so
    reading it before writing is an error. The parameters of tensors an entry creates and returns
    (``attrs["created_results"]``, ExportEntryResults) may be left out, as a call leaves them out.
    Scalar parameters take Python numbers. ``entry`` names the function of a Program to run; by
    default the only function, else ``main``, else the only function that no other function calls.
    ``memory`` selects tile storage: ``"auto"`` (address-backed for functions whose tiles all have
    allocated addresses), ``"values"`` or ``"addresses"``
    (see :mod:`pypto.interp.memory`). ``max_steps`` bounds the loop iterations of the whole run
    (for and while loops, every function): the iteration beyond it is an InterpreterError at that
    loop's span, so a program that does not terminate fails instead of hanging.
    """
    if isinstance(program_or_function, Program):
        program: Program | None = program_or_function
        func = _entry(program_or_function, entry)
    elif isinstance(program_or_function, Function):
        if entry is not None and entry != program_or_function.name:
            raise InterpreterError(f"entry '{entry}' given for a lone Function '{program_or_function.name}'")
        program, func = None, program_or_function
    else:
        raise InterpreterError(f"run expects an ir.Program or ir.Function, got {type(program_or_function).__name__}")
    created = func.attrs.created_results or 0
    if created and len(inputs) == len(func.params) - created:
        inputs = (*inputs, *_created_inputs(func, inputs))
    if len(inputs) != len(func.params):
        raise InterpreterError(
            f"function '{func.name}' takes {len(func.params)} inputs "
            f"({', '.join(p.name_hint for p in func.params)}), got {len(inputs)}",
            func.span,
        )
    args = [_convert_input(p, d, x, func) for p, d, x in zip(func.params, func.param_directions, inputs)]
    machine = Machine(program, RunState(), memory, max_steps)
    try:
        returns = machine.call_function(func, args)
    except OpError as err:
        raise InterpreterError(str(err), func.span) from err
    callers = len(func.params) - created  # the created results are returned, not the caller's outputs
    outputs = {
        p.name_hint: arg.data
        for p, d, arg in zip(func.params[:callers], func.param_directions, args)
        if d != ParamDirection.In and isinstance(arg, TensorValue)
    }
    return RunResult(tuple(to_python(v) for v in returns), outputs)


def _created_inputs(func: Function, inputs: Sequence[Any]) -> list[np.ndarray]:
    """Arrays for the trailing parameters of the tensors ``func`` creates and returns
    (ExportEntryResults): the caller does not pass them; a dynamic dim is read off the given arrays."""
    dims: dict[E.Var, int] = {}
    for p, x in zip(func.params, inputs):
        if isinstance(p.type, TensorType) and hasattr(x, "shape"):
            dims.update((d, int(n)) for d, n in zip(p.type.shape, x.shape) if isinstance(d, E.Var))
    arrays = []
    for p in func.params[len(inputs) :]:
        assert isinstance(p.type, TensorType)  # ExportEntryResults adds tensor parameters
        shape = [d.value if isinstance(d, E.ConstInt) else dims[d] for d in p.type.shape]
        arrays.append(np.zeros(shape, dtype=numpy_dtype(p.type.dtype)))
    return arrays


def _entry(program: Program, name: str | None) -> Function:
    funcs = list(program.functions.values())
    if name is not None:
        func = program.get_function(name)
        if func is None:
            raise InterpreterError(
                f"program has no function '{name}' (functions: {', '.join(f.name for f in funcs)})", program.span
            )
        return func
    if len(funcs) == 1:
        return funcs[0]
    main = program.get_function("main")
    if main is not None:
        return main
    called = {c for f in funcs for c in _callees(f)}
    roots = [f for f in funcs if f.name not in called]
    if len(roots) == 1:
        return roots[0]
    raise InterpreterError(
        f"cannot choose the entry function among {', '.join(f.name for f in roots or funcs)}: pass entry=",
        program.span,
    )


def _callees(func: Function) -> set[str]:
    """Names of the program functions ``func`` calls (a walk over its IR)."""
    names: set[str] = set()
    stack: list[Any] = [func.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (E.Call, E.Submit)) and isinstance(node.op, E.GlobalVar):
            names.add(node.op.name)
        stack.extend(iter_children(node))
    return names


def _convert_input(param: E.Var, direction: ParamDirection, value: Any, func: Function) -> Any:
    t = param.type
    what = f"input '{param.name_hint}' of '{func.name}'"
    if isinstance(t, (TensorType, TileType)):
        data = _to_array(value, t.dtype, what, func)
        if isinstance(t, TileType):
            return TileValue(data, t.dtype, None, t.memory_space)
        written = np.zeros(data.shape, dtype=bool) if direction == ParamDirection.Out else None
        return TensorValue(data, t.dtype, None, written)
    if isinstance(t, ScalarType):
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        if isinstance(value, np.generic):
            value = value.item()
        if not isinstance(value, (bool, int, float)):
            raise InterpreterError(f"{what} must be a Python scalar, got {type(value).__name__}", func.span)
        if t.dtype.is_int() and isinstance(value, float) and not value.is_integer():
            raise InterpreterError(f"{what} is {value}, not an integer for {t.dtype}", func.span)
        try:
            return normalize_scalar(value, t.dtype)
        except OpError as err:
            raise InterpreterError(f"{what}: {err}", func.span) from err
    return value


def _to_array(value: Any, dtype: DataType, what: str, func: Function) -> np.ndarray:
    try:
        target = numpy_dtype(dtype)
    except OpError as err:
        raise InterpreterError(f"{what}: {err}", func.span) from err
    src = np.asarray(value)
    if src.dtype.kind in "OSUcMm":  # object, bytes, str, complex, dates (ml_dtypes types are kind V)
        raise InterpreterError(f"{what} must be a numeric array", func.span)
    data = np.array(src, dtype=target, copy=True) if src.dtype != target else src.copy()
    if (dtype.is_int() or dtype.is_bool()) and src.dtype != target:
        if not np.array_equal(data.astype(np.float64), src.astype(np.float64)):
            raise InterpreterError(f"{what} has values that {dtype} cannot hold exactly", func.span)
    return data
