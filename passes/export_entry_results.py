"""ExportEntryResults: a tensor the entry orchestration creates and returns becomes an Out parameter
the call allocates and returns (docs/passes.md#exportentryresults).

A runtime-created tensor dies with the orchestration's scope, so the caller could never see it.
The entry's attrs say what a call returns: ``results`` (the parameter behind each returned value, in
return order) and ``created_results`` (how many trailing parameters the pass added). A returned
value that no call can give back (an In parameter, a scalar, a view, a tensor whose shape is
computed at run time, one of two tensors chosen by an ``if``, a loop result its iterations rebind to
another tensor) is an error naming it.
"""

from __future__ import annotations

from pypto.languages.invariants import EntryResultsExported
from pypto.languages.memref import memref

from pypto.analysis import function_index
from pypto.analysis.roots import (
    VIEW_OPS,
    computed_in_place,
    final_return,
    is_entry,
    rebinding_loop,
    returned_values,
    written_roots,
)
from pypto.ir import expr as E
from pypto.ir.enums import ParamDirection
from pypto.ir.function import Function, Program
from pypto.ir.stmt import AssignStmt, ReturnStmt
from pypto.ir.types import TensorType

from pypto.transform.errors import PassError
from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import rebuild

_HINT = "take it as a parameter instead: `{name}: pl.Out[pl.Tensor[...]]`, and return that"


class ExportEntryResults(RewritePass):
    """Turn the ``tensor.create`` behind each returned value of the entry orchestration into an Out
    parameter; record in the entry's attrs which parameters a call returns::

        before:  def main(self, a):                      after:  def main(self, a, out: pl.Out[T]):
                     out = pl.tensor.create([16], ...)               out_1 = self.k(a, out)
                     out_1 = self.k(a, out)                          return out_1
                     return out_1                                # attrs created_results=1, results=[1]
    """

    source = memref
    produces = frozenset({EntryResultsExported})

    def run_function(self, func: Function, program: Program) -> Function:
        if not is_entry(func, program):
            return func
        found = final_return(func.body)
        if found is None:
            return func
        creates, results = self._plan(func, program, found)
        if not creates:
            return func  # every returned value is an Out/InOut parameter: the established call form
        run = self._copy()
        run.start(func, program)
        run._added = []
        taken = {p.name_hint for p in func.params}
        run.created = {}
        for create in creates:
            name = _free_name(create.var.name_hint.split("__", 1)[0], taken)
            run.created[create.var] = E.Var(name, create.var.type, create.var.span)
        new = run.function(func)
        params = [*new.params, *run.created.values()]
        directions = [*new.param_directions, *[ParamDirection.Out] * len(creates)]
        attrs = {**new.attrs, "created_results": len(creates), "results": results}
        return rebuild(new, params=params, param_directions=directions, attrs=attrs)

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        param = self.created.get(node.var)
        if param is None:
            return self.children(node)
        self.bind(node.var, param)
        return None

    def _plan(self, func: Function, program: Program, ret: ReturnStmt) -> tuple[list[AssignStmt], list[int]]:
        """The creates to export (in return order) and the parameter index of each returned value."""
        values = returned_values(ret)
        roots = written_roots(func, program)  # tensor.write writes its tensor in place
        defs = {s.var: s for s in function_index(func).of(AssignStmt)}
        index = {p: i for i, p in enumerate(func.params)}
        creates: list[AssignStmt] = []
        results: list[int] = []
        for value in values:
            root = roots.root(value) if isinstance(value, E.Var) else None
            if isinstance(value, E.Var) and rebinding_loop(roots, func, value) is not None:
                raise self._refuse(
                    func,
                    ret,
                    f"'{_name(value)}', a loop result rebound to another tensor in the loop",
                    "have the loop write into the tensor it starts from and yield that "
                    f"(`{_name(value)} = self.kernel(..., {_name(value)})`)",
                )
            if root in index:
                if func.param_directions[index[root]] == ParamDirection.In:
                    raise self._refuse(
                        func,
                        ret,
                        f"its In parameter '{root.name_hint}'",
                        f"the caller already has '{root.name_hint}'; return a tensor "
                        f"'{func.name}' writes (mark the parameter pl.InOut if a kernel writes it)",
                    )
                results.append(index[root])
                continue
            create = defs.get(root) if root is not None else None
            if computed_in_place(create):
                continue  # the compile refuses the op before the passes (this runs on such programs in tests)
            if not isinstance(value.type, TensorType):
                raise self._refuse(
                    func,
                    ret,
                    f"the scalar '{_name(value)}'",
                    "a call returns tensors: have a kernel write the value into a pl.Out tensor",
                )
            if create is not None and _is_op(create.value, *VIEW_OPS):
                raise self._refuse(
                    func,
                    ret,
                    f"'{_name(value)}', a view of another tensor",
                    "return the whole tensor, or take a pl.Out parameter of the view's shape "
                    "and have a kernel write it",
                )
            if create is None or not _is_op(create.value, "tensor.create"):
                raise self._refuse(
                    func,
                    ret,
                    f"'{_name(value)}', whose buffer is neither a parameter nor one tensor '{func.name}' creates",
                    _HINT.format(name=_name(value)),
                )
            self._check_allocatable(func, create)
            if create not in creates:
                creates.append(create)
            results.append(len(func.params) + creates.index(create))
        return creates, results

    def _check_allocatable(self, func: Function, create: AssignStmt) -> None:
        """A call allocates the tensor zero-filled, from a shape its arguments give."""
        init = create.value.kwargs.get("init_value") if isinstance(create.value, E.Call) else None
        if init:
            raise self.error(
                f"'{func.name}' returns '{_name(create.var)}', created with the initial value {init}, "
                "which a call, allocating it zero-filled, cannot give",
                create.span,
                f"take it as a parameter instead: `{_name(create.var)}: pl.InOut[pl.Tensor[...]]`, filled by the "
                "caller, and return that",
            )
        known = {d for p in func.params if isinstance(p.type, TensorType) for d in p.type.shape if isinstance(d, E.Var)}
        t = create.var.type
        assert isinstance(t, TensorType)  # tensor.create makes a tensor
        if not all(isinstance(d, E.ConstInt) or d in known for d in t.shape):
            raise self.error(
                f"'{func.name}' returns '{_name(create.var)}', created with a shape computed at run time, "
                "which a call cannot allocate",
                create.span,
                _HINT.format(name=_name(create.var)),
            )

    def _refuse(self, func: Function, ret: ReturnStmt, what: str, hint: str) -> PassError:
        return self.error(f"'{func.name}' returns {what}, which a call cannot give back", ret.span, hint)


def _is_op(value: E.Expr, *names: str) -> bool:
    return isinstance(value, E.Call) and isinstance(value.op, E.Op) and value.op.name in names


def _name(value: E.Expr) -> str:
    return value.name_hint.split("__", 1)[0] if isinstance(value, E.Var) else "result"


def _free_name(base: str, taken: set[str]) -> str:
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name
