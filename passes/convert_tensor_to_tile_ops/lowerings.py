"""The tile lowering of each ``tensor.*`` op, for ConvertTensorToTileOps (docs/passes.md#converttensortotileops).

``LOWERINGS`` maps a tensor op name (and ``tile.store``, whose target may be a tensor the kernel
created) to a :class:`Lowering`: a function that builds the tile form of one call through a
:class:`Converter` (the pass's per-kernel state), and whether the result is a tile (a store into a
GM tensor yields the tensor). Adding an op is one entry; most are one of the
uniform families registered at the bottom (same-named tile op on the operands' tiles).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from pypto.ir import op_registry
from pypto.ir.datatype import DataType
from pypto.ir.enums import MemorySpace
from pypto.ir.expr import Call, ConstBool, ConstInt, Expr, MakeTuple, Var
from pypto.ir.op_registry import format_dims
from pypto.ir.ops.common import dim_equal, dims_equal, promote
from pypto.ir.ops.reductions import EXPAND_DTYPES
from pypto.ir.ops.tile_view_ops import FIXPIPE_TARGETS
from pypto.ir.span import Span
from pypto.ir.types import TensorType, TileType

Vec, Mat = MemorySpace.Vec, MemorySpace.Mat
# Operand dtypes the cube multiplies (both operands the same one).
CUBE_DTYPES = (DataType.INT8, DataType.FP16, DataType.BF16, DataType.FP32)


class Converter(Protocol):
    """What a lowering may ask of the pass while converting one call."""

    def tile(self, arg: Expr, space: MemorySpace = Vec) -> Expr:
        """The tile holding tensor operand ``arg`` (loaded into ``space`` if it is a GM tensor)."""

    def value(self, arg: Expr) -> Expr:
        """A non-tensor operand (scalar, tuple) with the pass's remap applied."""

    def op(self, name: str, args: list[Expr], kwargs: dict, span: Span) -> Call:
        """A call of a registered tile op with its type deduced."""

    def temp(self, base: str, value: Expr) -> Var:
        """``value`` assigned to a fresh variable before the current statement."""

    def static_dims(self, dims: Expr, what: str, span: Span) -> MakeTuple:
        """``dims`` (a tuple of INDEX expressions) folded to constants, or a PassError."""

    def is_tile(self, arg: Expr) -> bool:
        """True when operand ``arg`` is (or will be) a tile rather than a GM tensor."""

    def slice_space(self, call: Call) -> MemorySpace:
        """Where a load for slice ``call`` lands: Mat when the slice feeds a matmul, else Vec."""

    def create_space(self) -> MemorySpace:
        """Where the tile of the ``tensor.create`` being converted lives: Acc when it is carried into
        a ``matmul_acc`` accumulator, else Vec."""

    def accumulator(self) -> Expr | None:
        """The carried Acc tile the product being converted overwrites (an if choosing ``matmul``
        against ``matmul_acc`` on one carry), or None."""

    def keep(self, call: Call) -> Call:
        """``call`` itself, its operands remapped (an op that stays a tensor op)."""

    def error(self, message: str, span: Span, hint: str | None = None) -> Exception:
        """A PassError of the pass, to raise."""


@dataclass(frozen=True)
class Lowering:
    """How one tensor op becomes tile ops: ``lower`` builds the value of the converted call;
    ``tile_result(call, is_tile)`` says whether that value is a tile (default: always)."""

    lower: Callable[[Converter, Call], Expr]
    tile_result: Callable[[Call, Callable[[Expr], bool]], bool] = lambda call, is_tile: True


LOWERINGS: dict[str, Lowering] = {}

