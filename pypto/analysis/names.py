"""The supply of fresh compiler names shared by the passes."""

from __future__ import annotations


class NameSupply:
    """Numbers for compiler-made names, one counter per key, from 0.

    ``names.number("tmp")`` gives 0, 1, ... for ``t__tmp_v<n>``; ConvertToSSA keys versions by the
    variable's base name (``x__ssa_v0``, ``x__phi_v1``); CtrlFlowTransform numbers its
    ``__break_<n>`` flags under ``"break"``.
    """

    def __init__(self) -> None:
        self._next: dict[str, int] = {}

    def number(self, key: str) -> int:
        """The next number under ``key``."""
        n = self._next.get(key, 0)
        self._next[key] = n + 1
        return n
