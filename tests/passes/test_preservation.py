"""Every pass preserves meaning: the programs of ``programs.py`` run before and after each pass.

Each pass is applied to a program as the default pipeline hands it over (after the passes that
precede it), and ``assert_pass_preserves`` runs both versions on every input set of the case:
returns and Out/InOut tensors must agree. A case of ``CASES`` must also be one the pass rewrites,
so that it tests something; a ``REGRESSIONS`` case (a program the pass once got wrong) only has to
keep its meaning. The whole surface -> ssa pipeline runs on every program, and the passes that
accept any dialect and keep it (source surface, target SAME) also run directly on every surface
program. Finally, every pass class
``pypto.passes`` exports must have at least three cases, so a new pass cannot land without them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest
from programs import CASES, PRE_SSA_LOOPS, REGRESSIONS, Case, every_case
from pypto.languages import ssa, surface

from pypto import ir, passes
from pypto.interp import run
from pypto.interp.testing import assert_pass_preserves

MIN_CASES = 3


def at_pass(name: str, program: ir.Program) -> tuple[passes.Pass, ir.Program]:
    """The pass called ``name`` and ``program`` as it reaches it.

    A front pass gets the program after the front passes before it; a lowering pass gets the
    front pipeline's output (its case's ``prepare`` applies what runs between, often on a program
    written in a later dialect's form).
    """
    before: list[passes.Pass] = []
    for p in passes.front_passes():
        if p.name == name:
            return p, passes.PassManager(before).run(program) if before else program
        before.append(p)
    cls = exported_pass_classes().get(name)
    if cls is None:
        raise KeyError(f"no built-in pass named {name}")
    return cls(**_OPTIONS.get(name, {})), passes.PassManager(before).run(program)


# Passes that change nothing with their default options are checked with these.
_OPTIONS: dict[str, dict[str, object]] = {"AutoDeriveTaskDependencies": {"enabled": True}}


def front_pipeline() -> passes.PassManager:
    """The built-in passes that take a surface program to the ssa dialect."""
    return passes.PassManager(passes.front_passes())


class AppliedOnce:
    """A pass or pipeline that transforms a given program only once; applying it again reuses the result.

    A case checks one program on several input sets; under typeguard the pass, not the runs, is the
    slow part, so it need not be repeated for each set.
    """

    def __init__(self, name: str, apply: Callable[[ir.Program], ir.Program]) -> None:
        self.name = name
        self._apply = apply
        self._last: tuple[ir.Program, ir.Program] | None = None

    def __call__(self, program: ir.Program) -> ir.Program:
        if self._last is None or self._last[0] is not program:
            self._last = (program, self._apply(program))
        return self._last[1]


def check_pass(name: str, case: Case, rewrites: bool = True) -> None:
    """The pass ``name`` keeps the meaning of ``case`` on every input set (and, if ``rewrites``, changes it)."""
    p, before = at_pass(name, case.program)
    if case.prepare is not None:
        before = case.prepare(before)
    once = AppliedOnce(name, p)
    for inputs in case.inputs:
        after = assert_pass_preserves(once, before, inputs)
    if rewrites:
        # MemRefs are not part of structural equality (spec/ir.md §7): a planner's change shows in the text.
        changed = not ir.structural_equal(before, after) or before.as_python() != after.as_python()
        assert changed, f"{name} leaves {case.name} unchanged: the case tests nothing"


def exported_pass_classes() -> dict[str, type[passes.Pass]]:
    """Every concrete pass class exported by ``pypto.passes``, and the classes of the built-in pipeline."""
    classes = {
        obj.name: obj
        for obj in vars(passes).values()
        if inspect.isclass(obj) and issubclass(obj, passes.Pass) and not inspect.isabstract(obj)
    }
    classes.update((p.name, type(p)) for p in passes.builtin_passes())
    return classes


def _params(group: dict[str, list[Case]]) -> list[object]:
    return [pytest.param(n, c, id=f"{n}-{c.name}") for n, cases in group.items() for c in cases]


@pytest.mark.parametrize(("name", "case"), _params(CASES))
def test_pass_preserves_meaning(name: str, case: Case) -> None:
    check_pass(name, case)


@pytest.mark.parametrize(("name", "case"), _params(REGRESSIONS))
def test_pass_keeps_the_meaning_it_once_changed(name: str, case: Case) -> None:
    check_pass(name, case, rewrites=False)


@pytest.mark.parametrize("case", every_case(), ids=lambda c: c.name)
def test_front_pipeline_preserves_meaning(case: Case) -> None:
    pipeline = AppliedOnce("the surface -> ssa pipeline", front_pipeline().run_passes)
    for inputs in case.inputs:
        after = assert_pass_preserves(pipeline, case.program, inputs)
    ssa.validate(after, context="front pipeline output")


DIALECT_FREE = [p.name for p in passes.builtin_passes() if p.source is surface and p.target is passes.SAME]


@pytest.mark.parametrize("case", every_case(), ids=lambda c: c.name)
@pytest.mark.parametrize("name", DIALECT_FREE)
def test_dialect_free_pass_preserves_surface_programs(name: str, case: Case) -> None:
    p = next(p for p in passes.builtin_passes() if p.name == name)
    once = AppliedOnce(name, p)
    for inputs in case.inputs:
        assert_pass_preserves(once, case.program, inputs)


def test_convert_to_ssa_preserves_pre_ssa_loops() -> None:
    check_pass("ConvertToSSA", PRE_SSA_LOOPS)


def _pre_ssa_loops_in_python(n: int) -> int:
    x, doublings = 1, 0
    while x < n:
        x, doublings = x * 2 + 1, doublings + 1
    s = total = 0
    for i in range(n):
        s += i
        total += s
    return doublings * 1000 + total


def test_pre_ssa_loops_after_convert_to_ssa_match_python() -> None:
    # ConvertToSSA's output also agrees with the same loops written in Python.
    p, before = at_pass("ConvertToSSA", PRE_SSA_LOOPS.program)
    after = p(before)
    for (n,) in PRE_SSA_LOOPS.inputs:
        assert run(after, n).value == _pre_ssa_loops_in_python(n)


def test_front_pipeline_reaches_ssa() -> None:
    pipeline = front_pipeline()
    assert pipeline.final_dialect is ssa
    assert pipeline.get_pass_names() == [
        "InlineFunctions",
        "UnrollLoops",
        "CtrlFlowTransform",
        "ConvertToSSA",
        "Simplify",
        "NormalizeStmtStructure",
        "FlattenCallExpr",
    ]


def passes_lacking_cases() -> dict[str, int]:
    """Exported pass names with fewer than ``MIN_CASES`` preservation cases, and how many they have."""
    counts = {name: len(CASES.get(name, [])) for name in exported_pass_classes()}
    return {name: n for name, n in counts.items() if n < MIN_CASES}


def test_every_exported_pass_has_preservation_cases() -> None:
    classes = exported_pass_classes()
    assert {p.name for p in passes.builtin_passes()} <= set(classes)
    assert set(CASES) <= set(classes), f"CASES names unknown passes: {sorted(set(CASES) - set(classes))}"
    lacking = passes_lacking_cases()
    assert not lacking, (
        f"passes with fewer than {MIN_CASES} preservation programs in tests/passes/programs.py: {lacking}"
    )


def test_a_new_exported_pass_without_cases_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    class ReverseLoops(passes.ProgramPass):
        name = "ReverseLoops"

        def run(self, program: ir.Program) -> ir.Program:
            return program

    monkeypatch.setattr(passes, "ReverseLoops", ReverseLoops, raising=False)
    assert passes_lacking_cases() == {"ReverseLoops": 0}
