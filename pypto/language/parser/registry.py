"""Handler tables for the parse-time constructs, keyed by the Python object a call resolves to.

The parser resolves the callee of every call (``pl.range`` -> the function object
``pypto.language.constructs.range``) and looks it up here, so a construct works under any import
alias or prefix. Other modules add constructs by registering handlers, e.g. the scope handlers
(``with pl.at(...)``) live in their own module and only call :func:`register_with`.

Handler signatures (``parser`` is the body parser):

* expression ``(parser, call) -> value`` — the call's value;
* statement ``(parser, call) -> None`` — a call used as a statement (``pl.yield_(x)``);
* assignment ``(parser, stmt, call) -> None`` — ``targets = call(...)`` (``y = pl.yield_(x)``);
  ``stmt`` is the ``ast.Assign`` / ``ast.AnnAssign``;
* for ``(parser, stmt, call) -> None`` — ``for target in call(...)``;
* with ``(parser, stmt, call) -> None`` — ``with call(...) [as name]:`` (single item).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ExprHandler = Callable[[Any, Any], Any]
StmtHandler = Callable[[Any, Any], None]
AssignHandler = Callable[[Any, Any, Any], None]
ForHandler = Callable[[Any, Any, Any], None]
WithHandler = Callable[[Any, Any, Any], None]

EXPR_HANDLERS: dict[Any, ExprHandler] = {}
STMT_HANDLERS: dict[Any, StmtHandler] = {}
ASSIGN_HANDLERS: dict[Any, AssignHandler] = {}
FOR_HANDLERS: dict[Any, ForHandler] = {}
WITH_HANDLERS: dict[Any, WithHandler] = {}

# Constructs that only make sense in one statement position, with the usage to suggest.
POSITION_HINTS: dict[Any, str] = {}

# ``(parser, call_node, call) -> call``: run on every call of a program function (plain or
# inside ``pl.submit``) to add call-site attrs such as the arg directions of ``pl.no_dep``.
CallHook = Callable[[Any, Any, Any], Any]
CALL_HOOKS: list[CallHook] = []


def _register(table: dict[Any, Any], obj: Any, usage: str | None) -> Callable[[Any], Any]:
    def add(handler: Any) -> Any:
        table[obj] = handler
        if usage is not None:
            POSITION_HINTS[obj] = usage
        return handler

    return add


def register_expr(obj: Any) -> Callable[[ExprHandler], ExprHandler]:
    """Register the handler of a call that produces a value."""
    return _register(EXPR_HANDLERS, obj, None)


def register_stmt(obj: Any, usage: str) -> Callable[[StmtHandler], StmtHandler]:
    """Register the handler of a call used as a statement; ``usage`` is shown when it is misplaced."""
    return _register(STMT_HANDLERS, obj, usage)


def register_assign(obj: Any, usage: str) -> Callable[[AssignHandler], AssignHandler]:
    """Register the handler of ``targets = obj(...)``."""
    return _register(ASSIGN_HANDLERS, obj, usage)


def register_for(obj: Any, usage: str) -> Callable[[ForHandler], ForHandler]:
    """Register the handler of ``for target in obj(...)``."""
    return _register(FOR_HANDLERS, obj, usage)


def register_with(obj: Any, usage: str) -> Callable[[WithHandler], WithHandler]:
    """Register the handler of ``with obj(...) [as name]:``."""
    return _register(WITH_HANDLERS, obj, usage)


def register_call_hook(hook: CallHook) -> CallHook:
    """Register a hook run on every program-function call the parser builds."""
    CALL_HOOKS.append(hook)
    return hook


def display_name(obj: Any) -> str:
    """``pl.<name>`` for a construct or op function (for messages)."""
    name = getattr(obj, "__name__", None) or type(obj).__name__
    module = getattr(obj, "__module__", "") or ""
    namespace = module.rsplit(".", 1)[-1]
    if module.startswith(("pypto.language.op.", "pypto.ir.op.")) and namespace in ("tensor", "tile", "system", "array"):
        return f"pl.{namespace}.{name}"
    if module.startswith("pypto"):
        return f"pl.{name}"
    return name
