"""A checker that reads other functions' bodies declares which (``reads_bodies=Bodies(...)``): its cached
result of a kept function is reused while those functions are the same objects, and only then."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from inv_helpers import found, prog
from pypto.languages.invariants import EntryResultsExported, InputsNotWritten, Invariant, MixedKernelExpanded, Reporter
from pypto.languages.invariants.base import check_all, clear_caches
from pypto.languages.invariants import Bodies

import pypto.language as pl
from pypto import ir
from pypto.ir.enums import FunctionType


@pytest.fixture(autouse=True)
def _cold() -> Iterator[None]:
    clear_caches()
    yield
    clear_caches()


def _recording(calls: list[str], reads: Bodies) -> Invariant:
    def check(func: ir.Function, program: ir.Program, report: Reporter) -> None:
        calls.append(func.name)

    return Invariant.per_function("R", "test", check, reads_bodies=reads)


def _scalar(name: str, body: str = "return a") -> str:
    return f"""
    @pl.function
    def {name}(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        {body}
"""


def _program(*functions: str) -> ir.Program:
    return prog("@pl.program\nclass P:" + "".join(functions).replace("\n    ", "\n    "))


def _with(program: ir.Program, sources: list[str], *changed: str) -> ir.Program:
    """``program`` (parsed from ``sources``) with the functions of ``changed`` in place of those of their
    names or added; the others are kept as they are (the same objects)."""
    names = [text.split("def ", 1)[1].split("(", 1)[0] for text in changed]
    by_name = {text.split("def ", 1)[1].split("(", 1)[0]: text for text in sources}
    by_name.update(zip(names, changed))
    new = {n: f for n, f in ((f.name, f) for f in _program(*by_name.values()).functions.values()) if n in names}
    kept = [new.pop(f.name, f) for f in program.functions.values()]
    return ir.Program(kept + list(new.values()), program.name, program.span)


CALLS = [
    _scalar("top", "b: pl.Scalar[pl.INT64] = self.mid(a)\n        return b"),
    _scalar("mid", "b: pl.Scalar[pl.INT64] = self.leaf(a)\n        return b"),
    _scalar("leaf"),
    _scalar("other"),
]


def test_a_change_to_a_transitive_callee_runs_the_checker_on_its_callers_again() -> None:
    calls: list[str] = []
    inv = _recording(calls, Bodies(callees=True))
    program = _program(*CALLS)
    check_all(program, [inv])
    assert calls == ["leaf", "mid", "other", "top"]
    calls.clear()
    check_all(_with(program, CALLS, _scalar("leaf", "b: pl.Scalar[pl.INT64] = a + 1\n        return b")), [inv])
    assert calls == ["leaf", "mid", "top"]


def test_a_change_to_a_function_the_checker_does_not_read_runs_it_on_that_function_only() -> None:
    calls: list[str] = []
    inv = _recording(calls, Bodies(callees=True))
    program = _program(*CALLS)
    check_all(program, [inv])
    calls.clear()
    check_all(_with(program, CALLS, _scalar("other", "b: pl.Scalar[pl.INT64] = a + 1\n        return b")), [inv])
    assert calls == ["other"]
    calls.clear()
    check_all(_with(program, CALLS, _scalar("top", "return a")), [inv])  # top called mid; callees read nothing of it
    assert calls == ["top"]


def test_a_function_that_starts_calling_a_checked_one_runs_a_callers_reader_again() -> None:
    calls: list[str] = []
    inv = _recording(calls, Bodies(callers=True))
    program = _program(*CALLS)
    check_all(program, [inv])
    calls.clear()
    check_all(_with(program, CALLS, _scalar("other", "b: pl.Scalar[pl.INT64] = self.leaf(a)\n        return b")), [inv])
    assert calls == ["leaf", "other"]  # leaf has a new caller; mid (called by top) is not read


def test_the_bodies_are_read_only_for_the_declared_kinds() -> None:
    calls: list[str] = []
    inv = _recording(calls, Bodies(callees=True, of={FunctionType.Orchestration}))
    program = _program(*CALLS)
    check_all(program, [inv])
    calls.clear()
    check_all(_with(program, CALLS, _scalar("leaf", "b: pl.Scalar[pl.INT64] = a + 1\n        return b")), [inv])
    assert calls == ["leaf"]  # mid and top are Opaque functions: for them it reads signatures only


_T = "pl.Tensor[[16, 16], pl.FP32]"
_TILE = "pl.Tile[[16, 16], pl.FP32]"


def _kernel(name: str, writes_input: bool = False) -> str:
    write = "x[0:16, :] = pl.exp(x)\n        " if writes_input else ""
    return f"""
    @pl.function(type=pl.FunctionType.InCore)
    def {name}(self, x: {_T}, y: pl.Out[{_T}]) -> {_T}:
        {write}t: {_TILE} = pl.load(x, [0, 0], [16, 16])
        y = pl.store(t, [0, 0], y)
        return y
"""


MAIN = f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: {_T}, y: pl.Out[{_T}]) -> {_T}:
        y = self.k(a, y)
        return y
"""


def _runs(monkeypatch: pytest.MonkeyPatch, inv: Invariant) -> list[str]:
    """The names of the functions ``inv``'s checker runs on from now on."""
    runs: list[str] = []
    check = inv._function_check

    def counting(func: ir.Function, program: ir.Program, report: Reporter) -> None:
        runs.append(func.name)
        check(func, program, report)

    monkeypatch.setattr(inv, "_function_check", counting)
    return runs


def test_a_callee_that_starts_writing_its_input_makes_the_kept_caller_break_inputs_not_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An InCore kernel's tensor write into its input is derived as an output: main, kept as it was,
    # now passes its input a for it.
    runs = _runs(monkeypatch, InputsNotWritten)
    sources = [_kernel("k"), _kernel("u"), MAIN]
    program = _program(*sources)
    assert found(InputsNotWritten, program) == []
    runs.clear()
    assert found(InputsNotWritten, _with(program, sources, _kernel("u", writes_input=True))) == []
    assert runs == ["u"]  # main does not call u
    runs.clear()
    changed = _with(program, sources, _kernel("k", writes_input=True))
    assert changed.get_function("main") is program.get_function("main")
    assert found(InputsNotWritten, changed) == [
        ("WRITE_TO_INPUT", "input parameter 'a' is passed as an Out/InOut argument to 'k'; declare it pl.Out[...] "
         "(written only) or pl.InOut[...] (read and written) to write it", "k(a, y)"),
    ]
    assert runs == ["k", "main"]


def test_an_entry_that_another_function_starts_calling_is_no_entry_any_more(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _runs(monkeypatch, EntryResultsExported)
    entry = f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: {_T}) -> {_T}:
        return a
"""

    def outer(argument: str) -> str:
        call = f"b: {_T} = self.main(a)\n        " if argument == "b" else ""
        return f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def outer(self, a: {_T}, y: pl.Out[{_T}]) -> {_T}:
        {call}y = self.k({argument}, y)
        return y
"""

    sources = [_kernel("k"), entry, outer("a")]
    program = _program(*sources)
    lost = ("ENTRY_RESULT_LOST", "entry 'main' returns 'a', which is none of its Out/InOut parameters: a call cannot "
            "give it back (ExportEntryResults makes a returned created tensor one)", "return a")
    assert found(EntryResultsExported, program) == [lost]
    runs.clear()
    assert found(EntryResultsExported, _with(program, sources, _kernel("k", writes_input=True))) == [lost]
    assert runs == ["k", "outer"]  # main calls no function and is called by none: a kernel's change is not read
    runs.clear()
    assert found(EntryResultsExported, _with(program, sources, outer("b"))) == []  # main is called: no entry
    assert runs == ["main", "outer"]


def test_a_kernel_is_checked_again_when_its_group_peer_changes_and_not_when_the_orchestration_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs = _runs(monkeypatch, MixedKernelExpanded)
    source = (Path(__file__).resolve().parents[2] / "examples" / "cross_core_pipes.py").read_text()
    program = pl.parse(source)
    assert MixedKernelExpanded.errors(program) == []
    runs.clear()
    main = program.get_function("main")
    renamed = pl.parse(source.replace("c = self.square_matmul(a, b, c)\n        return c",
                                      "d = self.square_matmul(a, b, c)\n        return d"))
    assert renamed.get_function("main") != main
    changed = ir.Program([renamed.get_function("main") if f.name == "main" else f for f in program.functions.values()],
                         program.name, program.span)
    assert MixedKernelExpanded.errors(changed) == []
    assert runs == []  # no kernel is checked again, and an orchestration is not checked at all (idle)
    runs.clear()
    push = "        pl.tpush_to_aic(a_sq, split=0, id=0)\n"
    pushes_three = pl.parse(source.replace(push, "        for i in pl.range(3):\n    " + push))
    changed = ir.Program([pushes_three.get_function("prepare") if f.name == "prepare" else f
                          for f in program.functions.values()], program.name, program.span)
    assert [(v.code, v.function) for v in MixedKernelExpanded.errors(changed)] == [("PIPE_COUNT_MISMATCH", "multiply")]
    assert runs == ["multiply", "prepare"]  # the peer of the changed kernel; the Group reads signatures only


def test_checkers_of_equal_reads_declarations_both_see_a_changed_callee() -> None:
    # Equal declarations (distinct objects) share the work of finding what they read: a change to a
    # transitive callee still runs both on its callers, and both report what the change broke.
    def reading_leaf(name: str, calls: list[tuple[str, str]]) -> Invariant:
        def check(func: ir.Function, program: ir.Program, report: Reporter) -> None:
            calls.append((name, func.name))
            leaf = {f.name: f for f in program.functions.values()}["leaf"]
            if func.name == "top" and "+" in leaf.as_python():
                report.error("LEAF", f"{name}: leaf adds", func)

        return Invariant.per_function(name, "test", check, reads_bodies=Bodies(callees=True))

    calls: list[tuple[str, str]] = []
    one, two = reading_leaf("R1", calls), reading_leaf("R2", calls)
    program = _program(*CALLS)
    assert check_all(program, [one, two]) == []
    calls.clear()
    changed = _with(program, CALLS, _scalar("leaf", "b: pl.Scalar[pl.INT64] = a + 1\n        return b"))
    assert [(v.rule, v.function, v.message) for v in check_all(changed, [one, two])] == [
        ("R1", "top", "R1: leaf adds"),
        ("R2", "top", "R2: leaf adds"),
    ]
    assert calls == [("R1", "leaf"), ("R2", "leaf"), ("R1", "mid"), ("R2", "mid"), ("R1", "top"), ("R2", "top")]
