"""Errors raised while building or running an artifact tree on the simulator."""

from __future__ import annotations

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


# Opens the message of a run-time bounds guard in the generated orchestration (docs/simulator.md#bounds);
# the runner finds it in the runtime's log and raises SimulatorBoundsError with the rest of the line.
BOUNDS_MARKER = "pypto bounds:"


class SimulatorBoundsError(SimulatorRunError):
    """A task would have read or written outside a tensor: the orchestration's guard stopped the run
    before submitting it. The caller's arrays are left unchanged."""