# What to write instead of a tensor op without a lowering, where the general hint (compute it in
# the orchestration) does not apply: no target computes these.
NO_LOWERING_HINTS: dict[str, str] = {
    "tensor.gather": ("load the tiles and use pl.tile.gather(src, indices, tmp), whose indices count row-major "
                      "over the whole source tile (row r, column c is r * columns + c)"),
    "tensor.sin": "pto-isa has no sine instruction, so no target computes it; the interpreter runs it",
    "tensor.cos": "pto-isa has no cosine instruction, so no target computes it; the interpreter runs it",
    "tensor.gather_row": "to copy a block of rows, write pl.assemble(acc, pl.slice(src, shapes, src_offset), "
                         "dst_offset)",
    "tensor.paged_gather": "no target has a rule for it: gather the rows with pl.slice of each block and "
                           "pl.assemble them",
    "tensor.alloc": "no kernel target (pto, cce) prints a raw allocation; a kernel makes its buffers with "
                    "pl.tile.create(shape, dtype=...)",
}


def index_tuple(values: list[int], span: Span) -> MakeTuple:
    """A tuple of INDEX constants."""
    return MakeTuple([ConstInt(v, DataType.INDEX, span) for v in values], span)


def _tensor_args(call: Call) -> list[bool]:
    return [isinstance(a.type, (TensorType, TileType)) for a in call.args]


def same_name(conv: Converter, call: Call) -> Expr:
    """``tile.<op>`` on the tiles of the tensor operands, other operands and kwargs as they are."""
    name = "tile." + call.op.name.split(".", 1)[1]
    args = [conv.tile(a) if t else conv.value(a) for a, t in zip(call.args, _tensor_args(call))]
    return conv.op(name, args, dict(call.kwargs), call.span)


# Binary ops with a tile form that broadcasts a row ([M, 1]) or column ([1, N]) vector, and the
# suffix of that form (``tile.row_expand_sub``); their vector is the second operand.
_EXPAND_FORM = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "maximum": "max", "minimum": "min"}
_COMMUTATIVE = frozenset({"add", "mul", "maximum", "minimum"})


def _vector_axis(full: list[Expr], vec: list[Expr]) -> str | None:
    """``"row"`` when ``vec`` is ``full`` with its last dim 1, ``"col"`` with the one before it 1."""
    if len(full) < 2 or len(vec) != len(full):
        return None
    for axis, kind in ((-1, "row"), (-2, "col")):
        want = list(full)
        want[axis] = ConstInt(1, DataType.INDEX, Span.unknown())
        if all(dim_equal(a, b) for a, b in zip(vec, want)):
            return kind
    return None


def _widened(conv: Converter, arg: Expr, dtype: DataType, span: Span) -> Expr:
    """The tile of ``arg``, cast up to ``dtype`` when its own dtype differs (tile ops take operands
    of one dtype, where the tensor op promotes)."""
    tile = conv.tile(arg)
    if tile.type.dtype == dtype:
        return tile
    return conv.temp("cast_tile", conv.op("tile.cast", [tile], {"target_type": dtype, "mode": "round"}, span))


