"""ExpandMixedKernel: InCore kernels become AIC (cube) or AIV (vector) kernels (docs/passes.md#expandmixedkernel).

Which side runs a call is :func:`pypto.languages.invariants.affinity.affinity`, the rule the
MixedKernelExpanded check uses. A kernel on one side is only retyped. A kernel ``F`` mixing both
sides (a matmul and vector work in one ``pl.at`` scope) becomes ``F_aic`` and ``F_aiv`` called by a
Group function ``F`` (callers keep calling ``F``; a hand-written Group, or a ``pl.cluster()``'s, that
calls ``F`` calls ``F_aic`` and ``F_aiv`` instead, a Group being one mixed task):

* each side keeps its own statements and the shared scalar ones; loops and branches holding both
  are copied to both sides, and each side drops the carries and statements it does not need;
* a tile moved across (``pl.move`` Acc -> Vec, Vec -> Mat/Left/Right, ``tile.aiv_shard``,
  ``tile.aic_gather``) is pushed by its producer (``tpush_to_aiv`` / ``tpush_to_aic``) and popped by
  its consumer (``tpop_from_aic`` / ``tpop_from_aiv``, then a move into Left/Right), which frees the
  slot (``tfree_to_aic`` / ``tfree_to_aiv``) after its last use of the popped tile;
* the consumer of each direction reserves the ring buffer (``reserve_buffer(base=pl.AUTO)``, size
  ``slot_size * slot_num``, or ``slot_size * local_slot_num`` on a2a3, whose ring lives in GM with
  local_slot_num slots (2) kept on chip), the producer imports it, and both initialise the pipe (``dir_mask`` 1
  cube->vector, 2 vector->cube, 3 both; ``slot_size`` the largest tile a slot carries;
  ``slot_num`` from ``pl.cross_core_slot(slot_num=N)``, else 8 for one direction, 4 for both);
* ``pl.split(UP_DOWN | LEFT_RIGHT)``: the AIV kernel runs on both AIV lanes, each on half the rows
  (columns) of the vector work (:mod:`pypto.transform.vector_split`); a vector op that reduces
  across the split axis is an error. A ``pl.split_aiv`` kernel's regions run on both lanes as
  written. Without a split, on a2a3 (whose cube-vector handshakes count both lanes) the AIV kernel
  is marked ``dual_aiv_dispatch`` too: SplitVectorKernel then has lane 1 replay only its pipe traffic.

Written values that cross sides must be tiles moved as above or tensors written to parameters; a
scalar computed on one side and used on the other is an error, and so is a tile that is only
partly valid along the axis ``pl.split`` halves. The Group and its pipes print as PTO-ISA and CCE
(docs/codegen.md#groups) and run on a2a3sim.
"""

from __future__ import annotations

from pypto.analysis import function_index, op_name
from pypto.analysis.defuse import stmt_reads, use_counts
from pypto.analysis.index import FunctionIndex
from pypto.languages.invariants import (
    HardSyncallOccupancyValid,
    KernelNodes,
    MixedKernelExpanded,
)
from pypto.languages.invariants.affinity import BY_OPERANDS, CUBE_SPACES, Affinity, affinity, named_affinity
from pypto.languages.placed import placed

from pypto.ir import op_registry
from pypto.ir.datatype import DataType
from pypto.ir.enums import FunctionType, MemorySpace, SplitMode
from pypto.ir.expr import Call, ConstInt, Expr, GlobalVar, Var
from pypto.ir.function import DERIVED_LEVEL_ROLE
from pypto.ir.function import Function, Program
from pypto.ir.node import replace
from pypto.ir.parts import copy_parts
from pypto.ir.ops.common import tile_type
from pypto.ir.ops.cross_core_ops import AUTO, PIPE_SETUPS, default_local_slot_num, default_slot_num, slot_bytes
from pypto.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    SplitAivScopeStmt,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from pypto.ir.transforms import collect_def_vars, deep_clone, flatten_to_stmts, substitute_stmt
from pypto.ir.type_base import ScalarType, TupleType, Type
from pypto.ir.types import TensorType, TileType

