"""``pl.Tensor[...]`` and ``pl.Tile[...]``: the shaped-type annotations."""

from __future__ import annotations

from typing import Any

from pypto import ir
from pypto.ir import MemorySpace, TensorLayout

from .annotation import UnresolvedAnnotation, as_items, check_dtype, shape


def _extras(kind: str, extras: tuple, allowed: dict[type, str]) -> dict[str, Any]:
    """Sort the optional trailing items of a shaped annotation by their kind (each at most once)."""
    found: dict[str, Any] = {}
    for item in extras:
        for cls, slot in allowed.items():
            if isinstance(item, cls):
                if slot in found:
                    raise TypeError(f"pl.{kind}: {slot} given twice")
                found[slot] = item
                break
        else:
            names = ", ".join(allowed.values())
            raise TypeError(f"pl.{kind}: unexpected annotation item {item!r} (expected shape, dtype, then {names})")
    return found


class Tensor:
    """``pl.Tensor[[d0, d1, ...], dtype]`` plus optionally a ``pl.TensorView(...)`` (or a layout such
    as ``pl.NZ``) and a ``pl.MemRef(...)``: a tensor in global memory."""

    kind = "Tensor"

    @staticmethod
    def from_items(items: tuple) -> ir.TensorType:
        """Build the type from the subscript items; TypeError/ValueError on bad items."""
        if len(items) < 2:
            raise TypeError("pl.Tensor needs at least a shape and a dtype: pl.Tensor[[64, 128], pl.FP32]")
        dims = shape(items[0], "pl.Tensor")
        dtype = check_dtype(items[1], "pl.Tensor")
        extra = _extras(
            "Tensor", items[2:], {ir.MemRef: "memref", ir.TensorView: "tensor_view", TensorLayout: "layout"}
        )
        view = extra.get("tensor_view")
        if "layout" in extra:
            if view is not None:
                raise TypeError("pl.Tensor: give either a layout or a pl.TensorView, not both")
            view = ir.TensorView([], extra["layout"])
        return ir.TensorType(dims, dtype, extra.get("memref"), view)

    def __class_getitem__(cls, item: Any) -> ir.Type | UnresolvedAnnotation:
        items = as_items(item)
        try:
            return cls.from_items(items)
        except (TypeError, ValueError) as err:
            return UnresolvedAnnotation(cls.kind, items, err)


class Tile:
    """``pl.Tile[[rows, cols], dtype]`` plus optionally a ``pl.MemRef(...)``, a memory space
    (``pl.Mem.Vec``) and a ``pl.TileView(...)``: a tile in an on-chip buffer."""

    kind = "Tile"

    @staticmethod
    def from_items(items: tuple) -> ir.TileType:
        """Build the type from the subscript items; TypeError/ValueError on bad items."""
        if len(items) < 2:
            raise TypeError("pl.Tile needs at least a shape and a dtype: pl.Tile[[16, 16], pl.FP16]")
        dims = shape(items[0], "pl.Tile")
        dtype = check_dtype(items[1], "pl.Tile")
        extra = _extras(
            "Tile", items[2:], {ir.MemRef: "memref", MemorySpace: "memory_space", ir.TileView: "tile_view"}
        )
        return ir.TileType(dims, dtype, extra.get("memref"), extra.get("tile_view"), extra.get("memory_space"))

    def __class_getitem__(cls, item: Any) -> ir.Type | UnresolvedAnnotation:
        items = as_items(item)
        try:
            return cls.from_items(items)
        except (TypeError, ValueError) as err:
            return UnresolvedAnnotation(cls.kind, items, err)
