"""The idle tests of hand-written checkers (``idle_if``: the checker finds nothing in a function of
that kind and those node classes, so it is not called there) skip only functions where the checker,
called, finds nothing: on programs that break each such invariant, and on the examples' functions."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from inv_helpers import INDEX, prog, single
from pypto.analysis import function_index
from pypto.backend import current_platform
from pypto.languages.invariants import ALL
from pypto.languages.invariants.base import Reporter, clear_caches
from test_call_invariants import READ_AFTER
from test_check_shortcuts import _lowering_stages, _malformed_kernels
from test_recursion_invariant import SELF_CALL

import pypto.language as pl
from pypto import ir

_SPAN = ir.Span.unknown()
_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# The hand-written checkers with an idle test (the declared invariants' tests are their rule plans).
_HAND = sorted(name for name, inv in ALL.items() if inv.idle_if is not None and not inv.rules)


def _breaking() -> list[ir.Program]:
    """Programs that break invariants whose checkers have idle tests."""
    n = ir.Var("n", INDEX)
    jump = single("jump", [n], ir.SeqStmts([ir.BreakStmt(_SPAN), ir.ReturnStmt([n], _SPAN)], _SPAN), [INDEX])
    unresolved = single("main", [n], ir.SeqStmts([
        ir.EvalStmt(ir.Call(ir.GlobalVar("missing"), [n], {}, INDEX, _SPAN), _SPAN), ir.ReturnStmt([n], _SPAN)],
        _SPAN), [INDEX], func_type=ir.FunctionType.Orchestration)
    opaque_tile = prog("""
        @pl.program
        class P:
            @pl.function
            def f(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
                t: pl.Tile[[16], pl.FP32] = pl.load(x, [0], [16])
                return x
        """)
    return [jump, unresolved, opaque_tile, prog(READ_AFTER), SELF_CALL, *_malformed_kernels()]


@functools.cache
def _programs() -> list[ir.Program]:
    """The breaking programs, and six examples after each lowering stage."""
    examples = sorted(_EXAMPLES.glob("*.py"))[:6]
    return _breaking() + [stage for path in examples for stage in _lowering_stages(pl.parse(path.read_text()))]


def _findings(program: ir.Program, name: str, idle: bool) -> list[tuple]:
    clear_caches()
    inv = ALL[name]
    out = []
    for func in program.functions.values():
        if idle and inv.idle_if(func):
            continue
        report = Reporter(name, func.name, current_platform())
        inv._function_check(func, program, report)
        out += [(v.code, v.message, id(v.node)) for v in report.violations]
    return out


def test_the_hand_checkers_with_idle_tests() -> None:
    assert _HAND == [
        "BreakContinueValid", "GMPipeRingPassed", "InOutUseValid", "KernelTensorCarriesElided", "MixedKernelExpanded",
        "NoRecursion", "OperandLayoutsResolved", "OrchestrationReferencesResolved", "ReturnParamsExplicit",
        "TileCastsNative", "TileOpsInKernels", "TileSlicesPitched",
    ]


@pytest.mark.parametrize("name", _HAND)
def test_an_idle_test_skips_only_functions_without_findings(name: str) -> None:
    programs = _programs()
    assert [_findings(p, name, True) for p in programs] == [_findings(p, name, False) for p in programs]


def test_the_breaking_programs_break_the_invariants_they_are_for() -> None:
    broken = {name for name in _HAND for p in _breaking() if _findings(p, name, False)}
    assert broken >= {"BreakContinueValid", "InOutUseValid", "MixedKernelExpanded", "NoRecursion",
                      "OrchestrationReferencesResolved", "TileOpsInKernels"}


@pytest.mark.parametrize("name", _HAND)
def test_an_idle_test_reads_only_the_kind_and_node_classes(name: str) -> None:
    """check_all asks an idle test once per (function kind, node classes) and reuses the answer: it must
    be the same for every function of the programs that shares them."""
    test = ALL[name].idle_if
    answers: dict[tuple, set[bool]] = {}
    for program in _programs():
        for func in program.functions.values():
            answers.setdefault((func.func_type, function_index(func).classes), set()).add(bool(test(func)))
    assert all(len(found) == 1 for found in answers.values())
    assert len(answers) > 10
