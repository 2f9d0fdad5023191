"""CanonicalizeTileSlice: a ``tile.slice`` that cannot be a zero-copy subview becomes a
``tile.extract``, and a strided one read where a strided tile cannot be is copied
(docs/passes.md#canonicalizetileslice).

A subview (pto-isa TSUBVIEW) stays in its source's buffer: same memory space, same layout. A slice
of a Mat tile that only feeds cube operands (Left / Right, as the op registry's input constraints
say) cannot be one: the cube reads L0, so the window has to be copied there, which is what
TEXTRACT does (Mat -> Left/Right on a2a3, docs/isa/TEXTRACT.md). Slices on the vector side, and
slices with a narrowed valid region, dropped axes or a pad value, stay subviews.

A vector slice narrower than its source (``t[:, 0:64]`` of a 16 x 128 tile) keeps the source's row
pitch (its type's ``stride``): only the ops of :data:`~pypto.analysis.strided.STRIDED_READERS` read
such a tile in place. Any other read of it (another op, a yield, a loop init, a return) reads a
compact copy (``tile.move``) made right after the slice. The pass establishes TileSlicesPitched.
"""

from __future__ import annotations

from pypto.languages.invariants import TileOps2D, TileSlicesPitched
from pypto.languages.tiled import tiled

from pypto.analysis import expr_vars, op_name, stmt_exprs, walk
from pypto.analysis.memory_spaces import call_statements, operand_spaces
from pypto.analysis.strided import STRIDED_READERS
from pypto.ir import op_registry
from pypto.ir.enums import MemorySpace, is_incore_type
from pypto.ir.expr import Call, MakeTuple, Var
from pypto.ir.function import Function
from pypto.ir.stmt import AssignStmt, EvalStmt, Stmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.types import TileType, is_strided, pitched

from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import calls_any, rebuild

_CUBE_INPUTS = (MemorySpace.Left, MemorySpace.Right)


def cube_operands(func: Function) -> dict[Var, MemorySpace]:
    """Variables whose every use is a cube operand constrained to one L0 space, with that space."""
    wanted: dict[Var, set[MemorySpace | None]] = {}
    for _, call in call_statements(flatten_to_stmts(func.body)):
        bound = {id(a): allowed for a, allowed in operand_spaces(call)}
        for arg in call.args:
            if isinstance(arg, Var):
                allowed = bound.get(id(arg)) or []
                first = allowed[0] if allowed and allowed[0] in _CUBE_INPUTS else None
                wanted.setdefault(arg, set()).add(first)
    return {v: next(iter(s)) for v, s in wanted.items() if len(s) == 1 and None not in s}


