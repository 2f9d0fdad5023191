"""Typed attributes: the ``attrs`` of calls, submits, for-loops, scopes and functions.

Each node kind that carries ``attrs`` has a frozen pydantic model listing the keys the compiler
reserves for it, with their types (``CallAttrs``, ``TaskDummyAttrs``, ``SubmitAttrs``,
``ForAttrs``, ``ScopeAttrs`` / ``InCoreScopeAttrs`` / ``SpmdScopeAttrs``, ``FunctionAttrs``).
A node accepts a dict (``ir.Call(op, args, attrs={...})``, as in docs/ir.md) and validates it into
its model; the model reads like the ordered mapping the spec describes (``attrs["split"]``,
``attrs.get("slot_num")``, ``"task_id_var" in attrs``, ``{**attrs, "k": v}``, ``attrs == {...}``)
and also by attribute (``attrs.slot_num``, None when absent). Iteration (and so printing) lists the
reserved keys in declaration order, then the user keys in the order given.

* A reserved key with a value of the wrong type is an error naming the node and the key.
* A key reserved for another node kind (``manual_dep_edges`` on a Call, ``split`` on a loop), or a
  near miss of a reserved key (``arg_direction``), is an unknown key: an error too.
  So a plain Call cannot carry manual dependency edges: only ``system.task_dummy`` calls (model
  ``TaskDummyAttrs``) and scopes can, and Submits carry theirs in ``Submit.deps``.
* Any other key is a user attribute (``pl.func_attr({"note": "x"})``, ``attrs={"unroll_hint": 2}``),
  kept as given (the printer and the serializer report a value they cannot handle).

This module sits in the IR core below ``expr``: ``expr`` binds the ``Expr``/``Var`` classes the
field annotations name (``bind_expr_classes``) before it defines the nodes that carry attrs.
"""

from __future__ import annotations

import difflib
import enum
import functools
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, StrictBool, StrictInt, StrictStr, TypeAdapter
from pydantic import ValidationError, ValidatorFunctionWrapHandler, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from .enums import ArgDirection, SplitMode
from .errors import IRTypeError, IRValueError
from .node import ModelBase, _format_validation_error

if TYPE_CHECKING:
    from .expr import Expr, Var

PosInt = Annotated[StrictInt, Field(ge=1)]
ArgIndex = Annotated[StrictInt, Field(ge=0)]


def _enum_value(cls: type[enum.IntEnum]) -> Any:
    """An ``cls`` member; its int value is accepted (as in the reference API), a bool or str is not."""

    def check(v: Any) -> Any:
        if isinstance(v, cls):
            return v
        if isinstance(v, int) and not isinstance(v, bool):
            try:
                return cls(v)
            except ValueError:
                raise ValueError(f"{v} is not a value of {cls.__name__}") from None
        raise PydanticCustomError("enum_type", "expected a member of {cls}", {"cls": cls.__name__})

    return Annotated[cls, PlainValidator(check)]


def _core_num(v: Any) -> Any:
    if isinstance(v, Expr):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        if v < 1:
            raise ValueError(f"a core count must be >= 1, got {v}")
        return v
    raise PydanticCustomError("core_num_type", "expected an int >= 1 or an index Expr")


Direction = _enum_value(ArgDirection)
Split = _enum_value(SplitMode)
# A launch core count: a positive int or an expression.
CoreNum = Annotated[Union[int, "Expr"], PlainValidator(_core_num)]


