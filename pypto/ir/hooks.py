"""Services the IR core calls but does not define: printing, structural equality, op schemas.

The core (nodes, types, expressions, statements, functions) sits below the printer, structural
equality and the op registry, which all build on it, so it cannot import them. Each of those
modules installs its entry point here when it is imported, and ``pypto/ir/__init__.py`` imports
them right after the core; any import of a ``pypto.ir`` module runs that file first, so the hooks
are set on every import path before user code runs.

    node.as_python()  ->  hooks.print_node(node, ...)   (installed by pypto.ir.printer)
    type_a == type_b  ->  hooks.structural_equal(a, b)  (installed by pypto.ir.structural)
"""

from __future__ import annotations

from typing import Any, Callable

# python_print(node, prefix=, concise=, format=) -> DSL text of a node
print_node: Callable[..., str]
# python_print_type(type) -> the DSL annotation of a type
print_type: Callable[[Any], str]
# structural_equal(a, b) / structural_hash(a): how types and views compare and hash
structural_equal: Callable[[Any, Any], bool]
structural_hash: Callable[[Any], int]
# the keyword-argument names of the registered op named so (empty if unregistered)
op_kwarg_names: Callable[[str], list[str]]
