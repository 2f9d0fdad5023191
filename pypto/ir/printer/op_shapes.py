"""Op-specific call shapes of docs/ops.md#printed-call-shapes: the few ops whose printed form is not the generic
``pl.<ns>.<name>(args..., key=value..., attrs={...})``.

Each entry takes the expression printer and the Call and returns the argument texts (without
``attrs=``, which the caller appends). Independent of the op registry: only names are used.
"""

from __future__ import annotations

import keyword
from typing import TYPE_CHECKING, Callable

from ..enums import MemorySpace
from ..expr import Call, ConstFloat, ConstInt, Expr, MakeTuple
from ..types import TileType
from .values import dq, dtype_text, enum_text, format_float

if TYPE_CHECKING:
    from .exprs import ExprPrinter

_SPLIT = frozenset({"split"})


def printed_op_name(prefix: str, name: str) -> str:
    """``pl.tile.and_`` for ``tile.and``; ``pld.`` names and undotted names print as they are."""
    ns, dot, leaf = name.rpartition(".")
    if keyword.iskeyword(leaf):
        leaf += "_"
    if not dot:
        return leaf
    if name.startswith("pld."):
        return f"{ns}.{leaf}"
    return f"{prefix}.{ns}.{leaf}"


# The op names :func:`renamed_op` may change (every other op prints under its own name).
RENAMED_BY_ARGS = frozenset({"tensor.add"})


def renamed_op(call: Call) -> str:
    """The op name to print: ``tensor.add`` with a constant rhs prints as ``tensor.adds``."""
    name = call.op.name
    if name == "tensor.add" and len(call.args) == 2 and isinstance(call.args[1], (ConstInt, ConstFloat)):
        return "tensor.adds"
    return name


def _bare(pr: ExprPrinter, e: Expr) -> str:
    """A constant as a bare Python literal whatever its dtype; other expressions as usual."""
    if isinstance(e, ConstInt):
        return str(e.value)
    if isinstance(e, ConstFloat):
        return format_float(e.value)
    return pr.expr(e)


def _full(pr: ExprPrinter, call: Call) -> list[str]:
    """``pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)``."""
    if len(call.args) != 2:
        return pr.call_args(call)
    parts = [pr.expr(call.args[0])]
    parts.extend(pr.kwarg_items(call.op.name, call.kwargs))
    parts.append(f"value={_bare(pr, call.args[1])}")
    return parts


def _reinterpret_view(pr: ExprPrinter, call: Call) -> list[str]:
    """``pl.tensor.reinterpret_view(data, dtype=pl.INT16, shape=[4, 64])``."""
    parts = [pr.expr(a) for a in call.args[:1]]
    parts.extend(pr.kwarg_items(call.op.name, call.kwargs))
    parts.extend(f"shape={pr.expr(a)}" for a in call.args[1:2])
    parts.extend(pr.expr(a) for a in call.args[2:])
    return parts


def _alloc(pr: ExprPrinter, call: Call) -> list[str]:
    """``pl.tile.alloc(pl.Mem.Vec, 512)``: the memory space argument prints symbolically."""
    parts = pr.call_args(call)
    first = call.args[0] if call.args else None
    if isinstance(first, ConstInt) and first.value in MemorySpace._value2member_map_:
        parts[0] = enum_text(pr.p, MemorySpace(first.value))
    return parts


def _syncall(pr: ExprPrinter, call: Call) -> list[str]:
    """Soft form ``pl.system.syncall(mode="soft", core_type="mix", gm_workspace=ws, used_cores=0)``."""
    kwargs = call.kwargs
    if kwargs.get("mode") != "soft" or not 1 <= len(call.args) <= 2:
        return pr.call_args(call)
    parts = ['mode="soft"']
    core_type = kwargs.get("core_type")
    if isinstance(core_type, str):
        parts.append(f"core_type={dq(core_type)}")
    parts.append(f"gm_workspace={pr.expr(call.args[0])}")
    if len(call.args) == 2:
        parts.append(f"used_cores={_bare(pr, call.args[1])}")
    rest = {k: v for k, v in kwargs.items() if k != "mode" and not (k == "core_type" and isinstance(v, str))}
    parts.extend(pr.kwarg_items(call.op.name, rest))
    return parts


