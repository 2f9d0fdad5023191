"""Issue 13: the established pass-infrastructure names (pypto.passes, pypto.ir, pypto.backend, errors)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pypto.ir.errors import PyptoError, VerificationError
from pypto.languages import invariants

import pypto
import pypto.language as pl
from pypto import backend, ir, passes

NOT_SSA = """
@pl.program
class P:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        x: pl.Scalar[pl.INDEX] = n + 1
        for i in pl.range(2):
            x = x + 2  # re-defines the outer x: not SSA until ConvertToSSA carries it
        return x
"""


@pytest.fixture
def not_ssa() -> ir.Program:
    return pl.parse(NOT_SSA)


@pytest.fixture
def clean_backend() -> Iterator[None]:
    backend.reset_for_testing()
    yield
    backend.reset_for_testing()


# pypto.Error / pypto.InternalError


def test_error_is_the_base_of_every_pypto_error() -> None:
    assert pypto.Error is PyptoError
    for cls in (ir.IRTypeError, ir.IRValueError, VerificationError, passes.PassError, pypto.InternalError):
        assert issubclass(cls, pypto.Error)


class _Broken(passes.ProgramPass):
    def run(self, program: ir.Program) -> ir.Program:
        return {}["missing"]


def test_a_bug_in_a_pass_is_an_internal_error_not_a_bare_exception(not_ssa: ir.Program) -> None:
    with pytest.raises(pypto.InternalError, match=r"internal error in pass _Broken: KeyError: 'missing'") as info:
        _Broken()(not_ssa)
    assert isinstance(info.value.__cause__, KeyError)
    assert isinstance(info.value, pypto.Error)


def test_a_pypto_error_from_a_pass_keeps_its_class(not_ssa: ir.Program) -> None:
    class Refuses(passes.ProgramPass):
        def run(self, program: ir.Program) -> ir.Program:
            raise passes.PassError("Refuses", "no")

    with pytest.raises(passes.PassError, match="Refuses: no"):
        Refuses()(not_ssa)


# pypto.backend


def test_backend_helpers(clean_backend: None) -> None:
    assert not backend.is_backend_configured()
    assert backend.get_backend_type() is backend.BackendType.Ascend910B
    assert backend.get_mem_size(ir.MemorySpace.Vec) == 184 * 1024
    backend.set_backend_type(backend.BackendType.Ascend950)
    assert backend.is_backend_configured()
    assert backend.get_backend_type() is backend.BackendType.Ascend950
    assert backend.get_mem_size(ir.MemorySpace.Vec) == 240 * 1024
    assert backend.get_mem_size(ir.MemorySpace.Acc) == 256 * 1024
    backend.reset_for_testing()
    assert not backend.is_backend_configured()
    assert backend.get_backend_type() is backend.BackendType.Ascend910B


def test_get_mem_size_of_ddr_is_a_clear_error(clean_backend: None) -> None:
    with pytest.raises(ir.IRValueError, match="a2a3 has no on-chip memory DDR"):
        backend.get_mem_size(ir.MemorySpace.DDR)


# pypto.ir pass-manager names and op effects


def test_ir_offers_the_pass_manager_names() -> None:
    from pypto.ir import pass_manager
    from pypto.ir.pass_manager import OptimizationStrategy, PassManager

    assert ir.PassManager is PassManager is passes.PassManager
    assert ir.OptimizationStrategy is OptimizationStrategy is passes.OptimizationStrategy
    assert ir.VerificationLevel is passes.VerificationLevel is passes.VerifyLevel
    assert ir.PassDumpLevel is pass_manager.PassDumpLevel
    names = ir.PassManager.get_strategy(ir.OptimizationStrategy.Default).get_pass_names()
    assert names[:2] == ["InlineFunctions", "UnrollLoops"]


def test_run_passes_with_a_dump_level(tmp_path: Path, not_ssa: ir.Program) -> None:
    pm = ir.PassManager(passes.front_passes()[:4])
    pm.run_passes(not_ssa, dump_ir=ir.PassDumpLevel.ALL, output_dir=tmp_path / "all")
    assert sorted(p.name for p in (tmp_path / "all").iterdir()) == [
        "00_frontend.py", "01_after_InlineFunctions.py", "02_after_UnrollLoops.py", "03_after_CtrlFlowTransform.py",
        "04_after_ConvertToSSA.py",
    ]
    pm.run_passes(not_ssa, dump_ir=ir.PassDumpLevel.NONE, output_dir=tmp_path / "none")
    assert not (tmp_path / "none").exists()


def test_op_arg_effects() -> None:
    assert ir.ArgEffect.Write is ir.ArgEffect.WRITE
    assert ir.get_op_arg_effect("tile.store", 2) is ir.ArgEffect.Write
    assert ir.get_op_arg_effect("tile.store", "output_tensor") is ir.ArgEffect.Write
    assert ir.get_op_arg_effect("tile.store", 0) is ir.ArgEffect.Read
    assert ir.get_op_arg_effect("tile.matmul_acc", 0) is ir.ArgEffect.ReadWrite
    assert ir.op_has_declared_arg_effects("tile.store")
    assert not ir.op_has_declared_arg_effects("tile.add")
    assert ir.get_op_write_channel("tile.store") is ir.WriteChannel.Argument
    assert ir.get_op_write_channel("tile.add") is ir.WriteChannel.Result
    assert ir.get_op_write_channel("system.bar_all") is ir.WriteChannel.SideEffect


def test_op_arg_effect_of_a_missing_argument_is_a_clear_error() -> None:
    with pytest.raises(ir.IRValueError, match="Operator 'tile.add' has 2 parameters, no argument 5"):
        ir.get_op_arg_effect("tile.add", 5)
    with pytest.raises(ir.IRValueError, match="Operator 'tile.add' has no parameter 'x'"):
        ir.get_op_arg_effect("tile.add", "x")


# pypto.passes properties, verifiers, instruments


def test_ir_property_names_every_invariant() -> None:
    assert [p.value for p in passes.IRProperty] == sorted(invariants.ALL)
    assert passes.IRProperty.SSAForm.invariant is invariants.SSAForm
    props = passes.IRPropertySet()
    assert props.empty()
    props.insert(passes.IRProperty.SSAForm)
    props.insert(passes.IRProperty.TypeChecked)
    assert props.contains(passes.IRProperty.SSAForm) and passes.IRProperty.TypeChecked in props
    props.remove(passes.IRProperty.SSAForm)
    assert props.to_list() == [passes.IRProperty.TypeChecked]
    assert str(props) == "{TypeChecked}"
    with pytest.raises(ir.IRValueError, match="unknown IR property 'Bogus'"):
        passes.IRPropertySet(["Bogus"])


def test_pass_objects_answer_their_contract() -> None:
    ssa = passes.convert_to_ssa()
    assert ssa.get_name() == "ConvertToSSA"
    assert ssa.get_required_properties().empty()
    assert ssa.get_produced_properties() == passes.IRPropertySet([passes.IRProperty.SSAForm])
    flatten = passes.flatten_call_expr()
    assert flatten.get_required_properties().contains_all(
        passes.IRPropertySet([passes.IRProperty.SSAForm, passes.IRProperty.NormalizedStmtStructure])
    )
    assert flatten.get_produced_properties().contains(passes.IRProperty.NoNestedCalls)


def test_default_verify_properties_are_the_pipeline_input_checks() -> None:
    assert [p.value for p in passes.get_default_verify_properties()] == [
        "AtomicAddDtypeValid", "BreakContinueValid", "InOutUseValid", "ManualDepsOnSubmitOnly",
        "NoRedundantBlocks", "TypeChecked",
    ]


def test_verify_properties_and_the_registry(not_ssa: ir.Program) -> None:
    ssa_only = passes.IRPropertySet([passes.IRProperty.SSAForm])
    found = passes.PropertyVerifierRegistry.verify(ssa_only, not_ssa)
    assert len(found) == 1
    diag = found[0]
    assert isinstance(diag, passes.Diagnostic)
    assert diag.severity is passes.DiagnosticSeverity.Error
    assert (diag.rule_name, diag.error_code) == ("SSAForm", diag.code)
    assert "x" in diag.message and diag.span.is_valid()
    assert passes.PropertyVerifierRegistry.verify(passes.get_default_verify_properties(), not_ssa) == []
    with pytest.raises(VerificationError, match=r"(?s)after pass Mine\).*SSAForm MULTIPLE_ASSIGNMENT"):
        passes.verify_properties(ssa_only, not_ssa, "Mine")
    after = passes.convert_to_ssa()(not_ssa)
    passes.verify_properties(ssa_only, after, "ConvertToSSA")


def test_run_verifier_is_a_pass(not_ssa: ir.Program) -> None:
    assert passes.run_verifier()(not_ssa) is not_ssa
    with pytest.raises(VerificationError, match="SSAForm"):
        passes.run_verifier([passes.IRProperty.SSAForm])(not_ssa)
    both = passes.run_verifier(["SSAForm", "TypeChecked"], disabled_rules=[passes.IRProperty.SSAForm])
    assert both(not_ssa) is not_ssa


def test_pass_context_with_a_verification_level(not_ssa: ir.Program) -> None:
    with passes.PassContext([], passes.VerificationLevel.NONE) as ctx:
        assert ctx.verify is passes.VerificationLevel.NONE
        # no checks at all: a pass that needs SSA runs on a non-SSA program
        passes.flatten_call_expr()(not_ssa)


class _ForgetsSSA(passes.ProgramPass):
    """Claims SSAForm but returns its (non-SSA) input."""

    produces = frozenset({invariants.SSAForm})

    def run(self, program: ir.Program) -> ir.Program:
        return program


def test_verification_instrument_checks_produced_after(not_ssa: ir.Program) -> None:
    instrument = passes.VerificationInstrument(passes.VerificationMode.AFTER)
    with passes.PassContext([instrument], passes.VerificationLevel.NONE):
        with pytest.raises(VerificationError, match=r"(?s)after pass _ForgetsSSA.*SSAForm MULTIPLE_ASSIGNMENT"):
            _ForgetsSSA()(not_ssa)


def test_verification_instrument_checks_required_before(not_ssa: ir.Program) -> None:
    instrument = passes.VerificationInstrument(passes.VerificationMode.BEFORE)
    with passes.PassContext([instrument], passes.VerificationLevel.NONE):
        with pytest.raises(VerificationError, match=r"(?s)before pass FlattenCallExpr.*SSAForm MULTIPLE_ASSIGNMENT"):
            passes.flatten_call_expr()(not_ssa)
        passes.flatten_call_expr()(passes.convert_to_ssa()(not_ssa))


def test_pass_pipeline(not_ssa: ir.Program) -> None:
    pipeline = passes.PassPipeline()
    pipeline.add_pass(passes.convert_to_ssa())
    pipeline.add_pass(passes.normalize_stmt_structure())
    assert pipeline.get_pass_names() == ["ConvertToSSA", "NormalizeStmtStructure"]
    ir.assert_structural_equal(pipeline.run(not_ssa), passes.normalize_stmt_structure()(passes.convert_to_ssa()(not_ssa)))