from pypto.transform.base import ProgramPass
from pypto.transform.context import PassContext
from pypto.transform.dce import eliminate_dead_code, sweep_dead_code
from pypto.transform.errors import PassError
from pypto.transform.program_rebuild import with_functions
from pypto.transform.rewrite import Rewrite, on
from pypto.transform.vector_split import halve

_POPS = {"tile.tpop_from_aic": "system.tfree_to_aic", "tile.tpop_from_aiv": "system.tfree_to_aiv"}
# Slots per direction when the kernel gives no pl.cross_core_slot: PTOAS's defaults.


def _sides(calls: list[Call]) -> set[Affinity]:
    """The affinities of ``calls``, each call's worked out once, read until they decide a split."""
    found: set[Affinity] = set()
    for call in calls:
        found.add(affinity(call))
        if Affinity.BOUNDARY in found or (Affinity.CUBE in found and Affinity.VECTOR in found):
            break
    return found


def _single_side(index: FunctionIndex) -> FunctionType | None:
    """The kernel type of a function whose calls (``index`` of its nodes) run on one side (AIC when
    some is cube work, else AIV); None when it must be split (a boundary op, or cube and vector work)."""
    if index.has(GlobalVar):  # a function call's side is its attrs': each call is looked at
        found = _sides(index.of(Call))
    else:
        # An op whose name decides its side counts once, not per call (most ops of a kernel).
        found = set()
        for name in index.op_names:
            side = named_affinity(name)
            found |= _sides(index.calls_to(name)) if side == BY_OPERANDS else {side}
    if Affinity.BOUNDARY in found or (Affinity.CUBE in found and Affinity.VECTOR in found):
        return None
    return FunctionType.AIC if Affinity.CUBE in found else FunctionType.AIV


def _tile_bytes(t: TileType) -> int:
    n = 1
    for d in t.shape:
        n *= d.value if isinstance(d, ConstInt) else 0
    return (n * t.dtype.get_bit() + 7) // 8


class _Side:
    """One side's copy of a mixed kernel body: its own statements, shared ones, and its pipe ends."""

    def __init__(self, pass_name: str, side: Affinity, split: int) -> None:
        self.pass_name = pass_name
        self.side = side
        self.split = split
        # The cube's side of each tile crossing (whole: a split halves only the vector side).
        self.c2v: list[TileType] = []  # tiles the cube pushes to the vector side
        self.v2c: list[TileType] = []  # tiles the cube pops from the vector side

    def block(self, body: Stmt) -> Stmt:
        out: list[Stmt] = []
        for s in flatten_to_stmts(body):
            out.extend(self.stmt(s))
        return out[0] if len(out) == 1 else SeqStmts(out, body.span)

    def stmt(self, s: Stmt) -> list[Stmt]:
        if isinstance(s, (AssignStmt, EvalStmt)):
            value = s.value if isinstance(s, AssignStmt) else s.expr
            where = affinity(value)
            if where is Affinity.BOUNDARY:
                return self.transfer(s)
            if where is Affinity.SHARED and isinstance(s, AssignStmt) and isinstance(s.var.type, TileType):
                where = Affinity.CUBE if s.var.type.memory_space in CUBE_SPACES else Affinity.VECTOR
            return [s] if where in (Affinity.SHARED, self.side) else []
        if isinstance(s, SplitAivScopeStmt):  # the region runs on each lane of the AIV kernel
            return flatten_to_stmts(self.block(s.body))
        if isinstance(s, IfStmt):
            other = self.block(s.else_body) if s.else_body is not None else None
            return [replace(s, then_body=self.block(s.then_body), else_body=other)]
        if isinstance(s, (ForStmt, WhileStmt, ScopeStmt)):
            return [replace(s, body=self.block(s.body))]
        return [s]

    def transfer(self, s: Stmt) -> list[Stmt]:
        """A value crossing sides: the producer pushes it, the consumer pops it."""
        call = s.value if isinstance(s, AssignStmt) else s.expr
        name = op_name(call)
        if not isinstance(s, AssignStmt) or name not in ("tile.move", "tile.aiv_shard", "tile.aic_gather"):
            raise PassError(
                self.pass_name,
                f"{name} moves a tile between the cube and vector sides in a way ExpandMixedKernel cannot "
                "turn into a pipe",
                call.span,
                "move whole tiles with pl.move (Acc -> Vec, Vec -> Mat/Left/Right) across the sides",
            )
        src, span = call.args[0], call.span
        to_vector = name == "tile.aiv_shard" or (
            name == "tile.move" and isinstance(src.type, TileType) and src.type.memory_space in CUBE_SPACES
        )
        split = int(call.kwargs.get("split", self.split))
        op = op_registry.create_op_call
        if to_vector:
            if self.side is Affinity.CUBE:
                return [EvalStmt(op("tile.tpush_to_aiv", [src], {"split": split}, span), span)]
            self.c2v.append(src.type)
            return [AssignStmt(s.var, op("tile.tpop_from_aic", [], {"split": split}, span), span)]
        if self.side is Affinity.VECTOR:
            self.v2c.append(s.var.type)
            return [EvalStmt(op("tile.tpush_to_aic", [src], {"split": split}, span), span)]
        t = s.var.type
        if t.memory_space is MemorySpace.Mat:
            return [AssignStmt(s.var, op("tile.tpop_from_aiv", [], {"split": split}, span), span)]
        mat = Var(f"{s.var.name_hint}_mat", tile_type(list(t.shape), t.dtype, space=MemorySpace.Mat), span)
        return [
            AssignStmt(mat, op("tile.tpop_from_aiv", [], {"split": split}, span), span),
            AssignStmt(s.var, op("tile.move", [mat], {"target_memory": t.memory_space}, span), span),
        ]


