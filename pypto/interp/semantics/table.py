"""The one table of op meanings: op name -> numpy implementation.

An implementation is ``fn(ctx, *args)`` where ``args`` are the evaluated positional arguments
(tensors/tiles as :class:`~pypto.interp.values.ArrayValue`, shape/offset tuples as tuples of ints,
scalars as Python numbers) and ``ctx`` gives the call node (kwargs, result type) and the run state.
Family modules register with ``@register("tile.add", "tensor.add")``; a duplicate name is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from pypto.ir.datatype import DataType
from pypto.ir.expr import Call, Submit
from pypto.ir.type_base import ScalarType, Type

from ..errors import OpError
from ..values import TileValue


@dataclass
class RunState:
    """Dynamic context shared by one run: launch indices, task ids and cross-core pipes."""

    block_idx: int = 0
    block_num: int = 1
    subblock_idx: int = 0
    subblock_num: int = 1
    next_task_id: int = 0
    # (direction, pipe id, lane) -> FIFO of tiles; a direction is its dir_mask bit (cross_core_ops.C2V / V2C).
    pipes: dict[tuple[int, int, int], list[TileValue]] = field(default_factory=dict)
    # Slot count and slot size of each initialised pipe, keyed by (direction, pipe id).
    pipe_slots: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    # Popped tiles not yet freed, per (direction, pipe id, lane): they still occupy their slot.
    held: dict[tuple[int, int, int], int] = field(default_factory=dict)
    # The whole tile each aic_gather call (by id) is joining from the lanes of a pl.split_aiv region.
    gathers: dict[int, Any] = field(default_factory=dict)
    group: Any = None  # the running pypto.interp.group.GroupRun, inside a Group
    cluster_count: int = 24
    aiv_count: int = 48

    def new_task_id(self) -> int:
        """A fresh opaque task id."""
        self.next_task_id += 1
        return self.next_task_id


INVALID_TASK_ID = 0


class OpContext:
    """What an op implementation may read besides its arguments."""

    __slots__ = ("call", "state")

    def __init__(self, call: Call | Submit, state: RunState) -> None:
        self.call = call
        self.state = state

    @property
    def name(self) -> str:
        """The op name."""
        return self.call.op.name

    @property
    def result_type(self) -> Type:
        """The call's type (``UnknownType`` for calls built without one)."""
        return self.call.type

    def kwarg(self, key: str, default: Any = None) -> Any:
        """Keyword argument ``key`` of the call, or ``default``."""
        return self.call.kwargs.get(key, default)

    def arg_dtype(self, index: int) -> DataType | None:
        """The dtype of scalar argument ``index`` as typed in the IR (None if not a scalar)."""
        t = self.call.args[index].type
        return t.dtype if isinstance(t, ScalarType) else None


OpImpl = Callable[..., Any]

SEMANTICS: dict[str, OpImpl] = {}


def register(*names: str) -> Callable[[OpImpl], OpImpl]:
    """Register ``fn`` as the meaning of each op in ``names``."""

    def deco(fn: OpImpl) -> OpImpl:
        for name in names:
            if name in SEMANTICS:
                raise ValueError(f"op '{name}' already has semantics ({SEMANTICS[name].__qualname__})")
            SEMANTICS[name] = fn
        return fn

    return deco


def lookup(name: str) -> OpImpl:
    """The implementation of op ``name``; ``OpError`` if the op has no reference meaning."""
    try:
        return SEMANTICS[name]
    except KeyError:
        raise OpError(f"op '{name}' has no reference semantics in the interpreter") from None