def binary(conv: Converter, call: Call) -> Expr:
    """A binary op of two tensors of one shape is the same-named tile op, its operands first cast to
    their promoted dtype; the vector units have no broadcasting form, so an ``[M, 1]`` (``[1, N]``)
    operand is broadcast by the row (column) form: ``tile.row_expand_sub(x, m)``, or
    ``tile.row_expand`` then the op when there is none for that operand order or dtype (``m - x``,
    an integer division). A scalar rhs (``tensor.maximum(x, 0.0)``) takes the scalar form ``tile.maximums``."""
    lhs, rhs = call.args[0], call.args[1]
    base = call.op.name.split(".", 1)[1]
    dtype = promote(lhs.type.dtype, rhs.type.dtype)
    rest = [conv.tile(a) if t else conv.value(a) for a, t in zip(call.args[2:], _tensor_args(call)[2:])]
    if not isinstance(rhs.type, (TensorType, TileType)):  # maximum, minimum, cmp: the tile op's scalar form
        args = [_widened(conv, lhs, dtype, call.span), conv.value(rhs)]
        return conv.op(f"tile.{base}s", args + rest, dict(call.kwargs), call.span)
    ls, rs = list(lhs.type.shape), list(rhs.type.shape)
    if len(ls) == len(rs) and all(dim_equal(a, b) for a, b in zip(ls, rs)):
        if lhs.type.dtype == rhs.type.dtype:
            return same_name(conv, call)
        args = [_widened(conv, lhs, dtype, call.span), _widened(conv, rhs, dtype, call.span)]
        return conv.op("tile." + base, args + rest, dict(call.kwargs), call.span)
    vec_first = _vector_axis(rs, ls)
    kind = _vector_axis(ls, rs) or vec_first
    if kind is None:
        raise conv.error(
            f"{call.op.name} broadcasts {format_dims(ls)} and {format_dims(rs)}; the vector units broadcast only "
            "an [M, 1] row vector or a [1, N] column vector against a tile of the result's shape",
            call.span,
            "broadcast an operand first with pl.row_expand(target, vec) or pl.col_expand(target, vec), or reshape it",
        )
    full, vec = (rhs, lhs) if vec_first else (lhs, rhs)
    full_tile, vec_tile = _widened(conv, full, dtype, call.span), _widened(conv, vec, dtype, call.span)
    form = _EXPAND_FORM.get(base)
    exact = form is not None and dtype in EXPAND_DTYPES[form] and (base != "div" or dtype.is_float())
    if exact and (not vec_first or base in _COMMUTATIVE):
        return conv.op(f"tile.{kind}_expand_{form}", [full_tile, vec_tile], {}, call.span)
    wide = conv.temp(f"{kind}_tile", conv.op(f"tile.{kind}_expand", [full_tile, vec_tile], {}, call.span))
    args = [wide, full_tile] if vec_first else [full_tile, wide]
    return conv.op("tile." + base, args + rest, dict(call.kwargs), call.span)


def compare(conv: Converter, call: Call) -> Expr:
    """``tensor.cmp`` gives 0/1 in the operands' promoted dtype, the vector unit's compare a packed bit
    mask (``tile.cmp`` / ``tile.cmps``): the result selects ones where a bit is set, zero elsewhere::

        m = tile.cmps(x, 0.5, cmp_type=4); ones = tile.full(shape, 1); y = tile.sels(m, ones, tmp, 0)
    """
    mask = conv.temp("mask_tile", binary(conv, call))
    dtype, shape = call.type.dtype, MakeTuple(list(call.type.shape), call.span)
    ones = conv.temp("ones_tile", conv.op("tile.full", [shape, ConstInt(1, dtype, call.span)], {"dtype": dtype},
                                          call.span))
    tmp = conv.temp("tmp_tile", conv.op("tile.create", [shape], {"dtype": dtype}, call.span))
    return conv.op("tile.sels", [mask, ones, tmp, ConstInt(0, dtype, call.span)], {}, call.span)


def sqrt(conv: Converter, call: Call) -> Expr:
    """``tile.sqrt`` of the operand cast to the result dtype: an integer tensor's root is FP32."""
    return conv.op("tile.sqrt", [_widened(conv, call.args[0], call.type.dtype, call.span)], {}, call.span)


def scalar_op(conv: Converter, call: Call) -> Expr:
    """``tile.<op>s``. A tensor-scalar op promotes (an FP32 literal makes an FP16 tensor's result
    FP32) but the tile op keeps its tile's dtype, so a tile below the result's dtype is cast up first."""
    x = _widened(conv, call.args[0], call.type.dtype, call.span)
    name = "tile." + call.op.name.split(".", 1)[1]
    return conv.op(name, [x, *(conv.value(a) for a in call.args[1:])], dict(call.kwargs), call.span)


