"""ConvertTensorToTileOps: kernels compute on tiles; tensor ops become loads, tile ops and stores
(docs/passes.md#converttensortotileops).

The tile form of each tensor op comes from the registry :mod:`.lowerings`.
"""

from __future__ import annotations

from pypto.analysis import call_graph, expr_vars, function_index, op_name
from pypto.analysis.callgraph import function_named
from pypto.analysis.flow import ForwardWalk
from pypto.analysis.gm_alias import GmAliases
from pypto.languages.invariants import (
    AivSplitValid,
    IncoreTileOps,
)
from pypto.languages.outlined import outlined
from pypto.languages.tiled import tiled

from pypto.ir import op_registry
from pypto.ir.enums import FunctionType, MemorySpace, ParamDirection, is_incore_type
from pypto.ir.errors import PyptoError
from pypto.ir.expr import (
    Call,
    Expr,
    GlobalVar,
    IterArg,
    MakeTuple,
    Submit,
    Var,
)
from pypto.ir.affine import affine_form
from pypto.ir.op_registry import format_dims
from pypto.ir.function import Function, Program
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, ForStmt, IfStmt, ReturnStmt, Stmt, WhileStmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.types import TensorType, TileType

from pypto.transform.base import ProgramPass
from pypto.transform.program_rebuild import with_functions
from pypto.transform.errors import PassError
from pypto.transform.rewrite import Result, Rewrite, on
from .accumulators import Accumulators
from .lowerings import LOWERINGS, NO_LOWERING_HINTS, Mat, Vec, index_tuple
from pypto.transform.util import block_of, rebuild

_WRAPPERS = (FunctionType.Group, FunctionType.Spmd)
# Converted although IncoreTileOps allows them on GM tensors: on a tile they become tile ops.
_ELEMENT_ACCESS = frozenset({"tensor.read", "tensor.write"})
# Where the two cube operands of each matmul op sit among its arguments.
_MATMUL = {"tensor.matmul": slice(0, 2), "tensor.matmul_acc": slice(1, 3)}
_STATIC_HINTS = {
    "slice shape": ("give the slice bounds a constant difference, e.g. x[i * 32 : i * 32 + 32]; a tail block "
                    "keeps the static shape and narrows valid_shape, e.g. pl.slice(x, [32, 64], [i, 0], valid_shape=[rows, 64])"),
    "tensor shape": "work on static blocks of a dynamic tensor, e.g. x[i * 32 : i * 32 + 32, :]",
}


def _yielded(body: Stmt | None) -> list[Expr]:
    last = flatten_to_stmts(body)[-1:] if body is not None else []
    return list(last[0].value) if last and isinstance(last[0], YieldStmt) else []


class _TileValues(ForwardWalk[int]):
    """The tensor-typed variables of a kernel that hold tiles after conversion: results of converted
    ops that produce tiles, and the loop/if carries such values flow through (loops to a fixpoint).
    The state is how many were found (they only grow). Records the kernel's GM aliases on the way."""

    loop_passes = None

    def __init__(self) -> None:
        self.found: set[Var] = set()
        self.aliases = GmAliases()

    def add(self, var: Var) -> None:
        if isinstance(var.type, TensorType):
            self.found.add(var)

    def leaf(self, s: Stmt, state: int) -> int:
        if isinstance(s, AssignStmt):
            self.aliases.assign(s)
            name = op_name(s.value) if isinstance(s.value, Call) else None
            low = LOWERINGS.get(name) if name else None
            if low is not None and low.tile_result(s.value, lambda a: a in self.found):
                self.add(s.var)
            elif isinstance(s.value, Var) and s.value in self.found:
                self.add(s.var)
        return len(self.found)

    def enter_loop(self, s: ForStmt | WhileStmt, state: int) -> int:
        self.aliases.loop(s)
        for ia, rv in zip(s.iter_args, s.return_vars):
            if ia.initValue in self.found:
                self.add(ia)
                self.add(rv)
        return len(self.found)

    def back_edge(self, s: ForStmt | WhileStmt, head: int, end: int) -> int:
        for ia, y, rv in zip(s.iter_args, _yielded(s.body), s.return_vars):
            if y in self.found:
                self.add(ia)
                self.add(rv)
        return len(self.found)

    def exit_loop(self, s: ForStmt | WhileStmt, before: int, end: int) -> int:
        return len(self.found)

    def join(self, s: IfStmt, before: int, then_end: int, else_end: int) -> int:
        branches = [_yielded(s.then_body), _yielded(s.else_body)]
        for i, rv in enumerate(s.return_vars):
            if any(len(b) > i and b[i] in self.found for b in branches):
                self.add(rv)
        return len(self.found)