def _gather_row(pr: ExprPrinter, call: Call) -> list[str]:
    """The 6th positional IR arg prints as ``valid_shape=``."""
    parts = [pr.expr(a) for a in call.args[:5]]
    parts.extend(pr.kwarg_items(call.op.name, call.kwargs))
    parts.extend(f"valid_shape={pr.expr(a)}" for a in call.args[5:6])
    parts.extend(pr.expr(a) for a in call.args[6:])
    return parts


def _mgather(pr: ExprPrinter, call: Call) -> list[str]:
    """Optional trailing IR args print as ``scratch=`` (a tile) / ``valid_shape=`` (a shape tuple)."""
    parts = [pr.expr(a) for a in call.args[:2]]
    parts.extend(pr.kwarg_items(call.op.name, call.kwargs))
    for a in call.args[2:4]:
        key = "valid_shape" if isinstance(a, MakeTuple) else "scratch"
        parts.append(f"{key}={pr.expr(a)}")
    parts.extend(pr.expr(a) for a in call.args[4:])
    return parts


def _task_dummy(pr: ExprPrinter, call: Call) -> list[str]:
    """``pl.system.task_dummy(deps=[t1, t2])`` (also ``deps=[]``): the edges of
    ``attrs["manual_dep_edges"]`` (where the DSL puts them), after any positional operands."""
    deps = [*call.args, *call.attrs.get("manual_dep_edges", [])]
    parts = ["deps=[" + ", ".join([pr.expr(a) for a in deps]) + "]"]
    parts.extend(pr.kwarg_items(call.op.name, call.kwargs))
    return parts


def _split_implied(pr: ExprPrinter, call: Call) -> list[str]:
    """Inside ``pl.split_aiv`` a ``split=`` of aiv_shard/aic_gather equal to the region's mode is implied."""
    implied = pr.split_aiv_mode is not None and call.kwargs.get("split") == pr.split_aiv_mode
    return pr.call_args(call, _SPLIT if implied else frozenset())


def _tpop(space: MemorySpace) -> Callable[..., list[str]]:
    """``pl.tile.tpop_from_aic(shape=[16, 16], dtype=pl.FP32, split=0)`` when the call carries the
    explicit ``Tile[shape, dtype, space]`` type those keywords build; generic otherwise."""

    def shape(pr: ExprPrinter, call: Call) -> list[str]:
        t = call.type
        if not (isinstance(t, TileType) and t.memory_space == space and t.tile_view is None and t.memref is None):
            return pr.call_args(call)
        dims = "[" + ", ".join([pr.dim(d) for d in t.shape]) + "]"
        return [f"shape={dims}", f"dtype={dtype_text(pr.p, t.dtype)}", *pr.call_args(call)]

    return shape


# Attrs an op shape prints itself (left out of the trailing ``attrs={...}``).
SHAPE_ATTRS: dict[str, frozenset[str]] = {"system.task_dummy": frozenset({"manual_dep_edges"})}

SHAPES: dict[str, Callable[[ExprPrinter, Call], list[str]]] = {
    "tile.full": _full,
    "tensor.full": _full,
    "tile.reinterpret_view": _reinterpret_view,
    "tensor.reinterpret_view": _reinterpret_view,
    "tile.alloc": _alloc,
    "tensor.alloc": _alloc,
    "system.syncall": _syncall,
    "tile.gather_row": _gather_row,
    "tensor.gather_row": _gather_row,
    "tile.mgather": _mgather,
    "system.task_dummy": _task_dummy,
    "tile.tpop_from_aic": _tpop(MemorySpace.Vec),
    "tile.tpop_from_aiv": _tpop(MemorySpace.Mat),
    "tile.aiv_shard": _split_implied,
    "tile.aic_gather": _split_implied,
    "tensor.aiv_shard": _split_implied,
    "tensor.aic_gather": _split_implied,
}
