"""The PTO2 orchestration op table (docs/codegen.md#orchestration): op name -> runtime API and spelling rule.

Orchestration code creates tensors, takes views of them, reads elements, and tracks task ids; the
kernels do the computing (tensor compute ops left in an orchestration function have no rule)::

    TaskOutputTensors alloc_0 = alloc_tensors(tmp_ci);        # CreateTensor, tensor.create
    ChipTensor v = ext_x.view(v_shapes, v_offsets);           # View, tensor.slice
    ChipTensor r = ext_y.reshape(r_shapes, 2);                # Reshape, tensor.reshape / tensor.view
    float v = get_tensor_data<float>(ext_x, 2, v_idx);        # ElementAccess, tensor.read

Every identifier a rule prints is declared by the runtime's ``pto_orchestration_api.h`` and the
headers it includes (a test checks them).
"""

from __future__ import annotations

from dataclasses import dataclass

from .op_table import OpRule, OpTable, every_parameter

TARGET = "orchestration"


@dataclass(frozen=True)
class CreateTensor(OpRule):
    """An internal tensor, batched with the other creations at the start of its scope (§2.2)::

        uint32_t tmp_ci_shapes[2] = {64, 64};
        TensorCreateInfo tmp_ci(tmp_ci_shapes, 2, DataType::FLOAT32);
        TaskOutputTensors alloc_0 = alloc_tensors(tmp_ci);      # <mnemonic>
        const ChipTensor& tmp = alloc_0.get_ref(0);

    ``init_value`` (``value`` for ``tensor.full``: the parameter named by ``value``) adds
    ``tmp_ci.<initial>(v);``; ``manual_dep=True`` passes ``true`` as the constructor's fourth argument
    (the runtime's per-tensor exit from automatic dependency tracking).
    """

    info: str = "TensorCreateInfo"
    initial: str = "set_initial_value"
    value: str = "init_value"
    manual_dep: bool = True  # the op has a manual_dep keyword

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"shape", "dtype", self.value} | ({"manual_dep"} if self.manual_dep else set())


@dataclass(frozen=True)
class Reshape(OpRule):
    """The same elements under a new row-major shape, no copy::

        uint32_t r_shapes[2] = {16, 64};
        ChipTensor r = y.<mnemonic>(r_shapes, 2);

    (``tensor.view`` without a shape is the source handle itself).
    """

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"tensor", "shape"}


@dataclass(frozen=True)
class View(OpRule):
    """``uint32_t v_offsets[n] = {...}; uint32_t v_shapes[n] = {...}; ChipTensor v = x.<mnemonic>(v_shapes,
    v_offsets);`` with the shapes clamped to the source extent; a view with a ``valid_shape`` covers just that.
    Dropped axes (``drop_dims``): the view is ``v_window``, then ``v = v_window.<drop>(v_kept, k)``."""

    drop: str = "reshape"

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"tensor", "shape", "offset", "valid_shape", "drop_dims", "clamp"}


@dataclass(frozen=True)
class MethodCall(OpRule):
    """``<receiver>.<mnemonic>(<args>)`` on a runtime object (``x.transpose(a1, a2)``, ``t.is_valid()``)."""

    receiver: str
    args: tuple[str, ...] = ()

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {self.receiver} | frozenset(self.args)


@dataclass(frozen=True)
class Dim(OpRule):
    """``tensor.dim``: the constant extent of a static axis, else
    ``(int64_t)orch_args.tensor(i).ref().<mnemonic>[axis]`` of the declaring argument."""

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"tensor", "axis"}


@dataclass(frozen=True)
class ElementAccess(OpRule):
    """``T v = <mnemonic><T>(tensor, n, idx);`` (``store=False``) or ``<mnemonic>(tensor, n, idx, v);``
    with ``uint32_t idx[n] = {...};`` before it."""

    store: bool = False

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"tensor", "indices"} | ({"value"} if self.store else set())


@dataclass(frozen=True)
class Expression(OpRule):
    """A fixed C++ expression: the mnemonic itself, called (``PTO2TaskId::invalid()``)."""


@dataclass(frozen=True)
class DummyTask(OpRule):
    """``system.task_dummy``: a dependency-only task (§2.7): its deps, then
    ``TaskOutputTensors x_outs = <mnemonic>(params);`` (guarded when its deps may all be invalid)."""


@dataclass(frozen=True)
class Array(OpRule):
    """A C array of task ids or integers: ``T arr[N];`` (``create``), ``arr[k]`` (read) or
    ``arr[k] = v;`` (update). ``access`` is one of ``create``, ``read``, ``update``."""

    access: str

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | every_parameter(op)


ORCHESTRATION_OPS = OpTable(
    TARGET,
    {
        "tensor.create": CreateTensor("alloc_tensors"),
        "tensor.full": CreateTensor("alloc_tensors", value="value", manual_dep=False),
        "tensor.reshape": Reshape("reshape"),
        "tensor.view": Reshape("reshape"),
        "system.available_aiv_count": Expression("rt_available_aiv_count"),
        "system.available_cluster_count": Expression("rt_available_cluster_count"),
        "tensor.slice": View("view", implied=frozenset({"pad_value"})),
        "tensor.transpose": MethodCall("transpose", receiver="tensor", args=("axis1", "axis2")),
        "tensor.dim": Dim("shapes"),
        "tensor.read": ElementAccess("get_tensor_data"),
        "tensor.write": ElementAccess("set_tensor_data", store=True),
        "system.task_invalid": Expression("PTO2TaskId::invalid"),
        "system.task_is_valid": MethodCall("is_valid", receiver="task"),
        "system.task_dummy": DummyTask("rt_submit_dummy_task"),
        "array.create": Array("", access="create", implied=frozenset({"dtype"})),
        "array.get_element": Array("", access="read"),
        "array.update_element": Array("", access="update"),
    },
)
