"""Test helper: check that a pass (or pipeline) preserves the meaning of a program.

``assert_pass_preserves(pass_or_pipeline, program, inputs)`` runs ``program`` on ``inputs``, applies
the pass, runs the result on the same inputs and compares return values and Out/InOut outputs:
exactly for integers and booleans, with a tolerance chosen by dtype for floats
(:func:`pypto.interp.tolerance.tolerance`; NaNs compare equal). Task ids are opaque and not compared.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from pypto.ir.datatype import DataType
from pypto.ir.function import Function, Program
from pypto.ir.type_base import ScalarType

from pypto.ir.numpy_dtypes import datatype_of
from .errors import InterpreterError, OpError
from .run import RunResult, _entry, run
from .tolerance import tolerance


def apply_pass(pass_or_pipeline: Any, program: Program | Function) -> Program | Function:
    """Apply a pass object, a pipeline (``run_passes``), a plain callable or a sequence of them."""
    if isinstance(pass_or_pipeline, (list, tuple)):
        for p in pass_or_pipeline:
            program = apply_pass(p, program)
        return program
    runner: Callable[[Any], Any] | None = getattr(pass_or_pipeline, "run_passes", None)
    if runner is None and callable(pass_or_pipeline):
        runner = pass_or_pipeline
    if runner is None:
        raise TypeError(f"cannot apply {pass_or_pipeline!r}: expected a pass, a pipeline or a callable")
    result = runner(program)
    if not isinstance(result, (Program, Function)):
        raise TypeError(f"{_name(pass_or_pipeline)} returned {type(result).__name__}, not a Program or Function")
    return result


def _name(p: Any) -> str:
    return getattr(p, "name", None) or getattr(p, "__name__", None) or type(p).__name__


def assert_pass_preserves(
    pass_or_pipeline: Any,
    program: Program | Function,
    inputs: Sequence[Any],
    *,
    entry: str | None = None,
    rtol: float | None = None,
    atol: float | None = None,
) -> Program | Function:
    """Assert that ``pass_or_pipeline`` does not change what ``program`` computes on ``inputs``.

    Returns the transformed program (so a test can also inspect or snapshot it). Raises
    ``AssertionError`` naming the pass and the first differing output when results differ or the
    transformed program fails to run. ``rtol``/``atol`` override the dtype-based float tolerance.
    """
    inputs = tuple(inputs)
    before = run(program, *inputs, entry=entry)
    after_program = apply_pass(pass_or_pipeline, program)
    name = _name(pass_or_pipeline)
    try:
        after = run(after_program, *inputs, entry=entry)
    except InterpreterError as err:
        raise AssertionError(f"after {name} the program no longer runs: {err}") from err
    skip = _task_id_returns(program, entry)
    _compare_results(before, after, skip, name, rtol, atol)
    return after_program


def _task_id_returns(program: Program | Function, entry: str | None) -> set[int]:
    func = program if isinstance(program, Function) else _entry(program, entry)
    return {i for i, t in enumerate(func.return_types) if isinstance(t, ScalarType) and t.dtype == DataType.TASK_ID}


def _compare_results(
    before: RunResult, after: RunResult, skip: set[int], name: str, rtol: float | None, atol: float | None
) -> None:
    if len(before.returns) != len(after.returns):
        raise AssertionError(
            f"{name} changed the number of return values: {len(before.returns)} -> {len(after.returns)}"
        )
    for i, (x, y) in enumerate(zip(before.returns, after.returns)):
        if i not in skip:
            assert_values_close(x, y, f"return value {i}", name, rtol, atol)
    if set(before.outputs) != set(after.outputs):
        raise AssertionError(
            f"{name} changed the Out/InOut parameters: {sorted(before.outputs)} -> {sorted(after.outputs)}"
        )
    for key in before.outputs:
        assert_values_close(before.outputs[key], after.outputs[key], f"output '{key}'", name, rtol, atol)


def assert_values_close(
    expected: Any, actual: Any, what: str, name: str = "the pass", rtol: float | None = None, atol: float | None = None
) -> None:
    """Compare two run results (arrays, scalars or tuples of them) as :func:`assert_pass_preserves` does."""
    if isinstance(expected, tuple) or isinstance(actual, tuple):
        if not (isinstance(expected, tuple) and isinstance(actual, tuple) and len(expected) == len(actual)):
            raise AssertionError(f"{name} changed {what}: {expected!r} -> {actual!r}")
        for k, (x, y) in enumerate(zip(expected, actual)):
            assert_values_close(x, y, f"{what}[{k}]", name, rtol, atol)
        return
    if isinstance(expected, np.ndarray) or isinstance(actual, np.ndarray):
        _compare_arrays(np.asarray(expected), np.asarray(actual), what, name, rtol, atol)
        return
    if isinstance(expected, float) or isinstance(actual, float):
        _compare_arrays(np.asarray(float(expected)), np.asarray(float(actual)), what, name, rtol, atol, DataType.FP32)
        return
    if expected != actual:
        raise AssertionError(f"{name} changed {what}: {expected!r} -> {actual!r}")


def _compare_arrays(
    x: np.ndarray,
    y: np.ndarray,
    what: str,
    name: str,
    rtol: float | None,
    atol: float | None,
    dtype: DataType | None = None,
) -> None:
    if x.shape != y.shape or x.dtype != y.dtype:
        raise AssertionError(f"{name} changed {what} from {x.dtype}{list(x.shape)} to {y.dtype}{list(y.shape)}")
    if dtype is None:
        try:
            dtype = datatype_of(x.dtype)
        except OpError:
            dtype = DataType.INT64
    r, a = tolerance(dtype)
    r, a = (r if rtol is None else rtol), (a if atol is None else atol)
    if dtype.is_float():
        xf, yf = x.astype(np.float64), y.astype(np.float64)
        ok = np.isclose(yf, xf, rtol=r, atol=a, equal_nan=True)
    else:
        xf, yf = x, y
        ok = x == y
    if not np.all(ok):
        bad = np.argwhere(~np.asarray(ok))
        first = tuple(int(i) for i in bad[0]) if bad.size else ()
        raise AssertionError(
            f"{name} changed {what}: {bad.shape[0] if bad.ndim else 1} of {max(x.size, 1)} elements differ; "
            f"first at {list(first)}: {xf[first].item()!r} -> {yf[first].item()!r} (rtol={r}, atol={a})"
        )
