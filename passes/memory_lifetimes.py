"""Lifetimes of the tile buffers of a kernel, for MemoryReuse (docs/passes.md#memoryreuse, step 1).

Leaf statements are numbered in pre-order (then before else, loop bodies inline; a loop or an if
takes a number for reading its inits / condition, a yield or a return one for reading its
values). ``def(v)`` is the number of the statement defining ``v``, ``last(v)`` that of the last
one reading it; a value defined outside a loop and read inside lives to the end of that loop (it
must survive every iteration). An iter_arg is defined by its loop's own number, a return var of a
loop at the loop's last number, an if's return var at the if's last number. Two values may share
a buffer iff ``last(a) <= def(b)`` or ``last(b) <= def(a)`` (an op reads its inputs before it writes
its output), unless a no-alias guard forbids the pair.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto.analysis import expr_vars, op_name
from pypto.ir.expr import Call, Var
from pypto.ir.function import Function
from pypto.ir.op_registry import Effect, lookup
from pypto.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from pypto.ir.types import TileType

from .memref_util import on_chip

# Ops whose output may not share a buffer with any input (§4.23 step 4).
NO_ALIAS_INPUTS = frozenset(
    {
        "tile.recip",
        "tile.rsqrt",
        "tile.row_sum",
        "tile.row_max",
        "tile.row_min",
        "tile.mrgsort_format1",
        "tile.move",
        "tile.fmod",
        "tile.fmods",
        "tile.transpose",
        # The joined rows are wider than either input's: writing row r in place overwrites input rows > r.
        "tile.concat",
    }
)


@dataclass
class Loop:
    """A loop (or an if, for its phis) and the numbers of its first and last statements."""

    stmt: Stmt
    start: int
    end: int = 0


@dataclass
class Lifetimes:
    """``def``/``last`` numbers of every on-chip tile variable, and the pairs that may not share."""

    defs: dict[Var, int] = field(default_factory=dict)
    last: dict[Var, int] = field(default_factory=dict)
    guards: list[tuple[Var, Var]] = field(default_factory=list)
    # Control statements in walk order (outer before inner), for the carry realignment.
    controls: list[Stmt] = field(default_factory=list)

    def interval(self, v: Var) -> tuple[int, int]:
        d = self.defs[v]
        return d, max(d, self.last.get(v, d))


def lifetimes(func: Function) -> Lifetimes:
    """The lifetimes of the on-chip tiles of ``func``."""
    walk = _Walk()
    walk.block(func.body)
    out = Lifetimes(walk.defs, {}, walk.guards, walk.controls)
    for var, uses in walk.uses.items():
        if var not in walk.defs:
            continue
        home = walk.home[var]
        last = 0
        for n, loops in uses:
            # The outermost loop around the use that does not also hold the definition.
            outside = [lp for lp in loops if not any(lp is h for h in home)]
            last = max(last, outside[0].end if outside else n)
        out.last[var] = last
    return out


class _Walk:
    def __init__(self) -> None:
        self.n = 0
        self.loops: list[Loop] = []
        self.defs: dict[Var, int] = {}
        self.home: dict[Var, list[Loop]] = {}
        self.uses: dict[Var, list[tuple[int, list[Loop]]]] = {}
        self.guards: list[tuple[Var, Var]] = []
        self.controls: list[Stmt] = []
        # Slices: windows into another tile's buffer, at an offset and maybe with a wider pitch.
        self.windows: set[Var] = set()

    def tick(self) -> int:
        self.n += 1
        return self.n

    def define(self, var: Var, n: int, loops: list[Loop] | None = None) -> None:
        if on_chip(var.type) and var.type.memref is not None:
            self.defs[var] = n
            self.home[var] = list(self.loops if loops is None else loops)

    def read(self, exprs: list, n: int) -> None:
        for e in exprs:
            for v in expr_vars(e):
                if isinstance(v.type, TileType):
                    self.uses.setdefault(v, []).append((n, list(self.loops)))

    def block(self, stmt: Stmt | None) -> None:
        if stmt is None:
            return
        if isinstance(stmt, SeqStmts):
            for s in stmt.stmts:
                self.block(s)
        elif isinstance(stmt, AssignStmt):
            n = self.tick()
            self.read([stmt.value], n)
            self.define(stmt.var, n)
            self.guard(stmt)
        elif isinstance(stmt, (EvalStmt, YieldStmt, ReturnStmt)):
            n = self.tick()
            self.read([stmt.expr] if isinstance(stmt, EvalStmt) else list(stmt.value), n)
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            self.loop(stmt)
        elif isinstance(stmt, IfStmt):
            self.controls.append(stmt)
            n = self.tick()
            self.read([stmt.condition], n)
            self.block(stmt.then_body)
            self.block(stmt.else_body)
            for rv in stmt.return_vars:
                self.define(rv, self.n)
        elif isinstance(stmt, ScopeStmt):
            self.block(stmt.body)

    def loop(self, stmt: ForStmt | WhileStmt) -> None:
        self.controls.append(stmt)
        n = self.tick()
        outer = list(self.loops)
        bounds = [stmt.start, stmt.stop, stmt.step] if isinstance(stmt, ForStmt) else []
        self.read(bounds + [ia.initValue for ia in stmt.iter_args], n)
        loop = Loop(stmt, n)
        self.loops.append(loop)
        for ia in stmt.iter_args:
            self.define(ia, n)
        if isinstance(stmt, WhileStmt):
            self.read([stmt.condition], n)
        self.block(stmt.body)
        loop.end = self.n
        self.loops.pop()
        for rv in stmt.return_vars:
            self.define(rv, loop.end, outer)

    def guard(self, stmt: AssignStmt) -> None:
        """The no-alias pairs of §4.23 step 4 for one assignment."""
        out, value = stmt.var, stmt.value
        name = op_name(value)
        if out not in self.defs or not isinstance(value, Call) or name is None:
            return
        args = list(value.args)
        tiles = [a for a in args if isinstance(a, Var) and isinstance(a.type, TileType)]
        banned: list[Var] = []
        if name == "tile.slice":
            self.windows.add(out)
        if name in NO_ALIAS_INPUTS:
            banned = tiles
        elif name == "tile.sel":
            banned = [args[i] for i in (0, 3) if i < len(args)]
        elif name.startswith(("tile.row_expand", "tile.col_expand")) and len(args) > 1:
            banned = [args[1]]
        elif name == "tile.cast" and tiles and tiles[0].type.dtype.get_bit() < out.type.dtype.get_bit():
            banned = tiles[:1]
        entry = lookup(name)
        if entry is not None:
            banned += [a for p, a in zip(entry.bind(args), args) if p.effect is Effect.SCRATCH]
        # Written over its source's buffer, a result would overwrite lines of a window it still reads.
        if name != "tile.slice":
            banned += [a for a in tiles if a in self.windows]
        self.guards.extend((out, b) for b in banned if isinstance(b, Var) and b is not out)
