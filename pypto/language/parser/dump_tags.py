"""``pl.dump_tag(t)``: mark a tensor as a target of selective run-time dumping.

A statement of Orchestration functions (or of ``@pl.inline`` helpers they inline, or of
``type=pl.FunctionType.Inline`` functions). It emits no IR itself: inside a scope that a pass
outlines into a task (``pl.at``, ``pl.spmd``, ``pl.cluster``, hierarchy scopes) the tensor joins
that scope's ``attrs["dump_vars"]`` (printed ``dumps=[...]``); elsewhere every later program
function call (or ``pl.submit``) that takes the tensor as an argument lists it in its
``attrs["dump_vars"]``. The tensor is tracked as the variable itself, not by name.
"""

from __future__ import annotations

import ast
from typing import Any

from pypto import ir
from pypto.ir import FunctionType

from ..op import tensor as tensor_ops
from .core import describe
from .diagnostics import ParserSyntaxError, ParserTypeError, UndefinedVariableError
from .registry import register_call_hook, register_stmt
from .scope_state import OUTLINED, state_of
from .tasks import merge_vars

_USAGE = "pl.dump_tag(t) is a statement naming one tensor variable"
_ALLOWED = (FunctionType.Orchestration, FunctionType.Inline)


@register_stmt(tensor_ops.dump_tag, _USAGE)
def _dump_tag(p: Any, call: ast.Call) -> None:
    if p.state.func_type not in _ALLOWED:
        p.fail(
            ParserSyntaxError,
            f"pl.dump_tag can only be used in Orchestration or Inline functions, not in the "
            f"{p.state.func_type.name} function '{p.state.name}'",
            call,
            "tag tensors in the orchestration code that launches the kernels",
        )
    if len(call.args) != 1 or call.keywords:
        p.fail(ParserSyntaxError, "pl.dump_tag takes exactly one tensor variable name", call, _USAGE)
    arg = call.args[0]
    if type(arg) is not ast.Name:
        p.fail(ParserSyntaxError, f"pl.dump_tag takes a bare variable name, got '{ast.unparse(arg)}'", arg, _USAGE)
    var = p.lookup_var(arg.id)
    if var is None:
        p.fail(
            UndefinedVariableError,
            f"pl.dump_tag names '{arg.id}', which is not a variable of this function",
            arg,
            "tag a tensor after it is assigned: out = ...; pl.dump_tag(out)",
        )
    if not isinstance(var.type, ir.TensorType):
        p.fail(
            ParserTypeError,
            f"pl.dump_tag tags tensors, but '{arg.id}' is {describe(var)}",
            arg,
            "tag the tensor the value is stored to or loaded from",
        )
    state = state_of(p)
    frame = state.enclosing(*OUTLINED)
    if frame is not None:
        frame.dump_vars[:] = merge_vars(frame.dump_vars, [var])
    else:
        state.dump_tags[id(var)] = var


@register_call_hook
def _dump_vars(p: Any, node: ast.Call, call: ir.Call) -> ir.Call:
    """A call consuming tagged tensors lists them in ``attrs["dump_vars"]``."""
    tags = state_of(p).dump_tags
    if not tags:
        return call
    tagged = [a for a in call.args if isinstance(a, ir.Var) and id(a) in tags]
    if not tagged:
        return call
    dump_vars = merge_vars(list(call.attrs.get("dump_vars", [])), tagged)
    return ir.replace(call, attrs={**call.attrs, "dump_vars": dump_vars})
