"""The pass base classes: :class:`Pass`, :class:`FunctionPass`, :class:`ProgramPass` and :data:`SAME`.

A pass declares its ``name`` (default: the class name), the ``source`` and ``target`` dialects,
and the property contract of docs/passes.md#contract (``requires``, ``produces``, ``invalidates``; sets of
invariants). A pass accepts every program of its source dialect or of a dialect descending from it
(``source = surface``, the default, accepts all); ``target = SAME`` (the default) says the pass keeps
the dialect it is given (Simplify runs in several dialects). Calling a pass object on a Program
checks that the program is in the source dialect with the required properties, runs the pass under
the active :class:`~pypto.transform.context.PassContext` (instruments, and a check of the properties it
produces) and returns the new Program::

    after = passes.convert_to_ssa()(before)

A pass is a dataclass whose fields are its options (as in xDSL); every subclass becomes one
automatically. Options are frozen once the pass is built (per-run state may live on a copy of the
pass, as in :class:`~pypto.transform.rewrite.RewritePass`), and an option of the wrong type is a
:class:`~pypto.transform.errors.PassError`::

    class Tile(FunctionPass):
        size: int = 64

    Tile(size=128)          # Tile(size="big") raises PassError

An option's type may be a ``Literal`` of the allowed values or carry bounds
(``Annotated[int, Ge(1)]``); the error then lists the values or states the bound. The pass
docstring documents each option; the pass manager sets them by pass name
(``PassManager(..., pass_options={"UnrollLoops": {"max_trip_count": 64}})``).

Passes are pure: they build new nodes and never mutate. The passes are written on
:class:`~pypto.transform.rewrite.RewritePass`, which dispatches on node type and rebuilds only what
changed.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import types
import typing
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from pydantic import TypeAdapter, ValidationError
from pypto.languages.dialect import Dialect
from pypto.languages.invariants.base import Invariant
from pypto.languages.surface import surface

from pypto.ir.function import Function, Program

from .errors import PassError
from .program_rebuild import with_functions
from .properties import IRPropertySet


class Same:
    """The type of :data:`SAME`: a pass target meaning "the dialect the program is in"."""

    def __repr__(self) -> str:
        return "SAME"


SAME = Same()


@functools.cache
def option_type(cls: type, field: str) -> Any:
    """The declared type of option ``field`` of pass class ``cls`` (``Annotated`` bounds kept)."""
    return typing.get_type_hints(cls, include_extras=True)[field]


@functools.cache
def _option_adapter(cls: type, field: str) -> TypeAdapter:
    return TypeAdapter(option_type(cls, field))


_BOUNDS = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}


def describe_option_type(hint: Any) -> str:
    """An option type in words: ``int``, ``int >= 1 or None``, ``one of 'first_fit', 'best_fit'``."""
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(v) for v in typing.get_args(hint))
    if origin is typing.Annotated:
        base, *meta = typing.get_args(hint)
        bounds = [f"{op} {getattr(m, key)}" for m in meta for key, op in _BOUNDS.items() if hasattr(m, key)]
        text = describe_option_type(base)
        return f"{text} {' and '.join(bounds)}" if bounds else text
    if origin in (typing.Union, types.UnionType):
        return " or ".join(describe_option_type(a) for a in typing.get_args(hint))
    if hint is type(None):
        return "None"
    return hint.__name__ if isinstance(hint, type) else str(hint)


def did_you_mean(name: str, known: typing.Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the known name closest to ``name`` (case and ``_`` ignored), else ``""``."""
    folded = {k.lower().replace("_", ""): k for k in known}
    key = name.lower().replace("_", "")
    close = [key] if key in folded else difflib.get_close_matches(key, list(folded), n=1)
    return f"; did you mean '{folded[close[0]]}'?" if close else ""


