"""A bounded cache keyed by object identity that does not keep its keys alive.

IR nodes are immutable and shared between the programs a pass derives, so facts about one node
(its variables, its check results) can be cached by the node's identity. Identity is also the
cheapest key: ``id(obj)`` hashes in C and needs no ``__eq__`` (an ``Expr``'s ``==`` builds IR, so
a ``WeakKeyDictionary`` of expressions would be slow and wrong). Holding the key strongly would
keep every program ever checked alive until the cache filled; here a weak reference's callback
drops the entry when its object is freed, so memory follows the live IR.
"""

from __future__ import annotations

import weakref
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class _KeyRef(weakref.ref):  # type: ignore[type-arg]
    """A weak reference that remembers the cache key of its object (the object's id)."""

    __slots__ = ("key",)


class IdentityCache(Generic[K, V]):
    """Values by object identity, each dropped when its object is freed; emptied when full.

    ``entries`` maps ``id(obj)`` to ``(weak reference to obj, value)``. Because a freed object's
    entry is removed before its id can be reused, an entry found under the id of a live object is
    that object's: a hot path may read ``entries.get(id(obj))`` itself (no identity check
    needed) and call :meth:`put` on a miss, which holds the policy (the limit, the weak key).
    """

    __slots__ = ("entries", "limit", "_drop")

    def __init__(self, limit: int) -> None:
        self.entries: dict[int, tuple[weakref.ref, V]] = {}  # type: ignore[type-arg]
        self.limit = limit
        entries = self.entries

        def drop(ref: _KeyRef) -> None:
            entry = entries.get(ref.key)
            if entry is not None and entry[0] is ref:  # not a newer entry for the same key
                del entries[ref.key]

        self._drop = drop

    def get(self, obj: K) -> V | None:
        """The value cached for ``obj``, or None."""
        hit = self.entries.get(id(obj))
        return None if hit is None else hit[1]

    def put(self, obj: K, value: V) -> V:
        """Cache ``value`` for ``obj`` (replacing any earlier one) and return it.

        When the cache holds ``limit`` entries it is emptied first: a bound on what many live
        objects can hold, at the price of recomputing facts that were still valid.
        """
        entries = self.entries
        if len(entries) >= self.limit:
            entries.clear()
        key = id(obj)
        ref = _KeyRef(obj, self._drop)
        ref.key = key
        entries[key] = (ref, value)
        return value

    def clear(self) -> None:
        """Forget every entry."""
        self.entries.clear()

    def __len__(self) -> int:
        return len(self.entries)
