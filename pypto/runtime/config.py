"""``RunConfig``: how ``pypto.runtime.run``, ``CompiledProgram.__call__`` and ``ChipWorker`` compile and run.

The fields and their checks are the established API's (docs/simulator.md#runtime-api). All four platforms
are accepted (compiling for hardware is useful); only ``a2a3sim`` runs here, which
:func:`require_runnable` checks where something would run. A field this simulator cannot honour is
accepted and, when a non-default value is used, warned about once per field and process with an
:class:`IgnoredOptionWarning`.
"""

from __future__ import annotations

import warnings
from dataclasses import InitVar, dataclass, field
from typing import Any

from pypto.backend import BackendType
from pypto.compile_options import MemoryPlanner
from pypto.pipeline.manager import PassDumpLevel
from pypto.pipeline.default import OptimizationStrategy

from .errors import CaptureError, SimulatorError

PLATFORMS = ("a2a3sim", "a2a3", "a5sim", "a5")
RUNS_HERE = "a2a3sim"
RING_COUNT = 4
# The DFX flags: what a run captures into <output_dir>/dfx_outputs (enable_pmu is ignored here).
DFX_FLAGS = ("enable_chip_swimlane", "enable_dump_args", "enable_dep_gen", "enable_scope_stats")
_INT32_MAX = 2**31 - 1


class IgnoredOptionWarning(UserWarning):
    """A ``RunConfig`` field has a value this simulator cannot honour; it has no effect."""


_warned: set[str] = set()


def warn_ignored(name: str, why: str) -> None:
    """Warn that field ``name`` has no effect here (once per field and process)."""
    if name in _warned:
        return
    _warned.add(name)
    warnings.warn(f"RunConfig.{name} has no effect on {RUNS_HERE}: {why}", IgnoredOptionWarning, stacklevel=3)


@dataclass
class RunConfig:
    """Compile and run options (docs/simulator.md#runtime-api); validated at construction.

    ``platform``: ``a2a3sim`` (runs here), ``a2a3``, ``a5sim`` or ``a5`` (compile only);
    ``backend_type`` follows it. ``aicpu_thread_num`` and the ring fields (``ring_task_window``,
    ``ring_heap``, ``ring_dep_pool``: one value, or four per-ring values where 0 keeps the default)
    reach the runtime; the DFX flags (``enable_chip_swimlane`` 0-4, ``enable_dump_args``,
    ``enable_dep_gen``, ``enable_scope_stats``) write into ``<output_dir>/dfx_outputs``.
    ``rtol``, ``atol``, ``save_kernels`` and ``golden_data_dir`` are read by test harnesses only.
    """

    platform: str = "a2a3sim"
    device_id: int = 0
    rtol: float = 1e-5
    atol: float = 1e-5
    strategy: Any = OptimizationStrategy.Default
    backend_type: BackendType = BackendType.Ascend910B
    dump_passes: bool | PassDumpLevel = False
    save_kernels: bool = False
    save_kernels_dir: str | None = None
    codegen_only: bool = False
    enable_chip_swimlane: int | bool = 0
    enable_dump_args: int = 0
    enable_pmu: int = 0
    enable_dep_gen: bool = False
    enable_scope_stats: bool = False
    compile_profiling: bool = False
    diagnostic_phase: Any = None
    disabled_diagnostics: Any = None
    golden_data_dir: str | None = None
    aicpu_thread_num: int | None = None
    ring_task_window: int | list[int] | tuple[int, ...] | None = None
    ring_heap: int | list[int] | tuple[int, ...] | None = None
    ring_dep_pool: int | list[int] | tuple[int, ...] | None = None
    distributed_config: Any = None
    analyze_auto_scopes_for_deps: bool = False
    memory_planner: MemoryPlanner | str | None = None
    dump_ptoas_passes: bool = False
    enable_l2_swimlane: InitVar[int | bool | None] = field(default=None)

    def __post_init__(self, enable_l2_swimlane: int | bool | None) -> None:
        if self.platform not in PLATFORMS:
            raise ValueError(f"Invalid platform '{self.platform}'. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'.")
        self.backend_type = BackendType.Ascend950 if self.platform.startswith("a5") else BackendType.Ascend910B
        level = _swimlane_level(self.enable_chip_swimlane)
        # dataclasses.replace passes the alias's value back with the field's: the same level is a copy.
        if enable_l2_swimlane is not None and _swimlane_level(enable_l2_swimlane) != level:
            if level != 0:
                raise ValueError("Pass enable_chip_swimlane or its deprecated alias enable_l2_swimlane, not both.")
            warnings.warn(_L2_DEPRECATED, DeprecationWarning, stacklevel=3)
            level = _swimlane_level(enable_l2_swimlane)
        self.enable_chip_swimlane = level
        if self.any_dfx_enabled():
            self.save_kernels = True
        self.ring_task_window = _ring("ring_task_window", self.ring_task_window, _power_of_two(4))
        self.ring_heap = _ring("ring_heap", self.ring_heap, _power_of_two(1024))
        self.ring_dep_pool = _ring("ring_dep_pool", self.ring_dep_pool, _in_range(4, _INT32_MAX))

    def any_dfx_enabled(self) -> bool:
        """Whether a diagnostics flag (swimlane, argument dumps, PMU, dependency or scope stats) is on."""
        return bool(
            self.enable_chip_swimlane
            or self.enable_dump_args
            or self.enable_pmu
            or self.enable_dep_gen
            or self.enable_scope_stats
        )


