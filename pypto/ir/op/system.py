"""``ir.op.system``: builders of the ``system.*`` ops (docs/ops.md#system-ops).

``sync_set``/``sync_wait`` take the event id first: an int is stored as the ``event_id`` keyword,
an expression as the dynamic operand. ``task_dummy(deps=[...])`` records its dependencies in
``attrs["manual_dep_edges"]``.
"""

from __future__ import annotations

from typing import Any

from ..expr import Call, Expr
from ..datatype import DataType
from ..op_registry import OpTypeError, describe_type, set_call_attrs
from ..type_base import ScalarType
from ..types import ArrayType
from ..span import Span
from .builder import build, caller_span, populate

__all__ = populate(globals(), "system")


def _event(op: str, event_id: Any, span: Span, **kwargs: Any) -> Call:
    if isinstance(event_id, Expr):
        return build(op, event_id, span=span, **kwargs)
    return build(op, event_id=event_id, span=span, **kwargs)


def sync_set(event_id: Any, *, pipe: Any, ffts_mode: int | None = None, core_type: str | None = None,
             span: Span | None = None) -> Call:
    """Set a pipe event (static id 0-13, or a dynamic INDEX scalar)."""
    return _event("system.sync_set", event_id, span or caller_span(), pipe=pipe, ffts_mode=ffts_mode,
                  core_type=core_type)


def sync_wait(event_id: Any, *, pipe: Any, core_type: str | None = None, span: Span | None = None) -> Call:
    """Wait for a pipe event (static id 0-13, or a dynamic INDEX scalar)."""
    return _event("system.sync_wait", event_id, span or caller_span(), pipe=pipe, core_type=core_type)


def task_dummy(deps: list[Expr] | None = None, *, span: Span | None = None) -> Call:
    """A dependency-only task joining ``deps``; returns ``Scalar[TASK_ID]``."""
    span = span or caller_span()
    deps = list(deps or [])
    for dep in deps:
        t = dep.type if isinstance(dep, Expr) else None
        if not (isinstance(t, (ScalarType, ArrayType)) and t.dtype == DataType.TASK_ID):
            got = describe_type(t) if t is not None else f"Python {type(dep).__name__}"
            raise OpTypeError("Operator 'system.task_dummy': deps entries must be Scalar[TASK_ID] or "
                              f"Array[N, TASK_ID] values, got {got}", "system.task_dummy", span)
    call = build("system.task_dummy", span=span)
    return set_call_attrs(call, {"manual_dep_edges": deps})
