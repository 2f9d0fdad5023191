"""Pass contexts and instruments: what runs around every pass.

``with PassContext([CallbackInstrument(before_pass=f, after_pass=g)]):`` makes every pass run
inside the block call ``f(pass, program)`` before and ``g(pass, result)`` after it.
:class:`TimingInstrument` records per-pass wall time; :class:`DumpInstrument` writes the printed IR
after each pass into a folder as numbered files (``00_frontend.py``, ``01_after_InlineFunctions.py``).

The context also carries the verification level: ``none``; ``basic`` (the default, as in the
established API; docs/passes.md#contract: the properties a pass produces are checked after it, and a
dialect is checked in full when a pass enters it); or ``strict`` (after every pass the pass manager
checks the whole current dialect, so a pass that breaks any invariant is caught at its own boundary,
not at the next dialect's entry: for pass authors and the test suite); or ``roundtrip``
(strict, and each program is also printed, parsed back and compared structurally). Checker results are
cached per function object, so a strict check re-walks only the functions a pass changed. The
environment variable ``PYPTO_VERIFY_LEVEL`` sets the default.

And it carries the target :class:`~pypto.backend.Platform` (``PassContext(platform=A5)`` or
``PassContext(platform=BackendType.Ascend950)``; default: the enclosing context's, outside any the
platform of the current backend type). It is the one channel of a compile's platform: every pass
and every check run by a pass or a pass manager inside the block reads it, and ``ir.compile``
hands the same platform to the code generators.
"""

from __future__ import annotations

import contextvars
import enum
import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Self

from pypto.languages.dialect import raise_if_errors
from pypto.languages.invariants.base import Invariant, check_all

from pypto.backend import BackendType, Platform, current_platform, platform_for
from pypto.ir.errors import InternalError, IRTypeError, IRValueError, PyptoError
from pypto.ir import stmt as stmt_nodes
from pypto.ir.function import Program
from pypto.util.files import write_text

from .base import Pass, Same
from .errors import PassError


class VerifyLevel(enum.Enum):
    """How much the pass manager checks between passes."""

    NONE = "none"
    BASIC = "basic"
    STRICT = "strict"
    ROUNDTRIP = "roundtrip"


def verify_level(value: bool | str | VerifyLevel | None) -> VerifyLevel:
    """Normalise a ``verify=`` argument: True/False, a level name, a level, or None for the default."""
    if value is None:
        value = os.environ.get("PYPTO_VERIFY_LEVEL", "basic")
    if isinstance(value, VerifyLevel):
        return value
    if value is True:
        return VerifyLevel.STRICT
    if value is False:
        return VerifyLevel.NONE
    try:
        return VerifyLevel(str(value).lower())
    except ValueError:
        raise IRValueError(f"unknown verification level {value!r} (use none, basic, strict or roundtrip)") from None


class PassInstrument:
    """Hooks called around passes; subclasses override the ones they need."""

    name = "PassInstrument"

    def run_start(self, program: Program) -> None:
        """Called once by the pass manager with the input program."""

    def before_pass(self, pass_: Pass, program: Program) -> None:
        """Called before ``pass_`` runs on ``program``."""

    def after_pass(self, pass_: Pass, program: Program) -> None:
        """Called with the program ``pass_`` returned."""


PassCallback = Callable[[Pass, Program], None]


class CallbackInstrument(PassInstrument):
    """Calls user functions ``before_pass(pass, program)`` / ``after_pass(pass, result)``."""

    def __init__(
        self,
        before_pass: PassCallback | None = None,
        after_pass: PassCallback | None = None,
        name: str = "CallbackInstrument",
    ) -> None:
        self.name = name
        self._before = before_pass
        self._after = after_pass

    def before_pass(self, pass_: Pass, program: Program) -> None:
        if self._before is not None:
            self._before(pass_, program)

    def after_pass(self, pass_: Pass, program: Program) -> None:
        if self._after is not None:
            self._after(pass_, program)


class TimingInstrument(PassInstrument):
    """Records the wall time of each pass in ``timings`` as ``(pass name, seconds)``."""

    name = "TimingInstrument"

    def __init__(self) -> None:
        self.timings: list[tuple[str, float]] = []
        self._start = 0.0

    def before_pass(self, pass_: Pass, program: Program) -> None:
        self._start = time.perf_counter()

    def after_pass(self, pass_: Pass, program: Program) -> None:
        self.timings.append((pass_.name, time.perf_counter() - self._start))

    def report(self) -> str:
        """One line per pass with its time in milliseconds, then the total."""
        width = max((len(n) for n, _ in self.timings), default=5)
        lines = [f"{n:<{width}}  {t * 1e3:9.3f} ms" for n, t in self.timings]
        lines.append(f"{'total':<{width}}  {sum(t for _, t in self.timings) * 1e3:9.3f} ms")
        return "\n".join(lines)


