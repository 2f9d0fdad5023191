"""The pass manager: order checks before running, verification at each boundary, instruments."""

from __future__ import annotations

from pathlib import Path

import pytest
from front_programs import CONVERT_TO_SSA, parse
from pypto.languages import runtime, ssa, surface, synced
from pypto.languages.invariants import NormalizedStmtStructure
from pypto.passes import PassContext, PassOrderError, VerifyLevel

import pypto.language as pl
from pypto import ir, passes
from pypto.backend import A2A3
from pypto.compile import generate_files
from pypto.ir.errors import VerificationError

FRONT = [
    "InlineFunctions",
    "UnrollLoops",
    "CtrlFlowTransform",
    "ConvertToSSA",
    "Simplify",
    "NormalizeStmtStructure",
    "FlattenCallExpr",
]
LOWERING = [
    "OutlineHierarchyScopes",
    "OutlineIncoreScopes",
    "OutlineClusterScopes",
    "MaterializeValidShapeSymbols",
    "ConvertTensorToTileOps",
    "ElideTensorCarries",
    "FlattenTileNdTo2D",
    "LegalizeTileCast",
    "AutoTileMatmulL0",
    "CanonicalizeTileSlice",
    "InferTileMemorySpace",
    "ResolveBackendOpLayouts",
    "ExpandMixedKernel",
    "InjectGMPipeBuffer",
    "NormalizeReturnOrder",
    "SplitVectorKernel",
    "MaterializeTensorStrides",
    "InitMemRef",
    "MemoryReuse",
    "AllocateMemoryAddr",
    "ExportEntryResults",
    "DeriveCallDirections",
    "AutoDeriveTaskDependencies",
    "ExpandManualPhaseFence",
    "MaterializeRuntimeScopes",
    "ClassifyIterArgCarry",
    "InsertPipeSync",
]


class DuplicateFirstAssign(passes.FunctionPass):
    """A broken pass: repeats the first assignment of every function (breaks SSAForm)."""

    name = "DuplicateFirstAssign"
    source = ssa
    target = ssa

    def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
        stmts = list(func.body.stmts)
        first = next(s for s in stmts if isinstance(s, ir.AssignStmt))
        return ir.replace(func, body=ir.SeqStmts([first, *stmts], func.body.span))


class NestBlocks(passes.FunctionPass):
    """A broken pass: claims NormalizedStmtStructure but wraps the body in another block."""

    name = "NestBlocks"
    produces = frozenset({NormalizedStmtStructure})

    def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
        return ir.replace(func, body=ir.SeqStmts([func.body], func.body.span))


class WrapBody(passes.FunctionPass):
    """Wraps a one-statement function body in a block: valid ssa, but it prints like the bare statement."""

    name = "WrapBody"
    source = ssa
    target = ssa

    def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
        if isinstance(func.body, ir.SeqStmts):
            return func
        return ir.replace(func, body=ir.SeqStmts([func.body], func.body.span))


def _recorder() -> tuple[list[tuple[str, str]], passes.CallbackInstrument]:
    log: list[tuple[str, str]] = []
    inst = passes.CallbackInstrument(
        before_pass=lambda p, prog: log.append(("before", p.name)),
        after_pass=lambda p, prog: log.append(("after", p.name)),
    )
    return log, inst


def _with(extra: passes.Pass, after: str) -> list[passes.Pass]:
    out = passes.front_passes()
    out.insert([p.name for p in out].index(after) + 1, extra)
    return out


def test_default_pipeline_order() -> None:
    manager = passes.PassManager.get_strategy(plugins=False)
    assert manager.get_pass_names() == FRONT + LOWERING
    assert manager.final_dialect is synced
    assert passes.PassManager(passes.front_passes()).final_dialect is ssa


def test_out_of_order_pass_is_rejected_before_anything_runs() -> None:
    log, inst = _recorder()
    with PassContext([inst]), pytest.raises(PassOrderError) as err:
        passes.PassManager([passes.convert_to_ssa(), passes.inline_functions()])
    assert str(err.value) == (
        "pass ConvertToSSA cannot run yet: it enters dialect 'ssa', whose properties "
        "InlineFunctionsEliminated (from InlineFunctions), StructuredCtrlFlow (from CtrlFlowTransform), "
        "UnrollResolved (from UnrollLoops) are not established before it"
    )
    assert log == []


