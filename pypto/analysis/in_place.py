"""Which operands of a tile op its result may overwrite in place (the one table MemoryReuse reads).

An op's result may share a buffer with an operand whose last read is that op only when the op is
known to read each element of the operand before writing the result element at the same place:
a position-wise op over one shape, one layout and one element width. Everything else is refused
by default, because an op that writes its result while still reading an input gives a silently
wrong kernel (``tile.col_argmax`` writing 4-byte indices over the 2-byte FP16 row it has not yet
read, issue 26). An operand listed here is one that pto-isa computes position-wise on both the CPU
model (``include/pto/cpu``: one ``ElementOpCal`` per element, rows in parallel) and the a2a3 vector
unit (``include/pto/npu/a2a3``: one vector instruction per row or repeat, dst and src at the same
offsets). Whether a given call qualifies (same shape, layout and element width, see
:func:`same_place`) is decided at the call.

Left out on purpose, with the implementation that rules them out:

* ``recip`` (a2a3 ``TRECIP`` forbids dst == src), ``rsqrt``, ``fmod``/``fmods``, ``rem``/``rems``
  (multi-step sequences through dst or tmp), ``ands``/``ors``/``xor``/``xors`` (a2a3 expands the
  scalar into dst, or combines through tmp, before reading src; the ISA manual forbids overlap),
  ``prelu`` (writes dst, then reads src0 again), ``addc``/``subc``/``addsc``/``subsc`` (no a2a3
  implementation to check);
* ``cast``, ``cmp``/``cmps`` (another element width: dst element i covers src bytes not yet read),
  ``sel``'s mask (bit-packed, read row by row while dst rows are wider);
* reductions, arg-reductions, ``transpose``, ``concat``, ``gather*``, ``sort32``, ``mrgsort_*``,
  ``part_*``, ``fillpad*``, ``move``, ``extract``, matmuls: the result is not the operand's shape
  or is computed from other positions;
* the broadcast operand of ``row_expand*``/``col_expand*``, and every scratch (``tmp``) operand.
"""

from __future__ import annotations

from pypto.ir.op_registry import all_entries
from pypto.ir.expr import ConstInt
from pypto.ir.types import TileType, dims_equal, implicit_layout

_TILE = frozenset({"tile"})
_LHS = frozenset({"lhs"})
_BOTH = frozenset({"lhs", "rhs"})
_TARGET = frozenset({"target"})
_NONE: frozenset[str] = frozenset()

_UNARY = ("abs", "exp", "log", "sqrt", "neg", "not", "relu", "lrelu")
_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "and", "or", "shl", "shr")
# a2a3 TDIVS turns an in-place divide into a multiply by the inverse (TDivS.hpp "fix inplace alias").
_WITH_SCALAR = ("adds", "subs", "muls", "divs", "maximums", "minimums", "shls", "shrs")
_EXPAND_OPS = ("add", "sub", "mul", "div", "max", "min", "expdif")

# Tile ops that take a tile operand and return a tile, with none of their operands safe in place.
_NEVER = (
    "tile.aic_gather", "tile.aiv_shard", "tile.addc", "tile.addsc", "tile.subc", "tile.subsc",
    "tile.batch_matmul", "tile.cast", "tile.cmp", "tile.cmps", "tile.concat", "tile.cos", "tile.sin",
    "tile.extract", "tile.fillpad", "tile.fillpad_expand", "tile.fmod", "tile.fmods", "tile.gather",
    "tile.gather_mask", "tile.gatherb", "tile.gemv", "tile.gemv_bias", "tile.matmul",
    "tile.matmul_bias", "tile.matmul_mx", "tile.matmul_mx_bias", "tile.move", "tile.mrgsort_format1",
    "tile.mrgsort_format2", "tile.part_add", "tile.part_max", "tile.part_min", "tile.part_mul", "tile.prelu",
    "tile.recip", "tile.rem", "tile.rems", "tile.rsqrt", "tile.ands", "tile.ors", "tile.xor", "tile.xors",
    "tile.scatter_update", "tile.sort32", "tile.transpose",
    "tile.col_argmax", "tile.col_argmin", "tile.col_max", "tile.col_min", "tile.col_prod", "tile.col_sum",
    "tile.row_argmax", "tile.row_argmin", "tile.row_max", "tile.row_min", "tile.row_prod", "tile.row_sum",
    "tile.mgather",
)

def _table() -> dict[str, frozenset[str]]:
    t: dict[str, frozenset[str]] = {name: _NONE for name in _NEVER}
    # An op whose result is an operand's own buffer (a view, or a write in place): sharing is its meaning.
    t.update({e.name: _NONE for e in all_entries() if e.namespace == "tile" and e.memory is not None
              and e.memory.output is not None and (e.view or e.written_params())})
    t.update({f"tile.{n}": _TILE for n in _UNARY})
    t.update({f"tile.{n}": _BOTH for n in _BINARY})
    t.update({f"tile.{n}": _LHS for n in _WITH_SCALAR})
    # Only the data operands: the mask is bit-packed, tmp is scratch.
    t["tile.sel"] = _BOTH
    t["tile.sels"] = frozenset({"src"})
    # ``target`` only gives the shape: the instruction never reads it.
    for name in ("tile.expands", "tile.row_expand", "tile.col_expand"):
        t[name] = _TARGET
    for kind in ("row", "col"):
        for op in _EXPAND_OPS:
            t[f"tile.{kind}_expand_{op}"] = _TILE  # not ``vec``: it is broadcast to every row/column
    return t


IN_PLACE: dict[str, frozenset[str]] = _table()


def in_place_operands(op: str) -> frozenset[str]:
    """The parameters of ``op`` its result may overwrite in place (empty for an unknown op)."""
    return IN_PLACE.get(op, _NONE)


def same_place(result: TileType, operand: TileType) -> bool:
    """Would ``result`` written over ``operand`` put every element on the one it is computed from:
    the same shape, view (valid region, strides, offset, layout) and element width."""
    # Dtypes are singletons: one dtype has one width (most pairs), without two method calls.
    if result.dtype is not operand.dtype and result.dtype.get_bit() != operand.dtype.get_bit():
        return False
    # One dims list (a type derived from the other's, the common case) holds the same dims.
    shared = result.shape is operand.shape
    if not shared and not dims_equal(result.shape, operand.shape):
        return False
    if result.tile_view is None and operand.tile_view is None and (shared or _same_dims(result.shape, operand.shape)):
        # Two implicit views over the same dims differ only in their layouts: no views to build and compare
        # (and none to work out in one space).
        if result.memory_space is operand.memory_space:
            return True
        mine = implicit_layout(result.shape, result.memory_space)
        return mine == implicit_layout(operand.shape, operand.memory_space)
    return result.get_effective_tile_view() == operand.get_effective_tile_view()


def _same_dims(a: list, b: list) -> bool:
    """The dims are the same objects or constants of one value and dtype (structurally equal)."""
    return all(
        x is y or (type(x) is ConstInt and type(y) is ConstInt and x.value == y.value and x.dtype == y.dtype)
        for x, y in zip(a, b)
    )
