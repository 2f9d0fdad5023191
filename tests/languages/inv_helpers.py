"""Helpers for the invariant tests: parse a program, list an invariant's findings compactly."""

from __future__ import annotations

import textwrap

from pypto.languages.invariants import Invariant
from pypto.languages.invariants.base import node_text

import pypto.language as pl
from pypto import ir

INDEX = ir.ScalarType(ir.INDEX)


def prog(source: str) -> ir.Program:
    """Parse one ``@pl.program`` source (dedented; ``import pypto.language as pl`` is prepended)."""
    return pl.parse("import pypto.language as pl\n" + textwrap.dedent(source))


def found(inv: Invariant, program: ir.Program) -> list[tuple[str, str, str]]:
    """``(code, message, printed node)`` of each violation of ``inv`` in ``program``."""
    return [(v.code, v.message, node_text(v.node) if v.node is not None else "") for v in inv.check(program)]


def with_body(program: ir.Program, name: str, body: ir.Stmt) -> ir.Program:
    """``program`` with function ``name``'s body replaced."""
    funcs = [ir.replace(f, body=body) if f.name == name else f for f in program.functions.values()]
    return ir.Program(funcs, program.name, program.span)


def single(
    name: str,
    params: list[ir.Var],
    body: ir.Stmt,
    returns: list[ir.Type] | None = None,
    func_type: ir.FunctionType = ir.FunctionType.Opaque,
    directions: list | None = None,
) -> ir.Program:
    """A one-function program built by hand."""
    items = list(params) if directions is None else list(zip(params, directions))
    func = ir.Function(name, items, returns or [], body, ir.Span.unknown(), type=func_type)
    return ir.Program([func], "P", ir.Span.unknown())
