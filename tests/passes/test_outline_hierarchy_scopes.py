"""OutlineHierarchyScopes (spec/passes.md §4.8): level/role functions, names, inner scopes first,
snapshots and interpreter preservation."""

from __future__ import annotations

import pytest
from outline_programs import HIERARCHY, SCALARS, front, inputs, ssa_program
from pass_helpers import before_after

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages.ssa import ssa


def after(name: str) -> ir.Program:
    return passes.outline_hierarchy_scopes()(ssa_program("hierarchy", name))


@pytest.mark.parametrize("name", sorted(HIERARCHY))
def test_snapshot(name: str, snapshot) -> None:
    before = ssa_program("hierarchy", name)
    assert before_after("OutlineHierarchyScopes", before, passes.outline_hierarchy_scopes()(before)) == snapshot


@pytest.mark.parametrize("name", sorted(HIERARCHY))
def test_preserves_what_the_program_computes(name: str) -> None:
    program = ssa_program("hierarchy", name)
    for scalar in SCALARS.get(name, (1, 3)):
        result = assert_pass_preserves(passes.outline_hierarchy_scopes(), program, inputs(program, scalar))
    ssa.validate(result)
    assert ir.structural_equal(pl.parse(result.as_python()), result, enable_auto_mapping=True)


def test_a_scope_becomes_an_opaque_function_tagged_with_its_level() -> None:
    program = after("host_orchestrator")
    host = program["main_host_orch_0"]
    assert (host.func_type, host.level, host.role) == (ir.FunctionType.Opaque, ir.Level.HOST, ir.Role.Orchestrator)
    assert [p.name_hint for p in host.params] == ["c", "a"]
    assert program["main"].func_type is ir.FunctionType.Opaque  # the parent keeps its type


def test_inner_scopes_go_first_and_are_named_after_their_new_function() -> None:
    program = after("nested_levels_and_kernels")
    assert sorted(f.name for f in program.functions.values()) == ["chip_part", "main", "main_host_0"]
    host, chip = program["main_host_0"], program["chip_part"]
    assert (host.level, host.role, chip.level, chip.role) == (ir.Level.HOST, None, ir.Level.CHIP, ir.Role.Orchestrator)
    assert [s.value.op.name for s in ir.flatten_to_stmts(host.body)[1:2]] == ["chip_part"]
    # The CORE_GROUP scope is left for OutlineIncoreScopes, inside the chip-level function.
    assert isinstance(ir.flatten_to_stmts(chip.body)[0], ir.InCoreScopeStmt)
    # Hierarchy functions return the values themselves (their writes may be outlined into kernels).
    assert [v.name_hint for v in ir.flatten_to_stmts(chip.body)[-1].value] == ["out__ssa_v0"]


def test_only_opaque_functions_are_outlined() -> None:
    text = '''
import pypto.language as pl

@pl.program
class Orch:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        with pl.at(level=pl.Level.HOST):
            b = pl.add(a, a)
        return b
'''
    program = front(text)
    assert passes.outline_hierarchy_scopes()(program) is program


def test_programs_without_scopes_come_back_unchanged() -> None:
    program = front(open("examples/tile_add.py").read())
    assert passes.outline_hierarchy_scopes()(program) is program