def reduction(conv: Converter, call: Call) -> Expr:
    """``tile.<op>(x, tmp)`` with a scratch tile of the input's shape (row ops reduce the last axis,
    column ops the one before it: of a rank > 2 tile, batch by batch in FlattenTileNdTo2D)."""
    x = conv.tile(call.args[0])
    name = "tile." + call.op.name.split(".", 1)[1]
    if len(op_registry.get_entry(name).params) == 1:
        return conv.op(name, [x], {}, call.span)
    shape = MakeTuple(list(x.type.shape), call.span)
    tmp = conv.temp("tmp_tile", conv.op("tile.create", [shape], {"dtype": x.type.dtype}, call.span))
    return conv.op(name, [x, tmp], {}, call.span)


def _cube_operand(conv: Converter, arg: Expr, transposed: bool, span: Span) -> Expr:
    """The Mat tile of matmul operand ``arg``; a transposed one (``a_trans``/``b_trans``) is loaded
    as stored and read through ``tile.transpose_view`` (the NZ tile's bytes as the ZN tile of the
    transpose, which the cube extracts from without a copy); a rank > 2 operand's view swaps its last
    two axes, batch by batch."""
    tile = conv.tile(arg, Mat)
    if not transposed:
        return tile
    return conv.temp(f"{arg.name_hint}_t" if isinstance(arg, Var) else "operand_t",
                     conv.op("tile.transpose_view", [tile], {}, span))


def _cube_operands(conv: Converter, call: Call, lhs: Expr, rhs: Expr) -> tuple[Expr, Expr]:
    """The Mat tiles of the two operands of matmul-like ``call`` (transposed per ``a_trans`` /
    ``b_trans``), after checking that the cube has a form for their dtypes."""
    da, db = lhs.type.dtype, rhs.type.dtype
    if da != db or da not in CUBE_DTYPES:
        raise conv.error(
            f"{call.op.name} of {da.name} x {db.name} operands has no cube form: the cube multiplies two "
            f"operands of one dtype among {', '.join(d.name for d in CUBE_DTYPES)}",
            call.span,
            "pl.cast the operands to a common cube dtype, e.g. FP16, before the matmul",
        )
    a = _cube_operand(conv, lhs, bool(call.kwargs.get("a_trans")), call.span)
    return a, _cube_operand(conv, rhs, bool(call.kwargs.get("b_trans")), call.span)


def matmul(conv: Converter, call: Call) -> Expr:
    """``tile.matmul`` on Mat-resident operands (AutoTileMatmulL0 and InferTileMemorySpace take them
    on to L0), ``a_trans``/``b_trans`` operands through ``tile.transpose_view``; an ``out_dtype``
    other than the product's becomes a ``tile.cast``."""
    if call.kwargs.get("c_matrix_nz"):
        raise conv.error(
            f"{call.op.name} with c_matrix_nz has no tile lowering yet",
            call.span,
            "drop c_matrix_nz: the product is stored in ND order",
        )
    a, b = _cube_operands(conv, call, call.args[0], call.args[1])
    product = conv.op(_matmul_op(a, b), [a, b], {}, call.span)
    want = call.kwargs.get("out_dtype")
    into = conv.accumulator()
    if into is not None and product.op.name == "tile.matmul" and (want is None or want == product.type.dtype):
        # Written into the carried accumulator (init_cond True ignores its old value), so the
        # carry needs no Acc -> Acc copy, which the cube cannot do.
        return conv.op("tile.matmul_acc", [into, a, b, ConstBool(True, call.span)], {}, call.span)
    if want is None or want == product.type.dtype:
        return product
    acc = conv.temp("acc_tile", product)
    return conv.op("tile.cast", [acc], {"target_type": want, "mode": "round"}, call.span)


def _matmul_op(a: Expr, b: Expr) -> str:
    """Operands of rank > 2 multiply per batch (FlattenTileNdTo2D expands ``tile.batch_matmul``)."""
    return "tile.batch_matmul" if max(len(a.type.shape), len(b.type.shape)) > 2 else "tile.matmul"


