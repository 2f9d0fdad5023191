"""Dialects: a grammar (node kinds) plus the invariants a program of the dialect satisfies.

A dialect is declared as a delta on its parent, nanopass-style::

    ssa = surface.extend(
        "ssa",
        "every variable is assigned once; ifs and loops carry values through yields",
        remove={Variant(ForStmt, "kind", ForKind.Unroll, UnrollResolved)},
        guarantees={SSAForm, StructuredCtrlFlow},
    )

``remove``/``add`` take node classes, or :class:`Variant` forms (a class narrowed by one field
value, such as ``ForStmt[kind=Unroll]``) that name the invariant establishing their absence.
``guarantees`` adds invariants, ``drop`` removes inherited ones (a later pass may give a property
up, as InitMemRef gives up SSAForm). Entering a dialect checks both the grammar and every invariant;
:func:`describe` prints a dialect and :func:`diff` the delta between two.
"""

from __future__ import annotations

import itertools
import textwrap
from collections.abc import Iterable

from pypto.analysis import function_index
from pypto.backend import Platform
from pypto.ir.errors import VerificationError
from pypto.ir.function import Function, Program
from pypto.ir.type_base import Type

from .invariants.base import Invariant, Reporter, Severity, Violation, check_all
from .invariants.grammar import Field, Forbid, FunctionCalls, Ops, Rule, Variant

GRAMMAR = "Grammar"


