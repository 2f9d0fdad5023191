"""InferTileMemorySpace: every kernel tile gets a memory space; operands in a space their op does
not accept are moved first (docs/passes.md#infertilememoryspace).

The rules come from the op registry (:func:`pypto.ir.op_registry.get_op_memory_spec`): the
allowed spaces of each operand, and the result rule (a fixed space, the first tile input's space,
or ``target_memory``), which the registry applies when a call's type is deduced again.
"""

from __future__ import annotations

import copy

from pypto.languages.invariants import (
    STRUCTURAL,
    AccToGmStoreValid,
    AivSplitValid,
    IncoreTileOps,
    NormalizedStmtStructure,
    SplitIncoreOrch,
    SSAForm,
    TileMemoryInferred,
    TileOps2D,
)
from pypto.languages.placed import placed
from pypto.languages.tiled import tiled

from pypto.analysis import function_index, op_name
from pypto.analysis.memory_spaces import call_statements, operand_spaces
from pypto.ir import op_registry
from pypto.ir.enums import MemorySpace, is_incore_type
from pypto.ir.expr import Call, Expr, IterArg, Var
from pypto.ir.function import Function
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, ReturnStmt, SeqStmts, Stmt, WhileStmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.types import TileType, TileView, implicit_layout

from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import rebuild, straight_line

Vec, Mat = MemorySpace.Vec, MemorySpace.Mat
# Ops whose result space is free when ``target_memory`` is absent (a load never lands in L0).
_FREE_TARGET = frozenset(e.name for e in op_registry.all_entries()
                         if e.memory is not None and e.memory.output == op_registry.DEFERRED)
_LANDING = (Vec, Mat)
# A loop carry whose space changes makes its body be inferred again; spaces settle in two rounds
# (the first finds what the body yields), the bound only guards against a cycle.
_MAX_ROUNDS = 4
_PHI = "phi"


def with_space(t: TileType, space: MemorySpace) -> TileType:
    """``t`` in ``space``: an explicit view keeps its valid region and padding, the layout becomes
    the new space's implicit one."""
    view = t.tile_view
    if view is not None:
        blayout, slayout, fractal = implicit_layout(list(t.shape), space)
        view = TileView(valid_shape=view.valid_shape, blayout=blayout, slayout=slayout, fractal=fractal, pad=view.pad)
    return TileType(t.shape, t.dtype, t.memref, view, space)


def _space(e: Expr) -> MemorySpace | None:
    return e.type.memory_space if isinstance(e.type, TileType) else None


def demands(func: Function, spaces: dict[int, list] | None = None) -> dict[Var, MemorySpace]:
    """Backward demand: the first space a constrained consumer allows, carried back through ops
    whose result inherits its input's space, in one reverse sweep; a non-Vec demand beats Vec.
    ``spaces`` (if given) receives each call's :func:`operand_spaces`, by call identity."""
    out: dict[Var, MemorySpace] = {}

    def want(var: Expr, space: MemorySpace) -> None:
        if isinstance(var, Var) and (var not in out or out[var] is Vec):
            out[var] = space

    for var, call in reversed(list(call_statements(flatten_to_stmts(func.body)))):
        bound = operand_spaces(call)
        if spaces is not None:
            spaces[id(call)] = bound
        for arg, allowed in bound:
            if allowed and isinstance(arg.type, TileType):
                want(arg, allowed[0])
        entry = op_registry.lookup(op_name(call)) if bound else None  # bound: a registered op with a memory spec
        if entry is not None and entry.memory.output == op_registry.INHERIT and var in out:
            first = next((a for a, _ in bound if isinstance(a.type, TileType)), None)
            if first is not None:
                want(first, out[var])
    return out


def _landing(demand: MemorySpace | None) -> MemorySpace:
    return demand if demand in _LANDING else Vec


