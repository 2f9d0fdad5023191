"""Kernel-body invariants of the tiled dialects: tile ops only, at most 2-D, memory spaces known,
and the dtype rules of Acc and atomic stores."""

from __future__ import annotations

import functools
import itertools
import operator
from dataclasses import replace

from pypto.analysis import function_index
from pypto.analysis.layouts import ROW_MAJOR_OPERANDS, col_major, misplaced_operands
from pypto.analysis.strided import STRIDED_READERS
from pypto.ir import op_registry
from pypto.ir.enums import AtomicType, MemorySpace, is_incore_type
from pypto.ir.expr import Call, GlobalVar, IterArg, Op, Var
from pypto.ir.function import Function, Program
from pypto.ir.type_base import ScalarType, TupleType
from pypto.ir.stmt import AssignStmt, ReturnStmt, YieldStmt
from pypto.ir.types import TensorType, TileType, is_strided, pitched

from .base import Invariant, Reporter
from .grammar import KERNELS, Field, Forbid, Length, LiteralTuple, Ops, Present, RankAtMost, inside, op
from .scopes import TENSOR_COMPUTE

_TENSOR_IO = frozenset({"tensor.read", "tensor.write"})


def _no_tensor_compute(func: Function) -> bool:
    """True when ``func`` is not a kernel or calls no tensor op but tensor.read/write: then
    IncoreTileOps' rule cannot fail."""
    return func.func_type not in KERNELS or _no_tensor_compute_in(function_index(func).op_names)


@functools.lru_cache(maxsize=1_000)
def _no_tensor_compute_in(names: frozenset[str]) -> bool:
    """True when ``names`` hold no tensor op but tensor.read/write (asked once per set of op names,
    which kernels share)."""
    return not any(n.startswith("tensor.") and n not in _TENSOR_IO for n in names)


IncoreTileOps = Invariant.declared(
    "IncoreTileOps",
    "kernels use tile ops: no tensor op with a tile counterpart (tensor.read/write excepted), no tensor.dim",
    Forbid(
        what=replace(TENSOR_COMPUTE, exclude=_TENSOR_IO),
        where=inside(*KERNELS),
        code="TENSOR_OP_IN_KERNEL",
        message="{op} in a {kind} function (convert it to tile ops)",
    ),
    Forbid(
        what=op("tensor.dim"),
        where=inside(*KERNELS),
        code="TENSOR_DIM_IN_KERNEL",
        message="tensor.dim in a {kind} function (ConvertTensorToTileOps makes it the extent)",
    ),
    holds_if=_no_tensor_compute,
)


_BATCHED = frozenset({"tile.batch_matmul", "tile.batch_matmul_acc"})


def _tiles_2d(func: Function) -> bool:
    """True when no rule of TileOps2D can fail in ``func``: it is not a kernel, or none of its tile
    ops is a transpose, an assemble or a batched matmul or produces a tile of rank above 2."""
    if func.func_type not in KERNELS:
        return True
    index = function_index(func)
    names = index.op_names  # each op once: the rank test below looks at their calls
    if "tile.transpose" in names or "tile.assemble" in names or not _BATCHED.isdisjoint(names):
        return False
    # The calls' types are among the node types, which are few: most kernels hold no tile above 2-D.
    if not any(len(t.shape) > 2 for t in index.types_of(TileType)):
        return True
    for name in names:
        if name.startswith("tile."):
            for call in index.calls_to(name):
                t = call.type
                if isinstance(t, TileType) and len(t.shape) > 2:
                    return False
    return True


TileOps2D = Invariant.declared(
    "TileOps2D",
    "kernel tile ops produce tiles of rank <= 2 (transpose with a scratch operand, 2-D assemble offsets, "
    "no batched matmul)",
    Field(
        of=Ops("tile ops", prefix="tile."),
        field="type",
        refinement=RankAtMost(2, TileType),
        where=inside(*KERNELS),
        code="RANK_ABOVE_2",
        message="{op} produces a rank-{rank} tile",
    ),
    Field(
        of=op("tile.transpose"),
        field="args",
        refinement=Length(equal=4),
        where=inside(*KERNELS),
        code="TRANSPOSE_ARGS",
        message="tile.transpose has {count} operands (needs a scratch 4th)",
    ),
    Field(
        of=op("tile.assemble"),
        field="arg:offset",
        refinement=LiteralTuple(2),
        where=inside(*KERNELS),
        code="ASSEMBLE_OFFSETS",
        message="tile.assemble offsets must be a literal 2-tuple",
    ),
    Forbid(
        what=Ops("batched matmuls", prefix="tile.batch_matmul", keep=_BATCHED.__contains__),
        where=inside(*KERNELS),
        code="BATCH_MATMUL",
        message="{op} in a kernel (FlattenTileNdTo2D makes it 2-D matmuls)",
    ),
    holds_if=_tiles_2d,
)


