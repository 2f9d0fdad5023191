"""The emitter base: node rules dispatched on type, op calls dispatched through the target's op table.

An :class:`Emitter` prints programs of its target's dialect (entering checks the program is in
it). Its :class:`Rules` is one ``multipledispatch`` Dispatcher per emitter: ``register(NodeClass)``
adds a node rule ``(self, node)``, ``op(RuleClass)`` an op-form rule ``(self, call, rule)`` for
every table entry of that class. Statement rules write lines into ``self.doc``; expression rules
return text (an SSA name, a C++ expression)::

    class PtoEmitter(Emitter):
        target = PTO
        rules = Rules("pto")

        @rules.register(ForStmt)
        def _for(self, node: ForStmt) -> None:
            with self.doc.block(f"scf.for %{node.loop_var.name_hint} = ... {{"):
                self.emit(node.body)

        @rules.op(Dps)                  # pto.tadd, pto.texp, ...: every Dps entry of PTO_OPS
        def _dps(self, call: Call, rule: Dps) -> str: ...

A node with no rule, an op without a table entry, an entry whose form has no rule, and a call
with an argument the rule cannot print all raise :class:`CodegenError` "no rule for <node kind or
op> in <target>" with the node's span; never a KeyError.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from multipledispatch import Dispatcher

from pypto.backend import Platform
from pypto.languages.dialect import Dialect

from pypto.ir.expr import Call, GlobalVar
from pypto.ir.function import Program
from pypto.ir.span import Span

from .doc import Doc
from .errors import no_rule
from .op_table import OpRule, given_names, parameters
from .target import Target

Handler = Callable[..., Any]


class Rules:
    """The per-emitter dispatcher: node rules ``(owner, node)`` and op-form rules ``(owner, call, rule)``.

    Its fallbacks raise the "no rule" error; a ``Call`` of a registered op goes through
    :meth:`Emitter.op_call` unless the emitter registers its own ``Call`` rule.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        # The rule of each argument-class signature, resolved once: the generic Dispatcher call
        # (its type tuple, cache probe and fallthrough loop) was most of codegen's per-node cost.
        self.table: dict[tuple[type, ...], Handler] = {}
        # emitter class -> {op name -> (its op table entry, the rule for that entry, the names the entry
        # spells, whether those are all the op's parameters)}: an op call's look-ups made once per op
        self.ops: dict[type, dict[str, tuple[OpRule, Handler, frozenset[str], bool]]] = {}
        # emitter class -> {node class -> its rule}: what ``Emitter.emit`` reads, shared by the
        # emitters of one class (each compile makes new ones)
        self.nodes: dict[type, dict[type, Handler]] = {}
        self.dispatcher = Dispatcher(name)
        self.dispatcher.add((object, object), _no_node_rule)
        self.dispatcher.add((object, Call, object), _no_form_rule)
        # Emitter.op_call itself, not a function calling it: a frame less per op call
        self.dispatcher.add((object, Call), Emitter.op_call)

    def register(self, *classes: type) -> Callable[[Handler], Handler]:
        """Decorator: print nodes of ``classes`` (and their subclasses) with the function."""

        def deco(fn: Handler) -> Handler:
            for cls in classes:
                self.dispatcher.add((object, cls), fn)
            self.table.clear()
            self.ops.clear()
            self.nodes.clear()
            return fn

        return deco

    def op(self, *forms: type[OpRule]) -> Callable[[Handler], Handler]:
        """Decorator: print calls whose table entry is one of the rule classes ``forms``."""

        def deco(fn: Handler) -> Handler:
            for form in forms:
                self.dispatcher.add((object, Call, form), fn)
            self.table.clear()
            self.ops.clear()
            self.nodes.clear()
            return fn

        return deco

    def rule(self, *classes: type) -> Handler:
        """The rule for arguments of ``classes`` (the owner's class first)."""
        found = self.table.get(classes)
        if found is None:
            found = self.table[classes] = self.dispatcher.dispatch(*classes)
        return found

    def node_rules(self, owner: type) -> dict[type, Handler]:
        """The node rules of emitters of class ``owner`` resolved so far: a per-class front of :attr:`table`
        (``Emitter.emit`` and ``emit_all`` fill it; cleared with it when a rule is added)."""
        found = self.nodes.get(owner)
        if found is None:
            found = self.nodes[owner] = {}
        return found

    def op_rules(self, owner: type) -> dict[str, tuple[OpRule, Handler, frozenset[str], bool]]:
        """The op-call facts of emitters of class ``owner`` resolved so far, by op name (``Emitter.op_call``
        fills it; cleared when a rule is added)."""
        found = self.ops.get(owner)
        if found is None:
            found = self.ops[owner] = {}
        return found

    def extend(self, name: str) -> Rules:
        """New rules that start with all of these (a target variant adds or overrides some)."""
        child = Rules(name)
        for signature, fn in self.dispatcher.funcs.items():
            child.dispatcher.add(signature, fn)
        return child

    def handles(self, cls: type) -> bool:
        """True when a node rule other than the fallback applies to nodes of class ``cls``."""
        return self.dispatcher.dispatch(object, cls) is not _no_node_rule

    def handles_form(self, form: type[OpRule]) -> bool:
        """True when an op-form rule applies to table entries of class ``form``."""
        return self.dispatcher.dispatch(object, Call, form) is not _no_form_rule


