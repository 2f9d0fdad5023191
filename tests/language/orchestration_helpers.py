"""Shared checks of the scope / task / predicate tests: round trip, invariant, error capture."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pypto.languages.invariants import ManualDepsOnSubmitOnly

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import ParserError


def assert_manual_deps_on_submit_only(program: ir.Program) -> None:
    """No plain call of a program function carries ``attrs["manual_dep_edges"]``; the only op
    call that may is ``system.task_dummy``."""
    assert ManualDepsOnSubmitOnly.errors(program) == []
    for func in program.functions.values():
        for node in _walk(func.body):
            if isinstance(node, ir.Call) and "manual_dep_edges" in node.attrs:
                assert isinstance(node.op, ir.Op) and node.op.name == "system.task_dummy", node.as_python()


def _walk(node: Any) -> Any:
    from pypto.ir.traversal import iter_children

    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(iter_children(current))


def roundtrip(program: ir.Program) -> str:
    """Print ``program``; the text parses back structurally equal (verbose and concise) and prints
    identically again. Also checks ManualDepsOnSubmitOnly on both. Returns the text."""
    assert_manual_deps_on_submit_only(program)
    text = program.as_python()
    again = pl.parse_program(text)
    ir.assert_structural_equal(program, again)
    assert again.as_python() == text
    assert_manual_deps_on_submit_only(again)
    concise = pl.parse_program(program.as_python(concise=True))
    ir.assert_structural_equal(program, concise)
    return text


def parse_error(build: Callable[[], Any], cls: type[ParserError]) -> ParserError:
    """The error ``build()`` raises; it must be exactly ``cls`` (a ParserError with a valid span)."""
    with pytest.raises(ParserError) as info:
        build()
    err = info.value
    assert type(err) is cls, f"{type(err).__name__}: {err.message}"
    assert err.location.is_valid()
    return err


def text_error(code: str, cls: type[ParserError]) -> ParserError:
    """The error of parsing DSL text ``code``."""
    return parse_error(lambda: pl.parse_program(code), cls)
