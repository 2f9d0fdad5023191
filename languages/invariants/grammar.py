"""Declarative grammar rules and the one walker that checks them.

A dialect says more than which node classes exist. The rules below state what changes *below* the
node class, and an :class:`~pypto.languages.invariants.base.Invariant` built with
:meth:`Invariant.declared` is nothing but a list of them::

    Forbid(Ops("tile ops", prefix="tile."), where=inside(FunctionType.Orchestration), ...)
    Field(TileType, "memory_space", Present(), where=inside(*KERNELS), ...)   # inside every Var type
    Field(Call, "args", NoNode(Call, Submit, through=TRANSPARENT), ...)         # no nested calls
    Attr(ForStmt, "iter_arg_rebind_{i}", per="iter_args", ...)                  # required attrs

* :class:`Forbid` -- a node kind, a form (:class:`Variant`) or a set of ops that may not appear,
  everywhere or in some function kinds, or inside another node kind.
* :class:`Field` -- a field refinement: what a field of a node (or of a type) may hold.
* :class:`Attr` -- an attribute a node must carry (or must not).

:func:`check_rules` walks a function once in pre-order -- statements, expressions, and the type of
every variable with the types nested in it -- and applies each rule to the nodes it is about.
Messages are format strings over ``node``, ``func`` (function name), ``kind`` (function kind) and
the fields a refinement adds (``op``, ``var``, ``count``, ...).
"""

from __future__ import annotations

from pypto.analysis import function_index, walk

import enum
import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pypto.ir import op_registry
from pypto.ir.enums import FunctionType
from pypto.ir.expr import Call, ConstBool, ConstFloat, ConstInt, GlobalVar, MakeTuple, Submit, TupleGetItemExpr, Var
from pypto.ir.function import Function
from pypto.ir.node import IRNode
from pypto.ir.span import Span
from pypto.ir.traversal import iter_value
from pypto.ir.type_base import TupleType, Type


# What a rule looks at: IR nodes, and the types inside variables' types.
Node = IRNode | Type
# Function kinds that hold kernel code (docs/dialects.md#function-kinds: "InCore-type").
KERNELS = (FunctionType.InCore, FunctionType.AIC, FunctionType.AIV)
# Wrappers a value may pass through on its way to a field.
TRANSPARENT = (MakeTuple, TupleGetItemExpr)


def _value_text(value: Any) -> str:
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    return repr(value)


def _names(classes: Iterable[type]) -> str:
    return ", ".join(c.__name__ for c in classes)