# The statements ``_settled`` decides: a function with another (an if, a while, a scope) goes through
# the rewrite.
_SETTLED_STMTS = frozenset({AssignStmt, EvalStmt, ReturnStmt, YieldStmt, ForStmt, SeqStmts})


def _settled(func: Function) -> bool:
    """True when the rewrite would return ``func`` as it is (the kernels of a program written with
    spaces, or inferred before): no statement but assignments, evaluations, returns, yields and for
    loops, every tile with a space and every tile variable typed as its value, every loop carrying
    its init's type and yielding it back (no carry retyped or moved), every operand in a space its op
    allows, every op of a free result space with an explicit ``target_memory``. Ifs and whiles are
    left to the rewrite. The ops are judged by name (calls nested in arguments too, which the
    rewrite leaves alone: a stricter test)."""
    stmts = straight_line(func)
    index = function_index(func)
    if stmts is None and any(issubclass(c, Stmt) and c not in _SETTLED_STMTS for c in index.classes):
        return False
    spaces = set()
    for t in index.types:  # the few distinct types: every operand's is one of them
        if isinstance(t, TileType):
            if t.memory_space is None:
                return False
            spaces.add(t.memory_space)
    for stmt in index.of(AssignStmt) if stmts is None else stmts:
        if type(stmt) is AssignStmt:
            value, var = stmt.value, stmt.var
            if isinstance(value.type, TileType) and value.type is not var.type and value.type != var.type:
                return False  # _assign would retype the variable
    if stmts is None and not all(map(_loop_settled, index.of(ForStmt))):
        return False
    for name in index.op_names:
        entry = op_registry.lookup(name)
        if entry is None or entry.memory is None:
            continue
        calls = index.calls_to(name)
        if name in _FREE_TARGET and any("target_memory" not in c.kwargs for c in calls):
            return False
        # An op whose every constrained parameter allows every space in use moves no operand.
        if all(spaces.issubset(allowed) for allowed in entry.input_spaces.values() if allowed):
            continue
        for call in calls:
            for arg, allowed in operand_spaces(call):
                space = _space(arg)
                if allowed and space is not None and space not in allowed:
                    return False
    return True


def _loop_settled(loop: ForStmt) -> bool:
    """True when ``_loop`` keeps ``loop`` (its body kept): each carry typed as its init, the body
    yielding values of those types last, each result typed as its carry (the comparisons ``_loop``,
    ``_round`` and ``_returns`` make)."""
    if not loop.iter_args:
        return True
    types = [ia.initValue.type for ia in loop.iter_args]
    if not all(t == ia.type for t, ia in zip(types, loop.iter_args)):
        return False
    if InferTileMemorySpace._yielded(loop.body, len(types)) != types:
        return False
    return all(ia.type == rv.type for ia, rv in zip(loop.iter_args, loop.return_vars))


