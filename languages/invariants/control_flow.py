"""Control-flow invariants: where break/continue may appear, which loop kinds remain, and which
values kernel loops and ifs carry."""

from __future__ import annotations

from pypto.analysis import function_index, sub_blocks

from pypto.ir.enums import ForKind, is_incore_type
from pypto.ir.function import Function, Program
from pypto.ir.stmt import BreakStmt, ContinueStmt, ForStmt, IfStmt, Stmt, WhileStmt
from pypto.ir.types import TensorType

from .base import Invariant, Reporter
from .grammar import KERNELS, Attr, Forbid, Variant, inside


def _word(stmt: Stmt) -> str:
    return "break" if isinstance(stmt, BreakStmt) else "continue"


def _no_jumps(func: Function) -> bool:
    """BreakContinueValid's idle test: ``func`` holds no break or continue."""
    return not function_index(func).has(BreakStmt, ContinueStmt)


def _check_break_continue(func: Function, program: Program, report: Reporter) -> None:
    if _no_jumps(func):
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
    idle_if=_no_jumps,
)

_JUMP = "BREAK_CONTINUE_IN_KERNEL"
StructuredCtrlFlow = Invariant.declared(
    "StructuredCtrlFlow",
    "no break/continue in InCore, AIC or AIV functions",
    Forbid(what=BreakStmt, where=inside(*KERNELS), code=_JUMP, message="'break' in {kind} function '{func}'"),
    Forbid(what=ContinueStmt, where=inside(*KERNELS), code=_JUMP, message="'continue' in {kind} function '{func}'"),
)

UNROLL = Variant(ForStmt, "kind", ForKind.Unroll)
PIPELINE = Variant(ForStmt, "kind", ForKind.Pipeline)

UnrollResolved = Invariant.declared(
    "UnrollResolved",
    "no pl.unroll loop remains",
    Forbid(what=UNROLL, code="UNROLL_LOOP", message="a pl.unroll loop remains (UnrollLoops expands it)"),
)

PipelineResolved = Invariant.declared(
    "PipelineResolved",
    "no pl.pipeline loop remains",
    Forbid(what=PIPELINE, code="PIPELINE_LOOP", message="a pl.pipeline loop remains (the pipeline passes lower it)"),
)

PipelineLoopValid = Invariant.declared(
    "PipelineLoopValid",
    "a loop is a pipeline loop exactly when it has attrs['pipeline_stages']",
    Attr(
        of=PIPELINE,
        key="pipeline_stages",
        code="MISSING_STAGES",
        message="a pipeline loop needs attrs['pipeline_stages']",
    ),
    Attr(
        of=ForStmt,
        key="pipeline_stages",
        required=False,
        unless=PIPELINE,
        code="STRAY_STAGES",
        message="a {node.kind.name} loop carries attrs['pipeline_stages']",
    ),
)


def _no_kernel_carries(func: Function) -> bool:
    """KernelTensorCarriesElided's idle test: ``func`` is no kernel, or has no loop or if."""
    return not is_incore_type(func.func_type) or not function_index(func).has(ForStmt, WhileStmt, IfStmt)


def _check_kernel_tensor_carries(func: Function, program: Program, report: Reporter) -> None:
    if _no_kernel_carries(func):
        return
    for stmt in function_index(func).of(ForStmt, WhileStmt, IfStmt):
        for rv in stmt.return_vars:
            if isinstance(rv.type, TensorType):
                report.error("KERNEL_TENSOR_CARRY",
                             f"kernel '{func.name}' carries tensor '{rv.name_hint}' through a loop or if "
                             "(ElideTensorCarries makes it the buffer it is)", stmt)


KernelTensorCarriesElided = Invariant.per_function(
    "KernelTensorCarriesElided",
    "no loop or if of an InCore, AIC or AIV function carries a tensor",
    _check_kernel_tensor_carries,
    idle_if=_no_kernel_carries,
)
