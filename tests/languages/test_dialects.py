"""The dialect chain: deltas, describe/diff snapshots, grammar checks and boundary errors."""

from __future__ import annotations

import itertools

import pytest
from inv_helpers import INDEX, prog, single
from pypto.languages import CHAIN, Variant, describe, diff, ssa, surface
from pypto.languages.invariants import STRUCTURAL, SSAForm, UnrollResolved

from pypto import ir, languages
from pypto.ir.errors import VerificationError

_SPAN = ir.Span.unknown()
NAMES = [d.name for d in CHAIN]


def test_chain_order_and_parents() -> None:
    assert NAMES == ["surface", "ssa", "outlined", "tiled", "placed", "split_core", "memref", "runtime", "synced"]
    assert surface.parent is None
    assert all(child.parent is parent for parent, child in itertools.pairwise(CHAIN))
    assert set(STRUCTURAL) <= set(languages.runtime.invariants)
    assert SSAForm not in languages.memref.invariants


@pytest.mark.parametrize("name", NAMES)
def test_describe(name: str, snapshot) -> None:
    assert describe(languages.by_name(name)) == snapshot


@pytest.mark.parametrize("pair", [f"{a.name}-{b.name}" for a, b in itertools.pairwise(CHAIN)])
def test_diff(pair: str, snapshot) -> None:
    parent, child = (languages.by_name(n) for n in pair.split("-"))
    assert diff(parent, child) == snapshot


def test_diff_of_a_dialect_with_itself() -> None:
    assert (
        diff(ssa, ssa)
        == "ssa -> ssa\n  every variable is assigned once; ifs and loops carry values through yields\n  (no change)\n"
    )


def test_unknown_dialect_name() -> None:
    with pytest.raises(
        ValueError,
        match="^unknown dialect 'core' "
        "\\(known: surface, ssa, outlined, tiled, placed, split_core, memref, runtime, synced\\)$",
    ):
        languages.by_name("core")


def test_variant() -> None:
    unroll = Variant(ir.ForStmt, "kind", ir.ForKind.Unroll, UnrollResolved)
    assert str(unroll) == "ForStmt[kind=ForKind.Unroll]"
    loop = ir.ForStmt(ir.Var("i", INDEX), 0, 2, 1, [], ir.SeqStmts([], _SPAN), [], _SPAN, ir.ForKind.Unroll)
    assert unroll.matches(loop) and not unroll.matches(ir.replace(loop, kind=ir.ForKind.Sequential))
    assert "UnrollResolved" in ssa.properties and "UnrollResolved" not in surface.properties


UNROLLED = """
    @pl.program
    class A:
        @pl.function
        def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            for i in pl.unroll(2):
                n = n + i
            return n
"""


def test_removed_form_is_a_grammar_violation() -> None:
    program = prog(UNROLLED)
    assert program in surface
    assert program not in ssa
    grammar = [(v.rule, v.code, v.message) for v in ssa.check_grammar(program)]
    removed = "ForStmt[kind=ForKind.Unroll] is not part of this dialect (see UnrollResolved)"
    assert grammar == [("Grammar", "REMOVED_FORM", removed)]


def test_node_kind_outside_the_dialect() -> None:
    n = ir.Var("n", INDEX)
    comm = ir.CommDomainScopeStmt(body=ir.ReturnStmt([n]), span=_SPAN)
    program = single("main", [n], comm, [INDEX])
    (v,) = surface.check_grammar(program)
    assert (v.code, v.message, v.function) == ("NODE_KIND", "CommDomainScopeStmt is not a node of this dialect", "main")
    aiv = ir.SplitAivScopeStmt(ir.SplitMode.UP_DOWN, body=ir.ReturnStmt([n]), span=_SPAN)
    assert [v.message for v in languages.split_core.check_grammar(single("main", [n], aiv, [INDEX]))] == [
        "SplitAivScopeStmt is not a node of this dialect"
    ]


def test_entering_a_dialect_lists_every_violation() -> None:
    program = prog(UNROLLED)
    with pytest.raises(VerificationError) as err:
        ssa.validate(program, context="after pass Example")
    lines = str(err.value).splitlines()
    assert lines[0] == "program 'A' is not in dialect 'ssa' (after pass Example): 2 violations"
    assert lines[1:4] == [
        "[ssa] Grammar REMOVED_FORM in 'main': " + "ForStmt[kind=ForKind.Unroll] is not part of this dialect "
        "(see UnrollResolved)",
        "    for i in pl.unroll(2): ...",
        "    at <string>:7:9",
    ]
    assert [(v.dialect, v.rule, v.code) for v in err.value.violations] == [
        ("ssa", "Grammar", "REMOVED_FORM"),
        ("ssa", "SSAForm", "MULTIPLE_ASSIGNMENT"),
    ]
    assert surface.validate(program) is program
