"""Builder functions generated from registry entries (``ir.op.tensor.add(a, b)`` -> typed ``Call``).

A builder's Python signature comes from the entry: positional parameters, then keyword attributes
(keyword-only where declared), then ``span=``. Builders normalise their inputs (docs/ops.md#arguments) and call
``create_op_call``; a missing ``span`` is captured from the caller's source line.
"""

from __future__ import annotations

import functools
import inspect
import keyword
import sys
from typing import Any, Callable

from ..errors import NoEffectWarning, PyptoError
from ..expr import Call, ConstInt, Expr, MakeTuple
from ..op_registry import REQUIRED, OpEntry, OpTypeError, Param, OpValueError, all_entries, build_call, get_entry
from ..span import Span
from ..type_base import ScalarType
from ..utils import warn_at


def py_name(entry: OpEntry) -> str:
    """The Python name of an op's builder: the leaf name, ``_``-suffixed when it is a keyword."""
    leaf = entry.leaf
    return leaf + "_" if keyword.iskeyword(leaf) else leaf


def signature_of(entry: OpEntry) -> inspect.Signature:
    """``(params..., kwargs..., *, span=None)`` in the entry's declared DSL order."""
    order = list(entry.signature) if entry.signature is not None else (
        [p.name for p in entry.params] + [k.name for k in entry.kwargs if not k.keyword_only]
        + ["*"] + [k.name for k in entry.kwargs if k.keyword_only]
    )
    positional: list[inspect.Parameter] = []
    keyword_only: list[inspect.Parameter] = []
    star = False
    for name in order:
        if name == "*":
            star = True
            continue
        param, kwarg = entry.param(name), entry.kwarg(name)
        if param is not None:
            default = None if param.optional else inspect.Parameter.empty
            kw_only = star
        else:
            default = inspect.Parameter.empty if kwarg.default is REQUIRED else kwarg.default
            kw_only = star or kwarg.keyword_only
        kind = inspect.Parameter.KEYWORD_ONLY if kw_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
        (keyword_only if kw_only else positional).append(inspect.Parameter(name, kind, default=default))
    keyword_only.append(inspect.Parameter("span", inspect.Parameter.KEYWORD_ONLY, default=None))
    return inspect.Signature(positional + keyword_only)


_EMPTY = inspect.Parameter.empty


class Binder:
    """``sig.bind(*args, **kwargs)`` plus ``apply_defaults()`` for a builder signature, as a dict.

    Builder signatures have positional-or-keyword parameters, then keyword-only ones, and no
    ``*args``/``**kwargs``, so binding is a walk over the parameters. :meth:`bind` returns None
    where ``inspect`` would raise; the caller binds again through ``inspect`` for its message.
    """

    __slots__ = ("sig", "params", "positional", "names", "rest")

    def __init__(self, sig: inspect.Signature) -> None:
        self.sig = sig
        self.params = [(name, p.default) for name, p in sig.parameters.items()]
        self.positional = sum(1 for p in sig.parameters.values() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD)
        self.names = [name for name, _ in self.params[: self.positional]]
        # The defaults of the keyword-only parameters, or None when one of them is required.
        rest = self.params[self.positional:]
        self.rest = None if any(d is _EMPTY for _, d in rest) else dict(rest)

    def bind(self, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any] | None:
        n = len(args)
        if n == self.positional and not kwargs and self.rest is not None:  # the common call: all positional
            values = dict(zip(self.names, args))
            values.update(self.rest)
            return values
        if n > self.positional:
            return None
        values: dict[str, Any] = {}
        taken = 0
        for i, (name, default) in enumerate(self.params):
            if i < n:
                if name in kwargs:
                    return None
                values[name] = args[i]
            elif name in kwargs:
                values[name] = kwargs[name]
                taken += 1
            elif default is _EMPTY:
                return None
            else:
                values[name] = default
        return values if taken == len(kwargs) else None


_BINDERS: dict[str, Binder] = {}


def binder_of(entry: OpEntry) -> Binder:
    """The (cached) binder of an op's builder signature."""
    binder = _BINDERS.get(entry.name)
    if binder is None:
        binder = _BINDERS[entry.name] = Binder(signature_of(entry))
    return binder


def caller_span(depth: int = 2) -> Span:
    """``Span(file, line, -1)`` of the frame ``depth`` levels up."""
    frame = sys._getframe(depth)
    return Span(frame.f_code.co_filename, frame.f_lineno, -1)


