"""The operator registry: one declarative entry per op, the single source of truth for every layer.

An :class:`OpEntry` states an op's positional parameters (name, accepted operand kinds, read/write
effect), its keyword schema (type, default, whether it is always stored), its result-type rule,
the memory-space contract of tile ops and the function kinds that may contain it. The DSL
(``pl.*``), the IR builders (``ir.op.*``) and the passes (effects) read the same entry; how each
code-generation target spells an op lives in that target's op table (``pypto.codegen.*_ops``).

``create_op_call`` validates a call against the entry and deduces its type::

    >>> call = create_op_call("tensor.add", [a, b], {}, span)   # doctest: +SKIP
    >>> call.type                                                # doctest: +SKIP
    pl.Tensor[[64], pl.FP32]
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, NoReturn

from . import hooks
from .enums import FunctionType, MemorySpace
from .errors import IRTypeError, IRValueError
from .expr import Call, ConstInt, Expr, Op
from .span import Span
from .type_base import PtrType, ScalarType, TupleType, Type, UnknownType
from .types import ArrayType, TensorType, TileType


class OpTypeError(IRTypeError, ValueError):
    """An op call has an argument or keyword of the wrong kind. ``op`` and ``span`` locate it.

    Also a ``ValueError``: the established API raises ValueError for a wrong operand type or dtype,
    and code written against it catches that.
    """

    def __init__(self, message: str, op: str = "", span: Span | None = None) -> None:
        super().__init__(message)
        self.op = op
        self.span = span or Span.unknown()


class OpValueError(IRValueError):
    """An op call has an argument or keyword of the right kind but a bad value; ``hint`` says what
    to write instead, where the rule knows."""

    def __init__(self, message: str, op: str = "", span: Span | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.op = op
        self.span = span or Span.unknown()
        self.hint = hint


class Effect(enum.Enum):
    """What an op does to the buffer behind one of its arguments."""

    READ = "read"  # the value is read
    WRITE = "write"  # the buffer is (partly) overwritten; the result aliases it
    READ_WRITE = "read_write"  # read, then updated in place; the result aliases it
    SCRATCH = "scratch"  # a scratch buffer whose contents the op clobbers
    # The established API's spellings (ir.ArgEffect.Read, ...): aliases of the same members.
    Read = "read"
    Write = "write"
    ReadWrite = "read_write"
    Scratch = "scratch"


# The established API's name of the per-argument effect.
ArgEffect = Effect


class WriteChannel(enum.Enum):
    """Through what an op's writes become visible (see :func:`get_op_write_channel`)."""

    Result = "result"  # only its own fresh result: the arguments are read (or used as scratch)
    Argument = "argument"  # an argument's buffer, updated in place; the result aliases it
    SideEffect = "side_effect"  # no buffer of the program: a side effect (sync, pipe, print)


# Operand kinds a parameter may accept (``kind_of`` maps a type onto one of them).
TENSOR, TILE, SCALAR, TUPLE, ARRAY, PTR = "tensor", "tile", "scalar", "tuple", "array", "ptr"

# Function kinds an op may appear in (Opaque and Inline functions accept every op).
ORCH, INCORE, AIC, AIV = "orchestration", "incore", "aic", "aiv"

_FUNC_KIND = {
    FunctionType.Orchestration: ORCH,
    FunctionType.Graph: ORCH,
    FunctionType.Group: ORCH,
    FunctionType.Spmd: ORCH,
    FunctionType.InCore: INCORE,
    FunctionType.AIC: AIC,
    FunctionType.AIV: AIV,
}

# ``get_op_memory_spec`` output markers.
INHERIT = "inherit_from_input"
DEFERRED = "deferred"


def kind_of(t: Type) -> str:
    """The operand kind of a value of type ``t`` (``tensor``, ``tile``, ``scalar``, ...)."""
    kind = _KIND_OF.get(type(t))
    if kind is None:
        kind = _KIND_OF[type(t)] = _kind_of(t)
    return kind


_KIND_OF: dict[type, str] = {}  # type class -> kind_of


def _kind_of(t: Type) -> str:
    if isinstance(t, TensorType):
        return TENSOR
    if isinstance(t, TileType):
        return TILE
    if isinstance(t, ScalarType):
        return SCALAR
    if isinstance(t, TupleType):
        return TUPLE
    if isinstance(t, ArrayType):
        return ARRAY
    if isinstance(t, PtrType):
        return PTR
    if isinstance(t, UnknownType):
        return "unknown"
    return type(t).__name__


