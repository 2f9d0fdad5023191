"""Expressions: variables, constants, scalar arithmetic, calls, task submits and tuples."""

from __future__ import annotations

import itertools
from typing import Any, Callable

from pydantic import Field

from . import hooks
from .attrs import CallAttrs, SubmitAttrs, TaskDummyAttrs, bind_expr_classes
from .datatype import DataType
from .enums import ArgDirection
from .errors import IRTypeError, IRValueError
from .node import Bool, DType, Float, Int, IRNode, Str, _identity_hash
from .span import Span
from .type_base import ScalarType, TupleType, Type, UnknownType

_var_ids = itertools.count()


class Expr(IRNode):
    """Base of every expression. ``==``/``!=`` build ``Eq``/``Ne`` nodes, whose truth value is the
    identity of the operands (so ``a in [b]`` and dict lookups mean "the same node"); hashing is by
    identity. Operands that make no scalar comparison (tensors, BOOL scalars, strings) compare by
    identity directly."""

    type: Type = Field(default_factory=UnknownType.get)

    # Python operators build scalar expressions with dtype promotion (see scalar_ops).
    def __add__(self, other: Any) -> Expr:
        return scalar_ops.add(self, other)

    def __radd__(self, other: Any) -> Expr:
        return scalar_ops.add(other, self)

    def __sub__(self, other: Any) -> Expr:
        return scalar_ops.sub(self, other)

    def __rsub__(self, other: Any) -> Expr:
        return scalar_ops.sub(other, self)

    def __mul__(self, other: Any) -> Expr:
        return scalar_ops.mul(self, other)

    def __rmul__(self, other: Any) -> Expr:
        return scalar_ops.mul(other, self)

    def __truediv__(self, other: Any) -> Expr:
        return scalar_ops.truediv(self, other)

    def __rtruediv__(self, other: Any) -> Expr:
        return scalar_ops.truediv(other, self)

    def __floordiv__(self, other: Any) -> Expr:
        return scalar_ops.floordiv(self, other)

    def __rfloordiv__(self, other: Any) -> Expr:
        return scalar_ops.floordiv(other, self)

    def __mod__(self, other: Any) -> Expr:
        return scalar_ops.mod(self, other)

    def __rmod__(self, other: Any) -> Expr:
        return scalar_ops.mod(other, self)

    def __pow__(self, other: Any) -> Expr:
        return scalar_ops.pow(self, other)

    def __rpow__(self, other: Any) -> Expr:
        return scalar_ops.pow(other, self)

    def __and__(self, other: Any) -> Expr:
        return scalar_ops.bit_and(self, other)

    def __rand__(self, other: Any) -> Expr:
        return scalar_ops.bit_and(other, self)

    def __or__(self, other: Any) -> Expr:
        return scalar_ops.bit_or(self, other)

    def __ror__(self, other: Any) -> Expr:
        return scalar_ops.bit_or(other, self)

    def __xor__(self, other: Any) -> Expr:
        return scalar_ops.bit_xor(self, other)

    def __rxor__(self, other: Any) -> Expr:
        return scalar_ops.bit_xor(other, self)

    def __lshift__(self, other: Any) -> Expr:
        return scalar_ops.bit_shift_left(self, other)

    def __rlshift__(self, other: Any) -> Expr:
        return scalar_ops.bit_shift_left(other, self)

    def __rshift__(self, other: Any) -> Expr:
        return scalar_ops.bit_shift_right(self, other)

    def __rrshift__(self, other: Any) -> Expr:
        return scalar_ops.bit_shift_right(other, self)

    def __neg__(self) -> Expr:
        return scalar_ops.neg(self)

    def __invert__(self) -> Expr:
        return scalar_ops.bit_not(self)

    def __lt__(self, other: Any) -> Expr:
        return scalar_ops.lt(self, other)

    def __le__(self, other: Any) -> Expr:
        return scalar_ops.le(self, other)

    def __gt__(self, other: Any) -> Expr:
        return scalar_ops.gt(self, other)

    def __ge__(self, other: Any) -> Expr:
        return scalar_ops.ge(self, other)

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        return _compare(scalar_ops.eq, self, other)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        return _compare(scalar_ops.ne, self, other)

    __hash__ = _identity_hash


