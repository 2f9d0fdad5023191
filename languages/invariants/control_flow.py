"""Control-flow invariants: where break/continue may appear, and which loop kinds remain."""

from __future__ import annotations

from pypto.analysis import function_index, sub_blocks

from pypto.ir.enums import ForKind, is_incore_type
from pypto.ir.function import Function, Program
from pypto.ir.stmt import BreakStmt, ContinueStmt, ForStmt, Stmt, WhileStmt

from .base import FunctionCheck, Invariant, Reporter


def _word(stmt: Stmt) -> str:
    return "break" if isinstance(stmt, BreakStmt) else "continue"


def _check_break_continue(func: Function, program: Program, report: Reporter) -> None:
    if not function_index(func).has(BreakStmt, ContinueStmt):
        return

    def visit(stmt: Stmt, loop: Stmt | None) -> None:
        if isinstance(stmt, (BreakStmt, ContinueStmt)):
            if loop is None:
                report.error("OUTSIDE_LOOP", f"'{_word(stmt)}' outside a loop", stmt)
            elif isinstance(loop, ForStmt) and loop.kind in (ForKind.Parallel, ForKind.Unroll):
                report.error(
                    "IN_" + loop.kind.name.upper() + "_LOOP",
                    f"'{_word(stmt)}' inside a {loop.kind.name} loop (only sequential and while loops allow it)",
                    stmt,
                )
        inner = stmt if isinstance(stmt, (ForStmt, WhileStmt)) else loop
        for body in sub_blocks(stmt):
            visit(body, inner)

    visit(func.body, None)


BreakContinueValid = Invariant.per_function(
    "BreakContinueValid",
    "break/continue only inside a loop whose innermost kind is sequential or while",
    _check_break_continue,
    auto_verified=True,
)


def _check_structured(func: Function, program: Program, report: Reporter) -> None:
    if not is_incore_type(func.func_type):
        return
    for stmt in function_index(func).of(BreakStmt, ContinueStmt):
        report.error(
            "BREAK_CONTINUE_IN_KERNEL", f"'{_word(stmt)}' in {func.func_type.name} function '{func.name}'", stmt
        )


StructuredCtrlFlow = Invariant.per_function(
    "StructuredCtrlFlow",
    "no break/continue in InCore, AIC or AIV functions",
    _check_structured,
)


def _no_loop_kind(kind: ForKind, code: str, text: str) -> FunctionCheck:
    def check(func: Function, program: Program, report: Reporter) -> None:
        for loop in function_index(func).of(ForStmt):
            if loop.kind is kind:
                report.error(code, text, loop)

    return check


UnrollResolved = Invariant.per_function(
    "UnrollResolved",
    "no pl.unroll loop remains",
    _no_loop_kind(ForKind.Unroll, "UNROLL_LOOP", "a pl.unroll loop remains (UnrollLoops expands it)"),
)

PipelineResolved = Invariant.per_function(
    "PipelineResolved",
    "no pl.pipeline loop remains",
    _no_loop_kind(ForKind.Pipeline, "PIPELINE_LOOP", "a pl.pipeline loop remains (the pipeline passes lower it)"),
)


def _check_pipeline_attrs(func: Function, program: Program, report: Reporter) -> None:
    for loop in function_index(func).of(ForStmt):
        has_stages = "pipeline_stages" in loop.attrs
        if loop.kind is ForKind.Pipeline and not has_stages:
            report.error("MISSING_STAGES", "a pipeline loop needs attrs['pipeline_stages']", loop)
        elif loop.kind is not ForKind.Pipeline and has_stages:
            report.error("STRAY_STAGES", f"a {loop.kind.name} loop carries attrs['pipeline_stages']", loop)


PipelineLoopValid = Invariant.per_function(
    "PipelineLoopValid",
    "a loop is a pipeline loop exactly when it has attrs['pipeline_stages']",
    _check_pipeline_attrs,
)
