"""Invariants and their diagnostics.

An :class:`Invariant` is a named property of a program (``SSAForm``, ``UseAfterDef``, ...) with a
checker that lists every place the property fails as a :class:`Violation`. Dialects guarantee
invariants; the pass manager checks them at pass boundaries. A violation records the rule, a code
(the reference's error code or a short upper-case tag), a message, the offending node, its span and
the enclosing function; the dialect that was being entered is filled in by the caller.
"""

from __future__ import annotations

from pypto.analysis import clear_expr_vars, clear_function_indexes, function_index

import enum
import functools
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import NamedTuple, TypeVar

from pypto.analysis.callgraph import CallGraph, clear_call_names
from pypto.backend import Platform, current_platform
from pypto.ir.enums import FunctionType
from pypto.ir.errors import InternalError
from pypto.ir.function import Function, Program
from pypto.ir.node import IRNode
from pypto.ir.span import Span
from pypto.ir.stmt import SeqStmts
from pypto.util import IdentityCache

from .grammar import Rule, check_rules, visits_nothing
from .reads import Bodies


T = TypeVar("T")


class Severity(enum.Enum):
    """Errors fail a boundary check; warnings are reported but let the program through."""

    ERROR = "error"
    WARNING = "warning"
    # The established API's spellings (passes.DiagnosticSeverity.Error): aliases of the same members.
    Error = "error"
    Warning = "warning"


@dataclass(frozen=True)
class Violation:
    """One broken rule at one node."""

    rule: str
    code: str
    message: str
    node: IRNode | None
    span: Span
    function: str = ""
    severity: Severity = Severity.ERROR
    dialect: str = ""

    @property
    def rule_name(self) -> str:
        """The established API's name for ``rule`` (a violation is its ``passes.Diagnostic``)."""
        return self.rule

    @property
    def error_code(self) -> str:
        """The established API's name for ``code``."""
        return self.code

    def in_dialect(self, dialect: str) -> Violation:
        """This violation, attributed to the dialect being entered."""
        return replace(self, dialect=dialect)

    def render(self) -> str:
        """``[dialect] Rule CODE in 'f': message`` then the printed node and the span."""
        where = f" in '{self.function}'" if self.function else ""
        head = f"[{self.dialect}] " if self.dialect else ""
        level = "" if self.severity is Severity.ERROR else "warning: "
        lines = [f"{head}{level}{self.rule} {self.code}{where}: {self.message}"]
        if self.node is not None:
            lines.append(f"    {node_text(self.node)}")
        lines.append(f"    at {self.span.to_string() if self.span.is_valid() else '<unknown location>'}")
        return "\n".join(lines)


def node_text(node: IRNode) -> str:
    """The first line of the printed node (a compound statement shows its header only)."""
    if isinstance(node, Function):
        return f"function {node.name}"
    if isinstance(node, Program):
        return f"program {node.name or 'Program'}"
    text = node.as_python(concise=False).strip("\n")
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return type(node).__name__
    first = lines[0].strip() + (" ..." if len(lines) > 1 else "")
    if isinstance(node, SeqStmts):
        return f"block of {len(node.stmts)} statement{'s' if len(node.stmts) != 1 else ''}: {first}"
    return first


class Reporter:
    """Collects the violations of one invariant while its checker walks a function."""

    __slots__ = ("rule", "function", "platform", "violations")

    def __init__(self, rule: str, function: str, platform: Platform) -> None:
        self.rule = rule
        self.function = function
        # The chip the check is for (capacities, core counts, dtype rules): the caller's pass context.
        self.platform = platform
        self.violations: list[Violation] = []

    def error(self, code: str | int, message: str, node: IRNode | None, span: Span | None = None) -> None:
        """Record an error at ``node`` (its span unless ``span`` is given)."""
        self._add(code, message, node, span, Severity.ERROR)

    def warning(self, code: str | int, message: str, node: IRNode | None, span: Span | None = None) -> None:
        """Record a warning at ``node``."""
        self._add(code, message, node, span, Severity.WARNING)

    def _add(self, code: str | int, message: str, node: IRNode | None, span: Span | None, sev: Severity) -> None:
        where = span if span is not None else (node.span if node is not None else Span.unknown())
        self.violations.append(Violation(self.rule, str(code), message, node, where, self.function, sev))


