"""RunConfig: defaults, the established checks at construction, the deprecated swimlane alias, and the
one warning per ignored field."""

from __future__ import annotations

import dataclasses
import warnings

import pytest

from pypto.backend import BackendType
from pypto.passes import OptimizationStrategy
from pypto.runtime import IgnoredOptionWarning, RunConfig, SimulatorError
from pypto.runtime import config as config_module
from pypto.runtime.call_options import call_options
from pypto.runtime.config import require_runnable, ring_values

FIELDS = [
    "platform", "device_id", "rtol", "atol", "strategy", "backend_type", "dump_passes", "save_kernels",
    "save_kernels_dir", "codegen_only", "enable_chip_swimlane", "enable_dump_args", "enable_pmu", "enable_dep_gen",
    "enable_scope_stats", "compile_profiling", "diagnostic_phase", "disabled_diagnostics", "golden_data_dir",
    "aicpu_thread_num", "ring_task_window", "ring_heap", "ring_dep_pool", "distributed_config",
    "analyze_auto_scopes_for_deps", "memory_planner", "dump_ptoas_passes",
]  # fmt: skip


def test_every_field_of_the_spec_with_its_default() -> None:
    assert [f.name for f in dataclasses.fields(RunConfig)] == FIELDS
    c = RunConfig()
    assert (c.platform, c.device_id, c.rtol, c.atol) == ("a2a3sim", 0, 1e-5, 1e-5)
    assert (c.strategy, c.backend_type, c.dump_passes) == (OptimizationStrategy.Default, BackendType.Ascend910B, False)
    assert c.enable_chip_swimlane == 0 and c.save_kernels is False and c.aicpu_thread_num is None
    assert not c.any_dfx_enabled()


def test_an_unknown_platform_is_refused_with_the_established_message() -> None:
    with pytest.raises(ValueError) as info:
        RunConfig(platform="a3")
    assert str(info.value) == "Invalid platform 'a3'. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'."


@pytest.mark.parametrize(
    ("platform", "backend"),
    [("a2a3sim", BackendType.Ascend910B), ("a2a3", BackendType.Ascend910B), ("a5sim", BackendType.Ascend950),
     ("a5", BackendType.Ascend950)],
)  # fmt: skip
def test_the_backend_follows_the_platform(platform: str, backend: BackendType) -> None:
    assert RunConfig(platform=platform, backend_type=BackendType.Ascend910B).backend_type is backend


@pytest.mark.parametrize(("value", "level"), [(True, 4), (False, 0), (0, 0), (3, 3)])
def test_the_swimlane_level_is_normalised(value: object, level: int) -> None:
    assert RunConfig(enable_chip_swimlane=value).enable_chip_swimlane == level


def test_a_bad_swimlane_level_is_refused() -> None:
    with pytest.raises(ValueError, match="enable_chip_swimlane must be in 0..4, got 5"):
        RunConfig(enable_chip_swimlane=5)
    with pytest.raises(TypeError, match="enable_chip_swimlane must be a bool or an int in 0..4, got str"):
        RunConfig(enable_chip_swimlane="on")


def test_a_dfx_flag_keeps_the_kernels() -> None:
    assert RunConfig(enable_dep_gen=True).save_kernels is True
    assert RunConfig(enable_dump_args=1).any_dfx_enabled()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("ring_task_window", 6, "ring_task_window must be a power of two >= 4, got 6"),
        ("ring_task_window", 2, "ring_task_window must be a power of two >= 4, got 2"),
        ("ring_task_window", True, "ring_task_window must be a power of two >= 4, got True"),
        ("ring_heap", 512, "ring_heap must be a power of two >= 1024, got 512"),
        ("ring_dep_pool", 3, "ring_dep_pool must be in [4, 2147483647], got 3"),
        ("ring_dep_pool", [4, 8], "ring_dep_pool needs exactly 4 per-ring values, got 2"),
        ("ring_heap", [0, 1024, 1000, 0], "ring_heap: each per-ring value must be 0 (the default) or a power of two"),
    ],
)
def test_bad_ring_values_are_refused(field: str, value: object, message: str) -> None:
    with pytest.raises(ValueError) as info:
        RunConfig(**{field: value})
    assert str(info.value).startswith(message)


def test_ring_values_are_kept_as_given_and_expanded_for_the_runtime() -> None:
    c = RunConfig(ring_task_window=(0, 8, 16, 0), ring_heap=4096, ring_dep_pool=100)
    assert c.ring_task_window == [0, 8, 16, 0] and c.ring_heap == 4096
    assert ring_values(c.ring_heap) == [4096] * 4 and ring_values(None) == [0] * 4


def test_the_deprecated_swimlane_alias_warns_on_writes_only() -> None:
    with pytest.warns(DeprecationWarning, match="enable_l2_swimlane is deprecated"):
        c = RunConfig(enable_l2_swimlane=True)
    assert c.enable_chip_swimlane == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert c.enable_l2_swimlane == 4
    with pytest.warns(DeprecationWarning):
        c.enable_l2_swimlane = 2
    assert c.enable_chip_swimlane == 2
    with pytest.raises(ValueError, match="not both"):
        RunConfig(enable_chip_swimlane=1, enable_l2_swimlane=1)


def test_only_a2a3sim_runs_and_the_error_names_the_platform() -> None:
    require_runnable("a2a3sim")
    with pytest.raises(SimulatorError) as info:
        require_runnable("a5")
    assert info.value.message == "platform 'a5' cannot run here; only a2a3sim runs here"


def test_an_ignored_field_warns_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config_module, "_warned", set())
    with pytest.warns(IgnoredOptionWarning, match="RunConfig.enable_pmu has no effect on a2a3sim"):
        options = call_options(RunConfig(enable_pmu=2), "a2a3sim")
    assert "enable_pmu" not in options.dfx
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call_options(RunConfig(enable_pmu=2), "a2a3sim")


def test_call_options_carry_threads_dfx_and_rings_only_when_asked() -> None:
    config = RunConfig(platform="a5", aicpu_thread_num=3, enable_dep_gen=True, ring_heap=2048)
    options = call_options(config, "a2a3sim")
    assert (options.platform, options.aicpu_thread_num, options.rings) == ("a5", 3, {})
    assert options.dfx["enable_dep_gen"] == 1 and options.any_dfx
    assert call_options(config, "a2a3sim", rings=True).rings["ring_heap"] == [2048] * 4
    assert call_options(None, "a2a3sim").platform == "a2a3sim"
    with pytest.raises(TypeError, match="config must be a pypto.runtime.RunConfig, got dict"):
        call_options({"platform": "a2a3sim"}, "a2a3sim")  # type: ignore[arg-type]
