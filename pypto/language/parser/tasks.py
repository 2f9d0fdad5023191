"""Task launches and manual dependencies: ``pl.submit``, ``pl.spmd_submit``, ``deps=``,
``pl.system.task_dummy``, ``pl.no_dep`` and TaskId carries through ``pl.parallel``.

``out, tid = pl.submit(self.k, a, b, deps=[t])`` becomes one ``ir.Submit`` whose type is the
callee's results plus a trailing ``Scalar[TASK_ID]``; the tuple is unpacked like any other
(``_submit_tmp = pl.submit(...)``, ``out = _submit_tmp[0]``, ``tid = _submit_tmp[1]``; the next one
is ``_submit_tmp_1``, and a ``_`` target keeps its binding). ``deps=``
entries are TaskId values (``Scalar[TASK_ID]`` or ``Array[N, TASK_ID]``); a literal ``None`` in
them is dropped. ``pl.no_dep(t)`` around a kernel argument puts that argument's index in
``attrs["arg_direction_overrides"]``; ``DeriveCallDirections`` makes it ``NoDep`` in
``attrs["arg_directions"]`` and derives the other arguments' directions.

A TaskId bound before a ``pl.parallel`` loop and re-bound inside it (or a TaskId iter_arg of the
loop) becomes an array of one TaskId per iteration, so that loop needs a static trip count.
"""

from __future__ import annotations

import ast
import copy
import inspect
from typing import Any

from pypto import ir

from .. import constructs, scopes
from ..op import system as system_ops
from ..op import tensor as tensor_ops
from . import handlers  # noqa: F401  (registers the built-in pl.parallel handler wrapped below)
from .calls import ProgramFunctionRef
from .core import describe
from .diagnostics import (
    InvalidOperationError,
    ParserError,
    ParserSyntaxError,
    ParserTypeError,
    UndefinedVariableError,
    UnsupportedFeatureError,
)
from .predicates import parse_predicate
from .registry import (
    FOR_HANDLERS,
    display_name,
    register_assign,
    register_call_hook,
    register_expr,
    register_for,
    register_stmt,
)
from .scope_state import Producer, is_task_id, is_task_id_array, parent_of, state_of, walk

_TASK_ID = ir.ScalarType(ir.DataType.TASK_ID)
_DEPS_HINT = (
    "deps= takes TaskIds: the tid of `out, tid = pl.submit(...)` or `with pl.at(...) as tid`, "
    "pl.system.task_dummy(...), a TaskId array or None; to take a tensor out of dependency "
    "tracking use pl.no_dep(t) or no_dep_args=[t]"
)
_COUNT_HINT = "give the block count as an int literal, a closure int or an integer scalar, e.g. 8"
# Keywords of pl.submit / pl.spmd_submit themselves; any other keyword goes to the kernel.
_SUBMIT_OPTIONS = frozenset({"deps", "allow_early_resolve", "predicate", "dumps", "attrs"})
_SPMD_SUBMIT_OPTIONS = _SUBMIT_OPTIONS | {"core_num", "sync_start"}


# ----- keyword options shared by scopes and launches ----------------------------------------
def bind(p: Any, construct: Any, call: ast.Call) -> dict[str, Any]:
    """The syntax nodes of ``call``'s arguments by parameter name of ``construct``'s signature."""
    signature = f"signature: {display_name(construct)}{inspect.signature(construct)}"
    for a in call.args:
        if type(a) is ast.Starred:
            p.fail(UnsupportedFeatureError, "'*' arguments are not supported in DSL calls", a, signature)
    keywords = {}
    for kw in call.keywords:
        if kw.arg is None:
            p.fail(UnsupportedFeatureError, "'**' arguments are not supported in DSL calls", kw.value, signature)
        keywords[kw.arg] = kw.value
    params = inspect.signature(construct).parameters
    for kw in call.keywords:
        # A keyword the construct does not have is misplaced syntax (pl.spmd(4, chunk=2)), as in the
        # established API; a wrong count or a missing argument stays a type error.
        if kw.arg not in params:
            p.fail(
                ParserSyntaxError,
                f"{display_name(construct)}: got an unexpected keyword argument '{kw.arg}'",
                call,
                signature,
            )
    try:
        bound = inspect.signature(construct).bind(*call.args, **keywords)
    except TypeError as err:
        p.fail(ParserTypeError, f"{display_name(construct)}: {err}", call, signature)
    return dict(bound.arguments)


