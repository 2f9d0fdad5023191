"""NoRecursion: a function calling itself, directly or through others, is refused at the input."""

from __future__ import annotations

from pathlib import Path

import pytest
from inv_helpers import found, prog
from pypto.languages.invariants import ALL, STRUCTURAL, NoRecursion

import pypto.language as pl
from pypto import ir, passes
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
    return _program_of(_KERNEL + functions)


def _program_of(functions: str) -> ir.Program:
    return prog("@pl.program\nclass R:\n" + functions)


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


def _calling_itself(func: ir.Function) -> ir.Function:
    """``func`` calling itself once before its return."""
    stmts = list(func.body.stmts)
    types = func.return_types
    call = ir.Call(ir.GlobalVar(func.name), list(func.params), {}, None,
                   types[0] if len(types) == 1 else ir.TupleType(list(types)), ir.Span.unknown())
    return ir.replace(func, body=ir.SeqStmts([*stmts[:-1], ir.EvalStmt(call, ir.Span.unknown()), stmts[-1]]))


class _After(passes.PassInstrument):
    """Keeps the program after each pass, by pass name."""

    name = "AfterEach"

    def __init__(self) -> None:
        self.programs: dict[str, ir.Program] = {}

    def after_pass(self, p: passes.Pass, program: ir.Program) -> None:
        self.programs[p.name] = program


def _no_crash_and_reported(program: ir.Program, name: str) -> None:
    for inv in ALL.values():
        inv.check(program)
    assert any(v.function == name for v in NoRecursion.check(program))


def test_checkers_following_callees_stop_at_a_cycle() -> None:
    # The checkers that follow a call into its callee's body (the parameters a kernel's tensor ops
    # write, the buffer a returned call result is) meet a recursive function at any dialect a plugin
    # pass could make one in: each gives its findings (NoRecursion reports the cycle) instead of going
    # round it until Python's stack runs out.
    after = _After()
    with passes.PassContext([after]):
        passes.PassManager(passes.builtin_passes(), verify=False).run(
            pl.loads_program(str(Path(__file__).resolve().parents[2] / "examples" / "cross_core_cluster.py")))
    program = after.programs["OutlineIncoreScopes"]
    incore = [f for f in program.functions.values() if f.func_type is ir.FunctionType.InCore]
    assert incore
    for func in incore:
        functions = {key: _calling_itself(f) if f is func else f for key, f in program.functions.items()}
        _no_crash_and_reported(ir.replace(program, functions=functions), func.name)
    # A kernel returning what its call of itself returns, followed back from the entry's result.
    _no_crash_and_reported(_program_of(f"""
    @pl.function(type=pl.FunctionType.InCore)
    def k2(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        t: pl.Tile[[16], pl.FP32] = pl.load(x, [0], [16])
        o1: {_T} = pl.store(t, [0], out)
        o2: {_T} = self.k2(x, o1)
        return o2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
        r: {_T} = self.k2(x, out)
        return r
"""), "k2")
