"""ClassifyIterArgCarry: how each Orchestration loop carry is emitted (docs/passes.md#classifyiterargcarry)."""

from __future__ import annotations

from pypto.analysis import function_index
from pypto.analysis.loops import const_trip_count
from pypto.analysis.roots import Roots
from pypto.languages.invariants import CallDirectionsResolved, IterArgCarryClassified, RuntimeScopesMaterialized
from pypto.languages.memref import memref
from pypto.languages.runtime import runtime

from pypto.ir.enums import ForKind, FunctionType
from pypto.ir.expr import Expr, Var
from pypto.ir.function import Function
from pypto.ir.parts import with_attrs
from pypto.ir.stmt import ForStmt, RuntimeScopeStmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.type_base import ScalarType

from pypto.transform.rewrite import Result, RewritePass, on


def _is_task_id(var: Var) -> bool:
    return isinstance(var.type, ScalarType) and var.type.dtype.is_task_id()


class ClassifyIterArgCarry(RewritePass):
    """Stamp ``attrs["iter_arg_rebind_<i>"]`` on every loop with iter_args of an Orchestration function.

    ``False`` when the yielded value is in the iter_arg's alias class (the same buffer: codegen
    uses one name), else ``True`` (codegen declares a mutable carry). Alias edges are those of
    :mod:`pypto.analysis.roots` (assignments, ``tensor.assemble`` -> target, a function call result
    -> the argument the callee returns, a tuple element -> its returned argument, a loop return var
    -> its init); TaskId carries are always rebind. Inside a manual scope, a TaskId carried by a
    ``pl.parallel`` loop also gets ``iter_arg_array_size_<i> = N`` (its constant trip count), and so
    does one a sequential loop threads from such an inner loop::

        before:  for i, (acc,) in pl.range(4, init_values=(c,)):
                     acc2 = self.k(a, acc)             # k returns its Out parameter
                     acc3 = pl.yield_(acc2)
        after:   for i, (acc,) in pl.range(4, init_values=(c,), attrs={"iter_arg_rebind_0": False}):
    """

    source = memref
    target = runtime
    requires = frozenset({CallDirectionsResolved, RuntimeScopesMaterialized})
    produces = frozenset({IterArgCarryClassified})

    def applies(self, func: Function) -> bool:
        # Only loops with iter_args get attributes: without one the function is kept without a walk.
        return func.func_type is FunctionType.Orchestration and any(
            loop.iter_args for loop in function_index(func).of(ForStmt))

    def function(self, func: Function) -> Function:
        self.roots = Roots(func, self.program)
        self.manual = 0
        self.array_sizes: dict[Var, int] = {}  # loop return var -> TaskId array extent
        return super().function(func)

    @on(RuntimeScopeStmt)
    def _scope(self, node: RuntimeScopeStmt) -> Result:
        self.manual += node.manual
        try:
            return self.children(node)
        finally:
            self.manual -= node.manual

    @on(ForStmt)
    def _for(self, node: ForStmt) -> Result:
        new = self.children(node)
        if not node.iter_args:
            return new
        stmts = flatten_to_stmts(node.body)
        yielded: list[Expr] = list(stmts[-1].value) if stmts and isinstance(stmts[-1], YieldStmt) else []
        attrs = dict(new.attrs)
        for i, it in enumerate(node.iter_args):
            value = yielded[i] if i < len(yielded) else None
            attrs[f"iter_arg_rebind_{i}"] = _is_task_id(it) or not (
                isinstance(value, Var) and self.roots.root(value) is self.roots.root(it)
            )
            size = self._array_size(node, it, value)
            if size is not None:
                attrs[f"iter_arg_array_size_{i}"] = size
                self.array_sizes[node.return_vars[i]] = size
        if attrs == dict(new.attrs):
            return new
        # Only the attrs change, validated here as the constructor would: the loop needs no second validation.
        return with_attrs(new, attrs)

    def _array_size(self, node: ForStmt, it: Var, value: Expr | None) -> int | None:
        if not self.manual or not _is_task_id(it):
            return None
        if node.kind is ForKind.Parallel:
            return self._trip_count(node)
        return self.array_sizes.get(value) if isinstance(value, Var) else None

    def _trip_count(self, node: ForStmt) -> int:
        n = const_trip_count(node)
        if n is None:
            raise self.error(
                "a TaskId carried through a pl.parallel loop in a manual scope needs a constant trip count "
                "(hint: give the loop constant bounds, or carry the TaskId through a sequential loop)",
                node.span,
            )
        return max(n, 1)
