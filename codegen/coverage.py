"""What each code-generation target still lacks: ops and node kinds without a rule.

An op lacks a rule when the target needs it (see :meth:`Target.needs`) and its table has no entry,
or the target's emitter has no rule for the entry's form (those a compile refuses at the call,
``unsupported.REFUSED`` for the kernel targets, ``orchestration_refused.REFUSED`` for the
orchestration, are listed apart). A node kind lacks a rule when the
target's emitter registers none for it, or the target has no emitter yet. ``python -m
pypto.codegen.coverage`` prints the report; a snapshot test keeps it under review.
"""

from __future__ import annotations

import importlib
import textwrap
from dataclasses import dataclass

from .base import Emitter
from .orchestration_refused import REFUSED as ORCHESTRATION_REFUSED
from .target import ORCHESTRATION, TARGETS, Target
from .unsupported import ORCHESTRATION_ONLY, REFUSED

# Where each target's emitter lives ("module:class"); a module that does not exist yet means the
# target has no emitter, so none of its node kinds has a rule.
EMITTERS: dict[str, str] = {
    "pto": "pypto.codegen.pto:PtoEmitter",
    "cce": "pypto.codegen.cce:CceEmitter",
    "orchestration": "pypto.codegen.orchestration:OrchestrationEmitter",
}


@dataclass(frozen=True)
class Coverage:
    """The rules one target lacks."""

    target: str
    emitter: str | None
    needed_ops: int
    missing_ops: tuple[str, ...]
    needed_nodes: int
    missing_nodes: tuple[str, ...]
    refused_ops: tuple[str, ...] = ()

    def render(self) -> str:
        """The report section of this target; ops a compile refuses before its passes are listed apart."""
        emitter = self.emitter or "none yet"
        lines = [f"{self.target} (emitter: {emitter})"]
        unhandled = tuple(op for op in self.missing_ops if op not in self.refused_ops)
        for label, total, missing in (("ops", self.needed_ops, unhandled),
                                      ("nodes", self.needed_nodes, self.missing_nodes)):
            lines.append(f"  {label} without a rule: {len(missing)} of {total}")
            lines += textwrap.wrap(" ".join(missing), width=100, initial_indent="    ", subsequent_indent="    ")
            if label == "ops" and self.refused_ops:
                lines.append(f"  ops without a rule that a compile refuses at the call: {len(self.refused_ops)}")
                lines += textwrap.wrap(" ".join(self.refused_ops), width=100, initial_indent="    ",
                                       subsequent_indent="    ")
        return "\n".join(lines) + "\n"


def load_emitter(target: Target) -> type[Emitter] | None:
    """The emitter class of ``target``, or None while its module does not exist."""
    module_name, _, class_name = EMITTERS[target.name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name != module_name:
            raise
        return None
    return getattr(module, class_name)


def coverage(target: Target, emitter: type[Emitter] | None) -> Coverage:
    """The ops and node kinds ``target`` needs that have no rule (in ``emitter``, if given)."""
    ops = target.needed_ops()
    missing_ops = [
        name for name in ops
        if name not in target.ops or (emitter is not None and not emitter.rules.handles_form(type(target.ops[name])))
    ]
    nodes = target.needed_nodes()
    missing_nodes = [cls.__name__ for cls in nodes if emitter is None or not emitter.rules.handles(cls)]
    table = ORCHESTRATION_REFUSED if target is ORCHESTRATION else REFUSED.keys() | ORCHESTRATION_ONLY.keys()
    refused = tuple(name for name in missing_ops if name in table)
    return Coverage(target.name, emitter.__name__ if emitter else None, len(ops), tuple(missing_ops),
                    len(nodes), tuple(missing_nodes), refused)


def report() -> str:
    """The coverage of every target, one section each."""
    return "\n".join(coverage(t, load_emitter(t)).render() for t in TARGETS)


if __name__ == "__main__":
    print(report(), end="")