_KIND_TEXT = {
    TENSOR: "a Tensor",
    TILE: "a Tile",
    SCALAR: "a Scalar",
    TUPLE: "a list of scalars",
    ARRAY: "an Array",
    PTR: "a Ptr",
}


def describe_type(t: Type) -> str:
    """A short readable description of a type for error messages (``Tile[[16, 16], fp32]``)."""
    if isinstance(t, (TensorType, TileType)):
        name = "Tensor" if isinstance(t, TensorType) else "Tile"
        return f"{name}[{format_dims(t.shape)}, {t.dtype}]"
    if isinstance(t, ScalarType):
        return f"Scalar[{t.dtype}]"
    if isinstance(t, ArrayType):
        return f"Array[{t.extent.value}, {t.dtype}]"
    if isinstance(t, TupleType):
        return "Tuple[" + ", ".join(describe_type(x) for x in t.types) + "]"
    return type(t).__name__


def format_dims(dims: list[Expr]) -> str:
    """``[4, n]``: constants by value, variables by name, other expressions printed."""
    from .expr import ConstInt, Var

    parts = []
    for d in dims:
        if isinstance(d, ConstInt):
            parts.append(str(d.value))
        elif isinstance(d, Var):
            parts.append(d.name_hint)
        else:
            parts.append(d.as_python())
    return "[" + ", ".join(parts) + "]"


class KwType:
    """How a keyword value is checked and stored (subclasses in ``pypto.ir.ops.kwtypes``).

    ``convert(value)`` returns the stored value or raises TypeError/ValueError with a bare reason
    that the registry prefixes with the op and keyword names.
    """

    def convert(self, value: Any) -> Any:
        raise TypeError(f"no conversion defined for {type(self).__name__}")


REQUIRED = inspect.Parameter.empty


@dataclass(frozen=True)
class Param:
    """One positional parameter of an op.

    ``accepts`` lists operand kinds; ``effect`` says what the op does to the argument's buffer;
    ``norm`` turns builder inputs (Python numbers, lists) into the Expr the op stores, given the
    other bound builder arguments; ``default_from`` names a parameter whose value a missing optional
    argument copies (``tile.load`` valid_shape); ``fill_empty`` puts an empty tuple in place of a
    missing optional argument followed by a present one.
    """

    name: str
    accepts: tuple[str, ...]
    effect: Effect = Effect.READ
    optional: bool = False
    norm: Callable[[Any, dict[str, Any]], Any] | None = None
    default_from: str | None = None
    fill_empty: bool = False


@dataclass(frozen=True)
class Kwarg:
    """One keyword attribute: stored always (with its default) or only when it differs from the default."""

    name: str
    kind: KwType
    default: Any = REQUIRED
    always: bool = True
    keyword_only: bool = False

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclass(frozen=True)
class MemorySpec:
    """Memory contract of a tile op: allowed spaces per parameter, and the result space rule.

    ``output`` is a MemorySpace (fixed), ``INHERIT`` (first tile input), ``DEFERRED`` (decided later,
    by InferTileMemorySpace from the result's consumers) or None (no tile result). With ``by_target``
    a given ``target_memory`` keyword places the result instead.
    """

    inputs: tuple[tuple[MemorySpace, ...], ...] = ()
    output: MemorySpace | str | None = None
    by_target: bool = False


Deduce = Callable[["CallInfo"], Type]


