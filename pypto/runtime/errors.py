"""Errors raised while building or running an artifact tree on the simulator."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

from pypto.ir.errors import PyptoError
from pypto.ir.span import Span


class SimulatorError(PyptoError):
    """Base of the simulator errors: ``message`` and an optional ``hint`` (shown on its own line)."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(message if hint is None else f"{message}\n  hint: {hint}")


class SimulatorNotInstalledError(SimulatorError):
    """simpler (the PTO2 runtime with the a2a3sim platform) is not installed for this Python."""


class ArtifactError(SimulatorError):
    """The artifact tree is incomplete or its ``kernel_config.py`` is malformed."""


class SimulatorArgumentError(SimulatorError, TypeError):
    """The arguments do not match the program: count, kind, dtype, shape or memory layout.

    Also a ``TypeError``: the established ``CompiledProgram`` raises that for wrong arguments.
    """


class SimulatorBuildError(SimulatorError):
    """A generated C++ file failed to compile.

    ``span`` is the first error's location in the generated file (unknown when the compiler printed
    none), ``compiler_output`` the compiler's full message and ``output_dir`` the artifact tree,
    which is left in place for inspection.
    """

    def __init__(self, message: str, span: Span, compiler_output: str, output_dir: Path, hint: str | None = None):
        self.span = span
        self.compiler_output = compiler_output
        self.output_dir = output_dir
        super().__init__(message, hint)


class SimulatorUnsupportedError(SimulatorError):
    """The program needs an element type or instruction that the simulator's CPU model gets wrong,
    so it is refused before anything is built rather than run to a wrong result."""


class CaptureError(SimulatorError, ValueError):
    """A run-time capture (chip swimlane, dependencies, dumps) is asked of a call that runs nothing.

    Also a ``ValueError``, as the established ``RunConfig`` checks raise."""


class SimulatorRunError(SimulatorError):
    """The runtime rejected or failed the run; the caller's arrays are left unchanged."""


_UNCHANGED = "and the caller's arrays are unchanged"
_COMPUTED = "is computed at run time (from a scalar argument, a loop variable or a value read from a tensor)"


class BoundsGuard(Enum):
    """A kind of run-time bounds guard in the generated orchestration (docs/simulator.md#bounds): its
    marker opens the guard's message in the runtime's log; the runner finds it and raises
    SimulatorBoundsError with the rest of the line and the kind's hint."""

    WINDOW = ("pypto bounds:", ("a scalar argument or a dynamic dimension puts this window outside the tensor; "
                                f"the orchestration stopped before submitting the task, {_UNCHANGED}"))
    GATE = ("pypto bounds (predicate):", (f"the gate element's index {_COMPUTED}: keep it within the tensor's "
                                          "extent; the orchestration stopped before submitting the task, "
                                          f"{_UNCHANGED}"))
    READ = ("pypto bounds (read):", (f"the index {_COMPUTED}: keep it within the tensor's extent; the orchestration "
                                     f"stopped before reading the element, {_UNCHANGED}"))
    WRITE = ("pypto bounds (write):", (f"the index {_COMPUTED}: keep it within the tensor's extent; the "
                                       f"orchestration stopped before writing the element, {_UNCHANGED}"))
    SLOT = ("pypto bounds (array):", (f"the index {_COMPUTED}: keep it within the array's slots; the orchestration "
                                      f"stopped before using the slot, {_UNCHANGED}"))

    def __init__(self, marker: str, hint: str) -> None:
        self.marker = marker
        self.hint = hint


class SimulatorBoundsError(SimulatorRunError):
    """A task, or the orchestration itself, would have read or written outside a tensor or array: the
    orchestration's guard stopped the run there (``hint`` says where). The caller's arrays are left unchanged."""
