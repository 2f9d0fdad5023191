"""Dialect objects the dialect-plugin tests load through hand-made entry points."""

from __future__ import annotations

from pypto.languages import Dialect, ssa

tidy = ssa.extend("tidy", "ssa under another name")
misnamed = ssa.extend("something_else", "named unlike its entry point")
orphan = Dialect("orphan", "not built on the chain", kinds=[])


def make_neat() -> Dialect:
    return ssa.extend("neat", "built by a factory")


def not_a_dialect() -> int:
    return 3