def positional_args(entry: OpEntry, values: dict[str, Any]) -> list[Any]:
    """The normalised positional arguments of a call, given every bound builder value.

    Missing optional arguments are left out; one followed by a present argument becomes an empty
    list when the parameter allows that placeholder (``slice``'s valid_shape before drop_dims).
    """
    params = entry.params
    present = [values.get(p.name) for p in params]
    if entry.min_args() == len(params):  # no optional parameter: every argument must be present
        out = []
        for p, value in zip(params, present):
            if value is None:
                break
            out.append(value if p.norm is None else _normalised(entry, p, value, values))
        else:
            return out
    for i, p in enumerate(params):
        if present[i] is None and p.default_from is not None:
            present[i] = present[[q.name for q in params].index(p.default_from)]
    last = len(present) - 1
    while last >= 0 and present[last] is None:
        last -= 1
    used, out = [], []
    for i, p in enumerate(params):
        value = present[i]
        if value is None:
            if not (p.fill_empty and i < last):
                continue
            value = MakeTuple([])
        elif p.norm is not None:
            value = _normalised(entry, p, value, values)
        used.append(p.name)
        out.append(value)
    expected = [p.name for p in entry.bind(out)]
    if used != expected:
        missing = next((a for a, b in zip(expected, used) if a != b), None)
        if missing is None:  # a required argument at the end was None
            raise OpTypeError(f"Operator '{entry.name}': argument '{expected[len(used)]}' is required", entry.name)
        raise OpTypeError(f"Operator '{entry.name}': argument '{missing}' is required by the arguments after it",
                          entry.name)
    return out


def _normalised(entry: OpEntry, p: Param, value: Any, values: dict[str, Any]) -> Any:
    """``p.norm(value, values)``; its TypeError/ValueError become op errors naming the argument."""
    try:
        return p.norm(value, values)
    except PyptoError:
        raise
    except TypeError as err:
        raise OpTypeError(f"Operator '{entry.name}': argument '{p.name}': {err}", entry.name) from None
    except ValueError as err:
        raise OpValueError(f"Operator '{entry.name}': argument '{p.name}': {err}", entry.name) from None


def bind_arguments(entry: OpEntry, binder: Binder, args: tuple, kwargs: dict[str, Any], span: Span) -> dict[str, Any]:
    """Every builder parameter's value (defaults filled in); a bad call raises OpTypeError with the signature."""
    values = binder.bind(args, kwargs)
    if values is not None:
        return values
    sig = binder.sig
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as err:
        raise OpTypeError(f"Operator '{entry.name}': {err}; signature {py_name(entry)}{sig}", entry.name,
                          span) from None
    bound.apply_defaults()
    return dict(bound.arguments)


def call_entry(entry: OpEntry, binder: Binder, args: tuple, kwargs: dict[str, Any], span: Span) -> Call:
    """Bind builder arguments to the builder signature, normalise them and build the typed Call."""
    values = bind_arguments(entry, binder, args, kwargs, span)
    values.pop("span", None)
    try:
        pos = positional_args(entry, values)
    except (OpTypeError, OpValueError) as err:
        err.span = span
        raise
    kw = {k.name: values[k.name] for k in entry.kwargs if values.get(k.name) is not None}
    call = build_call(entry, pos, kw, span)
    if entry.lint is not None:
        message = entry.lint(call)
        if message is not None:
            warn_at(message, NoEffectWarning, span)
    return call


def make_builder(entry: OpEntry) -> Callable[..., Call]:
    """The builder function of one op."""
    binder = binder_of(entry)
    sig = binder.sig

    def builder(*args: Any, **kwargs: Any) -> Call:
        span = kwargs.pop("span", None)
        return call_entry(entry, binder, args, kwargs, span if span is not None else caller_span())

    builder.__name__ = builder.__qualname__ = py_name(entry)
    builder.__signature__ = sig  # type: ignore[attr-defined]
    builder.__doc__ = f"``{entry.name}``: {entry.doc}"
    return builder


def populate(namespace: dict[str, Any], family: str) -> list[str]:
    """Define a builder in ``namespace`` for every op ``family.*``; return the names defined."""
    names = []
    for entry in all_entries():
        if entry.namespace == family:
            name = py_name(entry)
            namespace[name] = make_builder(entry)
            names.append(name)
    return names


def build(op_name: str, *args: Any, span: Span | None = None, **kwargs: Any) -> Call:
    """Call the builder of ``op_name`` directly (used by hand-written builders)."""
    entry = get_entry(op_name)
    return call_entry(entry, binder_of(entry), args, kwargs, span if span is not None else caller_span())