def matmul_acc(conv: Converter, call: Call) -> Expr:
    """``tile.matmul_acc`` adding the product of the Mat-resident operands (transposed ones through
    ``tile.transpose_view``) to the accumulator tile (``tile.batch_matmul_acc`` for rank > 2 operands);
    ``init_cond`` passes through. The accumulator
    must be a kernel value (a tile in Acc): a GM tensor cannot be loaded into L0C."""
    acc, lhs, rhs = call.args[:3]
    if not conv.is_tile(acc):
        raise conv.error(
            f"{call.op.name} accumulating into a GM tensor has no tile lowering: the accumulator lives in "
            "L0C, which nothing loads from GM",
            call.span,
            "start the sum with pl.matmul in the same pl.at block, e.g. 'acc = pl.matmul(a0, b0, "
            "out_dtype=pl.FP32)', then 'acc = pl.matmul_acc(acc, a1, b1)'",
        )
    a, b = _cube_operands(conv, call, lhs, rhs)
    extra = [conv.value(c) for c in call.args[3:]]
    if _matmul_op(a, b) == "tile.batch_matmul":
        if extra:
            raise conv.error(f"{call.op.name} of rank > 2 operands with init_cond has no tile lowering", call.span,
                             "start the sum with pl.matmul instead of an init_cond")
        return conv.op("tile.batch_matmul_acc", [conv.tile(acc), a, b], {}, call.span)
    return conv.op("tile.matmul_acc", [conv.tile(acc), a, b, *extra], {}, call.span)


def slice_(conv: Converter, call: Call) -> Expr:
    """A slice of a GM tensor is a load of its full-rank window at its offset (into Mat when it feeds
    a matmul), then a ``tile.slice`` dropping the ``drop_dims`` axes when that changes the tile's
    shape; a slice of a tile is ``tile.slice``."""
    source, shape, offset = call.args[0], call.args[1], call.args[2]
    valid = call.args[3] if len(call.args) > 3 and call.args[3].elements else None
    drop = call.args[4] if len(call.args) > 4 and call.args[4].elements else None
    dims = conv.static_dims(shape, "slice shape", call.span)
    if conv.is_tile(source):
        args = [conv.tile(source), dims, conv.value(offset)]
        if valid is not None or drop is not None:
            args.append(conv.value(valid) if valid is not None else MakeTuple([], call.span))
        if drop is not None:
            args.append(drop)
        return conv.op("tile.slice", args, {}, call.span)
    kwargs = {"target_memory": conv.slice_space(call)}
    if call.kwargs.get("clamp"):
        kwargs["clamp"] = True
    load = conv.op(
        "tile.load", [conv.value(source), conv.value(offset), dims, conv.value(valid) if valid is not None else dims],
        kwargs, call.span,
    )
    if drop is None:
        return load
    rest = [dims, index_tuple([0] * len(dims.elements), call.span), MakeTuple([], call.span), drop]
    kept = op_registry.deduce_call_return_type("tile.slice", [load, *rest])
    if dims_equal(list(kept.shape), list(load.type.shape)):  # only leading unit axes dropped: [1, N] stays
        return load
    return conv.op("tile.slice", [conv.temp("window", load), *rest], {}, call.span)


def assemble(conv: Converter, call: Call) -> Expr:
    """Writing a tile into a GM tensor at an offset is ``tile.store`` (the result is the tensor);
    into a tile, ``tile.assemble``. A source of another dtype is cast first (``tile.cast``, rounding),
    except an Acc source that the fixpipe converts on its way into a tile."""
    target, source, offset = call.args
    tile, dtype = conv.tile(source), target.type.dtype
    fixpipe = (conv.is_tile(target) and isinstance(tile.type, TileType) and tile.type.memory_space == MemorySpace.Acc
               and dtype in FIXPIPE_TARGETS)
    if tile.type.dtype != dtype and not fixpipe:
        tile = conv.temp("assembled", conv.op("tile.cast", [tile], {"target_type": dtype, "mode": 2}, call.span))
    if conv.is_tile(target):
        return conv.op("tile.assemble", [conv.tile(target), tile, conv.value(offset)], {}, call.span)
    kwargs = {"atomic": call.kwargs["atomic"]} if call.kwargs.get("atomic") is not None else {}
    return conv.op("tile.store", [tile, conv.value(offset), conv.value(target)], kwargs, call.span)