FunctionCheck = Callable[[Function, Program, Reporter], None]
ProgramCheck = Callable[[Program, Reporter], None]
# A test that a per-function checker finds nothing in a function, from its kind and node classes.
IdleTest = Callable[[Function], bool]

# What the checkers found in each function object: ``{invariant or fact name: (context, result)}``
# (a result with a violation at the function itself: ``(_AT_FUNCTION, detached result, context)``)
# and, for each group of a set of per-function invariants that read the same of the other functions
# (nothing, signatures, some bodies), an entry keyed by the group: its shared context, or the
# function's own context for the body readers, with the results (None when it breaks none).
# Functions are immutable and passes share the ones they do not change, so a boundary check re-walks
# only changed functions; an entry goes with its function, so a loop of compiles does not keep
# earlier programs alive.
_FACTS: IdentityCache[Function, dict[str | tuple[str, ...], tuple]] = IdentityCache(20_000)
_FACT_ENTRIES = _FACTS.entries  # read directly on the hot paths (see IdentityCache)
# What the checks of the program last checked share (several checks of one program come in a row):
# its signature, the contexts made of it by platform and what a checker reads (hashing the signature
# to find its shared context cost more than a small function's check), its call graph and the
# contexts of the functions whose checkers read some other bodies.
_PROGRAMS: IdentityCache[Program, _ProgramFacts] = IdentityCache(1)
_CONTEXTS: dict[tuple, tuple] = {}
_PLANS: dict[tuple, _Plan] = {}
# Per whole-program invariant: the serials of the functions of the program last checked, when it
# passed, with the platform.
_WHOLE_PASSED: dict[Invariant, tuple[tuple[int, ...], Platform] | None] = {}
_CONTEXTS_LIMIT = 1_000


# A number per function object, never reused (an id can be, once its object is freed): a context
# holding numbers keeps no function alive.
_SERIALS: IdentityCache[Function, int] = IdentityCache(20_000)
_next_serial = itertools.count().__next__


def _serial(func: Function) -> int:
    entry = _SERIALS.entries.get(id(func))
    return entry[1] if entry is not None else _SERIALS.put(func, _next_serial())


# What a per-function checker reads of the other functions: nothing, their signatures, or also their
# bodies: all of them (READS_BODIES) or those a :class:`Bodies` names. A checker that reads a callee's
# writes or a peer kernel's pipes must run again when only that function changed: its context also
# says which function objects it read.
READS_NOTHING, READS_SIGNATURES, READS_BODIES = 0, 1, 2
Reads = int | Bodies