def _spaces_known(func: Function) -> bool:
    """True when every tile in the variable types of ``func`` has a memory space, or ``func`` is
    not a kernel: then the NO_MEMORY_SPACE rule cannot fail (one pass over the variables)."""
    if func.func_type not in KERNELS:
        return True
    index = function_index(func)
    # The variables' types are among the node types: every tile and tuple there has a space.
    if not any(map(operator.is_, map(_SPACE, index.types_of(TileType)), itertools.repeat(None))) and all(
            map(_tuple_spaces_known, index.types_of(TupleType))):
        return True
    return all(_type_space_known(var.type) for var in index.of(Var))


def _type_space_known(t: object) -> bool:
    if isinstance(t, TileType):
        return t.memory_space_ is not None
    return not isinstance(t, TupleType) or _tuple_spaces_known(t)


def _tuple_spaces_known(t: TupleType) -> bool:
    for e in t.types:
        if type(e) is ScalarType:  # the common element (offsets, shapes): the exact class first
            continue
        if isinstance(e, TileType) and e.memory_space_ is None:
            return False
        if isinstance(e, TupleType) and not _tuple_spaces_known(e):
            return False
    return True


# Per op name: its registry entry, the (argument position, allowed spaces) pairs it constrains
# (op_registry.get_op_memory_spec's input_constraints without the unconstrained positions), and the
# spaces allowed at every one of them (None when it constrains none).
_Pairs = tuple[tuple[int, tuple[MemorySpace, ...]], ...]
_CONSTRAINTS: dict[str, tuple[object, _Pairs, frozenset[MemorySpace] | None]] = {}


def _constrain(name: str, entry: object) -> tuple[object, _Pairs, frozenset[MemorySpace] | None]:
    """The ``_CONSTRAINTS`` entry of op ``name`` (registered as ``entry``, or None)."""
    inputs = entry.memory.inputs if entry is not None and entry.memory is not None else ()
    pairs = tuple((i, inputs[i]) for i in range(min(len(inputs), len(entry.params))) if inputs[i]) if inputs else ()
    everywhere = frozenset.intersection(*(frozenset(allowed) for _, allowed in pairs)) if pairs else None
    hit = _CONSTRAINTS[name] = (entry, pairs, everywhere)
    return hit


def _allowed_everywhere(name: str) -> frozenset[MemorySpace] | None:
    """The spaces op ``name`` allows at every position it constrains, None when it constrains none."""
    entry = op_registry.lookup(name)
    hit = _CONSTRAINTS.get(name)
    if hit is None or hit[0] is not entry:
        hit = _constrain(name, entry)
    return hit[2]


# Per set of op names, all registered (op_registry.register refuses a name twice, so an entry is never
# replaced; a name not registered yet may be later): the spaces allowed at every position any of them
# constrains, None when none constrains one. Kernels share their op sets.
_ALLOWED_BY_NAMES: dict[frozenset[str], frozenset[MemorySpace] | None] = {}
_NAME_SETS_LIMIT = 1_000


def _allowed_for(names: frozenset[str]) -> frozenset[MemorySpace] | None:
    """The spaces the ops ``names`` allow at every position they constrain, None when none constrains one."""
    if names in _ALLOWED_BY_NAMES:
        return _ALLOWED_BY_NAMES[names]
    common: frozenset[MemorySpace] | None = None
    for name in names:
        allowed = _allowed_everywhere(name)
        if allowed is not None:
            common = allowed if common is None else common & allowed
    if all(map(op_registry.lookup, names)):  # an unregistered name may be registered later
        if len(_ALLOWED_BY_NAMES) >= _NAME_SETS_LIMIT:
            _ALLOWED_BY_NAMES.clear()
        _ALLOWED_BY_NAMES[names] = common
    return common


_SPACE = operator.attrgetter("memory_space_")


def _outside_kernels(func: Function) -> bool:
    """``func`` is no kernel: the checks of kernel tiles (spaces, casts, slices, operand layouts) find
    nothing there (the idle test of the hand-written ones)."""
    return not is_incore_type(func.func_type)