_L2_DEPRECATED = "RunConfig.enable_l2_swimlane is deprecated; use enable_chip_swimlane"


def _get_l2(self: RunConfig) -> int | bool:
    return self.enable_chip_swimlane


def _set_l2(self: RunConfig, value: int | bool) -> None:
    warnings.warn(_L2_DEPRECATED, DeprecationWarning, stacklevel=2)
    self.enable_chip_swimlane = _swimlane_level(value)


# Set after @dataclass read the InitVar's default, so that reading the alias is a silent property.
RunConfig.enable_l2_swimlane = property(_get_l2, _set_l2)  # type: ignore[assignment,method-assign]


def _swimlane_level(value: object) -> int:
    if isinstance(value, bool):
        return 4 if value else 0
    if not isinstance(value, int):
        raise TypeError(f"enable_chip_swimlane must be a bool or an int in 0..4, got {type(value).__name__}")
    if not 0 <= value <= 4:
        raise ValueError(f"enable_chip_swimlane must be in 0..4, got {value}")
    return value


def _power_of_two(least: int) -> tuple[str, Any]:
    return f"a power of two >= {least}", lambda v: v >= least and v & (v - 1) == 0


def _in_range(low: int, high: int) -> tuple[str, Any]:
    return f"in [{low}, {high}]", lambda v: low <= v <= high


def _ring(name: str, value: object, rule: tuple[str, Any]) -> int | list[int] | None:
    what, ok = rule
    if value is None:
        return None
    if isinstance(value, list | tuple):
        if len(value) != RING_COUNT:
            raise ValueError(f"{name} needs exactly {RING_COUNT} per-ring values, got {len(value)}")
        for v in value:
            if not _is_int(v) or not (v == 0 or ok(v)):
                raise ValueError(f"{name}: each per-ring value must be 0 (the default) or {what}, got {v!r}")
        return list(value)
    if not _is_int(value) or not ok(value):
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return value  # type: ignore[return-value]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def require_runnable(platform: str) -> None:
    """``SimulatorError`` unless ``platform`` is the one that runs here."""
    if platform != RUNS_HERE:
        raise SimulatorError(
            f"platform {platform!r} cannot run here; only {RUNS_HERE} runs here",
            f"compile or configure with platform={RUNS_HERE!r} to run; what is compiled for {platform!r} can be read",
        )


def check_no_capture(config: RunConfig, why: str) -> None:
    """``CaptureError`` when ``config`` asks for a run-time capture (a DFX flag) where nothing runs (``why``)."""
    asked = [name for name in DFX_FLAGS if getattr(config, name)]
    if asked:
        verb = "asks" if len(asked) == 1 else "ask"
        raise CaptureError(
            f"{', '.join(asked)} {verb} for a capture of the run, but nothing runs: {why}",
            "pass the tensors to run (codegen_only=False), or leave the DFX flags off to only compile",
        )


def ring_values(value: int | list[int] | None) -> list[int]:
    """A ring field as the runtime's four per-ring values (0 = the runtime's default)."""
    if value is None:
        return [0] * RING_COUNT
    return list(value) if isinstance(value, list) else [value] * RING_COUNT
