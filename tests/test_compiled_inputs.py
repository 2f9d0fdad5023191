"""Run-time bad input to a CompiledProgram, as properties over drawn arguments (interpreter path; the
simulator path is sampled in tests/sim/test_run_inputs.py): a wrong count, dtype or shape, or a
scalar of the wrong kind, is a SimulatorArgumentError before anything runs; any memory layout, NaN
and infinity run correctly; an array the caller passed in is never changed unless it is an output."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pypto.language as pl
from pypto.backend import BackendType
from pypto.compiled import CompiledProgram
from pypto.runtime import SimulatorArgumentError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
_SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


def _compiled(name: str) -> CompiledProgram:
    program = pl.loads_program(str(EXAMPLES / f"{name}.py"))
    return CompiledProgram(program=program, final_program=program, output_dir=Path("/nonexistent"),
                           backend_type=BackendType.Ascend910B, platform="a2a3sim", files=("kernel_config.py",),
                           final_dialect="runtime")


TILE_ADD = _compiled("tile_add")  # main(a, b, out), each [128, 128] FP32: out = a + b
SCALED_SUM = _compiled("scaled_sum")  # main(x [64, 64], alpha FP32, out [16, 64]): out = alpha * sum of 4 row blocks


def _rand(seed: int, shape: tuple[int, ...] = (128, 128)) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _layout(array: np.ndarray, layout: str) -> np.ndarray:
    """The same values in another memory layout (a view into a bigger buffer, or Fortran order)."""
    if layout == "fortran":
        return np.asfortranarray(array)
    if layout == "strided":
        buffer = np.zeros((array.shape[0], array.shape[1] * 2), array.dtype)
        view = buffer[:, ::2]
    elif layout == "reversed":
        view = np.zeros_like(array)[::-1]
    else:
        return array.copy()
    view[...] = array
    return view


_LAYOUTS = st.sampled_from(["c", "fortran", "strided", "reversed"])


def _bad_tensor(array: np.ndarray, kind: str) -> object:
    return {
        "dtype-fp16": lambda: array.astype(np.float16),
        "dtype-int32": lambda: array.astype(np.int32),
        "dtype-fp64": lambda: array.astype(np.float64),
        "rows": lambda: array[:64],
        "rank": lambda: array.reshape(-1),
        "transposed-shape": lambda: array[:, :64].T,
        "list": lambda: array.tolist(),
        "scalar": lambda: 1.0,
        "none": lambda: None,
    }[kind]()


@_SETTINGS
@given(index=st.integers(0, 2), kind=st.sampled_from(
    ["dtype-fp16", "dtype-int32", "dtype-fp64", "rows", "rank", "transposed-shape", "list", "scalar", "none"]))
def test_a_bad_tensor_argument_is_an_error_and_changes_no_array(index: int, kind: str) -> None:
    args: list[object] = [_rand(0), _rand(1), np.full((128, 128), 7.0, np.float32)]
    args[index] = _bad_tensor(args[index], kind)
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with pytest.raises(SimulatorArgumentError) as info:
        TILE_ADD.interpret(*args)
    assert info.value.message.startswith(("a ", "b ", "out "))
    for a, a0 in zip(args, before):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, a0)


@_SETTINGS
@given(count=st.sampled_from([0, 1, 4, 5]))
def test_a_wrong_argument_count_is_an_error(count: int) -> None:
    args = [_rand(i) for i in range(count)]
    before = [a.copy() for a in args]
    with pytest.raises(SimulatorArgumentError) as info:
        TILE_ADD.interpret(*args)
    assert info.value.message == f"'main' takes 3 arguments (a, b, out) or 2 without its outputs (a, b), got {count}"
    for a, a0 in zip(args, before):
        np.testing.assert_array_equal(a, a0)


@_SETTINGS
@given(layouts=st.tuples(_LAYOUTS, _LAYOUTS, _LAYOUTS), seed=st.integers(0, 2**16))
def test_arrays_of_any_layout_run_like_contiguous_ones(layouts: tuple[str, str, str], seed: int) -> None:
    a, b = _rand(seed), _rand(seed + 1)
    la, lb, lout = _layout(a, layouts[0]), _layout(b, layouts[1]), _layout(np.zeros_like(a), layouts[2])
    assert TILE_ADD.interpret(la, lb, lout) is None
    np.testing.assert_array_equal(lout, a + b)
    np.testing.assert_array_equal(la, a)
    np.testing.assert_array_equal(lb, b)


_SPECIALS = st.sampled_from([np.nan, np.inf, -np.inf])


@_SETTINGS
@given(seed=st.integers(0, 2**16), cells=st.lists(st.tuples(st.integers(0, 1), st.integers(0, 127), st.integers(0, 127),
                                                             _SPECIALS), min_size=1, max_size=8))
def test_nan_and_infinity_inputs_run_and_propagate(seed: int, cells: list[tuple[int, int, int, float]]) -> None:
    a, b = _rand(seed), _rand(seed + 1)
    for which, i, j, value in cells:
        (a, b)[which][i, j] = value
    a0, b0 = a.copy(), b.copy()
    out = TILE_ADD.interpret(a, b)
    with np.errstate(invalid="ignore"):
        want = a0 + b0
    np.testing.assert_array_equal(out, want)  # NaN where numpy's sum is NaN (inf - inf included)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


@_SETTINGS
@given(alpha=st.one_of(st.sampled_from([np.nan, np.inf, -np.inf, 0, -3, True]), st.floats(-1e6, 1e6, width=32),
                       st.integers(-1000, 1000).map(np.int32), st.floats(-2.0, 2.0, width=32).map(np.float32)))
def test_a_scalar_of_an_accepted_kind_runs(alpha: object) -> None:
    x = _rand(3, (64, 64))
    x0 = x.copy()
    out = SCALED_SUM.interpret(x, alpha)
    want = np.zeros((16, 64), np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        for block in x.reshape(4, 16, 64):  # the kernel's order: NaN where inf - inf meet
            want = want + block * np.float32(alpha)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(x, x0)


@_SETTINGS
@given(alpha=st.sampled_from(["0.5", None, [0.5], np.ones(1, np.float32), np.float32(1)[()].reshape(1), 1j,
                              np.complex64(1), np.str_("1"), np.datetime64("2020"), 10**40, -(10**400), 1e39]))
def test_a_scalar_of_the_wrong_kind_is_an_error_and_changes_no_array(alpha: object) -> None:
    x = _rand(4, (64, 64))
    out = np.full((16, 64), 7.0, np.float32)
    with pytest.raises(SimulatorArgumentError) as info:
        SCALED_SUM.interpret(x, alpha, out)
    assert info.value.message.startswith("alpha ")
    np.testing.assert_array_equal(x, _rand(4, (64, 64)))
    assert (out == 7.0).all()


def test_a_float_too_big_for_the_scalar_dtype_names_the_value() -> None:
    with pytest.raises(SimulatorArgumentError) as info:
        SCALED_SUM.interpret(_rand(5, (64, 64)), 10**400)
    assert info.value.message == "alpha = 1000000000000000000000000000000000000000 does not fit in fp32"
