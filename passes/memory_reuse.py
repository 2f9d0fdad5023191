"""MemoryReuse: tiles whose lifetimes do not overlap share a buffer (docs/passes.md#memoryreuse, the
PYPTO planner)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Literal

from pypto.languages.memref import memref

from pypto.analysis import op_name
from pypto.ir import op as ir_op
from pypto.ir.enums import MemorySpace
from pypto.ir.expr import Call, Op, Var
from pypto.ir.function import Function, Program
from pypto.ir.memref import MemRef
from pypto.ir.stmt import AssignStmt, ForStmt, IfStmt, SeqStmts, Stmt, WhileStmt, YieldStmt
from pypto.ir.types import TileType

from .memory_lifetimes import Lifetimes, lifetimes
from pypto.transform.memref_util import KERNELS, Retype, TypeMemo, new_memref, with_memref
from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import rebuild


Strategy = Literal["first_fit", "best_fit", "none"]


class MemoryReuse(RewritePass):
    """Pack the buffers of each kernel, per memory space, first-fit decreasing by size.

    before:  mem_vec_0 = pl.tile.alloc(pl.Mem.Vec, 65536)      after:  mem_vec_0 = pl.tile.alloc(pl.Mem.Vec, 65536)
             mem_vec_1 = pl.tile.alloc(pl.Mem.Vec, 65536)              mem_vec_1 = pl.tile.alloc(pl.Mem.Vec, 65536)
             mem_vec_2 = pl.tile.alloc(pl.Mem.Vec, 65536)              ta: [..MemRef(mem_vec_0..)] = load(a)
             ta: [..MemRef(mem_vec_0..)] = load(a)                     tb: [..MemRef(mem_vec_1..)] = load(b)
             tb: [..MemRef(mem_vec_1..)] = load(b)                     tc: [..MemRef(mem_vec_0..)] = add(ta, tb)
             tc: [..MemRef(mem_vec_2..)] = add(ta, tb)

    Steps (§4.23): lifetimes (:mod:`.memory_lifetimes`); loop carries are first re-aligned onto
    their init's buffer (the yielded value and the return var join the iter_arg's buffer) and an
    if's else-yield onto the then-yield's; where that would overlap a live value, a
    ``tile.move`` of the yielded value into the carried buffer is put before the yield (ordered so
    that no move overwrites a later one's source; a cycle, as with swapped carries, is refused).
    Then each
    buffer, largest first, joins the first buffer all of whose members it may share with (no
    overlapping lifetimes, no no-alias guard), else stays its own; a joined buffer's tiles are
    rebased onto the first member's MemRef and ``tile.alloc``s no longer referenced are deleted.

    Option ``strategy`` (default ``"first_fit"``, the above): ``"best_fit"`` joins, among the buffers
    it may share with, the smallest one (the first of equal size), which can leave a large buffer
    free for a later large tile; ``"none"`` shares no buffers (each tile keeps its own; a loop carry
    and the value yielded for it still share), for comparing plans or isolating a reuse problem; a
    kernel that fits only by sharing then fails AllocateMemoryAddr's capacity check.
    """

    source = memref

    strategy: Strategy = "first_fit"

    def run_function(self, func: Function, program: Program) -> Function:
        if func.func_type not in KERNELS:
            return func
        plan = _Packing(func, lifetimes(func))
        moves = plan.realign(strict=False)
        if moves:
            fix = _YieldFixup(moves)
            fix.start(func, program)
            func = fix.function(func)
            plan = _Packing(func, lifetimes(func))
            plan.realign(strict=True)
        new_types, keep = plan.pack(self.strategy)
        if not new_types and keep is None:
            return func
        run = _Rebase(new_types, keep)
        run.start(func, program)
        return run.function(func)


class _Packing:
    """Union-find over the allocations (base Ptr vars) of one function."""

    def __init__(self, func: Function, life: Lifetimes) -> None:
        self.func = func
        self.life = life
        self.members: dict[Var, list[Var]] = {}
        self.sizes: dict[Var, int] = {}
        self.space: dict[Var, MemorySpace] = {}
        self.parent: dict[Var, Var] = {}
        members, sizes, space, parent = self.members, self.sizes, self.space, self.parent
        for var in life.defs:
            t = var.type
            m = t.memref
            base, size = m.base_, m.size_
            found = members.get(base)
            if found is None:
                members[base] = [var]
                parent[base] = base
                sizes[base] = size if size > 0 else 0
            else:
                found.append(var)
                if size > sizes[base]:
                    sizes[base] = size
            space[base] = t.memory_space_
        defs = life.defs
        banned: dict[Var, set[Var]] = {}
        for a, b in life.guards:
            if a in defs and b in defs:
                banned.setdefault(a, set()).add(b)
                banned.setdefault(b, set()).add(a)
        self.banned = banned
        self.intervals = life.intervals()

    def find(self, base: Var) -> Var:
        while self.parent[base] is not base:
            self.parent[base] = self.parent[self.parent[base]]
            base = self.parent[base]
        return base

    def group(self, root: Var) -> list[Var]:
        return [v for b, vs in self.members.items() if self.find(b) is root for v in vs]

    def may_share(self, a: list[Var], b: list[Var]) -> bool:
        """No two values of the two groups are live at once, and no guard separates them."""
        intervals = self.intervals
        for x in a:
            xd, xl = intervals[x]
            bad = self.banned.get(x, ())
            for y in b:
                yd, yl = intervals[y]
                if not (xl <= yd or yl <= xd) or y in bad:
                    return False
        return True

    def union(self, into: Var, other: Var) -> None:
        self.parent[other] = into

    def base_of(self, e: object) -> Var | None:
        if isinstance(e, Var) and e in self.life.defs:
            return self.find(e.type.memref.base_)
        return None

    def realign(self, strict: bool) -> dict[int, list[tuple[int, MemRef, Var | None]]]:
        """Put each carry's yield and return var on its init's buffer (top-down), and an if's
        else-yield on its then-yield's. Returns the yields that need a ``tile.move`` instead:
        ``id(yield) -> [(index, carried MemRef, return var)]``."""
        moves: dict[int, list[tuple[int, MemRef, Var | None]]] = {}
        for stmt in self.life.controls:
            if isinstance(stmt, (ForStmt, WhileStmt)):
                y = _trailing_yield(stmt.body)
                for k, ia in enumerate(stmt.iter_args):
                    rv = stmt.return_vars[k] if k < len(stmt.return_vars) else None
                    self._align(ia, y, k, rv, moves, strict)
            elif isinstance(stmt, IfStmt) and stmt.return_vars and stmt.else_body is not None:
                then_y, else_y = _trailing_yield(stmt.then_body), _trailing_yield(stmt.else_body)
                for k, rv in enumerate(stmt.return_vars):
                    if then_y is not None and k < len(then_y.value) and self.base_of(then_y.value[k]) is not None:
                        self._align(then_y.value[k], else_y, k, rv, moves, strict)
        return moves

    def _align(self, carried: Var, y: YieldStmt | None, k: int, rv: Var | None, moves: dict, strict: bool) -> None:
        a = self.base_of(carried)
        if a is None or y is None or k >= len(y.value):
            return
        b = self.base_of(y.value[k])
        if b is None or a is b:
            return
        if self.may_share(self.group(a), self.group(b)):
            self.union(a, b)
            return
        if strict:
            raise MemoryReuse().error(
                f"function '{self.func.name}': the value yielded for '{carried.name_hint}' cannot be placed in "
                "its carried buffer (the carried value is still live where it is written)",
                y.span,
            )
        if carried.type.memory_space == MemorySpace.Acc:
            raise MemoryReuse().error(
                f"function '{self.func.name}': the Acc value yielded for '{carried.name_hint}' is not in the "
                "carried buffer and Acc -> Acc moves do not exist",
                y.span,
                f"accumulate into the iter_arg (pl.matmul_acc({carried.name_hint}, ...)) instead, the first product "
                f"too: pl.matmul_acc({carried.name_hint}, a, b, init_cond=k == 0) ignores the old value when k == 0",
            )
        moves.setdefault(id(y), []).append((k, carried.type.memref, rv))

    def pack(self, strategy: Strategy) -> tuple[dict[Var, TileType], dict[Var, int] | None]:
        """Decreasing by size per space, each group joining a buffer chosen by ``strategy``. Returns
        the new tile types and the surviving allocations with their sizes (None when nothing changes)."""
        # Each union-find group once (members in allocation order, as group() lists them).
        groups: dict[Var, list[Var]] = {}
        group_size: dict[Var, int] = {}
        root_of: dict[Var, Var] = {}  # each allocation's group
        parent, sizes = self.parent, self.sizes
        for b, vs in self.members.items():
            r = root_of[b] = b if parent[b] is b else self.find(b)  # most allocations are their own group
            group = groups.get(r)
            if group is None:
                groups[r] = list(vs)
                group_size[r] = sizes[b]
            else:
                group.extend(vs)
                group_size[r] = max(group_size[r], sizes[b])
        first_def = self.life.defs.__getitem__
        order = {r: (-group_size[r], first_def(vs[0]) if len(vs) == 1 else min(map(first_def, vs)))
                 for r, vs in groups.items()}
        roots = sorted(groups, key=order.__getitem__)
        buffers: list[tuple[Var, _Occupancy, int]] = []  # (root, members, size)
        placed: dict[Var, Var] = {}
        space, intervals, banned = self.space, self.intervals, self.banned
        candidates = buffers if strategy != "none" else []
        first_fit = strategy == "first_fit"
        for r in roots:
            vars_r, size = groups[r], group_size[r]
            chosen: tuple[Var, _Occupancy, int] | None = None
            for root, occupied, buf_size in candidates:
                if chosen is not None and buf_size >= chosen[2]:  # best fit: only a smaller one is better
                    continue
                if space[root] is space[r] and occupied.admits(vars_r, intervals, banned):
                    chosen = (root, occupied, buf_size)
                    if first_fit:
                        break
            if chosen is None:
                occupied = _Occupancy()
                occupied.add(vars_r, intervals)
                buffers.append((r, occupied, size))
                placed[r] = r
            else:
                chosen[1].add(vars_r, intervals)
                placed[r] = chosen[0]
        size_of = {root: size for root, _, size in buffers}
        refs: dict[Var, MemRef] = {}
        new_types: dict[Var, TileType] = {}
        memo = TypeMemo()
        # The memo's answer per buffer and type parts by identity: the tiles of a kernel mostly share their
        # dims list, dtype and view objects, so most tiles need no key built from their dims.
        seen: dict[tuple[int, int, int, int, int], TileType] = {}
        for var in self.life.defs:
            t = var.type
            m = t.memref
            root = placed[root_of[m.base_]]
            if root is m.base_ and size_of[root] == m.size_:
                continue
            ref = refs.get(root)
            if ref is None:
                ref = refs[root] = new_memref(root, m.byte_offset_, size_of[root], m.span)
            key = (id(ref), id(t.shape), id(t.dtype), id(t.memory_space_), id(t.tile_view))
            new = seen.get(key)
            if new is None:
                new = seen[key] = memo.get(t, ref)
            new_types[var] = new
        if not new_types and all(size_of.get(b) == self.sizes[b] for b in self.members):
            return {}, None
        return new_types, size_of


class _Occupancy:
    """The lifetimes of the tiles packed into one buffer, sorted by definition with a running maximum
    of their last uses: whether a new tile overlaps any of them is one bisection (a pairwise test
    against every member made packing quadratic in a kernel's tiles)."""

    def __init__(self) -> None:
        self.defs: list[int] = []
        self.lasts: list[int] = []  # in the order of ``defs``
        self.reach: list[int] = []  # reach[i]: the largest of lasts[0..i]
        self.members: set[Var] = set()

    def admits(self, tiles: list[Var], intervals: dict[Var, tuple[int, int]], banned: dict[Var, set[Var]]) -> bool:
        """No tile overlaps a member's lifetime (``last(x) <= def(y)`` or ``last(y) <= def(x)``) and
        no no-alias guard pairs a tile with a member."""
        for y in tiles:
            yd, yl = intervals[y]
            k = bisect_left(self.defs, yl)  # the members defined before y's last use ...
            if k and self.reach[k - 1] > yd:  # ... one of which is used after y's definition
                return False
            if not self.members.isdisjoint(banned.get(y, ())):
                return False
        return True

    def add(self, tiles: list[Var], intervals: dict[Var, tuple[int, int]]) -> None:
        """Pack ``tiles`` into the buffer."""
        for v in tiles:
            d, last = intervals[v]
            if not self.defs or d >= self.defs[-1]:  # defined after every member (most tiles): append
                self.reach.append(max(self.reach[-1], last) if self.reach else last)
                self.defs.append(d)
                self.lasts.append(last)
                continue
            k = bisect_right(self.defs, d)
            self.defs.insert(k, d)
            self.lasts.insert(k, last)
            self.reach.insert(k, 0)
            top = self.reach[k - 1] if k else last
            for i in range(k, len(self.defs)):  # a tile defined last (the common case) updates one entry
                top = max(top, self.lasts[i])
                self.reach[i] = top
        self.members.update(tiles)


def _trailing_yield(body: Stmt) -> YieldStmt | None:
    last = body.stmts[-1] if isinstance(body, SeqStmts) and body.stmts else body
    return last if isinstance(last, YieldStmt) else None


class _YieldFixup(Retype):
    """Insert ``m = tile.move(v)`` into the carried buffer before a yield; the return var follows."""

    def __init__(self, moves: dict[int, list[tuple[int, MemRef, Var | None]]]) -> None:
        super().__init__({})
        self.moves = moves
        for fixes in moves.values():
            for _, ref, rv in fixes:
                if rv is not None:
                    self.new_types[rv] = with_memref(rv.type, ref)

    @on(YieldStmt)
    def _yield(self, node: YieldStmt) -> Result:
        fixes = self.moves.get(id(node))
        new = self.children(node)
        if not fixes:
            return new
        values = list(new.value)
        for k, ref, _ in _move_order(fixes, values, node):
            v = values[k]
            call = ir_op.tile.move(v, target_memory=v.type.memory_space, span=node.span)
            name = self.names.name("carry", lambda n, h=v.name_hint: f"{h}__carry_v{n}")
            m = Var(name, with_memref(v.type, ref), node.span)
            self.emit(AssignStmt(m, rebuild(call, type=m.type), node.span))
            values[k] = m
        return rebuild(new, value=values)


def _move_order(fixes: list, values: list, node: YieldStmt) -> list:
    """The moves of one yield ordered so that none overwrites the source of a later one (moves
    are emitted one after another, a yield is a parallel assignment); a cycle (swapped carries)
    is refused."""

    def base(v: object) -> Var | None:
        t = getattr(v, "type", None)
        return t.memref.base_ if isinstance(t, TileType) and t.memref is not None else None

    pending, done = list(fixes), []
    while pending:
        ready = None
        for fix in pending:
            sources = {base(values[k]) for k, _, _ in pending if k != fix[0]}
            if fix[1].base_ not in sources:
                ready = fix
                break
        if ready is None:
            names = ", ".join(f"'{values[k].name_hint}'" for k, _, _ in pending)
            raise MemoryReuse().error(
                f"the yield moves {names} into each other's carried buffers (a cycle, e.g. swapped carries); "
                "copying through a temporary buffer is not implemented",
                node.span,
                "yield copies made in the loop body (e.g. 'q2 = pl.move(q, target_memory=...)') instead of the "
                "carried values themselves",
            )
        pending.remove(ready)
        done.append(ready)
    return done


class _Rebase(Retype):
    """Retype the rebased tiles, delete the allocations no tile uses and resize the others."""

    def __init__(self, new_types: dict[Var, TileType], keep: dict[Var, int] | None) -> None:
        super().__init__(new_types)
        self.keep = keep

    def block(self, stmts: Sequence[Stmt]) -> list[Stmt]:
        keep = self.keep
        if keep is not None:  # the deleted allocations (half a planned kernel's input) dropped in one loop
            # op_name, inlined for the common op call: isinstance against other IR classes is slow.
            stmts = [s for s in stmts if type(s) is not AssignStmt or s.var in keep or (
                v.op.name if type(v := s.value) is Call and type(v.op) is Op else op_name(v)) != "tile.alloc"]
        return super().block(stmts)

    def assign(self, node: AssignStmt) -> Result:
        size = None if self.keep is None else self.keep.get(node.var)
        if size is None or op_name(node.value) != "tile.alloc":  # a tile's (most), or another definition
            return super().assign(node)
        space, old = node.value.args
        if getattr(old, "value", None) == size:
            return node
        return rebuild(node, value=ir_op.tile.alloc(MemorySpace(space.value), size, span=node.value.span))
