"""SplitVectorKernel: an unsplit vector kernel launched on both AIV lanes does its work on lane 0
and only replays the pipe traffic on lane 1 (docs/passes.md#splitvectorkernel).

On a2a3 a mixed task launches its AIV kernel on both vector lanes of the cluster
(``dual_aiv_dispatch``, set by ExpandMixedKernel), and the cube's pipe handshakes count both: every
unsplit cube->vector tile is popped and freed by each lane, and each lane takes part in every
vector->cube push (pto-isa's TPUSH sends lane 0's tile and drops lane 1's). So lane 1 runs the same
sequence of pops, frees and pushes in the same loops and branches, and nothing else: it computes no
tile, writes no tensor (a second store of the same result would race with lane 0's, and a
read-modify-write would apply twice) and pushes an empty stand-in (valid shape 0 x 0) of each
tile lane 0 sends. It does not read its popped tiles either: pto-isa's CPU TPOP fills lane 1's copy
of an unsplit tile with zeros. A loop bound or branch condition around pipe ops that lane 1 cannot
know this way is an error. The pipe set-up stays first, on both lanes. A kernel that reads its lane itself
(``pl.tile.get_subblock_idx()``), or splits its tiles between the lanes, is left as written.
"""

from __future__ import annotations

from collections.abc import Iterable

from pypto.analysis import expr_vars, op_name
from pypto.analysis.defuse import stmt_reads
from pypto.analysis.index import walk
from pypto.analysis.lanes import LANE_INDEX, LANE_PIPE_OPS, needs_lane_replay
from pypto.languages.invariants import ReturnParamsExplicit, VectorKernelSplit
from pypto.languages.placed import placed

from pypto.ir import op_registry
from pypto.ir.datatype import DataType
from pypto.ir.expr import Call, ConstInt, Eq, Expr, IterArg, MakeTuple, Var
from pypto.ir.function import Function, Program
from pypto.ir.node import replace
from pypto.ir.ops.common import index
from pypto.ir.ops.cross_core_ops import PIPE_SETUPS
from pypto.ir.ops.tile_view_ops import view_of
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, ReturnStmt, Stmt, WhileStmt, YieldStmt
from pypto.ir.transforms import deep_clone, flatten_to_stmts, substitute_expr, substitute_stmt
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TileType

from pypto.transform.base import FunctionPass
from pypto.transform.errors import PassError
from pypto.transform.util import block_of

_SETUP = ("system.reserve_buffer", "system.import_peer_buffer", *PIPE_SETUPS)
_KEPT = ("tile.tpop_from_aic", "system.tfree_to_aic")


class SplitVectorKernel(FunctionPass):
    """Wrap the body of an unsplit two-lane vector kernel with pipes in ``if lane == 0``; lane 1
    replays its pipe traffic.

    before:  def k_aiv(self, bias, c: Out):            after:  def k_aiv(self, bias, c: Out):
                 buf = pl.reserve_buffer(...)                      buf = pl.reserve_buffer(...)
                 pl.aiv_initialize_pipe(buf, ...)                  pl.aiv_initialize_pipe(buf, ...)
                 x = pl.tpop_from_aic(split=0)                     lane = pl.tile.get_subblock_idx()
                 y = pl.add(x, pl.load(bias, ...))                 if lane == 0:
                 pl.tfree_to_aic(x)                                    x = pl.tpop_from_aic(split=0)
                 c1 = pl.store(y, [0, 0], c)                           ... (unchanged)
                 return c                                          else:
                                                                       x = pl.tpop_from_aic(split=0)
                                                                       pl.tfree_to_aic(x)
                                                                   return c
    """

    source = placed
    requires = frozenset({ReturnParamsExplicit})
    produces = frozenset({VectorKernelSplit})

    def run_function(self, func: Function, program: Program) -> Function:
        if not needs_lane_replay(func):
            return func
        stmts = flatten_to_stmts(func.body)
        start = 0
        while start < len(stmts) and _is_setup(stmts[start]):
            start += 1
        end = len(stmts) - 1 if stmts and isinstance(stmts[-1], ReturnStmt) else len(stmts)
        work = stmts[start:end]
        span = func.body.span
        lane = Var("lane", ScalarType(DataType.INDEX), span)
        replay = _Replay(self.name).block(deep_clone(block_of(work, span)))
        branch = IfStmt(Eq(lane, ConstInt(0, DataType.INDEX, span), DataType.BOOL, span), block_of(work, span),
                        block_of(replay, span), [], span)
        get_lane = AssignStmt(lane, op_registry.create_op_call(LANE_INDEX, [], {}, span), span)
        body = block_of([*stmts[:start], get_lane, branch, *stmts[end:]], span)
        return replace(func, body=body)


def _is_setup(s: Stmt) -> bool:
    value = s.value if isinstance(s, AssignStmt) else s.expr if isinstance(s, EvalStmt) else None
    return isinstance(value, Call) and op_name(value) in _SETUP


