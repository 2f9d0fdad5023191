"""The pass manager: an ordered pipeline with adjacency checks and verification at each boundary.

Building a :class:`PassManager` checks the order statically, before anything runs: the dialect the
program is in at each pass must be the pass's source dialect or descend from it, its required
properties must hold, and a pass that enters a new dialect must leave every property of that dialect established
(by the dialect the program came from or by the passes so far). Running it then validates:

* the input program against the start dialect (grammar and every invariant);
* after a pass that enters a new dialect, the whole new dialect;
* after any other pass, only the properties it produces that are not verified yet (``basic``, the
  default; a pass's invalidated properties leave the verified set) or the whole current dialect
  again (``strict``).

``pass_options`` sets the options of the pipeline's passes by pass name (docs/passes.md#options)::

    PassManager.get_strategy(pass_options={"MemoryReuse": {"strategy": "best_fit"}})
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pypto.languages.dialect import Dialect
from pypto.languages.surface import surface

from pypto.ir.errors import PyptoError, VerificationError
from pypto.ir.function import Program
from pypto.ir.structural import assert_structural_equal
from pypto.ir.gcpause import gc_paused
from pypto.language.parser.text_parser import parse_program

from pypto.transform.base import Pass, did_you_mean
from pypto.transform.context import DumpInstrument, PassContext, PassInstrument, VerifyLevel, apply_pass, verify_level
from pypto.transform.errors import PassError, PassOrderError
from .default import OptimizationStrategy, builtin_passes, default_passes


PassOptions = Mapping[str, Mapping[str, object]]


def with_options(passes: Iterable[Pass], options: PassOptions | None) -> list[Pass]:
    """``passes`` with every pass named in ``options`` rebuilt with those options (checked by the pass).

    ``options`` maps a pass name to ``{option: value}``; a name that is no pass of ``passes`` is a
    :class:`PassError` suggesting the closest one.
    """
    passes = list(passes)
    if not options:
        return passes
    names = list(dict.fromkeys(p.name for p in passes))
    for name, given in options.items():
        if name not in names:
            hint = did_you_mean(str(name), names) or f" (the passes: {', '.join(names)})"
            raise PassError(str(name), f"no pass of this name in the pipeline{hint}")
        if not isinstance(given, Mapping):
            raise PassError(name, f"options must map option names to values, got {given!r}")
    return [dataclasses.replace(p, **options[p.name]) if p.name in options else p for p in passes]


class PassDumpLevel(enum.Enum):
    """How much printed IR ``run_passes`` writes: nothing, or the input and the result of every pass."""

    NONE = "none"
    ALL = "all"


def dumps(level: bool | PassDumpLevel) -> bool:
    """Whether ``level`` (a bool or a :class:`PassDumpLevel`) asks for the per-pass dump."""
    return level is True or level is PassDumpLevel.ALL


@dataclass(frozen=True)
class Step:
    """One pass of a checked pipeline with the dialects before and after it."""

    pass_: Pass
    before: Dialect
    after: Dialect


def _names(invariants: Iterable) -> set[str]:
    return {i.name for i in invariants}


def _hint(props: set[str], known: list[Pass], asking: Pass) -> str:
    """``P (from PassA, PassB), Q``: each property with the other known passes that produce it."""
    parts = []
    for prop in sorted(props):
        makers = list(dict.fromkeys(p.name for p in known if p.name != asking.name and prop in _names(p.produces)))
        parts.append(f"{prop} (from {', '.join(makers)})" if makers else prop)
    return ", ".join(parts)


def check_order(passes: list[Pass], start: Dialect, known: list[Pass] | None = None) -> list[Step]:
    """The pipeline as steps, or :class:`PassOrderError` naming the first misplaced pass.

    ``known`` lists passes whose names are offered as hints ("run InlineFunctions first").
    """
    known = list(passes) if known is None else known
    current, props = start, set(start.properties)
    steps = []
    for p in passes:
        if not current.refines(p.source):
            raise PassOrderError(
                f"pass {p.name} expects a program in dialect '{p.source.name}', but at this point of the "
                f"pipeline the program is in '{current.name}'"
            )
        missing = p.required() - props
        if missing:
            raise PassOrderError(
                f"pass {p.name} requires properties that do not hold at this point: {_hint(missing, known, p)}"
            )
        props = (props - _names(p.invalidates)) | _names(p.produces)
        target = p.target_from(current)
        if target is not current:
            need = set(target.properties) - props
            if need:
                raise PassOrderError(
                    f"pass {p.name} cannot run yet: it enters dialect '{target.name}', whose properties "
                    f"{_hint(need, known, p)} are not established before it"
                )
            props |= set(target.properties)
        steps.append(Step(p, current, target))
        current = target
    return steps


def check_round_trip(program: Program, dialect: str, context: str) -> None:
    """Print ``program``, parse the text back and require a structurally equal program."""
    text = program.as_python()
    try:
        again = parse_program(text)
        assert_structural_equal(program, again)
    except (PyptoError, ValueError) as err:
        raise VerificationError(
            f"program '{program.name or 'Program'}' does not survive print and parse in dialect '{dialect}' "
            f"({context}): {err}"
        ) from err


class PassManager:
    """Runs passes in order with checked boundaries and instruments.

    ``verify``: "basic" (default, or ``PYPTO_VERIFY_LEVEL``), True/"strict", "roundtrip", or False/"none".
    ``pass_options``: ``{pass name: {option: value}}`` applied to the passes (:func:`with_options`).
    """

    def __init__(
        self,
        passes: Iterable[Pass] = (),
        verify: bool | str | VerifyLevel | None = None,
        instruments: Iterable[PassInstrument] = (),
        start: Dialect = surface,
        pass_options: PassOptions | None = None,
    ) -> None:
        self.passes = with_options(passes, pass_options)
        self.verify = None if verify is None else verify_level(verify)
        self.instruments = list(instruments)
        self.start = start
        self.steps = check_order(self.passes, start, known=self.passes + builtin_passes())

    @classmethod
    def get_strategy(
        cls,
        strategy: OptimizationStrategy = OptimizationStrategy.Default,
        verify: bool | str | VerifyLevel | None = None,
        plugins: bool = True,
        pass_options: PassOptions | None = None,
    ) -> PassManager:
        """The pipeline of ``strategy`` (with installed plugin passes inserted) as a pass manager,
        its passes configured by ``pass_options`` (``{pass name: {option: value}}``)."""
        return cls(default_passes(strategy, plugins=plugins), verify=verify, pass_options=pass_options)

    def get_pass_names(self) -> list[str]:
        """The pass names in pipeline order."""
        return [p.name for p in self.passes]

    @property
    def final_dialect(self) -> Dialect:
        """The dialect of the pipeline's output."""
        return self.steps[-1].after if self.steps else self.start

    def validates_result(self) -> bool:
        """Whether a run in the current context ends by validating its result against
        :attr:`final_dialect` in full (grammar and every invariant), so a reader of that result on
        the context's platform need not check it again."""
        level = self.verify if self.verify is not None else PassContext.current().verify
        if level is VerifyLevel.NONE:
            return False
        return not self.steps or self._schedule(level)[-1][2]

    def run_passes(
        self,
        program: Program,
        dump_ir: bool | PassDumpLevel = False,
        output_dir: str | Path | None = None,
        prefix: str = "pl",
    ) -> Program:
        """Run the pipeline; with ``dump_ir`` (True or ``PassDumpLevel.ALL``) write the printed IR
        after each pass into ``output_dir``."""
        extra: list[PassInstrument] = []
        if dumps(dump_ir):
            if output_dir is None:
                raise PassOrderError("run_passes(dump_ir=True) needs an output_dir")
            extra.append(DumpInstrument(output_dir, prefix))
        return self._run(program, extra)

    def run(self, program: Program) -> Program:
        """Run the pipeline on ``program`` and return the result."""
        return self._run(program, [])

    __call__ = run

    def _schedule(self, level: VerifyLevel) -> list[tuple[Step, list, bool]]:
        """Per step: the produced properties checked right after the pass (those not verified yet;
        none when it enters a dialect, which is checked whole) and whether the whole dialect is
        validated after it. Fixed by the pipeline and the level, so worked out once per level."""
        cache = self.__dict__.setdefault("_schedules", {})
        hit = cache.get(level)
        if hit is not None and hit[0] is self.steps:
            return hit[1]
        check = level is not VerifyLevel.NONE
        verified = set(self.start.properties)
        schedule = []
        for step in self.steps:
            p = step.pass_
            entering = step.after is not step.before
            verified -= _names(p.invalidates)
            todo = (
                [] if entering else [i for i in sorted(p.produces, key=lambda i: i.name) if i.name not in verified]
            )
            validate = check and (entering or level in (VerifyLevel.STRICT, VerifyLevel.ROUNDTRIP))
            if validate:
                verified |= set(step.after.properties)
            verified |= _names(p.produces)
            schedule.append((step, todo, validate))
        cache[level] = (self.steps, schedule)
        return schedule

    def _run(self, program: Program, extra: list[PassInstrument]) -> Program:
        outer = PassContext.current()
        level = self.verify if self.verify is not None else outer.verify
        # Passes allocate many small acyclic nodes; the cyclic collector's full scans of the whole
        # program would make the run grow faster than the program.
        instruments = outer.instruments + self.instruments + extra
        with gc_paused(), PassContext(instruments, verify=level, platform=outer.platform) as ctx:
            for inst in ctx.instruments:
                inst.run_start(program)
            check = level is not VerifyLevel.NONE
            if check:
                self.start.validate(program, context="pipeline input", platform=ctx.platform)
            if level is VerifyLevel.ROUNDTRIP:
                check_round_trip(program, self.start.name, "pipeline input")
            for step, todo, validate in self._schedule(level):
                p = step.pass_
                program = apply_pass(p, program, checks=todo, dialect=step.after.name)
                if validate:
                    step.after.validate(program, context=f"after pass {p.name}", platform=ctx.platform)
                if level is VerifyLevel.ROUNDTRIP:
                    check_round_trip(program, step.after.name, f"after pass {p.name}")
        return program