def store(conv: Converter, call: Call) -> Expr:
    """``pl.store`` into a tensor the kernel created (now a tile) writes the window into that tile,
    ``tile.assemble``; a store into a GM tensor stays."""
    tile, offset, target = call.args[:3]
    if not conv.is_tile(target):
        return conv.keep(call)
    if len(call.args) > 3 or call.kwargs.get("atomic") is not None:
        raise conv.error("a store with 'shapes' or 'atomic' into a tensor created in the kernel is not supported",
                         call.span, "create the tensor before the pl.at scope and pass it in")
    return conv.op("tile.assemble", [conv.tile(target), conv.value(tile), conv.value(offset)], {}, call.span)


def scatter_mask(conv: Converter, call: Call) -> Expr:
    """``tensor.scatter_mask(input, dst)`` is ``tile.scatter_mask(dst, src)``: the tile op names the
    destination first."""
    source, dst = call.args
    return conv.op("tile.scatter_mask", [conv.tile(dst), conv.tile(source)], dict(call.kwargs), call.span)


def _on_target(call: Call, is_tile: Callable[[Expr], bool]) -> bool:
    return is_tile(call.args[0])


def element_access(conv: Converter, call: Call) -> Expr:
    """``tensor.read``/``tensor.write`` of a tile become the tile ops; on GM tensors they stay."""
    if not conv.is_tile(call.args[0]):
        return conv.keep(call)
    name = "tile." + call.op.name.split(".", 1)[1]
    args = [conv.tile(call.args[0])] + [conv.value(a) for a in call.args[1:]]
    return conv.op(name, args, {}, call.span)


def reshape(conv: Converter, call: Call) -> Expr:
    """``tensor.reshape`` of a kernel value is ``tile.reshape`` to the same static shape."""
    if len(call.args) > 2 and call.args[2].elements:
        raise conv.error(f"{call.op.name} with a valid_shape has no tile lowering yet", call.span)
    dims = conv.static_dims(call.args[1], "tensor shape", call.span)
    return conv.op("tile.reshape", [conv.tile(call.args[0]), dims], {}, call.span)


def create(conv: Converter, call: Call) -> Expr:
    """A tensor created inside a kernel is a tile (its space is inferred later, but a matmul_acc
    accumulator is in Acc from the start: its carries must agree with the products yielded to them)."""
    dims = conv.static_dims(call.args[0], "tensor shape", call.span)
    kwargs: dict = {"dtype": call.kwargs["dtype"]}
    if (space := conv.create_space()) is not Vec:
        kwargs["target_memory"] = space
    return conv.op("tile.create", [dims], kwargs, call.span)


def full(conv: Converter, call: Call) -> Expr:
    """``tensor.full`` inside a kernel is ``tile.full``."""
    dims = conv.static_dims(call.args[0], "tensor shape", call.span)
    return conv.op("tile.full", [dims, conv.value(call.args[1])], dict(call.kwargs), call.span)


def ci(conv: Converter, call: Call) -> Expr:
    """``tensor.ci`` (arange) inside a kernel is ``tile.ci`` of the same static shape."""
    dims = conv.static_dims(call.args[1], "tensor shape", call.span)
    return conv.op("tile.ci", [conv.value(call.args[0]), dims], dict(call.kwargs), call.span)


