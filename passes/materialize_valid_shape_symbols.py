"""MaterializeValidShapeSymbols: a dynamic valid extent of a called function's tensor parameter becomes a
scalar parameter, passed the caller's extent at each call (docs/passes.md#materializevalidshapesymbols)."""

from __future__ import annotations

from dataclasses import dataclass

from pypto.analysis import expr_vars, function_index
from pypto.languages.outlined import outlined

from pypto.ir.datatype import DataType
from pypto.ir.enums import ArgDirection, ParamDirection
from pypto.ir.expr import Call, ConstInt, Expr, GlobalVar, Submit, Var
from pypto.ir.function import Function, Program
from pypto.ir.node import replace
from pypto.ir.stmt import AssignStmt
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TensorType

from pypto.transform.base import ProgramPass
from pypto.transform.errors import PassError
from pypto.transform.rewrite import Rewrite, on


@dataclass(frozen=True)
class _Symbol:
    """A valid extent to materialize: the symbol, and the tensor parameter and axis whose extent it is."""

    var: Var
    param: int
    axis: int


def _symbols(func: Function, pass_name: str) -> list[_Symbol]:
    """The variables read only by ``func``'s tensor parameters' valid shapes: each is a whole extent."""
    valid = [(index, p, shape) for index, p in enumerate(func.params) if (shape := _valid_shape(p))]
    if not valid:
        return []  # no parameter with a valid shape (most functions): the sets below are not needed
    params = set(func.params)
    dims = {v for p in func.params if isinstance(p.type, TensorType) for d in p.type.shape for v in expr_vars(d)}
    found: dict[Var, _Symbol] = {}
    for index, p, shape in valid:
        for axis, extent in enumerate(shape):
            unknown = [v for v in expr_vars(extent) if v not in params and v not in dims]
            if not unknown:
                continue
            if not isinstance(extent, Var):
                raise PassError(
                    pass_name,
                    f"'{func.name}' takes '{p.name_hint}' whose valid extent {extent.as_python()} (axis {axis}) is "
                    f"computed from {unknown[0].name_hint}: a caller passes a valid extent, not what it is computed "
                    "from",
                    p.span,
                    f"name the extent itself, e.g. valid_shape=[{unknown[0].name_hint}, ...], and compute its value "
                    "in the caller",
                )
            found.setdefault(extent, _Symbol(extent, index, axis))
    return list(found.values())


def _valid_shape(param: Var) -> list[Expr]:
    """The valid shape of a tensor parameter's view (empty: none)."""
    view = param.type.tensor_view if isinstance(param.type, TensorType) else None
    return view.valid_shape if view is not None else []


class _Callers(Rewrite):
    """One function: its symbols become leading parameters, and calls to functions that gained
    parameters pass them their arguments' valid extents first."""

    types = True

    def __init__(self, added: dict[str, list[_Symbol]]) -> None:
        self.added = added

    def convert(self, func: Function, program: Program) -> Function:
        self.start(func, program)
        new = [Var(s.var.name_hint, ScalarType(DataType.INDEX), s.var.span) for s in self.added.get(func.name, [])]
        for s, p in zip(self.added.get(func.name, []), new):
            self.bind(s.var, p)
        out = self.function(func)
        if not new:
            return out
        return replace(out, params=[*new, *out.params],
                       param_directions=[ParamDirection.In] * len(new) + list(out.param_directions))

    @on(Call, Submit)
    def _call(self, node: Call | Submit) -> Expr:
        symbols = self.added.get(node.op.name) if isinstance(node.op, GlobalVar) else None
        if not symbols:
            return node
        extents = [self._atom(self._extent(node.args[s.param], s.axis), s.var) for s in symbols]
        attrs = dict(node.attrs)
        if attrs.get("arg_directions") is not None:
            attrs["arg_directions"] = [ArgDirection.Scalar] * len(extents) + list(attrs["arg_directions"])
        if attrs.get("arg_direction_overrides") is not None:
            attrs["arg_direction_overrides"] = [i + len(extents) for i in attrs["arg_direction_overrides"]]
        return replace(node, args=[*extents, *node.args], attrs=attrs)

    @staticmethod
    def _extent(arg: Expr, axis: int) -> Expr:
        """The valid extent of the argument along ``axis``: its view's, else its shape's."""
        t = arg.type
        view = t.tensor_view
        return (view.valid_shape if view is not None and view.valid_shape else t.shape)[axis]

    def _atom(self, value: Expr, symbol: Var) -> Expr:
        """``value`` as a call argument: a variable or constant, else computed just before the call."""
        if isinstance(value, (Var, ConstInt)):
            return value
        name = self.names.name("valid", lambda n: f"{symbol.name_hint}__valid_v{n}")
        var = Var(name, ScalarType(DataType.INDEX), value.span)
        self.emit(AssignStmt(var, value, value.span))
        return var


class MaterializeValidShapeSymbols(ProgramPass):
    """Turn each variable a called function's tensor parameters read only in their valid shapes into a
    leading ``Scalar[INDEX]`` parameter; each call passes the valid extent of its argument there
    (its view's ``valid_shape``, else its shape). Nothing else could give the callee that value: the
    kernels' C++ takes a tile's valid extents as parameters.

    before:  def k(self, x: pl.Tensor[[32, 64], pl.FP32, pl.TensorView(valid_shape=[M, 64], ...)], ...)
             # caller: xs = pl.slice(x, [32, 64], [i, 0], valid_shape=[rows, 64]); y = self.k(xs, ...)
    after:   def k(self, M: pl.Scalar[pl.INDEX], x: pl.Tensor[[32, 64], pl.FP32,
                       pl.TensorView(valid_shape=[M, 64], ...)], ...)
             # caller: y = self.k(rows, xs, ...)

    A valid extent computed from such a variable (``valid_shape=[M + 1, 64]``) is an error: the caller
    passes an extent, not what it is computed from. So is such a variable in a function nothing calls
    (the entry): the runtime passes it arrays, not valid regions.
    """

    source = outlined

    def run(self, program: Program) -> Program:
        funcs = {f.name: f for f in program.functions.values()}
        added = {name: found for name, f in funcs.items() if (found := _symbols(f, self.name))}
        if not added:
            return program  # no valid extent to materialize (most programs): no call is looked at
        called = {c.op.name for f in program.functions.values()
                  for c in function_index(f).of(Call, Submit) if isinstance(c.op, GlobalVar)}
        for name, found in added.items():
            if name not in called:
                p = funcs[name].params[found[0].param]
                raise PassError(
                    self.name,
                    f"'{name}' takes '{p.name_hint}' whose valid extent {found[0].var.name_hint} no call gives: "
                    "it is called by the runtime, which passes arrays, not valid regions",
                    p.span,
                    f"take the extent as a scalar parameter ({found[0].var.name_hint.lower()}: pl.Scalar[pl.INDEX]) "
                    f"and narrow a slice of '{p.name_hint}' with it: pl.slice(..., valid_shape=[...])",
                )
        new = []
        for func in funcs.values():
            calls = any(isinstance(c.op, GlobalVar) and c.op.name in added
                        for c in function_index(func).of(Call, Submit))
            new.append(_Callers(added).convert(func, program) if calls or func.name in added else func)
        return Program(new, program.name, program.span)
