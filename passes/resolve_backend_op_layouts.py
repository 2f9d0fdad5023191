"""ResolveBackendOpLayouts: operands of ops the vector unit runs only on row-major tiles are made
row-major first, and the results get the layout they had back (docs/passes.md#resolvebackendoplayouts).

The row-major-only ops are those whose pto-isa implementation static_asserts ``isRowMajor`` on its
operands (include/pto/npu/a2a3: TAdd, TSub, TMul, TDiv, TMax, TMin, TFmod(S), TRem(S), TAnd, TOr,
TXor, TShl, TShr, TPart*, TCmps, TExpandS, TPrelu, TSel(s), TSort32, TMrgSort and the TUnaryOp family), and those whose
CPU model (include/pto/cpu, what a2a3sim runs) does: TAddS, TMulS, TDivS, TMaxS, TLRelu
(TBinSOps.hpp), the TColExpand* family (TColExpandOp.hpp), and, for their tile operand only, the
TRowExpand* family (its destination, TRowExpandOp.hpp) and TRowArgMax/Min (its source, TReduceIdx.hpp).
"""

from __future__ import annotations

from pypto.analysis import function_index, op_name
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

_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "fmod", "rem", "and", "or", "xor", "shl", "shr")
_UNARY = ("exp", "log", "sqrt", "rsqrt", "recip", "abs", "neg", "relu", "not")
ROW_MAJOR_ONLY = frozenset(
    {f"tile.{n}" for n in (*_BINARY, *_UNARY)}
    | {f"tile.part_{n}" for n in ("add", "mul", "max", "min")}
    | {"tile.fmods", "tile.rems", "tile.xors", "tile.cmps", "tile.expands", "tile.prelu", "tile.sel", "tile.sels"}
    | {"tile.sort32", "tile.mrgsort_format1"}
    | {f"tile.{n}" for n in ("adds", "muls", "divs", "maximums", "lrelu")}
    | {f"tile.col_expand_{n}" for n in ("add", "sub", "mul", "div", "max", "min", "expdif")}
    | {f"tile.row_expand_{n}" for n in ("add", "sub", "mul", "div", "max", "min", "expdif")}
    | {"tile.row_argmax", "tile.row_argmin"}
)
# Ops of ROW_MAJOR_ONLY of which only these operands (and so the result) must be row-major.
_ROW_MAJOR_OPERANDS = {f"tile.row_{n}": frozenset({"tile"})
                       for n in ("expand_add", "expand_sub", "expand_mul", "expand_div", "expand_max", "expand_min",
                                 "expand_expdif", "argmax", "argmin")}


def _converted(call: Call) -> list[bool]:
    """Per argument of a ROW_MAJOR_ONLY call: whether it must be made row-major (it is col-major)."""
    names = _ROW_MAJOR_OPERANDS.get(op_name(call))
    params = op_registry.get_entry(op_name(call)).params
    return [_col_major(a.type) and (names is None or (i < len(params) and params[i].name in names))
            for i, a in enumerate(call.args)]


def _col_major(t: object) -> bool:
    return (
        isinstance(t, TileType)
        and t.memory_space is MemorySpace.Vec
        and t.get_effective_tile_view().blayout is TileLayout.col_major
    )


def _column(t: TileType) -> bool:
    """An ``[N, 1]`` tile: its column is contiguous, so the ``[1, N]`` reshape is the same bytes."""
    return len(t.shape) == 2 and isinstance(t.shape[1], ConstInt) and t.shape[1].value == 1


def _same_shape(a: TileType, b: object) -> bool:
    return isinstance(b, TileType) and len(a.shape) == len(b.shape) and all(map(dim_equal, a.shape, b.shape))


_EXPAND_FORM = {f"tile.{n}": f"row_expand_{f}" for n, f in
                (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("div", "div"), ("maximum", "max"), ("minimum", "min"))}


class ResolveBackendOpLayouts(RewritePass):
    """Give row-major-only vector ops row-major operands, and restore their results' layout.

    before:  m: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(t, tmp)      # col-major
             e: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.exp(m)
    after:   m: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(t, tmp)
             m_row: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(m, [1, 64])
             e_row: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(m_row)
             e: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(e_row, [64, 1])

    A col-major ``[N, 1]`` operand is reshaped to ``[1, N]`` (no data moves); any other col-major
    operand is moved into a row-major copy (``tile.move(..., blayout=row_major,
    slayout=none_box)``). A result whose layout changed is reshaped (or moved) back, so its users
    see the type they saw before.
    """

    source = placed

    def applies(self, func: Function) -> bool:
        # Only a row-major-only op with a col-major operand is rewritten.
        return is_incore_type(func.func_type) and any(
            op_name(call) in ROW_MAJOR_ONLY and any(_converted(call)) for call in function_index(func).of(Call))

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        call = node.value
        if not (isinstance(call, Call) and op_name(call) in ROW_MAJOR_ONLY):
            return self.children(node)
        converted = _converted(call)
        if not any(converted):
            return self.children(node)
        for a, convert in zip(call.args, converted):
            if convert and _column(a.type) and not _same_shape(a.type, call.type):
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