_NO_LOWERING_HINT = "compute it in the orchestration, or express it with other tensor ops"


def _compute(name: str) -> bool:
    """A tensor op with a tile counterpart (what IncoreTileOps forbids in kernels), or one no AIC/AIV
    kernel may hold: converted, or refused here rather than left for codegen to miss."""
    if not name.startswith("tensor."):
        return False
    if op_registry.lookup("tile." + name.split(".", 1)[1]) is not None:
        return True
    entry = op_registry.get_entry(name)
    return not (entry.allowed_in(FunctionType.AIV) or entry.allowed_in(FunctionType.AIC))


def _convertible(func: Function) -> bool:
    return any(
        (_compute(name) or name in LOWERINGS) and name not in _ELEMENT_ACCESS
        and name.startswith("tensor.")  # a tile op alone (a store) leaves the kernel as it is
        for name in function_index(func).op_names  # each op called once
    )


class _Kernel(Rewrite):
    """One InCore-type function converted (the Converter of the lowerings)."""

    def __init__(self, pass_name: str) -> None:
        self.pass_name = pass_name

    def error(self, message: str, span: Span, hint: str | None = None) -> PassError:
        return PassError(self.pass_name, message, span, hint)

    # ---- setup ------------------------------------------------------------------------------------

    def convert(self, func: Function, program: Program) -> tuple[Function, list[TensorType]]:
        """The converted function and the types of the Out parameters it gained."""
        self.start(func, program)
        values = _TileValues()
        values.block(func.body, 0)
        self.tiles = values.found
        self.aliases = values.aliases  # a GM tensor written by an op is its target's buffer
        self.params = set(func.params)
        self.mat_operands = {
            a for c in function_index(func).of(Call) if op_name(c) in _MATMUL
            for a in c.args[_MATMUL[op_name(c)]] if isinstance(a, Var)
        }
        self.accumulators = Accumulators(func)
        # The enclosing loops (None) and if branches (the other branch's body), innermost last.
        self.scopes: list[tuple[ForStmt, None] | tuple[IfStmt, Stmt | None]] = []
        self.entry: dict[tuple[Var, MemorySpace], Var] = {}
        self.entry_stmts: list[Stmt] = []
        self.carries: list[list[bool]] = []
        self.last_yield: list[Expr] = []
        self.outs: list[Var] = []
        self.return_types = list(func.return_types)
        self.stored: dict[Var, Span] = {}
        self.element_written: dict[Var, Span] = {}
        self.loaded: set[Var] = set()
        self.assigning: Var | None = None
        new = self.function(func)
        body = block_of([*self.entry_stmts, *flatten_to_stmts(new.body)], new.body.span)
        directions = [self._direction(p, d) for p, d in zip(func.params, func.param_directions)]
        new = rebuild(
            new,
            params=list(new.params) + self.outs,
            param_directions=directions + [ParamDirection.Out] * len(self.outs),
            return_types=self.return_types,
            body=body,
        )
        return new, [o.type for o in self.outs]

    def _direction(self, param: Var, given: ParamDirection) -> ParamDirection:
        both = set(self.stored) & set(self.element_written)
        if param in both:
            raise self.error(
                f"'{param.name_hint}' is written both by a bulk store and by tensor.write in one kernel; the "
                "two writes are not ordered on the device",
                self.element_written[param],
                "write the element into the tile before storing it",
            )
        if given is not ParamDirection.In or (param not in self.stored and param not in self.element_written):
            return given
        return ParamDirection.InOut if param in self.loaded else ParamDirection.Out

    # ---- the Converter interface -------------------------------------------------------------------

    def is_tile(self, arg: Expr) -> bool:
        return isinstance(arg, Var) and (arg in self.tiles or isinstance(self.expr(arg).type, TileType))

    def value(self, arg: Expr) -> Expr:
        return self.expr(arg)

    def keep(self, call: Call) -> Call:
        return self.expr(call)

    def slice_space(self, call: Call) -> MemorySpace:
        return Mat if self.assigning in self.mat_operands else Vec

    def create_space(self) -> MemorySpace:
        held = self.assigning is not None and self.accumulators.holds(self.assigning)
        return MemorySpace.Acc if held else Vec

    def accumulator(self) -> Expr | None:
        if self.assigning is None or len(self.scopes) < 2 or not isinstance(self.scopes[-1][0], IfStmt):
            return None
        loop = next((s for s, _ in reversed(self.scopes) if isinstance(s, ForStmt)), None)
        other = self.scopes[-1][1]
        for ia in loop.iter_args if loop is not None else []:
            if self.accumulators.carried_into(self.assigning, ia, other):
                return self.expr(ia)
        return None

    def op(self, name: str, args: list[Expr], kwargs: dict, span: Span) -> Call:
        try:
            return op_registry.create_op_call(name, args, kwargs, span)
        except PyptoError as err:
            raise self.error(f"cannot build {name}: {err}", span) from None

    def temp(self, base: str, value: Expr) -> Var:
        var = Var(self.names.name(base, lambda n: base if n == 0 else f"{base}_{n}"), value.type, value.span)
        self.emit(AssignStmt(var, value, value.span))
        return var

    def static_dims(self, dims: Expr, what: str, span: Span) -> MakeTuple:
        values = []
        for d in dims.elements if isinstance(dims, MakeTuple) else []:
            v = affine_form(self.expr(d)).constant_value()
            if v is None:
                raise self.error(
                    f"the {what} {d.as_python()} is not a constant, but a tile needs a static shape",
                    span,
                    _STATIC_HINTS.get(what, _STATIC_HINTS["slice shape"]),
                )
            values.append(v)
        return index_tuple(values, span)

    def tile(self, arg: Expr, space: MemorySpace = Vec) -> Expr:
        value = self.expr(arg)
        if not isinstance(value.type, TensorType):
            return value
        if arg in self.params:
            return self._entry_load(arg, space)
        return self.temp(f"{value.name_hint}_tile" if isinstance(value, Var) else "tile", self._load(value, space))

    def _load(self, tensor: Expr, space: MemorySpace) -> Call:
        t = tensor.type
        shape = self.static_dims(MakeTuple(list(t.shape), tensor.span), "tensor shape", tensor.span)
        zeros = index_tuple([0] * len(t.shape), tensor.span)
        return self.op("tile.load", [tensor, zeros, shape, shape], {"target_memory": space}, tensor.span)

    def _entry_load(self, param: Var, space: MemorySpace) -> Var:
        key = (param, space)
        if key not in self.entry:
            base = f"{param.name_hint}_{'mat' if space is Mat else 'tile'}"
            load = self._load(param, space)
            var = Var(self.names.name(base, lambda n: base if n == 0 else f"{base}_{n}"), load.type, param.span)
            self.entry_stmts.append(AssignStmt(var, load, param.span))
            self.entry[key] = var
            self.loaded.add(param)
        return self.entry[key]

    # ---- statements ---------------------------------------------------------------------------------

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        call = node.value
        name = op_name(call) if isinstance(call, Call) else None
        if name is None or not (name in LOWERINGS or _compute(name)):
            return self._copy(node, self.children(node))
        low = LOWERINGS.get(name)
        if low is None:
            raise self.error(
                f"{name} has no tile lowering, so it cannot run in kernel '{self.func.name}'",
                node.span,
                NO_LOWERING_HINTS.get(name, _NO_LOWERING_HINT),
            )
        self.assigning = node.var
        value = low.lower(self, call)
        self._record_write(value)
        if isinstance(value.type, TileType):
            var = Var(f"{node.var.name_hint}_tile", value.type, node.var.span)
            self.bind(node.var, var)
            return AssignStmt(var, value, node.span)
        if value.type == node.var.type:
            return rebuild(node, value=value)
        var = Var(node.var.name_hint, value.type, node.var.span)
        self.bind(node.var, var)
        return AssignStmt(var, value, node.span)

    def _copy(self, node: AssignStmt, new: Result) -> Result:
        """``d = c`` of a tensor whose value became a tile: ``d`` is a tile variable too."""
        if (isinstance(new, AssignStmt) and isinstance(new.value.type, TileType)
                and not isinstance(node.var.type, TileType)):
            var = Var(f"{node.var.name_hint}_tile", new.value.type, node.var.span)
            self.bind(node.var, var)
            return AssignStmt(var, new.value, node.span)
        return new

    def _record_write(self, value: Expr) -> None:
        name = op_name(value) if isinstance(value, Call) else None
        if name not in ("tile.store", "tensor.write"):
            return
        target = value.args[2] if name == "tile.store" else value.args[0]
        written = self.stored if name == "tile.store" else self.element_written
        root = self._root(target)
        if root is not None:
            written.setdefault(root, value.span)

    def _root(self, tensor: Expr) -> Var | None:
        """The parameter a GM tensor value writes into (through stores, assembles and loop carries)."""
        root = self.aliases.root(tensor) if isinstance(tensor, Var) else None
        return root if root in self.params else None

    @on(ForStmt)
    def _for(self, node: ForStmt) -> Result:
        bounds = {f: self.expr(getattr(node, f)) for f in ("start", "stop", "step")}
        loop_var = self.define(node.loop_var)
        iter_args: list[IterArg] = []
        kinds = []
        for ia in node.iter_args:
            if ia in self.tiles:
                init = self._carry_init(ia)
                new = IterArg(ia.name_hint, init.type, init, ia.span)
                self.bind(ia, new)
            else:
                new = self.define(ia)
            iter_args.append(new)
            kinds.append(ia in self.tiles)
        self.carries.append(kinds)
        self.scopes.append((node, None))
        body = self.body(node.body)
        self.scopes.pop()
        self.carries.pop()
        rvs = [self._result_var(rv, ia.type, kind) for rv, ia, kind in zip(node.return_vars, iter_args, kinds)]
        return rebuild(node, loop_var=loop_var, iter_args=iter_args, body=body, return_vars=rvs, **bounds)

    @on(WhileStmt)
    def _while(self, node: WhileStmt) -> Result:
        if any(ia in self.tiles for ia in node.iter_args):
            raise self.error("a while loop carrying a converted tile is not supported yet", node.span, "use pl.range")
        return self.children(node)

    @on(IfStmt)
    def _if(self, node: IfStmt) -> Result:
        condition = self.expr(node.condition)
        kinds = [rv in self.tiles for rv in node.return_vars]
        self.carries.append(kinds)
        self.scopes.append((node, node.else_body))
        then_body = self.body(node.then_body)
        types = [v.type for v in self.last_yield]
        self.scopes[-1] = (node, node.then_body)
        else_body = self.body(node.else_body)
        self.scopes.pop()
        self.carries.pop()
        rvs = [self._result_var(rv, types[i] if i < len(types) else rv.type, k)
               for i, (rv, k) in enumerate(zip(node.return_vars, kinds))]
        return rebuild(node, condition=condition, then_body=then_body, else_body=else_body, return_vars=rvs)

    def _carry_init(self, ia: IterArg) -> Expr:
        """The tile a converted carry starts from. A GM init is loaded just for the carry: the loop
        takes over its init's buffer, so the entry load others read cannot be it."""
        init = self.expr(ia.initValue)
        if not isinstance(init.type, TensorType):
            return init
        if init in self.params:
            self.loaded.add(init)
        return self.temp(f"{ia.name_hint}_init", self._load(init, Vec))

    def _result_var(self, rv: Var, tile_type: object, kind: bool) -> Var:
        if not kind:
            return self.define(rv)
        new = Var(rv.name_hint, tile_type, rv.span)
        self.bind(rv, new)
        return new

    @on(YieldStmt)
    def _yield(self, node: YieldStmt) -> Result:
        kinds = self.carries[-1] if self.carries else []
        values = [self.tile(v) if i < len(kinds) and kinds[i] else self.expr(v) for i, v in enumerate(node.value)]
        self.last_yield = values
        return rebuild(node, value=values if any(a is not b for a, b in zip(values, node.value)) else node.value)

    @on(ReturnStmt)
    def _return(self, node: ReturnStmt) -> Result:
        values = []
        for i, old in enumerate(node.value):
            new = self.expr(old)
            if isinstance(new.type, TileType):
                out_type = TensorType(list(new.type.shape), new.type.dtype)
                out = Var(self.names.name(f"ret{i}_out", lambda n, i=i: f"ret{i}_out" if n == 0 else f"ret{i}_out_{n}"),
                          out_type, old.span)
                self.outs.append(out)
                zeros = index_tuple([0] * len(new.type.shape), old.span)
                new = self.temp(f"ret{i}_store", self.op("tile.store", [new, zeros, out], {}, old.span))
                if i < len(self.return_types):
                    self.return_types[i] = out_type
            values.append(new)
        return rebuild(node, value=values if any(a is not b for a, b in zip(values, node.value)) else node.value)


