"""Parse-time constructs of orchestration code: scopes, task launches and their options.

``with pl.at(...)``, ``with pl.spmd(...)``, ``pl.submit(...)`` ... are read by the parser from the
syntax tree (see :mod:`pypto.language.parser.scopes` and :mod:`pypto.language.parser.tasks`);
the functions here carry the signatures and documentation and raise a clear error when called
outside a ``@pl.function`` body.
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn

from pypto.ir import Level, Role, ScopeMode, SplitMode

from .parser.diagnostics import ParserSyntaxError
from .parser.source import frame_span


def _outside(name: str) -> NoReturn:
    raise ParserSyntaxError(
        f"pl.{name} can only be used inside a @pl.function body",
        frame_span(sys._getframe(2)),
        hint="the parser reads DSL constructs from the source; they are not Python functions",
    )


def at(
    level: Level,
    role: Role | None = None,
    *,
    optimizations: list[Any] | None = None,
    deps: list[Any] | None = None,
    no_dep_args: list[Any] | None = None,
    allow_early_resolve: bool = False,
    dumps: list[Any] | None = None,
    name_hint: str = "",
    attrs: dict[str, Any] | None = None,
) -> NoReturn:
    """``with pl.at(level=pl.Level.CORE_GROUP, ...) [as tid]:`` a region outlined into an InCore
    kernel launched as one task; any other level opens a hierarchy scope.

    ``optimizations=[pl.split(MODE), pl.cross_core_slot(slot_num=N)]`` tune the kernel;
    ``deps=[tid, ...]`` adds explicit dependency edges, ``no_dep_args=[t, ...]`` takes tensors
    out of automatic dependency tracking, ``allow_early_resolve=True`` marks an early-dispatch
    producer, ``dumps=[t, ...]`` lists dump targets; ``as tid`` binds the task's TaskId.
    """
    _outside("at")


def cluster(*, name_hint: str = "", attrs: dict[str, Any] | None = None) -> NoReturn:
    """``with pl.cluster():`` an AIC + AIV co-scheduled group."""
    _outside("cluster")


def spmd(
    core_num: Any,
    *,
    sync_start: bool = False,
    optimizations: list[Any] | None = None,
    deps: list[Any] | None = None,
    allow_early_resolve: bool = False,
    predicate: Any = None,
    dumps: list[Any] | None = None,
    name_hint: str = "",
    attrs: dict[str, Any] | None = None,
) -> NoReturn:
    """``with pl.spmd(N) [as tid]:`` / ``for i in pl.spmd(N):`` a launch on ``N`` blocks.

    A ``with`` body that reads ``pl.tile.get_block_idx()`` is an inline kernel (wrapped in an
    InCore region); otherwise it dispatches exactly one ``self.kernel(...)``. A body that is a
    single ``with pl.at(level=pl.Level.CORE_GROUP, ...)`` is that kernel region itself.
    ``deps=`` needs ``as tid``; ``predicate=(t[i] > 0)`` is a dispatch predicate.
    """
    _outside("spmd")


def scope(mode: ScopeMode = ScopeMode.AUTO, *, name_hint: str = "", attrs: dict[str, Any] | None = None) -> NoReturn:
    """``with pl.scope():`` an AUTO runtime scope (needs ``@pl.function(auto_scope=False)``);
    ``with pl.scope(mode=pl.ScopeMode.MANUAL):`` a MANUAL one (the user orders the tasks)."""
    _outside("scope")


def manual_scope(*, name_hint: str = "", attrs: dict[str, Any] | None = None) -> NoReturn:
    """``with pl.manual_scope():`` = ``with pl.scope(mode=pl.ScopeMode.MANUAL):``."""
    _outside("manual_scope")


def split_aiv(count: int = 2, *, mode: SplitMode, name_hint: str = "", attrs: dict[str, Any] | None = None) -> NoReturn:
    """``for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):`` a region split across the AIV
    lanes (``aiv_id`` is the lane index); ``with pl.split_aiv(...):`` without the index."""
    _outside("split_aiv")


def split(mode: SplitMode, *, slot_num: int | None = None) -> NoReturn:
    """``pl.split(pl.SplitMode.UP_DOWN)`` in ``optimizations=[...]``: the cross-core split hint of
    the InCore region. ``slot_num=`` is a deprecated alias of ``pl.cross_core_slot``."""
    _outside("split")


def cross_core_slot(*, slot_num: int) -> NoReturn:
    """``pl.cross_core_slot(slot_num=N)`` in ``optimizations=[...]``: the ring depth of the
    automatic cross-core pipe."""
    _outside("cross_core_slot")


def submit(
    kernel: Any,
    *args: Any,
    deps: list[Any] | None = None,
    allow_early_resolve: bool = False,
    predicate: Any = None,
    dumps: list[Any] | None = None,
    attrs: dict[str, Any] | None = None,
) -> NoReturn:
    """``out, tid = pl.submit(self.kernel, *args, deps=[...])``: launch ``kernel`` as one task and
    get its results plus its TaskId (``pl.Scalar[pl.TASK_ID]``)."""
    _outside("submit")


def spmd_submit(
    kernel: Any,
    *args: Any,
    core_num: Any,
    sync_start: bool = False,
    deps: list[Any] | None = None,
    allow_early_resolve: bool = False,
    predicate: Any = None,
    dumps: list[Any] | None = None,
    attrs: dict[str, Any] | None = None,
) -> NoReturn:
    """``out, tid = pl.spmd_submit(self.kernel, *args, core_num=N)``: launch ``kernel`` on ``N``
    blocks as one task and get its results plus its TaskId."""
    _outside("spmd_submit")


__all__ = [
    "at",
    "cluster",
    "cross_core_slot",
    "manual_scope",
    "scope",
    "split",
    "split_aiv",
    "spmd",
    "spmd_submit",
    "submit",
]