def test_pass_from_the_wrong_dialect_is_rejected() -> None:
    with pytest.raises(PassOrderError) as err:
        passes.PassManager([passes.flatten_call_expr()])
    assert str(err.value) == (
        "pass FlattenCallExpr expects a program in dialect 'ssa', but at this point of the pipeline "
        "the program is in 'surface'"
    )


def test_missing_required_property_is_rejected() -> None:
    order = [
        passes.inline_functions(),
        passes.unroll_loops(),
        passes.ctrl_flow_transform(),
        passes.convert_to_ssa(),
        passes.flatten_call_expr(),
    ]
    with pytest.raises(PassOrderError) as err:
        passes.PassManager(order)
    assert str(err.value) == (
        "pass FlattenCallExpr requires properties that do not hold at this point: "
        "NormalizedStmtStructure (from NormalizeStmtStructure)"
    )


def test_broken_pass_is_stopped_at_its_own_boundary() -> None:
    program = parse(CONVERT_TO_SSA["loops_with_tensors_and_break"])
    log, inst = _recorder()
    manager = passes.PassManager(_with(DuplicateFirstAssign(), after="Simplify"), verify="strict", instruments=[inst])
    with pytest.raises(VerificationError) as err:
        manager.run(program)
    message = str(err.value)
    assert message.splitlines()[:4] == [
        "program 'Tensors' is not in dialect 'ssa' (after pass DuplicateFirstAssign): 1 violation",
        "[ssa] SSAForm MULTIPLE_ASSIGNMENT in 'main': variable 'y__ssa_v0' is defined more than once",
        "    y__ssa_v0: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(x, x)",
        "    at <string>:8:9",
    ]
    (violation,) = err.value.violations
    assert (violation.dialect, violation.rule, violation.code) == ("ssa", "SSAForm", "MULTIPLE_ASSIGNMENT")
    assert (violation.span.begin_line, violation.span.begin_column) == (8, 9)
    ran = [name for kind, name in log if kind == "after"]
    assert ran == FRONT[:5] + ["DuplicateFirstAssign"]


def test_malformed_input_is_stopped_at_the_pipeline_input() -> None:
    program = parse(
        """
        @pl.program
        class Reuse:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
                t: pl.Tile[[16], pl.FP32] = pl.load(x, [0], [16])
                r: pl.Tensor[[16], pl.FP32] = pl.store(t, [0], out)
                return r

            @pl.function
            def main(self, x: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
                r: pl.Tensor[[16], pl.FP32] = self.k(x, out)
                s: pl.Tensor[[16], pl.FP32] = pl.add(out, r)
                return s
        """
    )
    log, inst = _recorder()
    with PassContext([inst]), pytest.raises(VerificationError) as err:
        passes.PassManager.get_strategy(plugins=False).run(program)
    assert str(err.value).splitlines() == [
        "program 'Reuse' is not in dialect 'surface' (pipeline input): 1 violation",
        "[surface] InOutUseValid READ_AFTER_OUT in 'main': 'out' is read after being passed as Out/InOut to 'k'",
        "    s: pl.Tensor[[16], pl.FP32] = pl.tensor.add(out, r)",
        "    at <string>:15:9",
    ]
    assert log == []


def test_verification_off_lets_a_broken_pass_through() -> None:
    program = parse(CONVERT_TO_SSA["loops_with_tensors_and_break"])
    manager = passes.PassManager(_with(DuplicateFirstAssign(), after="Simplify"), verify=False)
    result = manager.run(program)
    assert ssa.check(result)[0].code == "MULTIPLE_ASSIGNMENT"


def test_basic_level_checks_what_a_pass_claims() -> None:
    program = parse(CONVERT_TO_SSA["accumulate"])
    manager = passes.PassManager(_with(NestBlocks(), after="ConvertToSSA"), verify="basic")
    with pytest.raises(VerificationError) as err:
        manager.run(program)
    assert str(err.value).splitlines() == [
        "program 'Acc' is not in dialect 'ssa' (after pass NestBlocks): 2 violations",
        "[ssa] NormalizedStmtStructure NESTED_SEQ in 'main': a block directly inside a block (flatten it)",
        "    block of 3 statements: acc__ssa_v0: pl.Scalar[pl.INDEX] = 0 ...",
        "    at <string>:8:9",
        "[ssa] NormalizedStmtStructure SINGLE_CHILD_SEQ in 'main': a block of one statement (unwrap it)",
        "    block of 1 statement: acc__ssa_v0: pl.Scalar[pl.INDEX] = 0 ...",
        "    at <string>:8:9",
    ]