class _Caller(Rewrite):
    """A function calling converted functions: each new Out parameter gets a ``tensor.create``
    before the call, or (in a Group/Spmd wrapper) a parameter of the wrapper forwarded to it."""

    def __init__(self, outs: dict[str, list[TensorType]], forward: bool) -> None:
        self.outs, self.forward = outs, forward

    def convert(self, func: Function, program: Program) -> tuple[Function, list[TensorType]]:
        self.start(func, program)
        self.new_params: list[Var] = []
        self.count = 0  # new Out tensors so far: ret<count>_out names the next
        new = self.function(func)
        if not self.new_params:
            return new, []
        new = rebuild(
            new,
            params=list(new.params) + self.new_params,
            param_directions=list(new.param_directions) + [ParamDirection.Out] * len(self.new_params),
        )
        return new, [p.type for p in self.new_params]

    def _fresh(self, base: str) -> str:
        return self.names.name(base, lambda n: base if n == 0 else f"{base}_{n}")

    @on(Call, Submit)
    def _call(self, node: Call | Submit) -> Expr:
        if not isinstance(node.op, GlobalVar) or node.op.name not in self.outs:
            return node
        extra: list[Expr] = []
        for t in self.outs[node.op.name]:
            var = Var(self._fresh(f"ret{self.count}_out"), t, node.span)
            self.count += 1
            if self.forward:
                self.new_params.append(var)
            else:
                shape = MakeTuple(list(t.shape), node.span)
                create = op_registry.create_op_call("tensor.create", [shape], {"dtype": t.dtype}, node.span)
                self.emit(AssignStmt(var, create, node.span))
            extra.append(var)
        return rebuild(node, args=list(node.args) + extra)


