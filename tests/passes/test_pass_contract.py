"""The Pass contract: source dialects accept descendants, SAME targets, a pass applied alone checks its
source, options are typed frozen fields, and the platform travels in the pass context."""

from __future__ import annotations

import dataclasses

import pytest
from front_programs import CONVERT_TO_SSA, parse
from pypto.languages import memref, outlined, placed, runtime, split_core, ssa, surface, tiled
from pypto.languages.invariants import AtomicAddDtypeValid, NormalizedStmtStructure

from pypto import backend, ir, passes
from pypto.backend import A2A3, A5, BackendType
from pypto.ir.errors import VerificationError
from pypto.passes import SAME, PassContext, PassError, PassOrderError, check_order


class Identity(passes.FunctionPass):
    """Accepts ssa and everything below it; keeps the dialect."""

    source = ssa

    def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
        return func


class Blocking(passes.FunctionPass):
    """A pass with options."""

    size: int = 64
    mode: str = "row"

    def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
        return func


def test_defaults_accept_any_dialect_and_keep_it() -> None:
    assert (Blocking.name, Blocking.source, Blocking.target) == ("Blocking", surface, SAME)
    assert (passes.Simplify.source, passes.Simplify.target) == (surface, SAME)
    assert (passes.NormalizeStmtStructure.source, passes.NormalizeStmtStructure.target) == (surface, SAME)


@pytest.mark.parametrize("start", [ssa, outlined, tiled, placed, split_core], ids=lambda d: d.name)
def test_a_source_accepts_its_descendants(start) -> None:
    (step,) = check_order([Identity()], start)
    assert (step.before, step.after) == (start, start)
    (step,) = check_order([passes.simplify()], start)
    assert step.after is start


@pytest.mark.parametrize("start", [memref, runtime], ids=lambda d: d.name)
def test_a_descendant_that_dropped_a_guarantee_is_refused(start) -> None:
    # memref gives up SSAForm, which every pass written for ssa requires through its source.
    with pytest.raises(PassOrderError, match="pass Identity requires properties that do not hold at this point: SSA"):
        check_order([Identity()], start)
    (step,) = check_order([passes.simplify()], start)
    assert step.after is start


def test_requires_come_from_the_source_dialect() -> None:
    assert Identity.requires == frozenset()
    assert Identity.required() == ssa.properties - surface.properties
    assert "SSAForm" in Identity.required()
    # Only what a pass needs beyond its source dialect is written by hand.
    assert {i.name for i in passes.FlattenCallExpr.requires} == {"NormalizedStmtStructure"}
    assert passes.FlattenCallExpr.required() >= {"SSAForm", "NormalizedStmtStructure"}


def test_a_source_rejects_its_ancestors() -> None:
    with pytest.raises(PassOrderError) as err:
        check_order([Identity()], surface)
    assert str(err.value) == (
        "pass Identity expects a program in dialect 'ssa', but at this point of the pipeline "
        "the program is in 'surface'"
    )


def test_a_pass_applied_alone_checks_its_source() -> None:
    program = parse(CONVERT_TO_SSA["accumulate"])
    with pytest.raises(VerificationError) as err:
        passes.flatten_call_expr()(program)
    lines = str(err.value).splitlines()
    assert lines[0] == "program 'Acc' is not in dialect 'ssa' (input of pass FlattenCallExpr): 1 violation"
    assert lines[1].startswith("[ssa] SSAForm MULTIPLE_ASSIGNMENT in 'main': ")
    with PassContext(verify=False):
        assert passes.flatten_call_expr()(program) is program


def test_a_pass_applied_alone_checks_its_required_properties() -> None:
    program = passes.convert_to_ssa()(parse(CONVERT_TO_SSA["accumulate"]))
    func = program.get_function("main")
    nested = ir.Program([ir.replace(func, body=ir.SeqStmts([func.body], func.body.span))], "Acc", program.span)
    with pytest.raises(VerificationError) as err:
        passes.flatten_call_expr()(nested)
    assert [(v.rule, v.code) for v in err.value.violations] == [
        ("NoRedundantBlocks", "NESTED_SEQ"),
        ("NormalizedStmtStructure", "NESTED_SEQ"),
        ("NormalizedStmtStructure", "SINGLE_CHILD_SEQ"),
    ]
    # NormalizeStmtStructure repairs exactly that, so it accepts the program.
    fixed = passes.normalize_stmt_structure()(nested)
    assert NormalizedStmtStructure.check(fixed) == []


def test_options_are_frozen_typed_fields() -> None:
    p = Blocking(size=128)
    assert (p.size, p.mode) == (128, "row")
    assert repr(p) == "<Pass Blocking(size=128, mode='row')>" and repr(passes.simplify()) == "<Pass Simplify>"
    assert p == Blocking(size=128) and p != Blocking()
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.size = 3  # type: ignore[misc]


