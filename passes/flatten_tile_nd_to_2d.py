"""FlattenTileNdTo2D: kernel tiles of rank > 2 become 2-D tiles (docs/passes.md#flattentilendto2d).

A tile ``[d0, ..., dk-2, dk-1]`` becomes ``[d0 * ... * dk-2, dk-1]``: its rows are the leading
axes merged row-major, its columns the last axis. Elementwise ops, last-axis reductions and row
broadcasts compute the same elements on the merged rows; ops that carry shapes or positions get
them folded; ops along the second-to-last axis (matmuls, column reductions and broadcasts, a
transpose of the last two axes) run on each batch's matrix; anything else that mixes the merged
axes (a transpose of a leading axis, a broadcast along one) has no 2-D form and is refused.
"""

from __future__ import annotations

import math

from pypto.analysis import op_name
from pypto.analysis.defuse import sub_blocks, use_counts
from pypto.languages.invariants import TileOps2D
from pypto.languages.tiled import tiled

from pypto.ir import op_registry
from pypto.ir import scalar_ops
from pypto.ir.datatype import DataType
from pypto.ir.enums import is_incore_type
from pypto.ir.expr import Call, ConstInt, Expr, MakeTuple, Var
from pypto.ir.function import Function
from pypto.ir.ops.common import is_fully_valid, merged_2d, valid_shape
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, EvalStmt, Stmt
from pypto.ir.types import TensorType, TileType

from pypto.transform.errors import PassError
from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import calls_any, mentions_type, rebuild

_HINT = "keep the reduced or broadcast axis last, or write the kernel with 2-D tiles"
# Ops whose meaning involves an axis other than the last one: merging the leading axes changes it.
_OTHER_AXIS = ("tile.col_", "tile.transpose", "tile.concat", "tile.gather", "tile.scatter", "tile.mgather",
               "tile.sort32", "tile.mrgsort", "tile.matmul", "tile.gemv", "tile.tri", "tile.random")


def _const(e: Expr) -> int | None:
    return e.value if isinstance(e, ConstInt) else None


def _index(v: int) -> ConstInt:
    return ConstInt(v, DataType.INDEX)


def _mul(a: Expr, n: int) -> Expr:
    c = _const(a)
    if c is not None:
        return _index(c * n)
    return a if n == 1 else scalar_ops.mul(a, _index(n))


def _add(a: Expr, b: Expr) -> Expr:
    ca, cb = _const(a), _const(b)
    if ca is not None and cb is not None:
        return _index(ca + cb)
    if cb == 0:
        return a
    return b if ca == 0 else scalar_ops.add(a, b)


def _is_nd(t: object) -> bool:
    return isinstance(t, TileType) and len(t.shape) > 2


def _elements(e: Expr) -> list[Expr]:
    return list(e.elements) if isinstance(e, MakeTuple) else [e]


