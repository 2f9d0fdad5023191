"""Property verification under the established API's names.

A thin layer over the invariant checkers and pass contexts (docs/passes.md#contract):

* ``Diagnostic`` is our :class:`~pypto.languages.invariants.base.Violation` (``severity``,
  ``rule_name``, ``error_code``, ``message``, ``span``); ``DiagnosticSeverity`` is its ``Severity``.
* ``VerificationLevel`` is :class:`~pypto.transform.context.VerifyLevel`, so
  ``PassContext([instruments], VerificationLevel.NONE)`` works as written.
* :class:`PropertyVerifierRegistry` / :func:`verify_properties` check an :class:`IRPropertySet` on a
  program; :func:`run_verifier` is the same check as a pass in a pipeline.
* :class:`VerificationInstrument` is the stricter instrument of §2: ``required`` before and
  ``produced`` ∪ structural after every pass.
* :class:`PassPipeline` runs a list of passes one after the other, each as if called alone.

::

    with passes.PassContext([passes.VerificationInstrument(passes.VerificationMode.BEFORE_AND_AFTER)]):
        after = passes.PassPipeline([passes.convert_to_ssa()]).run(before)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from pypto.languages.dialect import raise_if_errors
from pypto.languages.invariants import STRUCTURAL, Severity, Violation
from pypto.languages.invariants.base import check_all

from pypto.ir.function import Program

from .base import Pass, ProgramPass, did_you_mean
from .context import PassContext, PassInstrument, VerifyLevel
from .errors import PassError
from .properties import IRProperty, IRPropertySet, as_property, get_default_verify_properties

# The established names of our classes (the same classes).
Diagnostic = Violation
DiagnosticSeverity = Severity
VerificationLevel = VerifyLevel


def _as_set(properties: IRPropertySet | Iterable[IRProperty]) -> IRPropertySet:
    return properties if isinstance(properties, IRPropertySet) else IRPropertySet(properties)


class PropertyVerifierRegistry:
    """Where each :class:`IRProperty` finds its checker (the invariant of the same name)."""

    @staticmethod
    def get_verifier(prop: IRProperty) -> object:
        """The checker of ``prop``: its :class:`~pypto.languages.invariants.base.Invariant`."""
        return as_property(prop).invariant

    @staticmethod
    def verify(properties: IRPropertySet | Iterable[IRProperty], program: Program) -> list[Violation]:
        """Every diagnostic of ``properties`` on ``program`` (errors and warnings), property by property."""
        platform = PassContext.current().platform
        return check_all(program, _as_set(properties).invariants(), platform=platform)


def verify_properties(
    properties: IRPropertySet | Iterable[IRProperty], program: Program, pass_name: str = ""
) -> None:
    """Raise :class:`~pypto.ir.errors.VerificationError` if ``program`` breaks one of ``properties``.

    ``pass_name`` names the pass after which the check runs (it appears in the message).
    """
    found = PropertyVerifierRegistry.verify(properties, program)
    raise_if_errors(found, "", program, f"after pass {pass_name}" if pass_name else "")


class RunVerifier(ProgramPass):
    """A pass that changes nothing and checks properties of its input (default: the structural ones).

    ``properties``: the names to check (empty: :func:`get_default_verify_properties`);
    ``disabled_rules``: names left out. A name that is no :class:`IRProperty` is a PassError.
    """

    properties: tuple[str, ...] = ()
    disabled_rules: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        known = [p.value for p in IRProperty]
        for option in ("properties", "disabled_rules"):
            for name in getattr(self, option):
                if name not in known:
                    raise PassError(
                        self.name,
                        f"option '{option}': {name!r} is no IR property{did_you_mean(name, known)} "
                        "(the properties are the members of passes.IRProperty)",
                    )

    def run(self, program: Program) -> Program:
        chosen = IRPropertySet(self.properties) if self.properties else get_default_verify_properties()
        skipped = IRPropertySet(self.disabled_rules)
        verify_properties(chosen.difference(skipped), program, self.name)
        return program


def run_verifier(
    properties: Iterable[IRProperty | str] | None = None, disabled_rules: Iterable[IRProperty | str] | None = None
) -> RunVerifier:
    """The verifier pass (see :class:`RunVerifier`); properties are given as members or names."""
    return RunVerifier(
        properties=tuple(as_property(p).value for p in properties or ()),
        disabled_rules=tuple(as_property(p).value for p in disabled_rules or ()),
    )


class VerificationMode(enum.Enum):
    """When a :class:`VerificationInstrument` checks: before each pass, after it, or both."""

    BEFORE = "before"
    AFTER = "after"
    BEFORE_AND_AFTER = "before_and_after"


class VerificationInstrument(PassInstrument):
    """Checks a pass's ``required`` properties before it and ``produced`` ∪ structural after it."""

    name = "VerificationInstrument"

    def __init__(self, mode: VerificationMode = VerificationMode.AFTER) -> None:
        self.mode = mode

    def before_pass(self, pass_: Pass, program: Program) -> None:
        if self.mode is not VerificationMode.AFTER:
            found = PropertyVerifierRegistry.verify(pass_.get_required_properties(), program)
            raise_if_errors(found, "", program, f"before pass {pass_.name}")

    def after_pass(self, pass_: Pass, program: Program) -> None:
        if self.mode is not VerificationMode.BEFORE:
            props = pass_.get_produced_properties().union_with(IRPropertySet(STRUCTURAL))
            verify_properties(props, program, pass_.name)


class PassPipeline:
    """An ordered list of passes run one after the other, each as if called on its own.

    Unlike :class:`~pypto.pipeline.manager.PassManager` it checks no order up front: each pass
    validates its own input (source dialect and required properties) when it runs.
    """

    def __init__(self, passes: Iterable[Pass] = ()) -> None:
        self.passes: list[Pass] = list(passes)

    def add_pass(self, pass_: Pass) -> None:
        """Append ``pass_``."""
        self.passes.append(pass_)

    def get_pass_names(self) -> list[str]:
        """The pass names in order."""
        return [p.name for p in self.passes]

    def run(self, program: Program) -> Program:
        """Run the passes in order on ``program`` and return the result."""
        for pass_ in self.passes:
            program = pass_(program)
        return program

    __call__ = run
