"""``pypto.ir.utils.caller_warning_stacklevel`` and the slice ``pad_value`` that has no effect: the
warning names the user's line (a DSL line, or the Python line calling a builder) once per call site."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable

import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir.errors import NoEffectWarning
from pypto.ir.utils import caller_warning_stacklevel, warn_at

DSL = """
@pl.function
def f(x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
    y = pl.slice(x, [16, 64], [0, 0], pad_value=pl.PadValue.zero)
    return y
"""
NO_EFFECT = "tensor.slice: pad_value=zero has no effect: the window is fully valid"


def _tensor() -> ir.Var:
    return ir.Var("t", ir.TensorType([64, 64], ir.DataType.FP32))


def test_stacklevel_of_a_caller_outside_pypto_is_its_own_line() -> None:
    assert caller_warning_stacklevel() == 1


def test_a_warning_from_inside_pypto_names_the_users_line() -> None:
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        warn_at("look here", UserWarning, ir.Span.unknown())
        line = sys._getframe().f_lineno - 1
    assert [(w.filename, w.lineno, str(w.message)) for w in got] == [(__file__, line, "look here")]


def test_pad_value_on_a_fully_valid_dsl_slice_warns_once_at_the_dsl_line() -> None:
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("default")
        pl.parse(DSL, filename="pad_once_kernel.py")
        pl.parse(DSL, filename="pad_once_kernel.py")
    assert [(w.category, w.filename, w.lineno) for w in got] == [(NoEffectWarning, "pad_once_kernel.py", 4)]
    assert str(got[0].message).startswith(NO_EFFECT)
    assert "give valid_shape" in str(got[0].message)


def test_pad_value_on_a_fully_valid_builder_call_warns_once_at_the_python_line() -> None:
    t = _tensor()
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("default")
        sys.modules[__name__].__dict__.pop("__warningregistry__", None)
        for _ in range(3):
            ir.op.tensor.slice(t, [16, 64], [0, 0], pad_value=ir.PadValue.zero)
            line = sys._getframe().f_lineno - 1
    assert [(w.filename, w.lineno) for w in got] == [(__file__, line)]
    assert str(got[0].message).startswith(NO_EFFECT)


@pytest.mark.parametrize(
    "build",
    [
        lambda t: ir.op.tensor.slice(t, [16, 64], [0, 0], [8, 64], pad_value=ir.PadValue.zero),  # partly valid
        lambda t: ir.op.tensor.slice(t, [16, 64], [0, 0]),  # no pad_value
        lambda t: ir.op.tensor.slice(t, [16, 64], [0, 0], pad_value=ir.PadValue.null),
    ],
    ids=["partly-valid", "no-pad", "null-pad"],
)
def test_a_pad_value_that_is_read_or_absent_does_not_warn(build: Callable[[ir.Var], ir.Call]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoEffectWarning)
        build(_tensor())


def test_tile_slice_pad_value_without_effect_warns() -> None:
    tile = ir.Var("a", ir.TileType([64, 64], ir.DataType.FP32, None, None, ir.MemorySpace.Vec))
    with pytest.warns(NoEffectWarning, match="tile.slice: pad_value=max has no effect"):
        ir.op.tile.slice(tile, [16, 64], [16, 0], pad_value=ir.PadValue.max)
