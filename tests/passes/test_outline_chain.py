"""The three outlining passes in pipeline order: every program lands in the ``outlined`` dialect
with what it computes unchanged; scope-free tile-level programs pass through as the same objects."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from outline_programs import ALL, SCALARS, front, inputs, source

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages.outlined import outlined

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROGRAMS = [(group, name) for group, programs in ALL.items() for name in sorted(programs)]
# The tile-level examples; the others (the tensor-level tensor_*.py of issue 12, deps_at_blocks.py)
# hold pl.at / pl.spmd scopes to outline.
_SCOPED = re.compile(r"\bpl\.(at|spmd|cluster)\(")
SCOPE_FREE = sorted(p.name for p in EXAMPLES.glob("*.py") if not _SCOPED.search(p.read_text()))
TENSOR_LEVEL = sorted(p.name for p in EXAMPLES.glob("*.py") if _SCOPED.search(p.read_text()))


def outline_passes() -> list[passes.Pass]:
    return [passes.outline_hierarchy_scopes(), passes.outline_incore_scopes(), passes.outline_cluster_scopes()]


def pipeline(verify: str = "strict") -> passes.PassManager:
    """The front passes, then the three outlining passes (the order is checked on construction)."""
    return passes.PassManager(passes.front_passes() + outline_passes(), verify=verify)


def test_the_pipeline_ends_in_outlined() -> None:
    assert pipeline().final_dialect is outlined


@pytest.mark.parametrize(("group", "name"), PROGRAMS)
def test_every_program_lands_in_outlined(group: str, name: str) -> None:
    program = pl.parse(source(group, name))
    for scalar in SCALARS.get(name, (1, 3)):
        result = assert_pass_preserves(pipeline("roundtrip"), program, inputs(program, scalar))
    outlined.validate(result)


@pytest.mark.parametrize("example", SCOPE_FREE)
def test_scope_free_examples_pass_through_unchanged(example: str) -> None:
    program = front((EXAMPLES / example).read_text())
    for outline in outline_passes():
        assert outline(program) is program
    outlined.validate(program)
    assert ir.structural_equal(pipeline().run(pl.parse((EXAMPLES / example).read_text())), program)


@pytest.mark.parametrize("example", TENSOR_LEVEL)
def test_tensor_level_examples_are_outlined_into_kernels(example: str) -> None:
    program = pipeline().run(pl.parse((EXAMPLES / example).read_text()))
    outlined.validate(program)
    kinds = {f.func_type.name for f in program.functions.values()}
    # A scope outlines into an InCore kernel; one that launches hand-written AIC/AIV kernels keeps them.
    assert "Orchestration" in kinds and kinds & {"InCore", "AIC", "AIV"}
