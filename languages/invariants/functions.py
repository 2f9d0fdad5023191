"""Function-level invariants: inline functions gone, resolved callees, explicit param returns,
Out params not shadowed, entry results exported."""

from __future__ import annotations

from pypto.analysis import base_name, block, function_index, op_name
from pypto.analysis.roots import (
    computed_in_place,
    final_return,
    is_entry,
    rebinding_loop,
    returned_values,
    written_arg,
    written_roots,
)

from pypto.ir.enums import FunctionType, ParamDirection
from pypto.ir.expr import Call, Expr, GlobalVar, Submit, Var
from pypto.ir.function import Function, Program
from pypto.ir.stmt import AssignStmt, ForStmt, ReturnStmt, WhileStmt, YieldStmt
from pypto.ir.types import TensorType

from .base import Invariant, Reporter
from .reads import Bodies


def _check_inline_gone(program: Program, report: Reporter) -> None:
    inline = {f.name for f in program.functions.values() if f.func_type is FunctionType.Inline}
    for func in program.functions.values():
        report.function = func.name
        if func.name in inline:
            report.error("INLINE_FUNCTION", f"inline function '{func.name}' is still in the program", func)
        for call in function_index(func).of(Call, Submit) if inline else ():
            if isinstance(call.op, GlobalVar) and call.op.name in inline:
                report.error("INLINE_CALL", f"call to inline function '{call.op.name}'", call)
    report.function = ""


InlineFunctionsEliminated = Invariant.per_program(
    "InlineFunctionsEliminated",
    "no Inline function and no call to one",
    _check_inline_gone,
)


def _not_orchestration(func: Function) -> bool:
    """OrchestrationReferencesResolved's idle test: only Orchestration functions are checked."""
    return func.func_type is not FunctionType.Orchestration


def _check_references(func: Function, program: Program, report: Reporter) -> None:
    if _not_orchestration(func):
        return
    for call in function_index(func).of(Call, Submit):
        if isinstance(call.op, GlobalVar) and program.get_function(call.op.name) is None:
            report.error("UNRESOLVED_CALLEE", f"callee '{call.op.name}' is not a function of the program", call)


OrchestrationReferencesResolved = Invariant.per_function(
    "OrchestrationReferencesResolved",
    "every function an Orchestration function calls exists in the program",
    _check_references,
    reads_signatures=True,  # callee names only
    idle_if=_not_orchestration,
)


def _param_aliases(func: Function) -> dict[Var, Var]:
    """Which parameter each variable's buffer is (through copies, in-place writes and loop carries)."""
    alias: dict[Var, Var] = {p: p for p in func.params}

    def of(e: Expr) -> Var | None:
        return alias.get(e) if isinstance(e, Var) else None

    for stmt in function_index(func).of(AssignStmt, ForStmt, WhileStmt):
        if isinstance(stmt, AssignStmt):
            source = of(stmt.value)
            written = written_arg(stmt.value)
            target = source if source is not None else (of(written) if written is not None else None)
            if target is not None:
                alias[stmt.var] = target
            continue
        for ia in stmt.iter_args:
            init = of(ia.initValue)
            if init is not None:
                alias[ia] = init
        stmts = block(stmt.body)
        last = stmts[-1] if stmts else None
        if isinstance(last, YieldStmt) and len(last.value) == len(stmt.return_vars) == len(stmt.iter_args):
            for ia, rv, value in zip(stmt.iter_args, stmt.return_vars, last.value):
                if ia in alias and of(value) is alias[ia]:
                    alias[rv] = alias[ia]
    return alias


def _no_returned_params(func: Function) -> bool:
    """ReturnParamsExplicit's idle test: only InCore functions and Group/Spmd wrappers are checked."""
    return func.func_type not in (FunctionType.InCore, FunctionType.Group, FunctionType.Spmd)


def _check_return_params(func: Function, program: Program, report: Reporter) -> None:
    if _no_returned_params(func):
        return
    returns = list(function_index(func).of(ReturnStmt))
    body = block(func.body)
    if body and isinstance(body[-1], YieldStmt):
        returns.append(body[-1])
    if not returns:
        return
    alias = _param_aliases(func)
    for ret in returns:
        for value in ret.value:
            if not isinstance(value, Var) or not isinstance(value.type, TensorType):
                continue
            param = alias.get(value)
            if param is not None and param is not value:
                report.error(
                    "IMPLICIT_PARAM_RETURN",
                    f"'{value.name_hint}' writes back parameter '{param.name_hint}'; return the parameter itself",
                    ret,
                )


ReturnParamsExplicit = Invariant.per_function(
    "ReturnParamsExplicit",
    "a kernel or wrapper return that writes back a parameter is that parameter variable",
    _check_return_params,
    auto_verified=True,
    idle_if=_no_returned_params,
)

_CREATORS = ("tensor.create", "tensor.full")


def _check_out_params(func: Function, program: Program, report: Reporter) -> None:
    index = function_index(func)
    # Only a call of a creator op can shadow: most kernels call none (a submission is no op call).
    if index.op_names.isdisjoint(_CREATORS) and not index.has(Submit):
        return
    written = {
        p.name_hint: p
        for p, d in zip(func.params, func.param_directions)
        if d in (ParamDirection.Out, ParamDirection.InOut)
    }
    if not written:
        return
    for stmt in index.of(AssignStmt):
        value = stmt.value  # op_name(value), inlined: this runs for every assignment of a kernel
        if not isinstance(value, (Call, Submit)) or value.op.name not in _CREATORS or isinstance(value.op, GlobalVar):
            continue
        var = stmt.var
        param = var if any(var is p for p in written.values()) else written.get(base_name(var.name_hint))
        if param is not None:
            report.error(
                "OUT_PARAM_SHADOWED",
                f"Out/InOut parameter '{param.name_hint}' is re-created with {op_name(stmt.value)}",
                stmt,
            )


OutParamNotShadowed = Invariant.per_function(
    "OutParamNotShadowed",
    "an Out/InOut parameter is never re-assigned from tensor.create or tensor.full",
    _check_out_params,
)


def _check_entry_results(func: Function, program: Program, report: Reporter) -> None:
    if not is_entry(func, program):
        return
    ret = final_return(func.body)
    if ret is None:
        return
    roots = written_roots(func, program)  # tensor.write writes its tensor in place
    directions = dict(zip(func.params, func.param_directions))
    defines = {s.var: s for s in function_index(func).of(AssignStmt)}
    for value in returned_values(ret):
        root = roots.root(value) if isinstance(value, Var) else None
        if isinstance(value, Var) and rebinding_loop(roots, func, value) is not None:
            report.error(
                "ENTRY_RESULT_LOST",
                f"entry '{func.name}' returns '{value.name_hint}', a loop result its iterations rebind to another "
                "tensor than the Out/InOut parameter it starts from",
                ret,
            )
            continue
        if directions.get(root, ParamDirection.In) == ParamDirection.In and not computed_in_place(defines.get(root)):
            what = f"'{value.name_hint}'" if isinstance(value, Var) else "a value"
            report.error(
                "ENTRY_RESULT_LOST",
                f"entry '{func.name}' returns {what}, which is none of its Out/InOut parameters: a call cannot "
                "give it back (ExportEntryResults makes a returned created tensor one)",
                ret,
            )


EntryResultsExported = Invariant.per_function(
    "EntryResultsExported",
    "every value an entry Orchestration function returns is (the buffer of) one of its Out/InOut parameters",
    _check_entry_results,
    # whether another function calls it, and its callees' returns and writes through theirs
    reads_bodies=Bodies(callees=True, callers=True, of={FunctionType.Orchestration}),
)
