"""Control flow: SSA ``if`` with ``pl.yield_``, ``pl.range`` / ``pl.parallel`` / ``pl.unroll`` /
``pl.pipeline`` loops with ``init_values``, natural ``while`` and ``pl.while_`` with ``pl.cond``.

A block that ends with ``names = pl.yield_(values)`` binds ``names`` after its ``if`` / loop to
fresh return variables. Loop variables and iter_args are visible only inside their loop.
"""

from __future__ import annotations

import ast
from typing import Any

from pypto import ir
from pypto.ir import DataType, ForKind
from pypto.ir.traversal import iter_children

from .. import constructs
from .core import Block, ParserCore, YieldInfo, describe, make_body
from .diagnostics import ParserError, ParserSyntaxError, ParserTypeError, UnsupportedFeatureError

_INDEX = ir.ScalarType(DataType.INDEX)
_LOOP_KEYWORDS = {
    ForKind.Sequential: ("init_values", "attrs"),
    ForKind.Parallel: ("init_values", "attrs"),
    ForKind.Unroll: ("attrs",),
    ForKind.Pipeline: ("stage", "init_values", "attrs"),
}


class ControlFlowMixin(ParserCore):
    """``if``, ``for`` constructs and ``while``."""

    # ----- if --------------------------------------------------------------------------------
    def stmt_if(self, node: ast.If) -> None:
        cond = self.expr(node.test)
        span = self.span(node)
        then_body, then_block = self.parse_block(node.body, "if")
        else_body: ir.Stmt | None = None
        else_yield: YieldInfo | None = None
        if node.orelse:
            else_body, else_block = self.parse_block(node.orelse, "if")
            else_yield = else_block.yielded
            if else_yield is None and then_block.yielded is not None:
                else_body, else_yield = self._elif_yield(node, then_block.yielded, else_block) or (else_body, None)
        then_yield = then_block.yielded
        if then_yield is None and else_yield is None:
            self.emit(ir.IfStmt(cond, then_body, else_body, [], span))
            return
        if then_yield is None or else_yield is None:
            missing = node.body[-1] if then_yield is None else (node.orelse[-1] if node.orelse else node)
            self.fail(
                ParserSyntaxError,
                "both branches of an if must end with pl.yield_ of the same variables",
                missing,
                "add an else branch ending with the same `name = pl.yield_(...)`",
            )
        if then_yield.names != else_yield.names:
            self.fail(
                ParserSyntaxError,
                f"the branches of an if yield different variables: ({', '.join(then_yield.names)}) "
                f"and ({', '.join(else_yield.names)})",
                else_yield.node,
                f"bind the same names in the same order in both branches: {', '.join(then_yield.names)} = pl.yield_(...)",
            )
        return_vars = self._yield_vars(then_yield, [v.type for v in then_yield.values], span)
        self.emit(ir.IfStmt(cond, then_body, else_body, return_vars, span))
        self._bind_yielded(then_yield.names, return_vars)

    def _elif_yield(self, node: ast.If, then_yield: YieldInfo, else_block: Block) -> tuple[ir.Stmt, YieldInfo] | None:
        """``elif`` sugar: an else branch that is a single yielding ``if`` yields its results."""
        if len(node.orelse) != 1 or type(node.orelse[0]) is not ast.If or not else_block.stmts:
            return None
        inner = else_block.stmts[-1]
        if not isinstance(inner, ir.IfStmt) or [v.name_hint for v in inner.return_vars] != then_yield.names:
            return None
        values: list[ir.Expr] = list(inner.return_vars)
        span = self.span(node.orelse[0])
        stmts = [*else_block.stmts, ir.YieldStmt(values, span)]
        info = YieldInfo(then_yield.names, [None] * len(values), values, node.orelse[0])
        return make_body(stmts, span), info

    def _yield_vars(self, info: YieldInfo, default_types: list[ir.Type], span: ir.Span) -> list[ir.Var]:
        return [
            ir.Var(name, declared if declared is not None else default, span)
            for name, declared, default in zip(info.names, info.types, default_types)
        ]

    def _bind_yielded(self, names: list[str], return_vars: list[ir.Var]) -> None:
        for name, var in zip(names, return_vars):
            if name != "_":
                self.bind(name, var)

    # ----- for loops -------------------------------------------------------------------------
    def range_loop(self, node: ast.For, call: ast.Call, kind: ForKind, construct: str) -> None:
        """``for i[, (a, b)] in pl.range/parallel/unroll/pipeline(...)``."""
        args, kwargs = self.call_arguments(call)
        allowed = _LOOP_KEYWORDS[kind]
        for key in kwargs:
            if key not in allowed:
                self.fail(
                    ParserTypeError,
                    f"pl.{construct} got an unexpected keyword argument '{key}'",
                    call,
                    f"pl.{construct} accepts the keywords {', '.join(allowed)}",
                )
        if not 1 <= len(args) <= 3:
            self.fail(
                ParserTypeError,
                f"pl.{construct} takes 1 to 3 positional arguments (stop | start, stop | start, stop, step), "
                f"got {len(args)}",
                call,
                f"pl.{construct}(n), pl.{construct}(start, stop) or pl.{construct}(start, stop, step)",
            )
        bounds = [self._bound(a, call, construct) for a in args]
        span = self.span(call)
        if len(bounds) == 1:
            start, stop, step = ir.ConstInt(0, DataType.INDEX, span), bounds[0], ir.ConstInt(1, DataType.INDEX, span)
        elif len(bounds) == 2:
            start, stop, step = bounds[0], bounds[1], ir.ConstInt(1, DataType.INDEX, span)
        else:
            start, stop, step = bounds
            if isinstance(step, ir.ConstInt) and step.value == 0:
                self.fail(
                    ParserSyntaxError,
                    f"pl.{construct} step must not be zero",
                    call.args[2] if len(call.args) > 2 else call,
                    f"a loop counts up with a positive step, down with a negative one: pl.{construct}(0, n, 2)",
                )
        attrs = self._loop_attrs(kwargs, call)
        if kind is ForKind.Pipeline:
            stage = kwargs.get("stage", 1)
            if isinstance(stage, bool) or not isinstance(stage, int) or stage < 1:
                self.fail(
                    ParserTypeError,
                    f"pl.pipeline: stage= must be an int >= 1, got {describe(stage)}",
                    call,
                    "give the number of pipeline stages as an int literal: pl.pipeline(n, stage=2)",
                )
            attrs = {"pipeline_stages": stage, **attrs}
        inits = self._init_values(kwargs, call, construct)
        loop_name, carried_names = self._loop_target(node.target, inits, construct)
        loop_var = ir.Var(loop_name, _INDEX, self.span(node.target))
        iter_args = [ir.IterArg(n, v.type, v, self.span(node.target)) for n, v in zip(carried_names, inits or [])]
        if kind is ForKind.Unroll:
            self._check_unroll_bounds(args, bounds, call)
            self.unroll_vars.add(loop_var)
        try:
            body, block = self._loop_body(
                node.body, [loop_name, *carried_names], [loop_var, *iter_args], kind, len(inits) if inits else None
            )
        finally:
            self.unroll_vars.discard(loop_var)
        return_vars = self._loop_results(block, iter_args, inits is not None)
        try:
            loop = ir.ForStmt(loop_var, start, stop, step, iter_args, body, return_vars, self.span(node), kind, attrs)
        except (TypeError, ValueError) as err:  # a reserved loop attr with a bad value, or another node's key
            self.fail(
                ParserTypeError,
                str(err),
                call,
                'fix or remove the loop attrs key named above: a loop reserves "pipeline_stages" (an int >= 1, '
                'set by pl.pipeline(stage=N)) and "iter_arg_rebind_<i>" / "iter_arg_array_size_<i>"',
            )
        self.emit(loop)
        if block.yielded is not None:
            self._bind_yielded(block.yielded.names, return_vars)

    def _check_unroll_bounds(self, args: list[Any], bounds: list[ir.Expr], call: ast.Call) -> None:
        """A pl.unroll bound must be a constant by the time UnrollLoops runs: it may read only the
        loop variables of enclosing pl.unroll loops (and, in an Inline function, its parameters,
        which InlineFunctions may replace by constant arguments)."""
        if self.state.func_type is ir.FunctionType.Inline:
            return
        names = ("stop",) if len(bounds) == 1 else ("start", "stop", "step")
        for name, arg, bound in zip(names, args, bounds):
            var = _first_var_outside(bound, self.unroll_vars)
            if var is not None:
                self.fail(
                    ParserTypeError,
                    f"pl.unroll needs a constant {name}, but it reads the variable '{var.name_hint}'",
                    call,
                    "give pl.unroll int literals or closure ints (a loop over a runtime bound is pl.range)",
                )

    def _bound(self, value: Any, call: ast.Call, construct: str) -> ir.Expr:
        expr = self.to_expr(value, call)
        t = expr.type
        if not (isinstance(t, ir.ScalarType) and t.dtype.is_int()):
            self.fail(
                ParserTypeError,
                f"pl.{construct} bounds must be integer scalars, got {describe(expr)}",
                call,
                "use int literals, closure ints or INDEX / INT scalars; for a tensor extent use "
                "pl.tensor.dim(t, axis)",
            )
        return expr

    def _loop_attrs(self, kwargs: dict[str, Any], call: ast.Call) -> dict[str, Any]:
        attrs = kwargs.get("attrs", {})
        if not isinstance(attrs, dict):
            self.fail(
                ParserTypeError,
                f"attrs= must be a dict, got {describe(attrs)}",
                call,
                'write the loop attrs as a dict literal with string keys: attrs={"key": value}',
            )
        return dict(attrs)

    def _init_values(self, kwargs: dict[str, Any], call: ast.Call, construct: str) -> list[ir.Expr] | None:
        if "init_values" not in kwargs:
            return None
        values = kwargs["init_values"]
        if not isinstance(values, (tuple, list)):
            self.fail(
                ParserTypeError,
                f"pl.{construct}: init_values= must be a tuple such as (x,), got {describe(values)}",
                call,
                "a single carried value needs the trailing comma: init_values=(x0,)",
            )
        return [self.to_expr(v, call) for v in values]

    def _loop_target(self, target: ast.expr, inits: list[ir.Expr] | None, construct: str) -> tuple[str, list[str]]:
        """The loop variable name and the iter_arg names of ``for i, (a, b) in ...``."""
        if inits is None:
            if type(target) is not ast.Name:
                self.fail(
                    ParserSyntaxError,
                    f"a pl.{construct} loop without init_values binds one name: for i in ...",
                    target,
                    f"to carry values write for i, (a,) in pl.{construct}(..., init_values=(a0,))",
                )
            return target.id, []
        shape_hint = f"for i, (a, b) in pl.{construct}(..., init_values=(a0, b0))"
        if type(target) is not ast.Tuple or len(target.elts) != 2 or type(target.elts[0]) is not ast.Name:
            self.fail(ParserSyntaxError, "a loop with init_values binds a loop variable and a tuple", target, shape_hint)
        carried = target.elts[1]
        if type(carried) not in (ast.Tuple, ast.List) or any(type(e) is not ast.Name for e in carried.elts):
            self.fail(ParserSyntaxError, "the loop-carried values are a tuple of names, e.g. (acc,)", carried, shape_hint)
        names = [e.id for e in carried.elts]
        if len(names) != len(inits):
            self.fail(
                ParserTypeError,
                f"{len(names)} loop-carried name(s) but {len(inits)} init value(s)",
                carried,
                "name one carried value per init value: for i, (a, b) in pl.range(n, init_values=(a0, b0))",
            )
        return target.elts[0].id, names

    def _loop_body(
        self, body: list[ast.stmt], names: list[str], values: list[ir.Var], kind: ForKind | None, carried: int | None
    ) -> tuple[ir.Stmt, Block]:
        """Parse a loop body with ``names`` bound to the loop variable / iter_args only inside it.

        A body ending in ``pl.yield_`` is in SSA form: the binders are its own variables. In a body
        without one (pre-SSA form) re-assigning a binder re-defines it, for ConvertToSSA to carry.
        """
        saved = {n: self.vars.get(n) for n in names}
        for n, v in zip(names, values):
            self.vars[n] = v
            self.homes[id(v)] = self.block.scope()
        own = tuple(values) if self._ends_in_yield(body) else ()
        self.loops.append(kind)
        try:
            return self.parse_block(body, "while" if kind is None else "for", carried, tuple(names), own)
        finally:
            self.loops.pop()
            for n, v in saved.items():
                if v is None:
                    self.vars.pop(n, None)
                else:
                    self.vars[n] = v

    def _loop_results(self, block: Block, iter_args: list[ir.IterArg], carried: bool) -> list[ir.Var]:
        info = block.yielded
        if info is None:
            return []  # pre-SSA form: ConvertToSSA adds the yield and the results
        names = info.names if info.names else [a.name_hint for a in iter_args]
        info.names = names
        return self._yield_vars(info, [a.type for a in iter_args], self.span(info.node))

    # ----- while -----------------------------------------------------------------------------
    def stmt_while(self, node: ast.While) -> None:
        if node.orelse:
            self.fail(
                UnsupportedFeatureError,
                "while ... else is not supported",
                node.orelse[0],
                "move the else statements after the loop; if the loop breaks, record that in a variable and test it",
            )
        self.loops.append(None)
        try:
            cond = self.expr(node.test)
        finally:
            self.loops.pop()
        body, _ = self._loop_body(node.body, [], [], None, None)
        self.emit(ir.WhileStmt(cond, [], body, [], self.span(node)))

    def while_loop(self, node: ast.For, call: ast.Call) -> None:
        """``for (x,) in pl.while_(init_values=(x0,)):`` with ``pl.cond(...)`` first."""
        args, kwargs = self.call_arguments(call)
        if args or set(kwargs) != {"init_values"}:
            self.fail(
                ParserTypeError,
                "pl.while_ takes only init_values=(...)",
                call,
                "for (x,) in pl.while_(init_values=(x0,)):",
            )
        inits = self._init_values(kwargs, call, "while_") or []
        target = node.target
        elts = target.elts if type(target) in (ast.Tuple, ast.List) else [target]
        if any(type(e) is not ast.Name for e in elts):
            self.fail(
                ParserSyntaxError,
                "a pl.while_ loop binds a tuple of names: for (x,) in pl.while_(...)",
                target,
                "name each carried value: for (x, y) in pl.while_(init_values=(x0, y0)):",
            )
        names = [e.id for e in elts]
        if len(names) != len(inits):
            self.fail(
                ParserTypeError,
                f"{len(names)} loop-carried name(s) but {len(inits)} init value(s)",
                target,
                "name one carried value per init value: for (x, y) in pl.while_(init_values=(x0, y0)):",
            )
        if not node.body or not self._is_cond(node.body[0]):
            first = node.body[0] if node.body else node
            self.fail(
                ParserSyntaxError,
                "the first statement of a pl.while_ loop must be pl.cond(<condition>)",
                first,
                "for (x,) in pl.while_(init_values=(x0,)):\n    pl.cond(x < n)\n    ...",
            )
        span = self.span(target)
        iter_args = [ir.IterArg(n, v.type, v, span) for n, v in zip(names, inits)]
        cond_call = node.body[0].value  # type: ignore[attr-defined]
        saved = {n: self.vars.get(n) for n in names}
        for n, v in zip(names, iter_args):
            self.vars[n] = v
        try:
            if len(cond_call.args) != 1 or cond_call.keywords:
                self.fail(
                    ParserTypeError,
                    "pl.cond takes exactly one condition",
                    cond_call,
                    "combine conditions with and / or: pl.cond(x < n and y > 0)",
                )
            cond = self.expr(cond_call.args[0])
        finally:
            for n, v in saved.items():
                if v is None:
                    self.vars.pop(n, None)
                else:
                    self.vars[n] = v
        body, block = self._loop_body(node.body[1:], names, iter_args, None, len(inits))
        return_vars = self._loop_results(block, iter_args, True)
        self.emit(ir.WhileStmt(cond, iter_args, body, return_vars, self.span(node)))
        if block.yielded is not None:
            self._bind_yielded(block.yielded.names, return_vars)

    def _ends_in_yield(self, body: list[ast.stmt]) -> bool:
        """Whether ``body`` ends in ``pl.yield_`` (or a Python ``yield``), read before parsing it."""
        last = body[-1] if body else None
        if type(last) not in (ast.Assign, ast.AnnAssign, ast.Expr):
            return False
        value = last.value  # type: ignore[union-attr]
        if type(value) is ast.Yield:
            return True
        if type(value) is not ast.Call:
            return False
        try:
            return self.eval(value.func) is constructs.yield_
        except ParserError:  # reported where the statement is parsed
            return False

    def _is_cond(self, stmt: ast.stmt) -> bool:
        if type(stmt) is not ast.Expr or type(stmt.value) is not ast.Call:
            return False
        return self.eval(stmt.value.func) is constructs.cond


def _first_var_outside(expr: ir.Expr, allowed: set[ir.Var]) -> ir.Var | None:
    """The first variable ``expr`` reads that is not in ``allowed``, or None."""
    stack: list[Any] = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, ir.Var):
            if e not in allowed:
                return e
            continue
        stack.extend(iter_children(e))
    return None