class _ProgramFacts:
    """What the checks of one program share, made when first asked."""

    __slots__ = ("functions", "_serials", "_signature", "contexts", "graph", "of_functions")

    def __init__(self, program: Program) -> None:
        # Not the program: this is cached weakly on it, and dropped when it is freed.
        self.functions = program.functions
        self._serials: tuple[int, ...] | None = None
        self._signature: tuple | None = None
        # Keyed by the platform's id (a Platform hashes in Python; these are asked at every boundary):
        # an id is not reused while the contexts under it, which hold their platform, are kept.
        self.contexts: dict[tuple[int, int], tuple] = {}
        self.graph: CallGraph | None = None
        # Per platform (its id, as above) and what a group of checkers reads: the contexts of each
        # function (by id).
        self.of_functions: dict[tuple[int, tuple[Reads, ...]], dict[int, tuple]] = {}

    @property
    def serials(self) -> tuple[int, ...]:
        """The serials of the functions, in program order."""
        if self._serials is None:
            self._serials = tuple(map(_serial, self.functions.values()))
        return self._serials

    def shared(self, platform: Platform, reads: int) -> tuple:
        """The context of the checkers reading ``reads`` (not a :class:`Bodies`) on ``platform``."""
        found = self.contexts.get((id(platform), reads))
        if found is None:
            if reads == READS_NOTHING:
                found = _shared((None, platform, None))
            else:
                if self._signature is None:  # what a checker may read of the others: names, kinds, directions
                    functions = self.functions.values()
                    self._signature = tuple((f.name, f.func_type, tuple(f.param_directions)) for f in functions)
                found = _shared((self._signature, platform, self.serials if reads == READS_BODIES else None))
            self.contexts[(id(platform), reads)] = found
        return found

    def of_function(self, platform: Platform, reads: Reads, func: Function) -> tuple:
        """The context of ``func`` (one of the functions) for a checker reading ``reads``: for a
        :class:`Bodies`, the signature context and the serials of the functions it names, if any."""
        if type(reads) is int:
            return self.shared(platform, reads)
        if reads.of and func.func_type not in reads.of:  # (read_for's first test: no graph needed)
            return self.shared(platform, READS_SIGNATURES)
        read = reads.read_for(func, self.call_graph())
        shared = self.shared(platform, READS_SIGNATURES)
        # (the shared signature object, so a hit compares it by identity)
        return (shared[0], platform, tuple(map(_serial, read))) if read else shared

    def of_function_each(self, platform: Platform, reads: tuple[Reads, ...], func: Function) -> tuple:
        """The contexts of ``func`` for each of ``reads`` (:meth:`of_function`), worked out once for
        equal declarations (several checkers read the bodies of the callees)."""
        made: dict = {}
        out = []
        for r in reads:
            value = r if type(r) is int else r.value
            context = made.get(value)
            if context is None:
                context = made[value] = self.of_function(platform, r, func)
            out.append(context)
        return tuple(out)

    def call_graph(self) -> CallGraph:
        if self.graph is None:
            self.graph = CallGraph(self.functions.values())
        return self.graph


def _program_facts(program: Program) -> _ProgramFacts:
    hit = _PROGRAMS.entries.get(id(program))
    return hit[1] if hit is not None else _PROGRAMS.put(program, _ProgramFacts(program))


def _context(program: Program, platform: Platform, reads: Reads, func: Function | None = None) -> tuple:
    """The context of a check of ``func`` in ``program`` by a checker reading ``reads`` (``func``
    only matters for a :class:`Bodies`)."""
    if type(reads) is int:
        return _program_facts(program).shared(platform, reads)
    if func is None:
        raise InternalError("the context of a checker reading some functions' bodies is per function")
    return _program_facts(program).of_function(platform, reads, func)


def _shared(context: tuple) -> tuple:
    """The one object of the contexts equal to ``context``."""
    if len(_CONTEXTS) > _CONTEXTS_LIMIT:
        _CONTEXTS.clear()
    return _CONTEXTS.setdefault(context, context)


def clear_caches() -> None:
    """Forget cached checker results, node indexes and expression variables (benchmarks measure
    cold checks)."""
    _FACTS.clear()
    _PROGRAMS.clear()
    _CONTEXTS.clear()
    _PLANS.clear()
    _WHOLE_PASSED.clear()
    clear_call_names()
    clear_function_indexes()
    clear_expr_vars()


def _facts(func: Function) -> dict[str | tuple[str, ...], tuple]:
    """The cached facts of ``func`` (a new empty dict the first time)."""
    entry = _FACT_ENTRIES.get(id(func))
    return entry[1] if entry is not None else _FACTS.put(func, {})


# A violation at the function node itself, cached as it is, would keep the function alive through
# its own cache entry. Such a result is cached as ``(_AT_FUNCTION, violations without that node,
# context)`` (no hit for the fast paths' context test) and the node is put back on a hit.
_AT_FUNCTION = object()


def _stored(func: Function, context: object, violations: list[Violation]) -> tuple:
    """The cache entry of ``violations`` of ``func`` under ``context``."""
    if not violations or not _at_function(func, (violations,)):
        return (context, violations)
    detached = [(replace(v, node=None), True) if v.node is func else (v, False) for v in violations]
    return (_AT_FUNCTION, detached, context)


