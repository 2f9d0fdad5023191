"""Handlers of the parse-time constructs: ``pl.yield_``, ``pl.cond``, the loops, ``pl.const``,
``pl.static_print`` / ``pl.static_assert``, ``pl.func_attr``, ``abs``/``min``/``max`` and the
annotation helpers ``pl.MemRef`` / ``pl.TileView`` / ``pl.TensorView``."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from typing import Any

from pypto import ir
from pypto.ir import ForKind
from pypto.ir.attrs import FunctionAttrs

from .. import constructs
from ..typing.shaped import TileViewSpec
from .core import YieldInfo, describe
from .diagnostics import InvalidOperationError, ParserError, ParserSyntaxError, ParserTypeError
from .expressions import is_static
from .registry import register_assign, register_expr, register_for, register_stmt

_YIELD_USAGE = "end an if branch or a loop body with `name = pl.yield_(value)`"


# ----- pl.yield_ and Python yield -------------------------------------------------------------
def _yield_values(p: Any, call: ast.Call) -> list[ir.Expr]:
    if call.keywords:
        p.fail(
            ParserTypeError,
            "pl.yield_ takes only positional values",
            call,
            "pass the yielded values in the order of the names they bind: a, b = pl.yield_(x, y)",
        )
    return [p.expr(a) for a in call.args]


def _check_yield_owner(p: Any, node: ast.AST, count: int, assigned: bool) -> None:
    block = p.block
    owner = block.owner
    if owner == "if":
        if count and not assigned:
            p.fail(
                ParserSyntaxError,
                "an if branch yields values with the assignment form: y = pl.yield_(...)",
                node,
                "name the results the if produces: y = pl.yield_(value) in every branch",
            )
        return
    if owner in ("for", "while"):
        if block.carried is None:
            if count:
                p.fail(
                    ParserSyntaxError,
                    "pl.yield_ with values needs a loop with init_values",
                    node,
                    "for i, (acc,) in pl.range(n, init_values=(acc0,)):",
                )
            return
        if count != block.carried:
            p.fail(
                ParserTypeError,
                f"the loop carries {block.carried} value(s) but the yield gives {count}",
                node,
                "yield one next value per init value, in the order of init_values",
            )
        return
    p.fail(ParserSyntaxError, "pl.yield_ can only end an if branch or a loop body", node, _YIELD_USAGE)


@register_assign(constructs.yield_, _YIELD_USAGE)
def _yield_assign(p: Any, stmt: ast.Assign | ast.AnnAssign, call: ast.Call) -> None:
    values = _yield_values(p, call)
    if type(stmt) is ast.AnnAssign:
        names = [stmt.target.id]  # type: ignore[union-attr]
        types: list[ir.Type | None] = [p.resolve_type(stmt.annotation)]
    else:
        target = stmt.targets[0]
        elts = target.elts if type(target) in (ast.Tuple, ast.List) else [target]
        if any(type(e) is not ast.Name for e in elts):
            p.fail(
                ParserSyntaxError,
                "pl.yield_ binds plain names: a, b = pl.yield_(x, y)",
                target,
                "bind the results to new names; write to a subscript after the if / loop",
            )
        names = [e.id for e in elts]
        types = [None] * len(names)
    if len(names) != len(values):
        p.fail(
            ParserTypeError,
            f"{len(names)} name(s) bound to a pl.yield_ of {len(values)} value(s)",
            stmt,
            "bind one name per yielded value: a, b = pl.yield_(x, y)",
        )
    if types[0] is not None and len(values) == 1:
        p.check_annotation(types[0], values[0], stmt)
    _check_yield_owner(p, call, len(values), assigned=True)
    p.emit(ir.YieldStmt(values, p.span(call)))
    p.block.yielded = YieldInfo(names, types, values, stmt)
    p.block.ended_by = stmt


@register_stmt(constructs.yield_, _YIELD_USAGE)
def _yield_stmt(p: Any, call: ast.Call) -> None:
    values = _yield_values(p, call)
    block = p.block
    if block.owner in ("for", "while") and block.carried is not None:
        p.fail(
            ParserSyntaxError,
            "a loop with init_values requires assignment-form pl.yield_: x_next = pl.yield_(...)",
            call,
            "the names on the left are the loop results visible after the loop",
        )
    _check_yield_owner(p, call, len(values), assigned=False)
    p.emit(ir.YieldStmt(values, p.span(call)))
    block.ended_by = call


def python_yield(p: Any, node: ast.Yield) -> None:
    """``yield`` / ``yield x`` / ``yield x, y``: in a loop with init_values the results keep the
    iter_arg names after the loop; elsewhere only the value-less form is meaningful."""
    value = node.value
    items = [] if value is None else value.elts if type(value) is ast.Tuple else [value]
    values = [p.expr(v) for v in items]
    block = p.block
    _check_yield_owner(p, node, len(values), assigned=block.carried is not None)
    p.emit(ir.YieldStmt(values, p.span(node)))
    if block.carried is not None and block.owner in ("for", "while"):
        block.yielded = YieldInfo([], [None] * len(values), values, node)
    block.ended_by = node


# ----- loops ---------------------------------------------------------------------------------
def _range_handler(kind: ForKind, name: str) -> Callable[[Any, ast.For, ast.Call], None]:
    def handle(p: Any, node: ast.For, call: ast.Call) -> None:
        p.range_loop(node, call, kind, name)

    return handle


register_for(constructs.range, "for i in pl.range(n):")(_range_handler(ForKind.Sequential, "range"))
register_for(constructs.parallel, "for i in pl.parallel(n):")(_range_handler(ForKind.Parallel, "parallel"))
register_for(constructs.unroll, "for i in pl.unroll(n):")(_range_handler(ForKind.Unroll, "unroll"))
register_for(constructs.pipeline, "for i in pl.pipeline(n, stage=2):")(_range_handler(ForKind.Pipeline, "pipeline"))


@register_for(constructs.while_, "for (x,) in pl.while_(init_values=(x0,)):")
def _while_handler(p: Any, node: ast.For, call: ast.Call) -> None:
    p.while_loop(node, call)


@register_stmt(constructs.cond, "pl.cond(c) is the first statement of a pl.while_ loop")
def _cond_stmt(p: Any, call: ast.Call) -> None:
    p.fail(
        ParserSyntaxError,
        "pl.cond can only be the first statement of a pl.while_ loop",
        call,
        "for (x,) in pl.while_(init_values=(x0,)):\n    pl.cond(x < n)",
    )


# ----- compile-time debugging ----------------------------------------------------------------
def _static_text(p: Any, node: ast.expr) -> str:
    """How ``pl.static_print`` shows one argument."""
    from pypto.ir.printer import python_print, python_print_type

    if type(node) is ast.Constant and isinstance(node.value, str):
        return node.value
    if type(node) is ast.JoinedStr:
        parts = []
        for part in node.values:
            if type(part) is ast.Constant:
                parts.append(str(part.value))
                continue
            if part.conversion != -1:  # type: ignore[attr-defined]
                p.fail(
                    ParserSyntaxError,
                    "pl.static_print f-strings do not support !r / !s / !a",
                    part,
                    'write the value plainly: pl.static_print(f"x = {x}")',
                )
            if part.format_spec is not None:  # type: ignore[attr-defined]
                p.fail(
                    ParserSyntaxError,
                    "pl.static_print f-strings do not support format specs (:...)",
                    part,
                    'write the value without a format spec: pl.static_print(f"x = {x}")',
                )
            parts.append(_static_text(p, part.value))  # type: ignore[attr-defined]
        return "".join(parts)
    value = p.eval(node)
    if isinstance(value, ir.Var) and type(node) is ast.Name:
        return f"{node.id}: {python_print_type(value.type)}"
    if isinstance(value, ir.Expr):
        return python_print(value)
    return str(value)


@register_stmt(constructs.static_print, "pl.static_print(...) is a statement")
def _static_print(p: Any, call: ast.Call) -> None:
    if not call.args or call.keywords:
        p.fail(
            ParserSyntaxError,
            "pl.static_print needs at least one positional argument",
            call,
            'pass the values to print positionally: pl.static_print("x =", x)',
        )
    text = " ".join(_static_text(p, a) for a in call.args)
    print(f"static_print [{p.src.filename}:{call.lineno}]: {text}", flush=True)


@register_stmt(constructs.static_assert, "pl.static_assert(cond, msg) is a statement")
def _static_assert(p: Any, call: ast.Call) -> None:
    args = list(call.args)
    for kw in call.keywords:
        if kw.arg != "msg":
            p.fail(
                ParserTypeError,
                f"pl.static_assert got an unexpected keyword argument '{kw.arg}'",
                kw.value,
                'pl.static_assert(cond) or pl.static_assert(cond, "message") / msg="message"',
            )
        args.append(kw.value)
    if not 1 <= len(args) <= 2:
        p.fail(
            ParserTypeError,
            "pl.static_assert takes a condition and an optional message",
            call,
            'pl.static_assert(N % 16 == 0, "N must be a multiple of 16")',
        )
    message = ""
    if len(args) == 2:
        if type(args[1]) is not ast.Constant or not isinstance(args[1].value, str):
            p.fail(
                ParserSyntaxError,
                "the message of pl.static_assert must be a string literal",
                args[1],
                'write the message as a literal: pl.static_assert(cond, "N must be positive")',
            )
        message = args[1].value
    value = p.eval(args[0])
    if isinstance(value, (ir.ConstInt, ir.ConstFloat, ir.ConstBool)):
        value = value.value
    if not is_static(value):
        p.fail(
            ParserSyntaxError,
            "the condition of pl.static_assert must be a compile-time constant",
            args[0],
            "use closure variables and constants, e.g. pl.static_assert(N > 32)",
        )
    if not value:
        text = f"static assertion failed: {message}" if message else f"static assertion failed: {ast.unparse(args[0])}"
        p.fail(
            ParserError,
            text,
            call,
            "the condition folds to False with the closure values of this definition: fix the values or the code",
        )


@register_stmt(constructs.func_attr, "pl.func_attr({...}) is the first statement of a function")
def _func_attr_misplaced(p: Any, call: ast.Call) -> None:
    p.fail(
        ParserSyntaxError,
        "pl.func_attr must be the first statement of a function body",
        call,
        "move it to the top of the body (after the docstring, before any other statement)",
    )


def func_attrs(p: Any, call: ast.Call) -> dict[str, Any]:
    """The dict of a leading ``pl.func_attr({...})``."""
    if len(call.args) != 1 or call.keywords:
        p.fail(
            ParserSyntaxError,
            "pl.func_attr takes one dict: pl.func_attr({\"key\": value})",
            call,
            "merge the attrs into one dict literal, or write several pl.func_attr({...}) lines",
        )
    attrs = p.eval(call.args[0])
    if not isinstance(attrs, dict) or not all(isinstance(k, str) for k in attrs):
        p.fail(
            ParserSyntaxError,
            f"pl.func_attr takes a dict with string keys, got {describe(attrs)}",
            call.args[0],
            'write the attrs as a dict literal with string keys: pl.func_attr({"key": value})',
        )
    try:
        FunctionAttrs.for_node("pl.func_attr", attrs)
    except (TypeError, ValueError) as err:
        p.fail(ParserSyntaxError, str(err), call.args[0],
               'give each reserved attr (split, core_num, ...) a value of its kind: {"split": pl.SplitMode.UP_DOWN}')
    return attrs


# ----- values --------------------------------------------------------------------------------
def call_python(p: Any, fn: Callable[..., Any], call: ast.Call, with_span: bool, usage: str) -> Any:
    """Call a pypto helper with the parsed arguments; its TypeError/ValueError become parser errors
    whose hint is ``usage``."""
    args, kwargs = p.call_arguments(call)
    if with_span:
        kwargs["span"] = p.span(call)
    try:
        return fn(*args, **kwargs)
    except ParserError:
        raise
    except TypeError as err:
        p.fail(ParserTypeError, str(err), call, usage)
    except ValueError as err:
        p.fail(InvalidOperationError, str(err), call, usage)


_CONST_USAGE = "pl.const(value, dtype): an int or float value and a matching dtype, e.g. pl.const(1.0, pl.FP16)"
_TILE_VIEW_USAGE = (
    "pl.TileView(valid_shape=[...], stride=[...], start_offset=..., blayout=pl.TileLayout.<l>, "
    "slayout=pl.TileLayout.<l>, fractal=<int>, pad=pl.PadValue.<p>, compact=pl.CompactMode.<c>), all optional"
)
_TENSOR_VIEW_USAGE = (
    "pl.TensorView(stride=[...], layout=pl.TensorLayout.<ND|DN|NZ>, valid_shape=[...], pad=pl.PadValue.<p>), "
    "all optional"
)
_MEMREF_USAGE = (
    'pl.MemRef("name") for a pinned buffer, pl.MemRef("name", byte_offset, size) or '
    "pl.MemRef(base, byte_offset, size) with a Ptr variable base"
)


@register_expr(constructs.const)
def _const(p: Any, call: ast.Call) -> ir.Expr:
    return call_python(p, constructs.const, call, with_span=True, usage=_CONST_USAGE)


@register_expr(ir.TileView)
def _tile_view(p: Any, call: ast.Call) -> TileViewSpec:
    """``pl.TileView(...)`` in DSL code: omitted layout fields follow the tile's implicit view."""
    return call_python(p, TileViewSpec, call, with_span=False, usage=_TILE_VIEW_USAGE)


