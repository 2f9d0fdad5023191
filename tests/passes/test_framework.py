"""Pass base classes and standalone pass calls."""

from __future__ import annotations

import pytest
from front_programs import CONVERT_TO_SSA, parse
from pypto.languages.invariants import SSAForm
from pypto.passes import PassContext, PassError

from pypto import ir, passes
from pypto.ir.errors import VerificationError


def test_function_pass_returns_the_program_when_no_function_changes() -> None:
    program = parse(CONVERT_TO_SSA["accumulate"])
    once = passes.convert_to_ssa()(program)
    assert passes.convert_to_ssa()(once) is once


def test_standalone_call_checks_what_the_pass_produces() -> None:
    class Broken(passes.FunctionPass):
        name = "Broken"
        produces = frozenset({SSAForm})

        def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
            return func

    program = parse(CONVERT_TO_SSA["accumulate"])
    with pytest.raises(VerificationError) as err:
        Broken()(program)
    assert str(err.value).splitlines()[0] == "program 'Acc' breaks its invariants (after pass Broken): 1 violation"
    assert err.value.violations[0].code == "MULTIPLE_ASSIGNMENT"
    with PassContext(verify=False):
        assert Broken()(program) is program


def test_pass_must_return_a_program() -> None:
    class Wrong(passes.ProgramPass):
        name = "Wrong"

        def run(self, program: ir.Program) -> ir.Program:
            return program.get_function("main")  # type: ignore[return-value]

    with pytest.raises(PassError, match="^Wrong: returned Function instead of a Program$"):
        Wrong()(parse(CONVERT_TO_SSA["accumulate"]))


def test_factories_name_their_passes() -> None:
    made = [
        passes.inline_functions(),
        passes.unroll_loops(),
        passes.ctrl_flow_transform(),
        passes.convert_to_ssa(),
        passes.simplify(),
        passes.normalize_stmt_structure(),
        passes.flatten_call_expr(),
    ]
    assert [p.name for p in made] == [p.name for p in passes.front_passes()]
    assert repr(made[3]) == "<Pass ConvertToSSA>"


def test_every_pass_documents_its_rewrite() -> None:
    for p in passes.builtin_passes():
        doc = type(p).__doc__ or ""
        assert "before" in doc and "after" in doc, p.name