def _no_node_rule(owner: Emitter, node: Any) -> Any:
    kind = type(node).__name__
    name = type(owner).__name__
    raise no_rule(kind, owner.target.name, _span_of(node), f"{name} registers no rule for {kind} nodes")


def _no_form_rule(owner: Emitter, call: Call, rule: OpRule) -> Any:
    form = type(rule).__name__
    name = type(owner).__name__
    raise no_rule(call.op.name, owner.target.name, call.span,
                  f"its {owner.target.name} table entry is a {form}, and {name} registers no rule for {form} entries")


# Programs known to be valid, with the (dialect, platform) pairs they were validated in: nodes are
# immutable, so the generators of one compile, which read the same final program, check it once, and
# not at all when the pipeline that made it validated it in full (``note_validated``).
_VALIDATED: weakref.WeakKeyDictionary[Program, list[tuple[Dialect, Platform]]] = weakref.WeakKeyDictionary()


def note_validated(dialect: Dialect, program: Program, platform: Platform) -> None:
    """Record that ``program`` passed ``dialect.validate`` (grammar and every invariant) on ``platform``."""
    _VALIDATED.setdefault(program, []).append((dialect, platform))


def validate_once(dialect: Dialect, program: Program, context: str, platform: Platform) -> None:
    """``dialect.validate(program)`` on ``platform``, unless it passed before in a dialect that implies it."""
    seen = _VALIDATED.setdefault(program, [])
    if any(p is platform and implies(d, dialect) for d, p in seen):
        return
    dialect.validate(program, context=context, platform=platform)
    seen.append((dialect, platform))


def implies(checked: Dialect, wanted: Dialect) -> bool:
    """True when a program valid in ``checked`` is valid in ``wanted``: every node kind ``checked``
    allows is one of ``wanted``'s, every form ``wanted`` removes ``checked`` removes too, and every
    invariant of ``wanted`` is one of ``checked``'s (``synced`` implies ``runtime``)."""
    if checked is wanted:
        return True
    # Each generator of every compile asks this of the same two dialects: the answer is kept with the
    # very sets it was worked out from (a dialect whose sets were replaced is asked again).
    facts = (checked.kinds, checked.excluded, checked.invariants, wanted.kinds, wanted.excluded, wanted.invariants)
    known = _IMPLIED.get((id(checked), id(wanted)))
    if known is not None and all(a is b for a, b in zip(known[0], facts)):
        return known[1]
    answer = (
        checked.kinds <= wanted.kinds
        and wanted.excluded <= checked.excluded
        and set(wanted.invariants) <= set(checked.invariants)
    )
    if len(_IMPLIED) > 256:  # dialects made on the fly (plugins, tests) would otherwise pile up
        _IMPLIED.clear()
    _IMPLIED[id(checked), id(wanted)] = (facts, answer)
    return answer


_IMPLIED: dict[tuple[int, int], tuple[tuple[object, ...], bool]] = {}


def _span_of(node: Any) -> Span | None:
    span = getattr(node, "span", None)
    return span if isinstance(span, Span) else None


