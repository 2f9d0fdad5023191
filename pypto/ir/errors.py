"""Exception classes shared by the whole compiler.

Every error pypto raises on bad input derives from :class:`PyptoError`. The IR-construction errors
also derive from the builtin ``TypeError`` / ``ValueError`` so that code written against the
reference API (which raises those) keeps working.
"""

from __future__ import annotations


class PyptoError(Exception):
    """Base class of every error raised by pypto on bad input."""


class InternalError(PyptoError):
    """A failure inside pypto itself (a bug, not bad input); the original exception is its ``__cause__``.

    The pass runner turns any non-pypto exception a pass raises into this class, so code catching
    :class:`PyptoError` (``pypto.Error``) sees every failure.
    """


class IRTypeError(PyptoError, TypeError):
    """An IR node was built with an argument of the wrong kind."""


class IRValueError(PyptoError, ValueError):
    """An IR node was built with an argument of the right kind but a bad value."""


class VerificationError(PyptoError):
    """A program broke the grammar or an invariant of a dialect (raised at a pass boundary).

    ``violations`` lists each broken rule with its dialect, rule name, printed node and span.
    """

    def __init__(self, message: str, violations: list | None = None) -> None:
        super().__init__(message)
        self.violations = list(violations or [])
