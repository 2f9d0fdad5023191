"""The argument an op call passes for each of its op's parameters, bound once per call.

Code generation and the window analysis (:mod:`.windows`) ask about the same calls several times
(each operand of a load, then its window): one binding per call, kept by the call's identity, serves
them all. Binding follows the registry (``OpEntry.bind``); a call passing just the required
parameters binds them in order, whatever the argument kinds.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pypto.ir import op_registry
from pypto.ir.expr import Call, Expr
from pypto.util import IdentityCache


class OpFacts(NamedTuple):
    """What binding a call of one op needs from its registry entry."""

    entry: op_registry.OpEntry
    # each keyword's default: None for a required one, as for a keyword the op does not declare
    defaults: dict[str, Any]
    required: list[str]  # the required parameters, in order
    params: tuple[str, ...]  # every parameter, in order


# Op name -> its facts. Registry entries are never replaced; every bound call reads its op's.
_OP_FACTS: dict[str, OpFacts] = {}


def op_facts(op: str) -> OpFacts:
    """The binding facts of registered op ``op``, worked out once (shared: callers must not change them)."""
    found = _OP_FACTS.get(op)
    if found is None:
        entry = op_registry.get_entry(op)
        found = _OP_FACTS[op] = OpFacts(
            entry, {k.name: None if k.required else k.default for k in entry.kwargs},
            [p.name for p in entry.params if not p.optional], tuple(p.name for p in entry.params))
    return found


# Entry: argument by parameter name, a plain dict read with one C-level get (a CallInfo's methods were a
# Python frame per question). Sized for every call of a small program's kernels: the PTO emitter, then the
# CCE emitter and the orchestration's window analysis ask about each.
_BOUND: IdentityCache[Call, dict[str, Expr]] = IdentityCache(4096)
_BOUND_ENTRIES = _BOUND.entries  # read directly (see IdentityCache): a method call here was 1k bytecodes


def bound(call: Call) -> dict[str, Expr]:
    """Parameter name -> the argument of op call ``call`` bound to it (the caller must not change it)."""
    hit = _BOUND_ENTRIES.get(id(call))
    if hit is not None:
        return hit[1]
    facts = op_facts(call.op.name)
    args = call.args
    # without optional arguments the binding is the required parameters (OpEntry.bind), whatever the kinds
    names = facts.required if len(args) == len(facts.required) else [p.name for p in facts.entry.bind(list(args))]
    return _BOUND.put(call, dict(zip(names, args)))


def argument(call: Call, name: str) -> Expr | None:
    """The positional argument of op call ``call`` bound to parameter ``name`` (None when an optional
    one is absent)."""
    hit = _BOUND_ENTRIES.get(id(call))  # bound's cache read here: the emitters ask this per operand
    return (hit[1] if hit is not None else bound(call)).get(name)
