"""Where the parser finds names that are not DSL variables.

For a decorated Python function: its closure cells, the local variables of the scope that applied
the decorator, its module globals and the builtins. For text parsing: only the namespace built
from the text's imports and module-level constants (plus ``abs``/``min``/``max``/``tuple``), so
parsing untrusted text can reach nothing else.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Mapping
from typing import Any

MISSING: Any = object()

# The builtins a text may use (printed IR contains abs(x) and tuple[...] return annotations).
TEXT_BUILTINS: dict[str, Any] = {"abs": abs, "min": min, "max": max, "tuple": tuple}


class Env:
    """An ordered stack of name -> value mappings (first hit wins)."""

    __slots__ = ("is_text", "layers", "type_cache", "attr_cache")

    def __init__(self, layers: list[Mapping[str, Any]], is_text: bool) -> None:
        self.layers = layers
        self.is_text = is_text
        # Annotation source text -> (type, names it reads): annotations repeat a lot and their
        # meaning depends only on this environment unless a name is a DSL variable.
        self.type_cache: dict[str, tuple[Any, frozenset[str]]] = {}
        # Dotted names (``("pl", "tile", "add")``) -> value, for chains of attributes of pypto
        # namespaces under a name of this environment: ops are looked up once per text.
        self.attr_cache: dict[tuple[str, ...], Any] = {}

    @classmethod
    def of_function(cls, func: Any, frame_locals: Mapping[str, Any] | None = None) -> Env:
        """The environment of a Python function: closure, defining scope, globals, builtins."""
        closure: dict[str, Any] = {}
        cells = func.__closure__ or ()
        for name, cell in zip(func.__code__.co_freevars, cells):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # an empty cell: the name is not bound yet
                continue
        layers: list[Mapping[str, Any]] = [closure]
        if frame_locals is not None:
            layers.append(frame_locals)
        layers.append(func.__globals__)
        layers.append(vars(builtins))
        return cls(layers, is_text=False)

    @classmethod
    def of_namespace(cls, namespace: Mapping[str, Any]) -> Env:
        """The environment of parsed text: its namespace and the few allowed builtins."""
        return cls([namespace, TEXT_BUILTINS], is_text=True)

    def lookup(self, name: str) -> Any:
        """The value bound to ``name``, or ``MISSING``."""
        for layer in self.layers:
            value = layer.get(name, MISSING)
            if value is not MISSING:
                return value
        return MISSING

    def names(self) -> Iterator[str]:
        """Every bound name (for "did you mean" hints)."""
        for layer in self.layers:
            yield from layer