class AttrsBase(ModelBase, Mapping[str, Any]):
    """An ordered, read-only mapping of attribute keys to values with typed reserved keys.

    Subclasses declare the reserved keys as fields (``None`` = absent) and may declare
    ``_patterns``: families of reserved keys such as ``iter_arg_rebind_<i>``, with their types.
    Not an IR node: the generic walkers (traversal, structural equality, serialization, printer)
    treat it as a container of its values, like a dict.
    """

    model_config = ConfigDict(extra="allow")

    _patterns: ClassVar[tuple[tuple[re.Pattern[str], Any], ...]] = ()
    _what: ClassVar[str] = ""  # the node kind, for messages
    _mapping = True

    def __init__(self, **data: Any) -> None:
        try:
            BaseModel.__init__(self, **data)
        except ValidationError as err:
            text, all_value = _format_validation_error(type(self).__name__, err)
            raise (IRValueError if all_value else IRTypeError)(text) from None

    # Marks this __init__ as pydantic's own, so validating a dict (``model_validate``, as nodes do
    # through ``for_node``) does not route through it and keeps pydantic's error for ``for_node``.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @model_validator(mode="wrap")
    @classmethod
    def _validate(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if isinstance(data, cls):  # a node's field: the node chose the model (``for_node``)
            return data
        if isinstance(data, AttrsBase):  # another kind's model: check its keys again
            data = dict(data)
        if not isinstance(data, Mapping):
            raise PydanticCustomError("attrs_type", "attrs must be a dict with string keys")
        values, errors = {}, []
        for key, value in data.items():
            try:
                values[key] = cls._check_key(key, value)
            except PydanticCustomError as err:
                errors.append(InitErrorDetails(type=err, loc=(str(key),), input=value))
        if errors:  # report the type errors of the other keys too
            try:
                handler({k: v for k, v in values.items() if k in cls.model_fields})
            except ValidationError as err:
                errors += [InitErrorDetails(type=PydanticCustomError(e["type"], e["msg"]), loc=e["loc"],
                                            input=e["input"]) for e in err.errors()]
            raise ValidationError.from_exception_data(cls.__name__, errors)
        return handler(values)

    @classmethod
    def _check_key(cls, key: Any, value: Any) -> Any:
        """Reject a key that is not this kind's; validate a pattern key."""
        if not isinstance(key, str):
            raise PydanticCustomError("attrs_key", "attrs keys must be str")
        if key in cls.model_fields:
            if value is None:
                raise PydanticCustomError("attrs_none", "a reserved key cannot be None (leave it out)")
            return value
        for pattern, adapter in cls._patterns:
            if pattern.fullmatch(key):
                try:
                    return adapter.validate_python(value)
                except ValidationError as err:
                    raise PydanticCustomError("attrs_value", err.errors()[0]["msg"]) from None
        reserving = [m for m in _MODELS if m is not cls and _reserves(m, key)]
        owners = [m._what for m in reserving if not any(m is not b and issubclass(m, b) for b in reserving)]
        if owners:
            raise PydanticCustomError("attrs_unknown", "not an attrs key of {node}, but of {owners}",
                                      {"node": cls._what, "owners": ", ".join(owners)})
        near = difflib.get_close_matches(key, _reserved_names(), n=1, cutoff=0.85)
        if near:
            raise PydanticCustomError("attrs_unknown", "unknown key (did you mean '{near}'?)", {"near": near[0]})
        return value

    @classmethod
    def for_node(cls, node: str, value: Any) -> AttrsBase:
        """``value`` (a dict, None or another attrs model) validated into ``cls`` for node ``node``;
        errors read ``<node>: field 'attrs.<key>': ...`` (IRTypeError, or IRValueError for bad values)."""
        if type(value) is cls:
            return value
        if value is None or (type(value) is dict and not value):  # one shared empty model per kind
            return _empty(cls)
        if isinstance(value, AttrsBase):  # another kind's model, a subclass included: check its keys again
            value = dict(value)
        try:
            return cls.model_validate(value)
        except ValidationError as err:
            text, all_value = _format_validation_error(node, err, ("attrs",))
            raise (IRValueError if all_value else IRTypeError)(text) from None

    # ---- the mapping view: reserved keys in declaration order, then user keys as given ------
    # (pydantic's fields set holds the reserved and the user keys that were given)
    def _keys(self) -> list[str]:
        given = self.__pydantic_fields_set__
        extra = self.__pydantic_extra__ or {}
        return [name for name in type(self).model_fields if name in given] + list(extra)

    def __getitem__(self, key: str) -> Any:
        if key in self.__pydantic_fields_set__:
            extra = self.__pydantic_extra__
            return extra[key] if extra and key in extra else self.__dict__[key]
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self.__pydantic_fields_set__)

    def __contains__(self, key: object) -> bool:
        return key in self.__pydantic_fields_set__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        return len(self) == len(other) and all(k in other and other[k] == v for k, v in self.items())

    __hash__ = None  # type: ignore[assignment]  # like a dict

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self.items())!r})"

    __str__ = __repr__

    # frozen like the nodes holding it, which copy as themselves too
    def __copy__(self) -> AttrsBase:
        return self

    def __deepcopy__(self, _memo: dict) -> AttrsBase:
        return self


@functools.cache
def _empty(model: type[AttrsBase]) -> AttrsBase:
    return model()


def _reserves(model: type[AttrsBase], key: str) -> bool:
    return key in model.model_fields or any(p.fullmatch(key) for p, _ in model._patterns)


@functools.cache
def _reserved_names() -> tuple[str, ...]:
    return tuple(sorted({name for model in _MODELS for name in model.model_fields}))


# ---- the models ----------------------------------------------------------------------------


class CallAttrs(AttrsBase):
    """Attrs of a Call (of an op or of a program function)."""

    _what = "a call"

    arg_directions: list[Direction] | None = None  # per argument (DeriveCallDirections)
    arg_direction_overrides: list[ArgIndex] | None = None  # arguments made NoDep (pl.no_dep, no_dep_args=)
    dump_vars: list[Var] | None = None  # tensors tagged by pl.dump_tag that the call consumes
    core_num: CoreNum | None = None  # launch spec of a kernel dispatch (OutlineClusterScopes)
    sync_start: StrictBool | None = None
    core_placement: Literal["aic", "aiv"] | None = None  # a call pinned to one core side (ExpandMixedKernel)
    auto_sync: StrictBool | None = None  # a pipe sync placed by InsertPipeSync (the PTO emitter skips it)


