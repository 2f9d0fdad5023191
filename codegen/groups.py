"""The AIC and AIV kernels a Group function launches together as one mixed task (docs/codegen.md#groups).

A Group's body calls its kernels, passing them its own parameters (or constants); the runtime hands
every kernel of the mixed task the Group's argument list, so each kernel reads its parameters at
the positions the Group's call gives them.
"""

from __future__ import annotations

from pypto.analysis import function_index
from pypto.analysis.callgraph import function_named
from pypto.ir.enums import FunctionType
from pypto.ir.expr import Call, Expr, GlobalVar, Var
from pypto.ir.function import Function, Program
from pypto.ir.ops.cross_core_ops import PIPE_SETUPS
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TensorType

from .errors import CodegenError

_KERNELS = (FunctionType.AIC, FunctionType.AIV)


def pipe_setups(func: Function) -> list[Call]:
    """The pipe set-up calls of kernel ``func``, in body order (most kernels have none: their calls are
    not scanned)."""
    index = function_index(func)
    if index.op_names.isdisjoint(PIPE_SETUPS):
        return []
    return [c for c in index.of(Call) if c.op.name in PIPE_SETUPS]


def group_calls(program: Program, group: Function) -> list[tuple[Function, Call]]:
    """The kernels ``group`` calls, with the calls, in body order."""
    found = []
    for call in function_index(group).of(Call):
        target = function_named(program, call.op.name) if isinstance(call.op, GlobalVar) else None
        if target is not None and target.func_type in _KERNELS:
            found.append((target, call))
    return found


def group_members(program: Program) -> dict[str, Function]:
    """Kernel name -> the Group function that launches it (a kernel belongs to at most one Group)."""
    members: dict[str, Function] = {}
    for func in program.functions.values():
        if func.func_type is not FunctionType.Group:
            continue
        for kernel, call in group_calls(program, func):
            other = members.setdefault(kernel.name, func)
            if other is not func:
                raise CodegenError(f"no rule for kernel '{kernel.name}' launched by two Group functions "
                                   f"('{other.name}' and '{func.name}')", call.span,
                                   "write one kernel per Group (a Group is one mixed task)")
    return members


def task_slots(group: Function) -> dict[int, int]:
    """id(Group parameter) -> its slot in the task's argument list: tensors first, then scalars."""
    tensors = [p for p in group.params if isinstance(p.type, TensorType)]
    scalars = [p for p in group.params if isinstance(p.type, ScalarType)]
    return {id(p): k for k, p in enumerate(tensors + scalars)}


def kernel_slots(program: Program, group: Function, kernel: Function) -> list[int | Expr]:
    """For each parameter of ``kernel``: its slot in ``group``'s task arguments, or the constant the
    Group passes for it."""
    slots = task_slots(group)
    call = next(c for k, c in group_calls(program, group) if k is kernel)
    out: list[int | Expr] = []
    for arg in call.args:
        if isinstance(arg, Var) and id(arg) in slots:
            out.append(slots[id(arg)])
        elif isinstance(arg, Var):
            raise CodegenError(f"no rule for Group '{group.name}' passing the computed value '{arg.name_hint}' to "
                               f"'{kernel.name}'", call.span,
                               "a Group passes its own parameters (or constants) to its kernels")
        else:
            out.append(arg)
    return out
