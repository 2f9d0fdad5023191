"""BreakContinueValid, StructuredCtrlFlow, UnrollResolved, PipelineResolved and PipelineLoopValid."""

from __future__ import annotations

from inv_helpers import INDEX, found, prog, single, with_body
from pypto.languages.invariants import (
    BreakContinueValid,
    PipelineLoopValid,
    PipelineResolved,
    StructuredCtrlFlow,
    UnrollResolved,
)

from pypto import ir, passes

_SPAN = ir.Span.unknown()

JUMPS = """
    @pl.program
    class A:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            for i in pl.range(n):
                if i > 2:
                    break
                if i == 1:
                    continue
            return n
"""


def test_break_outside_a_loop_and_in_a_parallel_loop() -> None:
    n = ir.Var("n", INDEX)
    loop = ir.ForStmt(ir.Var("i", INDEX), 0, n, 1, [], ir.ContinueStmt(_SPAN), [], _SPAN, ir.ForKind.Parallel)
    body = ir.SeqStmts([ir.BreakStmt(_SPAN), loop, ir.ReturnStmt([n])], _SPAN)
    assert found(BreakContinueValid, single("main", [n], body, [INDEX])) == [
        ("OUTSIDE_LOOP", "'break' outside a loop", "break"),
        (
            "IN_PARALLEL_LOOP",
            "'continue' inside a Parallel loop (only sequential and while loops allow it)",
            "continue",
        ),
    ]


def test_jumps_in_sequential_loops_are_valid() -> None:
    assert found(BreakContinueValid, prog(JUMPS)) == []


def test_kernel_jumps_break_structured_control_flow() -> None:
    program = prog(JUMPS)
    assert found(StructuredCtrlFlow, program) == [
        ("BREAK_CONTINUE_IN_KERNEL", "'break' in InCore function 'main'", "break"),
        ("BREAK_CONTINUE_IN_KERNEL", "'continue' in InCore function 'main'", "continue"),
    ]
    assert found(StructuredCtrlFlow, passes.ctrl_flow_transform()(program)) == []
    orchestration = prog(JUMPS.replace("type=pl.FunctionType.InCore", "type=pl.FunctionType.Orchestration"))
    assert found(StructuredCtrlFlow, orchestration) == []


LOOPS = """
    @pl.program
    class A:
        @pl.function
        def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            for i in pl.unroll(2):
                n = n + i
            for j in pl.pipeline(4, stage=2):
                n = n + j
            return n
"""


def test_unroll_and_pipeline_loops_remain() -> None:
    program = prog(LOOPS)
    assert found(UnrollResolved, program) == [
        ("UNROLL_LOOP", "a pl.unroll loop remains (UnrollLoops expands it)", "for i in pl.unroll(2): ..."),
    ]
    assert [c for c, _, _ in found(PipelineResolved, program)] == ["PIPELINE_LOOP"]
    assert found(UnrollResolved, passes.unroll_loops()(program)) == []


def test_pipeline_kind_and_stages_go_together() -> None:
    program = prog(LOOPS)
    assert found(PipelineLoopValid, program) == []
    body = program.get_function("main").body
    unroll, pipe, ret = body.stmts
    broken = with_body(
        program,
        "main",
        ir.SeqStmts(
            [
                ir.replace(unroll, attrs={"pipeline_stages": 2}),
                ir.replace(pipe, attrs={}),
                ret,
            ],
            _SPAN,
        ),
    )
    assert [(c, m) for c, m, _ in found(PipelineLoopValid, broken)] == [
        ("STRAY_STAGES", "a Unroll loop carries attrs['pipeline_stages']"),
        ("MISSING_STAGES", "a pipeline loop needs attrs['pipeline_stages']"),
    ]
