"""Invariants of the runtime dialect: explicit runtime scopes and classified loop carries (required attrs)."""

from __future__ import annotations

from pypto.ir.enums import FunctionType
from pypto.ir.function import Function
from pypto.ir.stmt import ForStmt

from .base import Invariant
from .grammar import Attr, inside

RuntimeScopesMaterialized = Invariant.declared(
    "RuntimeScopesMaterialized",
    "every Orchestration function has auto_scope=False (its runtime scopes are explicit)",
    Attr(
        of=Function,
        key="auto_scope",
        equals=False,
        default=True,
        where=inside(FunctionType.Orchestration),
        code="AUTO_SCOPE",
        message="Orchestration function still has auto_scope=True",
    ),
    auto_verified=True,
)

IterArgCarryClassified = Invariant.declared(
    "IterArgCarryClassified",
    "every Orchestration for-loop carry has attrs['iter_arg_rebind_<i>']",
    Attr(
        of=ForStmt,
        key="iter_arg_rebind_{i}",
        per="iter_args",
        where=inside(FunctionType.Orchestration),
        code="UNCLASSIFIED_CARRY",
        message="loop carry slots {missing} have no iter_arg_rebind_<i>",
    ),
    auto_verified=True,
)
