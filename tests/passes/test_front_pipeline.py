"""surface -> ssa on every front-pass test program: the ssa boundary check passes and meaning is kept."""

from __future__ import annotations

import pytest
from front_programs import every_program, parse
from pass_helpers import check_preserves
from pypto.languages import ssa, surface
from pypto.languages.invariants import NoNestedCalls, NormalizedStmtStructure

from pypto import passes


@pytest.mark.parametrize(("name", "source"), every_program(), ids=[name for name, _ in every_program()])
def test_surface_to_ssa(name: str, source: str) -> None:
    program = parse(source)
    surface.validate(program)
    result = check_preserves(passes.PassManager(passes.front_passes()), program)
    ssa.validate(result)
    assert ssa.check(result, [NormalizedStmtStructure, NoNestedCalls]) == []
