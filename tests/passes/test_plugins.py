"""The plugin registry: entry-point discovery, placement, and the installed demo plugin."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest
from front_programs import CONVERT_TO_SSA, parse
from pypto.languages import ssa
from pypto.passes import PassOrderError, PluginError
from pypto.transform.plugins import GROUP, discover, insert

from pypto import passes

BUILTIN = [p.name for p in passes.builtin_passes()]


def _ep(name: str, attr: str) -> EntryPoint:
    return EntryPoint(name=name, value=f"fake_plugins:{attr}", group=GROUP)


def _installed() -> dict:
    found = discover(builtin=BUILTIN)
    assert "MarkVisited" in found, "the demo_plugin fixture did not put the demo plugin on the path"
    return found


def test_demo_plugin_is_discovered(demo_plugin: None) -> None:
    plugin = _installed()["MarkVisited"]
    assert (plugin.after, plugin.before) == ("ConvertToSSA", None)
    assert plugin.origin == "pypto-demo-plugin (pypto_demo_plugin:MarkVisited)"


def test_demo_plugin_runs_inside_the_default_pipeline_and_is_validated(demo_plugin: None) -> None:
    _installed()
    manager = passes.PassManager.get_strategy()
    names = manager.get_pass_names()
    assert names[names.index("ConvertToSSA") + 1] == "MarkVisited"
    step = manager.steps[names.index("MarkVisited")]
    assert (step.before, step.after) == (ssa, ssa)
    seen: list[str] = []
    checked = passes.CallbackInstrument(after_pass=lambda p, prog: seen.append(p.name))
    with passes.PassContext([checked]):
        result = manager.run(parse(CONVERT_TO_SSA["accumulate"]))
    assert seen == names
    assert result.get_function("main").attrs == {"visited_by": "pypto-demo-plugin"}
    assert "pl.func_attr({\"visited_by\": 'pypto-demo-plugin'})" in result.as_python()
    assert ssa.check(result) == []


def test_the_demo_plugin_is_discoverable_only_while_its_fixture_holds(tmp_path) -> None:
    from demo_plugin import demo_plugin_on_path

    before = passes.PassManager.get_strategy().get_pass_names()
    with demo_plugin_on_path(tmp_path):
        assert "MarkVisited" in passes.PassManager.get_strategy().get_pass_names()
    assert passes.PassManager.get_strategy().get_pass_names() == before


def test_every_registered_name_matches_its_factory() -> None:
    for name, factory in passes.available_passes().items():
        assert factory().name == name


def test_plugins_can_be_left_out() -> None:
    assert passes.PassManager.get_strategy(plugins=False).get_pass_names() == BUILTIN


def test_plugin_is_inserted_at_its_position() -> None:
    found = discover([_ep("Tidy", "Tidy"), _ep("First", "First")], builtin=BUILTIN)
    names = [p.name for p in insert(passes.builtin_passes(), found.values())]
    assert names == ["First", *BUILTIN[:5], "Tidy", *BUILTIN[5:]]
    passes.PassManager(insert(passes.builtin_passes(), found.values()))


def test_duplicate_name_is_a_hard_error() -> None:
    with pytest.raises(PluginError) as err:
        discover([_ep("Tidy", "Tidy"), _ep("Tidy", "TidyAgain")], builtin=BUILTIN)
    assert str(err.value) == (
        "pass name 'Tidy' is registered twice: by fake_plugins:Tidy and by fake_plugins:TidyAgain"
    )


def test_builtin_name_cannot_be_reused() -> None:
    with pytest.raises(
        PluginError, match="^pass plugin 'Simplify' \\(fake_plugins:Shadow\\) reuses the name of a built-in pass$"
    ):
        discover([_ep("Simplify", "Shadow")], builtin=BUILTIN)


def test_entry_point_name_must_match_the_pass() -> None:
    with pytest.raises(PluginError) as err:
        discover([_ep("Misnamed", "Misnamed")], builtin=BUILTIN)
    assert str(err.value) == (
        "pass plugin entry point 'Misnamed' (fake_plugins:Misnamed) makes a pass named 'SomethingElse'; "
        "the names must match"
    )


@pytest.mark.parametrize(
    ("attr", "message"),
    [
        ("not_a_pass", "pass plugin 'X' (fake_plugins:not_a_pass) does not produce a Pass"),
        ("missing", "pass plugin 'X' (fake_plugins:missing) failed to load: "),
    ],
)
def test_malformed_plugins(attr: str, message: str) -> None:
    with pytest.raises(PluginError) as err:
        discover([_ep("X", attr)], builtin=BUILTIN)
    assert str(err.value).startswith(message)


def test_two_positions_is_an_error() -> None:
    with pytest.raises(PluginError, match="^pass plugin 'Both' gives both after= and before=; choose one$"):
        discover([_ep("Both", "Both")], builtin=BUILTIN)


def test_unknown_anchor_is_an_error() -> None:
    found = discover([_ep("Lost", "Lost")], builtin=BUILTIN)
    with pytest.raises(PluginError, match="^pass plugin 'Lost' is placed relative to unknown pass 'NoSuchPass'$"):
        insert(passes.builtin_passes(), found.values())


def test_misplaced_plugin_fails_the_adjacency_check() -> None:
    found = discover([_ep("Early", "Early")], builtin=BUILTIN)
    with pytest.raises(PassOrderError) as err:
        passes.PassManager(insert(passes.builtin_passes(), found.values()))
    assert str(err.value) == (
        "pass Early expects a program in dialect 'ssa', but at this point of the pipeline the program is in 'surface'"
    )
