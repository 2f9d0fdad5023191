"""Call-site invariants: manual dependency edges, call directions and Out/InOut argument reuse."""

from __future__ import annotations

from collections import Counter

from pypto.analysis import block, callee, calls_functions, expr_calls, function_index, stmt_exprs, stmt_reads, sub_blocks
from pypto.analysis.callgraph import names_functions
from pypto.analysis.wrapper_directions import forwarded_directions

from pypto.ir.enums import ArgDirection, FunctionType, ParamDirection
from pypto.ir.expr import Call, GlobalVar, Submit, Var
from pypto.ir.function import Function, Program
from pypto.ir.stmt import AssignStmt, SeqStmts, Stmt
from pypto.ir.types import TensorType

from .base import Invariant, Reporter
from .grammar import Attr, FunctionCalls
from .reads import Bodies
from .walk import checked_defs


ManualDepsOnSubmitOnly = Invariant.declared(
    "ManualDepsOnSubmitOnly",
    "no plain call to a function carries attrs['manual_dep_edges']",
    Attr(
        of=FunctionCalls((Call,)),
        key="manual_dep_edges",
        required=False,
        code="MANUAL_DEPS_ON_CALL",
        message="plain call to '{node.op.name}' carries manual_dep_edges (only a Submit may)",
    ),
    auto_verified=True,
)

_ALLOWED = {
    ParamDirection.In: {ArgDirection.Input, ArgDirection.NoDep},
    ParamDirection.InOut: {ArgDirection.InOut, ArgDirection.OutputExisting, ArgDirection.NoDep},
    ParamDirection.Out: {ArgDirection.Output, ArgDirection.OutputExisting, ArgDirection.InOut, ArgDirection.NoDep},
}


def _check_call_directions(call: Call | Submit, target: Function, report: Reporter) -> None:
    if not call.args:
        return
    dirs = call.attrs.get("arg_directions")
    name = target.name
    if dirs is None:  # the required-attr rule reports it
        return
    if len(dirs) != len(call.args):
        report.error("DIRECTION_COUNT", f"call to '{name}': {len(dirs)} directions for {len(call.args)} args", call)
        return
    for i, (arg, raw) in enumerate(zip(call.args, dirs)):
        d = raw if type(raw) is ArgDirection else ArgDirection(raw)  # (the enum's call is slow)
        is_tensor = isinstance(arg.type, TensorType)
        if is_tensor == (d is ArgDirection.Scalar):
            what = "tensor argument" if is_tensor else "non-tensor argument"
            report.error("DIRECTION_KIND", f"call to '{name}': {what} {i} has direction {d.name}", call)
        elif is_tensor and i < len(target.param_directions):
            pd = target.param_directions[i]
            if d not in _ALLOWED[pd]:
                report.error(
                    "DIRECTION_MISMATCH", f"call to '{name}': argument {i} is {d.name} for an {pd.name} parameter", call
                )


def _check_wrapper(func: Function, program: Program, report: Reporter) -> None:
    """A Group/Spmd wrapper's param directions are at least those its kernel calls give them (a declared
    ``pl.InOut`` the kernels only write is kept: the caller's contents are then merely waited for)."""
    effective = forwarded_directions(func, program)
    for p, d in zip(func.params, func.param_directions):
        want = effective.get(p)
        if want is not None and d < want:
            report.error(
                "WRAPPER_DIRECTION",
                f"wrapper parameter '{p.name_hint}' is {d.name} but the kernel uses it as {want.name}",
                func,
                p.span,
            )


def _check_directions(func: Function, program: Program, report: Reporter) -> None:
    index = function_index(func)
    # Only calls of program functions have directions: a kernel of ops has no GlobalVar at all.
    for call in index.of(Call, Submit) if index.has(GlobalVar) else ():
        target = callee(program, call)
        if target is not None:
            _check_call_directions(call, target, report)
    if func.func_type in (FunctionType.Group, FunctionType.Spmd):
        _check_wrapper(func, program, report)


CallDirectionsResolved = Invariant.declared(
    "CallDirectionsResolved",
    "every function call has one arg direction per argument, compatible with the callee's parameters",
    Attr(
        of=FunctionCalls(with_args=True),
        key="arg_directions",
        code="MISSING_DIRECTIONS",
        message="call to '{node.op.name}' has no arg_directions",
    ),
    check=_check_directions,
    auto_verified=True,
    # a wrapper's callees' returns and writes, through their callees (directions: signatures)
    reads_bodies=Bodies(callees=True, of={FunctionType.Group, FunctionType.Spmd}),
)


def _written_args(program: Program, stmt: Stmt) -> list[tuple[Var, str]]:
    """Variables ``stmt`` passes as Out/InOut arguments to program functions, with the callee name."""
    out = []
    for expr in stmt_exprs(stmt):
        for call in expr_calls(expr):
            target = callee(program, call)
            if target is None:
                continue
            for arg, d in zip(call.args, target.param_directions):
                if isinstance(arg, Var) and d is not ParamDirection.In:
                    out.append((arg, target.name))
    return out


def _check_block(stmts: list[Stmt], program: Program, report: Reporter) -> None:
    """One forward sweep: a variable passed as Out/InOut stays pending until read (error) or redefined."""
    pending: dict[Var, str] = {}
    for stmt in stmts:
        if pending:
            for var in sorted(stmt_reads(stmt) & pending.keys(), key=lambda v: v.name_hint):
                report.error(
                    "READ_AFTER_OUT",
                    f"'{var.name_hint}' is read after being passed as Out/InOut to '{pending.pop(var)}'",
                    stmt,
                )
            if isinstance(stmt, AssignStmt):
                pending.pop(stmt.var, None)
        for var, name in _written_args(program, stmt):
            if not (isinstance(stmt, AssignStmt) and stmt.var is var):
                pending[var] = name
        if isinstance(stmt, SeqStmts):
            _check_block(list(stmt.stmts), program, report)
        else:
            for body in sub_blocks(stmt):
                _check_block(block(body), program, report)


def _read_once(func: Function, program: Program) -> bool:
    """True when every variable ``func`` passes as an Out/InOut argument is read at most once (by
    that call): then no statement reads it after the call, and the sweep would find nothing.

    Every definition of a variable is a node of the index, and so is every read the sweep sees, so
    a variable's reads are at most its nodes less its definitions (one C-level count of the nodes).
    """
    index = function_index(func)
    written = []
    for call in index.of(Call, Submit):
        target = callee(program, call)
        if target is not None:
            written += [a for a, d in zip(call.args, target.param_directions) if d is not ParamDirection.In]
    if not written:
        return True
    nodes = Counter(index.of(Var))
    nodes.subtract(checked_defs(func))
    return all(nodes[v] <= 1 for v in written if isinstance(v, Var))


def _calls_no_function(func: Function) -> bool:
    """InOutUseValid's idle test: a Group or Spmd wrapper (it forwards its params to kernels and returns
    them, param-explicit), or a function naming no function."""
    return func.func_type in (FunctionType.Group, FunctionType.Spmd) or not names_functions(func)


def _check_inout_use(func: Function, program: Program, report: Reporter) -> None:
    if _calls_no_function(func) or not calls_functions(func):
        return
    if not _read_once(func, program):
        _check_block(block(func.body), program, report)


InOutUseValid = Invariant.per_function(
    "InOutUseValid",
    "a variable passed as Out/InOut to a function is not read after that call in the same block",
    _check_inout_use,
    auto_verified=True,
    reads_signatures=True,  # callee parameter directions only
    idle_if=_calls_no_function,
)