def _attached(func: Function, detached: list[tuple[Violation, bool]]) -> list[Violation]:
    return [replace(v, node=func) if at else v for v, at in detached]


def _at_function(func: Function, found: Iterable[list[Violation]]) -> bool:
    """True when a violation in ``found`` is at ``func`` itself."""
    return any(v.node is func for violations in found for v in violations)


def cached(name: str, func: Function, context: object, compute: Callable[[], T]) -> T:
    """``compute()``, a fact ``name`` about ``func`` (a summary several checkers share), cached per
    function object while ``context`` stays equal. The fact must not refer to ``func`` itself (it
    would keep ``func`` alive): violations are cached by :meth:`Invariant.check_function`."""
    entry = _FACT_ENTRIES.get(id(func))  # _facts(), inlined: the checkers ask this of every function
    facts = entry[1] if entry is not None else _FACTS.put(func, {})
    hit = facts.get(name)
    if hit is None or (hit[0] is not context and hit[0] != context):
        hit = facts[name] = (context, compute())
    return hit[1]


class Invariant:
    """A named program property with its checker.

    Build one with :meth:`per_function` (the checker sees one function at a time) or
    :meth:`per_program` (the checker sees the whole program). ``auto_verified`` marks the
    properties the reference verifies automatically when a pass produces them (docs/passes.md#contract).
    """

    def __init__(
        self,
        name: str,
        summary: str,
        check: ProgramCheck,
        auto_verified: bool = False,
        function_check: FunctionCheck | None = None,
        reads: Reads = READS_NOTHING,
    ) -> None:
        self.name = name
        self.summary = summary
        self.auto_verified = auto_verified
        self._check = check
        self._function_check = function_check
        self._reads = reads
        # The grammar rules of a declared invariant and their shortcut (see :meth:`declared`).
        self.rules: tuple[Rule, ...] = ()
        self.holds_if: Callable[[Function], bool] | None = None
        # True when the checker finds nothing in a function, decided from its kind and its index's
        # node classes only (the answer is kept per such pair): the checker is not called there.
        self.idle_if: IdleTest | None = None
        self.is_checked_by_hand = function_check is not None or check is not None

    @classmethod
    def per_function(
        cls,
        name: str,
        summary: str,
        check: FunctionCheck,
        auto_verified: bool = False,
        reads_bodies: bool | Bodies = False,
        reads_signatures: bool = False,
        idle_if: IdleTest | None = None,
    ) -> Invariant:
        """An invariant whose checker runs on each function of the program in name order.

        ``reads_bodies``: the checker also looks into other functions (a callee's writes or returns, a
        peer kernel's pipes): True when it may read any, so a cached result is reused only while every
        function of the program is the same object, or a :class:`~.reads.Bodies` naming those it
        reads (its callees, its callers, ...), so a cached result is reused while those are.
        ``reads_signatures``: it reads only their names, kinds and parameter directions, so a cached
        result is reused while those are unchanged. A checker that reads neither reads nothing of
        the other functions (its result is reused while the function is the same object).
        ``idle_if``: a test, of the function's kind and node classes only, that the checker finds
        nothing in a function (it is then not called there; see :attr:`idle_if`).
        """

        def run(program: Program, report: Reporter) -> None:
            report.violations.extend(check_all(program, [inv], platform=report.platform))

        if reads_bodies and reads_signatures:
            raise InternalError(f"invariant {name}: reads_bodies already covers reads_signatures; give one")
        reads: Reads = READS_SIGNATURES if reads_signatures else READS_NOTHING
        if reads_bodies:
            reads = reads_bodies if isinstance(reads_bodies, Bodies) else READS_BODIES
        inv = cls(name, summary, run, auto_verified, function_check=check, reads=reads)
        inv.idle_if = idle_if
        return inv

    @classmethod
    def declared(
        cls,
        name: str,
        summary: str,
        *rules: Rule,
        auto_verified: bool = False,
        check: FunctionCheck | None = None,
        reads_bodies: bool | Bodies = False,
        reads_signatures: bool = False,
        holds_if: Callable[[Function], bool] | None = None,
    ) -> Invariant:
        """An invariant stated as grammar rules (:mod:`.grammar`), checked by the generic walker.

        ``check`` adds a hand-written per-function part for what is not grammar (call direction
        compatibility after the directions are required to exist, for instance). ``holds_if`` is a
        cheap sufficient condition for the rules: a function it accepts is not walked.
        ``reads_bodies`` / ``reads_signatures``: what ``check`` reads of the other functions (see
        :meth:`per_function`).
        """

        def run(func: Function, program: Program, report: Reporter) -> None:
            if inv.holds_if is None or not inv.holds_if(func):
                check_rules(rules, func, report)
            if check is not None:
                check(func, program, report)

        inv = cls.per_function(name, summary, run, auto_verified, reads_bodies, reads_signatures)
        inv.rules = rules
        inv.holds_if = holds_if
        if check is None:
            inv.idle_if = functools.partial(visits_nothing, rules)
        inv.is_checked_by_hand = check is not None
        return inv

    @classmethod
    def per_program(cls, name: str, summary: str, check: ProgramCheck, auto_verified: bool = False) -> Invariant:
        """An invariant whose checker sees the whole program: its functions and the platform (a passing
        result is reused for another program of the same function objects on the same platform; a
        failing one is always computed again)."""
        return cls(name, summary, check, auto_verified)

    @property
    def is_per_function(self) -> bool:
        """True when the checker looks at one function at a time (see :func:`check_all`)."""
        return self._function_check is not None

    def check_function(
        self, func: Function, program: Program, context: tuple, facts: dict | None = None
    ) -> list[Violation]:
        """The violations of a per-function invariant in ``func``, cached per function object.

        ``context`` is :meth:`context` of ``func`` in ``program``: a cached result is reused while it
        is equal.
        ``facts``: the cached facts of ``func``, when the caller has fetched them already.
        """
        if facts is None:
            facts = _facts(func)
        hit = facts.get(self.name)
        if hit is not None and (hit[0] is context or hit[0] == context):
            return hit[1]
        return _run_checks(func, program, facts, (self,), (context,), None)[0]

    def context(self, program: Program, platform: Platform | None = None, func: Function | None = None) -> tuple:
        """What a per-function result depends on besides the function ``func`` of ``program``:
        platform, maybe signatures, maybe the function objects whose bodies the checker reads
        (``func`` is needed only for a checker declared with a :class:`~.reads.Bodies`).

        Equal contexts share their signature object, so a cache hit compares it by identity instead
        of comparing the signatures of every function again for every function.
        """
        return _context(program, platform if platform is not None else current_platform(), self._reads, func)

    def check(self, program: Program, platform: Platform | None = None) -> list[Violation]:
        """Every violation of this invariant in ``program`` (errors and warnings) on ``platform``.

        Inside a compile the caller passes the compile's platform; outside one it defaults to that of
        the current backend type (see :mod:`pypto.backend`).
        """
        report = Reporter(self.name, "", platform if platform is not None else current_platform())
        self._check(program, report)
        return report.violations

    def errors(self, program: Program, platform: Platform | None = None) -> list[Violation]:
        """Only the violations of error severity."""
        return [v for v in self.check(program, platform) if v.severity is Severity.ERROR]

    def __repr__(self) -> str:
        return f"<Invariant {self.name}>"


