"""Type annotations: ``pl.Tensor[...]``, ``pl.Tile[...]``, ``pl.Scalar[...]``, bare dtypes,
``pl.Array[...]``, ``pl.Tuple[...]`` / ``tuple[...]``, ``pl.Out[...]`` / ``pl.InOut[...]``.

Items are parsed like expressions (shape dimensions may be DSL variables, ``pl.dynamic`` names
or composite expressions; ``pl.MemRef(...)``, ``pl.TileView(...)`` are calls) and handed to the
annotation class's ``from_items``, the same code that builds the type at Python level.
"""

from __future__ import annotations

import ast
from typing import Any

from pypto import ir
from pypto.ir import DataType, ParamDirection

from ..typing.annotation import ANNOTATION_FORMS, UnresolvedAnnotation
from ..typing.direction import DirectedAnnotation, InOut, Out, check_direction
from ..typing.dynamic import DynVar
from ..typing.scalar import Array, Scalar, Tuple
from ..typing.shaped import Tensor, Tile
from .core import ParserCore, describe
from .diagnostics import ParserTypeError
from .env import MISSING

_SHAPED = (Tensor, Tile, Scalar, Array)
_TYPE_FORMS = (
    "a type is pl.Tensor[[64, 64], pl.FP32], pl.Tile[[16, 16], pl.FP16], pl.Scalar[pl.INT64] or a bare dtype "
    "(pl.INDEX), pl.Array[16, pl.INT32], or tuple[T1, T2] for several return values"
)
_DIRECTIONS = {Out: ParamDirection.Out, InOut: ParamDirection.InOut}


_PLAIN_NODES = (ast.Subscript, ast.Attribute, ast.Name, ast.Constant, ast.List, ast.Tuple, ast.Load)


def _plain_names(node: ast.expr) -> frozenset[str] | None:
    """The names an annotation reads, or None when it holds anything but names, attributes,
    constants, lists and subscripts (a call or arithmetic is resolved every time)."""
    names = set()
    for sub in ast.walk(node):
        if type(sub) not in _PLAIN_NODES:
            return None
        if type(sub) is ast.Name:
            names.add(sub.id)
    return frozenset(names)


class AnnotationMixin(ParserCore):
    """Type annotation resolution."""

    def resolve_type(self, node: ast.expr) -> ir.Type:
        """The IR type an annotation denotes (directions are rejected here).

        Results are cached per environment by annotation text when the annotation only reads
        names of that environment (no DSL variables, no calls).
        """
        key = self._cache_key(node)
        cache = self.env.type_cache
        if key is not None:
            hit = cache.get(key)
            if hit is not None and not any(n in self.vars for n in hit[1]):
                return hit[0]
        result = self._resolve(node)
        if isinstance(result, DirectedAnnotation):
            self.fail(
                ParserTypeError,
                f"pl.{result.direction.name}[...] can only annotate a function parameter",
                node,
                f"annotate with the inner type alone here, e.g. {ast.unparse(node.slice)}"  # type: ignore[attr-defined]
                if type(node) is ast.Subscript
                else "annotate with the type alone, without pl.Out / pl.InOut",
            )
        if key is not None:
            names = _plain_names(node)
            if names is not None and not any(n in self.vars for n in names):
                cache[key] = (result, names)
        return result

    def _cache_key(self, node: ast.expr) -> str | None:
        if type(node) is ast.Name:  # @pl.jit puts its names (__jit_t_a) at the place of the annotation they replace
            return node.id
        if node.end_lineno != node.lineno:
            return None
        line = self.src.lines[node.lineno - 1]
        return line[node.col_offset : node.end_col_offset] if line.isascii() else None

    def resolve_param_type(self, node: ast.expr) -> tuple[ir.Type, ParamDirection]:
        """The type and direction of a parameter annotation."""
        result = self._resolve(node)
        if isinstance(result, DirectedAnnotation):
            try:
                check_direction(result.direction, result.type)
            except TypeError as err:
                self.fail(ParserTypeError, str(err), node, "declare the scalar as a plain (In) parameter")
            return result.type, result.direction
        return result, ParamDirection.In

    def resolve_return_types(self, node: ast.expr | None) -> list[ir.Type]:
        """The return types of ``-> T`` / ``-> tuple[T1, T2]`` / ``-> None`` / no annotation."""
        if node is None or (type(node) is ast.Constant and node.value is None):
            return []
        if type(node) is ast.Subscript and self.eval(node.value) is tuple:
            return list(self._tuple_types(node).types)
        return [self.resolve_type(node)]

    def _resolve(self, node: ast.expr) -> Any:
        if type(node) is ast.Subscript:
            head = self.eval(node.value)
            if head is tuple or head is Tuple:
                return self._tuple_types(node)
            direction = _DIRECTIONS.get(head) if isinstance(head, type) else None
            if direction is not None:
                inner = self.resolve_type(node.slice)
                return DirectedAnnotation(direction, inner)
            if head in _SHAPED:
                items_nodes = node.slice.elts if type(node.slice) is ast.Tuple else [node.slice]
                if self.env.is_text and head in (Tensor, Tile):
                    self._declare_dimensions(node.slice)
                items = tuple(self.eval(item) for item in items_nodes)
                try:
                    return head.from_items(items)
                except (TypeError, ValueError) as err:
                    self.fail(ParserTypeError, str(err), node, ANNOTATION_FORMS[head.kind])
            self.fail(ParserTypeError, f"'{ast.unparse(node.value)}' is not a type", node.value, _TYPE_FORMS)
        return self.type_from_value(self.eval(node), node)

    def _declare_dimensions(self, items: ast.expr) -> None:
        """In text, a name used in a shaped type and defined nowhere is a dynamic dimension:
        the printer names the dynamic dimensions of a standalone function without declaring them."""
        namespace = self.env.layers[0]
        for sub in ast.walk(items):
            if type(sub) is ast.Name and sub.id not in self.vars and self.env.lookup(sub.id) is MISSING:
                namespace[sub.id] = DynVar(sub.id)  # type: ignore[index]

    def _tuple_types(self, node: ast.Subscript) -> ir.TupleType:
        items = node.slice.elts if type(node.slice) is ast.Tuple else [node.slice]
        if len(items) == 1 and type(items[0]) is ast.Tuple and not items[0].elts:
            return ir.TupleType([])
        return ir.TupleType([self.resolve_type(item) for item in items])

    def type_from_value(self, value: Any, node: ast.AST) -> Any:
        """The type a resolved annotation object stands for."""
        if isinstance(value, DataType):
            return ir.ScalarType(value)
        if isinstance(value, (ir.Type, DirectedAnnotation)):
            if isinstance(value, DirectedAnnotation) and isinstance(value.type, UnresolvedAnnotation):
                self.fail(ParserTypeError, str(value.type.error), node, ANNOTATION_FORMS[value.type.kind])
            return value
        if isinstance(value, UnresolvedAnnotation):
            self.fail(ParserTypeError, str(value.error), node, ANNOTATION_FORMS[value.kind])
        if isinstance(value, type) and issubclass(value, ir.Type) and hasattr(value, "get"):
            return value.get()
        if value in _SHAPED:
            self.fail(
                ParserTypeError,
                f"pl.{value.kind} needs its items, e.g. pl.{value.kind}[[64, 64], pl.FP32]"
                if value in (Tensor, Tile)
                else f"pl.{value.kind} needs its items in brackets",
                node,
                ANNOTATION_FORMS[value.kind],
            )
        self.fail(ParserTypeError, f"{describe(value)} is not a type annotation", node, _TYPE_FORMS)