def expand_clone(conv: Converter, call: Call) -> Expr:
    """``tensor.expand_clone`` of an ``[a, b, c]`` source to the rank-3 target shape ``[A, B, C]`` (at
    most one unit dim broadcast) on the 2-D ``[rows, cols]`` tile of the source: a broadcast last dim
    is ``tile.row_expand``; a broadcast middle dim ``tile.col_expand`` of each batch row, assembled
    into place; a broadcast first dim the source assembled once per batch. The target tensor only
    gives the shape."""
    src = conv.tile(call.args[0])
    a, b, c = conv.static_dims(MakeTuple(list(src.type.shape), call.span), "source shape", call.span).elements
    big_a, big_b, big_c = conv.static_dims(MakeTuple(list(call.type.shape), call.span), "target shape",
                                           call.span).elements
    a, b, c, big_a, big_b, big_c = (int(d.value) for d in (a, b, c, big_a, big_b, big_c))
    dtype, span = src.type.dtype, call.span

    def reshape(tile: Expr, dims: list[int]) -> Expr:
        return conv.temp("expand_tile", conv.op("tile.reshape", [tile, index_tuple(dims, span)], {}, span))

    def create(dims: list[int]) -> Expr:
        return conv.temp("expand_tile", conv.op("tile.create", [index_tuple(dims, span)], {"dtype": dtype}, span))

    if (a, b, c) == (big_a, big_b, big_c):
        return src
    if c != big_c:
        flat = reshape(src, [a * b, 1])
        wide = conv.temp("expand_tile", conv.op("tile.row_expand", [create([a * b, big_c]), flat], {}, span))
        return conv.op("tile.reshape", [wide, index_tuple([big_a, big_b, big_c], span)], {}, span)
    flat = reshape(src, [a * b, c])
    out = create([big_a * big_b, c])
    for i in range(big_a):
        if b != big_b:
            row = conv.temp("expand_tile", conv.op("tile.slice", [flat, index_tuple([1, c], span),
                                                                   index_tuple([i, 0], span)], {}, span))
            part = conv.temp("expand_tile", conv.op("tile.col_expand", [create([big_b, c]), row], {}, span))
        else:
            part = flat
        out = conv.temp("expand_tile", conv.op("tile.assemble", [out, part, index_tuple([i * big_b, 0], span)],
                                                {}, span))
    return conv.op("tile.reshape", [out, index_tuple([big_a, big_b, big_c], span)], {}, span)


def _last_two_axes(call: Call) -> bool:
    rank = len(call.args[0].type.shape)
    axes = {a.value % rank if isinstance(a, ConstInt) else None for a in call.args[1:3]}
    return axes == {rank - 2, rank - 1}


def transpose(conv: Converter, call: Call) -> Expr:
    """``tensor.transpose`` of a 2-D kernel value is ``tile.transpose`` with the scratch tile the
    vector unit's TTRANS takes (of the result's shape); of a rank > 2 value, of its last two axes, it
    is ``tile.transpose`` batch by batch (FlattenTileNdTo2D). A transpose of the last two axes that feeds a
    matmul is its transposed operand, as with ``a_trans``/``b_trans``: ``tile.transpose_view`` of the
    Mat tile of a GM tensor, of any rank (no vector work in a cube kernel)."""
    whole = not (len(call.args) > 3 and call.args[3].elements)
    if conv.slice_space(call) is Mat and _last_two_axes(call) and whole and not conv.is_tile(call.args[0]):
        return conv.op("tile.transpose_view", [conv.tile(call.args[0], Mat)], {}, call.span)
    x = conv.tile(call.args[0])
    rank = len(x.type.shape)
    if rank > 2 and _last_two_axes(call) and whole:
        # Each batch's matrix; FlattenTileNdTo2D gives each its own scratch tile.
        return conv.op("tile.transpose", [x, conv.value(call.args[1]), conv.value(call.args[2])], {}, call.span)
    if rank != 2:
        raise conv.error(
            f"{call.op.name} of axes {call.args[1].as_python()}, {call.args[2].as_python()} of a rank-{rank} tensor "
            "has no tile lowering: tile transposes swap the last two axes",
            call.span,
            "reshape the tensor first, or slice out a 2-D block and transpose it",
        )
    if len(call.args) > 3 and call.args[3].elements:
        raise conv.error(
            f"{call.op.name} with a valid_shape has no tile lowering yet",
            call.span,
            "transpose the whole tensor, then slice the valid block",
        )
    shape = MakeTuple([x.type.shape[1], x.type.shape[0]], call.span)
    tmp = conv.temp("tmp_tile", conv.op("tile.create", [shape], {"dtype": x.type.dtype}, call.span))
    return conv.op("tile.transpose", [x, conv.value(call.args[1]), conv.value(call.args[2]), tmp], {}, call.span)


