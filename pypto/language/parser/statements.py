"""Simple statements: assignments, expression statements, return, pass, break / continue, and
the dispatch of ``for`` / ``with`` to the registered loop and scope constructs."""

from __future__ import annotations

import ast
import builtins
from typing import Any

from pypto import ir
from pypto.ir.traversal import iter_children

from .core import ParserCore, describe, retype_literal
from .diagnostics import ParserSyntaxError, ParserTypeError, UndefinedVariableError, UnsupportedFeatureError
from .expressions import is_static
from .handlers import python_yield
from .registry import ASSIGN_HANDLERS, FOR_HANDLERS, POSITION_HINTS, STMT_HANDLERS, WITH_HANDLERS, display_name
from .type_match import show_type, type_mismatch

_STATIC_ASSERT_HINT = "use pl.static_assert(cond, msg) for compile-time checks"
_UNSUPPORTED_STMTS: dict[type, tuple[str, str]] = {
    ast.FunctionDef: ("nested function definitions are not supported", "define helpers with @pl.inline or @pl.function"),
    ast.AsyncFunctionDef: ("async functions are not supported", "define helpers with @pl.inline or @pl.function"),
    ast.ClassDef: (
        "class definitions are not supported inside a DSL function",
        "define classes at module level; a program is a @pl.program class of @pl.function methods",
    ),
    ast.Import: ("imports are not supported inside a DSL function", "import at module level"),
    ast.ImportFrom: ("imports are not supported inside a DSL function", "import at module level"),
    ast.Global: (
        "global declarations are not supported in DSL code",
        "read module values directly (they are closure constants); assign only local variables",
    ),
    ast.Nonlocal: (
        "nonlocal declarations are not supported in DSL code",
        "read enclosing values directly (they are closure constants); return results instead of writing them",
    ),
    ast.Try: ("try statements are not supported in DSL code", _STATIC_ASSERT_HINT),
    ast.Raise: ("raise is not supported in DSL code", _STATIC_ASSERT_HINT),
    ast.Assert: ("assert is not supported in DSL code", "use pl.static_assert(cond, msg) for compile-time checks"),
    ast.Delete: ("del is not supported in DSL code", "remove it: a variable ends with its function or loop body"),
    ast.Match: ("match statements are not supported in DSL code", "use if / else"),
    ast.AsyncFor: ("async for is not supported", "use for i in pl.range(n):"),
    ast.AsyncWith: ("async with is not supported", "use with pl.at(...): or another DSL scope"),
}
if hasattr(ast, "TryStar"):
    _UNSUPPORTED_STMTS[ast.TryStar] = ("try statements are not supported in DSL code", _STATIC_ASSERT_HINT)
_OTHER_STMT_HINT = (
    "DSL statements are assignments, expression calls, if, for over pl.range / pl.parallel / pl.unroll / "
    "pl.while_, while, with pl.<scope>(...), return, break, continue and pass"
)
_FOR_ELSE_HINT = "move the else statements after the loop; if the loop breaks, record that in a variable and test it"

_SCALAR_LOOP_KINDS = (ir.ForKind.Sequential,)


