"""ExpandMixedKernel: InCore kernels become AIC (cube) or AIV (vector) kernels (docs/passes.md#expandmixedkernel).

Which side runs a call is :func:`pypto.languages.invariants.affinity.affinity`, the rule the
MixedKernelExpanded check uses. Splitting a kernel that mixes both sides into an AIC and an AIV
kernel joined by tpush/tpop pipes is not implemented yet: such a kernel is an error.
"""

from __future__ import annotations

from pypto.analysis import function_index, op_name
from pypto.languages.invariants import (
    HardSyncallOccupancyValid,
    KernelNodes,
    MixedKernelExpanded,
)
from pypto.languages.invariants.affinity import Affinity, affinity
from pypto.languages.placed import placed

from pypto.ir.enums import FunctionType
from pypto.ir.expr import Call
from pypto.ir.function import Function, Program
from pypto.ir.node import replace

from pypto.transform.base import FunctionPass
from pypto.transform.errors import PassError


def _first(calls: list[Call], side: Affinity) -> Call | None:
    return next((c for c in calls if affinity(c) is side), None)


class ExpandMixedKernel(FunctionPass):
    """Retype each InCore function by the side its ops run on; callers keep calling it by name.

    before:  @pl.function(type=pl.FunctionType.InCore)      after:  @pl.function(type=pl.FunctionType.AIC)
             def mm(self, a, b, c):                                  def mm(self, a, b, c):
                 a_l1 = pl.load(a, ..., target_memory=Mat)               (body unchanged)
                 ... pl.matmul(a_l0, b_l0) ...

    A kernel with only cube work (Mat/Left/Right/Acc tiles, matmuls, loads into Mat, stores from
    Acc) becomes AIC; every other kernel becomes AIV.
    """

    source = placed
    produces = frozenset({MixedKernelExpanded, KernelNodes, HardSyncallOccupancyValid})

    def run_function(self, func: Function, program: Program) -> Function:
        if func.func_type is not FunctionType.InCore:
            return func
        calls = function_index(func).of(Call)  # in program order
        cube, vector = _first(calls, Affinity.CUBE), _first(calls, Affinity.VECTOR)
        boundary = _first(calls, Affinity.BOUNDARY)
        if boundary is not None or (cube is not None and vector is not None):
            raise self._mixed(func, calls, cube, vector, boundary)
        kind = FunctionType.AIC if cube is not None else FunctionType.AIV
        # The level and role follow from the new type.
        return replace(func, func_type=kind, level=None, role=None)

    def _mixed(
        self, func: Function, calls: list[Call], cube: Call | None, vector: Call | None, boundary: Call | None
    ) -> PassError:
        parts = [f"{what} op {op_name(c)} at {c.span}" for what, c in (("cube", cube), ("vector", vector)) if c]
        if boundary is not None:
            parts.append(f"cross-core op {op_name(boundary)} at {boundary.span}")
        first = next(c for c in calls if c in (cube, vector, boundary))
        return PassError(
            self.name,
            f"kernel '{func.name}' mixes cube and vector work ({'; '.join(parts)}); mixed kernels are not "
            "supported yet: write the cube part and the vector part as separate InCore kernels",
            first.span,
        )