def keyword_node(call: ast.Call, name: str) -> ast.expr | None:
    """The value node of keyword ``name`` in ``call``."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def bool_literal(p: Any, node: ast.expr, what: str) -> bool:
    """A ``True`` / ``False`` literal (or closure constant)."""
    value = p.eval(node)
    if not isinstance(value, bool):
        p.fail(
            ParserSyntaxError,
            f"{what} must be True or False, got {describe(value)}",
            node,
            f"write the literal: {what}True",
        )
    return value


def str_literal(p: Any, node: ast.expr, what: str) -> str:
    """A string literal (or closure constant)."""
    value = p.eval(node)
    if not isinstance(value, str):
        p.fail(ParserSyntaxError, f"{what} must be a string, got {describe(value)}", node, f'write a string literal: {what}"name"')
    return value


def attrs_dict(p: Any, node: ast.expr) -> dict[str, Any]:
    """The dict of a printed ``attrs={...}`` keyword."""
    value = p.eval(node)
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        p.fail(
            ParserTypeError,
            f"attrs= must be a dict with string keys, got {describe(value)}",
            node,
            'write a dict literal with string keys: attrs={"key": value}',
        )
    return dict(value)


def _list_items(p: Any, node: ast.expr, what: str, example: str) -> list[ast.expr]:
    if type(node) not in (ast.List, ast.Tuple):
        p.fail(
            ParserTypeError,
            f"{what} takes a list: {example}",
            node,
            f"wrap the entries in a list literal, even a single one: {example}",
        )
    return list(node.elts)  # type: ignore[attr-defined]


_COMPREHENSION_FORM = "deps=[tids[i] for i in range(N)] (one for, over range of int constants)"


def _substitute(node: ast.expr, name: str, value: int) -> ast.expr:
    """``node`` with every load of ``name`` replaced by the constant ``value`` (a copy; spans kept)."""

    class _Bind(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name) -> ast.expr:
            return ast.copy_location(ast.Constant(value), n) if n.id == name else n

    return _Bind().visit(copy.deepcopy(node))


def _comprehension_items(p: Any, node: ast.ListComp) -> list[ast.expr]:
    """The entries of ``[elt for i in range(...)]``: ``elt`` with ``i`` bound to each int in turn."""
    gen = node.generators[0]
    it = gen.iter
    if (len(node.generators) != 1 or gen.ifs or gen.is_async or type(gen.target) is not ast.Name
            or type(it) is not ast.Call or it.keywords or not 1 <= len(it.args) <= 3):
        p.fail(ParserSyntaxError, "this deps= comprehension is not supported", node, _COMPREHENSION_FORM)
    builtin = type(it.func) is ast.Name and it.func.id == "range" and it.func.id not in p.vars
    if not builtin and p.eval(it.func) not in (constructs.range, constructs.parallel, constructs.unroll):
        p.fail(ParserSyntaxError, "a deps= comprehension iterates over range(...)", it, _COMPREHENSION_FORM)
    bounds = [p.eval(a) for a in it.args]
    if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds) or bounds[2:] == [0]:
        p.fail(
            ParserSyntaxError,
            f"the range of a deps= comprehension needs int constants, got '{ast.unparse(it)}'",
            it,
            "give the bounds as int literals or closure ints: " + _COMPREHENSION_FORM,
        )
    return [_substitute(node.elt, gen.target.id, i) for i in range(*bounds)]


def parse_deps(p: Any, node: ast.expr) -> list[ir.Expr]:
    """The TaskIds of ``deps=[...]``: ``Scalar[TASK_ID]`` / ``Array[N, TASK_ID]`` values; ``None`` is dropped.
    A comprehension over ``range`` of int constants lists one entry per index."""
    deps: list[ir.Expr] = []
    if type(node) is ast.ListComp:
        items = _comprehension_items(p, node)
    else:
        items = _list_items(p, node, "deps=", "deps=[tid]")
    for elt in items:
        try:
            value = p.eval(elt)
        except UndefinedVariableError:
            if type(elt) is not ast.Name:
                raise
            # A task can wait only for a task submitted before it, so explicit edges form no cycle.
            p.fail(UndefinedVariableError, f"deps= names '{elt.id}', which nothing before this task defines", elt,
                   "a task waits only for tasks submitted before it: submit the producer first")
        if value is None:
            continue
        if not isinstance(value, ir.Expr):
            p.fail(ParserTypeError, f"deps= entries must be TaskId values, got {describe(value)}", elt, _DEPS_HINT)
        if not (is_task_id(value) or is_task_id_array(value)):
            kind = _kind(value)
            p.fail(
                ParserTypeError,
                f"deps= entries must be TaskId values, but '{ast.unparse(elt)}' is a {kind} ({value.type})",
                elt,
                _DEPS_HINT,
            )
        deps.append(value)
    return deps


def parse_tensor_names(p: Any, node: ast.expr, what: str) -> list[ir.Var]:
    """``[t1, t2]``: names of tensor variables visible here (``no_dep_args=``, ``dumps=``)."""
    out: list[ir.Var] = []
    for elt in _list_items(p, node, what, f"{what}[t1, t2]"):
        if type(elt) is not ast.Name:
            p.fail(
                ParserSyntaxError,
                f"{what} entries must be tensor variable names, got '{ast.unparse(elt)}'",
                elt,
                f"assign the tensor to a variable first and list its name: {what}[t]",
            )
        var = p.lookup_var(elt.id)
        if var is None:
            p.fail(
                UndefinedVariableError,
                f"{what} names '{elt.id}', which is not a variable of this function",
                elt,
                "list tensors defined before this statement (parameters or assigned variables)",
            )
        if not isinstance(var.type, ir.TensorType):
            p.fail(
                ParserTypeError,
                f"{what} entries must be tensors, but '{elt.id}' is {describe(var)}",
                elt,
                f"list only tensor variables in {what}",
            )
        if not any(v is var for v in out):
            out.append(var)
    return out


def merge_vars(first: list[ir.Var], second: list[ir.Var]) -> list[ir.Var]:
    """``first`` then the variables of ``second`` not already in it (by identity)."""
    out = list(first)
    for v in second:
        if not any(v is w for w in out):
            out.append(v)
    return out


def _kind(expr: ir.Expr) -> str:
    t = expr.type
    for cls, name in (
        (ir.TensorType, "Tensor"),
        (ir.TileType, "Tile"),
        (ir.ScalarType, "Scalar"),
        (ir.ArrayType, "Array"),
    ):
        if isinstance(t, cls):
            return name
    return type(t).__name__


# ----- pl.submit / pl.spmd_submit -------------------------------------------------------------
def _kernel(p: Any, node: ast.expr, construct: str) -> tuple[Any, list[ir.Type]]:
    """The launched function and its return types."""
    callee = p.eval(node)
    if isinstance(callee, ProgramFunctionRef) and p.program is not None:
        sig = p.program.signature(callee.name)
        if sig is not None:
            return callee, list(sig.return_types)
    if isinstance(callee, ir.Function):
        return callee, list(callee.return_types)
    p.fail(
        ParserTypeError,
        f"{construct} launches a function of the program, got {describe(callee)}",
        node,
        f"{construct}(self.kernel, *args, ...)",
    )


def build_submit(p: Any, call: ast.Call, spmd: bool) -> ir.Submit:
    """The ``ir.Submit`` of a ``pl.submit(...)`` / ``pl.spmd_submit(...)`` call."""
    construct = "pl.spmd_submit" if spmd else "pl.submit"
    options = _SPMD_SUBMIT_OPTIONS if spmd else _SUBMIT_OPTIONS
    if not call.args or type(call.args[0]) is ast.Starred:
        p.fail(
            ParserTypeError,
            f"{construct} needs the kernel to launch: {construct}(self.kernel, *args)",
            call,
            f"pass the function first, then its arguments: out, tid = {construct}(self.kernel, x, out)",
        )
    if not spmd:
        for kw in call.keywords:
            if kw.arg in _SPMD_SUBMIT_OPTIONS - _SUBMIT_OPTIONS:
                p.fail(
                    ParserSyntaxError,
                    f"pl.submit takes no {kw.arg}=: a launch on several blocks is pl.spmd_submit",
                    kw.value,
                    "out, tid = pl.spmd_submit(self.kernel, x, out, core_num=8, sync_start=True)",
                )
    kernel_node = call.args[0]
    callee, return_types = _kernel(p, kernel_node, construct)
    given = {kw.arg: kw.value for kw in call.keywords if kw.arg in options}
    plain = ast.Call(
        func=kernel_node, args=call.args[1:], keywords=[kw for kw in call.keywords if kw.arg not in options]
    )
    ast.copy_location(plain, call)
    if isinstance(callee, ir.Function):
        base = p.call_external(callee, plain)
    else:
        base = p.call_program_function(callee, plain)
    deps = parse_deps(p, given["deps"]) if "deps" in given else []
    attrs = dict(base.attrs)
    if "attrs" in given:
        attrs.update(attrs_dict(p, given["attrs"]))
    if "dumps" in given:
        dumps = parse_tensor_names(p, given["dumps"], "dumps=")
        attrs["dump_vars"] = merge_vars(list(attrs.get("dump_vars", [])), dumps)
    early = (
        bool_literal(p, given["allow_early_resolve"], "allow_early_resolve=")
        if "allow_early_resolve" in given
        else False
    )
    predicate = parse_predicate(p, given["predicate"], deps) if "predicate" in given else None
    core_num: ir.Expr | None = None
    sync_start = False
    if spmd:
        if "core_num" not in given:
            p.fail(
                ParserSyntaxError,
                "pl.spmd_submit needs core_num=N (the number of blocks)",
                call,
                "out, tid = pl.spmd_submit(self.kernel, x, out, core_num=8)",
            )
        core_num = core_count(p, given["core_num"], "core_num=")
        if "sync_start" in given:
            sync_start = bool_literal(p, given["sync_start"], "sync_start=")
    result: ir.Type = ir.TupleType([*return_types, _TASK_ID]) if return_types else _TASK_ID
    try:
        return ir.Submit(
            base.op,
            list(base.args),
            deps,
            {},
            attrs,
            result,
            p.span(call),
            core_num=core_num,
            sync_start=sync_start,
            allow_early_resolve=early,
            predicate=predicate,
        )
    except ParserError:
        raise
    except (TypeError, ValueError) as err:
        p.fail(
            InvalidOperationError,
            str(err),
            call,
            "deps= takes TaskIds, core_num= a positive integer and predicate= one comparison of a tensor element",
        )


def core_count(p: Any, node: ast.expr, what: str) -> ir.Expr:
    """A block count: a positive int literal, or an integer scalar expression."""
    value = p.eval(node)
    if isinstance(value, bool) or (isinstance(value, int) and value <= 0):
        p.fail(ParserSyntaxError, f"{what} must be a positive integer, got {describe(value)}", node, _COUNT_HINT)
    expr = p.to_expr(value, node) if isinstance(value, (int, ir.Expr)) else None
    if expr is None or not (isinstance(expr.type, ir.ScalarType) and expr.type.dtype.is_int()):
        p.fail(ParserSyntaxError, f"{what} must be a positive integer, got {describe(value)}", node, _COUNT_HINT)
    return expr


def _record_producers(p: Any, stmt: ast.stmt, construct: str) -> None:
    """``out, tid = pl.submit(...)``: ``out`` was produced by the task ``tid`` (predicate check)."""
    target = stmt.targets[0] if type(stmt) is ast.Assign else None  # type: ignore[attr-defined]
    if type(target) not in (ast.Tuple, ast.List) or not target.elts:  # type: ignore[union-attr]
        return
    *results, tid_node = target.elts  # type: ignore[union-attr]
    tid = p.lookup_var(tid_node.id) if tid_node.id != "_" else None
    state = state_of(p)
    for elt in results:
        if elt.id == "_":
            continue
        var = p.lookup_var(elt.id)
        if var is not None and isinstance(var.type, ir.TensorType):
            state.record_producer(var, Producer(tid, construct))


def _submit_handlers(construct: Any, spmd: bool, usage: str) -> None:
    name = "pl.spmd_submit" if spmd else "pl.submit"

    @register_expr(construct)
    def _value(p: Any, call: ast.Call) -> ir.Submit:
        return build_submit(p, call, spmd)

    @register_stmt(construct, usage)
    def _statement(p: Any, call: ast.Call) -> None:
        p.emit(ir.EvalStmt(build_submit(p, call, spmd), p.span(call)))

    @register_assign(construct, usage)
    def _assign(p: Any, stmt: ast.Assign | ast.AnnAssign, call: ast.Call) -> None:
        submit = build_submit(p, call, spmd)
        if type(stmt) is ast.AnnAssign:
            p.bind_target(stmt.target, submit, call, stmt.annotation, stmt)
            return
        p.bind_target(stmt.targets[0], submit, call, None, stmt)
        _record_producers(p, stmt, name)


_submit_handlers(scopes.submit, False, "out, tid = pl.submit(self.kernel, *args, deps=[...])")
_submit_handlers(scopes.spmd_submit, True, "out, tid = pl.spmd_submit(self.kernel, *args, core_num=N)")


# ----- pl.system.task_dummy ---------------------------------------------------------------------
@register_expr(system_ops.task_dummy)
def _task_dummy(p: Any, call: ast.Call) -> ir.Call:
    """``pl.system.task_dummy(deps=[...])``: a dependency-only task; the edges go to
    ``attrs["manual_dep_edges"]`` (an op call, so ManualDepsOnSubmitOnly allows them)."""
    if call.args:
        p.fail(
            ParserTypeError,
            "pl.system.task_dummy takes only deps=[...]",
            call,
            "barrier = pl.system.task_dummy(deps=[t1, t2])",
        )
    deps: list[ir.Expr] = []
    extra: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg == "deps":
            deps = parse_deps(p, kw.value)
        elif kw.arg == "attrs":
            extra = attrs_dict(p, kw.value)
        else:
            p.fail(
                ParserTypeError,
                f"pl.system.task_dummy got an unexpected keyword argument '{kw.arg}'",
                call,
                "barrier = pl.system.task_dummy(deps=[t1, t2])",
            )
    dummy = system_ops.task_dummy(deps, span=p.span(call)).unwrap()
    if extra:
        try:
            dummy = ir.replace(dummy, attrs={**extra, "manual_dep_edges": deps})
        except (TypeError, ValueError) as err:
            p.fail(
                ParserTypeError,
                str(err),
                call,
                'fix or remove the attrs key named above: a dummy task reserves "dummy_task" (True or False)',
            )
    return dummy


# ----- pl.no_dep --------------------------------------------------------------------------------
def _is_kernel_argument(p: Any, parent: ast.Call, node: ast.Call) -> bool:
    """True when ``node`` is an argument of a program-function call or of the kernel that
    ``pl.submit`` / ``pl.spmd_submit`` launches (not the kernel itself)."""
    callee = p.eval(parent.func)
    if isinstance(callee, (ProgramFunctionRef, ir.Function)):
        return True
    return (callee is scopes.submit or callee is scopes.spmd_submit) and parent.args[:1] != [node]


@register_expr(tensor_ops.no_dep)
def _no_dep(p: Any, call: ast.Call) -> ir.Expr:
    """``pl.no_dep(t)`` as an argument of a kernel call: the argument itself (the call's
    directions are set by :func:`_no_dep_directions`)."""
    usage = "wrap an argument of a kernel call: self.kernel(pl.no_dep(x), out)"
    if len(call.args) != 1 or call.keywords:
        p.fail(ParserTypeError, "pl.no_dep takes one tensor argument", call, usage)
    parent = parent_of(p, call)
    if type(parent) is ast.keyword:
        parent = parent_of(p, parent)
    placed = type(parent) is ast.Call and (
        call in parent.args or any(kw.value is call for kw in parent.keywords)  # type: ignore[union-attr]
    )
    if not placed or not _is_kernel_argument(p, parent, call):  # type: ignore[arg-type]
        p.fail(ParserSyntaxError, "pl.no_dep(...) can only wrap an argument of a kernel call", call, usage)
    value = p.expr(call.args[0])
    if not isinstance(value.type, ir.TensorType):
        p.fail(
            ParserTypeError,
            f"pl.no_dep wraps a tensor argument, got {describe(value)}",
            call.args[0],
            "pass a scalar argument as it is: pl.no_dep only takes tensors out of dependency tracking",
        )
    return value


def _is_no_dep(p: Any, node: ast.expr) -> bool:
    return (
        type(node) is ast.Call
        and type(node.func) in (ast.Attribute, ast.Name)
        and p.eval(node.func) is tensor_ops.no_dep
    )


@register_call_hook
def _no_dep_directions(p: Any, node: ast.Call, call: ir.Call) -> ir.Call:
    """A call with ``pl.no_dep`` arguments gets ``attrs["arg_direction_overrides"]``: the indices
    of those arguments (DeriveCallDirections makes them ``NoDep`` and derives the others)."""
    marked = {i for i, a in enumerate(node.args) if _is_no_dep(p, a)}
    marked_names = {kw.arg for kw in node.keywords if _is_no_dep(p, kw.value)}
    if not marked and not marked_names:
        return call
    if marked_names:
        callee = p.eval(node.func)
        params = callee.params if isinstance(callee, ir.Function) else p.program.signature(callee.name).params
        marked.update(i for i, v in enumerate(params) if v.name_hint in marked_names)
    return ir.replace(call, attrs={**call.attrs, "arg_direction_overrides": sorted(marked)})


# ----- TaskId carries through pl.parallel ---------------------------------------------------------
_parallel_loop = FOR_HANDLERS[constructs.parallel]


@register_for(constructs.parallel, "for i in pl.parallel(n):")
def _parallel(p: Any, node: ast.For, call: ast.Call) -> None:
    """``pl.parallel`` as usual; a TaskId carried through it needs a static trip count."""
    outer = {id(v) for v in p.vars.values() if is_task_id(v)}
    _parallel_loop(p, node, call)
    loop = p.block.stmts[-1]
    if all(isinstance(e, ir.ConstInt) for e in (loop.start, loop.stop, loop.step)):
        return
    carried = [a for a in loop.iter_args if is_task_id(a)]
    if outer:
        carried += [s.var for s in walk(loop.body) if isinstance(s, ir.AssignStmt) and id(s.var) in outer]
    if carried:
        p.fail(
            UnsupportedFeatureError,
            f"the TaskId '{carried[0].name_hint}' is carried through this pl.parallel loop, which needs a "
            "statically-known trip count (one TaskId slot per iteration)",
            call,
            "give pl.parallel constant bounds (int literals or closure constants)",
        )