class Dialect:
    """A language of the compiler: node kinds, removed forms and guaranteed invariants."""

    def __init__(
        self,
        name: str,
        intent: str,
        kinds: Iterable[type],
        excluded: Iterable[Variant] = (),
        invariants: Iterable[Invariant] = (),
        parent: Dialect | None = None,
    ) -> None:
        self.name = name
        self.intent = intent
        self.kinds: frozenset[type] = frozenset(kinds)
        self.excluded: frozenset[Variant] = frozenset(excluded)
        self.invariants: tuple[Invariant, ...] = tuple(sorted(set(invariants), key=lambda i: i.name))
        self.parent = parent

    def extend(
        self,
        name: str,
        intent: str,
        *,
        remove: Iterable[type | Variant] = (),
        add: Iterable[type | Variant] = (),
        guarantees: Iterable[Invariant] = (),
        drop: Iterable[Invariant] = (),
    ) -> Dialect:
        """A child dialect: this one minus ``remove`` plus ``add``, with invariants changed likewise."""
        remove, add = list(remove), list(add)
        kinds = (self.kinds - {k for k in remove if isinstance(k, type)}) | {k for k in add if isinstance(k, type)}
        excluded = (self.excluded | {v for v in remove if isinstance(v, Variant)}) - {
            v for v in add if isinstance(v, Variant)
        }
        dropped = set(drop)
        invariants = [i for i in self.invariants if i not in dropped] + [i for i in guarantees if i not in dropped]
        return Dialect(name, intent, kinds, excluded, invariants, parent=self)

    @property
    def rules(self) -> list[tuple[str, str, str]]:
        """``(section, rule text, invariant name)`` of every grammar rule of the declared invariants."""
        out = []
        for inv in self.invariants:
            for rule in inv.rules:
                # A rule about node kinds the dialect no longer has says nothing.
                classes = rule.subject.classes
                if not any(issubclass(c, Type) or any(issubclass(k, c) for k in self.kinds) for c in classes):
                    continue
                out.append((_section(rule), str(rule), inv.name))
        return sorted(out, key=lambda r: (_SECTIONS.index(r[0]), r[1], r[2]))

    @property
    def properties(self) -> frozenset[str]:
        """Names of every property a program of this dialect has (invariants and removed forms)."""
        # Asked at every pass boundary: computed once per (invariants, forms).
        cached = self.__dict__.get("_properties")
        if cached is None or cached[0] is not self.invariants or cached[1] is not self.excluded:
            names = {i.name for i in self.invariants}
            names |= {v.established_by.name for v in self.excluded if v.established_by is not None}
            cached = (self.invariants, self.excluded, frozenset(names))
            self._properties = cached
        return cached[2]

    def check_grammar(self, program: Program) -> list[Violation]:
        """Nodes whose kind is not in the dialect, and nodes of a removed form."""
        return self._program_grammar(program) + check_all(program, self._checked(())[:1])

    def _program_grammar(self, program: Program) -> list[Violation]:
        if type(program) in self.kinds:
            return []
        message = f"{type(program).__name__} is not a node of this dialect"
        return [Violation(GRAMMAR, "NODE_KIND", message, program, program.span)]

    def _checked(self, invariants: Iterable[Invariant] | None) -> tuple[Invariant, ...]:
        """The grammar, as a per-function invariant, then ``invariants`` (default: the guaranteed ones):
        the grammar's results are cached and checked with the invariants'."""
        made = self._grammar_made()
        return made[3] if invariants is None else (made[3][0], *invariants)

    def _grammar_made(self) -> tuple:
        """``(kinds, forms, invariants, (grammar invariant, *invariants), plans of _grammar_of)``,
        made again when one of the first three is another object."""
        made = self.__dict__.get("_grammar")
        if made is None or made[0] is not self.kinds or made[1] is not self.excluded or made[2] is not self.invariants:
            # A name of its own: a dialect of the same name with other kinds must not share results.
            name = f"<grammar {next(_GRAMMARS)} of {self.name}>"
            grammar = Invariant.per_function(name, "grammar", self._check_grammar_of)
            grammar.idle_if = self._grammar_idle
            made = self._grammar = (self.kinds, self.excluded, self.invariants, (grammar, *self.invariants), {})
        return made

    def _check_grammar_of(self, func: Function, program: Program, report: Reporter) -> None:
        report.violations.extend(self._grammar_of(func))

    def _excluded_in_order(self) -> list[Variant]:
        """The removed forms sorted by their text, computed once per set (``str`` of a form is slow)."""
        cached = self.__dict__.get("_excluded_sorted")
        if cached is None or cached[0] is not self.excluded:
            cached = (self.excluded, sorted(self.excluded, key=str))
            self._excluded_sorted = cached
        return cached[1]

    def _grammar_plan(self, classes: frozenset[type]) -> tuple[frozenset[type], list[Variant]]:
        """What the grammar asks of a function holding node ``classes``: the foreign classes and the
        removed forms of a class it holds. Functions hold a few sets of classes: each is worked out once."""
        plans: dict[frozenset[type], tuple] = self._grammar_made()[4]
        plan = plans.get(classes)
        if plan is None:
            if len(plans) > _PLANS_LIMIT:
                plans.clear()
            # The index holds the nodes below the function, never a function: a removed form of
            # functions has no node to look at there (asking the index for one walked its classes).
            forms = [v for v in self._excluded_in_order()
                     if not issubclass(v.cls, Function) and any(issubclass(c, v.cls) for c in classes)]
            plan = plans[classes] = (classes - self.kinds, forms)
        return plan

    def _grammar_idle(self, func: Function) -> bool:
        """True when the grammar has nothing to look at in ``func`` (see Invariant.idle_if)."""
        foreign, forms = self._grammar_plan(function_index(func).classes)
        return not foreign and not forms

    def _grammar_of(self, func: Function) -> list[Violation]:
        index = function_index(func)
        foreign, forms = self._grammar_plan(index.classes)
        out: list[Violation] = []
        for node in index.nodes if foreign else ():
            if type(node) in foreign:
                message = f"{type(node).__name__} is not a node of this dialect"
                out.append(Violation(GRAMMAR, "NODE_KIND", message, node, node.span, func.name))
        for variant in forms:
            for node in index.of(variant.cls):
                if variant.matches(node):
                    why = f" (see {variant.established_by.name})" if variant.established_by else ""
                    message = f"{variant} is not part of this dialect{why}"
                    out.append(Violation(GRAMMAR, "REMOVED_FORM", message, node, node.span, func.name))
        return out

    def check(
        self, program: Program, invariants: Iterable[Invariant] | None = None, platform: Platform | None = None
    ) -> list[Violation]:
        """The grammar violations and those of ``invariants`` (default: all guaranteed ones).

        The grammar and the per-function invariants are checked in one loop over the functions
        (:func:`~pypto.languages.invariants.base.check_all`). ``platform`` is the chip the
        checks assume (default: that of the current backend type).
        """
        found = self._program_grammar(program)
        found.extend(check_all(program, self._checked(invariants), platform=platform))
        return [v.in_dialect(self.name) for v in found]

    def validate(
        self,
        program: Program,
        invariants: Iterable[Invariant] | None = None,
        context: str = "",
        platform: Platform | None = None,
    ) -> Program:
        """Return ``program`` if it belongs to the dialect, else raise :class:`VerificationError`."""
        raise_if_errors(self.check(program, invariants, platform), self.name, program, context)
        return program

    def refines(self, other: Dialect) -> bool:
        """True when this dialect is ``other`` or descends from it (at least as strict)."""
        d: Dialect | None = self
        while d is not None:
            if d is other:
                return True
            d = d.parent
        return False

    def __contains__(self, program: object) -> bool:
        if not isinstance(program, Program):
            return False
        return not any(v.severity is Severity.ERROR for v in self.check(program))

    def __repr__(self) -> str:
        return f"<Dialect {self.name}>"


_GRAMMARS = itertools.count()
_PLANS_LIMIT = 1_000


