"""System operators (docs/ops.md#system-ops): pipe synchronisation, barriers, cache and task-id helpers.

Most are statements (``UnknownType`` result) with side effects; the task-id ops return
``Scalar[TASK_ID]`` and live in orchestration code.
"""

from __future__ import annotations

from ..datatype import DataType
from ..enums import PipeType
from ..op_registry import CallInfo
from ..type_base import ScalarType, Type, UnknownType
from ..types import TensorType
from . import kwtypes as K
from .common import const_value, elements, format_dims, product
from .decl import KERNEL, ORCH_ONLY, define, index as index_p, kw, scalar, shape, tensor
from .normalize import const_of

D = DataType
PIPE = K.EnumKw(PipeType, as_int=True)
EVENT_ID = K.IntKw(0, 13)


def statement(ci: CallInfo) -> Type:
    """No value: used as a statement."""
    return UnknownType.get()


for _name in ("sync_src", "sync_dst"):
    define(f"system.{_name}", [], statement, placement=KERNEL, side_effect=True,
           kwargs=[kw("set_pipe", PIPE, keyword_only=True), kw("wait_pipe", PIPE, keyword_only=True),
                   kw("event_id", EVENT_ID, keyword_only=True)])
for _name in ("bar_v", "bar_m", "bar_all", "fence"):
    define(f"system.{_name}", [], statement, placement=KERNEL, side_effect=True)


def _cacheinvalid(ci: CallInfo) -> Type:
    """Invalidate the whole cache, or one tensor window (``tensor, shapes, offsets``)."""
    if ci.args and len(ci.args) != 3:
        ci.fail("takes no arguments, or all of tensor, shapes and offsets")
    if ci.args:
        rank = len(ci["tensor"].type.shape)
        for name in ("shapes", "offsets"):
            n = len(elements(ci, name))
            if n != rank:
                ci.fail(f"'{name}' must have {rank} elements (the tensor rank), got {n}")
    return UnknownType.get()


define("system.cacheinvalid",
       [tensor("tensor", optional=True), shape("shapes", optional=True), shape("offsets", optional=True)],
       _cacheinvalid, placement=KERNEL, side_effect=True)


def _syncall(ci: CallInfo) -> Type:
    """All-core barrier: ``hard`` (no operands) or ``soft`` through a GM workspace."""
    if ci.kw("mode") == "hard":
        if ci.args:
            ci.fail("hard syncall takes no gm_workspace/used_cores")
        return UnknownType.get()
    if ci["gm_workspace"] is None or ci["used_cores"] is None:
        ci.fail("soft syncall requires a Tensor gm_workspace and an explicit used_cores")
    if ci["used_cores"].type.dtype != D.INT32:
        ci.fail("used_cores must be an INT32 scalar")
    return UnknownType.get()


define("system.syncall",
       [tensor("gm_workspace", optional=True),
        scalar("used_cores", optional=True, norm=const_of(D.INT32))],
       _syncall, placement=KERNEL, side_effect=True,
       kwargs=[kw("mode", K.StrKw(("hard", "soft")), "hard", always=False, keyword_only=True),
               kw("core_type", K.StrKw(("aiv_only", "aic_only", "mix")), "mix", keyword_only=True)],
       signature=("*", "core_type", "mode", "gm_workspace", "used_cores"))


def _sync_event(ci: CallInfo) -> Type:
    """Set/wait a pipe event: a static id as keyword, or a dynamic INDEX scalar operand."""
    dynamic, static = ci["event"], ci.kw("event_id")
    if (dynamic is None) == (static is None):
        ci.fail("give exactly one of a static event_id or a dynamic event operand")
    if dynamic is not None and not dynamic.type.dtype.is_int():
        ci.fail("a dynamic event id must be an integer scalar")
    value = const_value(dynamic) if dynamic is not None else None
    if value is not None and not 0 <= value <= 13:
        ci.fail(f"event id must be in [0, 13], got {value}")
    return UnknownType.get()


CORE = kw("core_type", K.StrKw(("aic", "aiv")), None, always=False, keyword_only=True)
define("system.sync_set", [index_p("event", optional=True)], _sync_event, placement=KERNEL, side_effect=True,
       kwargs=[kw("pipe", PIPE, keyword_only=True), kw("event_id", EVENT_ID, None, always=False),
               kw("ffts_mode", K.IntKw(0, 2), None, always=False, keyword_only=True), CORE])
define("system.sync_wait", [index_p("event", optional=True)], _sync_event, placement=KERNEL, side_effect=True,
       kwargs=[kw("pipe", PIPE, keyword_only=True), kw("event_id", EVENT_ID, None, always=False), CORE])


def _set_ffts(ci: CallInfo) -> Type:
    """Install the FFTS workspace: a 1-D INT64 tensor of at least 256 static elements."""
    t: TensorType = ci["workspace"].type
    n = product(list(t.shape))
    if len(t.shape) != 1 or t.dtype != D.INT64 or n is None or n < 256:
        ci.fail(f"workspace must be a 1-D INT64 tensor of >= 256 static elements, got {format_dims(t.shape)} "
                f"{t.dtype.name}")
    return UnknownType.get()


define("system.set_ffts", [tensor("workspace")], _set_ffts, placement=KERNEL, side_effect=True)


def task_id(ci: CallInfo) -> Type:
    """``Scalar[TASK_ID]``."""
    return ScalarType(D.TASK_ID)


def _task_is_valid(ci: CallInfo) -> Type:
    """``Scalar[BOOL]``: the task id names a real task."""
    if ci["task"].type.dtype != D.TASK_ID:
        ci.fail(f"argument 'task' must be a TASK_ID scalar, got {ci['task'].type.dtype.name}")
    return ScalarType(D.BOOL)


def int32_count(ci: CallInfo) -> Type:
    """``Scalar[INT32]``."""
    return ScalarType(D.INT32)


define("system.task_invalid", [], task_id, placement=ORCH_ONLY)
define("system.task_dummy", [], task_id, placement=ORCH_ONLY, side_effect=True,
       doc="A dependency-only task: deps live in attrs['manual_dep_edges']; returns Scalar[TASK_ID].")
define("system.task_is_valid", [scalar("task")], _task_is_valid, placement=ORCH_ONLY)
define("system.available_cluster_count", [], int32_count, placement=ORCH_ONLY)
define("system.available_aiv_count", [], int32_count, placement=ORCH_ONLY)