class TaskDummyAttrs(CallAttrs):
    """Attrs of a ``system.task_dummy`` call: the dependency-only task joins ``manual_dep_edges``."""

    _what = "a system.task_dummy call"

    manual_dep_edges: list[Expr] | None = None
    dummy_task: StrictBool | None = None  # inserted by ExpandManualPhaseFence


class SubmitAttrs(AttrsBase):
    """Attrs of a Submit (its user edges are the ``deps`` field)."""

    _what = "a submit"

    arg_directions: list[Direction] | None = None
    arg_direction_overrides: list[ArgIndex] | None = None
    dump_vars: list[Var] | None = None
    compiler_manual_dep_edges: list[Expr] | None = None  # AutoDeriveTaskDependencies


class ForAttrs(AttrsBase):
    """Attrs of a ForStmt, plus ``iter_arg_rebind_<i>`` (bool) and ``iter_arg_array_size_<i>`` (int)
    stamped by ClassifyIterArgCarry."""

    _what = "a for loop"

    pipeline_stages: PosInt | None = None  # exactly on ForKind.Pipeline loops
    _patterns = (
        (re.compile(r"iter_arg_rebind_\d+"), TypeAdapter(StrictBool)),
        (re.compile(r"iter_arg_array_size_\d+"), TypeAdapter(PosInt)),
    )


class ScopeAttrs(AttrsBase):
    """Attrs of Cluster, Hierarchy, Runtime, SplitAiv and CommDomain scopes."""

    _what = "a Cluster, Hierarchy, Runtime, SplitAiv or CommDomain scope"

    dump_vars: list[Var] | None = None  # printed dumps=[...]


class _TaskScopeAttrs(ScopeAttrs):
    """Keys of the scopes that become a task (``with ... as tid``, ``deps=``)."""

    task_id_var: Var | None = None  # the ``as tid`` TaskId the scope defines
    manual_dep_edges: list[Expr] | None = None  # deps=[...]
    allow_early_resolve: StrictBool | None = None


class InCoreScopeAttrs(_TaskScopeAttrs):
    """Attrs of an InCoreScopeStmt (``pl.at(level=CORE_GROUP, ...)``)."""

    _what = "an InCore scope"

    no_dep_args: list[Var] | None = None
    slot_num: PosInt | None = None  # pl.cross_core_slot(slot_num=N)


class SpmdScopeAttrs(_TaskScopeAttrs):
    """Attrs of a SpmdScopeStmt (``pl.spmd(N, ...)``)."""

    _what = "an Spmd scope"

    predicate: Expr | None = None  # predicate=(t[i] > 0), moved to Submit.predicate when outlined


class FunctionAttrs(AttrsBase):
    """Attrs of a Function."""

    _what = "a function"

    auto_scope: StrictBool | None = None  # @pl.function(auto_scope=False); MaterializeRuntimeScopes
    external_source: StrictStr | None = None  # @pl.function(external_source="k.cpp")
    split: Split | None = None  # Function.split
    split_aiv: StrictBool | None = None  # the function came from outlining split-aiv regions
    slot_num: PosInt | None = None  # cross-core ring depth
    core_num: CoreNum | None = None  # launch spec of a Spmd function
    sync_start: StrictBool | None = None
    dual_aiv_dispatch: StrictBool | None = None  # an AIV kernel dispatched on both AIV lanes
    spmd_unwrapped: StrictBool | None = None  # a Group whose single spmd moved its launch spec to the call
    # ExportEntryResults: the last N params are tensors the entry created and returns (a call allocates them)
    created_results: PosInt | None = None
    results: list[ArgIndex] | None = None  # the param behind each value the entry returns, in return order


_MODELS: tuple[type[AttrsBase], ...] = (
    CallAttrs, TaskDummyAttrs, SubmitAttrs, ForAttrs, ScopeAttrs, InCoreScopeAttrs, SpmdScopeAttrs, FunctionAttrs,
)


def bind_expr_classes(expr_cls: type, var_cls: type) -> None:
    """Resolve the ``Expr``/``Var`` names of the field annotations (called once by ``expr``)."""
    globals().update(Expr=expr_cls, Var=var_cls)
    for model in (AttrsBase, _TaskScopeAttrs, *_MODELS):
        model.model_rebuild(force=True)


__all__ = [
    "AttrsBase",
    "CallAttrs",
    "ForAttrs",
    "FunctionAttrs",
    "InCoreScopeAttrs",
    "ScopeAttrs",
    "SpmdScopeAttrs",
    "SubmitAttrs",
    "TaskDummyAttrs",
    "bind_expr_classes",
]