class FlattenTileNdTo2D(RewritePass):
    """Merge the leading axes of every kernel tile of rank > 2 into its rows.

    before:  x: pl.Tile[[2, 16, 64], pl.FP32] = pl.tile.load(a, [0, 0, 0], [2, 16, 64], [2, 16, 64])
             y: pl.Tile[[2, 16, 64], pl.FP32] = pl.tile.exp(x)
             s: pl.Tile[[2, 16, 1], pl.FP32] = pl.tile.row_sum(y, tmp)
             r: pl.Tensor[[2, 16, 64], pl.FP32] = pl.tile.store(y, [0, 0, 0], out)
    after:   x: pl.Tile[[32, 64], pl.FP32] = pl.tile.load(a, [0, 0, 0], [2, 16, 64], [2, 16, 64], flatten=True)
             y: pl.Tile[[32, 64], pl.FP32] = pl.tile.exp(x)
             s: pl.Tile[[32, 1], pl.FP32] = pl.tile.row_sum(y, tmp)
             r: pl.Tensor[[2, 16, 64], pl.FP32] = pl.tile.store(y, [0, 0, 0], out, [2, 16, 64])

    A load keeps its N-D window and produces the 2-D tile directly; a store into a rank > 2 tensor
    keeps its N-D offsets and gets the tile's original shape as its 4th operand (the partition it
    writes). Shapes of ``tile.create``/``full``/``ci``/``reshape`` are merged alike; ``slice`` and
    ``assemble`` windows and ``read``/``write`` indices fold row-major (a window must be a block of
    whole merged rows). The leading axes must be static; a valid region must be a prefix of the
    merged rows (partial only along the first axis and the last one).

    ``tile.batch_matmul`` becomes one 2-D matmul per batch on row blocks of its merged operands. A
    result read only by a store is stored batch by batch (``tile.store(bmm_1, [1, 0, 0], c_0,
    [1, 16, 16])``), which keeps the kernel cube-only; any other result is assembled from the parts.
    A rank > 2 ``tile.transpose_view`` (a ``b_trans``/``a_trans`` batched operand) becomes the view of
    the merged tile, ``[K, B * N]`` for a ``[B, N, K]`` source, each batch a column block of it; it may
    only be a batched matmul operand. A ``batch_matmul_acc`` into a per-batch result adds to each
    batch's Acc tile. A ``tile.batch_matmul[_acc]`` of 2-D operands is the ``tile.matmul[_acc]`` itself:
    no kernel after this pass holds a batched matmul (TileOps2D), so no target needs a rule for one.

    Column ops (``tile.col_*``) and a ``tile.transpose`` of the last two axes run on each batch's
    matrix (a row block of the merged tile) and are assembled into the result's rows; their rank > 2
    operands must be fully valid with the result's batch axes.
    """

    source = tiled
    types = True
    produces = frozenset({TileOps2D})

    def applies(self, func: Function) -> bool:
        return is_incore_type(func.func_type) and (mentions_type(func, _is_nd) or calls_any(func, _MATMUL_OPERANDS))

    def refuse(self, message: str, span: Span, hint: str) -> PassError:
        """The PassError for an input with no 2-D form, with what to do instead."""
        return self.error(message, span, hint)

    def function(self, func: Function) -> Function:
        self.span: Span = func.span
        self.stored = {v for v in _stored_batch_matmuls(func) if _is_nd(v.type)}  # a 2-D one is a matmul
        self.views = self.batched_views(func)
        self.view_values: dict[Var, Expr] = {}
        self.parts: dict[Var, list[tuple[list[int], Expr]]] = {}
        return super().function(func)

    # ---- types -----------------------------------------------------------------------------------

    def flat(self, t: TileType) -> TileType:
        """The 2-D type of a rank > 2 tile (``t`` itself when it is already at most 2-D)."""
        if not _is_nd(t):
            return t
        lead = [_const(d) for d in t.shape[:-1]]
        if None in lead:
            raise self.refuse(
                f"a tile of shape {_dims(t.shape)} has a non-static leading axis; its rows cannot be merged",
                self.span,
"give the tile a static physical shape (a dynamic extent belongs in valid_shape)")
        valid = valid_shape(t)
        inner = valid[1:-1]
        if any(_const(v) != _const(d) for v, d in zip(inner, t.shape[1:-1])):
            raise self.refuse(
                f"the valid region {_dims(valid)} of a tile of shape {_dims(t.shape)} is not a block of "
                "whole merged rows",
                self.span,
"only the first and the last axis of a rank > 2 tile may be partially valid")
        return merged_2d(t)

    @on(TileType)
    def _tile(self, t: TileType) -> TileType:
        return self.flat(t)

    # ---- statements ------------------------------------------------------------------------------

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        self.span = node.span
        if not isinstance(node.value, Call):
            return self.children(node)
        if node.var in self.stored:
            self.parts[node.var] = self.per_batch(node.value)
            return None
        if node.var in self.views:
            view = op_registry.create_op_call("tile.transpose_view", [self.expr(node.value.args[0])], {}, node.span)
            self.view_values[node.var] = self.temp(node.var.name_hint, view)
            return None
        value = self.call(node.value)
        return rebuild(node, var=self.define(node.var), value=value)

    @on(EvalStmt)
    def _eval(self, node: EvalStmt) -> Result:
        self.span = node.span
        if not isinstance(node.expr, Call):
            return self.children(node)
        return rebuild(node, expr=self.call(node.expr))

    def call(self, old: Call) -> Expr:
        """``old`` on flattened operands: folded by its op's rule, or rewritten as it is."""
        name = op_name(old) or ""
        tiles = [a.type for a in old.args if isinstance(a.type, TileType)]
        if not name.startswith("tile.") or not any(_is_nd(t) for t in [*tiles, old.type]):
            if name in _MATMUL_OPERANDS:  # a batch of one matrix: the 2-D op itself
                plain = "tile.matmul" if name == "tile.batch_matmul" else "tile.matmul_acc"
                return op_registry.create_op_call(plain, self.expr(list(old.args)), {}, old.span)
            return self.expr(old)
        rule = _RULES.get(name)
        if rule is not None:
            return rule(self, old)
        if name.startswith("tile.col_"):
            return self.each_batch(old)
        if name.startswith(_OTHER_AXIS):
            raise self.refuse(
                f"{name} on a rank-{max(len(t.shape) for t in tiles)} tile works along an axis that merging the "
                "leading axes would mix",
                old.span, _HINT)
        if any(isinstance(a, MakeTuple) for a in old.args):
            raise self.refuse(f"{name} on a rank > 2 tile takes shapes or positions that have no 2-D form",
                             old.span, "write the kernel with 2-D tiles")
        self.check_rows(old, tiles)
        return self.expr(old)

    def check_rows(self, old: Call, tiles: list[TileType]) -> None:
        """Every rank > 2 operand has the result's leading axes (a broadcast along one would mix rows)."""
        ref = old.type if isinstance(old.type, TileType) else tiles[0]
        for t in tiles:
            if len(t.shape) != len(ref.shape) or any(_const(a) != _const(b) for a, b in zip(t.shape[:-1], ref.shape[:-1])):
                raise self.refuse(
                    f"{old.op.name} broadcasts a {_dims(t.shape)} tile to {_dims(ref.shape)} along a leading axis",
                    old.span, _HINT)

    def rebuilt(self, old: Call, args: list[Expr], rtype: object = None) -> Call:
        """``old`` with ``args`` (already rewritten) and its type flattened (or ``rtype``)."""
        new_type = self.expr(old.type) if rtype is None else rtype
        return Call(old.op, args, old.kwargs, old.attrs, new_type, old.span)

    # ---- op rules --------------------------------------------------------------------------------

    def _load(self, old: Call) -> Call:
        """The N-D window kept; ``flatten=True`` makes the op's result the merged 2-D tile."""
        self.flat(old.type)  # refuses a window with no 2-D form before the op rule does
        call = op_registry.create_op_call("tile.load", self.expr(list(old.args)), {**old.kwargs, "flatten": True},
                                          old.span)
        return Call(call.op, call.args, call.kwargs, old.attrs, call.type, old.span)

    def _store(self, old: Call) -> Call:
        if old.args[0] in self.parts:
            return self.store_per_batch(old)
        args = self.expr(list(old.args))
        target = old.args[2].type
        if len(old.args) == 3 and isinstance(target, TensorType) and len(target.shape) > 2:
            args.append(MakeTuple(list(old.args[0].type.shape), old.span))
        return self.rebuilt(old, args, old.type)

    def _shaped(self, old: Call) -> Call:
        """create / full / ci / reshape: the shape operand merged like the result's shape."""
        args = self.expr(list(old.args))
        at = 1 if op_name(old) == "tile.reshape" or op_name(old) == "tile.ci" else 0
        rtype = self.flat(old.type)
        args[at] = MakeTuple(list(rtype.shape), old.args[at].span)
        return self.rebuilt(old, args, rtype)

    def rows(self, full: TileType, offsets: list[Expr], window: list[Expr], span: Span) -> Expr:
        """The merged row offset of ``window`` at ``offsets`` in ``full``, a block of whole merged rows."""
        lead = [_const(d) for d in full.shape[:-1]]
        sizes = [_const(w) for w in window[:-1]]
        # Unit axes, then one axis taken in part (any extent), then axes taken whole from 0.
        first = next((i for i, s in enumerate(sizes) if s != 1), len(lead))
        whole = all(s == d and _const(o) == 0 for s, d, o in zip(sizes[first + 1:], lead[first + 1:],
                                                                   offsets[first + 1:len(lead)]))
        if not whole:
            raise self.refuse(
                f"a {_dims(window)} window of a {_dims(full.shape)} tile is not a block of whole merged rows",
                span,
"take whole trailing axes (or one index of the leading ones), or use 2-D tiles")
        row: Expr = _index(0)
        for i, o in enumerate(offsets[:-1]):
            row = _add(row, _mul(o, math.prod(lead[i + 1:])))
        return row

    def _slice(self, old: Call) -> Call:
        """The window's merged rows; dropping unit axes other than the last leaves them as they are."""
        src = old.args[0].type
        shape, offset = _elements(old.args[1]), _elements(old.args[2])
        dropped = [_const(e) for e in _elements(old.args[4])] if len(old.args) > 4 else []
        if any(axis is None or axis % len(src.shape) == len(src.shape) - 1 for axis in dropped):
            raise self.refuse("tile.slice of a rank > 2 tile that drops its last axis has no 2-D form", old.span,
                              "keep the last axis, or write the kernel with 2-D tiles")
        row = self.rows(src, offset, shape, old.span)
        args = self.expr(list(old.args[:4]))
        rtype = self.flat(old.type)
        args[1] = MakeTuple(list(rtype.shape), old.args[1].span)
        args[2] = MakeTuple([self.expr(row), self.expr(offset[-1])], old.args[2].span)
        if len(args) > 3 and isinstance(old.args[3], MakeTuple) and old.args[3].elements:
            args[3] = MakeTuple(list(valid_shape(rtype)), old.args[3].span)
        elif len(args) > 3:
            args = args[:3]  # the empty stand-in for a valid shape before drop_dims
        return self.rebuilt(old, args, rtype)

    def _assemble(self, old: Call) -> Call:
        target, source = old.args[0].type, old.args[1].type
        offset = _elements(old.args[2])
        if not _is_nd(target) or len(source.shape) != len(target.shape):
            raise self.refuse("tile.assemble of tiles of different ranks has no 2-D form", old.span, 
                "assemble tiles of the target's rank"
            )
        row = self.rows(target, offset, list(source.shape), old.span)
        args = self.expr(list(old.args))
        args[2] = MakeTuple([self.expr(row), self.expr(offset[-1])], old.args[2].span)
        return self.rebuilt(old, args)

    def _element(self, old: Call) -> Call:
        """read / write: the element's N-D index folded into (row, column)."""
        t = old.args[0].type
        idx = _elements(old.args[1])
        lead = [_const(d) for d in t.shape[:-1]]
        row: Expr = _index(0)
        for i, e in enumerate(idx[:-1]):
            row = _add(row, _mul(e, math.prod(lead[i + 1:])))
        args = self.expr(list(old.args))
        args[1] = MakeTuple([self.expr(row), self.expr(idx[-1])], old.args[1].span)
        return self.rebuilt(old, args)

    def batch_dims(self, old: Call) -> tuple[list[int], int]:
        """The static batch axes of a ``tile.batch_matmul[_acc]`` result and its rows per batch."""
        operands = list(old.args[1:] if op_name(old) == "tile.batch_matmul_acc" else old.args)
        lhs, rhs = (a.type for a in operands)
        batch = [_const(d) for d in old.type.shape[:-2]]
        m, k, n = (_const(d) for d in (lhs.shape[-2], lhs.shape[-1], rhs.shape[-1]))
        if None in (*batch, m, k, n):
            raise self.refuse("tile.batch_matmul needs static shapes to expand per batch", old.span,
                "give the operands static physical shapes"
            )
        return batch, m

    def per_batch(self, old: Call) -> list[tuple[list[int], Expr]]:
        """The 2-D matmul of each batch (coordinates and result), for a result only stored or
        accumulated into (a ``batch_matmul_acc`` adds to each batch's part of its accumulator)."""
        batch, _ = self.batch_dims(old)
        acc = self.parts[old.args[0]] if op_name(old) == "tile.batch_matmul_acc" else None
        out = []
        for b in range(math.prod(batch)):
            coords = _unravel(b, batch)
            blocks = [self.operand_block(v, coords, old.span) for v in old.args[-2:]]
            if acc is None:
                mm = op_registry.create_op_call("tile.matmul", blocks, {}, old.span)
            else:
                mm = op_registry.create_op_call("tile.matmul_acc", [acc[b][1], *blocks], {}, old.span)
            out.append((coords, self.temp("bmm", mm)))
        return out

    def store_per_batch(self, old: Call) -> Expr:
        """A stored batch_matmul result: each batch's matrix stored at its batch offset (no Acc
        tile holds all batches, so the kernel stays cube-only)."""
        parts = self.parts[old.args[0]]
        offsets = _elements(old.args[1])
        target: Expr = self.expr(old.args[2])
        rows, cols = old.args[0].type.shape[-2:]
        call: Call | None = None
        for i, (coords, part) in enumerate(parts):
            if call is not None:
                target = self.temp("bmm_store", call)
            at = [_add(self.expr(o), _index(c)) for o, c in zip(offsets, coords)] + self.expr(offsets[len(coords):])
            window = MakeTuple([_index(1)] * len(coords) + [rows, cols], old.span)
            call = op_registry.create_op_call("tile.store", [part, MakeTuple(at, old.args[1].span), target, window],
                                              dict(old.kwargs), old.span)
        assert call is not None  # a batch_matmul has at least one batch
        return Call(call.op, call.args, call.kwargs, old.attrs, call.type, old.span)

    def _batch_matmul(self, old: Call) -> Expr:
        """One 2-D matmul per batch on row blocks of the merged operands, assembled into the result."""
        acc = op_name(old) == "tile.batch_matmul_acc"
        operands = list(old.args[1:] if acc else old.args)
        lhs, rhs = (a.type for a in operands)
        out = old.type
        batch, m = self.batch_dims(old)
        result: Expr = self.expr(old.args[0]) if acc else self.fresh_tile(old, out)
        for b in range(math.prod(batch)):
            coords = _unravel(b, batch)
            blocks = [self.operand_block(v, coords, old.span) for v in operands]
            if acc:
                prev = self.block_of(result, out, coords, old.span)
                mm = op_registry.create_op_call("tile.matmul_acc", [prev, *blocks], {}, old.span)
            else:
                mm = op_registry.create_op_call("tile.matmul", blocks, {}, old.span)
            part = self.temp("bmm", mm)
            row = _index(_flat_row(coords, batch) * m)
            asm = op_registry.create_op_call("tile.assemble", [result, part, MakeTuple([row, _index(0)])], {}, old.span)
            result = self.temp("bmm_out", asm)
        return result

    def _transpose(self, old: Call) -> Expr:
        """A transpose of the last two axes: each batch's matrix transposed into its block of rows."""
        src, out = old.args[0].type, old.type
        rank = len(src.shape)
        if {_const(a) % rank if _const(a) is not None else None for a in old.args[1:3]} != {rank - 2, rank - 1}:
            raise self.refuse(f"tile.transpose of a leading axis of a rank-{rank} tile mixes the merged rows",
                              old.span, "transpose the last two axes, or write the kernel with 2-D tiles")
        if not is_fully_valid(src):
            raise self.refuse(f"tile.transpose of a partially valid rank-{rank} tile has no 2-D form", old.span,
                              "transpose a fully valid tile, then slice the valid block")
        batch, (m, n) = [_const(d) for d in src.shape[:-2]], [_const(d) for d in src.shape[-2:]]
        value = self.expr(old.args[0])
        result: Expr = self.fresh_tile(old, out)
        asm: Call | None = None
        for b in range(math.prod(batch)):
            if asm is not None:
                result = self.temp("tr_out", asm)
            block = self.temp("tr_arg", op_registry.create_op_call(
                "tile.slice", [value, MakeTuple([_index(m), _index(n)]), MakeTuple([_index(b * m), _index(0)])], {},
                old.span))
            tmp = self.temp("tr_tmp", op_registry.create_op_call(
                "tile.create", [MakeTuple([_index(n), _index(m)])], {"dtype": src.dtype, **_space_kw(src)}, old.span))
            part = self.temp("tr", op_registry.create_op_call(
                "tile.transpose", [block, _index(0), _index(1), tmp], {}, old.span))
            asm = op_registry.create_op_call(
                "tile.assemble", [result, part, MakeTuple([_index(b * n), _index(0)])], {}, old.span)
        assert asm is not None  # a static batch has at least one matrix
        return Call(asm.op, asm.args, asm.kwargs, old.attrs, asm.type, old.span)

    def each_batch(self, old: Call) -> Expr:
        """A column op (reduction or broadcast along the second-to-last axis) on each batch's matrix,
        assembled into its block of rows; every rank > 2 operand has the result's batch axes."""
        out = old.type
        batch = [_const(d) for d in out.shape[:-2]]
        tiles = [a.type for a in old.args if isinstance(a.type, TileType) and len(a.type.shape) > 2]
        if not all(is_fully_valid(t) for t in [*tiles, out]):
            raise self.refuse(f"{old.op.name} of a partially valid rank > 2 tile has no per-batch form", old.span,
                              "fill the padding first (pl.tile.fillpad), or load a fully valid window")
        if None in batch or any([_const(d) for d in t.shape[:-2]] != batch for t in tiles):
            raise self.refuse(f"{old.op.name} on rank > 2 tiles needs operands with the result's static batch axes",
                              old.span, "broadcast the operands first, or use 2-D tiles")
        result: Expr = self.fresh_tile(old, out)
        asm: Call | None = None
        for b in range(math.prod(batch)):
            if asm is not None:
                result = self.temp("col_out", asm)
            coords = _unravel(b, batch)
            args = [self.block_of(self.expr(a), a.type, coords, old.span) if _is_nd(a.type) else self.expr(a)
                    for a in old.args]
            part = self.temp("col", op_registry.create_op_call(old.op.name, args, dict(old.kwargs), old.span))
            rows = _const(out.shape[-2])
            asm = op_registry.create_op_call(
                "tile.assemble", [result, part, MakeTuple([_index(b * rows), _index(0)])], {}, old.span)
        assert asm is not None  # a static batch has at least one matrix
        return Call(asm.op, asm.args, asm.kwargs, old.attrs, asm.type, old.span)

    def fresh_tile(self, old: Call, out: TileType) -> Expr:
        flat = self.flat(out)
        create = op_registry.create_op_call(
            "tile.create", [MakeTuple(list(flat.shape))], {"dtype": out.dtype, **_space_kw(out)}, old.span
        )
        return self.temp("bmm_init", create)

    def batched_views(self, func: Function) -> dict[Var, Var]:
        """Each rank > 2 ``tile.transpose_view`` result (mapped to its source). It becomes the
        transposed view of the merged source, ``[K, B * N]`` for a ``[B, N, K]`` source: its batches
        are column blocks, not merged rows, so only the operands of a batched matmul may read it."""
        views: dict[Var, Var] = {}
        reads: dict[Var, int] = {}
        for stmt in _statements(func.body):
            value = stmt.value if isinstance(stmt, AssignStmt) else None
            if not isinstance(value, Call):
                continue
            if op_name(value) == "tile.transpose_view" and _is_nd(value.type):
                views[stmt.var] = value.args[0]
            operands = _MATMUL_OPERANDS.get(op_name(value) or "")
            for arg in value.args[operands] if operands else ():
                reads[arg] = reads.get(arg, 0) + 1
        uses = use_counts(func.body)
        for var, source in views.items():
            if uses[var] != reads.get(var, 0):
                raise self.refuse(
                    f"the transposed view {var.name_hint} of a rank-{len(source.type.shape)} tile is read by "
                    "something other than a batched matmul operand; merged rows have no transposed 2-D form",
                    var.span, "use it only as an operand of pl.matmul (a_trans/b_trans), or transpose 2-D tiles")
        return views

    def operand_block(self, arg: Expr, coords: list[int], span: Span) -> Expr:
        """Batch ``coords`` of batched matmul operand ``arg`` as a 2-D tile: a row block of a merged
        operand, a column block of a transposed view (which the cube extracts without a copy)."""
        if arg not in self.views:
            return self.block_of(self.expr(arg), arg.type, coords, span)
        t = self.views[arg].type
        batch = [_const(d) for d in t.shape[:-2]]
        own = [c if d != 1 else 0 for c, d in zip(coords[len(coords) - len(batch):], batch)]
        rows, cols = arg.type.shape[-2], _const(arg.type.shape[-1])
        start = _index(_flat_row(own, batch) * cols)
        call = op_registry.create_op_call(
            "tile.slice", [self.view_values[arg], MakeTuple([rows, _index(cols)]), MakeTuple([_index(0), start])], {},
            span)
        return self.temp("bmm_arg", call)

    def block_of(self, value: Expr, t: TileType, coords: list[int], span: Span) -> Expr:
        """The 2-D matrix of batch ``coords`` (broadcast along size-1 batch axes) of a merged operand."""
        if len(t.shape) == 2:
            return value
        batch = [_const(d) for d in t.shape[:-2]]
        own = [c if d != 1 else 0 for c, d in zip(coords[len(coords) - len(batch):], batch)]
        rows, cols = _const(t.shape[-2]), t.shape[-1]
        start = _index(_flat_row(own, batch) * rows)
        call = op_registry.create_op_call(
            "tile.slice", [value, MakeTuple([_index(rows), cols]), MakeTuple([start, _index(0)])], {}, span
        )
        return self.temp("bmm_arg", call)

    def temp(self, base: str, call: Call) -> Expr:
        name = self.names.name(base, lambda n: f"{base}_{n}")
        var = Var(name, call.type, call.span)
        self.emit(AssignStmt(var, call, call.span))
        return var


