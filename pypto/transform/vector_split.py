"""Halve the vector side of a ``pl.split(MODE)`` kernel (docs/passes.md#expandmixedkernel).

Under UP_DOWN (LEFT_RIGHT) each of the two AIV lanes works on its half of the rows (columns): a
tile popped from the cube arrives halved, a load or a fresh tile as tall (wide) as the transferred
tiles is halved, and loads and stores address the lane's half through ``tile.get_subblock_idx()``.
Every other op is rebuilt on its halved operands and must give a halved result: an op that folds
the split axis (a column reduction under UP_DOWN) is an error, since each lane sees half of it.
"""

from __future__ import annotations

from pypto.analysis import op_name
from pypto.ir import op_registry
from pypto.ir.enums import SplitMode
from pypto.ir.expr import Call, ConstInt, Expr, IterArg, MakeTuple, Var
from pypto.ir.node import replace
from pypto.ir.ops.common import tile_type
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, ReturnStmt, SeqStmts, Stmt, WhileStmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.types import TileType

from .errors import PassError

# Ops whose shape arguments (index 2 of a load, index 0 of a create/full) are halved with the tile.
_SHAPED = {"tile.load": (1, 2), "tile.create": (None, 0), "tile.full": (None, 0)}
_PIPE_ENDS = ("tile.tpop_from_aic", "tile.tpush_to_aic", "system.tfree_to_aic")


