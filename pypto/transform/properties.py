"""IR properties under their established names: ``IRProperty`` and ``IRPropertySet``.

Our dialect invariants (:mod:`pypto.languages.invariants`) are the IR properties of
docs/passes.md#contract. This module names them the way the established API does: each member of :class:`IRProperty`
stands for the invariant of the same name (``IRProperty.SSAForm.invariant`` is
``invariants.SSAForm``), and :class:`IRPropertySet` is the set a pass's contract returns::

    p = passes.convert_to_ssa()
    p.get_produced_properties().contains(passes.IRProperty.SSAForm)     # True
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator

from pypto.languages.invariants import ALL, STRUCTURAL, Invariant

from pypto.ir.errors import IRValueError


class _Property(enum.Enum):
    """Base of :class:`IRProperty`: a member's value is the invariant name."""

    @property
    def invariant(self) -> Invariant:
        """The invariant (with its checker) this property names."""
        return ALL[self.value]

    @property
    def auto_verified(self) -> bool:
        """Whether the default verification checks this property when a pass produces it."""
        return self.invariant.auto_verified

    def __str__(self) -> str:
        return self.value


# One member per invariant, in name order: IRProperty.SSAForm, IRProperty.TileOps2D, ...
IRProperty = _Property("IRProperty", [(name, name) for name in sorted(ALL)])
IRProperty.__doc__ = "A named property of a program: one member per dialect invariant."
IRProperty.__module__ = __name__


def as_property(item: IRProperty | Invariant | str) -> IRProperty:
    """``item`` (a property, an invariant or a property name) as an :class:`IRProperty`."""
    if isinstance(item, IRProperty):
        return item
    name = item.name if isinstance(item, Invariant) else item
    try:
        return IRProperty(name)
    except ValueError:
        raise IRValueError(f"unknown IR property {name!r} (the properties are the members of passes.IRProperty)") from None


class IRPropertySet:
    """A set of :class:`IRProperty` with the established methods (``insert``, ``contains``, ...).

    It also behaves as a Python collection (``in``, ``len``, iteration in name order, ``==``).
    """

    def __init__(self, items: Iterable[IRProperty | Invariant | str] = ()) -> None:
        self._items: set[IRProperty] = {as_property(i) for i in items}

    def insert(self, prop: IRProperty) -> None:
        """Add ``prop``."""
        self._items.add(as_property(prop))

    def remove(self, prop: IRProperty) -> None:
        """Remove ``prop`` if present."""
        self._items.discard(as_property(prop))

    def contains(self, prop: IRProperty) -> bool:
        """Whether ``prop`` is in the set."""
        return as_property(prop) in self._items

    def contains_all(self, other: IRPropertySet) -> bool:
        """Whether every property of ``other`` is in the set."""
        return other._items <= self._items

    def union_with(self, other: IRPropertySet) -> IRPropertySet:
        """A new set with the properties of both."""
        return IRPropertySet(self._items | other._items)

    def intersection(self, other: IRPropertySet) -> IRPropertySet:
        """A new set with the properties in both."""
        return IRPropertySet(self._items & other._items)

    def difference(self, other: IRPropertySet) -> IRPropertySet:
        """A new set with the properties not in ``other``."""
        return IRPropertySet(self._items - other._items)

    def empty(self) -> bool:
        """Whether the set has no property."""
        return not self._items

    def to_list(self) -> list[IRProperty]:
        """The properties in name order."""
        return sorted(self._items, key=lambda p: p.value)

    def invariants(self) -> list[Invariant]:
        """The invariants behind the properties, in name order."""
        return [p.invariant for p in self.to_list()]

    def __contains__(self, prop: object) -> bool:
        return isinstance(prop, (IRProperty, Invariant, str)) and self.contains(prop)  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[IRProperty]:
        return iter(self.to_list())

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IRPropertySet) and self._items == other._items

    def __hash__(self) -> int:
        return hash(frozenset(self._items))

    def __str__(self) -> str:
        return "{" + ", ".join(p.value for p in self.to_list()) + "}"

    def __repr__(self) -> str:
        return f"IRPropertySet({str(self)})"


def get_default_verify_properties() -> IRPropertySet:
    """What the default verification checks at a pipeline's input: structural ∩ auto-verified (§2)."""
    return IRPropertySet(inv for inv in STRUCTURAL if inv.auto_verified)
