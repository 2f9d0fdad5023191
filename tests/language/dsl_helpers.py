"""Shared checks of the DSL tests: the print -> parse round trip."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir


def assert_roundtrip(node: ir.Function | ir.Program, *, auto_mapping: bool = False, concise: bool = True) -> str:
    """``parse(print(node))`` is structurally equal to ``node`` and prints the same text again.

    With ``concise`` the concise print (no assignment annotations) must parse back equal too.
    Returns the printed text.
    """
    text = node.as_python()
    parse = pl.parse_program if isinstance(node, ir.Program) else pl.parse
    again = parse(text)
    ir.assert_structural_equal(node, again, enable_auto_mapping=auto_mapping)
    assert again.as_python() == text
    if concise:
        short = parse(node.as_python(concise=True))
        ir.assert_structural_equal(node, short, enable_auto_mapping=auto_mapping)
    return text