@dataclasses.dataclass(repr=False, unsafe_hash=True)
class Pass(ABC):
    """Base of every pass: name, dialects, property contract and options; ``run`` does the work."""

    name: ClassVar[str] = ""
    source: ClassVar[Dialect] = surface
    target: ClassVar[Dialect | Same] = SAME
    requires: ClassVar[frozenset[Invariant]] = frozenset()
    produces: ClassVar[frozenset[Invariant]] = frozenset()
    invalidates: ClassVar[frozenset[Invariant]] = frozenset()
    # The invariants a program must hold for the pass applied on its own (``pass_(program)``, with
    # its source dialect's grammar), where that is less than its place in the pipeline needs;
    # None: all of its source dialect's and ``requires``.
    accepts: ClassVar[frozenset[Invariant] | None] = None
    # Where a plugin pass goes in the default pipeline: after / before the pass of that name.
    after: ClassVar[str | None] = None
    before: ClassVar[str | None] = None
    _named: ClassVar[bool] = False
    # The option names (the dataclass fields, in order), read by every construction and assignment.
    _option_names: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A name set in a class body is inherited (a subclass of a plugin pass keeps its name);
        # otherwise the pass is named after its class.
        if "name" in cls.__dict__:
            cls._named = True
        elif not cls._named:
            cls.name = cls.__name__
        dataclasses.dataclass(repr=False, unsafe_hash=True)(cls)
        cls._option_names = tuple(f.name for f in dataclasses.fields(cls))
        if cls.__setattr__ in (Pass.__setattr__, object.__setattr__) and "__setattr__" not in cls.__dict__:
            # Only options are frozen: a pass without any keeps Python's own assignment (a rewrite
            # sets its per-run state some 24 times per function it rebuilds).
            cls.__setattr__ = Pass.__setattr__ if cls._option_names else object.__setattr__  # type: ignore[method-assign]
        init = cls.__init__

        @functools.wraps(init)
        def checked_init(self: Pass, *args: Any, **options: Any) -> None:
            known = cls._option_names
            for key in options:
                if key not in known:
                    listed = ", ".join(known) if known else "none"
                    raise PassError(cls.name, f"unknown option '{key}' (options: {listed}){did_you_mean(key, known)}")
            try:
                init(self, *args, **options)
            except TypeError as err:  # too many positional options
                raise PassError(cls.name, f"bad options: {err}") from None

        cls.__init__ = checked_init  # type: ignore[method-assign]

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._option_names and self.__dict__.get("_built", False):
            raise dataclasses.FrozenInstanceError(f"cannot assign to option '{name}' of pass {self.name}")
        object.__setattr__(self, name, value)

    def __post_init__(self) -> None:
        for name in self._option_names:
            value = getattr(self, name)
            try:
                _option_adapter(type(self), name).validate_python(value, strict=True)
            except ValidationError:
                want = describe_option_type(option_type(type(self), name))
                raise PassError(self.name, f"option '{name}' must be {want}, got {value!r}") from None
        object.__setattr__(self, "_built", True)  # no option check: nothing is frozen yet

    @abstractmethod
    def run(self, program: Program) -> Program:
        """Transform ``program`` (FunctionPass implements it through ``run_function``)."""

    # The established API's accessors of the contract (our invariants are its IR properties).
    def get_name(self) -> str:
        """The pass name."""
        return self.name

    @classmethod
    @functools.cache
    def required(cls) -> frozenset[str]:
        """Names of the properties that must hold before the pass: what its source dialect guarantees
        beyond ``surface`` (whose properties every pipeline input is checked for), plus ``requires``,
        the properties passes establish inside a dialect (NormalizedStmtStructure, TileOps2D, ...)."""
        return (cls.source.properties - surface.properties) | {i.name for i in cls.requires}

    def get_required_properties(self) -> IRPropertySet:
        """The properties that must hold before the pass (:meth:`required`)."""
        return IRPropertySet(sorted(self.required()))

    def get_produced_properties(self) -> IRPropertySet:
        """The properties the pass establishes (``produces``)."""
        return IRPropertySet(self.produces)

    def get_invalidated_properties(self) -> IRPropertySet:
        """The properties the pass may break (``invalidates``)."""
        return IRPropertySet(self.invalidates)

    def target_from(self, current: Dialect) -> Dialect:
        """The dialect of the output when the input is in ``current`` (``current`` for SAME)."""
        return current if isinstance(self.target, Same) else self.target

    def __call__(self, program: Program) -> Program:
        from .context import apply_pass

        return apply_pass(self, program, check_source=True)

    def __repr__(self) -> str:
        options = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self))
        return f"<Pass {self.name}{f'({options})' if options else ''}>"


class ProgramPass(Pass):
    """A pass that sees the whole program at once (e.g. to inline across functions)."""


class FunctionPass(Pass):
    """A pass applied to each function independently; the program is rebuilt only if one changed
    (:func:`~pypto.transform.program_rebuild.with_functions`: keeping its keys when no function is renamed)."""

    @abstractmethod
    def run_function(self, func: Function, program: Program) -> Function:
        """The transformed function (return ``func`` itself when nothing changes)."""

    def run(self, program: Program) -> Program:
        return with_functions(program, [self.run_function(f, program) for f in program.functions.values()])
