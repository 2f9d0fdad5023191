"""Kernel-body invariants of the tiled dialects: tile ops only, at most 2-D, memory spaces known,
and the dtype rules of Acc and atomic stores."""

from __future__ import annotations

from pypto.analysis import function_index, op_name

from pypto.ir import op_registry
from pypto.ir.enums import AtomicType, MemorySpace, is_incore_type
from pypto.ir.expr import Call, Expr, MakeTuple
from pypto.ir.function import Function, Program
from pypto.ir.stmt import AssignStmt
from pypto.ir.types import TensorType, TileType

from .base import Invariant, Reporter

_GM_ACCESS = frozenset({"tensor.read", "tensor.write"})


def _check_incore_tile_ops(func: Function, program: Program, report: Reporter) -> None:
    if not is_incore_type(func.func_type):
        return
    for call in function_index(func).of(Call):
        name = op_name(call)
        if name is None or not name.startswith("tensor.") or name in _GM_ACCESS:
            continue
        if op_registry.lookup("tile." + name.split(".", 1)[1]) is not None:
            report.error(
                "TENSOR_OP_IN_KERNEL", f"{name} in a {func.func_type.name} function (convert it to tile ops)", call
            )


IncoreTileOps = Invariant.per_function(
    "IncoreTileOps",
    "kernels use tile ops: no tensor op with a tile counterpart (tensor.read/write excepted)",
    _check_incore_tile_ops,
)


def _arg(call: Call, param: str) -> Expr | None:
    entry = op_registry.lookup(call.op.name)
    names = [p.name for p in entry.params] if entry is not None else []
    return call.args[names.index(param)] if param in names and names.index(param) < len(call.args) else None


def _check_2d(func: Function, program: Program, report: Reporter) -> None:
    if not is_incore_type(func.func_type):
        return
    for call in function_index(func).of(Call):
        name = op_name(call)
        if name is None or not name.startswith("tile."):
            continue
        if isinstance(call.type, TileType) and len(call.type.shape) > 2:
            report.error("RANK_ABOVE_2", f"{name} produces a rank-{len(call.type.shape)} tile", call)
        if name == "tile.transpose" and len(call.args) != 4:
            report.error("TRANSPOSE_ARGS", f"tile.transpose has {len(call.args)} operands (needs a scratch 4th)", call)
        if name == "tile.assemble":
            offsets = _arg(call, "offset")
            if not (isinstance(offsets, MakeTuple) and len(offsets.elements) == 2):
                report.error("ASSEMBLE_OFFSETS", "tile.assemble offsets must be a literal 2-tuple", call)


TileOps2D = Invariant.per_function(
    "TileOps2D",
    "kernel tile ops produce tiles of rank <= 2 (transpose with a scratch operand, 2-D assemble offsets)",
    _check_2d,
)


def _check_memory_inferred(func: Function, program: Program, report: Reporter) -> None:
    if not is_incore_type(func.func_type):
        return
    index = function_index(func)
    for stmt in index.of(AssignStmt):
        t = stmt.var.type
        if isinstance(t, TileType) and t.memory_space is None:
            report.error("NO_MEMORY_SPACE", f"tile '{stmt.var.name_hint}' has no memory space", stmt)
    for call in index.of(Call):
        name = op_name(call)
        spec = op_registry.get_op_memory_spec(name) if name and op_registry.lookup(name) else None
        if spec is None:
            continue
        for i, (arg, allowed) in enumerate(zip(call.args, spec["input_constraints"])):
            space = arg.type.memory_space if isinstance(arg.type, TileType) else None
            if allowed and space is not None and space not in allowed:
                wanted = "/".join(s.name for s in allowed)
                report.error("SPACE_CONSTRAINT", f"{name} argument {i} is in {space.name}, needs {wanted}", call)


TileMemoryInferred = Invariant.per_function(
    "TileMemoryInferred",
    "every kernel tile has a memory space, and op operands sit in the spaces the op allows",
    _check_memory_inferred,
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