@register_expr(ir.TensorView)
def _tensor_view(p: Any, call: ast.Call) -> ir.TensorView:
    return call_python(p, ir.TensorView, call, with_span=False, usage=_TENSOR_VIEW_USAGE)


@register_expr(ir.MemRef)
def _memref(p: Any, call: ast.Call) -> ir.MemRef:
    """``pl.MemRef(...)``: MemRefs naming their base by string share one base per name and function."""
    args, kwargs = p.call_arguments(call)
    span = p.span(call)
    if args and isinstance(args[0], str) and len(args) in (1, 3):
        bases = p.state.memref_bases
        base = bases.get(args[0])
        if base is None:
            base = bases[args[0]] = ir.Var(args[0], ir.PtrType.get(), span)
        if len(args) == 1:
            args = [base, 0, 0]
            kwargs = {"is_pinned": True, **kwargs}
        else:
            args = [base, *args[1:]]
    try:
        return ir.MemRef(*args, span=span, **kwargs)
    except TypeError as err:
        p.fail(ParserTypeError, str(err), call, _MEMREF_USAGE)
    except ValueError as err:
        p.fail(InvalidOperationError, str(err), call, _MEMREF_USAGE)


def _scalar_builtin(name: str, fold: Callable[..., Any], build: Callable[..., ir.Expr], arity: int | None) -> None:
    usage = (
        f"{name}(x) on one number or scalar"
        if arity == 1
        else f"{name}(a, b, ...) on numbers or scalars of one dtype; for tensors and tiles use pl.{name}imum"
    )

    def handle(p: Any, call: ast.Call) -> Any:
        if call.keywords:
            p.fail(ParserTypeError, f"{name}() takes no keyword arguments", call, usage)
        args = []
        for a in call.args:  # a loop, not a comprehension: one frame less per nested call
            args.append(p.eval(a))
        if (arity is not None and len(args) != arity) or (arity is None and len(args) < 2):
            expected = f"{arity}" if arity is not None else "at least 2"
            p.fail(ParserTypeError, f"{name}() takes {expected} argument(s), got {len(args)}", call, usage)
        if all(is_static(a) for a in args):
            try:
                return fold(*args)
            except TypeError as err:
                p.fail(ParserTypeError, f"{name}(): {err}", call, usage)
        exprs = [p.scalar_operand(a, n, call) for a, n in zip(args, call.args)]
        span = p.span(call)
        try:
            result = exprs[0] if arity is None else build(exprs[0], span=span)
            if arity is None:
                for e in exprs[1:]:
                    result = build(result, e, span=span)
        except (TypeError, ValueError) as err:
            p.fail(ParserTypeError, f"{name}(): {err}", call, usage)
        return result

    register_expr(getattr(builtins, name))(handle)


_scalar_builtin("abs", abs, ir.abs_, 1)
_scalar_builtin("min", min, ir.min_, None)
_scalar_builtin("max", max, ir.max_, None)
