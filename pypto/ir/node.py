"""The base of every IR node and type: frozen pydantic models with positional constructors.

Nodes are immutable and compared by identity (``same_as``); structure is compared by
:mod:`pypto.ir.structural`. Every class lists the order of its positional constructor
arguments in ``_positional`` so that ``ir.Var("x", t, span)`` works as in the reference API.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, StrictBool, StrictInt, StrictStr, ValidationError
from pydantic_core import PydanticCustomError

from . import hooks
from .datatype import DataType
from .errors import ImmutableNodeError, IRTypeError, IRValueError
from .plain_getattr import use_plain_getattr
from .span import Span


def _format_validation_error(cls_name: str, err: ValidationError, prefix: tuple[str, ...] = ()) -> tuple[str, bool]:
    """Render a pydantic error as ``Node: field 'f': message`` lines; report if all are value errors.

    ``prefix`` is prepended to each error location (the field of a model validated on its own)."""
    lines = []
    all_value = True
    for e in err.errors(include_url=False):
        loc = ".".join(str(p) for p in (*prefix, *e["loc"])) or "<node>"
        msg = e["msg"].replace("a valid dictionary or instance of", "an instance of")
        if e["type"] != "value_error":
            all_value = False
            got = e.get("input")
            if e["type"] == "extra_forbidden":
                msg = "unknown field"
            elif got is not None or e["type"] != "missing":
                msg = f"{msg} (got {type(got).__name__})"
        elif msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        lines.append(f"{cls_name}: field '{loc}': {msg}")
    return "\n".join(lines), all_value


def _identity_hash(self: object) -> int:
    return object.__hash__(self)


class _NodeMeta(type(BaseModel)):  # type: ignore[misc]
    """pydantic's model metaclass, keeping class-level tables out of its private attributes.

    With postponed annotations pydantic first takes a subclass's ``_positional = (...)`` for a
    private attribute and installs a ``model_post_init`` hook; it drops the attribute later but
    keeps the hook, which would cost every node a Python call and an empty dict. Names a base
    declares as ``ClassVar`` are set on the class after pydantic has built it instead.

    Attribute reads on the class skip pydantic's ``__getattr__`` hook (:mod:`.plain_getattr`).
    """

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any) -> type:
        class_vars = set().union(*(getattr(b, "__class_vars__", ()) for b in bases))
        tables = {k: namespace.pop(k) for k in list(namespace) if k in class_vars and k.startswith("_")}
        if "__hash__" not in namespace and any(getattr(b, "_identity_hashed", False) for b in bases):
            namespace["__hash__"] = _identity_hash  # else pydantic gives a frozen model a field hash
        cls = super().__new__(mcs, name, bases, namespace, **kwargs)
        for key, value in tables.items():
            setattr(cls, key, value)
        if namespace.get("__hash__") is _identity_hash:
            # The same identity hash as object's C slot: dict and set lookups keyed by nodes (every
            # analysis and check) do not call a Python function.
            cls.__hash__ = object.__hash__  # type: ignore[method-assign]
            cls._identity_hashed = True
        use_plain_getattr(cls)
        return cls


# pydantic keeps, per instance, the set of field names the constructor was given
# (``model_fields_set``); for a small node that set is most of its memory. Nodes never change, so
# instances given the same names share one set (pydantic adds to it only on attribute assignment,
# which frozen models reject).
_FIELDS_SETS: dict[frozenset[str], set[str]] = {}
# The slots' own setters: half the cost of ``object.__setattr__`` (no name lookup).
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_set_dict = BaseModel.__dict__["__dict__"].__set__


class ModelBase(BaseModel, metaclass=_NodeMeta):
    """Shared pydantic configuration and the positional-argument constructor."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        arbitrary_types_allowed=True,
        revalidate_instances="never",
        validate_default=False,
        protected_namespaces=(),
    )

    _positional: ClassVar[tuple[str, ...]] = ()
    # Fields the constructor computes from others; ``replace`` does not pass them back in.
    _derived: ClassVar[tuple[str, ...]] = ()
    # Def fields (docs/ir.md#statements): fields that bind new variables, in binding order.
    _defs: ClassVar[tuple[str, ...]] = ()
    # True for the attrs models (pypto.ir.attrs): mappings that generic walkers treat like dicts.
    _mapping: ClassVar[bool] = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args:
            names = self._positional
            if len(args) > len(names):
                raise IRTypeError(
                    f"{type(self).__name__}() takes at most {len(names)} positional arguments "
                    f"({', '.join(names)}), got {len(args)}"
                )
            if kwargs and not kwargs.keys().isdisjoint(names[: len(args)]):
                name = next(n for n in names[: len(args)] if n in kwargs)
                raise IRTypeError(f"{type(self).__name__}() got multiple values for argument '{name}'")
            kwargs.update(zip(names, args))
        try:
            # What BaseModel.__init__ does, without its frame and a second copy of the arguments.
            self.__pydantic_validator__.validate_python(kwargs, self_instance=self)
        except ValidationError as err:
            text, all_value = _format_validation_error(type(self).__name__, err)
            raise (IRValueError if all_value else IRTypeError)(text) from None
        given = self.__pydantic_fields_set__
        _set_fields_set(self, _FIELDS_SETS.setdefault(frozenset(given), given))

    # Construction writes the fields without these (pydantic's validator fills ``__dict__``), so
    # they cost nothing; pydantic's own frozen check would raise a ValidationError (a ValueError).
    def __setattr__(self, name: str, value: Any) -> None:
        raise ImmutableNodeError(
            f"cannot assign {type(self).__name__}.{name}: IR nodes are immutable; "
            f"build a changed copy with ir.replace(node, {name}=...)"
        )

    def __delattr__(self, name: str) -> None:
        raise ImmutableNodeError(
            f"cannot delete {type(self).__name__}.{name}: IR nodes are immutable; "
            f"build a changed copy with ir.replace(node, {name}=...)"
        )

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """A model with ``update`` applied: a new one through the constructor (:func:`replace`).

        Pydantic's version copies with ``__copy__`` (nodes and types copy as themselves: they are
        immutable and shared) and then writes ``update`` into it, which would change the model in
        place under every program and cache that holds it.
        """
        return replace(self, **update) if update else self