class Emitter:
    """Base of every code generator: a target, its rules, the platform and the document being written.

    ``emitter(program)`` checks that ``program`` is in the target's dialect on the emitter's
    platform (the compile's, given by ``ir.compile``; skipped when :func:`note_validated` recorded
    that it passed that check or a stricter one), then returns what the rule for ``Program``
    returns (the text of one file, or a mapping of files to texts).
    """

    target: ClassVar[Target]
    rules: ClassVar[Rules]
    indent_unit: ClassVar[str] = "  "

    def __init__(self, platform: Platform) -> None:
        self.platform = platform
        self.doc = Doc(self.indent_unit)
        # node class -> its rule for this emitter's class (emit runs for every node)
        self._node_rules = self.rules.node_rules(type(self))
        # op name -> (table entry, its rule, the names it spells, whether every parameter) for this
        # emitter's class (op_call)
        self._op_rules = self.rules.op_rules(type(self))

    def __call__(self, program: Program) -> Any:
        validate_once(self.target.dialect, program, f"{self.target.name} code generation", self.platform)
        return self.emit(program)

    def emit(self, node: Any) -> Any:
        """Dispatch ``node`` to its rule."""
        rule = self._node_rules.get(type(node))
        if rule is None:
            rule = self._node_rules[type(node)] = self.rules.rule(type(self), type(node))
        return rule(self, node)

    def emit_all(self, nodes: Iterable[Any]) -> None:
        """:meth:`emit` each of ``nodes`` (statements: what the rules return is dropped)."""
        rules = self._node_rules  # emit's look-up inlined: a block's statements come here one by one
        for node in nodes:
            rule = rules.get(type(node))
            if rule is None:
                rule = rules[type(node)] = self.rules.rule(type(self), type(node))
            rule(self, node)

    def op_call(self, call: Call) -> Any:
        """Dispatch an op call on the class of its table entry, after checking that the entry can
        print every argument the call passes (the rule of ``Call`` nodes unless an emitter registers its own)."""
        name = call.op.name
        known = self._op_rules.get(name)
        if known is None:
            known = self._op_rules[name] = self._op_facts(call)
        rule, handler, spelled, every = known
        # given_names binds the call; when the rule spells every parameter, its keywords decide alone
        if not (every and spelled.issuperset(call.kwargs)) and not spelled.issuperset(given_names(call)):
            dropped = rule.unspelled(call)
            what = f"{name} with {', '.join(dropped)}"
            raise no_rule(what, self.target.name, call.span,
                          f"the {self.target.name} spelling of '{name}' cannot print {', '.join(dropped)}")
        return handler(self, call, rule)

    def _op_facts(self, call: Call) -> tuple[OpRule, Handler, frozenset[str], bool]:
        """The table entry of the op ``call`` calls, the rule for it, the names it spells and whether
        those include every parameter of the op."""
        name = call.op.name
        if isinstance(call.op, GlobalVar):
            raise no_rule(f"a call of function '{name}'", self.target.name, call.span,
                          f"{type(self).__name__} registers no Call rule for function calls")
        rule = self.target.ops.get(name)
        if rule is None:
            raise no_rule(name, self.target.name, call.span,
                          f"the {self.target.name} op table has no entry for '{name}'")
        # the class of the emitter decides its target (a class attribute), hence its table entry
        # (Call has no subclasses: the rule of a call's class is Call's)
        spelled = rule.spelled_for(name)
        return rule, self.rules.rule(type(self), Call, type(rule)), spelled, spelled.issuperset(parameters(name))

    def capture(self, depth: int = 0) -> _Capture:
        """Lines written inside the ``with`` go to a fresh document (yielded), not ``self.doc``;
        ``depth``: the document's starting depth (see :class:`Doc`), where it will be spliced."""
        return _Capture(self, depth)


class _Capture:
    """The ``with`` of :meth:`Emitter.capture` (a class: cheaper than a generator-based context
    manager, and every kernel function enters a few)."""

    __slots__ = ("owner", "depth", "saved")

    def __init__(self, owner: Emitter, depth: int) -> None:
        self.owner, self.depth = owner, depth

    def __enter__(self) -> Doc:
        owner = self.owner
        self.saved, owner.doc = owner.doc, Doc(owner.indent_unit, self.depth)
        return owner.doc

    def __exit__(self, *exc: object) -> None:
        self.owner.doc = self.saved