class _Replay:
    """Lane 1's statements: the pipe ops with the loops, branches and scalars around them."""

    def __init__(self, pass_name: str) -> None:
        self.pass_name = pass_name
        self.map: dict[Var, Expr] = {}  # a store's result is the tensor it writes
        self.dropped: set[Var] = set()  # tiles lane 1 does not compute, and scalars read from them
        self.popped: set[Var] = set()  # lane 1's popped tiles: pto-isa gives it zeros, not the data

    def block(self, body: Stmt) -> list[Stmt]:
        return [out for s in flatten_to_stmts(body) for out in self.stmt(s)]

    def stmt(self, s: Stmt) -> list[Stmt]:
        if isinstance(s, AssignStmt):
            return self.assign(s)
        if isinstance(s, EvalStmt):
            return self.evaluate(s)
        if isinstance(s, (ForStmt, WhileStmt, IfStmt)) and not _has_pipe_ops(s):
            self.dropped.update(s.return_vars)  # nothing for lane 1 to do in it
            return []
        if isinstance(s, (ForStmt, WhileStmt)):
            return [self.loop(s)]
        if isinstance(s, IfStmt):
            return [self.branch(s)]
        if isinstance(s, YieldStmt):
            return [s]  # filtered by the loop or branch holding it
        return [self.sub(s)]

    def sub(self, s: Stmt) -> Stmt:
        """``s`` reading the replay's values."""
        self.need(stmt_reads(s), s)
        return substitute_stmt(s, self.map) if self.map else s

    def sub_expr(self, e: Expr, s: Stmt) -> Expr:
        self.need(expr_vars(e), s)
        return substitute_expr(e, self.map)

    def unknown(self) -> set[Var]:
        """The values lane 1 does not have: what it does not compute, and the data of its pops."""
        return self.dropped | self.popped

    def need(self, reads: Iterable[Var], s: Stmt) -> None:
        """A value lane 1 needs but cannot know (it comes from a tile it does not compute) is an error."""
        used = sorted(self.unknown().intersection(reads), key=lambda v: v.name_hint)
        if used:
            raise PassError(self.pass_name, f"the second vector lane replays this kernel's pipe traffic without its "
                            f"tile work, but this statement needs '{used[0].name_hint}', which comes from that work",
                            s.span,
                            "compute the loop bounds and branch conditions of a kernel with pipes from scalars, "
                            "or split the vector work with pl.split so that both lanes compute")

    def assign(self, s: AssignStmt) -> list[Stmt]:
        name = op_name(s.value)
        if name == "tile.tpop_from_aic":
            self.popped.add(s.var)
            return [s]  # defines a fresh tile and reads nothing
        if name == "tile.store":
            self.dropped.add(s.var)  # lane 1 does not store: what it would read back is lane 0's work
            return []
        if isinstance(s.var.type, TileType) or not self.unknown().isdisjoint(stmt_reads(s)):
            self.dropped.add(s.var)
            return []
        return [self.sub(s)]

    def evaluate(self, s: EvalStmt) -> list[Stmt]:
        name = op_name(s.expr)
        if name in _KEPT:
            return [s]  # frees a tile lane 1 popped
        if name == "tile.tpush_to_aic":
            tile = s.expr.args[0]
            if not (isinstance(tile, Var) and tile in self.dropped):
                return [s]
            t: TileType = tile.type
            stand_in = Var(tile.name_hint, view_of(t, list(t.shape), [index(0), index(0)]), s.span)
            create = op_registry.create_op_call(
                "tile.create", [MakeTuple(list(t.shape), s.span)],
                {"dtype": t.dtype, "target_memory": t.memory_space}, s.span)
            return [AssignStmt(stand_in, create, s.span), EvalStmt(replace(s.expr, args=[stand_in]), s.span)]
        if name is not None and name.startswith("system.") and self.unknown().isdisjoint(stmt_reads(s)):
            return [self.sub(s)]
        return []

    def carried(self, iter_args: list[IterArg]) -> list[int]:
        """Positions of the carries lane 1 keeps: the scalars (tiles are not computed)."""
        return [k for k, ia in enumerate(iter_args) if not isinstance(ia.type, TileType)]

    def loop(self, s: ForStmt | WhileStmt) -> Stmt:
        keep = self.carried(s.iter_args)
        for k, (ia, rv) in enumerate(zip(s.iter_args, s.return_vars)):
            if k not in keep:
                self.dropped.update((ia, rv))
        iter_args = [s.iter_args[k] for k in keep]
        for ia in iter_args:  # scalar carries: their initial values must be known on lane 1
            self.sub_expr(ia.initValue, s)
        body = self.filtered_yield(self.block(s.body), keep)
        extra = {"condition": self.sub_expr(s.condition, s)} if isinstance(s, WhileStmt) else {
            "start": self.sub_expr(s.start, s), "stop": self.sub_expr(s.stop, s), "step": self.sub_expr(s.step, s)}
        return replace(s, iter_args=iter_args, body=block_of(body, s.span),
                       return_vars=[s.return_vars[k] for k in keep], **extra)

    def branch(self, s: IfStmt) -> Stmt:
        keep = [k for k, rv in enumerate(s.return_vars) if not isinstance(rv.type, TileType)]
        self.dropped.update(rv for k, rv in enumerate(s.return_vars) if k not in keep)
        then = self.filtered_yield(self.block(s.then_body), keep)
        other = self.filtered_yield(self.block(s.else_body), keep) if s.else_body is not None else None
        return replace(s, condition=self.sub_expr(s.condition, s), then_body=block_of(then, s.span),
                       else_body=block_of(other, s.span) if other is not None else None,
                       return_vars=[s.return_vars[k] for k in keep])

    def filtered_yield(self, stmts: list[Stmt], keep: list[int]) -> list[Stmt]:
        """``stmts`` whose final yield passes only the kept carries."""
        if stmts and isinstance(stmts[-1], YieldStmt):
            values = [self.sub_expr(stmts[-1].value[k], stmts[-1]) for k in keep]
            stmts = stmts[:-1] + ([replace(stmts[-1], value=values)] if keep else [])
        return stmts


def _has_pipe_ops(s: Stmt) -> bool:
    return any(isinstance(n, Call) and op_name(n) in LANE_PIPE_OPS for n in walk(s))
