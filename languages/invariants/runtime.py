"""Invariants of the runtime dialect: explicit runtime scopes and classified loop carries."""

from __future__ import annotations

from pypto.analysis import function_index

from pypto.ir.enums import FunctionType
from pypto.ir.function import Function, Program
from pypto.ir.stmt import ForStmt

from .base import Invariant, Reporter


def _check_scopes(func: Function, program: Program, report: Reporter) -> None:
    if func.func_type is FunctionType.Orchestration and func.attrs.get("auto_scope", True) is not False:
        report.error("AUTO_SCOPE", "Orchestration function still has auto_scope=True", func)


RuntimeScopesMaterialized = Invariant.per_function(
    "RuntimeScopesMaterialized",
    "every Orchestration function has auto_scope=False (its runtime scopes are explicit)",
    _check_scopes,
    auto_verified=True,
)


def _check_carries(func: Function, program: Program, report: Reporter) -> None:
    if func.func_type is not FunctionType.Orchestration:
        return
    for loop in function_index(func).of(ForStmt):
        missing = [i for i in range(len(loop.iter_args)) if f"iter_arg_rebind_{i}" not in loop.attrs]
        if missing:
            report.error("UNCLASSIFIED_CARRY", f"loop carry slots {missing} have no iter_arg_rebind_<i>", loop)


IterArgCarryClassified = Invariant.per_function(
    "IterArgCarryClassified",
    "every Orchestration for-loop carry has attrs['iter_arg_rebind_<i>']",
    _check_carries,
    auto_verified=True,
)
