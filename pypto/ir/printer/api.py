"""Public entry points: ``python_print``, ``python_print_type`` and the format callback."""

from __future__ import annotations

from typing import Callable

from .. import hooks
from ..expr import Expr, GlobalVar, Op, Var
from ..function import Function, Program
from ..stmt import Stmt
from ..type_base import Type
from .naming import VarCollector, assign_names
from .op_shapes import printed_op_name
from .program import ProgramPrinter

UNSUPPORTED = "<unsupported IRNode type>"

_format_callback: Callable[[str], str] | None = None


def register_format_callback(fn: Callable[[str], str] | None) -> None:
    """Install (or with None remove) a post-processor applied to printed text when ``format=True``.

    None is installed by default, so output is the printer's own text. A callback that raises
    leaves the text unformatted.
    """
    global _format_callback
    _format_callback = fn


def _formatted(text: str, format: bool) -> str:
    fn = _format_callback
    if not format or fn is None:
        return text
    try:
        return fn(text)
    except Exception:
        return text


def _root_names(collector: VarCollector) -> dict[Var, str]:
    """Names for a bare statement/expression/type root: defs, then uses, then dimension vars."""
    order = list(collector.defs.values()) + list(collector.uses.values()) + list(collector.type_vars.values())
    return assign_names(dict.fromkeys(order), {})


def python_print(
    node: object,
    prefix: str = "pl",
    concise: bool = False,
    format: bool = True,
    explicit_layout: bool = False,
) -> str:
    """Print an IR node (Program, Function, Stmt, Expr) or a Type as PyPTO DSL source.

    ``prefix`` replaces every ``pl``; ``concise`` drops the annotations of assignments and yield
    targets; ``explicit_layout`` prints every tile's resolved layout. Unknown input prints as
    ``<unsupported IRNode type>``.
    """
    if isinstance(node, Type):
        return python_print_type(node, prefix=prefix, format=format, explicit_layout=explicit_layout)
    printer = ProgramPrinter(prefix, concise=concise, explicit_layout=explicit_layout)
    if isinstance(node, Program):
        printer.program(node)
    elif isinstance(node, Function):
        printer.standalone_function(node)
    elif isinstance(node, Stmt):
        c = VarCollector()
        c.stmt(node)
        printer.names = _root_names(c)
        printer.body_ptrs = set(c.defs)
        printer.stmt(node)
    elif isinstance(node, Expr):
        c = VarCollector()
        c.expr(node)
        printer.names = _root_names(c)
        printer.emit(printer.expr(node))
    elif isinstance(node, GlobalVar):
        printer.emit(node.name)
    elif isinstance(node, Op):
        printer.emit(printed_op_name(prefix, node.name))
    else:
        return UNSUPPORTED
    return _formatted(printer.text(), format)


def python_print_type(type: object, prefix: str = "pl", format: bool = True, explicit_layout: bool = False) -> str:
    """Print a Type as its DSL annotation, e.g. ``pl.Tensor[[64, 128], pl.FP32]``."""
    if not isinstance(type, Type):
        return UNSUPPORTED
    c = VarCollector()
    c.type(type)
    printer = ProgramPrinter(prefix, names=_root_names(c), explicit_layout=explicit_layout)
    return _formatted(printer.type(type), format)


# IRNode.__str__ / Type.__str__ in the core (which the printer builds on) call these.
hooks.print_node = python_print
hooks.print_type = python_print_type