def test_basic_level_does_not_recheck_verified_properties() -> None:
    program = parse(CONVERT_TO_SSA["loops_with_tensors_and_break"])
    result = passes.PassManager(_with(DuplicateFirstAssign(), after="Simplify"), verify="basic").run(program)
    assert ssa.check(result)[0].rule == "SSAForm"


def test_roundtrip_level_prints_and_parses_after_every_pass() -> None:
    program = parse(
        """
        @pl.program
        class One:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                return n + 1
        """
    )
    for source in CONVERT_TO_SSA.values():
        passes.PassManager(passes.front_passes(), verify="roundtrip").run(parse(source))
    order = _with(WrapBody(), after="Simplify")
    passes.PassManager(order, verify="strict").run(program)
    with pytest.raises(VerificationError) as err:
        passes.PassManager(order, verify="roundtrip").run(program)
    assert str(err.value).startswith(
        "program 'One' does not survive print and parse in dialect 'ssa' (after pass WrapBody): "
        "Structural equality assertion failed at: ['main'].body"
    )


def test_instruments_see_every_pass_in_order(tmp_path: Path) -> None:
    program = parse(CONVERT_TO_SSA["while_loop"])
    log, inst = _recorder()
    timing = passes.TimingInstrument()
    with PassContext([inst, timing]):
        result = passes.PassManager(passes.front_passes()).run_passes(program, dump_ir=True, output_dir=tmp_path)
    assert log == [(kind, name) for name in FRONT for kind in ("before", "after")]
    assert [name for name, _ in timing.timings] == FRONT
    assert all(seconds >= 0 for _, seconds in timing.timings)
    assert timing.report().splitlines()[-1].startswith("total")
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["00_frontend.py"] + [f"{i:02d}_after_{name}.py" for i, name in enumerate(FRONT, 1)]
    assert (tmp_path / "00_frontend.py").read_text() == program.as_python() + "\n"
    assert (tmp_path / "07_after_FlattenCallExpr.py").read_text() == result.as_python() + "\n"


def test_each_dump_is_the_printed_program_its_pass_returned(tmp_path: Path) -> None:
    # The dump reuses the text printed last when a pass returns the program it was given: each file
    # must still be the print of its own pass's result, for changed and unchanged programs alike.
    program = parse(CONVERT_TO_SSA["while_loop"])
    results = []
    kept = passes.CallbackInstrument(after_pass=lambda pass_, result: results.append(result))
    with PassContext([kept]):
        passes.PassManager(passes.front_passes()).run_passes(program, dump_ir=True, output_dir=tmp_path)
    inputs = [program, *results[:-1]]
    assert any(a is b for a, b in zip(inputs, results)) and any(a is not b for a, b in zip(inputs, results))
    for i, (name, result) in enumerate(zip(FRONT, results), 1):
        assert (tmp_path / f"{i:02d}_after_{name}.py").read_text() == result.as_python() + "\n"


def test_a_dump_of_the_same_program_shows_a_comment_attached_in_place(tmp_path: Path) -> None:
    # Leading comments are the one part of a node changed in place: the text printed last is stale then.
    program = parse(CONVERT_TO_SSA["while_loop"])
    dump = passes.DumpInstrument(tmp_path)
    dump.run_start(program)
    func = next(iter(program.functions.values()))
    ir.attach_leading_comments(func.body.stmts[0], ["added later"])
    dump.after_pass(passes.builtin_passes()[0], program)
    assert "# added later" not in (tmp_path / "00_frontend.py").read_text()
    assert (tmp_path / "01_after_InlineFunctions.py").read_text() == program.as_python() + "\n"
    assert "# added later" in program.as_python()


def test_a_dump_makes_its_missing_folder_and_refuses_a_file(tmp_path: Path) -> None:
    program = parse(CONVERT_TO_SSA["while_loop"])
    passes.DumpInstrument(tmp_path / "a" / "b").run_start(program)
    assert (tmp_path / "a" / "b" / "00_frontend.py").read_text() == program.as_python() + "\n"
    (tmp_path / "file").write_text("")
    with pytest.raises(FileExistsError):
        passes.DumpInstrument(tmp_path / "file").run_start(program)


