"""Lifetimes of the tile buffers of a kernel, for MemoryReuse (docs/passes.md#memoryreuse, step 1).

Leaf statements are numbered in pre-order (then before else, loop bodies inline; a loop or an if
takes a number for reading its inits / condition, a yield or a return one for reading its
values). ``def(v)`` is the number of the statement defining ``v``, ``last(v)`` that of the last
one reading it; a value defined outside a loop and read inside lives to the end of that loop (it
must survive every iteration). An iter_arg is defined by its loop's own number, a return var of a
loop at the loop's last number, an if's return var at the if's last number. Two values may share
a buffer iff ``last(a) <= def(b)`` or ``last(b) <= def(a)``, unless a no-alias guard forbids the pair:
an op's result and a tile operand it does not compute in place (:meth:`_Walk.guard`), since the
equality lets the result take the buffer of an operand the op is still reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto.analysis import expr_vars, op_name
from pypto.analysis import walk as walk_nodes
from pypto.analysis.flow import ForwardWalk
from pypto.analysis.in_place import in_place_operands, same_place
from pypto.analysis.index import plain_attrs
from pypto.ir.expr import Call, ConstBool, ConstFloat, ConstInt, Expr, MakeTuple, Op, Var
from pypto.ir.function import Function
from pypto.ir.op_registry import Effect, kind_of, lookup
from pypto.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from pypto.ir.types import TileType

from pypto.transform.memref_util import on_chip, plain_values
from pypto.transform.util import straight_line
from pypto.util import IdentityCache

# Read once: Enum members go through the slow class attribute path on Python 3.11.
_WRITTEN = (Effect.WRITE, Effect.READ_WRITE)
_READ = Effect.READ
_CONSTANTS = (ConstInt, ConstFloat, ConstBool)
_LEAF_CLASSES = frozenset({Var, *_CONSTANTS})


def _interval(defined: int, last_read: int) -> tuple[int, int]:
    """A tile lives from its definition to its last read (to its definition alone when it is never
    read after it)."""
    return defined, last_read if last_read > defined else defined


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
    # Each read of a tile: its number and the loops around it; and the loops around each definition.
    uses: dict[Var, list[tuple[int, tuple[Loop, ...]]]] = field(default_factory=dict)
    home: dict[Var, tuple[Loop, ...]] = field(default_factory=dict)
    # Each if with an else: (condition, last of the then-branch, last of the else-branch).
    branches: list[tuple[int, int, int]] = field(default_factory=list)
    # How many numbers the walk gave out: statement numbers run from 1 to this.
    statements: int = 0
    # Every loop, with its own number and the last one of its body, in the order the loops end.
    loops: list[Loop] = field(default_factory=list)

    def interval(self, v: Var) -> tuple[int, int]:
        """The numbers tile ``v`` lives from and to (:func:`_interval`)."""
        d = self.defs[v]
        return _interval(d, self.last.get(v, d))

    def intervals(self) -> dict[Var, tuple[int, int]]:
        """:meth:`interval` of every tile, in one loop (a method call per tile was a tenth of MemoryReuse's planning)."""
        last = self.last
        return {v: _interval(d, last.get(v, d)) for v, d in self.defs.items()}

    def last_read_on_path(self, v: Var, at: int) -> int:
        """The last read of ``v`` that can run after statement ``at``: reads in the other branch of an
        if that holds ``at`` in one branch never do (unless a loop around them repeats them)."""
        def exclusive(n: int) -> bool:
            return any(c < min(n, at) <= split < max(n, at) <= end for c, split, end in self.branches)

        return max((live for n, live in self.reads(v) if not (live == n and exclusive(n))), default=0)

    def reads(self, v: Var) -> list[tuple[int, int]]:
        """Each read of the tile ``v``: its own number, and the number it keeps ``v`` live to (the end of
        the outermost loop around the read that does not also hold the definition)."""
        if v not in self.defs:
            return []
        home = self.home[v]
        out = []
        for n, loops in self.uses.get(v, []):
            if loops is home:  # the use in the definition's loops (most uses)
                out.append((n, n))
                continue
            outside = [lp for lp in loops if not any(lp is h for h in home)]
            out.append((n, outside[0].end if outside else n))
        return out


# Lifetimes by function object: InitMemRef reads those of the kernels it shares buffers in, and MemoryReuse,
# the next pass, those of the same function objects (read only: no user changes a Lifetimes).
_LIFETIMES: IdentityCache[Function, Lifetimes] = IdentityCache(20_000)


def lifetimes(func: Function) -> Lifetimes:
    """The lifetimes of the on-chip tiles of ``func`` (cached while ``func`` lives)."""
    found = _LIFETIMES.get(func)
    return found if found is not None else _LIFETIMES.put(func, _lifetimes(func))


def _lifetimes(func: Function) -> Lifetimes:
    stmts = straight_line(func)
    return _walked(func) if stmts is None else _straight(stmts)


def _straight(stmts: list[Stmt]) -> Lifetimes:
    """What :func:`_walked` finds for a body of leaf statements only (most kernels), in one loop over
    them with the walk's own rules: every statement takes the next number, no read or definition is
    inside a loop or an if (the walk's hooks, called per statement, were about half of this analysis
    at 10k statements)."""
    walk = _Walk()
    use, define, read, guard = walk.use, walk.define, walk.read, walk.guard
    n = 0
    for s in stmts:
        n += 1
        if type(s) is not AssignStmt:  # an evaluation, a yield or a return: reads only
            read([s.expr] if type(s) is EvalStmt else s.value, n)
            continue
        value = s.value
        # op_name, inlined for the common op call: isinstance against other IR classes is slow.
        name = value.op.name if type(value) is Call and type(value.op) is Op else op_name(value)
        if name == "tile.alloc":  # half the statements: reads constants, defines no tile
            continue
        variables = _leaf_call_vars(value) if type(value) is Call else None
        use(expr_vars(value) if variables is None else variables, n)
        define(s.var, n)
        guard(s, name)
    defs, uses = walk.defs, walk.uses
    last = {v: reads[-1][0] for v, reads in uses.items() if v in defs}
    return Lifetimes(defs, last, walk.guards, walk.controls, uses, walk.home, walk.branches, n, walk.done)


def _walked(func: Function) -> Lifetimes:
    """The lifetimes of any kernel, by the statement walk."""
    walk = _Walk()
    walk.block(func.body, None)
    defs, uses = walk.defs, walk.uses
    if walk.done:
        out = Lifetimes(defs, {}, walk.guards, walk.controls, uses, walk.home, walk.branches, walk.n, walk.done)
        out.last = {v: max(live for _, live in out.reads(v)) for v in uses if v in defs}
        return out
    # No loop: a read keeps its tile live to itself only, and reads are recorded in statement order.
    last = {v: reads[-1][0] for v, reads in uses.items() if v in defs}
    return Lifetimes(defs, last, walk.guards, walk.controls, uses, walk.home, walk.branches, walk.n, walk.done)


def _ticks(body: Stmt | None) -> int:
    """How many numbers the walk gives the statements of ``body``."""
    numbered = (AssignStmt, EvalStmt, YieldStmt, ReturnStmt, IfStmt, ForStmt, WhileStmt)
    return sum(isinstance(n, numbered) for n in walk_nodes(body)) if body is not None else 0


class _Walk(ForwardWalk[None]):
    """Numbers the statements (the walker's program order, each loop body once) and records defs and uses."""

    def __init__(self) -> None:
        self.n = 0
        self.loops: list[Loop] = []
        # The loops around the current statement, as one shared tuple (each use and def keeps it).
        self.around: tuple[Loop, ...] = ()
        self.done: list[Loop] = []
        self.defs: dict[Var, int] = {}
        self.home: dict[Var, tuple[Loop, ...]] = {}
        self.uses: dict[Var, list[tuple[int, tuple[Loop, ...]]]] = {}
        self.guards: list[tuple[Var, Var]] = []
        self.controls: list[Stmt] = []
        self.branches: list[tuple[int, int, int]] = []
        self.open: list[tuple[IfStmt, int, int]] = []
        # Slices: windows into another tile's buffer, at an offset and maybe with a wider pitch.
        self.windows: set[Var] = set()

    def tick(self) -> int:
        self.n += 1
        return self.n

    def define(self, var: Var, n: int) -> None:
        if on_chip(var.type) and var.type.memref is not None:
            self.defs[var] = n
            self.home[var] = self.around

    def read(self, exprs: list, n: int) -> None:
        for e in exprs:
            self.use(expr_vars(e), n)

    def use(self, variables: tuple[Var, ...] | list[Var], n: int) -> None:
        uses, around = self.uses, self.around
        for v in variables:
            if isinstance(v.type, TileType):
                found = uses.get(v)
                if found is None:
                    uses[v] = [(n, around)]
                else:
                    found.append((n, around))

    def exit_block(self, body: Stmt, stmts: list[Stmt], state: None) -> Stmt:
        return body  # the walk reads, never rewrites

    def leaf(self, s: Stmt, state: None) -> None:
        # _straight follows these steps for one-block kernels: change both (its test compares them).
        if isinstance(s, AssignStmt):
            n = self.tick()
            value = s.value
            # op_name, inlined for the common op call: isinstance against other IR classes is slow.
            name = value.op.name if type(value) is Call and type(value.op) is Op else op_name(value)
            if name == "tile.alloc":  # half the statements: reads constants, defines no tile
                return
            variables = _leaf_call_vars(value) if type(value) is Call else None
            self.use(expr_vars(value) if variables is None else variables, n)
            self.define(s.var, n)
            self.guard(s, name)
        elif isinstance(s, (EvalStmt, YieldStmt, ReturnStmt)):
            n = self.tick()
            self.read([s.expr] if isinstance(s, EvalStmt) else list(s.value), n)

    def enter_branch(self, s: IfStmt, state: None) -> None:
        self.controls.append(s)
        n = self.tick()
        self.read([s.condition], n)
        self.open.append((s, n, n + _ticks(s.then_body)))

    def join(self, s: IfStmt, before: None, then_end: None, else_end: None) -> None:
        _, n, split = self.open.pop()
        if s.else_body is not None:
            self.branches.append((n, split, self.n))
        for rv in s.return_vars:
            self.define(rv, self.n)

    def enter_loop(self, s: ForStmt | WhileStmt, state: None) -> None:
        self.controls.append(s)
        n = self.tick()
        bounds = [s.start, s.stop, s.step] if isinstance(s, ForStmt) else []
        self.read(bounds + [ia.initValue for ia in s.iter_args], n)
        self.loops.append(Loop(s, n))
        self.around = tuple(self.loops)
        for ia in s.iter_args:
            self.define(ia, n)
        if isinstance(s, WhileStmt):
            self.read([s.condition], n)

    def exit_loop(self, s: ForStmt | WhileStmt, before: None, end: None) -> None:
        loop = self.loops.pop()
        self.around = tuple(self.loops)
        loop.end = self.n
        self.done.append(loop)
        for rv in s.return_vars:
            self.define(rv, loop.end)

    def guard(self, stmt: AssignStmt, name: str | None) -> None:
        """§4.23 step 4, safe by default: the result may not share a buffer with a tile operand unless
        the op computes that operand in place (:mod:`pypto.analysis.in_place`) at the same shape, view
        and element width. A written operand is the result's own buffer already."""
        out, value = stmt.var, stmt.value
        if out not in self.defs or not isinstance(value, Call) or name is None:
            return
        args = value.args
        if name == "tile.slice":
            self.windows.add(out)
        windows = self.windows and name != "tile.slice"
        for in_place, a in zip(_operand_plan(name, args), args):
            if in_place is None:  # a written operand
                continue
            # The Var test first: isinstance of a variable against the constant classes is slow.
            if isinstance(a, Var):
                operands: tuple[Var, ...] = (a,)
            elif isinstance(a, _CONSTANTS):  # reads no tile (a scalar operand)
                continue
            elif type(a) is MakeTuple:  # offsets or a shape
                operands = _tuple_vars(a)
            else:
                operands = expr_vars(a)
            for v in operands:
                if v is out or not isinstance(v.type, TileType):
                    continue
                # Written over its source's buffer, a result would overwrite lines of a window it still reads.
                window = windows and v in self.windows
                if window or not (in_place and same_place(out.type, v.type)):
                    self.guards.append((out, v))


def _leaf_call_vars(call: Call) -> list[Var] | None:
    """:func:`expr_vars` of a call with plain keywords and attributes (most statements), from its
    arguments: variables and constants, and tuples of them (offsets, shapes), read directly, and a
    computed operand (``i * 64``) by its own summary, which stays cached while the planning passes keep
    that operand (each rebuilt call is read once here); None for another call."""
    args = call.args
    kwargs, attrs = call.kwargs, call.attrs
    if kwargs and not plain_values(kwargs.values()):
        return None
    if attrs.__pydantic_fields_set__ and not plain_attrs(attrs):
        return None
    if _LEAF_CLASSES.issuperset(map(type, args)):  # exact classes: a set test per argument
        return [a for a in args if type(a) is Var]
    found: list[Var] = []
    for a in args:
        kind = type(a)
        if kind is Var:
            found.append(a)
        elif kind is MakeTuple:
            found += _tuple_vars(a)
        elif kind not in _LEAF_CLASSES:
            found += expr_vars(a)
    return found


def _tuple_vars(t: MakeTuple) -> tuple[Var, ...]:
    """:func:`expr_vars` of a tuple expression: its variables, without a walk when its elements are
    variables and constants."""
    elements = t.elements
    if _LEAF_CLASSES.issuperset(map(type, elements)):
        return tuple([e for e in elements if type(e) is Var])
    return expr_vars(t)


# Per operand of an op: None for one it writes (the result's own buffer), else whether the op may compute
# it in place. Cached per op and operand count where that fixes the binding, else per op and operand
# kinds (a load's or store's optional operands: binding them per call was a tenth of MemoryReuse on a
# small kernel).
_Plan = tuple[bool | None, ...]
_PLANS: dict[tuple, _Plan] = {}


def _operand_plan(name: str, args: list) -> _Plan:
    """What the no-alias guard does with each operand of a call of ``name`` with ``args`` (zipped with
    the operands: an operand past the bound parameters is not looked at)."""
    plan = _PLANS.get((name, len(args)))
    if plan is not None:
        return plan
    entry = lookup(name)
    if entry is None:  # not cached: an op registered later (a plugin's) binds its own parameters
        return (False,) * len(args)
    # The binding looks at the operands' kinds only to place surplus operands among optional parameters.
    if len(args) <= entry.min_args() or not any(p.optional for p in entry.params):
        key: tuple = (name, len(args))
    else:
        key = (name, *[kind_of(a.type) if isinstance(a, Expr) else None for a in args])  # what bind reads
        plan = _PLANS.get(key)
        if plan is not None:
            return plan
    safe = in_place_operands(name)
    plan = _PLANS[key] = tuple(
        None if p.effect in _WRITTEN else (p.effect is _READ and p.name in safe) for p in entry.bind(args)
    )
    return plan