def _roots(func: Function) -> dict[Var, Var]:
    """Each tensor variable of ``func`` that stands for a parameter's GM buffer -> that parameter."""
    defs: dict[Var, Expr] = {}

    def visit(body: Stmt) -> None:
        for s in flatten_to_stmts(body):
            if isinstance(s, AssignStmt):
                value = s.value
                if op_name(value) == "tile.store":
                    defs[s.var] = value.args[2]
                elif op_name(value) is None and isinstance(value, Var):
                    defs[s.var] = value
            elif isinstance(s, (ForStmt, WhileStmt)):
                for ia, rv in zip(s.iter_args, s.return_vars):
                    defs[ia] = ia.initValue
                    defs[rv] = ia.initValue
                visit(s.body)
            elif isinstance(s, IfStmt):
                for body in (s.then_body, s.else_body):
                    if body is not None:
                        visit(body)

    visit(func.body)
    params = set(func.params)
    roots: dict[Var, Var] = {}
    for v in defs:
        seen, cur = set(), v
        while cur in defs and cur not in seen and isinstance(cur, Var):
            seen.add(cur)
            cur = defs[cur]
        if cur in params:
            roots[v] = cur
    return roots


def _insert_frees(body: Stmt) -> Stmt:
    """``system.tfree_to_aic/aiv(t)`` after the last statement of its block that reads popped ``t``."""
    stmts = [_free_nested(s) for s in flatten_to_stmts(body)]
    out = list(stmts)
    for s in stmts:
        if not (isinstance(s, AssignStmt) and op_name(s.value) in _POPS):
            continue
        at = next(i for i, x in enumerate(out) if x is s)
        for j in range(len(out) - 1, at, -1):
            if s.var in stmt_reads(out[j]):
                at = j
                break
        if isinstance(out[at], (YieldStmt, ReturnStmt)):
            raise PassError("ExpandMixedKernel", f"the popped tile '{s.var.name_hint}' leaves its block", s.span,
                            "use a tile popped from a pipe inside the loop or branch that pops it")
        split = s.value.kwargs.get("split", 0)
        free = op_registry.create_op_call(_POPS[op_name(s.value)], [s.var], {"split": split} if split else {}, s.span)
        out.insert(at + 1, EvalStmt(free, s.span))
    return out[0] if len(out) == 1 else SeqStmts(out, body.span)