class DumpInstrument(PassInstrument):
    """Writes the printed program into ``output_dir``: ``00_frontend.py``, then one file per pass."""

    name = "DumpInstrument"

    def __init__(self, output_dir: str | Path, prefix: str = "pl") -> None:
        self.output_dir = Path(output_dir)
        self.prefix = prefix
        self.count = 0
        # The program printed last, the count of comment edits then, and its text: most passes return
        # the program they were given (every function unchanged), and printing it again was most of
        # a compile's dumping.
        self._printed: tuple[Program, int, str] | None = None

    def _write(self, filename: str, program: Program) -> None:
        path = os.path.join(self.output_dir, filename)
        text = self._text(program)
        try:
            write_text(path, text)
        except (FileNotFoundError, NotADirectoryError):  # the folder is made when missing, not stat'ed per file
            self.output_dir.mkdir(parents=True, exist_ok=True)
            write_text(path, text)

    def _text(self, program: Program) -> str:
        """The file text of ``program``: printed, or the text printed last when it is the same object
        and no comment was attached in place since (``ir.attach_leading_comments``)."""
        printed = self._printed
        if printed is None or printed[0] is not program or printed[1] != stmt_nodes.comment_edits:
            text = program.as_python(prefix=self.prefix) + "\n"
            printed = self._printed = (program, stmt_nodes.comment_edits, text)
        return printed[2]

    def run_start(self, program: Program) -> None:
        self.count = 0
        self._write("00_frontend.py", program)

    def after_pass(self, pass_: Pass, program: Program) -> None:
        self.count += 1
        self._write(f"{self.count:02d}_after_{pass_.name}.py", program)


class PassContext:
    """The instruments, verification level and platform that apply to passes run inside ``with``."""

    def __init__(
        self,
        instruments: Iterable[PassInstrument] = (),
        verify: bool | str | VerifyLevel | None = None,
        platform: Platform | BackendType | None = None,
    ) -> None:
        self.instruments: list[PassInstrument] = list(instruments)
        self.verify = verify_level(verify)
        if platform is None:
            enclosing = _current.get()
            platform = enclosing.platform if enclosing is not None else current_platform()
        self.platform: Platform = platform if isinstance(platform, Platform) else platform_for(platform)
        self._token: contextvars.Token | None = None

    def __enter__(self) -> Self:
        self._token = _current.set(self)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _current.reset(self._token)
            self._token = None

    @staticmethod
    def current() -> PassContext:
        """The innermost active context (a default one outside any ``with``)."""
        ctx = _current.get()
        return ctx if ctx is not None else PassContext()

    @staticmethod
    def for_platform(platform: Platform) -> PassContext:
        """A context for ``platform`` with the active context's instruments and verification level
        (none and the default level outside any); the process-wide default platform is not read."""
        ctx = _current.get()
        if ctx is None:
            return PassContext(platform=platform)
        return PassContext(ctx.instruments, verify=ctx.verify, platform=platform)


_current: contextvars.ContextVar[PassContext | None] = contextvars.ContextVar("pypto_pass_context", default=None)


def apply_pass(
    pass_: Pass,
    program: Program,
    checks: Sequence[Invariant] | None = None,
    dialect: str = "",
    check_source: bool = False,
) -> Program:
    """Run ``pass_`` with the active instruments, then check ``checks`` (default: what it produces).

    ``check_source`` (a pass applied on its own) first validates ``program`` against the pass's
    source dialect and required properties, except the properties the pass establishes itself
    (NormalizeStmtStructure repairs nested blocks); for a pass with ``accepts``, only those
    invariants and the source dialect's grammar are checked. With verification off (``PassContext(verify=False)``)
    nothing is checked.
    """
    ctx = PassContext.current()
    verify = ctx.verify is not VerifyLevel.NONE
    if check_source and verify and pass_.accepts is not None:
        need = sorted(pass_.accepts, key=lambda i: i.name)
        pass_.source.validate(program, need, f"input of pass {pass_.name}", ctx.platform)
    elif check_source and verify:
        made = set(pass_.produces) - set(pass_.requires)
        need = [i for i in pass_.source.invariants if i not in made]
        need += sorted(set(pass_.requires) - set(need), key=lambda i: i.name)
        pass_.source.validate(program, need, f"input of pass {pass_.name}", ctx.platform)
    for inst in ctx.instruments:
        inst.before_pass(pass_, program)
    try:
        result = pass_.run(program)
    except (IRTypeError, IRValueError) as err:  # an op or node the pass built: say which pass, and where
        raise PassError(pass_.name, str(err), err.span) from err
    except PyptoError:
        raise
    except Exception as err:  # a bug in the pass: never a bare Python exception to the user
        raise InternalError(f"internal error in pass {pass_.name}: {type(err).__name__}: {err}") from err
    if not isinstance(result, Program):
        raise PassError(pass_.name, f"returned {type(result).__name__} instead of a Program")
    for inst in ctx.instruments:
        inst.after_pass(pass_, result)
    if verify:
        invariants = sorted(pass_.produces, key=lambda i: i.name) if checks is None else list(checks)
        if invariants:  # most passes of a strict pipeline leave nothing to check here
            found = check_all(result, invariants, platform=ctx.platform)
            name = dialect or ("" if isinstance(pass_.target, Same) else pass_.target.name)
            raise_if_errors([v.in_dialect(name) for v in found], name, result, f"after pass {pass_.name}")
    return result