def _is_scalar(value: Any) -> bool:
    """A Python number or a scalar-typed Expr: the rhs of a ``*s`` op."""
    if isinstance(value, (int, float)):
        return not isinstance(value, bool)
    return isinstance(value, Expr) and isinstance(value.type, ScalarType)


def _scalar_dispatching(plain: Callable[..., Call], scalar_form: Callable[..., Call]) -> Callable[..., Call]:
    sig: inspect.Signature = plain.__signature__  # type: ignore[attr-defined]
    binder = Binder(sig)

    def builder(lhs: Any, rhs: Any, *args: Any, span: Span | None = None, **kwargs: Any) -> Call:
        span = span if span is not None else caller_span()
        values = binder.bind((lhs, rhs, *args), kwargs)
        if values is None:
            try:
                values = sig.bind(lhs, rhs, *args, **kwargs).arguments
            except TypeError:
                return plain(lhs, rhs, *args, span=span, **kwargs)  # it reports the bad arguments
        if _is_scalar(rhs) and not values.get("high_precision"):
            return scalar_form(lhs, rhs, span=span)
        return plain(lhs, rhs, *args, span=span, **kwargs)

    builder.__name__ = builder.__qualname__ = plain.__name__
    builder.__signature__ = sig  # type: ignore[attr-defined]
    builder.__doc__ = f"{plain.__doc__} A scalar rhs builds ``{scalar_form.__name__}``."
    return builder


def pick_scalar_forms(namespace: dict[str, Any], names: tuple[str, ...]) -> None:
    """Make each builder ``name(lhs, rhs)`` build the ``<name>s`` op when ``rhs`` is a scalar.

    docs/ops.md#tensor-ops / §5.2: ``tensor.add(t, 2.0)`` is ``tensor.adds`` (likewise sub/mul/div,
    ``and_``/``or_``/``shl``/``shr`` -> ``ands``/``ors``/``shls``/``shrs``, and the tile forms), so the DSL and the IR builders never make a ``tensor.add`` of a constant, which would
    print as ``pl.tensor.adds`` and parse back as a different op. ``high_precision=True`` keeps the
    plain op, whose rule rejects a scalar rhs with a TypeError.
    """
    for name in names:
        namespace[name] = _scalar_dispatching(namespace[name], namespace[name.rstrip("_") + "s"])


def mrgsort_dispatcher(name: str, format1: Callable[..., Any], format2: Callable[..., Any]) -> Callable[..., Any]:
    """The ``mrgsort`` spelling named ``name``: ``mrgsort(src0, *, block_len)`` -> ``format1``;
    ``mrgsort(src0, src1, ..., *, exhausted=False)`` -> ``format2``; a trailing Span is the span."""

    def mrgsort(src0: Any, *srcs: Any, block_len: int | None = None, exhausted: bool = False, span: Any = None) -> Any:
        if srcs and isinstance(srcs[-1], Span) and span is None:
            srcs, span = srcs[:-1], srcs[-1]
        span = span if span is not None else caller_span()
        if block_len is not None:
            if srcs:
                raise OpTypeError(f"{name}: block_len is only for the single-list form")
            return format1(src0, block_len=block_len, span=span)
        return format2(src0, *srcs, exhausted=exhausted, span=span)

    mrgsort.__qualname__ = "mrgsort"
    mrgsort.__doc__ = f"``{name}``: format 1 with ``block_len``, format 2 with several sorted sources."
    return mrgsort


def dim_first_dispatcher(plain: Callable[..., Call]) -> Callable[..., Call]:
    """``scatter_update`` in both established argument orders: ``(input, index, src, dim=-2)`` and
    ``(input, dim, index, src)``, told apart by the second argument being a constant dim."""

    @functools.wraps(plain)
    def scatter_update(input: Any, *args: Any, span: Span | None = None, **kwargs: Any) -> Call:  # noqa: A002
        span = span if span is not None else caller_span()
        if len(args) == 3 and _is_const_dim(args[0]):
            if "dim" in kwargs:
                raise OpTypeError(f"{plain.__name__}: dim given both positionally and as dim=")
            dim, index, src = args
            return plain(input, index, src, dim=int(dim.value if isinstance(dim, ConstInt) else dim), span=span,
                         **kwargs)
        return plain(input, *args, span=span, **kwargs)

    scatter_update.__doc__ = (plain.__doc__ or "") + "\n\nAlso ``scatter_update(input, dim, index, src)``."
    return scatter_update


def _is_const_dim(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, ConstInt)
