"""ResolveBackendOpLayouts: operands of vector ops pto-isa runs only on row-major tiles are made
row-major first, and the results get the layout they had back (docs/passes.md#resolvebackendoplayouts).

Which operands each op needs row-major is an op fact (:mod:`pypto.analysis.layouts`, read from
pto-isa's static_asserts in its a2a3 and CPU implementations).
"""

from __future__ import annotations

from pypto.analysis import function_index, op_name
from pypto.analysis.layouts import col_major, misplaced_operands
from pypto.languages.invariants import OperandLayoutsResolved
from pypto.languages.placed import placed

from pypto.ir import op_registry
from pypto.ir.enums import MemorySpace, TileLayout, is_incore_type
from pypto.ir.expr import Call, ConstInt, Expr, MakeTuple, Var
from pypto.ir.function import Function
from pypto.ir.op_registry import format_dims
from pypto.ir.ops.common import dim_equal
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt
from pypto.ir.types import TileType

from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import rebuild


def _column(t: TileType) -> bool:
    """An ``[N, 1]`` tile: its column is contiguous, so the ``[1, N]`` reshape is the same bytes."""
    return len(t.shape) == 2 and isinstance(t.shape[1], ConstInt) and t.shape[1].value == 1


def _same_shape(a: TileType, b: object) -> bool:
    return isinstance(b, TileType) and len(a.shape) == len(b.shape) and all(map(dim_equal, a.shape, b.shape))


_EXPAND_FORM = {f"tile.{n}": f"row_expand_{f}" for n, f in
                (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("div", "div"), ("maximum", "max"), ("minimum", "min"))}


class ResolveBackendOpLayouts(RewritePass):
    """Give vector ops the row-major operands pto-isa needs, and restore their results' layout.

    before:  m: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(t, tmp)      # col-major
             e: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.exp(m)
    after:   m: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(t, tmp)
             m_row: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(m, [1, 64])
             e_row: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(m_row)
             e: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(e_row, [64, 1])

    A col-major ``[N, 1]`` operand of a per-element op is reshaped to ``[1, N]`` (no data moves);
    any other col-major operand is moved into a row-major copy (``tile.move(..., blayout=row_major,
    slayout=none_box)``). A column operand of an op that is not per element has no row-major form:
    an error. A result whose layout changed is reshaped (or moved) back, so its users see the type
    they saw before.
    """

    source = placed
    produces = frozenset({OperandLayoutsResolved})

    def applies(self, func: Function) -> bool:
        # Only a row-major-only op with a col-major operand is rewritten: none without a col-major tile.
        return (
            is_incore_type(func.func_type)
            and any(map(col_major, (index := function_index(func)).types))
            and any(misplaced_operands(call) is not None for call in index.of(Call))
        )

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        call = node.value
        found = misplaced_operands(call) if isinstance(call, Call) else None
        if found is None:
            return self.children(node)
        need, converted = found
        for a, convert in zip(call.args, converted):
            if not (convert and _column(a.type)):
                continue
            if not need.per_element:
                raise self.column_error(call, a.type, node.span)
            if not _same_shape(a.type, call.type):
                raise self.broadcast_error(call, a.type, node.span)
        args = [self.row_major(a, call.span) if convert else a
                for a, convert in zip(self.expr(list(call.args)), converted)]
        deduced = op_registry.create_op_call(op_name(call), args, dict(call.kwargs), call.span)
        new = Call(call.op, args, deduced.kwargs, call.attrs, deduced.type, call.span)
        rtype = new.type
        old_type = node.var.type
        if not isinstance(old_type, TileType) or rtype == old_type:
            return rebuild(node, value=new)
        tmp = self.temp(f"{node.var.name_hint}_row", new)
        self.env[("row_major", node.var)] = tmp  # a later row-major-only user reads it directly
        return AssignStmt(node.var, self.restore(tmp, old_type, call.span), node.span)

    def broadcast_error(self, call: Call, column: TileType, span: Span) -> Exception:
        """A column broadcast by a row-major-only op: its ``[1, N]`` reshape would broadcast the other way."""
        name = op_name(call)
        form = _EXPAND_FORM.get(name)
        instead = f"pl.{form}(tile, column)" if form else "pl.row_expand(target, column) and then the op"
        return self.error(
            f"{name} broadcasts the column {format_dims(column.shape)} over {format_dims(call.type.shape)}, but "
            "the vector unit runs it only on operands of one shape",
            span,
            hint=f"broadcast the column with {instead}",
        )

    def column_error(self, call: Call, column: TileType, span: Span) -> Exception:
        """A column operand of an op that is not per element: no row-major tile holds a column."""
        return self.error(
            f"{op_name(call)} runs only on row-major tiles, and its operand {format_dims(column.shape)} is a "
            "column, which is col-major (a row-major row must fill whole 32-byte blocks)",
            span,
            hint="compute on the column's [1, N] reshape (pl.reshape), where a row reduction of the row "
            "stands for a column reduction of the column, or on a wider tile",
        )

    def row_major(self, value: Expr, span: Span) -> Expr:
        """``value`` as a row-major tile: a ``[1, N]`` reshape of a column, else a row-major move."""
        key = ("row_major", value)
        found = self.env.get(key)
        if found is not None:
            return found
        t = value.type
        if _column(t):
            call = op_registry.create_op_call("tile.reshape", [value, MakeTuple([t.shape[1], t.shape[0]])], {}, span)
        else:
            call = op_registry.create_op_call(
                "tile.move",
                [value],
                {"target_memory": MemorySpace.Vec, "blayout": TileLayout.row_major, "slayout": TileLayout.none_box},
                span,
            )
        base = f"{value.name_hint}_row" if isinstance(value, Var) else "tile_row"
        var = self.temp(base, call)
        self.env[key] = var
        return var

    def restore(self, value: Var, old: TileType, span: Span) -> Call:
        """``value`` back in the layout of ``old`` (a reshape for a column, else a move)."""
        if _column(old):
            return op_registry.create_op_call("tile.reshape", [value, MakeTuple(list(old.shape))], {}, span)
        view = old.get_effective_tile_view()
        kwargs = {"target_memory": MemorySpace.Vec, "blayout": view.blayout, "slayout": view.slayout}
        return op_registry.create_op_call("tile.move", [value], kwargs, span)

    def temp(self, base: str, call: Call) -> Var:
        var = Var(self.names.name(base, lambda n: base if n == 0 else f"{base}_{n}"), call.type, call.span)
        self.emit(AssignStmt(var, call, call.span))
        return var