def _callees_first(program: Program) -> list[str]:
    graph = call_graph(program)
    order: list[str] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        for callee in graph.get(name, []):
            visit(callee)
        order.append(name)

    for name in graph:
        visit(name)
    return order


class ConvertTensorToTileOps(ProgramPass):
    """Lower the tensor ops of every kernel to tile ops.

    before:  def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:      # InCore
                 y = pl.tensor.add(x, x)
                 return y
             # caller: y = self.k(x)
    after:   def k(self, x: pl.Tensor[[64], pl.FP32], ret0_out: pl.Out[pl.Tensor[[64], pl.FP32]]):
                 x_tile = pl.tile.load(x, [0], [64], [64], target_memory=pl.Mem.Vec)
                 y_tile = pl.tile.add(x_tile, x_tile)
                 ret0_store = pl.tile.store(y_tile, [0], ret0_out)
                 return ret0_store
             # caller: ret0_out = pl.tensor.create([64], dtype=pl.FP32); y = self.k(x, ret0_out)

    A tensor parameter read by a converted op is loaded once at the kernel's entry (into Mat for a
    matmul operand, else Vec); slices load at their offsets, assembles into GM tensors store at
    theirs (``out[i*32 : i*32 + 32, :] = y``), loop and if carries of converted values become
    tiles. Written In parameters (written directly, through an earlier write's result or through a
    loop carrying them) become Out (InOut when also read). Group and Spmd wrappers forward new Out
    parameters to their own callers. Tiles may keep a rank above 2 (FlattenTileNdTo2D merges them).
    A valid extent of a kernel's tensor parameter must be a parameter or a dimension of one
    (MaterializeValidShapeSymbols, before this pass, makes it one).

    A matmul accumulator carried through a loop may be chosen by an if: ``if k == 0: acc =
    pl.matmul(a, b) else: acc = pl.matmul_acc(acc, a, b)``. The ``pl.create_tensor`` that starts it
    becomes an Acc tile, and the first product is written into the carried accumulator
    (``tile.matmul_acc(acc, a, b, True)``: a true ``init_cond`` ignores its old value) when the other
    branch's ``matmul_acc`` is the carry's only reader, so the carry needs no Acc -> Acc copy.
    """

    source = outlined
    target = tiled
    produces = frozenset({IncoreTileOps, AivSplitValid})
    invalidates = frozenset({AivSplitValid})

    def run(self, program: Program) -> Program:
        outs: dict[str, list[TensorType]] = {}
        new: dict[str, Function] = {}
        for name in _callees_first(program):
            func = function_named(program, name)
            if is_incore_type(func.func_type):
                self._check_valid_extents(func)
                if not _convertible(func):
                    continue
                converted, added = _Kernel(self.name).convert(func, program)
            elif outs and any(isinstance(c.op, GlobalVar) and c.op.name in outs  # empty: no call to rewrite
                              for c in function_index(func).of(Call, Submit)):
                converted, added = _Caller(outs, func.func_type in _WRAPPERS).convert(func, program)
            else:
                continue
            new[name] = converted
            if added:
                outs[name] = added
        if not new:
            return program
        return with_functions(program, [new.get(f.name, f) for f in program.functions.values()])

    def _check_valid_extents(self, func: Function) -> None:
        """The dynamic dimensions and valid extents of a kernel's tensor parameters must be computed from what
        the kernel is given: its parameters and the dimensions of their arguments, each a plain symbol."""
        given = set(func.params) | {d for p in func.params if isinstance(p.type, TensorType)
                                    for d in p.type.shape if isinstance(d, Var)}
        for p in func.params:
            t = p.type
            if not isinstance(t, TensorType):
                continue
            for d in t.shape:
                unknown = [v for v in expr_vars(d) if v not in given]
                if unknown:
                    raise PassError(
                        self.name,
                        f"kernel '{func.name}' takes '{p.name_hint}' of shape {format_dims(list(t.shape))}, whose "
                        f"dimension {d.as_python()} is computed from {unknown[0].name_hint}: a kernel reads a dynamic "
                        "dimension off its argument, so it must be a plain pl.dynamic symbol",
                        p.span,
                        f"name the dimension itself, e.g. D = pl.dynamic(\"D\") and pl.Tensor[[..., D], ...] for "
                        f"{d.as_python()}",
                    )
            valid = t.tensor_view.valid_shape if t.tensor_view is not None else []
            unknown = [v for d in valid for v in expr_vars(d) if v not in given]
            if unknown:
                raise PassError(
                    self.name,
                    f"kernel '{func.name}' takes '{p.name_hint}' whose valid_shape {format_dims(list(valid))} has the "
                    f"dynamic extent {unknown[0].name_hint}, which no parameter of the kernel gives",
                    p.span,
                    "pass the valid extent as a scalar and narrow a slice with it inside the kernel, e.g. "
                    "rows = pl.min(32, N - i) outside pl.at, then "
                    "pl.slice(x, [32, 64], [i, 0], valid_shape=[rows, 64]) inside (examples/tensor_dyn_rows.py)",
                )