class InferTileMemorySpace(RewritePass):
    """Give every kernel tile a memory space and move operands into the spaces their ops accept.

    before:  x = pl.load(xg, [0, 0], [16, 128])
             y = pl.load(yg, [0, 0], [128, 128])
             z = pl.matmul(x, y)
    after:   x: pl.Tile[[16, 128], pl.BF16, pl.Mem.Vec] = pl.tile.load(xg, ..., target_memory=pl.Mem.Vec)
             y: pl.Tile[[128, 128], pl.BF16, pl.Mem.Vec] = pl.tile.load(yg, ..., target_memory=pl.Mem.Vec)
             x_Left = pl.tile.move(x, target_memory=pl.Mem.Left)
             y_Right = pl.tile.move(y, target_memory=pl.Mem.Right)
             z: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x_Left, y_Right)

    A load or create without ``target_memory`` (and a tile parameter without a space) lands in the
    space its consumers demand when that is Vec or Mat, else in Vec; an explicit ``target_memory`` is
    never changed. A loop carry takes the space its body yields (its init is moved there before the
    loop); an if's result takes its first branch's space (the other branch moves its value). A move
    is made once per (value, space) in a block and reused in the blocks nested in it.

    Kernels reach it in tile ops of rank <= 2 (ConvertTensorToTileOps lowers tensor ops before it);
    TileMemoryInferred and AccToGmStoreValid are checked on its output, as it enters ``placed``.
    """

    source = tiled
    target = placed
    requires = frozenset({TileOps2D})
    # Applied on its own, what the established pass requires: SSA kernels of tile ops in flat blocks
    # (tiles of any rank, nested calls, casts and slices not yet legalised).
    accepts = STRUCTURAL | {SSAForm, IncoreTileOps, SplitIncoreOrch, NormalizedStmtStructure}
    produces = frozenset({TileMemoryInferred, AivSplitValid, AccToGmStoreValid})
    invalidates = frozenset({AivSplitValid})

    def applies(self, func: Function) -> bool:
        return is_incore_type(func.func_type) and not _settled(func)

    def function(self, func: Function) -> Function:
        self.spaces: dict[int, list] = {}  # the function's calls are alive for the whole rewrite
        self.demand = demands(func, self.spaces)
        self.current: Var | None = None
        for p in func.params:
            if isinstance(p.type, TileType) and p.type.memory_space is None:
                self.bind(p, Var(p.name_hint, with_space(p.type, _landing(self.demand.get(p))), p.span))
        return super().function(func)

    # ---- calls -----------------------------------------------------------------------------------

    def moved(self, value: Expr, space: MemorySpace, span) -> Expr:
        """``value`` in ``space``: a ``tile.move`` before the current statement, once per block."""
        key = ("move", value, space)
        found = self.env.get(key)
        if found is not None:
            return found
        base = f"{value.name_hint}_{space.name}" if isinstance(value, Var) else f"tile_{space.name}"
        name = self.names.name(base, lambda n: base if n == 0 else f"{base}_{n}")
        call = op_registry.create_op_call("tile.move", [value], {"target_memory": space}, span)
        var = Var(name, call.type, span)
        self.emit(AssignStmt(var, call, span))
        self.env[key] = var
        return var

    def call(self, old: Call) -> Call:
        """``old`` with operands moved into allowed spaces and its type deduced again if anything changed."""
        new = self.expr(old)
        name = op_name(new)
        entry = op_registry.lookup(name) if name else None
        if entry is None or entry.memory is None:
            return new
        args = list(new.args)
        bound = self.spaces.get(id(new)) if new is old else None  # worked out by demands()
        for i, (arg, allowed) in enumerate(operand_spaces(new) if bound is None else bound):
            space = _space(arg)
            if allowed and space is not None and space not in allowed:
                args[i] = self.moved(arg, allowed[0], new.span)
        kwargs = dict(new.kwargs)
        if name in _FREE_TARGET and "target_memory" not in kwargs:
            kwargs["target_memory"] = _landing(self.demand.get(self.current))
        unchanged = all(a is b for a, b in zip(args, old.args)) and kwargs == old.kwargs
        if unchanged and not (isinstance(old.type, TileType) and old.type.memory_space is None):
            return new
        rtype, stored = op_registry.deduce_type(entry, args, kwargs, new.span)
        if isinstance(rtype, TileType) and rtype.memory_space is None:
            rtype = with_space(rtype, Vec)
        return Call(new.op, args, stored, new.attrs, rtype, new.span)

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        self.current = node.var
        value = self.call(node.value) if isinstance(node.value, Call) else self.expr(node.value)
        var = node.var
        if isinstance(value.type, TileType) and value.type is not var.type and value.type != var.type:
            var = Var(var.name_hint, value.type, var.span)
            self.bind(node.var, var)
        return rebuild(node, var=var, value=value)

    @on(EvalStmt)
    def _eval(self, node: EvalStmt) -> Result:
        self.current = None
        return rebuild(node, expr=self.call(node.expr) if isinstance(node.expr, Call) else self.expr(node.expr))

    # ---- control flow ----------------------------------------------------------------------------

    @on(ForStmt, WhileStmt)
    def _loop(self, node: ForStmt | WhileStmt) -> Result:
        inits = [self.expr(ia.initValue) for ia in node.iter_args]
        types = [init.type for init in inits]
        names = self.names
        for _ in range(_MAX_ROUNDS):
            self.names = copy.deepcopy(names)
            iter_args, condition, body = self._round(node, types, inits)
            yielded = self._yielded(body, len(types))
            if yielded == types:
                break
            types = yielded
        else:
            raise self.error("the memory spaces of this loop's carried tiles do not settle", node.span)
        if any(_space(i) != _space(ia) for i, ia in zip(inits, iter_args)):
            # The carry's space is the body's: move the inits there, then rewrite the body for them.
            self.names = names
            inits = [self.moved(i, _space(ia), node.span) if _space(i) != _space(ia) else i
                     for i, ia in zip(inits, iter_args)]
            iter_args, condition, body = self._round(node, types, inits)
        returns = self._returns(node.return_vars, [ia.type for ia in iter_args])
        changes = {"iter_args": iter_args, "body": body, "return_vars": returns}
        if isinstance(node, WhileStmt):
            changes["condition"] = condition
        else:
            changes.update(start=self.expr(node.start), stop=self.expr(node.stop), step=self.expr(node.step))
        if all(a is b for a, b in zip(iter_args, node.iter_args)):
            changes["iter_args"] = node.iter_args
        return rebuild(node, **changes)

    def _round(self, node: ForStmt | WhileStmt, types: list, inits: list[Expr]) -> tuple[list[IterArg], Expr | None, Stmt]:
        """The loop's carries typed ``types`` with ``inits``, and its condition and body rewritten for them."""
        iter_args = []
        for ia, t, init in zip(node.iter_args, types, inits):
            new = ia if t == ia.type and init is ia.initValue else IterArg(ia.name_hint, t, init, ia.span)
            self.bind(ia, new)
            iter_args.append(new)
        condition = self.expr(node.condition) if isinstance(node, WhileStmt) else None
        return iter_args, condition, self.body(node.body, {_PHI: None})

    @staticmethod
    def _yielded(body: Stmt, count: int) -> list:
        stmts = flatten_to_stmts(body)
        last = stmts[-1] if stmts else None
        if not isinstance(last, YieldStmt) or len(last.value) != count:
            return []
        return [v.type for v in last.value]

    def _returns(self, old: list[Var], types: list) -> list[Var]:
        out = []
        for rv, t in zip(old, types):
            new = rv if t == rv.type else Var(rv.name_hint, t, rv.span)
            if new is not rv:
                self.bind(rv, new)
            out.append(new)
        return old if all(a is b for a, b in zip(out, old)) else out

    @on(IfStmt)
    def _if(self, node: IfStmt) -> Result:
        condition = self.expr(node.condition)
        then_body = self.body(node.then_body, {_PHI: None})
        types = self._yielded(then_body, len(node.return_vars))
        else_body = self.body(node.else_body, {_PHI: types or None})
        returns = self._returns(node.return_vars, types) if types else node.return_vars
        return rebuild(node, condition=condition, then_body=then_body, else_body=else_body, return_vars=returns)

    @on(YieldStmt)
    def _yield(self, node: YieldStmt) -> Result:
        values = [self.expr(v) for v in node.value]
        want = self.env.get(_PHI)
        if want:
            for i, (value, t) in enumerate(zip(values, want)):
                space = t.memory_space if isinstance(t, TileType) else None
                if space is not None and _space(value) not in (None, space):
                    values[i] = self.moved(value, space, node.span)
        return rebuild(node, value=values if any(a is not b for a, b in zip(values, node.value)) else node.value)