class VectorHalver:
    """Rewrites an AIV body so that each lane computes its half (see the module docstring)."""

    def __init__(self, pass_name: str, mode: SplitMode, extent: int, lane: Var) -> None:
        self.pass_name = pass_name
        self.axis = -2 if mode is SplitMode.UP_DOWN else -1
        self.extent = extent  # the split-axis extent of the tiles crossing the pipe
        self.half = extent // 2
        self.lane = lane
        self.map: dict[Var, Expr] = {}
        self.halved: set[Var] = set()

    def block(self, body: Stmt) -> Stmt:
        out = [self.stmt(s) for s in flatten_to_stmts(body)]
        return out[0] if len(out) == 1 else SeqStmts(out, body.span)

    def stmt(self, s: Stmt) -> Stmt:
        if isinstance(s, AssignStmt):
            value = self.call(s.value, s.var.type) if isinstance(s.value, Call) else self.expr(s.value)
            var = self.retyped(s.var, self._type_of(s, value))
            return AssignStmt(var, value, s.span)
        if isinstance(s, EvalStmt):
            return EvalStmt(self.call(s.expr, None) if isinstance(s.expr, Call) else self.expr(s.expr), s.span)
        if isinstance(s, (YieldStmt, ReturnStmt)):
            return replace(s, value=[self.expr(v) for v in s.value])
        if isinstance(s, (ForStmt, WhileStmt)):
            iter_args = [self.carry(ia) for ia in s.iter_args]
            body = self.block(s.body)
            rvs = [self.retyped(rv, ia.type) for rv, ia in zip(s.return_vars, iter_args)]
            extra = {"condition": self.expr(s.condition)} if isinstance(s, WhileStmt) else {}
            return replace(s, iter_args=iter_args, body=body, return_vars=rvs, **extra)
        if isinstance(s, IfStmt):
            then = self.block(s.then_body)
            other = self.block(s.else_body) if s.else_body is not None else None
            last = flatten_to_stmts(then)[-1]
            types = [v.type for v in last.value] if isinstance(last, YieldStmt) else []
            rvs = [self.retyped(rv, t) for rv, t in zip(s.return_vars, types)]
            return replace(s, condition=self.expr(s.condition), then_body=then, else_body=other, return_vars=rvs)
        return s

    def carry(self, ia: IterArg) -> IterArg:
        init = self.expr(ia.initValue)
        new = IterArg(ia.name_hint, init.type if init in self.halved else ia.type, init, ia.span)
        self.map[ia] = new
        if init in self.halved:
            self.halved.add(new)
        return new

    def retyped(self, var: Var, t: object) -> Var:
        """``var``, or a new variable of type ``t`` when the rewrite changed its type."""
        if not isinstance(t, TileType) or t == var.type:
            return var
        new = Var(var.name_hint, t, var.span)
        self.map[var] = new
        if self._is_halved(t, var.type):
            self.halved.add(new)
        return new

    def expr(self, e: Expr) -> Expr:
        if isinstance(e, Var):
            return self.map.get(e, e)
        if isinstance(e, MakeTuple):
            return MakeTuple([self.expr(x) for x in e.elements], e.span)
        return e

    def _type_of(self, s: AssignStmt, value: Expr) -> object:
        if op_name(value) == "tile.tpop_from_aic":
            valid = s.var.type.get_effective_tile_view().valid_shape
            if valid and not self._full(MakeTuple(list(valid))):
                raise self._partial(value)
            return self.halve_type(s.var.type)
        return value.type if isinstance(value.type, TileType) else s.var.type

    def halve_type(self, t: TileType) -> TileType:
        """``t`` with its split axis halved; a valid extent on the other axis (a run-time row count under
        LEFT_RIGHT) is kept, since each lane holds all of it."""
        shape = list(t.shape)
        shape[self.axis] = ConstInt(self.half, shape[self.axis].type.dtype, shape[self.axis].span)
        valid = list(t.get_effective_tile_view().valid_shape or [])
        if valid:
            valid[self.axis] = shape[self.axis]
        return tile_type(shape, t.dtype, valid or None, space=t.memory_space)

    def call(self, call: Call, declared: object) -> Expr:
        name = op_name(call)
        args = [self.expr(a) for a in call.args]
        if name in _PIPE_ENDS or name is None:
            return replace(call, args=args)
        halved_in = any(isinstance(a, Var) and a in self.halved for a in args)
        if name in _SHAPED:
            offsets, shapes = _SHAPED[name]
            if self._full(args[shapes]):
                args[shapes] = self._halve_dims(args[shapes])
                if name == "tile.load":
                    args[offsets] = self._localise(args[offsets])
                    if len(args) > 3 and isinstance(args[3], MakeTuple) and args[3].elements:
                        if not self._full(args[3]):
                            raise self._partial(call)
                        args[3] = self._halve_dims(args[3])
        elif name == "tile.store" and halved_in:
            args[1] = self._localise(args[1])
        new = op_registry.create_op_call(name, args, dict(call.kwargs), call.span)
        if halved_in and name != "tile.store" and not self._is_halved(new.type, declared):
            raise PassError(
                self.pass_name,
                f"{name} folds the split axis: under pl.split each AIV lane holds half of it",
                call.span,
                "reduce along the other axis, or split the other way (UP_DOWN for row reductions, LEFT_RIGHT for "
                "column reductions)",
            )
        return new

    def _partial(self, call: Call) -> PassError:
        # Each lane's part of a partly valid tile would need its own valid extent, computed per lane.
        return PassError(
            self.pass_name,
            f"{op_name(call)} under pl.split has a partly valid extent along the split axis: each AIV lane "
            "takes half of the tile's rows (columns), which must all be valid",
            call.span,
            "make the tile whole along the split axis, split the other way, or drop pl.split",
        )

    def _full(self, dims: Expr) -> bool:
        d = dims.elements[self.axis] if isinstance(dims, MakeTuple) else None
        return isinstance(d, ConstInt) and d.value == self.extent

    def _halve_dims(self, dims: Expr) -> Expr:
        items = list(dims.elements)
        d = items[self.axis]
        items[self.axis] = ConstInt(self.half, d.type.dtype, d.span) if isinstance(d, ConstInt) else d
        return MakeTuple(items, dims.span)

    def _localise(self, offsets: Expr) -> Expr:
        items = list(offsets.elements)
        base = items[self.axis]
        shift = self.lane * self.half
        items[self.axis] = shift if isinstance(base, ConstInt) and base.value == 0 else base + shift
        return MakeTuple(items, offsets.span)

    def _is_halved(self, t: object, declared: object) -> bool:
        if not isinstance(t, TileType) or not isinstance(declared, TileType):
            return False
        new, old = t.shape[self.axis], declared.shape[self.axis]
        return isinstance(new, ConstInt) and isinstance(old, ConstInt) and new.value * 2 == old.value


def halve(pass_name: str, body: Stmt, mode: SplitMode, extent: int, lane: Var) -> Stmt:
    """``body`` (an AIV kernel's) rewritten so each of the two lanes computes its half."""
    return VectorHalver(pass_name, mode, extent, lane).block(body)

