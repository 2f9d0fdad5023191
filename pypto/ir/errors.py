"""Exception classes shared by the whole compiler.

Every error pypto raises on bad input derives from :class:`PyptoError`. The IR-construction errors
also derive from the builtin ``TypeError`` / ``ValueError`` so that code written against the
reference API (which raises those) keeps working.
"""

from __future__ import annotations


class PyptoError(Exception):
    """Base class of every error raised by pypto on bad input."""


class IRTypeError(PyptoError, TypeError):
    """An IR node was built with an argument of the wrong kind."""


class IRValueError(PyptoError, ValueError):
    """An IR node was built with an argument of the right kind but a bad value."""