class IRNode(ModelBase):
    """Base of expressions, statements, functions and programs. Carries a ``span``."""

    span: Span = Span.unknown()

    def same_as(self, other: object) -> bool:
        """Object identity."""
        return self is other

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = _identity_hash

    def as_python(self, prefix: str = "pl", concise: bool = False, format: bool = True) -> str:
        """Print this node as PyPTO DSL source."""
        return hooks.print_node(self, prefix=prefix, concise=concise, format=format)

    def __str__(self) -> str:
        return self.as_python()

    def __repr__(self) -> str:
        try:
            text = self.as_python()
        except Exception:  # pragma: no cover - repr must never fail
            text = "..."
        return f"<{type(self).__name__} {text}>"

    def __copy__(self) -> IRNode:
        return self

    def __deepcopy__(self, _memo: dict) -> IRNode:
        return self


def replace(node: ModelBase, **changes: Any) -> Any:
    """A copy of ``node`` with ``changes`` applied, validated through the constructor.

    Unlike pydantic's ``model_copy(update=...)`` this re-runs validation, so a wrong field type
    fails here instead of later. For a ``Var`` the copy is a new variable (new identity).
    """
    data = dict(node.__dict__)  # the fields (pydantic keeps them there, in declaration order)
    for name in node._derived:
        del data[name]
    for name in changes:
        if name not in data:  # a public spelling (``memory_space``) replaces the stored field
            data.pop(name + "_", None)
    data.update(changes)
    return type(node)(**data)


def copy_node(node: ModelBase) -> Any:
    """A new object equal to ``node`` field for field (a copy with a new identity), not validated
    again: its fields are those of a node that was validated when it was built. Not for variables
    (a copied variable needs a new unique id: :func:`replace`)."""
    new = object.__new__(type(node))
    _set_dict(new, dict(node.__dict__))
    _set_fields_set(new, node.__pydantic_fields_set__)
    _set_extra(new, None)
    _set_private(new, None)
    return new


def _strict_number(v: Any) -> Any:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise PydanticCustomError("number_type", "expected a number")  # a field error naming the node
    return float(v)


# Field annotations shared by all node modules: no silent coercion of "3" into 3 or True into 1.
Int = StrictInt
Bool = StrictBool
Str = StrictStr
Float = Annotated[float, BeforeValidator(_strict_number)]


def _to_dtype(v: Any) -> Any:
    return DataType(v) if isinstance(v, int) and not isinstance(v, bool) else v


# A DataType field; a raw int code is accepted, as in the reference API.
DType = Annotated[DataType, BeforeValidator(_to_dtype)]