def _compare(build: Callable[[Any, Any], Expr], lhs: Expr, rhs: Any) -> Any:
    """``build(lhs, rhs)``, or NotImplemented (Python then compares identity) when the operands make
    no scalar comparison: ``==`` must not raise, or ``tensor_var in [other]`` would."""
    if not isinstance(rhs, (Expr, int, float)):
        return NotImplemented
    try:
        return build(lhs, rhs)
    except IRTypeError:
        return NotImplemented


class Var(Expr):
    """A variable. Identity is the object; ``name_hint`` is cosmetic."""

    name_hint: Str
    type: Type = Field(default_factory=UnknownType.get)
    unique_id: Int = -1
    _positional = ("name_hint", "type", "span")
    _derived = ("unique_id",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("unique_id", -1) == -1:
            kwargs["unique_id"] = next(_var_ids)
        super().__init__(*args, **kwargs)


# The attrs models name Expr and Var in their field types (attrs.py sits below this module).
bind_expr_classes(Expr, Var)


class IterArg(Var):
    """A loop-carried value of a ``for``/``while``: visible in the body, seeded by ``initValue``."""

    initValue: Expr
    _positional = ("name_hint", "type", "initValue", "span")

    @property
    def init_value(self) -> Expr:
        return self.initValue


# One immutable scalar type per dtype, shared by the scalar expressions (most nodes a parser builds).
_SCALAR_TYPES: dict[DataType, ScalarType] = {}


def _scalar_type(dtype: DataType) -> ScalarType:
    t = _SCALAR_TYPES.get(dtype)
    if t is None:
        t = _SCALAR_TYPES[dtype] = ScalarType(dtype)
    return t


class ConstInt(Expr):
    """An integer constant of any dtype; bare DSL literals are INDEX."""

    value: Int
    dtype: DType
    _positional = ("value", "dtype", "span")
    _derived = ("type",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "type", _scalar_type(self.dtype))


class ConstFloat(Expr):
    """A floating-point constant (stored as a Python float)."""

    value: Float
    dtype: DType
    _positional = ("value", "dtype", "span")
    _derived = ("type",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "type", _scalar_type(self.dtype))


class ConstBool(Expr):
    """``True`` / ``False``."""

    value: Bool
    _positional = ("value", "span")
    _derived = ("type",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "type", _scalar_type(DataType.BOOL))

    @property
    def dtype(self) -> DataType:
        return DataType.BOOL


class BinaryExpr(Expr):
    """A scalar binary operation; the constructor trusts ``dtype`` (factories promote)."""

    left: Expr
    right: Expr
    dtype: DType
    _positional = ("left", "right", "dtype", "span")
    _derived = ("type",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if type(self) is BinaryExpr:
            raise IRTypeError("BinaryExpr is abstract; build Add, Sub, ... instead")
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "type", _scalar_type(self.dtype))


class UnaryExpr(Expr):
    """A scalar unary operation."""

    operand: Expr
    dtype: DType
    _positional = ("operand", "dtype", "span")
    _derived = ("type",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if type(self) is UnaryExpr:
            raise IRTypeError("UnaryExpr is abstract; build Neg, Not, ... instead")
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "type", _scalar_type(self.dtype))


class Add(BinaryExpr): ...
class Sub(BinaryExpr): ...
class Mul(BinaryExpr): ...
class FloatDiv(BinaryExpr): ...
class FloorDiv(BinaryExpr): ...
class FloorMod(BinaryExpr): ...
class Pow(BinaryExpr): ...
class Min(BinaryExpr): ...
class Max(BinaryExpr): ...
class Eq(BinaryExpr):
    """``left == right``; as a Python truth value: ``left`` and ``right`` are the same node."""

    def __bool__(self) -> bool:
        return self.left is self.right


class Ne(BinaryExpr):
    """``left != right``; as a Python truth value: ``left`` and ``right`` are different nodes."""

    def __bool__(self) -> bool:
        return self.left is not self.right


class Lt(BinaryExpr): ...
class Le(BinaryExpr): ...
class Gt(BinaryExpr): ...
class Ge(BinaryExpr): ...
class And(BinaryExpr): ...
class Or(BinaryExpr): ...
class Xor(BinaryExpr): ...
class BitAnd(BinaryExpr): ...
class BitOr(BinaryExpr): ...
class BitXor(BinaryExpr): ...
class BitShiftLeft(BinaryExpr): ...
class BitShiftRight(BinaryExpr): ...


class Neg(UnaryExpr): ...
class BitNot(UnaryExpr): ...
class Not(UnaryExpr): ...
class Abs(UnaryExpr): ...
class Cast(UnaryExpr): ...


class Op(IRNode):
    """An operator name. Registered ops are shared singletons obtained with ``ir.get_op``."""

    name: Str
    _positional = ("name",)

    def has_attr(self, key: str) -> bool:
        """True when ``key`` is a keyword argument of this op's schema."""
        return key in self.get_attr_keys()

    def get_attr_keys(self) -> list[str]:
        """The registered keyword-argument names of this op (empty if unregistered)."""
        return hooks.op_kwarg_names(self.name)


class GlobalVar(Op):
    """Names a function of the enclosing Program; compares and hashes by name."""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, GlobalVar):
            return self.name == other.name
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("GlobalVar", self.name))