def _free_nested(s: Stmt) -> Stmt:
    if isinstance(s, IfStmt):
        other = _insert_frees(s.else_body) if s.else_body is not None else None
        return replace(s, then_body=_insert_frees(s.then_body), else_body=other)
    if isinstance(s, (ForStmt, WhileStmt, ScopeStmt)):
        return replace(s, body=_insert_frees(s.body))
    return s


def _call_type(func: Function) -> Type:
    types = func.return_types
    return types[0] if len(types) == 1 else TupleType(list(types))


def _slot_sizes(vector: _Side) -> list[int]:
    """The bytes a slot must hold for each crossing tile: the cube's whole tile, split or not
    (cross_core_ops.slot_bytes, as MixedKernelExpanded checks)."""
    return ([slot_bytes("tile.tpush_to_aiv", _tile_bytes(t), 0) for t in vector.c2v]
            + [slot_bytes("tile.tpop_from_aiv", _tile_bytes(t), 0) for t in vector.v2c])


class _GroupCallers(Rewrite):
    """A hand-written Group's call of a split kernel ``F`` becomes calls of ``F_aic`` and ``F_aiv``:
    a Group is one mixed task of one AIC and one AIV kernel, so it cannot launch the Group ``F``."""

    def __init__(self, sides: dict[str, tuple[Function, Function]]) -> None:
        self.sides = sides

    def convert(self, func: Function) -> Function:
        self.start(func)
        return self.function(func)

    @on(AssignStmt, EvalStmt)
    def _call(self, node: AssignStmt | EvalStmt) -> Stmt | list[Stmt]:
        call = node.value if isinstance(node, AssignStmt) else node.expr
        name = call.op.name if isinstance(call, Call) and isinstance(call.op, GlobalVar) else None
        if name not in self.sides:
            return self.children(node)
        aic, aiv = self.sides[name]
        args, span = self.expr(call.args), call.span
        first = EvalStmt(Call(GlobalVar(aic.name), list(args), TupleType([]), span), span)
        second = Call(GlobalVar(aiv.name), list(args), _call_type(aiv), span)
        if isinstance(node, EvalStmt):
            return [first, EvalStmt(second, node.span)]
        return [first, AssignStmt(self.define(node.var), second, node.span)]


def _into_group_callers(funcs: list[Function], sides: dict[str, tuple[Function, Function]],
                        written: set[str]) -> list[Function]:
    """Hand-written Groups (``written``: the functions of the pass's input) launch the kernels of the
    split kernels they call; the new Group ``F`` stays only for callers that are no Group."""
    out = [_GroupCallers(sides).convert(f) if f.func_type is FunctionType.Group and f.name in written else f
           for f in funcs]
    called = {c.op.name for f in out if f.name not in sides for c in function_index(f).of(Call)
              if isinstance(c.op, GlobalVar)}
    return [f for f in out if f.name not in sides or f.name in called or f.func_type is not FunctionType.Group]


