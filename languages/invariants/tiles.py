"""Kernel-body invariants of the tiled dialects: tile ops only, at most 2-D, memory spaces known,
and the dtype rules of Acc and atomic stores."""

from __future__ import annotations

from pypto.analysis import function_index, op_name

from dataclasses import replace

from pypto.ir import op_registry
from pypto.ir.enums import AtomicType, MemorySpace, is_incore_type
from pypto.ir.expr import Call
from pypto.ir.function import Function, Program
from pypto.ir.types import TensorType, TileType

from .base import Invariant, Reporter
from .grammar import KERNELS, Field, Forbid, Length, LiteralTuple, Ops, Present, RankAtMost, inside, op
from .scopes import TENSOR_COMPUTE

IncoreTileOps = Invariant.declared(
    "IncoreTileOps",
    "kernels use tile ops: no tensor op with a tile counterpart (tensor.read/write excepted)",
    Forbid(
        what=replace(TENSOR_COMPUTE, exclude=frozenset({"tensor.read", "tensor.write"})),
        where=inside(*KERNELS),
        code="TENSOR_OP_IN_KERNEL",
        message="{op} in a {kind} function (convert it to tile ops)",
    ),
)

TileOps2D = Invariant.declared(
    "TileOps2D",
    "kernel tile ops produce tiles of rank <= 2 (transpose with a scratch operand, 2-D assemble offsets)",
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
)


def _check_space_constraints(func: Function, program: Program, report: Reporter) -> None:
    if not is_incore_type(func.func_type):
        return
    for call in function_index(func).of(Call):
        name = op_name(call)
        spec = op_registry.get_op_memory_spec(name) if name and op_registry.lookup(name) else None
        if spec is None:
            continue
        for i, (arg, allowed) in enumerate(zip(call.args, spec["input_constraints"])):
            space = arg.type.memory_space if isinstance(arg.type, TileType) else None
            if allowed and space is not None and space not in allowed:
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
)


def _first_tensor(call: Call) -> TensorType | None:
    for arg in call.args:
        if isinstance(arg.type, TensorType):
            return arg.type
    return None


def _check_acc_store(func: Function, program: Program, report: Reporter) -> None:
    for call in function_index(func).of(Call):
        if op_name(call) != "tile.store" or not call.args:
            continue
        source, target = call.args[0].type, _first_tensor(call)
        from_acc = isinstance(source, TileType) and source.memory_space is MemorySpace.Acc
        if from_acc and target is not None and target.dtype not in report.platform.acc_store_dtypes:
            report.error("ACC_STORE_DTYPE", f"an Acc tile is stored into a {target.dtype} tensor", call)


AccToGmStoreValid = Invariant.per_function(
    "AccToGmStoreValid",
    "a tile.store from Acc targets an INT32, FP32, FP16 or BF16 tensor",
    _check_acc_store,
    auto_verified=True,
)


def _check_atomic(func: Function, program: Program, report: Reporter) -> None:
    allowed = report.platform.atomic_add_dtypes
    for call in function_index(func).of(Call):
        if call.kwargs.get("atomic") != AtomicType.Add:
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
