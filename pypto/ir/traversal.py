"""Generic access to the children of IR nodes: list them, iterate them, rebuild a node from them.

A *child* is any IR object (an ``IRNode``, a ``Type``, a ``TensorView``/``TileView``: every
:class:`~pypto.ir.node.ModelBase`) held by a child field, directly or inside a list, tuple or
dict value (``Call.kwargs``, ``Program.functions``, shape lists of a Type, ...) or attrs value
(``Call.attrs``, ``ScopeStmt.attrs``, ...: an attrs model is a container too, rebuilt as a dict that
the node's constructor validates again). Spans, names, comments, ids and fields the constructor
derives (``_derived``, e.g. the ``ScalarType`` of a ``ConstInt``) are not children.

``map_children(node, fn)`` is the generic fallback of every rewriting pass: it applies ``fn`` to
each child and rebuilds the node through its validating constructor only when some child came
back as a different object; otherwise it returns ``node`` itself, so untouched subtrees stay
shared and "unchanged" is observable with ``is``. Variables (``Var``, ``IterArg``, ``MemRef``)
are leaves for rebuilding: rebuilding one would create a new variable, so whether a variable is
replaced is the decision of the pass (``iter_children`` still reports their type, ``initValue``,
MemRef base/offset, for analyses that need them).
"""

from __future__ import annotations

import functools
import typing
from typing import Any, Callable, Iterator, TypeVar

from .expr import Var
from .function import Program
from .node import ModelBase, replace

N = TypeVar("N", bound=ModelBase)

# Fields that never hold structure, whatever their annotation.
_NON_CHILD_FIELDS = frozenset({"span", "leading_comments", "name_hint", "unique_id"})


def _may_hold_ir(annotation: Any) -> bool:
    """True when a value of this annotation can contain an IR object."""
    if annotation is Any:
        return True
    if isinstance(annotation, type):
        return issubclass(annotation, ModelBase)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _may_hold_ir(typing.get_args(annotation)[0])
    if origin is typing.Literal:
        return False
    return origin is not None and any(_may_hold_ir(a) for a in typing.get_args(annotation) if a is not Ellipsis)


@functools.cache
def child_fields(cls: type[ModelBase]) -> tuple[str, ...]:
    """The names of ``cls``'s fields that hold IR children, in declaration order (cached per class)."""
    derived = set(cls._derived)
    return tuple(
        name
        for name, info in cls.model_fields.items()
        if name not in _NON_CHILD_FIELDS and name not in derived and _may_hold_ir(info.annotation)
    )


def iter_value(value: Any) -> Iterator[ModelBase]:
    """The IR objects in a field value, through lists, tuples and dict and attrs values."""
    if isinstance(value, ModelBase) and not value._mapping:
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from iter_value(item)
    elif isinstance(value, dict) or isinstance(value, ModelBase) and value.__pydantic_fields_set__:
        for item in value.values():  # an empty attrs model (most) is skipped: its mapping view is slow
            yield from iter_value(item)


def iter_children(node: ModelBase) -> Iterator[ModelBase]:
    """Every child IR object of ``node`` in field order (containers flattened, dicts by value); of
    an attrs model, the IR objects in its values."""
    if node._mapping:
        yield from iter_value(node)
        return
    for name in child_fields(type(node)):
        yield from iter_value(getattr(node, name))


def _map_value(value: Any, fn: Callable[[Any], Any]) -> Any:
    """``value`` with ``fn`` applied to every IR object in it; the same object when nothing changed."""
    if isinstance(value, ModelBase) and not value._mapping:
        return fn(value)
    if isinstance(value, list):
        new = [_map_value(v, fn) for v in value]
        return value if all(a is b for a, b in zip(new, value)) else new
    if isinstance(value, tuple):
        new_t = tuple(_map_value(v, fn) for v in value)
        return value if all(a is b for a, b in zip(new_t, value)) else new_t
    if isinstance(value, ModelBase) and not value.__pydantic_fields_set__:
        return value  # an empty attrs model (most): nothing to map
    if isinstance(value, (dict, ModelBase)):  # a dict or an attrs model (rebuilt as a dict)
        new_d = {k: _map_value(v, fn) for k, v in value.items()}
        return value if all(new_d[k] is v for k, v in value.items()) else new_d
    return value


def map_children(node: N, fn: Callable[[Any], Any]) -> N:
    """``node`` rebuilt from ``fn`` applied to each child, or ``node`` itself if no child changed.

    The rebuild goes through the node's constructor with every non-derived field, so the result is
    validated (a wrong child type raises the usual IR construction error) and derived fields are
    recomputed. Variables are returned unchanged (see the module docstring). A rebuilt ``Program``
    is built from its list of functions, so a renamed function gets a matching ``GlobalVar``; a
    rebuilt attrs model is validated into its own model again.
    """
    if isinstance(node, Var):
        return node
    if node._mapping:  # an attrs model: its values mapped, validated again into the same model
        mapped = _map_value(node, fn)
        cls: Any = type(node)
        return node if mapped is node else cls.for_node(cls.__name__, mapped)
    changes: dict[str, Any] = {}
    for name in child_fields(type(node)):
        old = getattr(node, name)
        new = _map_value(old, fn)
        if new is not old:
            changes[name] = new
    if not changes:
        return node
    if isinstance(node, Program):
        return Program(list(changes["functions"].values()), node.name, node.span)
    return replace(node, **changes)


__all__ = ["child_fields", "iter_children", "iter_value", "map_children"]