def _check_space_constraints(func: Function, program: Program, report: Reporter) -> None:
    if _outside_kernels(func):
        return
    lookup, known = op_registry.lookup, _CONSTRAINTS
    index = function_index(func)
    # The operands' types are among the node types, which are few: when every space a tile of the
    # function is in is allowed at every constrained position of every op it calls, no call breaks one.
    spaces = set(map(_SPACE, index.types_of(TileType))) - {None}
    allowed = _allowed_for(index.op_names)
    if allowed is None or spaces <= allowed:
        return
    for call in index.of(Call):
        callee_op = call.op
        if type(callee_op) is not Op and isinstance(callee_op, GlobalVar):  # exact class first: see index.py
            continue
        name = callee_op.name
        entry = lookup(name)
        hit = known.get(name)
        if hit is None or hit[0] is not entry:  # a new op name, or the op registered again
            hit = _constrain(name, entry)
        pairs = hit[1]
        if not pairs:
            continue
        args = call.args
        for i, allowed in pairs:
            if i >= len(args):
                break
            t = args[i].type
            space = t.memory_space_ if isinstance(t, TileType) else None
            if space is not None and space not in allowed:
                wanted = "/".join(s.name for s in allowed)
                report.error("SPACE_CONSTRAINT", f"{name} argument {i} is in {space.name}, needs {wanted}", call)


TileMemoryInferred = Invariant.declared(
    "TileMemoryInferred",
    "every kernel tile has a memory space, and op operands sit in the spaces the op allows",
    Field(
        of=TileType,
        field="memory_space",
        refinement=Present(),
        where=inside(*KERNELS),
        code="NO_MEMORY_SPACE",
        message="tile '{var}' has no memory space",
    ),
    check=_check_space_constraints,
    auto_verified=True,
    holds_if=_spaces_known,
)


def _first_tensor(call: Call) -> TensorType | None:
    for arg in call.args:
        if isinstance(arg.type, TensorType):
            return arg.type
    return None


def _check_acc_store(func: Function, program: Program, report: Reporter) -> None:
    # The stores are few: looking at each one's source costs less than a scan of the function's types
    # for an Acc tile (after memory planning each tile variable has a type of its own).
    for call in function_index(func).calls_to("tile.store"):
        if not call.args:
            continue
        source = call.args[0].type
        if not isinstance(source, TileType) or source.memory_space is not MemorySpace.Acc:
            continue
        target = _first_tensor(call)
        if target is not None and target.dtype not in report.platform.acc_store_dtypes:
            report.error("ACC_STORE_DTYPE", f"an Acc tile is stored into a {target.dtype} tensor", call)


AccToGmStoreValid = Invariant.per_function(
    "AccToGmStoreValid",
    "a tile.store from Acc targets an INT32, FP32, FP16 or BF16 tensor",
    _check_acc_store,
    auto_verified=True,
)


_KWARGS = operator.attrgetter("kwargs")
_ATOMIC = operator.methodcaller("get", "atomic")


def _check_atomic(func: Function, program: Program, report: Reporter) -> None:
    allowed = report.platform.atomic_add_dtypes
    add = AtomicType.Add
    calls = function_index(func).of(Call)
    if add not in map(_ATOMIC, filter(None, map(_KWARGS, calls))):  # C-level: most calls have no keyword
        return
    for call in calls:
        kwargs = call.kwargs
        if not kwargs or kwargs.get("atomic") != add:  # most calls have no keyword at all
            continue
        target = _first_tensor(call)
        if target is not None and target.dtype not in allowed:
            report.error(
                "ATOMIC_DTYPE",
                f"atomic add into a {target.dtype} tensor is not supported on {report.platform.name}",
                call,
            )


AtomicAddDtypeValid = Invariant.per_function(
    "AtomicAddDtypeValid",
    "atomic-add writes target FP32/FP16/INT32/INT16/INT8 tensors (+BF16 on a2a3)",
    _check_atomic,
    auto_verified=True,
)


def _check_casts(func: Function, program: Program, report: Reporter) -> None:
    if _outside_kernels(func):
        return
    for call in function_index(func).calls_to("tile.cast"):
        if not isinstance(call.args[0].type, TileType):
            continue
        src, dst = call.args[0].type.dtype, call.kwargs["target_type"]
        if src != dst and dst not in report.platform.native_casts.get(src, ()):
            report.error(
                "CAST_NOT_NATIVE",
                f"tile.cast from {src.name} to {dst.name} is not a native conversion on {report.platform.name} "
                "(LegalizeTileCast splits it into native steps)",
                call,
            )