# Where the two operands of each batched matmul op sit among its arguments.
_MATMUL_OPERANDS = {"tile.batch_matmul": slice(0, 2), "tile.batch_matmul_acc": slice(1, 3)}


def _stored_batch_matmuls(func: Function) -> set[Var]:
    """Results of ``tile.batch_matmul[_acc]`` read only as the whole tile of a ``tile.store`` into a
    fully valid tensor of the tile's rank, or as the accumulator of a ``tile.batch_matmul_acc`` whose
    result is one of them: those stay one Acc tile per batch, and their stores go batch by batch."""
    uses = use_counts(func.body)
    made: dict[Var, Expr | None] = {}  # per result: the accumulator it adds to
    reads: dict[Var, list[Var | None]] = {}  # per result: the accumulating result, or None for a store
    for stmt in _statements(func.body):
        value = stmt.value if isinstance(stmt, AssignStmt) else None
        if not isinstance(value, Call):
            continue
        name = op_name(value)
        if name in _MATMUL_OPERANDS and is_fully_valid(value.type):
            made[stmt.var] = value.args[0] if name == "tile.batch_matmul_acc" else None
        if name == "tile.batch_matmul_acc" and value.args[0] in made:
            reads.setdefault(value.args[0], []).append(stmt.var)
        elif name == "tile.store" and len(value.args) == 3 and value.args[0] in made:
            tile, target = value.args[0], value.args[2].type
            if isinstance(target, TensorType) and is_fully_valid(target) and len(target.shape) == len(tile.type.shape):
                reads.setdefault(tile, []).append(None)
    stored = {v for v in made if len(reads.get(v, [])) == uses[v] and uses[v] > 0}
    while True:
        dropped = {v for v in stored if any(r is not None and r not in stored for r in reads[v])
                   or (made[v] is not None and made[v] not in stored)}
        if not dropped:
            return stored
        stored -= dropped