def raise_if_errors(violations: list[Violation], dialect: str, program: Program, context: str = "") -> None:
    """Raise a :class:`VerificationError` listing ``violations`` if any of them is an error."""
    errors = [v for v in violations if v.severity is Severity.ERROR]
    if not errors:
        return
    where = f" ({context})" if context else ""
    name = program.name or "Program"
    count = f"{len(errors)} violation" + ("s" if len(errors) != 1 else "")
    body = "\n".join(v.render() for v in violations)
    what = f"is not in dialect '{dialect}'" if dialect else "breaks its invariants"
    raise VerificationError(f"program '{name}' {what}{where}: {count}\n{body}", violations)


_GROUPS = (("expressions", "Expr"), ("statements", "Stmt"))


def _group_of(cls: type) -> str:
    for label, base in _GROUPS:
        if any(b.__name__ == base for b in cls.__mro__):
            return label
    return "definitions"


def _kinds_lines(kinds: Iterable[type]) -> list[str]:
    groups: dict[str, list[str]] = {}
    for cls in kinds:
        groups.setdefault(_group_of(cls), []).append(cls.__name__)
    lines = []
    for label in ("expressions", "statements", "definitions"):
        if label in groups:
            text = f"{label}: {' '.join(sorted(groups[label]))}"
            lines += textwrap.wrap(text, width=100, initial_indent="    ", subsequent_indent="        ")
    return lines


_SECTIONS = ("node rules", "op rules", "field refinements", "attrs")


def _section(rule: Rule) -> str:
    if isinstance(rule, Forbid):
        return "op rules" if isinstance(rule.subject, (Ops, FunctionCalls)) else "node rules"
    return "field refinements" if isinstance(rule, Field) else "attrs"


def _variant_text(v: Variant) -> str:
    return str(v) + (f"  (established by {v.established_by.name})" if v.established_by else "")


def describe(dialect: Dialect) -> str:
    """The full grammar of a dialect: node kinds, removed forms, the grammar rules (per function
    kind, below the node class, required attrs) and the invariants."""
    parent = f" (extends {dialect.parent.name})" if dialect.parent is not None else ""
    lines = [f"dialect {dialect.name}{parent}", f"  {dialect.intent}", "  nodes:"]
    lines += _kinds_lines(dialect.kinds)
    if dialect.excluded:
        lines.append("  removed forms:")
        lines += [f"    {_variant_text(v)}" for v in sorted(dialect.excluded, key=str)]
    rules = dialect.rules
    for section in _SECTIONS:
        chosen = [f"{text}  ({name})" for s, text, name in rules if s == section]
        if chosen:
            lines.append(f"  {section}:")
            for text in chosen:
                lines += textwrap.wrap(text, width=110, initial_indent="    ", subsequent_indent="        ")
    lines.append("  invariants:")
    lines += [f"    {inv.name}: {inv.summary}" for inv in dialect.invariants if not inv.rules or inv.is_checked_by_hand]
    grammar = [inv.name for inv in dialect.invariants if inv.rules and not inv.is_checked_by_hand]
    if grammar:
        text = "stated by the rules above: " + ", ".join(grammar)
        lines += textwrap.wrap(text, width=100, initial_indent="    ", subsequent_indent="        ")
    return "\n".join(lines) + "\n"


def diff(a: Dialect, b: Dialect) -> str:
    """What changes from dialect ``a`` to dialect ``b``: node kinds, forms, grammar rules and invariants."""
    lines = [f"{a.name} -> {b.name}", f"  {b.intent}"]
    for cls in sorted(a.kinds - b.kinds, key=lambda c: c.__name__):
        lines.append(f"  - node {cls.__name__}")
    for cls in sorted(b.kinds - a.kinds, key=lambda c: c.__name__):
        lines.append(f"  + node {cls.__name__}")
    for v in sorted(b.excluded - a.excluded, key=str):
        lines.append(f"  - form {_variant_text(v)}")
    for v in sorted(a.excluded - b.excluded, key=str):
        lines.append(f"  + form {_variant_text(v)}")
    a_rules, b_rules = set(a.rules), set(b.rules)
    for section, text, name in sorted(b_rules - a_rules, key=lambda r: (_SECTIONS.index(r[0]), r[1])):
        lines.append(f"  + rule {text}  ({name})")
    for section, text, name in sorted(a_rules - b_rules, key=lambda r: (_SECTIONS.index(r[0]), r[1])):
        lines.append(f"  - rule {text}  ({name})")
    a_inv, b_inv = set(a.invariants), set(b.invariants)
    for inv in sorted(b_inv - a_inv, key=lambda i: i.name):
        lines.append(f"  + invariant {inv.name}: {inv.summary}")
    for inv in sorted(a_inv - b_inv, key=lambda i: i.name):
        lines.append(f"  - invariant {inv.name}: {inv.summary}")
    if len(lines) == 2:
        lines.append("  (no change)")
    return "\n".join(lines) + "\n"
