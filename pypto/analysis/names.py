"""The supply of fresh compiler names shared by the passes."""

from __future__ import annotations

from collections.abc import Callable, Iterable


class NameSupply:
    """Numbers for compiler-made names, one counter per key, from 0.

    ``names.number("tmp")`` gives 0, 1, ... for ``t__tmp_v<n>``; ConvertToSSA keys versions by the
    variable's base name (``x__ssa_v0``, ``x__phi_v1``); CtrlFlowTransform numbers its
    ``__break_<n>`` flags under ``"break"``. :meth:`name` skips names already taken, which
    ``taken`` lists when first needed (the names of the function a pass rewrites).
    """

    def __init__(self, taken: Callable[[], Iterable[str]] = tuple) -> None:
        self._next: dict[str, int] = {}
        self._taken_source = taken
        self._taken: set[str] | None = None

    def number(self, key: str) -> int:
        """The next number under ``key``."""
        n = self._next.get(key, 0)
        self._next[key] = n + 1
        return n

    def name(self, key: str, make: Callable[[int], str]) -> str:
        """``make(n)`` for the next number ``n`` under ``key`` whose name is not taken yet."""
        if self._taken is None:
            self._taken = set(self._taken_source())
        while True:
            candidate = make(self.number(key))
            if candidate not in self._taken:
                self._taken.add(candidate)
                return candidate
