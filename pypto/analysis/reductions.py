"""Reduction chains: how many terms the sums feeding each output of a program add up.

A value computed by a sum differs between two correct implementations by the rounding of its
partial sums, which grows with the number of terms summed (docs/cli.md#tolerances). This analysis
gives every value a :class:`Chain`: ``terms``, how many terms it sums when every sum feeding it is
expanded (1 for a value no sum made), whose rounding it carries as an absolute error; ``relative``,
the length of the sums it carries as a relative error, having passed a scaling op since; and
``dtypes``, the dtypes those sums round to.

* A reducing op (``REDUCED_TERMS``: matmuls over K, row/column sums and products over the reduced
  extent) sums that many products of its factor operands, plus its ``ADDENDS`` operands
  (``matmul_acc``'s accumulator, a bias): ``matmul(a, b)`` over K sums ``K * max(a, b)`` terms, so
  an accumulator carried through T trips of ``matmul_acc`` sums T times K terms.
* An elementwise sum (``SUMS``: add, sub, their scalar and broadcast forms) sums its operands'
  terms.
* A scaling op (``SCALES``: mul, div, exp, sqrt, ...) turns its operands' sums into a relative
  error: the result sums one term and carries the longest operand chain as ``relative``. A sum of
  N terms of unit magnitude and either sign is about ``sqrt(N)`` large with an absolute error up
  to ``N * e``, a relative one of ``sqrt(N) * e``; after ``x / row_sum(x)`` the absolute error
  shrinks with the result, the relative one stays.
* An exponential (``EXPONENTIALS``: exp, expdif) also turns its operand's absolute error into a
  relative one of the same size, ``exp(c + d) = exp(c) * (1 + d)``: the result carries the
  operand's ``terms`` as ``amplified``, whose error ``N * e`` is relative from then on.
* Every other op (moves, casts, views, max/min, selects, ...) passes on the largest of its
  operands' chains.
* An op that writes an argument in place (``tile.store``, ``tensor.assemble``, ...) raises the
  written buffer's chain to the result's. A call of a program function runs the callee on the
  argument chains: its sums multiply the chains of the arguments they read, and a written argument
  keeps the longer of its old chain and the callee's (a store overwrites, ``c = c + x`` in an InOut
  adds), so a loop of calls that overwrite their output stays flat.
* Loops run abstractly: a loop with a constant trip count (or one computable from ``values``)
  runs its body that many times, with linear growth extrapolated once two trips grow alike; a
  loop whose trip count is unknown counts one trip, an extent that is unknown counts one term.
  Both branches of an ``if`` count.

The program may be of any dialect (surface programs re-assign the same variables; SSA programs
carry values through iter_args and yields).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pypto.ir import op_registry
from pypto.ir import expr as E
from pypto.ir import stmt as S
from pypto.ir.datatype import DataType
from pypto.ir.enums import ParamDirection
from pypto.ir.function import Function, Program
from pypto.ir.op_registry import Effect
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TensorType, TileType

from .callgraph import callee
from .roots import Roots
from .pipes import cube_ops


@dataclass(frozen=True)
class Chain:
    """The terms a value sums (1 for a value no sum made), rounded to each of ``dtypes`` on the way.

    ``terms`` is the sum whose rounding the value carries as an absolute error, ``relative`` the
    longest sum it carries as a relative error, past a scaling op, and ``amplified`` the longest
    sum whose absolute error an exponential made relative.
    """

    terms: int = 1
    dtypes: frozenset[DataType] = frozenset()
    relative: int = 1
    amplified: int = 1

    @property
    def length(self) -> int:
        """The longest sum feeding the value, absolute or relative."""
        return max(self.terms, self.relative)

    def join(self, other: Chain) -> Chain:
        """The longer chain, with the accumulation dtypes of both."""
        return Chain(max(self.terms, other.terms), self.dtypes | other.dtypes, max(self.relative, other.relative),
                     max(self.amplified, other.amplified))

    def rounded(self, dtype: DataType) -> Chain:
        """This chain rounded to ``dtype`` as well."""
        return Chain(self.terms, self.dtypes | {dtype}, self.relative, self.amplified)

    def scaled(self) -> Chain:
        """This chain past a scaling op: one term, its sums carried as a relative error."""
        return Chain(1, self.dtypes, self.length, self.amplified)

    def exponentiated(self) -> Chain:
        """This chain past an exponential: scaled, its absolute error now a relative error as large."""
        return Chain(1, self.dtypes, self.length, max(self.amplified, self.terms))


def _dim(t: object, axis: int) -> E.Expr | None:
    shape = getattr(t, "shape", None)
    return shape[axis] if shape is not None and len(shape) >= -axis else None


def _contracted(call: E.Call) -> E.Expr | None:
    """K of a matrix product: the last extent of ``lhs`` (the second last with ``a_trans``)."""
    names = [p.name for p in op_registry.get_entry(call.op.name).params]  # a REDUCED_TERMS op: registered
    return _dim(call.args[names.index("lhs")].type, -2 if call.kwargs.get("a_trans") else -1)


def _reduced(axis: int) -> Callable[[E.Call], E.Expr | None]:
    return lambda call: _dim(call.args[0].type, axis)


# op name -> the number of products or elements one call sums (an extent of an operand). The
# operands named in ADDENDS are added to that sum; the others are its factors.
REDUCED_TERMS: dict[str, Callable[[E.Call], E.Expr | None]] = {
    **{f"tensor.{name}": _contracted for name in ("matmul", "matmul_acc")},
    **dict.fromkeys(cube_ops(), _contracted),
    **{f"{level}.row_{kind}": _reduced(-1) for level in ("tensor", "tile") for kind in ("sum", "prod")},
    **{f"{level}.col_{kind}": _reduced(-2) for level in ("tensor", "tile") for kind in ("sum", "prod")},
}
ADDENDS = frozenset({"acc", "bias"})
# Elementwise ops whose result is the sum (or difference) of their operands.
SUMS = frozenset(
    f"{level}.{name}"
    for level in ("tensor", "tile")
    for name in ("add", "adds", "sub", "subs", "part_add", "row_expand_add", "row_expand_sub", "col_expand_add",
                 "col_expand_sub")
) | {"tile.addc", "tile.addsc", "tile.subc", "tile.subsc"}
# Elementwise ops that scale their operands (products, quotients, transcendental functions): an
# absolute error of an operand becomes a relative error of the result.
SCALES = frozenset(
    f"{level}.{name}"
    for level in ("tensor", "tile")
    for name in ("mul", "muls", "div", "divs", "part_mul", "exp", "log", "sqrt", "rsqrt", "recip", "sin", "cos",
                 "row_expand_mul", "row_expand_div", "row_expand_expdif", "col_expand_mul", "col_expand_div",
                 "col_expand_expdif")
)
# The scaling ops of the form exp(x): an absolute error of x becomes a relative error of the result.
EXPONENTIALS = frozenset(f"{level}.{name}" for level in ("tensor", "tile")
                         for name in ("exp", "row_expand_expdif", "col_expand_expdif"))


def output_chains(program: Program, entry: Function, values: Mapping[str, int] | None = None) -> dict[str, Chain]:
    """The chain feeding each Out/InOut tensor parameter of ``entry``, by parameter name.

    ``values`` gives scalar parameters and dynamic dimensions of ``entry`` by name, so loop bounds
    that depend on them count their true trips.
    """
    env = {p: value for p in entry.params if (value := (values or {}).get(p.name_hint)) is not None}
    chains = _Run(program, frozenset({entry.name})).function(entry, [Chain()] * len(entry.params), env)
    return {p.name_hint: chain for p, d, chain in zip(entry.params, entry.param_directions, chains)
            if d is not ParamDirection.In and isinstance(p.type, TensorType)}


_WRITES = (Effect.WRITE, Effect.READ_WRITE)
_MAX_TRIPS = 1 << 20  # beyond this an abstract loop stops growing: no program accumulates so long


class _Run:
    """One abstract execution: variable -> chain, statements in program order."""

    def __init__(self, program: Program, calling: frozenset[str]) -> None:
        self.program = program
        self.calling = calling  # the functions being run, callers of this one: a recursive call adds nothing
        self.chains: dict[E.Var, Chain] = {}
        self.roots: dict[E.Var, E.Var] = {}
        self.ints: dict[E.Var, int] = {}
        self.yielded: list[Chain] = []

    def function(self, func: Function, args: list[Chain], ints: Mapping[E.Var, int]) -> list[Chain]:
        self.chains = dict(zip(func.params, args))
        self.ints = dict(ints)
        self.stmt(func.body)
        return [self.read(p) for p in func.params]

    # ----- values ---------------------------------------------------------------------------------

    def root(self, var: E.Var) -> E.Var:
        while var in self.roots:
            var = self.roots[var]
        return var

    def read(self, var: E.Var) -> Chain:
        chain = self.chains.get(var)
        return chain if chain is not None else self.chains.get(self.root(var), Chain())

    def write(self, var: E.Var, chain: Chain) -> None:
        root = self.root(var)
        self.chains[root] = self.chains.get(root, Chain()).join(chain)

    def expr(self, e: E.Expr) -> Chain:
        if isinstance(e, E.Var):
            return self.read(e)
        if isinstance(e, (E.Call, E.Submit)):
            return self.call(e)
        chain = Chain()
        for child in _operands(e):
            chain = chain.join(self.expr(child))
        return chain

    def call(self, call: E.Call | E.Submit) -> Chain:
        chains = [self.expr(arg) for arg in call.args]
        joined = Chain()
        for chain in chains:
            joined = joined.join(chain)
        if isinstance(call.op, E.GlobalVar):
            return self.function_call(call, chains, joined)
        entry = op_registry.lookup(call.op.name)
        if entry is None:
            return joined
        chain = self.op_chain(call, entry, chains, joined)
        for arg, param in zip(call.args, entry.params):
            if isinstance(arg, E.Var) and param.effect in _WRITES:
                self.write(arg, chain)
        return chain

    def op_chain(self, call: E.Call | E.Submit, entry: op_registry.OpEntry, chains: list[Chain],
                 joined: Chain) -> Chain:
        """The chain of an op's result from its operands' chains."""
        name, result = call.op.name, call.type
        if not isinstance(result, (TensorType, TileType)):
            return joined
        values = [(param.name, chain) for param, arg, chain in zip(entry.params, call.args, chains)
                  if isinstance(arg.type, (TensorType, TileType, ScalarType))]
        terms = REDUCED_TERMS.get(name)
        if terms is not None:
            factors = max((c.length for n, c in values if n not in ADDENDS), default=1)
            length = (self.int_value(terms(call)) or 1) * factors + sum(c.terms for n, c in values if n in ADDENDS)
            return Chain(length, joined.dtypes, joined.relative, joined.amplified).rounded(result.dtype)
        if name in SUMS:
            summed = sum(c.terms for _, c in values)
            return Chain(summed, joined.dtypes, joined.relative, joined.amplified).rounded(result.dtype)
        if name in EXPONENTIALS:
            return joined.exponentiated()
        if name in SCALES:
            return joined.scaled()
        return joined

    def function_call(self, call: E.Call | E.Submit, chains: list[Chain], joined: Chain) -> Chain:
        """Run the callee on the argument chains; its written parameters' chains go to their arguments."""
        target = callee(self.program, call)
        if target is None or target.name in self.calling:
            return joined
        ints = {p: value for p, arg in zip(target.params, call.args) if (value := self.int_value(arg)) is not None}
        ends = _Run(self.program, self.calling | {target.name}).function(target, chains, ints)
        result = Chain()
        for arg, direction, end in zip(call.args, target.param_directions, ends):
            if direction is not ParamDirection.In:
                if isinstance(arg, E.Var):
                    self.write(arg, end)
                result = result.join(end)
        return result

    def int_value(self, e: E.Expr | None) -> int | None:
        """``e`` as an integer when it is a constant or computable from known scalars."""
        if isinstance(e, E.ConstInt):
            return e.value
        if isinstance(e, E.Var):
            return self.ints.get(e)
        if isinstance(e, (E.Add, E.Sub, E.Mul, E.FloorDiv)):
            a, b = self.int_value(e.left), self.int_value(e.right)
            if a is None or b is None or (isinstance(e, E.FloorDiv) and b == 0):
                return None
            return {E.Add: a + b, E.Sub: a - b, E.Mul: a * b}.get(type(e), a // b if b else 0)
        return None

    # ----- statements -----------------------------------------------------------------------------

    def stmt(self, s: S.Stmt) -> None:
        if isinstance(s, S.SeqStmts):
            for inner in s.stmts:
                self.stmt(inner)
        elif isinstance(s, S.AssignStmt):
            self.assign(s)
        elif isinstance(s, S.EvalStmt):
            self.expr(s.expr)
        elif isinstance(s, S.ScopeStmt):
            self.stmt(s.body)
        elif isinstance(s, S.IfStmt):
            self.branches(s)
        elif isinstance(s, S.ForStmt):
            start, stop, step = (self.int_value(b) for b in (s.start, s.stop, s.step))
            known = None not in (start, stop, step) and step > 0  # type: ignore[operator]
            if known:
                self.loop(s, max(0, -(-(stop - start) // step)), (start, step))  # type: ignore[operator]
            else:
                self.loop(s, 1, None)
        elif isinstance(s, S.WhileStmt):
            self.loop(s, 1, None)
        elif isinstance(s, (S.YieldStmt, S.ReturnStmt)):
            self.yielded = [self.expr(v) for v in s.value]

    def assign(self, s: S.AssignStmt) -> None:
        chain = self.expr(s.value)
        self.chains[s.var] = chain
        value = s.value
        if isinstance(value, E.Var):
            self.alias(s.var, value)
        elif isinstance(value, (E.Call, E.Submit)) and not isinstance(value.op, E.GlobalVar):
            entry = op_registry.lookup(value.op.name)
            written = [a for a, p in zip(value.args, entry.params if entry else []) if isinstance(a, E.Var)
                       and p.effect in _WRITES]
            if written:
                self.alias(s.var, written[0])
        elif isinstance(value, (E.Call, E.Submit)):
            arg = Roots(s, self.program).call_alias(value, 0)
            if arg is not None:  # out_1 = self.k(x, out): later calls writing out_1 write out's buffer
                self.alias(s.var, arg)
        value_int = self.int_value(value)
        if value_int is not None:
            self.ints[s.var] = value_int

    def alias(self, var: E.Var, of: E.Var) -> None:
        root = self.root(of)
        if root is not var:
            self.roots[var] = root

    def branches(self, s: S.IfStmt) -> None:
        before = dict(self.chains)
        self.yielded = []
        self.stmt(s.then_body)
        then_chains, then_yields = self.chains, self.yielded
        self.chains, self.yielded = dict(before), []
        if s.else_body is not None:
            self.stmt(s.else_body)
        for var, chain in then_chains.items():
            self.chains[var] = self.chains.get(var, Chain()).join(chain)
        yields = [a.join(b) for a, b in zip(then_yields, self.yielded)] or then_yields or self.yielded
        for var, chain in zip(s.return_vars, yields):
            self.chains[var] = chain

    def loop(self, s: S.ForStmt | S.WhileStmt, trips: int, counting: tuple[int, int] | None) -> None:
        """Run ``s`` for ``trips`` trips; ``counting`` is a ``for`` loop's (start, step) when known."""
        for it in s.iter_args:
            self.chains[it] = self.expr(it.initValue)
            if isinstance(it.initValue, E.Var):
                self.alias(it, it.initValue)
        last: dict[E.Var, tuple[int, int]] | None = None
        done = 0
        while done < min(trips, _MAX_TRIPS):
            before = dict(self.chains)
            self.yielded = []
            if counting is not None and isinstance(s, S.ForStmt):
                self.ints[s.loop_var] = counting[0] + done * counting[1]
            self.stmt(s.body)
            for it, chain in zip(s.iter_args, self.yielded):
                self.chains[it] = chain
            done += 1
            growth = {v: (c.terms - was.terms, c.relative - was.relative) for v, c in self.chains.items()
                      if (c.terms, c.relative) != ((was := before.get(v, Chain())).terms, was.relative)}
            if not growth:
                break
            if growth == last:  # grows alike every trip: the remaining trips add the same
                left = min(trips, _MAX_TRIPS) - done
                for v, (d, r) in growth.items():
                    c = self.chains[v]
                    self.chains[v] = Chain(c.terms + d * left, c.dtypes, c.relative + r * left)
                break
            last = growth
        for it, rv in zip(s.iter_args, s.return_vars):
            self.chains[rv] = self.read(it)
            self.alias(rv, it)


def _operands(e: E.Expr) -> list[E.Expr]:
    if isinstance(e, E.BinaryExpr):
        return [e.left, e.right]
    if isinstance(e, E.UnaryExpr):
        return [e.operand]
    if isinstance(e, E.MakeTuple):
        return list(e.elements)
    if isinstance(e, E.TupleGetItemExpr):
        return [e.tuple]
    return []
