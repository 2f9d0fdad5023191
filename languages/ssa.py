"""ssa: every variable is assigned once; ifs and loops carry values through yields.

Entered by ConvertToSSA, after InlineFunctions, UnrollLoops and CtrlFlowTransform have removed
Inline functions, ``pl.unroll`` loops and kernel break/continue. Simplify, NormalizeStmtStructure
and FlattenCallExpr stay in this dialect and add NormalizedStmtStructure and NoNestedCalls, which
the next dialect requires.
"""

from __future__ import annotations

from pypto.ir.enums import ForKind, FunctionType
from pypto.ir.function import Function
from pypto.ir.stmt import ForStmt

from .dialect import Variant
from .invariants import (
    InlineFunctionsEliminated,
    InputsNotWritten,
    OutParamsWritten,
    SSAForm,
    StructuredCtrlFlow,
    UnrollResolved,
)
from .surface import surface

ssa = surface.extend(
    "ssa",
    "every variable is assigned once; ifs and loops carry values through yields",
    remove={
        Variant(Function, "func_type", FunctionType.Inline, InlineFunctionsEliminated),
        Variant(ForStmt, "kind", ForKind.Unroll, UnrollResolved),
    },
    guarantees={SSAForm, StructuredCtrlFlow},
    drop={InputsNotWritten, OutParamsWritten},
)
