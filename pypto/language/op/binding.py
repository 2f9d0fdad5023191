"""Turning IR builders into DSL functions: unwrap DSL values, pass the span, wrap the result.

A DSL function accepts ``pl.Tensor``/``pl.Tile``/``pl.Scalar``/``pl.Array`` values (anything with
``.unwrap()``), raw ``ir.Expr``s and Python numbers/lists, plus ``span=`` (the parser passes the
call's span; default ``Span.unknown()``), and returns the wrapper matching the result type.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any, Callable

from pypto import ir
from pypto.ir.op.builder import mrgsort_dispatcher as _mrgsort_dispatcher
from pypto.language.typing.values import Value, unwrap, wrap


def dsl(builder: Callable[..., ir.Expr]) -> Callable[..., Any]:
    """The DSL function of an IR builder (same name, signature and doc)."""

    @functools.wraps(builder)
    def fn(*args: Any, span: ir.Span | None = None, **kwargs: Any) -> Any:
        span = span if span is not None else ir.Span.unknown()
        for a in args:
            if isinstance(a, _WRAPPED):
                args = unwrap(args)
                break
        if kwargs:
            kwargs = {k: unwrap(v) for k, v in kwargs.items()}
        return wrap(builder(*args, span=span, **kwargs))

    return fn


# What ``unwrap`` changes (other arguments pass through as they are).
_WRAPPED = (Value, list, tuple)


def bind_module(namespace: dict[str, Any], builders: ModuleType) -> list[str]:
    """Define a DSL function in ``namespace`` for every public builder of ``builders``."""
    names = list(builders.__all__)
    for name in names:
        namespace[name] = dsl(getattr(builders, name))
    return names


def as_expr(value: Any, span: ir.Span) -> ir.Expr:
    """A DSL value or Python number as an IR expression (ints INDEX, floats FP32)."""
    value = unwrap(value)
    if isinstance(value, ir.Expr):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ir.ConstInt(value, ir.INDEX, span) if isinstance(value, int) else ir.ConstFloat(value, ir.FP32, span)
    raise ir.IRTypeError(f"expected a scalar value, got {type(value).__name__}")


def kind(value: Any) -> str:
    """``Tensor``, ``Tile``, ``Scalar``, ``Array`` or the Python type name of a DSL argument."""
    raw = value.unwrap() if isinstance(value, Value) else value
    if isinstance(raw, bool):
        return "bool"
    if isinstance(raw, (int, float)):
        return "Scalar"
    if isinstance(raw, ir.Expr):
        t = raw.type
        name = _KINDS.get(type(t))
        if name is None:
            name = _KINDS[type(t)] = _kind_of_type(t)
        return name
    return type(raw).__name__


_KINDS: dict[type, str] = {}  # type class -> kind


def _kind_of_type(t: ir.Type) -> str:
    for cls, name in ((ir.TensorType, "Tensor"), (ir.TileType, "Tile"), (ir.ScalarType, "Scalar"),
                      (ir.ArrayType, "Array")):
        if isinstance(t, cls):
            return name
    return type(t).__name__


def mrgsort_dispatcher(family: str, format1: Callable[..., Any], format2: Callable[..., Any]) -> Callable[..., Any]:
    """``pl.<family>.mrgsort``: ``mrgsort(src0, *, block_len)`` -> ``mrgsort_format1``;
    ``mrgsort(src0, src1, ..., *, exhausted=False)`` -> ``mrgsort_format2`` (tiles end with a tmp tile)."""
    fn = _mrgsort_dispatcher(f"pl.{family}.mrgsort", format1, format2)
    fn.__doc__ = mrgsort_dispatcher.__doc__.replace("<family>", family)
    return fn