def check_all(
    program: Program, invariants: Iterable[Invariant], *, platform: Platform | None = None
) -> list[Violation]:
    """The violations of ``invariants`` in ``program``, listed invariant by invariant.

    The per-function checkers run function by function, all of them on one function before the
    next, so a function's nodes are fetched from memory once for every checker rather than once
    per checker (on a large program the difference is most of the cost of a check). A program of the
    same function objects as the last one this set passed on ``platform`` passes again unwalked.
    """
    invariants = tuple(invariants)
    platform = platform if platform is not None else current_platform()
    plan = _plan(invariants)
    shared = _program_facts(program)
    # The functions of the program last checked with this set all passed: if these are the same
    # objects on the same platform, so do they now (a result depends on nothing else).
    serials = shared.serials
    if plan.passed is not None and plan.passed[1] is platform and plan.passed[0] == serials:
        found: dict[int, list[Violation]] = {}
    else:
        found = _check_functions(program, plan.groups, shared, platform)
        plan.passed = None if found else (serials, platform)
    if not found and not plan.whole:
        return []
    out: list[Violation] = []
    for i in sorted({*found, *plan.whole}) if found else plan.whole:
        out.extend(found[i] if i in found else _check_whole(invariants[i], program, serials, platform))
    return out


def _check_whole(inv: Invariant, program: Program, serials: tuple[int, ...], platform: Platform) -> list[Violation]:
    """The violations of a whole-program invariant: none when the program last checked that passed it
    had these same function objects, on this platform."""
    passed = _WHOLE_PASSED.get(inv)
    if passed is not None and passed[1] is platform and passed[0] == serials:
        return []
    found = inv.check(program, platform)
    _WHOLE_PASSED[inv] = None if found else (serials, platform)
    return found


