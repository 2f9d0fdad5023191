"""Per-target op tables: registered op name -> the rule that spells the op in the target language.

Each target module (``pto_ops``, ``cce_ops``, ``orchestration_ops``) defines small frozen rule
classes, one per spelling form, and one :class:`OpTable`. An emitter dispatches an op call on the
class of its table entry, so a target states how each form prints once and the table says which
form (and which mnemonic, operands and attributes) each op takes::

    PTO_OPS = OpTable("pto", {"tile.add": Dps("pto.tadd"), "tile.load": Transfer("pto.tload", ...)})
    PTO_OPS.get("tile.add")      # Dps(mnemonic='pto.tadd', ...)
    PTO_OPS.get("tile.sin")      # None: the emitter raises "no rule for tile.sin in pto"
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pypto.analysis.call_args import argument, bound, op_facts
from pypto.ir import op_registry
from pypto.ir.enums import PipeType
from pypto.ir.errors import IRValueError
from pypto.ir.expr import Call


@dataclass(frozen=True)
class OpRule:
    """Base of every table entry.

    ``mnemonic`` is the target's name for the op (empty when the form prints no instruction of its
    own). ``implied`` names parameters and keywords whose meaning the printed result type already
    carries (``target_memory`` of ``tile.load``, ``shape`` of ``tile.full``); :meth:`spelled` adds
    those the rule prints itself. A call that passes any other parameter, or sets any other keyword
    to a non-default value, has no rule: printing it would silently drop that argument.
    """

    mnemonic: str
    implied: frozenset[str] = field(default=frozenset(), kw_only=True)
    # spelled() by op name, filled on first use: the sets are rebuilt from the registry on every call,
    # and each op call of a kernel asks (once per emitter).
    _spelled: dict[str, frozenset[str]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def spelled(self, op: str) -> frozenset[str]:
        """Parameters and keywords this rule prints or whose meaning the printed types carry."""
        return self.implied

    def spelled_for(self, op: str) -> frozenset[str]:
        """:meth:`spelled` of ``op``, worked out once per op."""
        spelled = self._spelled.get(op)
        if spelled is None:
            spelled = self._spelled[op] = self.spelled(op)
        return spelled

    def unspelled(self, call: Call) -> list[str]:
        """Passed parameters and non-default keywords of ``call`` that this rule cannot print."""
        spelled = self.spelled_for(call.op.name)
        return [name for name in given_names(call) if name not in spelled]


def given_names(call: Call) -> list[str]:
    """The parameters ``call`` passes and the keywords it sets to a value other than their default."""
    given = list(bound(call))
    defaults = op_facts(call.op.name).defaults
    for name, value in call.kwargs.items():
        default = defaults.get(name)
        if not (type(value) is type(default) and value == default):
            given.append(name)
    return given


def every_parameter(op: str) -> frozenset[str]:
    """The names of all positional parameters of registered op ``op``."""
    return frozenset(parameters(op))


@dataclass(frozen=True)
class Accumulate(OpRule):
    """An accumulating matmul whose accumulator ``acc`` is also the result buffer (PTO:
    ``pto.tmatmul.acc ins(%acc, %l, %r : ...) outs(%acc : TA)``; CCE: ``TMATMUL_ACC(acc, acc, l, r)``).

    A literal-true ``cond`` operand prints ``fresh`` on ``operands`` minus the accumulator instead;
    a runtime one prints both, under an if on the condition (``scf.if`` / C++ ``if``).
    """

    fresh: str
    operands: tuple[str, ...] = ("acc", "lhs", "rhs")
    cond: str = "init_cond"

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | frozenset(self.operands) | {self.cond}


class OpTable(Mapping[str, OpRule]):
    """An immutable mapping from registered op names to rules; unknown op names are rejected."""

    def __init__(self, target: str, rules: Mapping[str, OpRule]) -> None:
        unknown = sorted(name for name in rules if op_registry.lookup(name) is None)
        if unknown:
            raise IRValueError(f"{target} op table names unregistered ops: {', '.join(unknown)}")
        self.target = target
        self._rules = dict(sorted(rules.items()))

    def __getitem__(self, name: str) -> OpRule:
        return self._rules[name]

    def get(self, name: str, default: OpRule | None = None) -> OpRule | None:  # type: ignore[override]
        # the dict's own get: Mapping.get goes through __getitem__ (and a KeyError per miss); asked per op call
        return self._rules.get(name, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._rules)

    def __len__(self) -> int:
        return len(self._rules)

    def __repr__(self) -> str:
        return f"<OpTable {self.target}: {len(self)} ops>"


def parameters(op: str) -> tuple[str, ...]:
    """The names of every positional parameter of registered op ``op``, in order."""
    return op_facts(op).params


def is_parameter(op: str, name: str) -> bool:
    """True when ``name`` is a positional parameter of registered op ``op`` (else it may be a keyword)."""
    return name in op_facts(op).params


def bound_parameters(call: Call) -> list[str]:
    """The parameters the arguments of ``call`` fill, in order."""
    return list(bound(call))


_ABSENT = object()


def keyword(call: Call, name: str) -> Any:
    """The value of keyword ``name`` on an op call, its registry default filled in (None if absent)."""
    value = call.kwargs.get(name, _ABSENT)  # no binding: a call asked only keywords (a sync flag) needs none
    return op_facts(call.op.name).defaults.get(name) if value is _ABSENT else value


def is_set(call: Call, name: str) -> bool:
    """True when ``name`` is a parameter the call passes, or a keyword whose value is truthy."""
    if is_parameter(call.op.name, name):
        return argument(call, name) is not None
    return bool(keyword(call, name))


# Pipe number -> name (an IntEnum's member is its number as a dict key): PipeType(n).name goes through
# the enum's Python-level constructor and name property, twice per sync flag.
_PIPE_NAMES = {p.value: p.name for p in PipeType}


def pipe_name(value: Any) -> str:
    """The name of the pipe ``value`` stands for (``MTE2``); ValueError from PipeType when none does."""
    name = _PIPE_NAMES.get(value)
    return PipeType(value).name if name is None else name
