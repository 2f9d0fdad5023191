"""``pl.Tensor[...]`` and ``pl.Tile[...]``: the shaped-type annotations."""

from __future__ import annotations

from typing import Any

from pypto import ir
from pypto.ir import DataType, MemorySpace, TensorLayout
from pypto.ir.types import implicit_layout

from .values import TensorValue, TileValue
from .annotation import Annotation, check_dtype, shape


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


_VIEW_FIELDS = ("valid_shape", "stride", "start_offset", "blayout", "slayout", "fractal", "pad", "compact")


class TileViewSpec:
    """A ``pl.TileView(...)`` written inside a tile annotation: the layout fields it leaves out
    (``blayout``, ``slayout``, ``fractal``) take the implicit view of the tile's shape and memory
    space, so ``pl.TileView()`` is the same as no view at all."""

    __slots__ = ("fields",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(_VIEW_FIELDS):
            raise TypeError(f"pl.TileView takes at most {len(_VIEW_FIELDS)} positional arguments")
        fields = dict(zip(_VIEW_FIELDS, args))
        for key, value in kwargs.items():
            if key not in _VIEW_FIELDS:
                raise TypeError(f"pl.TileView got an unexpected keyword argument '{key}'")
            if key in fields:
                raise TypeError(f"pl.TileView got multiple values for argument '{key}'")
            fields[key] = value
        ir.TileView(**fields)  # check the given fields now
        self.fields = fields

    def resolve(self, dims: list[Any], memory_space: MemorySpace | None) -> ir.TileView:
        """The full view for a tile of ``dims`` in ``memory_space``."""
        shape = [ir.ConstInt(d, DataType.INDEX) if isinstance(d, int) else d for d in dims]
        blayout, slayout, fractal = implicit_layout(shape, memory_space)
        implicit = {"blayout": blayout, "slayout": slayout, "fractal": fractal}
        return ir.TileView(**{**implicit, **self.fields})


class Tensor(Annotation):
    """``pl.Tensor[[d0, d1, ...], dtype]`` plus optionally a ``pl.TensorView(...)`` (or a layout such
    as ``pl.NZ``) and a ``pl.MemRef(...)``: a tensor in global memory."""

    kind = "Tensor"
    type_class = ir.TensorType
    value_class = TensorValue

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


class Tile(Annotation):
    """``pl.Tile[[rows, cols], dtype]`` plus optionally a ``pl.MemRef(...)``, a memory space
    (``pl.Mem.Vec``) and a ``pl.TileView(...)``: a tile in an on-chip buffer."""

    kind = "Tile"
    type_class = ir.TileType
    value_class = TileValue

    @staticmethod
    def from_items(items: tuple) -> ir.TileType:
        """Build the type from the subscript items; TypeError/ValueError on bad items."""
        if len(items) < 2:
            raise TypeError("pl.Tile needs at least a shape and a dtype: pl.Tile[[16, 16], pl.FP16]")
        dims = shape(items[0], "pl.Tile")
        dtype = check_dtype(items[1], "pl.Tile")
        extra = _extras(
            "Tile",
            items[2:],
            {ir.MemRef: "memref", MemorySpace: "memory_space", ir.TileView: "tile_view", TileViewSpec: "tile_view"},
        )
        view = extra.get("tile_view")
        space = extra.get("memory_space")
        if isinstance(view, TileViewSpec):
            view = view.resolve(dims, space)
        return ir.TileType(dims, dtype, extra.get("memref"), view, space)
