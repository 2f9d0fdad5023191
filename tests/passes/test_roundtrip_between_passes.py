"""Every program of the preservation suite prints and re-parses to a structurally equal program
after every front pass (the pass manager's ``roundtrip`` verification level)."""

from __future__ import annotations

import pytest
from programs import Case, every_case

from pypto import passes
from pypto.languages.ssa import ssa
from pypto.languages.surface import surface


def _front_passes() -> list[passes.Pass]:
    front: list[passes.Pass] = []
    for p in passes.builtin_passes():
        if p.target not in (passes.SAME, surface, ssa):
            break
        front.append(p)
    return front


@pytest.mark.parametrize("case", every_case(), ids=lambda c: c.name)
def test_every_intermediate_program_round_trips(case: Case) -> None:
    passes.PassManager(_front_passes(), verify="roundtrip").run_passes(case.program)