# ---- selectors: which nodes a rule is about -------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """The nodes of class ``cls`` whose ``field`` equals ``value``, e.g. ``ForStmt[kind=Unroll]``.

    ``established_by`` names the invariant that guarantees the form is gone; a pass manager uses it
    to tell, before running a pass, whether the target dialect can be reached.
    """

    cls: type
    field: str
    value: Any
    established_by: Any = None

    @property
    def classes(self) -> tuple[type, ...]:
        """The node classes to look at."""
        return (self.cls,)

    def matches(self, node: Node) -> bool:
        """True when ``node`` is of this form."""
        return isinstance(node, self.cls) and getattr(node, self.field) == self.value

    def __str__(self) -> str:
        return f"{self.cls.__name__}[{self.field}={_value_text(self.value)}]"


@dataclass(frozen=True)
class Kind:
    """Every node of the given classes."""

    classes: tuple[type, ...]

    def matches(self, node: Node) -> bool:
        return True

    def __str__(self) -> str:
        return _names(self.classes)


@dataclass(frozen=True)
class Ops:
    """Op calls chosen by name: a ``prefix``, further narrowed by ``keep``, minus ``exclude``."""

    label: str
    prefix: str = ""
    keep: Callable[[str], bool] | None = None
    exclude: frozenset[str] = frozenset()
    classes: tuple[type, ...] = (Call,)

    def matches(self, node: Node) -> bool:
        name = op_of(node)
        return name is not None and self.names(name)

    def names(self, name: str) -> bool:
        """True when calls of the op called ``name`` are chosen."""
        return name.startswith(self.prefix) and name not in self.exclude and (self.keep is None or self.keep(name))

    def __str__(self) -> str:
        if not self.exclude:
            return self.label
        return f"{self.label} except {' '.join(sorted(n.split('.', 1)[1] for n in self.exclude))}"


def op(name: str) -> Ops:
    """Calls of the op called ``name``."""
    return Ops(name, prefix=name, keep=name.__eq__)


@dataclass(frozen=True)
class FunctionCalls:
    """Calls (and Submits) of program functions, optionally only those with arguments."""

    classes: tuple[type, ...] = (Call, Submit)
    with_args: bool = False

    def matches(self, node: Node) -> bool:
        return isinstance(node.op, GlobalVar) and (not self.with_args or bool(node.args))

    def __str__(self) -> str:
        what = "/".join(c.__name__ for c in self.classes)
        return f"{what} of a function" + (" with arguments" if self.with_args else "")


Selector = Variant | Kind | Ops | FunctionCalls


def select(subject: type | tuple[type, ...] | Selector) -> Selector:
    """A selector for a node class, a tuple of classes, or a selector itself."""
    if isinstance(subject, type):
        return Kind((subject,))
    if isinstance(subject, tuple):
        return Kind(subject)
    return subject


def op_of(node: object) -> str | None:
    """The op name of an op call (``tile.add``); None for function calls and other nodes."""
    if isinstance(node, (Call, Submit)) and not isinstance(node.op, GlobalVar):
        return node.op.name
    return None


# ---- where a rule applies ----------------------------------------------------------------


@dataclass(frozen=True)
class Where:
    """The function kinds a rule applies in: ``kinds``, or every kind but them (``outside``)."""

    kinds: tuple[FunctionType, ...]
    outside: bool = False

    def holds(self, func: Function) -> bool:
        return (func.func_type in self.kinds) != self.outside


def inside(*kinds: FunctionType) -> Where:
    """The rule applies in functions of ``kinds``."""
    return Where(kinds)


def outside(*kinds: FunctionType) -> Where:
    """The rule applies in every function except those of ``kinds``."""
    return Where(kinds, outside=True)


def _where_text(where: Where | None, forbidding: bool) -> str:
    if where is None:
        return ""
    names = ", ".join(k.name for k in where.kinds)
    if forbidding:
        return f"only in {names} functions" if where.outside else f"not in {names} functions"
    return f"outside {names} functions" if where.outside else f"in {names} functions"


# ---- the rules -----------------------------------------------------------------------------


@dataclass
class Context:
    """What a rule sees while the walker visits one function."""

    func: Function
    report: Any  # a Reporter (base.py imports this module)
    nested_in: dict[Any, set[int]] = field(default_factory=dict)

    def emit(self, rule: Rule, node: Node, span: Span | None = None, **fields: Any) -> None:
        text = rule.message.format(node=node, func=self.func.name, kind=self.func.func_type.name, **fields)
        if rule.warning:
            self.report.warning(rule.code, text, node, span)
        else:
            self.report.error(rule.code, text, node, span)

    def is_inside(self, node: Node, cls: type) -> bool:
        """True when ``node`` lies strictly inside a node of class ``cls``."""
        ids = self.nested_in.get(cls)
        if ids is None:
            ids = {id(n) for outer in function_index(self.func).of(cls) for n in walk(outer)[1:]}
            self.nested_in[cls] = ids
        return id(node) in ids

    def is_inside_field(self, node: Node, cls: type, name: str) -> bool:
        """True when ``node`` lies in field ``name`` of a node of class ``cls``."""
        ids = self.nested_in.get((cls, name))
        if ids is None:
            outers = function_index(self.func).of(cls)
            ids = {id(n) for outer in outers for root in iter_value(getattr(outer, name)) for n in walk(root)}
            self.nested_in[(cls, name)] = ids
        return id(node) in ids


@dataclass(frozen=True)
class Rule(ABC):
    """A grammar rule: its diagnostic code and message, and the function kinds it applies in."""

    code: str
    message: str
    where: Where | None = None
    warning: bool = False

    @property
    @abstractmethod
    def subject(self) -> Selector:
        """The nodes this rule is about."""

    def applies(self, node: Node, ctx: Context) -> bool:
        return (self.where is None or self.where.holds(ctx.func)) and self.subject.matches(node)

    @abstractmethod
    def check(self, node: Node, ctx: Context) -> None:
        """Report a diagnostic on ``ctx`` when ``node`` breaks the rule."""


@dataclass(frozen=True)
class Forbid(Rule):
    """Nodes of ``what`` may not appear (in the functions ``where`` names, or ``within`` a node kind)."""

    what: Any = None
    within: type | None = None

    @functools.cached_property  # asked for every node the walker visits
    def subject(self) -> Selector:
        return select(self.what)

    def check(self, node: Node, ctx: Context) -> None:
        if self.within is None or ctx.is_inside(node, self.within):
            ctx.emit(self, node, op=op_of(node))

    def __str__(self) -> str:
        place = _where_text(self.where, forbidding=True)
        if self.within is not None:
            place = " ".join(filter(None, [place, f"not inside {self.within.__name__}"]))
        return f"{self.subject}: {place or 'absent'}" + (" (warning)" if self.warning else "")


@dataclass(frozen=True)
class Field(Rule):
    """What field ``field`` of the nodes of ``of`` may hold (:class:`Refinement`).

    ``except_in`` = ``((cls, field), ...)`` exempts the nodes inside those fields of ``cls`` nodes (a
    while condition may call ops: it is evaluated again on every iteration, so nothing can be hoisted).
    """

    of: Any = None
    field: str | tuple[str, ...] = ()
    refinement: Refinement | None = None
    except_in: tuple[tuple[type, str], ...] = ()

    def applies(self, node: Node, ctx: Context) -> bool:
        exempt = any(ctx.is_inside_field(node, cls, name) for cls, name in self.except_in)
        return not exempt and super().applies(node, ctx)

    @functools.cached_property  # asked for every node the walker visits
    def subject(self) -> Selector:
        return select(self.of)

    @property
    def fields(self) -> tuple[str, ...]:
        return (self.field,) if isinstance(self.field, str) else self.field

    def check(self, node: Node, ctx: Context) -> None:
        for name in self.fields:
            for found, span, extra in self.refinement.failures(node, read_field(node, name)):
                ctx.emit(self, found if found is not None else node, span, op=op_of(node), **extra)

    def __str__(self) -> str:
        place = _where_text(self.where, forbidding=False)
        subject = self.subject
        names = [_field_text(f) for f in self.fields]
        if isinstance(subject, Kind):
            where = ", ".join(f"{c.__name__}.{n}" for c in subject.classes for n in names)
        else:
            where = f"{subject}: {' and '.join(names)}"
        text = f"{where}: {self.refinement}" + (f", {place}" if place else "")
        if self.except_in:
            text += ", except in " + ", ".join(f"{cls.__name__}.{name}" for cls, name in self.except_in)
        return text


def _field_text(name: str) -> str:
    if name.startswith("arg:"):
        return f"argument '{name[4:]}'"
    return "result type" if name == "type" else name


def read_field(node: Node, name: str) -> Any:
    """``node.<name>``; ``arg:<param>`` reads the argument of an op call bound to that parameter."""
    if not name.startswith("arg:"):
        return getattr(node, name)
    entry = op_registry.lookup(node.op.name)
    params = [p.name for p in entry.params] if entry is not None else []
    param = name[4:]
    i = params.index(param) if param in params else len(node.args)
    return node.args[i] if i < len(node.args) else None


@dataclass(frozen=True)
class Attr(Rule):
    """Nodes of ``of`` carry ``attrs[key]`` (``required``) or never carry it (``required=False``).

    ``per`` repeats the key over a list field (``iter_arg_rebind_{i}`` for each iter_arg; missing
    slots are reported together as ``missing``); ``equals`` also fixes the value, read with
    ``default`` when absent; ``unless`` exempts a form.
    """

    of: Any = None
    key: str = ""
    required: bool = True
    per: str = ""
    equals: Any = None
    default: Any = None
    unless: Variant | None = None

    @functools.cached_property  # asked for every node the walker visits
    def subject(self) -> Selector:
        return select(self.of)

    def check(self, node: Node, ctx: Context) -> None:
        if self.unless is not None and self.unless.matches(node):
            return
        attrs = node.attrs
        if self.per:
            missing = [i for i in range(len(getattr(node, self.per))) if self.key.format(i=i) not in attrs]
            if missing:
                ctx.emit(self, node, missing=missing)
        elif self.equals is not None:
            if attrs.get(self.key, self.default) != self.equals:
                ctx.emit(self, node)
        elif (self.key in attrs) != self.required:
            ctx.emit(self, node)

    def __str__(self) -> str:
        key = self.key.replace("{i}", "<i>")
        text = f"{self.subject}: attrs['{key}']"
        if self.per:
            text += f" for each of {self.per}"
        if self.equals is not None:
            text += f" == {self.equals!r}"
        elif not self.required:
            text += " absent"
        if self.unless is not None:
            text += f" unless {self.unless}"
        place = _where_text(self.where, forbidding=False)
        return text + (f", {place}" if place else "")


# ---- field refinements -----------------------------------------------------------------------

Failure = tuple[Node | None, Span | None, dict[str, Any]]


class Refinement(ABC):
    """What a field may hold; ``failures`` lists the offending nodes (None: the node itself)."""

    @abstractmethod
    def failures(self, node: Node, value: Any) -> Iterator[Failure]:
        """The offending nodes of ``value``, field of ``node``."""


def _items(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _children(value: Any, types: bool) -> list[Any]:
    """What a search looks at below ``value``: tuple elements, a tuple item's tuple, a var's type."""
    if isinstance(value, MakeTuple):
        return list(value.elements)
    if isinstance(value, TupleGetItemExpr):
        return [value.tuple]
    if isinstance(value, TupleType):
        return list(value.types)
    if types and isinstance(value, Var):
        return [value.type]
    return []


@dataclass(frozen=True)
class NoNode(Refinement):
    """The field holds no node of ``classes``, also seen ``through`` the given wrappers.

    ``at_node``: report at the node owning the field (with the item's span) instead of at the find.
    """

    classes: tuple[type, ...] = ()
    through: tuple[type, ...] = ()
    at_node: bool = False

    def __init__(self, *classes: type, through: tuple[type, ...] = (), at_node: bool = False) -> None:
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "through", through)
        object.__setattr__(self, "at_node", at_node)
        types = any(issubclass(c, Type) for c in classes)
        object.__setattr__(self, "_types", types)
        # Leaf nodes that are neither found nor searched through (a variable is, for its type).
        leaves = () if types else (Var, ConstInt, ConstFloat, ConstBool)
        found = classes + through
        object.__setattr__(self, "_leaves", frozenset(c for c in leaves if not issubclass(c, found)))

    def failures(self, node: Node, value: Any) -> Iterator[Failure]:
        types = self._types
        if not types and not self.through:  # only the items themselves can be finds
            classes = self.classes
            for index, item in enumerate(_items(value)):
                if isinstance(item, classes):
                    yield (None, getattr(item, "span", None), {"item": item, "index": index}) if self.at_node else (
                        item,
                        None,
                        {},
                    )
            return
        for index, item in enumerate(_items(value)):
            if type(item) in self._leaves:
                continue  # nothing to find in it
            stack = [item]
            while stack:
                current = stack.pop()
                if isinstance(current, self.classes):
                    span = getattr(item, "span", None)
                    yield (None, span, {"item": item, "index": index}) if self.at_node else (current, None, {})
                elif isinstance(current, self.through) or (types and current is item):
                    stack.extend(reversed(_children(current, types)))

    def __str__(self) -> str:
        through = f" (also inside {_names(self.through)})" if self.through else ""
        return f"no {_names(self.classes)}{through}"


@dataclass(frozen=True)
class Present(Refinement):
    """The field is set (not None)."""

    def failures(self, node: Node, value: Any) -> Iterator[Failure]:
        if value is None:
            yield None, None, {}

    def __str__(self) -> str:
        return "present"


@dataclass(frozen=True)
class Length(Refinement):
    """The list has ``equal`` items (if given) and not ``not_equal`` items (if given)."""

    equal: int | None = None
    not_equal: int | None = None

    def failures(self, node: Node, value: Any) -> Iterator[Failure]:
        n = len(value)
        if (self.equal is not None and n != self.equal) or (self.not_equal is not None and n == self.not_equal):
            yield None, (value[0].span if n else None), {"count": n}

    def __str__(self) -> str:
        return f"{self.equal} items" if self.equal is not None else f"not {self.not_equal} item(s)"


@dataclass(frozen=True)
class LastOnly(Refinement):
    """Items of class ``cls`` stand only at the end of the list."""

    cls: type = object

    def failures(self, node: Node, value: Any) -> Iterator[Failure]:
        for item in list(value)[:-1]:
            if isinstance(item, self.cls):
                yield item, None, {}

    def __str__(self) -> str:
        return f"{self.cls.__name__} only last"


@dataclass(frozen=True)
class LiteralTuple(Refinement):
    """The field is a literal tuple (MakeTuple) of ``size`` elements."""

    size: int = 0

    def failures(self, node: Node, value: Any) -> Iterator[Failure]:
        if not (isinstance(value, MakeTuple) and len(value.elements) == self.size):
            yield None, None, {}

    def __str__(self) -> str:
        return f"a literal {self.size}-tuple"


@dataclass(frozen=True)
class RankAtMost(Refinement):
    """A shaped type of rank at most ``rank`` (other types pass)."""

    rank: int = 0
    of: type = object

    def failures(self, node: Node, value: Any) -> Iterator[Failure]:
        if isinstance(value, self.of) and len(value.shape) > self.rank:
            yield None, None, {"rank": len(value.shape)}

    def __str__(self) -> str:
        return f"rank <= {self.rank} when a {self.of.__name__}"


# ---- the walker ---------------------------------------------------------------------------------


# A plan: the node classes to visit, whether types are entered, the rules and their rules by class.
Plan = tuple[tuple[type, ...], bool, tuple[Rule, ...], dict[type, tuple[Rule, ...]]]
# Plans by the identities of their rules (hashing a tuple of rules hashes every field of every rule,
# once per function checked); an entry holds its rules, so no other object can take their ids.
_PLANS: dict[tuple[int, ...], tuple[tuple[Rule, ...], Plan]] = {}


def _plan(rules: tuple[Rule, ...]) -> Plan:
    """The plan of ``rules`` (see ``Plan``; the rules by class are filled in as classes are met)."""
    key = tuple(map(id, rules))
    hit = _PLANS.get(key)
    if hit is None:
        classes = {c for r in rules for c in r.subject.classes}
        types = any(issubclass(c, Type) for c in classes)
        node_classes = tuple(c for c in classes if not issubclass(c, Type)) + ((Var,) if types else ())
        hit = _PLANS[key] = (rules, (node_classes, types, rules, {}))
    return hit[1]


def _rules_for(rules: tuple[Rule, ...], cache: dict[type, tuple[Rule, ...]], cls: type) -> tuple[Rule, ...]:
    found = cache.get(cls)
    if found is None:
        found = cache[cls] = tuple(r for r in rules if issubclass(cls, r.subject.classes))
    return found


def _active(rules: tuple[Rule, ...], func: Function, classes: frozenset[type]) -> Plan | None:
    """The plan of the rules that can apply in ``func``: its kind is one they apply in, and a rule
    about calls of functions needs a GlobalVar among the function's node ``classes``."""
    names_functions = GlobalVar in classes
    active = tuple(
        r
        for r in rules
        if (r.where is None or r.where.holds(func)) and (type(r.subject) is not FunctionCalls or names_functions)
    )
    plan = _plan(active) if active else None
    return plan if plan is not None and plan[0] else None


def _asked(node_classes: tuple[type, ...], classes: frozenset[type]) -> tuple[type, ...] | None:
    """The classes of ``node_classes`` to ask the index of a function holding node ``classes`` (its
    own class too) for: those it holds instances of, so the index's list of the others' nodes is
    shared (a list of a class absent from most functions costs its own list otherwise); None when
    no node of it is to be visited."""
    if not any(issubclass(c, node_classes) for c in classes):
        return None
    # The index never holds a function (the walker visits ``func`` itself, below).
    return tuple(c for c in node_classes if not issubclass(c, Function) and any(issubclass(k, c) for k in classes))


# What the rules do in a function: by (the identity of a rule tuple, function kind, set of node
# classes of the function), the plan of the rules that apply and the classes to ask the index for,
# or None when none can find a node to visit. The rules of a kind and the nodes to visit depend only
# on these, which repeat across functions (a set of classes hashes once per set object): one lookup
# per function and rule tuple. An entry holds its rules, so no other object can take their id.
_VISITS: dict[tuple[int, FunctionType, frozenset[type]], tuple[tuple[Rule, ...], tuple[Plan, tuple] | None]] = {}
_VISITS_LIMIT = 10_000


def _visits(rules: tuple[Rule, ...], func: Function, classes: frozenset[type]) -> tuple[Plan, tuple] | None:
    """The plan of the rules that apply in ``func`` (holding node ``classes``) and the classes to ask
    its index for; None when no node is to be visited (see ``_VISITS``)."""
    key = (id(rules), func.func_type, classes)
    hit = _VISITS.get(key)
    if hit is None:
        plan = _active(rules, func, classes)
        asked = _asked(plan[0], classes) if plan is not None else None
        if len(_VISITS) > _VISITS_LIMIT:
            _VISITS.clear()
        hit = _VISITS[key] = (rules, (plan, asked) if asked is not None else None)
    return hit[1]


def visits_nothing(rules: tuple[Rule, ...], func: Function) -> bool:
    """True when no rule of ``rules`` has a node of ``func`` to visit, so :func:`check_rules` reports
    nothing there. The answer depends only on the function's kind and its index's node classes."""
    return _visits(rules, func, function_index(func).classes) is None


def check_rules(rules: tuple[Rule, ...], func: Function, report: Any) -> None:
    """Apply ``rules`` to every node of ``func`` in pre-order, and to every type a variable has."""
    index = function_index(func)
    visits = _visits(rules, func, index.classes)  # (the function's own class is among the classes)
    if visits is None:  # no node to visit
        return
    (node_classes, types, active, cache), asked = visits
    # The index holds what is below the function; rules about the function itself see it first.
    nodes = index.of(*asked) if asked else []
    if isinstance(func, node_classes):
        nodes = [func, *nodes]
    ctx = Context(func, report)
    seen: set[int] = set()
    for node in nodes:
        for rule in _rules_for(active, cache, type(node)):
            if rule.applies(node, ctx):
                rule.check(node, ctx)
        if types and isinstance(node, Var) and id(node) not in seen:
            seen.add(id(node))
            stack: list[Any] = [node.type]
            while stack:
                t = stack.pop()
                for rule in _rules_for(active, cache, type(t)):
                    if rule.applies(t, ctx):
                        rule.check(t, _TypeContext(ctx, node))
                if isinstance(t, TupleType):
                    stack.extend(reversed(t.types))


class _TypeContext(Context):
    """A context for a type inside variable ``var``'s type: violations point at the variable."""

    def __init__(self, outer: Context, var: Var) -> None:
        super().__init__(outer.func, outer.report, outer.nested_in)
        self.var = var

    def emit(self, rule: Rule, node: Any, span: Span | None = None, **fields: Any) -> None:
        super().emit(rule, self.var, span, var=self.var.name_hint, type=node, **fields)
