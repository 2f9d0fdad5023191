"""The code-generation targets: what each one consumes (dialect, function kinds) and its op table.

A :class:`Target` is data; an :class:`~pypto.codegen.base.Emitter` names the target it prints.
``needs(entry)`` says whether the target must have a rule for a registered op: an op the registry
allows in one of the function kinds the target prints (orchestration also leaves out tensor
compute ops, which belong in kernels; SplitIncoreOrch warns about those left behind).
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto.ir import op_registry
from pypto.ir.enums import FunctionType
from pypto.ir.expr import GlobalVar, MakeTuple, Op
from pypto.ir.op_registry import OpEntry
from pypto.languages.dialect import Dialect
from pypto.languages.invariants.grammar import Forbid, Kind, Ops
from pypto.languages.runtime import runtime
from pypto.languages.synced import synced

from .cce_ops import CCE_OPS
from .op_table import OpTable
from .orchestration_ops import ORCHESTRATION_OPS
from .pto_ops import PTO_OPS


@dataclass(frozen=True)
class Target:
    """A code-generation target: ``name`` (used in "no rule for X in <name>"), the ``dialect`` its
    input must be in, the function kinds it prints and its op table.

    The node kinds it needs rules for are the dialect's, minus those the dialect's rules forbid in
    every function kind the target prints, minus ``through_calls``: nodes reached only through the
    call they belong to and printed by its op rule. ``compute_in_kernels`` leaves tensor compute ops
    out of the ops it needs.
    """

    name: str
    dialect: Dialect
    functions: frozenset[FunctionType]
    ops: OpTable
    through_calls: frozenset[type] = frozenset({Op, GlobalVar})
    compute_in_kernels: bool = False

    def needs(self, entry: OpEntry) -> bool:
        """True when a program this target prints may contain the op (its placement allows it there
        and the dialect's rules do not forbid it), so it needs a rule."""
        if not any(entry.allowed_in(f) for f in self.functions) or entry.name in self.forbidden_ops():
            return False
        return not (self.compute_in_kernels and is_tensor_compute(entry))

    def needed_nodes(self) -> list[type]:
        """Node kinds the target needs a rule for, sorted by name."""
        kinds = self.dialect.kinds - self.forbidden() - self.through_calls
        return sorted(kinds, key=lambda cls: cls.__name__)

    def forbidden(self) -> frozenset[type]:
        """Node kinds the dialect's rules keep out of every function kind the target prints."""
        return frozenset(cls for rule in self._forbids() if isinstance(rule.subject, Kind)
                         for cls in rule.subject.classes)

    def forbidden_ops(self) -> frozenset[str]:
        """Names of the registered ops the dialect's rules keep out of every function kind the
        target prints (``tile.batch_matmul`` after FlattenTileNdTo2D, tensor ops in kernels)."""
        rules = [r.subject for r in self._forbids() if isinstance(r.subject, Ops)]
        return frozenset(e.name for e in op_registry.all_entries() if any(s.names(e.name) for s in rules))

    def _forbids(self) -> list[Forbid]:
        """The Forbid rules of the dialect that hold in every function kind the target prints."""
        out = []
        for inv in self.dialect.invariants:
            for rule in inv.rules:
                if isinstance(rule, Forbid) and rule.within is None and not rule.warning:
                    where = rule.where
                    if where is None or (self.functions.isdisjoint(where.kinds) if where.outside
                                         else self.functions <= set(where.kinds)):
                        out.append(rule)
        return out

    def needed_ops(self) -> list[str]:
        """Names of every registered op the target needs a rule for, sorted."""
        return [e.name for e in op_registry.all_entries() if self.needs(e)]


# Tensor ops that create, address or move tensors: orchestration prints them (tensor.transpose is
# a view there); the other tensor ops with a tile counterpart compute, and run in kernels.
_TENSOR_DATA_OPS = frozenset(
    "tensor." + n
    for n in ("create", "full", "read", "write", "dim", "slice", "assemble", "reshape", "view", "transpose")
)


def is_tensor_compute(entry: OpEntry) -> bool:
    """A tensor op with a tile counterpart that is not one of the tensor data ops."""
    return (
        entry.namespace == "tensor"
        and entry.name not in _TENSOR_DATA_OPS
        and op_registry.lookup("tile." + entry.leaf) is not None
    )


_KERNELS = frozenset({FunctionType.AIC, FunctionType.AIV})
# KernelNodes keeps tuple values out of kernels, so a MakeTuple there is an op's argument list.
_KERNEL_THROUGH_CALLS = frozenset({Op, GlobalVar, MakeTuple})

PTO = Target("pto", runtime, _KERNELS, PTO_OPS, through_calls=_KERNEL_THROUGH_CALLS)
# The CCE kernels are printed C++ that runs as written, so they need the placed pipe sync; ptoas
# places its own (the PTO emitter skips ours) and orchestration prints no kernel body.
CCE = Target("cce", synced, _KERNELS, CCE_OPS, through_calls=_KERNEL_THROUGH_CALLS)
ORCHESTRATION = Target(
    "orchestration", runtime, frozenset({FunctionType.Orchestration}), ORCHESTRATION_OPS, compute_in_kernels=True,
)

TARGETS: tuple[Target, ...] = (PTO, CCE, ORCHESTRATION)
