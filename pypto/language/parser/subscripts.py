"""Subscripts of tensors, tiles, tuples and arrays, read (``x[i]``) and written (``x[i] = v``).

Tensor and tile indexing follows numpy: a scalar index drops its dimension, a slice keeps it,
missing trailing indices are ``:``. A full-rank all-scalar index reads one element
(``tensor.read`` / ``tile.read``); anything else is a ``tensor.slice`` / ``tile.slice`` whose
shape and offset are full rank, with ``drop_dims`` listing the scalar-indexed axes. Tiles are
physically 2-D: a tile whose natural result rank is below 2 is promoted by ``tile.slice`` itself
(``[N]`` becomes ``[1, N]``, also for a column ``t[0:8, j]``) and a warning says so. ``C[i, j] = rhs`` reshapes ``rhs`` back to
the full-rank window and assembles it into ``C``.

Not supported (v1): slice steps, a non-static tile slice start, ``...``, ``None``, negative
indices, advanced (list / tensor) indexing, and chained writes ``C[i][j] = rhs``.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass
from typing import Any

from pypto import ir
from pypto.ir.affine import simplify_index

from ..op import array as array_ops
from ..op import tensor as tensor_ops
from ..op import tile as tile_ops
from ..typing.values import Value
from .core import ParserCore, describe
from .diagnostics import InvalidOperationError, ParserError, ParserTypeError, UnsupportedFeatureError
from .diagnostics.exceptions import ParserWarning
from .expressions import is_static


@dataclass
class Window:
    """A lowered tensor / tile index: full-rank shape and offset, and the scalar-indexed axes."""

    shape: list[Any]
    offset: list[Any]
    drop_dims: list[int]
    all_scalar: bool


def _static_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, ir.ConstInt):
        return value.value
    return None


class SubscriptMixin(ParserCore):
    """Subscript evaluation and subscript assignment."""

    def eval_subscript(self, node: ast.Subscript) -> Any:
        base = self.eval(node.value)
        if isinstance(base, ir.MemRef):
            return self._memref_slot(base, node)
        if isinstance(base, ir.Expr):
            t = base.type
            if isinstance(t, ir.TupleType):
                return self._tuple_item(base, node)
            if isinstance(t, ir.ArrayType):
                index = self._array_index(node)
                return self.call_op_value(array_ops.get_element, [base, index], node, _ARRAY_READ)
            if isinstance(t, (ir.TensorType, ir.TileType)):
                window = self.window(base, node)
                is_tile = isinstance(t, ir.TileType)
                ns = tile_ops if is_tile else tensor_ops
                if window.all_scalar:
                    return self.call_op_value(ns.read, [base, window.offset], node, _READ)
                kwargs = {"drop_dims": window.drop_dims} if window.drop_dims else {}
                return self.call_op_value(ns.slice, [base, window.shape, window.offset], node, _READ, kwargs)
            self.fail(ParserTypeError, f"{describe(base)} cannot be subscripted", node, _SUBSCRIPTABLE)
        from_items = getattr(base, "from_items", None)
        if from_items is not None:  # a type annotation class used as a value (pl.Tensor[...])
            return self.resolve_type(node)
        if is_static(base) and not isinstance(base, (bool, int, float)):
            key = self.eval(node.slice)
            try:
                return base[key]
            except (IndexError, KeyError, TypeError) as err:
                self.fail(
                    ParserTypeError,
                    f"subscript of a constant: {err}",
                    node,
                    "index a closure list / tuple within its length, or a dict with a key it has",
                )
        self.fail(ParserTypeError, f"{describe(base)} cannot be subscripted", node, _SUBSCRIPTABLE)

    def call_op_value(
        self, fn: Any, args: list[Any], node: ast.AST, hint: str, kwargs: dict[str, Any] | None = None
    ) -> ir.Expr:
        """Call an op function the parser chose itself; its errors point at ``node`` with ``hint``."""
        try:
            result = fn(*args, **(kwargs or {}), span=self.span(node))
        except ParserError:
            raise
        except TypeError as err:
            self.fail(ParserTypeError, str(err), node, hint)
        except ValueError as err:
            self.fail(InvalidOperationError, str(err), node, hint)
        return result.unwrap() if isinstance(result, Value) else result

    # ----- tuples, arrays, memrefs -----------------------------------------------------------
    def _tuple_item(self, base: ir.Expr, node: ast.Subscript) -> ir.Expr:
        index = _static_int(self.eval(node.slice))
        size = len(base.type.types)
        if index is None:
            self.fail(
                ParserTypeError,
                "a tuple can only be indexed by a constant integer",
                node.slice,
                "index with an int literal or closure int (t[0]), or unpack it: a, b = t",
            )
        if not 0 <= index < size:
            self.fail(
                ParserTypeError,
                f"tuple index {index} out of range for a tuple of {size} elements",
                node.slice,
                f"use an index from 0 to {size - 1}",
            )
        return ir.TupleGetItemExpr(base, index, self.span(node))

    def _array_index(self, node: ast.Subscript) -> Any:
        if type(node.slice) in (ast.Slice, ast.Tuple):
            self.fail(
                UnsupportedFeatureError,
                "an array takes a single index",
                node.slice,
                "arrays are 1-D: index one element with an integer, arr[i]",
            )
        index = self.eval(node.slice)
        value = _static_int(index)
        if value is not None and value < 0:
            self.fail(
                UnsupportedFeatureError, "negative indices are not supported", node.slice, "index from the start: n - k"
            )
        return index

    def _memref_slot(self, base: ir.MemRef, node: ast.Subscript) -> ir.MemRef:
        index = _static_int(self.eval(node.slice))
        if index is None:
            self.fail(
                ParserTypeError,
                "a MemRef slot must be a constant integer",
                node.slice,
                'select the slot with an int literal: pl.MemRef("buf", slots=2)[1]',
            )
        try:
            return base[index]
        except ValueError as err:
            self.fail(
                InvalidOperationError,
                str(err),
                node,
                "a slot index is between 0 and slots - 1 of a MemRef declared with slots=N",
            )

    # ----- tensors and tiles -----------------------------------------------------------------
    def window(self, base: ir.Expr, node: ast.Subscript) -> Window:
        """Lower the index of ``base[...]`` to a full-rank window."""
        t = base.type
        is_tile = isinstance(t, ir.TileType)
        rank = len(t.shape)
        items = node.slice.elts if type(node.slice) is ast.Tuple else [node.slice]
        kind = "tile" if is_tile else "tensor"
        if len(items) > rank:
            self.fail(
                ParserTypeError,
                f"too many indices for a rank-{rank} {kind}: got {len(items)}",
                node.slice,
                f"give at most {rank} indices or slices, one per axis (missing trailing axes are ':')",
            )
        shape: list[Any] = []
        offset: list[Any] = []
        drop: list[int] = []
        for axis in range(rank):
            dim = t.shape[axis]
            if axis >= len(items):
                shape.append(dim)
                offset.append(0)
                continue
            item = items[axis]
            if type(item) is ast.Slice:
                lo, extent = self._slice_bounds(item, dim, is_tile)
                shape.append(extent)
                offset.append(lo)
            else:
                offset.append(self._scalar_index(item))
                shape.append(1)
                drop.append(axis)
        all_scalar = len(drop) == rank
        if is_tile and not all_scalar and rank - len(drop) < 2 <= rank:
            natural = [s for i, s in enumerate(shape) if i not in drop]
            promoted = [1] * (2 - len(natural)) + natural  # what tile.slice makes of it: [N] -> [1, N]
            warnings.warn(
                f"{self.span(node)}: tile index gives a {len(natural)}-D result; tiles are 2-D, so it is "
                f"promoted to shape {_dims_text(promoted)} (use pl.tile.reshape for another layout)",
                ParserWarning,
                stacklevel=2,
            )
        return Window(shape, offset, drop, all_scalar)

    def _scalar_index(self, item: ast.expr) -> Any:
        if type(item) is ast.Constant and item.value is Ellipsis:
            self.fail(
                UnsupportedFeatureError,
                "'...' (ellipsis) indexing is not supported",
                item,
                "index the leading axes and leave the trailing ones out: x[i] means x[i, :, :]",
            )
        if type(item) is ast.Constant and item.value is None:
            self.fail(
                UnsupportedFeatureError,
                "None (new axis) indexing is not supported",
                item,
                "add the axis with a reshape: pl.reshape(x, [1, n])",
            )
        value = self.eval(item)
        static = _static_int(value)
        if static is not None:
            if static < 0:
                self.fail(UnsupportedFeatureError, "negative indices are not supported", item, "index from the start: n - k")
            return value
        if isinstance(value, ir.Expr) and isinstance(value.type, ir.ScalarType) and value.type.dtype.is_int():
            return value
        if isinstance(value, (list, tuple)) or (isinstance(value, ir.Expr) and not isinstance(value.type, ir.ScalarType)):
            self.fail(
                UnsupportedFeatureError,
                "advanced indexing (lists, tensors or tiles as indices) is not supported",
                item,
                "index with integer scalars and slices; gather elements with pl.gather",
            )
        self.fail(
            ParserTypeError,
            f"an index must be an integer, got {describe(value)}",
            item,
            "index with an int, a closure int or an integer scalar (INDEX / INT), e.g. x[i, 0:16]",
        )

    def _slice_bounds(self, item: ast.Slice, dim: ir.Expr, is_tile: bool) -> tuple[Any, Any]:
        """``(start, extent)`` of one ``lo:hi`` slice of a dimension of size ``dim``."""
        if item.step is not None:
            self.fail(
                UnsupportedFeatureError,
                "slice steps are not supported",
                item.step,
                "take a contiguous window lo:hi; for strided access use a loop or pl.tile.gather",
            )
        lo = self._scalar_index(item.lower) if item.lower is not None else 0
        hi = self._scalar_index(item.upper) if item.upper is not None else dim
        lo_static = _static_int(lo)
        if is_tile and lo_static is None:
            self.fail(
                UnsupportedFeatureError,
                "the start of a tile slice must be a static integer",
                item.lower,
                "slice the tensor before loading, or use pl.tile.slice with explicit offsets",
            )
        hi_static = _static_int(hi)
        if lo_static is not None and hi_static is not None:
            if hi_static <= lo_static:
                self.fail(
                    InvalidOperationError,
                    f"empty slice {lo_static}:{hi_static}",
                    item,
                    "the end of a slice must be greater than its start",
                )
            return lo, hi_static - lo_static
        if lo_static == 0:
            return lo, hi
        span = self.span(item)
        extent = simplify_index(ir.sub(self.to_expr(hi, item), self.to_expr(lo, item), span=span))
        if isinstance(extent, ir.ConstInt):
            if extent.value <= 0:
                self.fail(
                    InvalidOperationError,
                    f"empty slice {ast.unparse(item)}: its extent is {extent.value}",
                    item,
                    "the end of a slice must be greater than its start",
                )
            return lo, extent.value
        if is_tile:
            self.fail(
                UnsupportedFeatureError,
                "the extent of a tile slice must be static",
                item,
                "write the end as start + constant (t[i:i + 16]) or use int literals",
            )
        return lo, extent

    # ----- writes ----------------------------------------------------------------------------
    def assign_subscript(self, target: ast.Subscript, value: Any, node: ast.stmt) -> None:
        """``C[idx] = value``: ``tensor.write`` / ``tensor.assemble`` (or the tile / array form)."""
        if type(target.value) is ast.Subscript:
            self.fail(
                UnsupportedFeatureError,
                "chained subscript assignment (C[i][j] = v) is not supported",
                target,
                "index all axes at once: C[i, j] = v",
            )
        if type(target.value) is not ast.Name or self.lookup_var(target.value.id) is None:
            self.fail(
                ParserTypeError,
                "only a DSL variable can be assigned through a subscript",
                target.value,
                "assign the value to a variable first, then write into it: t = ...; t[i] = v",
            )
        name = target.value.id
        base = self.lookup_var(name)
        t = base.type
        if isinstance(t, ir.ArrayType):
            index = self._array_index(target)
            new = self.call_op_value(array_ops.update_element, [base, index, value], target, _ARRAY_WRITE)
        elif isinstance(t, (ir.TensorType, ir.TileType)):
            ns = tile_ops if isinstance(t, ir.TileType) else tensor_ops
            window = self.window(base, target)
            if window.all_scalar:
                new = self.call_op_value(ns.write, [base, window.offset, value], target, _WRITE)
            else:
                source = value
                if window.drop_dims:
                    source = self.call_op_value(ns.reshape, [value, window.shape], target, _ASSEMBLE)
                new = self.call_op_value(ns.assemble, [base, source, window.offset], target, _ASSEMBLE)
        else:
            self.fail(
                ParserTypeError,
                f"{describe(base)} cannot be assigned through a subscript",
                target,
                "subscript writes go to tensors, tiles and arrays: t[i, j] = v, t[0:16, :] = tile",
            )
        self.assign(name, new, None, node)


_SUBSCRIPTABLE = "subscripts apply to tensors, tiles, arrays, tuples, MemRefs and closure lists / tuples / dicts"
_READ = "index within each axis: x[i, j] reads one element, x[lo:hi, :] a window; one index or slice per axis"
_ARRAY_READ = "index an array with one non-negative integer within its extent: arr[i]"
_ARRAY_WRITE = "arr[i] = v stores one scalar of the array's dtype at an index within its extent"
_WRITE = "a full index t[i, j] = v stores one scalar of t's dtype"
_ASSEMBLE = "the right side must fill the window exactly: C[0:16, :] = t with t of shape [16, <columns of C>]"


def _dims_text(dims: list[Any]) -> str:
    return "[" + ", ".join(str(d.value) if isinstance(d, ir.ConstInt) else str(d) for d in dims) + "]"

