"""PipeSyncPlaced: every AIV/AIC kernel ends with the system.bar_all InsertPipeSync places."""

from __future__ import annotations

import pytest
from inv_helpers import found, prog
from pypto.languages.invariants import PipeSyncPlaced


def _program(kind: str, end: str) -> str:
    return f"""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.{kind})
        def k(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
            {end}
            return x
    """


_MISSING = "AIV kernel 'k' has no pipe synchronisation placed (run InsertPipeSync: it ends every kernel with " \
    "system.bar_all(attrs={'auto_sync': True}))"


def test_a_kernel_ending_with_the_placed_barrier_holds() -> None:
    assert found(PipeSyncPlaced, prog(_program("AIV", 'pl.system.bar_all(attrs={"auto_sync": True})'))) == []


@pytest.mark.parametrize(
    "end", ["pl.system.bar_all()", 'pl.system.bar_v(attrs={"auto_sync": True})', "pass"], ids=["user", "bar_v", "none"]
)
def test_a_kernel_without_the_placed_barrier_is_reported(end: str) -> None:
    assert found(PipeSyncPlaced, prog(_program("AIV", end))) == [("SYNC_NOT_PLACED", _MISSING, "function k")]


def test_functions_other_than_kernels_are_not_asked() -> None:
    assert found(PipeSyncPlaced, prog(_program("InCore", "pass"))) == []
