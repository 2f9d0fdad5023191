"""NoRecursion: a function calling itself, directly or through others, is refused at the input."""

from __future__ import annotations

import pytest
from inv_helpers import found, prog
from pypto.languages.invariants import STRUCTURAL, NoRecursion

from pypto import ir
from pypto.ir.errors import VerificationError

_T = "pl.Tensor[[16], pl.FP32]"
_WHY = ("a function cannot be recursive: kernels and orchestrations have no call stack, so repeat the work "
        "with a loop (pl.range) instead")

_KERNEL = f"""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        t: pl.Tile[[16], pl.FP32] = pl.load(x, [0], [16])
        out = pl.store(t, [0], out)
        return out
"""


def _program(functions: str) -> ir.Program:
    return prog("@pl.program\nclass R:\n" + _KERNEL + functions)


SELF_CALL = _program(f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        out = self.k(x, out)
        out = self.main(x, out)
        return out
""")


def test_is_structural() -> None:
    assert NoRecursion in STRUCTURAL


def test_direct_recursion() -> None:
    assert found(NoRecursion, SELF_CALL) == [
        ("RECURSIVE_CALL", f"'main' calls itself (main -> main); {_WHY}", "main(x, out)"),
    ]


def test_compile_refuses_recursion_at_input(tmp_path) -> None:
    # It used to reach ExportEntryResults and stop there with an internal RecursionError.
    with pytest.raises(VerificationError) as err:
        ir.compile(SELF_CALL, output_dir=tmp_path / "out")
    text = str(err.value)
    assert "not in dialect 'surface' (pipeline input)" in text
    assert f"NoRecursion RECURSIVE_CALL in 'main': 'main' calls itself (main -> main); {_WHY}" in text


def test_mutual_recursion_reported_at_each_function() -> None:
    program = _program(f"""
    @pl.function(type=pl.FunctionType.InCore)
    def k1(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        out = self.k(x, out)
        out = self.k2(x, out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def k2(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        out = self.k1(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        out = self.k1(x, out)
        return out
""")
    assert found(NoRecursion, program) == [
        ("RECURSIVE_CALL", f"'k1' calls itself through other functions (k1 -> k2 -> k1); {_WHY}", "k2(x, out)"),
        ("RECURSIVE_CALL", f"'k2' calls itself through other functions (k2 -> k1 -> k2); {_WHY}", "k1(x, out)"),
    ]


def test_cycle_through_an_inline_function_is_reported_at_the_other_function() -> None:
    program = _program(f"""
    @pl.function(type=pl.FunctionType.Inline)
    def inl(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        out = self.main(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        out = self.inl(x, out)
        return out
""")
    assert found(NoRecursion, program) == [
        ("RECURSIVE_CALL", f"'main' calls itself through other functions (main -> inl -> main); {_WHY}",
         "inl(x, out)"),
    ]


def test_shared_callees_are_no_cycle() -> None:
    program = _program(f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def half(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        out = self.k(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        out = self.k(x, out)
        out = self.half(x, out)
        out = self.k(x, out)
        return out
""")
    assert found(NoRecursion, program) == []


def test_a_cycle_found_after_calls_off_it_is_reported_at_its_first_call() -> None:
    # One search from all the callees finds that a function is on a cycle; the report still names
    # the first call closing one, with the shortest path through it.
    program = _program(f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def half(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        out = self.k(x, out)
        out = self.quarter(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def quarter(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        out = self.main(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        out = self.k(x, out)
        out = self.k(x, out)
        out = self.half(x, out)
        out = self.quarter(x, out)
        return out
""")
    assert found(NoRecursion, program) == [
        ("RECURSIVE_CALL", f"'half' calls itself through other functions (half -> quarter -> main -> half); {_WHY}",
         "quarter(x, out)"),
        ("RECURSIVE_CALL", f"'main' calls itself through other functions (main -> half -> quarter -> main); {_WHY}",
         "half(x, out)"),
        ("RECURSIVE_CALL", f"'quarter' calls itself through other functions (quarter -> main -> quarter); {_WHY}",
         "main(x, out)"),
    ]