_KWARG_TYPES = (bool, int, float, str, DataType)


def _check_kwargs(node: str, kwargs: Any) -> Any:
    if not isinstance(kwargs, dict):
        return kwargs  # the field validation reports it
    for key, value in kwargs.items():
        if not isinstance(key, str):
            raise IRTypeError(f"{node}: kwargs keys must be str, got {type(key).__name__}")
        if not isinstance(value, _KWARG_TYPES) and not isinstance(value, (list, tuple, Expr)):
            raise IRTypeError(f"{node}: kwarg '{key}' has unsupported value type {type(value).__name__}")
    return kwargs


class Call(Expr):
    """A call of an op or of a program function (``GlobalVar``).

    Overloads: ``Call(op, args, span)``, ``Call(op, args, type, span)``, ``Call(op, args, kwargs, span)``,
    ``Call(op, args, kwargs, type, span)``, ``Call(op, args, kwargs, attrs, type, span)``.
    Without a type the call's type is ``UnknownType``; ``ir.create_op_call`` deduces it.
    """

    op: Op
    args: list[Expr]
    kwargs: dict[str, Any] = Field(default_factory=dict)
    attrs: CallAttrs = CallAttrs()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args:
            kwargs.update(_call_overload(type(self).__name__, args, kwargs))
        given = kwargs.get("kwargs")
        if isinstance(given, dict) and given:  # any other value: the field validation reports it
            _check_kwargs(type(self).__name__, given)
        if "attrs" in kwargs:
            kwargs["attrs"] = call_attrs_model(kwargs.get("op")).for_node(type(self).__name__, kwargs["attrs"])
        super().__init__(**kwargs)

    @property
    def arg_directions(self) -> list[ArgDirection]:
        """``attrs["arg_directions"]`` or ``[]``."""
        return list(self.attrs.get("arg_directions", []))


def call_attrs_model(op: object) -> type[CallAttrs]:
    """The attrs model a call of ``op`` validates its attrs with."""
    return TaskDummyAttrs if type(op) is Op and op.name == "system.task_dummy" else CallAttrs