TileCastsNative = Invariant.per_function(
    "TileCastsNative",
    "every kernel tile.cast converts between a pair of dtypes the platform's TCVT converts directly",
    _check_casts,
    idle_if=_outside_kernels,
)


def _strided(value: object) -> bool:
    return isinstance(value, Var) and isinstance(value.type, TileType) and is_strided(value.type)


def _has_stride(value: Var) -> bool:
    view = value.type.tile_view if isinstance(value.type, TileType) else None
    return view is not None and bool(view.stride)


def _strided_type(t: TileType) -> bool:
    return t.tile_view is not None and bool(t.tile_view.stride)


def _check_slices(func: Function, program: Program, report: Reporter) -> None:
    if _outside_kernels(func):
        return
    index = function_index(func)
    # Only a tile with an explicit stride can be strided, and a slice's result is typed with one (the
    # variables' types are among the node types, which are few).
    if "tile.slice" not in index.op_names and (not any(map(_strided_type, index.types_of(TileType))) or (
            not any(map(_has_stride, func.params)) and not any(_has_stride(s.var) for s in index.of(AssignStmt)))):
        return
    for stmt in index.of(AssignStmt):
        call, var = stmt.value, stmt.var
        if not (isinstance(call, Call) and not isinstance(call.op, GlobalVar) and call.op.name == "tile.slice"):
            continue
        src = call.args[0].type
        if isinstance(src, TileType) and isinstance(var.type, TileType) and pitched(src, var.type) != var.type:
            report.error(
                "SLICE_NOT_PITCHED",
                f"the slice '{var.name_hint}', narrower than its source, is typed without the source's row pitch "
                "(CanonicalizeTileSlice types it as a view of the source's buffer)",
                stmt,
            )
    for call in index.of(Call):
        if isinstance(call.op, GlobalVar):
            continue
        name = call.op.name
        if name in STRIDED_READERS:
            continue
        for arg in call.args:
            if _strided(arg):
                report.error(
                    "STRIDED_READ",
                    f"{name} reads the strided tile '{arg.name_hint}' in place, which its pto-isa instruction "
                    "cannot (CanonicalizeTileSlice reads a compact copy instead)",
                    call,
                )
    for carry in index.of(IterArg):
        if _strided(carry.initValue):
            report.error(
                "STRIDED_READ",
                f"the strided tile '{carry.initValue.name_hint}' seeds the loop carry '{carry.name_hint}' as a view "
                "(CanonicalizeTileSlice passes a compact copy instead)",
                carry,
            )
    for stmt in (*index.of(YieldStmt), *index.of(ReturnStmt)):
        for value in stmt.value:
            if _strided(value):
                report.error(
                    "STRIDED_READ",
                    f"the strided tile '{value.name_hint}' leaves its block as a view "
                    "(CanonicalizeTileSlice passes a compact copy instead)",
                    stmt,
                )


TileSlicesPitched = Invariant.per_function(
    "TileSlicesPitched",
    "kernel slices narrower than their source carry its row pitch, and only ops that read a strided tile in place "
    "read one",
    _check_slices,
    idle_if=_outside_kernels,
)


def _check_layouts(func: Function, program: Program, report: Reporter) -> None:
    if _outside_kernels(func):
        return
    index = function_index(func)
    # Only a col-major vector tile can be misplaced: most kernels hold none (no node's tile type is one).
    if index.op_names.isdisjoint(ROW_MAJOR_OPERANDS) or not any(map(col_major, index.types_of(TileType))) or not any(
            col_major(v.type) for v in (*func.params, *(s.var for s in index.of(AssignStmt)), *index.of(IterArg))):
        return
    for call in index.of(Call):
        if isinstance(call.op, GlobalVar) or call.op.name not in ROW_MAJOR_OPERANDS:
            continue
        found = misplaced_operands(call)
        if found is None:
            continue
        names = [a.name_hint if isinstance(a, Var) else str(a) for a, bad in zip(call.args, found[1]) if bad]
        report.error(
            "COL_MAJOR_OPERAND",
            f"{call.op.name} runs only on row-major tiles, but its operand(s) {', '.join(names)} are col-major "
            "(ResolveBackendOpLayouts gives it row-major copies)",
            call,
        )


OperandLayoutsResolved = Invariant.per_function(
    "OperandLayoutsResolved",
    "kernel vector ops read the operands pto-isa needs row-major in row-major tiles",
    _check_layouts,
    idle_if=_outside_kernels,
)
