"""What the PTO2 orchestration cannot run, refused when a compile starts: data-moving tensor ops,
tensor ops that compute (``target.is_tensor_compute``), and TaskId parameters (a dependency on a
TaskId no task of the program produced).

The orchestration C++ creates tensors, views them and submits tasks; moving or computing tensor
data is a kernel's job. An Orchestration function calling one of ``REFUSED`` outside the scopes
that become kernels (``pl.at``, ``pl.spmd``, ``pl.cluster``) could only end in a CodegenError
after every pass had accepted it: :func:`check_orchestration_ops` refuses it before the first
pass, at the call, saying what to write instead. ``tests/codegen/test_orchestration_refused.py``
keeps the table equal to what the orchestration target lacks. The host starts the orchestration
with tensors and numbers only: a ``pl.Scalar[pl.TASK_ID]`` parameter of the Orchestration function
would be a dependency edge to a task that was never submitted.
"""

from __future__ import annotations

from pypto.analysis import function_index
from pypto.analysis.kernel_code import placed_calls
from pypto.ir import op_registry
from pypto.ir.enums import FunctionType
from pypto.ir.expr import Call, Op
from pypto.ir.function import Function, Program
from pypto.ir.type_base import ScalarType

from .errors import CodegenError
from .target import is_tensor_compute

_IN_A_KERNEL = "with pl.at(level=pl.Level.CORE_GROUP): ..."
# Functions whose code outside kernel scopes is orchestration code (an Opaque one once it holds a scope).
_ORCHESTRATING = frozenset({FunctionType.Orchestration, FunctionType.Opaque})

# Op -> what to write instead (the reason is the same for all: it needs a core).
REFUSED: dict[str, str] = {
    "tensor.assemble": "write the source into the target's window in a kernel: "
    f"`{_IN_A_KERNEL}` with `target[r0:r1, :] = source`, or pass the window `target[r0:r1, :]` as the "
    "kernel's Out argument",
    "tensor.expand_clone": f"broadcast in a kernel: call pl.tensor.expand_clone inside `{_IN_A_KERNEL}`",
    "tensor.create_l1": f"an L1 staging tensor lives on a core: create it inside `{_IN_A_KERNEL}`, next to its "
    "paged gathers",
    "tensor.paged_gather": f"gather in a kernel: call pl.tensor.paged_gather inside `{_IN_A_KERNEL}`",
}


def check_orchestration_ops(program: Program) -> None:
    """Raise a :class:`CodegenError` at the first call of an op of ``REFUSED`` that an Orchestration
    function runs itself (outside the scopes outlined into kernels), or at a TaskId parameter."""
    # The placed calls of each function that may call a refused op, walked once for both loops below.
    placed: dict[str, list[tuple[Call, bool]]] = {}
    for func in program.functions.values():
        if func.func_type in _ORCHESTRATING and _calls_refusable(func):
            placed[func.name] = list(placed_calls(func))
    for func in program.functions.values():
        if func.func_type is not FunctionType.Orchestration:
            continue
        for param in func.params:
            if isinstance(param.type, ScalarType) and param.type.dtype.is_task_id():
                raise CodegenError(
                    f"the TaskId parameter '{param.name_hint}' of orchestration function '{func.name}' names no task: "
                    "the host passes tensors and numbers, never a submitted task", param.span,
                    "depend on a task this function submits (`out, tid = pl.submit(...)`, then deps=[tid]), or "
                    "write None for no dependency")
        for call, in_kernel in placed.get(func.name, ()):
            if not in_kernel and isinstance(call.op, Op) and call.op.name in REFUSED:
                raise CodegenError(f"{call.op.name} cannot run in orchestration code: moving tensor data needs a core",
                                   call.span, REFUSED[call.op.name])
    for func in program.functions.values():
        calls = placed.get(func.name, ())
        if func.func_type is FunctionType.Opaque and not any(in_kernel for _, in_kernel in calls):
            continue  # no kernel scope: not the orchestration
        for call, in_kernel in calls:
            entry = op_registry.lookup(call.op.name) if not in_kernel and isinstance(call.op, Op) else None
            if entry is not None and is_tensor_compute(entry):
                raise CodegenError(f"{call.op.name} cannot run in orchestration code: computing on tensors needs "
                                   "a core", call.span,
                                   f"compute it in a kernel: put the statement in `{_IN_A_KERNEL}`")


def _calls_refusable(func: Function) -> bool:
    """Whether ``func`` calls an op of ``REFUSED`` or a tensor compute op anywhere (most functions do
    not: their calls need not be placed)."""
    for name in function_index(func).op_names:
        entry = op_registry.lookup(name)
        if name in REFUSED or (entry is not None and is_tensor_compute(entry)):
            return True
    return False


__all__ = ["REFUSED", "check_orchestration_ops"]
