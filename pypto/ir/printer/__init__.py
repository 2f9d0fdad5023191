"""The Python printer: renders any IR node or type as PyPTO DSL source (docs/ir.md#printer).

Layers, each a module: ``values`` (literal text), ``naming`` (variable names, §8.3), ``exprs``
(expressions and precedence), ``op_shapes`` (op-specific call shapes, docs/ops.md#printed-call-shapes),
``type_printer`` (annotations, §8.4), ``stmts`` (statements, blocks, scopes), ``program``
(functions and programs, §8.2) and ``api`` (entry points). Dispatch is a class -> method table per
layer; the printer writes lines into a list and joins once, and memoises printed types.

Every printed form is valid Python that the DSL parser reads back (``parse(print(x)) == x``);
where the reference printer emits text it cannot re-parse, this printer emits a parseable form
instead (see ``exprs``).
"""

from .api import python_print, python_print_type, register_format_callback

__all__ = ["python_print", "python_print_type", "register_format_callback"]