def _check_functions(
    program: Program, groups: list[_Group], shared: _ProgramFacts, platform: Platform
) -> dict[int, list[Violation]]:
    """The per-function violations of the invariants of ``groups`` in ``program`` by position in the set."""
    found: dict[int, list[Violation]] = {}
    # One cache entry per function for each group of the set that reads the same of the other
    # functions: a function every check of a group passed before, in an equal context, costs one
    # lookup, not one per invariant (the per-invariant entries still serve other sets), and a change
    # elsewhere that a group does not read costs it nothing more.
    keys = []
    for group in groups:
        if type(group.reads) is int:
            keys.append(shared.shared(platform, group.reads))
        else:  # the contexts of each function, made once per program
            keys.append(shared.of_functions.setdefault((id(platform), group.reads), {}))
    for func in program.functions.values():
        entry = _FACT_ENTRIES.get(id(func))  # _facts(), inlined
        facts = entry[1] if entry is not None else _FACTS.put(func, {})
        for group, key in zip(groups, keys):
            names, positions, reads, members, _ = group
            if type(reads) is int:
                hit = facts.get(names)
                if hit is None or (hit[0] is not key and hit[0] != key):
                    hit = _check_group(func, program, facts, group, (key,) * len(members), key)
            else:
                contexts = key.get(id(func))
                if contexts is None:
                    contexts = key[id(func)] = shared.of_function_each(platform, reads, func)
                hit = facts.get(names)
                if hit is None or hit[0] != contexts:
                    hit = _check_group(func, program, facts, group, contexts, contexts)
            if hit[1] is not None:
                for i, result in zip(positions, hit[1]):
                    if result:
                        found.setdefault(i, []).extend(result)
    return found


def _run_checks(
    func: Function,
    program: Program,
    facts: dict,
    members: tuple[Invariant, ...],
    contexts: tuple,
    idle: tuple[bool, ...] | None,
) -> list[list[Violation]]:
    """The violations of each per-function invariant of ``members`` in ``func``, each in its
    context: a cached result is reused while its context is equal, else the checker runs and its
    result is cached in ``facts`` (the cached facts of ``func``). ``idle`` (if given) tells the
    members known to find nothing in ``func`` (see _idle)."""
    results: list[list[Violation]] = []
    append = results.append
    get = facts.get
    report = None
    for inv, context, skip in zip(members, contexts, idle if idle is not None else itertools.repeat(False)):
        if skip:  # (not cached: telling it again costs no more than a lookup)
            append([])
            continue
        name = inv.name
        hit = get(name)
        if hit is not None:
            if hit[0] is context or hit[0] == context:
                append(hit[1])
                continue
            if hit[0] is _AT_FUNCTION and hit[2] == context:
                append(_attached(func, hit[1]))
                continue
        # One reporter serves the checkers of a function in turn: most find nothing, and making one
        # per checker was a fair part of a boundary check's own cost.
        if report is None:
            report = Reporter(name, func.name, context[1])
        else:
            report.rule = name
            report.function = func.name
            report.platform = context[1]
            report.violations = []
        inv._function_check(func, program, report)
        found = report.violations
        facts[name] = _stored(func, context, found) if found else (context, found)
        append(found)
    return results