def test_dump_needs_a_folder() -> None:
    with pytest.raises(PassOrderError, match="needs an output_dir"):
        passes.PassManager.get_strategy(plugins=False).run_passes(parse(CONVERT_TO_SSA["accumulate"]), dump_ir=True)


def test_verify_level_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYPTO_VERIFY_LEVEL", "none")
    assert PassContext().verify is VerifyLevel.NONE
    monkeypatch.setenv("PYPTO_VERIFY_LEVEL", "strict")
    assert PassContext().verify is VerifyLevel.STRICT
    monkeypatch.delenv("PYPTO_VERIFY_LEVEL")
    assert PassContext().verify is VerifyLevel.BASIC  # the established API's default
    monkeypatch.setenv("PYPTO_VERIFY_LEVEL", "loud")
    with pytest.raises(
        ValueError, match="unknown verification level 'loud' \\(use none, basic, strict or roundtrip\\)"
    ):
        PassContext()


TILE_ADD = Path(__file__).resolve().parents[2] / "examples" / "tile_add.py"


def test_a_pipeline_without_pipe_sync_stops_at_runtime_and_codegen_refuses_it() -> None:
    order = [p for p in passes.PassManager.get_strategy(plugins=False).passes if p.name != "InsertPipeSync"]
    manager = passes.PassManager(order)
    assert manager.final_dialect is runtime
    with PassContext.for_platform(A2A3):
        final = manager.run(pl.loads_program(TILE_ADD))
    with pytest.raises(VerificationError) as err:
        generate_files(final, A2A3)
    assert str(err.value).splitlines()[:2] == [
        "program 'TileAdd' is not in dialect 'synced' (cce code generation): 1 violation",
        "[synced] PipeSyncPlaced SYNC_NOT_PLACED in 'tile_add': AIV kernel 'tile_add' has no pipe synchronisation "
        "placed (run InsertPipeSync: it ends every kernel with system.bar_all(attrs={'auto_sync': True}))",
    ]


def test_start_dialect_can_be_chosen() -> None:
    manager = passes.PassManager([passes.simplify()], start=ssa)
    once = passes.PassManager(passes.front_passes()).run(parse(CONVERT_TO_SSA["accumulate"]))
    assert manager.run(once) is once
    assert manager.start is ssa and surface is not ssa


# Passes the pipeline can run without: optimisations whose absence leaves a correct, if slower or
# larger, program. Every other pass establishes something a later dialect guarantees.
# Without MaterializeValidShapeSymbols, ConvertTensorToTileOps refuses the parameters it would have served.
_OPTIONAL = {"Simplify", "AutoTileMatmulL0", "MemoryReuse", "MaterializeValidShapeSymbols", "ExpandManualPhaseFence",
             "AutoDeriveTaskDependencies"}


def _without(name: str) -> list[passes.Pass]:
    return [p for p in passes.PassManager.get_strategy(plugins=False).passes if p.name != name]


@pytest.mark.parametrize("name", [p.name for p in passes.PassManager.get_strategy(plugins=False).passes])
def test_a_pipeline_missing_a_stage_fails_at_a_boundary(name: str) -> None:
    if name in _OPTIONAL:
        assert passes.PassManager(_without(name)).final_dialect is synced
    elif name == "InsertPipeSync":
        assert passes.PassManager(_without(name)).final_dialect is runtime  # and codegen refuses runtime
    else:
        with pytest.raises(PassOrderError, match=r"dialect '\w+'|requires properties"):
            passes.PassManager(_without(name))


def test_a_missing_stage_names_the_boundary_and_the_property() -> None:
    with pytest.raises(PassOrderError) as err:
        passes.PassManager(_without("CanonicalizeTileSlice"))
    assert str(err.value) == (
        "pass InferTileMemorySpace cannot run yet: it enters dialect 'placed', whose properties "
        "TileSlicesPitched (from CanonicalizeTileSlice) are not established before it"
    )
    with pytest.raises(PassOrderError) as err:
        passes.PassManager(_without("ConvertTensorToTileOps"))
    assert str(err.value) == (
        "pass ElideTensorCarries expects a program in dialect 'tiled', but at this point of the pipeline "
        "the program is in 'outlined'"
    )