def _statements(stmt: Stmt) -> list[Stmt]:
    """``stmt`` and every statement nested in it, in program order."""
    out = [stmt]
    for sub in sub_blocks(stmt):
        out.extend(_statements(sub))
    return out


def _space_kw(t: TileType) -> dict:
    return {} if t.memory_space is None else {"target_memory": t.memory_space}


def _unravel(flat: int, dims: list[int]) -> list[int]:
    out = []
    for d in reversed(dims):
        out.append(flat % d)
        flat //= d
    return out[::-1]


def _flat_row(coords: list[int], dims: list[int]) -> int:
    row = 0
    for c, d in zip(coords, dims):
        row = row * d + c
    return row


def _dims(dims: list[Expr]) -> str:
    return "[" + ", ".join(str(_const(d)) if _const(d) is not None else "?" for d in dims) + "]"


_RULES = {
    "tile.load": FlattenTileNdTo2D._load,
    "tile.store": FlattenTileNdTo2D._store,
    "tile.create": FlattenTileNdTo2D._shaped,
    "tile.full": FlattenTileNdTo2D._shaped,
    "tile.ci": FlattenTileNdTo2D._shaped,
    "tile.reshape": FlattenTileNdTo2D._shaped,
    "tile.slice": FlattenTileNdTo2D._slice,
    "tile.assemble": FlattenTileNdTo2D._assemble,
    "tile.read": FlattenTileNdTo2D._element,
    "tile.write": FlattenTileNdTo2D._element,
    "tile.transpose": FlattenTileNdTo2D._transpose,
    "tile.batch_matmul": FlattenTileNdTo2D._batch_matmul,
    "tile.batch_matmul_acc": FlattenTileNdTo2D._batch_matmul,
}