def concat(conv: Converter, call: Call) -> Expr:
    """``tensor.concat`` (two 2-D values, joined along the columns) is ``tile.concat`` of their Vec tiles."""
    return conv.op("tile.concat", [conv.tile(call.args[0]), conv.tile(call.args[1])], {}, call.span)


def dim(conv: Converter, call: Call) -> Expr:
    """``tensor.dim`` of a static axis in a kernel is the constant extent; a dynamic one is refused (a
    kernel receives no dimension symbols: the extent must come in as a scalar)."""
    tensor, axis = call.args
    shape = list(tensor.type.shape)
    extent = shape[axis.value] if isinstance(axis, ConstInt) and -len(shape) <= axis.value < len(shape) else None
    if not isinstance(extent, ConstInt):
        what = ("a constant axis" if extent is None
                else f"axis {axis.value}, whose extent {extent.as_python()} is dynamic")
        raise conv.error(
            f"tensor.dim({tensor.as_python()}, {axis.as_python()}) in a kernel: the kernel knows the extent of "
            f"static axes only, and this is {what}", call.span,
            "compute 'n = pl.tensor.dim(...)' before the pl.at block and use n inside it: it reaches the kernel as "
            "a scalar parameter")
    return extent


def _scalar(call: Call, is_tile: Callable[[Expr], bool]) -> bool:
    return False


def _register(fn: Callable[[Converter, Call], Expr], *names: str, **options: object) -> None:
    for n in names:
        LOWERINGS["tensor." + n] = Lowering(fn, **options)  # type: ignore[arg-type]


_BINARY = "add sub mul div maximum minimum and or xor shl shr fmod".split()
_SCALAR = "adds subs muls divs fmods".split()
_UNARY = "abs exp log rsqrt recip neg not cast".split()  # no sin, cos: pto-isa has no instruction for them
_EXPAND = [f"{axis}_expand{op}" for axis in ("row", "col") for op in ("", "_add", "_sub", "_mul", "_div", "_max", "_min", "_expdif")]
_REDUCE = [f"{axis}_{op}" for axis in ("row", "col") for op in ("max", "min", "sum", "prod", "argmax", "argmin")]

_register(binary, *_BINARY)
_register(same_name, "ands", "ors", "xors", "shls", "shrs", "expands", *_UNARY, *_EXPAND)
_register(same_name, "fillpad", "fillpad_expand", "gather_mask", "sort32", "mrgsort_format1")
_register(same_name, "aiv_shard", "aic_gather")  # a pl.split_aiv lane's half, both halves for the cube
_register(scatter_mask, "scatter_mask")
_register(scalar_op, *_SCALAR)
_register(sqrt, "sqrt")
_register(compare, "cmp")
_register(reduction, *_REDUCE)
_register(matmul, "matmul")
_register(matmul_acc, "matmul_acc")
_register(slice_, "slice")
_register(assemble, "assemble", tile_result=_on_target)
_register(element_access, "read", "write", tile_result=_on_target)
_register(reshape, "reshape")
_register(create, "create")
_register(full, "full")
_register(ci, "ci")
_register(expand_clone, "expand_clone")
_register(transpose, "transpose")
_register(concat, "concat")
_register(dim, "dim", tile_result=_scalar)
LOWERINGS["tile.store"] = Lowering(store, tile_result=lambda call, is_tile: is_tile(call.args[2]))
_register(same_name, "get_block_idx", "get_subblock_idx", "get_block_num", tile_result=_scalar)