def test_options_stay_frozen_in_subclasses_with_and_without_options_of_their_own() -> None:
    class Plain(passes.FunctionPass):
        def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
            return func

    class Sized(Plain):
        size: int = 1

    class SameBlocking(Blocking):
        pass

    plain = Plain()
    plain.note = 1  # no option to freeze: any attribute may be set
    assert plain.note == 1
    for p, option in ((Sized(), "size"), (SameBlocking(), "mode")):
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"^cannot assign to option '{option}' of pass "):
            setattr(p, option, 2)
        p.note = 1
        assert p.note == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": "big"}, "Blocking: option 'size' must be int, got 'big'"),
        ({"size": 2.0}, "Blocking: option 'size' must be int, got 2.0"),
        ({"mode": 1}, "Blocking: option 'mode' must be str, got 1"),
        ({"tile": 4}, "Blocking: unknown option 'tile' (options: size, mode)"),
    ],
)
def test_a_wrong_option_is_a_pass_error(options: dict, message: str) -> None:
    with pytest.raises(PassError) as err:
        Blocking(**options)
    assert str(err.value) == f"{message}"
    with pytest.raises(PassError, match="^Simplify: unknown option 'level' \\(options: none\\)$"):
        passes.Simplify(level=2)


def test_platforms_follow_spec_codegen_section_4() -> None:
    kib = 1024
    assert A2A3.capacity == {
        ir.Mem.Vec: 184 * kib,
        ir.Mem.Mat: 512 * kib,
        ir.Mem.Left: 64 * kib,
        ir.Mem.Right: 64 * kib,
        ir.Mem.Acc: 128 * kib,
        ir.Mem.Bias: 1 * kib,
    }
    assert (A5.capacity[ir.Mem.Vec], A5.capacity[ir.Mem.Acc], A5.capacity[ir.Mem.LeftScale]) == (
        240 * kib,
        256 * kib,
        4 * kib,
    )
    assert (A2A3.alignment[ir.Mem.Vec], A2A3.alignment[ir.Mem.Left], A5.alignment[ir.Mem.RightScale]) == (128, 64, 32)
    assert A2A3.address_alignment == A5.address_alignment == 32
    assert (A2A3.aic_cores, A2A3.aiv_cores, A5.aic_cores, A5.aiv_cores) == (24, 48, 36, 72)
    assert (ir.Mem.Vec, ir.Mem.Mat) in A5.transfers and (ir.Mem.Vec, ir.Mem.Mat) not in A2A3.transfers
    assert (A2A3.target_arch, A2A3.assembler_arch, A5.launch) == ("a2a3", "a3", "set_core_num")
    assert backend.platform_for("Ascend950") is A5 and backend.platform_for(BackendType.Ascend910B) is A2A3


def test_the_pass_context_carries_the_platform_chosen_from_the_backend_type() -> None:
    assert PassContext().platform is A2A3 and backend.get_backend_type() is BackendType.Ascend910B
    assert PassContext(platform=BackendType.Ascend950).platform is A5
    assert PassContext(platform=A5).platform is A5
    backend.set_backend_type(BackendType.Ascend950)
    try:
        assert PassContext().platform is A5 and backend.get_backend_type() is BackendType.Ascend950
    finally:
        backend.set_backend_type(BackendType.Ascend910B)


class ChecksAtomics(passes.FunctionPass):
    """Claims AtomicAddDtypeValid, whose dtype set depends on the chip."""

    produces = frozenset({AtomicAddDtypeValid})

    def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
        return func


def _atomic_bf16_store() -> ir.Program:
    span = ir.Span.unknown()
    tile = ir.Var("t", ir.TileType([16, 16], ir.BF16, None, None, ir.Mem.Vec))
    target = ir.Var("g", ir.TensorType([16, 16], ir.BF16))
    offsets = ir.MakeTuple([ir.ConstInt(0, ir.INDEX)] * 2, span)
    store = ir.Call(ir.get_op("tile.store"), [tile, offsets, target], {"atomic": ir.AtomicType.Add}, target.type, span)
    body = ir.SeqStmts([ir.AssignStmt(ir.Var("s", target.type), store), ir.ReturnStmt([])], span)
    params = [(tile, ir.ParamDirection.In), (target, ir.ParamDirection.Out)]
    func = ir.Function("main", params, [], body, span, type=ir.FunctionType.AIV)
    return ir.Program([func], "P", span)


def test_checks_read_the_platform_of_the_pass_context() -> None:
    program = _atomic_bf16_store()
    assert ChecksAtomics()(program) is program
    with PassContext(platform=A5), pytest.raises(VerificationError) as err:
        ChecksAtomics()(program)
    assert err.value.violations[0].message == "atomic add into a bfloat16 tensor is not supported on a5"
    with PassContext(platform=A5), pytest.raises(VerificationError):
        passes.PassManager([ChecksAtomics()]).run(program)
    assert passes.PassManager([ChecksAtomics()]).run(program) is program


def test_compile_chooses_the_platform_from_backend_type() -> None:
    seen: list[str] = []
    record = passes.CallbackInstrument(after_pass=lambda p, prog: seen.append(PassContext.current().platform.name))
    with PassContext([record]):
        ir.compile(parse(CONVERT_TO_SSA["accumulate"]), backend_type=BackendType.Ascend950)
        ir.compile(parse(CONVERT_TO_SSA["accumulate"]))
    half = len(seen) // 2
    assert half > 0 and set(seen[:half]) == {"a5"} and set(seen[half:]) == {"a2a3"}