class ExpandMixedKernel(ProgramPass):
    """Retype each single-side InCore function; split each mixed one into AIC + AIV kernels in a Group.

    before:  @pl.function(type=pl.FunctionType.InCore)
             def k(self, a, b, c):
                 ... acc = pl.matmul(a_l0, b_l0)
                 x = pl.move(acc, target_memory=pl.Mem.Vec)
                 y = pl.exp(x) ...
    after:   def k_aic(self, a, b, c):       (AIC)     def k_aiv(self, a, b, c):          (AIV)
                 c2v = pl.import_peer_buffer(...)          c2v = pl.reserve_buffer(..., base=pl.AUTO)
                 pl.aic_initialize_pipe(c2v, 0, ...)       pl.aiv_initialize_pipe(c2v, 0, ...)
                 ... acc = pl.matmul(a_l0, b_l0)           x = pl.tpop_from_aic(split=0)
                 pl.tpush_to_aiv(acc, split=0)             y = pl.exp(x); pl.tfree_to_aic(x) ...
             def k(self, a, b, c):           (Group)
                 self.k_aic(a, b, c); self.k_aiv(a, b, c); return c

    A kernel with only cube work (Mat/Left/Right/Acc tiles, matmuls, loads into Mat, stores from
    Acc) becomes AIC; every other single-side kernel becomes AIV. The kernel's ``slot_num`` attr
    (``pl.cross_core_slot``) sets the pipe depth.
    """

    source = placed
    produces = frozenset({MixedKernelExpanded, KernelNodes, HardSyncallOccupancyValid})

    def run(self, program: Program) -> Program:
        new: list[Function] = []
        changed = False
        sides: dict[str, tuple[Function, Function]] = {}
        for func in program.functions.values():
            out = self.expand(func)
            changed = changed or len(out) != 1 or out[0] is not func
            if len(out) == 3:
                sides[func.name] = (out[0], out[1])
            new.extend(out)
        if not changed:
            return program
        if not sides:  # each kernel kept or retyped, under its name
            return with_functions(program, new)
        new = _into_group_callers(new, sides, {f.name for f in program.functions.values()})
        return Program(new, program.name, program.span)

    def expand(self, func: Function) -> list[Function]:
        """``func`` retyped, or split into ``[F_aic, F_aiv, F]``; other functions unchanged."""
        if func.func_type is not FunctionType.InCore:
            return [func]
        kind = _single_side(function_index(func))
        if kind is not None:
            # The level and role follow from the new type (the constructor's table); only these fields
            # change, each to a value of the class it held: the copy needs no validation.
            level, role = DERIVED_LEVEL_ROLE[kind]
            return [copy_parts(func, {"func_type": kind, "level": level, "role": role})]
        return self.split(func)

    def split(self, func: Function) -> list[Function]:
        mode = SplitMode(func.attrs.get("split") or SplitMode.NONE)
        regions = [n for n in function_index(func).of(SplitAivScopeStmt)]
        lane_split = int(regions[0].split) if regions else 0
        cube = _Side(self.name, Affinity.CUBE, int(mode))
        vector = _Side(self.name, Affinity.VECTOR, int(mode))
        aic_body = cube.block(func.body)
        aiv_body = vector.block(func.body)
        if mode is not SplitMode.NONE:
            aiv_body = self.halve(func, mode, vector, aiv_body)
            lane_split = int(mode)
        roots = _roots(func)
        self.check_gm_handoff(func, roots)
        aic_name, aiv_name = f"{func.name}_aic", f"{func.name}_aiv"
        written = [c for c in function_index(func).of(Call) if op_name(c) in PIPE_SETUPS]
        self.check_slots(written, vector)
        setup = ([], []) if written else self.pipe_setup(func, vector, aic_name, aiv_name)
        aic = self.side_function(func, aic_name, FunctionType.AIC, aic_body, roots, setup[0], lane_split)
        aiv = self.side_function(func, aiv_name, FunctionType.AIV, aiv_body, roots, setup[1], lane_split)
        return [aic, aiv, self.group(func, aic, aiv, roots)]

    def check_slots(self, inits: list[Call], vector: _Side) -> None:
        """The pipes a user set up by hand must hold the tiles the split sends through them."""
        need = max(_slot_sizes(vector), default=0)
        for init in inits:
            if init.kwargs["slot_size"] < need:
                raise PassError(
                    self.name,
                    f"{op_name(init)} gives slot_size={init.kwargs['slot_size']}, but the split sends "
                    f"{need}-byte tiles through the pipe",
                    init.span,
                    f"give slot_size={need} or more, or leave the pipe set-up to ExpandMixedKernel",
                )

    def check_gm_handoff(self, func: Function, roots: dict[Var, Var]) -> None:
        """A tensor one side stores and the other loads would need a synchronisation the split lacks."""
        stored: dict[Var, tuple[Affinity, Call]] = {}
        for call in function_index(func).of(Call):
            name = op_name(call)
            if name not in ("tile.store", "tile.load"):
                continue
            tensor = call.args[2] if name == "tile.store" else call.args[0]
            # Parameters by identity: ``in`` on a list compares with ``==``, which builds an Eq expression per item.
            param = tensor if any(tensor is p for p in func.params) else roots.get(tensor, tensor)  # or a tensor it creates
            side = affinity(call)
            if name == "tile.store":
                stored[param] = (side, call)
            elif param in stored and stored[param][0] is not side:
                raise PassError(
                    self.name,
                    f"kernel '{func.name}' stores '{param.name_hint}' on the {stored[param][0].value} side "
                    f"(at {stored[param][1].span}) and loads it back on the {side.value} side",
                    call.span,
                    "hand the tile across with pl.move instead of a round trip through global memory",
                )

    def halve(self, func: Function, mode: SplitMode, vector: _Side, body: Stmt) -> Stmt:
        """Under ``pl.split(mode)`` each AIV lane computes half of the vector work."""
        axis = -2 if mode is SplitMode.UP_DOWN else -1
        extents = {t.shape[axis].value if isinstance(t.shape[axis], ConstInt) else None
                   for t in vector.c2v + vector.v2c}
        if len(extents) != 1 or None in extents or min(extents) % 2:
            raise PassError(
                self.name,
                f"pl.split({mode.name}) of kernel '{func.name}' needs the tiles crossing between cube and vector "
                f"to share one even {'row' if axis == -2 else 'column'} count, got {sorted(map(str, extents))}",
                func.span,
                "make the tiles crossing between the sides one even size along the split axis, or split the other "
                "way",
            )
        lane = Var("subblock_idx", ScalarType(DataType.INDEX), func.span)
        index = AssignStmt(lane, op_registry.create_op_call("tile.get_subblock_idx", [], {}, func.span), func.span)
        return SeqStmts([index, halve(self.name, body, mode, extents.pop(), lane)], body.span)

    def pipe_setup(self, func: Function, vector: _Side, aic: str, aiv: str) -> tuple[list[Stmt], list[Stmt]]:
        """Reserve/import the slot buffers and initialise the pipes on both sides."""
        sizes = _slot_sizes(vector)
        if not sizes:
            return [], []
        dir_mask = (1 if vector.c2v else 0) | (2 if vector.v2c else 0)
        slot_num = func.attrs.get("slot_num") or default_slot_num(dir_mask)
        ring = PassContext.current().platform.pipe_buffer_slots(slot_num, default_local_slot_num(slot_num))
        slot_size = max(sizes)
        span, op = func.span, op_registry.create_op_call
        zero = ConstInt(0, DataType.INT32, span)
        sides: dict[str, list[Stmt]] = {"aic": [], "aiv": []}
        bufs: dict[str, dict[str, Expr]] = {"aic": {"c2v": zero, "v2c": zero}, "aiv": {"c2v": zero, "v2c": zero}}
        for direction, bit, consumer, producer in (("c2v", 1, "aiv", "aic"), ("v2c", 2, "aic", "aiv")):
            if not dir_mask & bit:
                continue
            name = f"{func.name}_{direction}_slot_buffer"
            peer = aiv if consumer == "aiv" else aic
            own = Var(f"{direction}_buf", ScalarType(DataType.INT32), span)
            imported = Var(f"{direction}_buf", ScalarType(DataType.INT32), span)
            reserve = op("system.reserve_buffer", [], {"name": name, "size": slot_size * ring, "base": AUTO}, span)
            sides[consumer].append(AssignStmt(own, reserve, span))
            sides[producer].append(
                AssignStmt(imported, op("system.import_peer_buffer", [], {"name": name, "peer_func": peer}, span), span)
            )
            bufs[consumer][direction], bufs[producer][direction] = own, imported
        kwargs = {"dir_mask": dir_mask, "slot_size": slot_size, "slot_num": slot_num}
        for side in ("aic", "aiv"):
            init = op(f"system.{side}_initialize_pipe", [bufs[side]["c2v"], bufs[side]["v2c"]], dict(kwargs), span)
            sides[side].append(EvalStmt(init, span))
        return sides["aic"], sides["aiv"]

    def side_function(
        self,
        func: Function,
        name: str,
        kind: FunctionType,
        body: Stmt,
        roots: dict[Var, Var],
        setup: list[Stmt],
        lane_split: int,
    ) -> Function:
        stmts = flatten_to_stmts(body)
        return_types = list(func.return_types)
        if kind is FunctionType.AIC:  # the AIC kernel returns nothing: the AIV kernel writes back
            stmts = [s for s in stmts if not isinstance(s, ReturnStmt)]
            return_types = []
        side = replace(func, name=name, func_type=kind, level=None, role=None, body=SeqStmts(stmts, body.span),
                       return_types=return_types)
        # Carries this side does not need go first; what it still reads from the other side is rerouted.
        side, dropped = sweep_dead_code(side)
        rerouted = self.reroute(func, name, side.body, roots)
        if rerouted is not side.body:
            side = replace(side, body=rerouted)
        # Rerouting renames only variables this side does not define, so it changes no liveness: a
        # second run finds more only after a loop or branch was dropped (sweep_dead_code).
        if dropped:
            side = eliminate_dead_code(side)
        stmts = setup + flatten_to_stmts(_insert_frees(side.body))
        attrs = {k: v for k, v in func.attrs.items() if k not in ("slot_num", "split", "split_aiv")}
        if lane_split and kind is FunctionType.AIV:
            attrs["split"] = SplitMode(lane_split)
            if func.attrs.get("split_aiv"):
                attrs["split_aiv"] = True
        elif kind is FunctionType.AIV and PassContext.current().platform.dual_aiv_dispatch:
            attrs["dual_aiv_dispatch"] = True  # lane 1 replays the pipe traffic (SplitVectorKernel)
        if kind is FunctionType.AIC:
            # The sides share the statements and variables they both keep; ``func`` itself leaves the
            # program (the Group has parameters of its own), so a copy for the AIV side is enough.
            return replace(side, body=SeqStmts(stmts, body.span), attrs=attrs)
        params = [Var(p.name_hint, p.type, p.span) for p in func.params]
        mapping = dict(zip(func.params, params))
        new_body = deep_clone(SeqStmts(stmts, body.span), mapping)
        return replace(side, params=params, body=new_body, attrs=attrs)

    def reroute(self, func: Function, name: str, body: Stmt, roots: dict[Var, Var]) -> Stmt:
        """Uses of a tensor written on the other side read the parameter it writes instead."""
        defined = set(func.params) | set(collect_def_vars(body))
        mapping: dict[Var, Expr] = {}
        for v in use_counts(body):  # in read order: the error names the first read, the same each run
            if v in defined:
                continue
            if isinstance(v.type, TensorType) and v in roots:
                mapping[v] = roots[v]
                continue
            raise PassError(
                self.name,
                f"'{v.name_hint}' is computed on the other side of the split kernel but used by '{name}'",
                v.span,
                "only tiles moved with pl.move and tensors written to parameters cross between cube and vector",
            )
        return substitute_stmt(body, mapping) if mapping else body

    def group(self, func: Function, aic: Function, aiv: Function, roots: dict[Var, Var]) -> Function:
        """``F``: runs ``F_aic`` and ``F_aiv`` together and returns the parameters they write."""
        params = [Var(p.name_hint, p.type, p.span) for p in func.params]
        by_param = dict(zip(func.params, params))
        span = func.span
        last = flatten_to_stmts(func.body)[-1]
        values = list(last.value) if isinstance(last, ReturnStmt) else []
        results: list[Expr] = []
        for v in values:
            root = v if v in by_param else roots.get(v)
            if root is None:
                raise PassError(self.name, f"kernel '{func.name}' returns '{v}', which is not a parameter it writes",
                                span, "return the Out/InOut tensors the kernel stores to")
            results.append(by_param[root])
        body = [
            EvalStmt(Call(GlobalVar(aic.name), list(params), TupleType([]), span), span),
            EvalStmt(Call(GlobalVar(aiv.name), list(params), _call_type(aiv), span), span),
            ReturnStmt(results, span),
        ]
        return replace(
            func, params=params, func_type=FunctionType.Group, level=None, role=None, body=SeqStmts(body, span),
            attrs={},
        )
