"""The body parser: all statement and expression handlers assembled into one class.

Dispatch is a dict lookup by ``ast`` node type, built once when this module is imported.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from . import dump_tags, handlers, scopes, tasks  # noqa: F401  (register the built-in and orchestration constructs)
from .annotations import AnnotationMixin
from .calls import CallMixin
from .control_flow import ControlFlowMixin
from .expressions import ExprMixin
from .inline import InlineMixin
from .statements import StmtMixin
from .subscripts import SubscriptMixin


class BodyParser(StmtMixin, ControlFlowMixin, CallMixin, SubscriptMixin, AnnotationMixin, InlineMixin, ExprMixin):
    """Parses one function body (signature annotations included) into IR."""

    _eval_dispatch: dict[type, Callable[[Any, Any], Any]]
    _stmt_dispatch: dict[type, Callable[[Any, Any], Any]]


BodyParser._eval_dispatch = {
    ast.Constant: BodyParser.eval_constant,
    ast.Name: BodyParser.eval_name,
    ast.Attribute: BodyParser.eval_attribute,
    ast.BinOp: BodyParser.eval_operators,
    ast.UnaryOp: BodyParser.eval_operators,
    ast.BoolOp: BodyParser.eval_boolop,
    ast.Compare: BodyParser.eval_compare,
    ast.Call: BodyParser.eval_call,
    ast.Subscript: BodyParser.eval_subscript,
    ast.List: BodyParser.eval_list,
    ast.Tuple: BodyParser.eval_tuple,
    ast.Dict: BodyParser.eval_dict,
}

BodyParser._stmt_dispatch = {
    ast.Assign: BodyParser.stmt_assign,
    ast.AnnAssign: BodyParser.stmt_annassign,
    ast.AugAssign: BodyParser.stmt_augassign,
    ast.Expr: BodyParser.stmt_expr,
    ast.Return: BodyParser.stmt_return,
    ast.Pass: BodyParser.stmt_pass,
    ast.Break: BodyParser.stmt_break,
    ast.Continue: BodyParser.stmt_continue,
    ast.If: BodyParser.stmt_if,
    ast.For: BodyParser.stmt_for,
    ast.While: BodyParser.stmt_while,
    ast.With: BodyParser.stmt_with,
}
