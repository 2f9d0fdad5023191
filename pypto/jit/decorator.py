"""``pl.jit``: the decorator object and its forms ``.incore``, ``.inline``, ``.opaque``, ``.host``,
``.extern`` (docs/jit.md#forms). Every form may be written bare or called."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .function import JITFunction

_UNSET: Any = object()


def _made(func: Any, kind: str | None, level: Any = None, auto_scope: bool = True) -> JITFunction:
    if not callable(func) or not hasattr(func, "__code__"):
        raise TypeError(f"@pl.jit decorates a function, got {type(func).__name__}")
    return JITFunction(func, kind, level=level, auto_scope=auto_scope)


def _bare_or_called(func: Any, make: Callable[[Any], JITFunction]) -> Any:
    return make(func) if func is not None else make


def _no_level(kind: str, level: Any) -> None:
    if level is not _UNSET:
        raise TypeError(f"@pl.jit.{kind} does not accept a level= argument")


def _no_auto_scope(kind: str, auto_scope: Any, why: str) -> None:
    if auto_scope is not _UNSET:
        raise TypeError(f"@pl.jit.{kind} does not accept an auto_scope= argument ({why})")


def _flag(auto_scope: Any) -> bool:
    if auto_scope is _UNSET:
        return True
    if not isinstance(auto_scope, bool):
        raise TypeError(f"@pl.jit: auto_scope= must be True or False, got {auto_scope!r}")
    return auto_scope


class _Jit:
    """``@pl.jit`` / ``@pl.jit(auto_scope=False)``: an orchestration entry compiled on first call."""

    def __call__(self, func: Any = None, *, auto_scope: Any = _UNSET) -> Any:
        scoped = _flag(auto_scope)
        return _bare_or_called(func, lambda f: _made(f, None, auto_scope=scoped))

    def __repr__(self) -> str:
        return "pl.jit"

    def incore(self, func: Any = None, *, level: Any = None, auto_scope: Any = _UNSET) -> Any:
        """``@pl.jit.incore`` / ``@pl.jit.incore(level=pl.Level.X)``: an InCore helper."""
        _no_auto_scope("incore", auto_scope, "an InCore function has no runtime scopes to place")
        return _bare_or_called(func, lambda f: _made(f, "incore", level=level))

    def inline(self, func: Any = None, *, level: Any = _UNSET, auto_scope: Any = _UNSET) -> Any:
        """``@pl.jit.inline``: a helper expanded at each call site."""
        _no_level("inline", level)
        scoped = _flag(auto_scope)
        return _bare_or_called(func, lambda f: _made(f, "inline", auto_scope=scoped))

    def opaque(self, func: Any = None, *, level: Any = _UNSET, auto_scope: Any = _UNSET) -> Any:
        """``@pl.jit.opaque``: an Opaque helper (its ``pl.at`` scopes are outlined)."""
        _no_level("opaque", level)
        _no_auto_scope("opaque", auto_scope, "an Opaque function takes the scopes its body writes")
        return _bare_or_called(func, lambda f: _made(f, "opaque"))

    def host(self, func: Any = None, *, level: Any = _UNSET, auto_scope: Any = _UNSET) -> Any:
        """``@pl.jit.host``: not available in pypto (needs multi-chip support)."""
        _no_level("host", level)
        raise NotImplementedError("@pl.jit.host needs multi-chip (HOST level) orchestration, which pypto does not "
                                  "have yet; write the entry as @pl.jit and run it on one chip")

    def extern(self, func: Any = None, **options: Any) -> Any:
        """``@pl.jit.extern``: not available in pypto (needs external-source kernel codegen)."""
        raise NotImplementedError("@pl.jit.extern needs kernels from external C++ sources, which pypto's code "
                                  "generators do not support yet; write the kernel body in the DSL")


jit = _Jit()
