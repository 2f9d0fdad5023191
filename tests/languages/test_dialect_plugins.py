"""Dialect plugins: the ``pypto.dialects`` entry-point group, and the demo plugin's ``visited`` dialect."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest
from inv_helpers import prog
from pypto.languages import CHAIN, PluginError, discover_dialects, ssa
from pypto.languages.plugins import GROUP

from pypto import ir, languages, passes
from pypto.ir.errors import VerificationError

ACC = """
    @pl.program
    class Acc:
        @pl.function
        def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            acc: pl.Scalar[pl.INDEX] = 0
            for i in pl.range(n):
                acc = acc + i
            return acc
"""


def _ep(name: str, attr: str) -> EntryPoint:
    return EntryPoint(name=name, value=f"fake_dialects:{attr}", group=GROUP)


def _visited() -> languages.Dialect:
    try:
        return languages.by_name("visited")
    except ValueError:
        pytest.fail("the demo_plugin fixture did not put the demo plugin's dialect on the path")


def test_plugin_dialects_are_discovered() -> None:
    found = discover_dialects([_ep("tidy", "tidy"), _ep("neat", "make_neat")], builtin=CHAIN)
    assert sorted(found) == ["neat", "tidy"] and found["tidy"].parent is ssa and found["neat"].refines(ssa)


@pytest.mark.parametrize(
    ("name", "attr", "message"),
    [
        ("x", "not_a_dialect", "dialect plugin 'x' (fake_dialects:not_a_dialect) does not produce a Dialect"),
        ("x", "missing", "dialect plugin 'x' (fake_dialects:missing) failed to load: "),
        (
            "misnamed",
            "misnamed",
            "dialect plugin entry point 'misnamed' (fake_dialects:misnamed) makes a dialect named 'something_else'; "
            "the names must match",
        ),
        (
            "orphan",
            "orphan",
            "dialect plugin 'orphan' (fake_dialects:orphan) does not extend a dialect of the chain "
            "(build it with surface.extend or a descendant's extend)",
        ),
    ],
)
def test_malformed_dialect_plugins(name: str, attr: str, message: str) -> None:
    with pytest.raises(PluginError) as err:
        discover_dialects([_ep(name, attr)], builtin=CHAIN)
    assert str(err.value).startswith(message)


def test_a_dialect_name_is_registered_once() -> None:
    with pytest.raises(PluginError, match="^dialect name 'tidy' \\(fake_dialects:tidy\\) is already taken$"):
        discover_dialects([_ep("tidy", "tidy"), _ep("tidy", "tidy")], builtin=CHAIN)
    shadow = EntryPoint(name="ssa", value="pypto.languages:ssa", group=GROUP)
    with pytest.raises(PluginError, match="^dialect name 'ssa' \\(pypto.languages:ssa\\) is already taken$"):
        discover_dialects([shadow], builtin=CHAIN)


def test_demo_plugin_dialect_is_a_target_for_passes(demo_plugin: None) -> None:
    visited = _visited()
    assert visited.parent is ssa and visited.refines(ssa)
    stamp = passes.available_passes()["MarkVisited"]
    (invariant,) = [i for i in visited.invariants if i not in ssa.invariants]

    class EnterVisited(stamp):
        target = visited
        produces = frozenset({invariant})

    front = [p for p in passes.builtin_passes() if p.name in ("InlineFunctions", "UnrollLoops", "CtrlFlowTransform")]
    manager = passes.PassManager([*front, passes.convert_to_ssa(), EnterVisited(), passes.simplify()])
    assert [s.after.name for s in manager.steps][-3:] == ["ssa", "visited", "visited"]
    result = manager.run(prog(ACC))
    assert result in visited and prog(ACC) not in visited

    class ForgetsToStamp(passes.FunctionPass):
        source = ssa
        target = visited
        produces = frozenset({invariant})

        def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
            return func

    with pytest.raises(VerificationError) as err:
        passes.PassManager([*front, passes.convert_to_ssa(), ForgetsToStamp()]).run(prog(ACC))
    assert str(err.value).splitlines()[:2] == [
        "program 'Acc' is not in dialect 'visited' (after pass ForgetsToStamp): 1 violation",
        "[visited] Visited NOT_VISITED in 'main': function 'main' has no visited_by stamp",
    ]
