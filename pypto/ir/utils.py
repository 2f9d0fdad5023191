"""Helpers for pypto's own modules: pointing a warning at the user's line.

A warning raised deep inside pypto (an op builder, a parser rule) is about the user's code, so it
names the first frame outside pypto::

    warnings.warn(message, SomeWarning, stacklevel=caller_warning_stacklevel())
"""

from __future__ import annotations

import functools
import sys
import warnings
from types import FrameType

from .span import Span


def _in_pypto(frame: FrameType) -> bool:
    name = frame.f_globals.get("__name__", "")
    return name == "pypto" or name.startswith("pypto.")


def caller_warning_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` that points at the first frame outside pypto.

    Counted from the function that calls this one (stacklevel 1 is that function's own line); the
    last frame is used when every frame is inside pypto.
    """
    frame = sys._getframe(1)
    level = 1
    while _in_pypto(frame) and frame.f_back is not None:
        frame = frame.f_back
        level += 1
    return level


# warn_explicit's per-location de-duplication: one registry per file (it keys by line only).
_REGISTRIES: dict[str, dict] = {}


def warn_at(message: str, category: type[Warning], span: Span) -> None:
    """Warn about the user's code at ``span`` once per call site.

    A span in a user's file or DSL text names that line; a span that is unknown or inside pypto
    (a builder called without ``span=``) falls back to the first Python frame outside pypto.
    """
    if span.is_valid() and span.begin_line > 0 and not _pypto_file(span.filename):
        module = span.filename.rsplit("/", 1)[-1].removesuffix(".py")
        registry = _REGISTRIES.setdefault(span.filename, {})
        warnings.warn_explicit(message, category, span.filename, span.begin_line, module, registry)
        return
    warnings.warn(message, category, stacklevel=caller_warning_stacklevel())


@functools.cache
def _pypto_file(filename: str) -> bool:
    """Whether ``filename`` is a loaded pypto module (a span captured from a frame inside pypto: that
    module ran, so it is loaded, and the answer never changes)."""
    return any(
        getattr(m, "__file__", None) == filename
        for n, m in list(sys.modules.items())
        if n == "pypto" or n.startswith("pypto.")
    )


__all__ = ["caller_warning_stacklevel", "warn_at"]