@dataclass(frozen=True)
class OpEntry:
    """The declaration of one operator."""

    name: str
    params: tuple[Param, ...]
    kwargs: tuple[Kwarg, ...]
    deduce: Deduce
    placement: frozenset[str]
    memory: MemorySpec | None = None
    side_effect: bool = False
    signature: tuple[str, ...] | None = None
    doc: str = ""
    # A zero-copy view: the result is argument 0's buffer seen with another shape, dtype or layout.
    view: bool = False
    # A check of a call as the user wrote it (not of calls passes rebuild): a warning's text (an
    # argument that has no effect) or None.
    lint: Callable[[Call], str | None] | None = None
    # The arguments of a call in the IR's one form for what the user wrote (``tensor.slice``'s
    # lower-rank window as the full-rank one), or None when they already are in it.
    canonical: Callable[["CallInfo"], list[Expr] | None] | None = None
    _op: Op = field(init=False, repr=False, compare=False)
    # Derived from ``params`` once (every call binds its arguments against them).
    _min_args: int = field(init=False, repr=False, compare=False)
    _kwarg_index: dict[str, Kwarg] = field(init=False, repr=False, compare=False)
    _param_effects: tuple[Effect, ...] = field(init=False, repr=False, compare=False)
    _input_spaces: dict[str, list[MemorySpace]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_op", Op(self.name))
        object.__setattr__(self, "_min_args", sum(1 for p in self.params if not p.optional))
        object.__setattr__(self, "_kwarg_index", {k.name: k for k in self.kwargs})
        object.__setattr__(self, "_param_effects", tuple(p.effect for p in self.params))
        inputs = self.memory.inputs if self.memory is not None else ()
        object.__setattr__(self, "_input_spaces", {
            p.name: list(inputs[i]) if i < len(inputs) else [] for i, p in enumerate(self.params)})

    @property
    def op(self) -> Op:
        """The shared ``ir.Op`` singleton of this entry."""
        return self._op

    @property
    def namespace(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def leaf(self) -> str:
        return self.name.split(".", 1)[1]

    def kwarg_names(self) -> list[str]:
        """Keyword names in storage (= print) order."""
        return [k.name for k in self.kwargs]

    def kwarg(self, name: str) -> Kwarg | None:
        return self._kwarg_index.get(name)

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    def effects(self) -> dict[str, Effect]:
        """Parameter name -> effect, in parameter order."""
        return {p.name: p.effect for p in self.params}

    @property
    def param_effects(self) -> tuple[Effect, ...]:
        """The effect of each parameter, in parameter order (made once: passes ask it of every call)."""
        return self._param_effects

    @property
    def input_spaces(self) -> dict[str, list[MemorySpace]]:
        """Parameter name -> the memory spaces its tile may be in (empty: any, or no memory spec);
        made once, callers must not change the lists."""
        return self._input_spaces

    def written_params(self) -> list[str]:
        """Parameters whose buffers the op writes (the result aliases the first of them)."""
        return [p.name for p in self.params if p.effect in (Effect.WRITE, Effect.READ_WRITE)]

    @property
    def core_side(self) -> str | None:
        """``AIC`` when only cube-side kernels may contain the op, ``AIV`` when only vector-side
        ones may, None when either may (or neither kind is named)."""
        cube, vector = AIC in self.placement, AIV in self.placement
        if cube == vector:
            return None
        return AIC if cube else AIV

    def allowed_in(self, func_type: FunctionType) -> bool:
        """May a function of this type contain the op? Opaque/Inline functions accept everything."""
        kind = _FUNC_KIND.get(func_type)
        return kind is None or kind in self.placement

    def min_args(self) -> int:
        return self._min_args

    def bind(self, args: list[Any]) -> list[Param]:
        """The parameters that the positional ``args`` fill, in order.

        Required parameters are always filled. The surplus goes to optional parameters in declared
        order, except that an optional parameter is skipped when the argument's kind does not fit
        it but fits a later optional one: ``tile.mrgsort_format2(a, b, tmp)`` binds ``tmp`` past
        ``src2``/``src3``, ``tile.mgather(mem, idx, [r, c])`` binds ``valid_shape`` past ``scratch``.
        """
        surplus = len(args) - self._min_args
        if surplus <= 0 or self._min_args == len(self.params):
            return [p for p in self.params if not p.optional]
        out: list[Param] = []
        for i, p in enumerate(self.params):
            if not p.optional:
                out.append(p)
                continue
            if surplus <= 0:
                continue
            k = len(out)
            kind = kind_of(args[k].type) if k < len(args) and isinstance(args[k], Expr) else None
            later = [q for q in self.params[i + 1:] if q.optional and kind in q.accepts]
            if kind is not None and kind not in p.accepts and later:
                continue
            out.append(p)
            surplus -= 1
        return out


# name -> entry, filled by the modules of ``pypto.ir.ops`` (``pypto.ir`` imports them right after
# this module: they build on it, so it cannot import them).
_REGISTRY: dict[str, OpEntry] = {}


def register(entry: OpEntry) -> OpEntry:
    """Add an entry; a second entry for the same name is a hard error."""
    if entry.name in _REGISTRY:
        raise IRValueError(f"Operator '{entry.name}' is already registered")
    _REGISTRY[entry.name] = entry
    return entry


def lookup(name: str) -> OpEntry | None:
    """The entry named ``name``, or None."""
    return _REGISTRY.get(name)


def all_entries() -> list[OpEntry]:
    """Every registered entry, sorted by name."""
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def get_entry(name: str) -> OpEntry:
    """The entry named ``name``; unknown names raise ``ValueError``."""
    entry = lookup(name)
    if entry is None:
        raise OpValueError(f"Operator '{name}' not found in registry", name)
    return entry


def is_view_op(name: str | None) -> bool:
    """True when ``name`` is a registered zero-copy view op (its result shares argument 0's buffer)."""
    entry = _REGISTRY.get(name)
    return entry is not None and entry.view


def get_op(name: str) -> Op:
    """The shared ``ir.Op`` of a registered operator."""
    return get_entry(name).op


def is_op_registered(name: str) -> bool:
    """True when ``name`` is in the registry."""
    return lookup(name) is not None


def _kwarg_names(name: str) -> list[str]:
    entry = lookup(name)
    return list(entry.kwarg_names()) if entry is not None else []


hooks.op_kwarg_names = _kwarg_names  # Op.get_attr_keys (the core cannot import the registry)


class CallInfo:
    """A call under validation: what a type-deduction rule sees.

    ``ci["lhs"]`` is the argument bound to parameter ``lhs`` (None when an optional one is absent);
    ``ci.kw("mode")`` is the keyword value with its default filled in.
    """

    def __init__(self, entry: OpEntry, args: list[Expr], kwargs: dict[str, Any], span: Span,
                 params: list[Param] | None = None) -> None:
        self.entry = entry
        self.op = entry.name
        self.args = args
        self.kwargs = kwargs
        self.span = span
        bound = entry.bind(args) if params is None else params
        self._bound = {p.name: a for p, a in zip(bound, args)}

    def __getitem__(self, name: str) -> Any:
        return self._bound.get(name)

    def has(self, name: str) -> bool:
        return name in self._bound

    def kw(self, name: str) -> Any:
        if name in self.kwargs:
            return self.kwargs[name]
        spec = self.entry.kwarg(name)
        if spec is None or spec.required:
            return None
        return spec.default

    def fail(self, message: str, hint: str | None = None) -> NoReturn:
        """Raise a ValueError naming the op."""
        raise OpValueError(f"Operator '{self.op}': {message}", self.op, self.span, hint)

    def type_fail(self, message: str) -> NoReturn:
        """Raise a TypeError naming the op."""
        raise OpTypeError(f"Operator '{self.op}': {message}", self.op, self.span)


def _split_overload(args: tuple) -> tuple[dict[str, Any] | None, Span]:
    """``(span)`` / ``(kwargs, span)`` / ``(kwargs)`` / ``()`` after ``op_name, args``."""
    kwargs: dict[str, Any] | None = None
    span = Span.unknown()
    rest = list(args)
    if rest and isinstance(rest[-1], Span):
        span = rest.pop()
    if rest:
        kwargs = rest.pop(0)
    if rest or (kwargs is not None and not isinstance(kwargs, dict)):
        raise OpTypeError("create_op_call(op_name, args[, kwargs], span): unexpected arguments")
    return kwargs, span


def _check_args(entry: OpEntry, args: list[Any], span: Span) -> list[Param]:
    """Check the argument count and each argument's kind; return the parameters the arguments fill."""
    params = entry.params
    if not entry._min_args <= len(args) <= len(params):
        names = ", ".join(p.name + ("?" if p.optional else "") for p in params) or "none"
        want = (
            str(len(params))
            if entry.min_args() == len(params)
            else f"{entry.min_args()} to {len(params)}"
        )
        raise OpTypeError(
            f"Operator '{entry.name}' takes {want} positional arguments ({names}), got {len(args)}",
            entry.name,
            span,
        )
    bound = entry.bind(args)
    for p, a in zip(bound, args):
        if not isinstance(a, Expr) or kind_of(a.type) not in p.accepts:
            got = describe_type(a.type) if isinstance(a, Expr) else f"Python {type(a).__name__}"
            want = " or ".join(_KIND_TEXT.get(k, k) for k in p.accepts)
            raise OpTypeError(f"Operator '{entry.name}': argument '{p.name}' must be {want}, got {got}",
                              entry.name, span)
        _check_valid_rank(entry, p.name, a.type, span)
    return bound


def _check_valid_rank(entry: OpEntry, name: str, t: Type, span: Span) -> None:
    """A tensor/tile operand whose view's valid_shape has another rank than its shape is refused
    here, so no rule ever indexes one against the other."""
    if isinstance(t, TileType):
        view = t.tile_view
    elif isinstance(t, TensorType):
        view = t.tensor_view
    else:
        return
    if view is None:
        return
    valid = list(view.valid_shape)
    if valid and len(valid) != len(t.shape):
        raise OpValueError(
            f"Operator '{entry.name}': argument '{name}' has a valid_shape of rank {len(valid)} "
            f"({format_dims(valid)}) on a rank-{len(t.shape)} shape {format_dims(t.shape)}",
            entry.name, span)


def _check_kwargs(entry: OpEntry, kwargs: dict[str, Any], span: Span) -> dict[str, Any]:
    """Validate, convert and order keyword values; fill always-stored defaults."""
    for key in kwargs:
        if entry.kwarg(key) is None:
            raise OpValueError(f"Unknown kwarg '{key}' for operator '{entry.name}'", entry.name, span)
    stored: dict[str, Any] = {}
    for spec in entry.kwargs:
        if spec.name in kwargs and kwargs[spec.name] is not None:
            try:
                value = spec.kind.convert(kwargs[spec.name])
            except TypeError as err:
                raise OpTypeError(
                    f"Operator '{entry.name}': kwarg '{spec.name}' {err}", entry.name, span
                ) from None
            except ValueError as err:
                raise OpValueError(
                    f"Operator '{entry.name}': kwarg '{spec.name}' {err}", entry.name, span
                ) from None
        elif spec.required:
            raise OpTypeError(
                f"Operator '{entry.name}': missing required kwarg '{spec.name}'", entry.name, span
            )
        else:
            value = spec.default
        if value is None:
            continue
        if spec.always or not _same_value(value, spec.default):
            stored[spec.name] = value
    return stored


def _same_value(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _stamp_memory(entry: OpEntry, ci: CallInfo, result: Type) -> Type:
    """Give a tile result without a memory space the space the op's memory rule assigns."""
    if not isinstance(result, TileType) or result.memory_space is not None or entry.memory is None:
        return result
    rule = entry.memory.output
    space: MemorySpace | None = ci.kw("target_memory") if entry.memory.by_target else None
    if space is None and isinstance(rule, MemorySpace):
        space = rule
    elif space is None and rule == INHERIT:
        for a in ci.args:
            if isinstance(a.type, TileType):
                space = a.type.memory_space
                break
    if space is None:
        return result
    return TileType(result.shape, result.dtype, result.memref, result.tile_view, space)


def deduce_type(entry: OpEntry, args: list[Any], kwargs: dict[str, Any], span: Span) -> tuple[Type, dict]:
    """Validate ``args``/``kwargs`` against ``entry``; return the deduced type and the stored kwargs."""
    params = _check_args(entry, args, span)
    stored = _check_kwargs(entry, kwargs, span)
    ci = CallInfo(entry, list(args), stored, span, params)
    if entry.canonical is not None and (canonical := entry.canonical(ci)) is not None:
        args[:] = canonical  # build_call stores the caller's list
        ci = CallInfo(entry, list(args), stored, span, _check_args(entry, args, span))
    result = entry.deduce(ci)
    _check_extents(ci, result)
    return _stamp_memory(entry, ci, result), stored


def _check_extents(ci: CallInfo, result: Type) -> None:
    """A tile has at least one row and one column: pto-isa's Tile static_asserts ``Rows > 0 && Cols > 0``
    (include/pto/common/pto_tile.hpp), so an empty tile would fail the kernel's C++ build."""
    for t in result.types if isinstance(result, TupleType) else [result]:
        if isinstance(t, TileType) and any(isinstance(d, ConstInt) and d.value <= 0 for d in t.shape):
            ci.fail(f"the result tile {format_dims(t.shape)} is empty: a tile needs at least one element along "
                    "each axis",
                    hint="give each axis at least one element (valid_shape marks a partly filled tile), or skip "
                    "the op when there is nothing to compute")


def create_op_call(op_name: str, args: list[Any], *rest: Any) -> Call:
    """Build a ``Call`` to a registered op with its type deduced.

    Overloads: ``create_op_call(name, args, span)`` and ``create_op_call(name, args, kwargs, span)``
    (span may be omitted). Unknown op -> ``ValueError("Operator 'x' not found in registry")``;
    unknown kwarg -> ``ValueError("Unknown kwarg 'k' for operator 'op'")``; wrong argument or
    keyword kinds -> ``TypeError``; failed checks -> ``ValueError``. Each message names the op.
    """
    kwargs, span = _split_overload(rest)
    entry = get_entry(op_name)
    if not isinstance(args, (list, tuple)):
        raise OpTypeError(f"Operator '{op_name}': args must be a list of Expr", op_name, span)
    return build_call(entry, list(args), dict(kwargs or {}), span)


def build_call(entry: OpEntry, args: list[Any], kwargs: dict[str, Any], span: Span) -> Call:
    """:func:`create_op_call` of a looked-up entry; ``args`` and ``kwargs`` are the caller's fresh
    list and dict (the builders make them), which this may extend."""
    _fill_defaults_from(entry, args)
    result, stored = deduce_type(entry, args, kwargs, span)
    return Call(op=entry.op, args=args, kwargs=stored, type=result, span=span)


def _fill_defaults_from(entry: OpEntry, args: list[Any]) -> None:
    """Append trailing optional arguments that default to another argument (tile.load's valid_shape)."""
    for p in entry.params[len(args):]:
        if p.default_from is None:
            break
        names = [q.name for q in entry.params]
        if names.index(p.default_from) >= len(args):
            break
        args.append(args[names.index(p.default_from)])


def deduce_call_return_type(call_or_name: Call | Op | str, args: list[Expr] | None = None,
                            kwargs: dict[str, Any] | None = None) -> Type:
    """Re-deduce the result type of an op call.

    ``deduce_call_return_type(call)`` re-checks an existing Call (e.g. after a pass rewrote its
    arguments); ``deduce_call_return_type(op_or_name, args, kwargs)`` deduces without building a Call.
    """
    if isinstance(call_or_name, Call):
        call = call_or_name
        entry = get_entry(call.op.name)
        return deduce_type(entry, list(call.args), dict(call.kwargs), call.span)[0]
    name = call_or_name.name if isinstance(call_or_name, Op) else call_or_name
    return deduce_type(get_entry(name), list(args or []), dict(kwargs or {}), Span.unknown())[0]


def set_call_attrs(call: Call, attrs: Mapping[str, Any]) -> Call:
    """A copy of ``call`` whose compiler attrs are ``attrs`` (same op, args, kwargs, type, span)."""
    if not isinstance(call, Call):
        raise OpTypeError(f"set_call_attrs expects a Call, got {type(call).__name__}")
    return Call(call.op, list(call.args), dict(call.kwargs), dict(attrs), call.type, call.span)


def get_op_arg_effect(name: str, arg: int | str) -> Effect:
    """The effect op ``name`` has on its argument ``arg`` (a position or a parameter name)."""
    entry = get_entry(name)
    if isinstance(arg, str):
        param = entry.param(arg)
        if param is None:
            names = ", ".join(p.name for p in entry.params)
            raise OpValueError(f"Operator '{name}' has no parameter '{arg}' (parameters: {names})", name)
        return param.effect
    if not 0 <= arg < len(entry.params):
        raise OpValueError(f"Operator '{name}' has {len(entry.params)} parameters, no argument {arg}", name)
    return entry.params[arg].effect


def op_has_declared_arg_effects(name: str) -> bool:
    """Whether op ``name`` declares an effect other than a read on some argument (write or scratch)."""
    return any(p.effect is not Effect.READ for p in get_entry(name).params)


def get_op_write_channel(name: str) -> WriteChannel:
    """Where op ``name`` writes: an argument in place, only its own result, or a side effect."""
    entry = get_entry(name)
    if entry.written_params():
        return WriteChannel.Argument
    if entry.side_effect:
        return WriteChannel.SideEffect
    return WriteChannel.Result


def get_op_memory_spec(name: str) -> dict[str, Any] | None:
    """``{"input_constraints": [[MemorySpace...] per parameter], "output_memory": ...}`` or None.

    Only tile ops carry a memory spec. ``input_constraints`` runs up to the last constrained
    parameter (an empty list: any space). ``output_memory`` is a MemorySpace (fixed, or the default
    of an op placed by its ``target_memory`` keyword, as ``tile.move``), ``"inherit_from_input"``,
    ``"deferred"`` (decided later from the result's consumers, as for ``tile.load``) or None.
    """
    entry = get_entry(name)
    if entry.memory is None:
        return None
    inputs = list(entry.memory.inputs)
    while inputs and not inputs[-1]:
        inputs.pop()
    return {"input_constraints": [list(c) for c in inputs], "output_memory": entry.memory.output}