class StmtMixin(ParserCore):
    """Statement handlers (the dispatch table ``_stmt_dispatch`` is built by the body parser)."""

    def unsupported_stmt(self, node: ast.stmt) -> None:
        message, hint = _UNSUPPORTED_STMTS.get(
            type(node), (f"{type(node).__name__} statements are not supported", _OTHER_STMT_HINT)
        )
        self.fail(UnsupportedFeatureError, message, node, hint)

    # ----- assignment ------------------------------------------------------------------------
    def stmt_assign(self, node: ast.Assign) -> None:
        if len(node.targets) != 1:
            self.fail(
                UnsupportedFeatureError,
                "chained assignment (a = b = value) is not supported",
                node,
                "assign once and copy: a = value, then b = a",
            )
        self.assign_from(node.targets[0], node.value, None, node)

    def stmt_annassign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            self.fail(
                ParserSyntaxError,
                "a variable declaration needs a value: x: T = value",
                node,
                "give the value in the same statement, e.g. acc: pl.Scalar[pl.INT64] = 0",
            )
        if type(node.target) is not ast.Name:
            self.fail(
                ParserSyntaxError,
                "only a plain variable name can carry a type annotation",
                node.target,
                "drop the annotation (a subscript write takes the type of its target), or annotate a name",
            )
        self.assign_from(node.target, node.value, node.annotation, node)

    def assign_from(self, target: ast.expr, value_node: ast.expr, annotation: ast.expr | None, node: ast.stmt) -> None:
        """``target[: annotation] = value`` with the assignment constructs (``pl.yield_`` ...) first."""
        if type(value_node) is ast.Call:
            callee = self.eval(value_node.func)
            try:
                handler = ASSIGN_HANDLERS.get(callee)
            except TypeError:
                handler = None
            if handler is not None:
                handler(self, node, value_node)
                return
            value = self.eval_call(value_node, callee)
        else:
            value = self.eval(value_node)
        self.bind_target(target, value, value_node, annotation, node)

    def bind_target(
        self, target: ast.expr, value: Any, value_node: ast.expr, annotation: ast.expr | None, node: ast.stmt
    ) -> None:
        """Bind an assignment target (name, tuple of names or subscript) to a parsed value."""
        kind = type(target)
        if kind is ast.Name:
            declared = self.resolve_type(annotation) if annotation is not None else None
            expr = self.to_expr(value, value_node)
            if is_static(value) and isinstance(declared, ir.ScalarType):
                expr = retype_literal(expr, declared.dtype, self.span(value_node))
            self.assign(target.id, expr, declared, node)
        elif kind in (ast.Tuple, ast.List):
            self.unpack(target, value, value_node, node)
        elif kind is ast.Subscript:
            self.assign_subscript(target, value, node)
        elif kind is ast.Attribute:
            self.fail(
                UnsupportedFeatureError,
                "assignment to an attribute is not supported",
                target,
                "assign to a plain name instead: DSL values have no writable attributes",
            )
        else:
            self.fail(
                UnsupportedFeatureError,
                f"cannot assign to {type(target).__name__}",
                target,
                "assign to a name (x = ...), a tuple of names (a, b = ...) or a subscript (t[i, j] = ...)",
            )

    def unpack(self, target: ast.Tuple | ast.List, value: Any, value_node: ast.expr, node: ast.stmt) -> None:
        """``a, b = value``: element-wise for a Python tuple, through ``value[i]`` for an IR tuple."""
        names = target.elts
        for elt in names:
            if type(elt) is not ast.Name:
                self.fail(
                    UnsupportedFeatureError,
                    "only names can be unpacked: a, b = value",
                    elt,
                    "unpack into names first, then write each one: a, b = value; t[i] = a",
                )
        if isinstance(value, (tuple, list)):
            if len(value) != len(names):
                self.fail(
                    ParserTypeError,
                    f"cannot unpack {len(value)} values into {len(names)} names",
                    target,
                    f"write {len(value)} name(s) on the left, using _ for values you do not need",
                )
            for elt, v in zip(names, self.save_overwritten_reads(names, value, node)):
                self.bind_target(elt, v, value_node, None, node)
            return
        expr = self.to_expr(value, value_node)
        t = expr.type
        if not isinstance(t, ir.TupleType):
            self.fail(
                ParserTypeError,
                f"cannot unpack {describe(expr)}: it is not a tuple",
                value_node,
                "assign it to one name; only calls returning several values (and pl.submit) give tuples",
            )
        if len(t.types) != len(names):
            self.fail(
                ParserTypeError,
                f"cannot unpack a tuple of {len(t.types)} values into {len(names)} names",
                target,
                f"write {len(t.types)} name(s) on the left, using _ for values you do not need",
            )
        span = self.span(node)
        submit = isinstance(expr, ir.Submit)
        if isinstance(expr, ir.Var):
            tmp = expr
        elif submit:  # named as the established printer does: _submit_tmp, _submit_tmp_1, ...
            k = self.state.submit_tmps
            self.state.submit_tmps += 1
            tmp = ir.Var("_submit_tmp" if k == 0 else f"_submit_tmp_{k}", t, span)
            self.emit(ir.AssignStmt(tmp, expr, span))
        else:  # a fresh temporary each time, never a re-definition
            tmp = ir.Var("_tuple_tmp", t, span)
            self.emit(ir.AssignStmt(tmp, expr, span))
        for i, elt in enumerate(names):
            if elt.id != "_":
                self.assign(elt.id, ir.TupleGetItemExpr(tmp, i, span), None, node)
            elif submit:  # a discarded submit value keeps its binding (not a name of the scope)
                self.emit(ir.AssignStmt(ir.Var("_", t.types[i], span), ir.TupleGetItemExpr(tmp, i, span), span))

    def save_overwritten_reads(self, names: list[ast.Name], values: Any, node: ast.stmt) -> list[Any]:
        """``a, b = b, a + b``: Python evaluates every value before binding any name, but the names
        are bound one by one (a body re-assigning an enclosing block's name keeps its Var). A value
        reading such a name bound before it in the same statement is therefore first saved in a
        temporary."""
        out, bound = [], set()
        for elt, v in zip(names, values):
            if bound and isinstance(v, ir.Expr) and _reads_any(v, bound):
                span = self.span(node)
                tmp = ir.Var("_unpack_tmp", v.type, span)
                self.emit(ir.AssignStmt(tmp, v, span))
                v = tmp
            out.append(v)
            if self.redefines(elt.id):
                bound.add(id(self.vars[elt.id]))
        return out

    def stmt_augassign(self, node: ast.AugAssign) -> None:
        target = node.target
        if type(target) is not ast.Name:
            self.fail(
                UnsupportedFeatureError,
                "augmented assignment (+=) only works on a variable name",
                target,
                "write the update out: t[i] = t[i] + v, or use an op such as pl.add",
            )
        current = self.lookup_var(target.id)
        if current is None:
            self.fail(
                UndefinedVariableError,
                f"undefined variable '{target.id}'",
                target,
                f"assign {target.id} before updating it: {target.id} = <initial value>",
            )
        value = self.binary(type(node.op), current, self.eval(node.value), node, target, node.value)
        self.assign(target.id, self.to_expr(value, node), None, node)

    # ----- expression statements -------------------------------------------------------------
    def stmt_expr(self, node: ast.Expr) -> list[str] | None:
        value = node.value
        kind = type(value)
        if kind is ast.Call:
            callee = self.eval(value.func)
            try:
                handler = STMT_HANDLERS.get(callee)
                assign_only = handler is None and callee in ASSIGN_HANDLERS
            except TypeError:
                handler, assign_only = None, False
            if handler is not None:
                handler(self, value)
                return None
            if assign_only:
                self.fail(
                    ParserSyntaxError,
                    f"the result of {display_name(callee)} must be assigned",
                    value,
                    POSITION_HINTS.get(callee),
                )
            result = self.eval_call(value, callee)
        elif kind is ast.Constant:
            if isinstance(value.value, str):
                return [line.rstrip() for line in _clean_docstring(value.value).split("\n")]
            return None
        elif kind is ast.Yield:
            python_yield(self, value)
            return None
        else:
            result = self.eval(value)
        if isinstance(result, ir.Expr):
            self.emit(ir.EvalStmt(result, self.span(node)))
        return None

    # ----- other simple statements -----------------------------------------------------------
    def stmt_return(self, node: ast.Return) -> None:
        if self.inline_depth:
            self.inline_return(node)
            return
        values = [] if node.value is None else node.value.elts if type(node.value) is ast.Tuple else [node.value]
        exprs = [self.expr(v) for v in values]
        self.check_returns(exprs, values, node)
        self.emit(ir.ReturnStmt(exprs, self.span(node)))

    def check_returns(self, exprs: list[ir.Expr], nodes: list[ast.expr], node: ast.Return) -> None:
        """The returned values agree with the declared return types in number, kind, dtype, rank
        and static dims; a function without ``->`` returns nothing (an ``@pl.inline`` body
        without one returns whatever it computes)."""
        name = self.state.name
        label = f"inline function '{name}'" if self.inline_depth else f"function '{name}'"
        declared = self.state.return_types
        if declared is None:
            if exprs and not self.inline_depth:
                wanted = ", ".join(show_type(e.type) for e in exprs)
                annotation = wanted if len(exprs) == 1 else f"tuple[{wanted}]"
                self.fail(
                    ParserTypeError,
                    f"{label} returns {len(exprs)} value(s) but declares no return type",
                    node,
                    f"declare what it returns: def {name}(...) -> {annotation}:",
                )
            return
        if len(exprs) != len(declared):
            shown = ", ".join(show_type(t) for t in declared) or "nothing"
            self.fail(
                ParserTypeError,
                f"{label} declares {len(declared)} return value(s) but returns {len(exprs)}",
                node,
                f"return exactly the declared values ({shown}), or change the '->' annotation",
            )
        for i, (expected, value, value_node) in enumerate(zip(declared, exprs, nodes)):
            reason = type_mismatch(expected, value.type, isinstance(value, (ir.ConstInt, ir.ConstFloat)))
            if reason is not None:
                what = "the return value" if len(declared) == 1 else f"return value {i}"
                self.fail(
                    ParserTypeError,
                    f"{label} declares {what} as {show_type(expected)} but "
                    f"'{ast.unparse(value_node)}' is {show_type(value.type)} ({reason})",
                    value_node,
                    f"return a {show_type(expected)} here, or change the '->' annotation of '{name}'",
                )

    def stmt_pass(self, node: ast.Pass) -> None:
        return None

    def stmt_break(self, node: ast.Break) -> None:
        self._loop_exit(node, "break")
        self.emit(ir.BreakStmt(self.span(node)))

    def stmt_continue(self, node: ast.Continue) -> None:
        self._loop_exit(node, "continue")
        self.emit(ir.ContinueStmt(self.span(node)))

    def _loop_exit(self, node: ast.stmt, word: str) -> None:
        if not self.loops:
            self.fail(
                ParserSyntaxError,
                f"'{word}' outside of a loop",
                node,
                f"'{word}' belongs inside a pl.range or while loop (a scope body such as pl.at is not a loop)",
            )
        kind = self.loops[-1]
        if kind is not None and kind not in _SCALAR_LOOP_KINDS:
            self.fail(
                ParserSyntaxError,
                f"'{word}' is not supported inside a pl.{kind.name.lower()} loop",
                node,
                f"'{word}' needs the innermost loop to be sequential (pl.range) or a while loop",
            )

    # ----- loops and scopes ------------------------------------------------------------------
    def stmt_for(self, node: ast.For) -> None:
        if node.orelse:
            self.fail(UnsupportedFeatureError, "for ... else is not supported", node.orelse[0], _FOR_ELSE_HINT)
        it = node.iter
        if type(it) is not ast.Call:
            self.fail(
                ParserSyntaxError,
                "a DSL loop iterates over pl.range(...), pl.parallel(...), pl.unroll(...) or pl.while_(...)",
                it,
                "for i in pl.range(n):, or for i, (acc,) in pl.range(n, init_values=(acc0,)):",
            )
        callee = self.eval(it.func)
        try:
            handler = FOR_HANDLERS.get(callee)
        except TypeError:
            handler = None
        if handler is None:
            hint = (
                "use pl.range(...)"
                if callee is builtins.range
                else "loop over pl.range, pl.parallel, pl.unroll, pl.pipeline, pl.while_, pl.spmd or pl.split_aiv"
            )
            self.fail(ParserSyntaxError, f"'{ast.unparse(it.func)}(...)' is not a DSL loop", it, hint)
        handler(self, node, it)

    def stmt_with(self, node: ast.With) -> None:
        if len(node.items) != 1:
            self.fail(
                UnsupportedFeatureError,
                "a with statement takes exactly one scope",
                node,
                "nest the scopes: with pl.spmd(N):\n    with pl.at(level=pl.Level.CORE_GROUP):",
            )
        ctx = node.items[0].context_expr
        if type(ctx) is not ast.Call:
            self.fail(
                ParserSyntaxError,
                "a DSL with statement opens a scope such as pl.at(...)",
                ctx,
                "call the scope: with pl.at(level=pl.Level.CORE_GROUP):, with pl.manual_scope():",
            )
        callee = self.eval(ctx.func)
        try:
            handler = WITH_HANDLERS.get(callee)
        except TypeError:
            handler = None
        if handler is None:
            self.fail(
                UnsupportedFeatureError,
                f"'with {ast.unparse(ctx.func)}(...)' is not a DSL scope",
                ctx,
                "DSL scopes are pl.at, pl.cluster, pl.spmd, pl.scope, pl.manual_scope and pl.split_aiv",
            )
        handler(self, node, ctx)


def _clean_docstring(text: str) -> str:
    import inspect

    return inspect.cleandoc(text)


def _reads_any(expr: ir.Expr, var_ids: set[int]) -> bool:
    """Whether ``expr`` reads one of the variables whose ids are given."""
    stack: list[Any] = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, ir.Var):
            if id(e) in var_ids:
                return True
            continue
        stack.extend(iter_children(e))
    return False