def _call_overload(node: str, args: tuple, given: dict[str, Any]) -> dict[str, Any]:
    """Map the positional overloads of Call onto field names."""
    out: dict[str, Any] = {}
    names = ["op", "args"]
    rest = list(args[2:])
    out.update(zip(names, args[:2]))
    # trailing span
    if rest and isinstance(rest[-1], Span):
        out["span"] = rest.pop()
    if rest and isinstance(rest[-1], Type):
        out["type"] = rest.pop()
    if rest:
        out["kwargs"] = rest.pop(0)
    if rest:
        out["attrs"] = rest.pop(0)
    if rest:
        raise IRTypeError(f"{node}(): unexpected positional arguments {rest!r}")
    clash = set(out) & set(given)
    if clash:
        raise IRTypeError(f"{node}() got multiple values for {sorted(clash)}")
    return out


class Submit(Expr):
    """A task launch: like a Call, but returns the callee results plus a trailing TaskId.

    ``Submit(op, args, deps, type, span)`` or
    ``Submit(op, args, deps, kwargs, attrs, type, span, core_num=None, sync_start=False,
    allow_early_resolve=False, predicate=None)``.
    """

    op: Op
    args: list[Expr]
    deps: list[Expr] = Field(default_factory=list)
    kwargs: dict[str, Any] = Field(default_factory=dict)
    attrs: SubmitAttrs = SubmitAttrs()
    core_num: Expr | None = None
    sync_start: Bool = False
    allow_early_resolve: Bool = False
    predicate: Expr | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args:
            out = {"op": args[0]}
            if len(args) > 1:
                out["args"] = args[1]
            if len(args) > 2:
                out["deps"] = args[2]
            rest = list(args[3:])
            if rest and isinstance(rest[-1], Span):
                out["span"] = rest.pop()
            if rest and isinstance(rest[-1], Type):
                out["type"] = rest.pop()
            if rest:
                out["kwargs"] = rest.pop(0)
            if rest:
                out["attrs"] = rest.pop(0)
            if rest:
                raise IRTypeError(f"Submit(): unexpected positional arguments {rest!r}")
            kwargs.update(out)
        core_num = kwargs.get("core_num")
        if isinstance(core_num, int) and not isinstance(core_num, bool):
            kwargs["core_num"] = ConstInt(core_num, DataType.INDEX)
        _check_kwargs("Submit", kwargs.get("kwargs", {}))
        if "attrs" in kwargs:
            kwargs["attrs"] = SubmitAttrs.for_node("Submit", kwargs["attrs"])
        super().__init__(**kwargs)
        if self.sync_start and self.core_num is None:
            raise IRValueError("Submit: sync_start=True requires core_num")

    @property
    def arg_directions(self) -> list[ArgDirection]:
        """``attrs["arg_directions"]`` or ``[]``."""
        return list(self.attrs.get("arg_directions", []))


class MakeTuple(Expr):
    """A tuple value ``[a, b]``; also the form of shape/offset arguments."""

    elements: list[Expr]
    _positional = ("elements", "span")
    _derived = ("type",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "type", TupleType([e.type for e in self.elements]))


class TupleGetItemExpr(Expr):
    """Element ``index`` of a tuple-typed expression."""

    tuple: Expr
    index: Int
    _positional = ("tuple", "index", "span")
    _derived = ("type",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        ttype = self.tuple.type
        if not isinstance(ttype, TupleType):
            raise IRTypeError(f"TupleGetItemExpr: operand must have a TupleType, got {ttype}")
        if not 0 <= self.index < len(ttype.types):
            raise IRValueError(
                f"TupleGetItemExpr: index {self.index} out of range for a tuple of {len(ttype.types)} elements"
            )
        object.__setattr__(self, "type", ttype.types[self.index])


DYNAMIC_DIM = -1

from . import scalar_ops  # noqa: E402  (operator overloads above call into it)