class CanonicalizeTileSlice(RewritePass):
    """Turn slices of Mat tiles that feed only cube operands into extracts into Left / Right; type
    narrower vector slices with their source's pitch, copying those read where a strided tile
    cannot be.

    before:  a_k: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.slice(a, [64, 64], [0, k])
             c = pl.tile.matmul(a_k, b_k)
    after:   a_k: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.extract(a, 0, k, [64, 64],
                                                                          target_memory=pl.Mem.Left)
             c = pl.tile.matmul(a_k, b_k)

    before:  hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
             e = pl.tile.exp(hi);  s = pl.tile.add(hi, hi)
    after:   hi_view: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(stride=[128, 1])] = pl.tile.slice(...)
             hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(hi_view, target_memory=pl.Mem.Vec)
             e = pl.tile.exp(hi);  s = pl.tile.add(hi, hi)     # (without the add: e = exp(hi_view), no move)

    A subscript picking one column (``t[:, j]``, a ``[1, N]`` row of elements a pitch apart) is refused.
    """

    source = tiled
    requires = frozenset({TileOps2D})
    produces = frozenset({TileSlicesPitched})

    def applies(self, func: Function) -> bool:
        return is_incore_type(func.func_type) and calls_any(func, ("tile.slice",))

    def function(self, func: Function) -> Function:
        self.cube = cube_operands(func)
        self.copied = copied_views(func)
        return super().function(func)

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        call = node.value
        if not (isinstance(call, Call) and op_name(call) == "tile.slice"):
            return self.children(node)
        self._check_picked_column(call)
        target = self.cube.get(node.var)
        if target is not None and _extractable(call):
            row, col = self.expr(list(call.args[2].elements))
            extract = op_registry.create_op_call(
                "tile.extract", [self.expr(call.args[0]), row, col, call.args[1]], {"target_memory": target}, call.span
            )
            var = Var(node.var.name_hint, extract.type, node.var.span)
            self.bind(node.var, var)
            return rebuild(node, var=var, value=extract)
        return self._view(node)

    def _view(self, node: AssignStmt) -> Result:
        """The slice typed as a view of its source's buffer (its pitch); when it is read where a
        strided tile cannot be: ``v_view = slice(...)``, ``v = tile.move(v_view)`` (compact)."""
        old, value = node.var, self.expr(node.value)
        vtype = pitched(value.args[0].type, old.type)
        if not is_strided(vtype):
            return rebuild(node, value=value)
        if old not in self.copied:
            var = Var(old.name_hint, vtype, old.span)
            self.bind(old, var)
            return rebuild(node, var=var, value=rebuild(value, type=vtype))
        view = Var(f"{old.name_hint}_view", vtype, old.span)
        self.emit(AssignStmt(view, rebuild(value, type=vtype), node.span))
        space = old.type.memory_space or MemorySpace.Vec
        move = op_registry.create_op_call("tile.move", [view], {"target_memory": space}, node.span)
        return rebuild(node, value=rebuild(move, type=old.type))

    def _check_picked_column(self, call: Call) -> None:
        """Refuse ``t[:, j]``: its ``[1, N]`` row holds elements a row pitch apart in ``t``'s buffer,
        a layout no tile view (nor a reshape of one) has."""
        src = call.args[0].type
        drop = call.args[4] if len(call.args) > 4 else None
        shape = call.args[1]
        if not (isinstance(drop, MakeTuple) and isinstance(shape, MakeTuple) and len(src.shape) == 2):
            return
        dropped = {getattr(e, "value", None) for e in drop.elements}
        rows = getattr(shape.elements[0], "value", None)
        if dropped & {1, -1} and rows != 1:
            raise self.error(
                f"a tile subscript that picks one column of a tile gives a [1, {rows}] row whose "
                "elements are a row pitch apart in the source tile; no tile view has that layout",
                call.span,
                hint="keep the column as a [N, 1] tile (t[:, j:j + 1]), or slice the tensor before loading it",
            )


def _extractable(call: Call) -> bool:
    """A plain static 2-D window of a Mat tile (no valid shape, dropped axes or pad value)."""
    src, shape, offset = call.args[0].type, call.args[1], call.args[2]
    plain = len(call.args) == 3 or (isinstance(call.args[3], MakeTuple) and not call.args[3].elements)
    return (
        isinstance(src, TileType)
        and src.memory_space is MemorySpace.Mat
        and len(src.shape) == 2
        and isinstance(shape, MakeTuple)
        and isinstance(offset, MakeTuple)
        and len(call.args) <= 4
        and plain
        and "pad_value" not in call.kwargs
    )


def copied_views(func: Function) -> set[Var]:
    """Strided slices (see :data:`STRIDED_READERS`) read somewhere other than by such an op."""
    typed: dict[Var, TileType] = {}  # each slice's type as a view (slices of slices follow their source)
    for stmt in walk(func.body):
        if isinstance(stmt, AssignStmt) and op_name(stmt.value) == "tile.slice":
            src = stmt.value.args[0]
            typed[stmt.var] = pitched(typed.get(src, src.type), stmt.var.type)
    strided = {v for v, t in typed.items() if is_strided(t)}
    if not strided:
        return set()
    copied: set[Var] = set()
    for stmt in walk(func.body):
        if not isinstance(stmt, Stmt):
            continue
        value = stmt.value if isinstance(stmt, AssignStmt) else stmt.expr if isinstance(stmt, EvalStmt) else None
        if isinstance(value, Call) and op_name(value) in STRIDED_READERS:
            continue
        for e in stmt_exprs(stmt):
            copied.update(v for v in expr_vars(e) if v in strided)
    return copied