def _idle(group: _Group, func: Function) -> tuple[bool, ...] | None:
    """Per invariant of ``group``: True when its idle test says it finds nothing in ``func``; None
    when none of them has one."""
    table = group.idle
    if table is None:
        return None
    key = (func.func_type, function_index(func).classes)
    found = table.get(key)
    if found is None:
        if len(table) > _CONTEXTS_LIMIT:
            table.clear()
        found = table[key] = tuple(inv.idle_if is not None and inv.idle_if(func) for inv in group.members)
    return found


def _check_group(func: Function, program: Program, facts: dict, group: _Group, contexts: tuple, key: tuple) -> tuple:
    """``(key, the results of the invariants of group in func, None when all pass)``, each
    invariant checked in its context; cached under the group's names unless a violation is at
    ``func`` itself (see _AT_FUNCTION)."""
    names, members = group.names, group.members
    results = _run_checks(func, program, facts, members, contexts, _idle(group, func))
    entry = (key, tuple(results) if any(results) else None)
    if entry[1] is None or not _at_function(func, entry[1]):
        facts[names] = entry
    return entry


class _Group(NamedTuple):
    """A group of per-function invariants of a set (unpacked in check_all's loop: a tuple)."""

    names: tuple[str, ...]
    positions: list[int]  # in the set
    # what they read of the other functions: the same flag for all, or what each reads when some read bodies
    reads: int | tuple[Reads, ...]
    members: tuple[Invariant, ...]
    # when one of them has an idle test: by (function kind, node classes), which of them find nothing
    # there (see Invariant.idle_if)
    idle: dict[tuple[FunctionType, frozenset[type]], tuple[bool, ...]] | None


class _Plan:
    """How :func:`check_all` checks one set of invariants."""

    __slots__ = ("groups", "whole", "passed")

    def __init__(self, invariants: tuple[Invariant, ...]) -> None:
        local = [i for i, inv in enumerate(invariants) if inv.is_per_function]
        # The groups of per-function invariants: those reading nothing of the other functions, those
        # reading signatures, those reading some bodies (whose contexts are per function).
        self.groups: list[_Group] = []
        for flag in (READS_NOTHING, READS_SIGNATURES):
            chosen = [i for i in local if type(invariants[i]._reads) is int and invariants[i]._reads == flag]
            if chosen:
                self.groups.append(_group(invariants, chosen, flag))
        chosen = [i for i in local if type(invariants[i]._reads) is not int or invariants[i]._reads == READS_BODIES]
        if chosen:
            reads = tuple(invariants[i]._reads for i in chosen)
            self.groups.append(_group(invariants, chosen, reads))
        # The positions of the whole-program invariants.
        self.whole = tuple(i for i in range(len(invariants)) if i not in local)
        # The serials of the functions of the program last checked that passed every per-function
        # invariant, with its platform (nothing found is cached for a failing one).
        self.passed: tuple[tuple[int, ...], Platform] | None = None


def _group(invariants: tuple[Invariant, ...], chosen: list[int], reads: int | tuple[Reads, ...]) -> _Group:
    members = tuple(invariants[i] for i in chosen)
    idle = {} if any(inv.idle_if is not None for inv in members) else None
    return _Group(tuple(inv.name for inv in members), chosen, reads, members, idle)


def _plan(invariants: tuple[Invariant, ...]) -> _Plan:
    """The plan of a set of invariants (cached)."""
    plan = _PLANS.get(invariants)
    if plan is None:
        if len(_PLANS) > _CONTEXTS_LIMIT:
            _PLANS.clear()
        plan = _PLANS[invariants] = _Plan(invariants)
    return plan
