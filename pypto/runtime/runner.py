"""``pypto.runtime.run`` and the established runner's helpers: compile a program and run it on a2a3sim.

    compiled = run(MyProgram, a, b, out, config=RunConfig(save_kernels_dir="build/my"))

``run`` compiles with the compile fields of the ``RunConfig`` and, given tensors (and
``codegen_only`` off), calls the result with them. ``TensorSpec``/``ScalarSpec`` describe test
arguments, ``RunResult`` a test outcome; ``compile_program``/``execute_compiled`` are the two halves.
``pypto.compile`` is imported inside the functions: it imports ``pypto.compiled``, which imports
this package.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .call_options import CallOptions
from .config import DFX_FLAGS, IgnoredOptionWarning, RunConfig, check_no_capture, require_runnable, warn_ignored
from .simulator import SimulatorRun, run_on_simulator

__all__ = [
    "BenchmarkResult",
    "IgnoredOptionWarning",
    "RunConfig",
    "RunResult",
    "ScalarSpec",
    "TensorSpec",
    "benchmark",
    "compile_program",
    "configure_log",
    "execute_compiled",
    "log_level",
    "run",
]

# RunConfig fields the compile reads but pypto does not implement: (field, default, why).
_UNHONOURED_COMPILE_FIELDS = (
    ("compile_profiling", False, "pypto writes no pipeline profile report"),
    ("diagnostic_phase", None, "pypto has no diagnostic phases"),
    ("disabled_diagnostics", None, "pypto has no silenceable diagnostic checks"),
    ("dump_ptoas_passes", False, "pypto does not run the ptoas assembler"),
)


def run(program: Any, *tensors: Any, config: RunConfig | None = None) -> Any:
    """Compile ``program`` (a ``@pl.program`` class or ``ir.Program``) and run it with ``tensors``.

    Returns the ``CompiledProgram``; what the call returned (the tensors the entry creates and
    returns, the Out tensors it allocated) is its ``last_result``. Nothing runs without tensors or with ``config.codegen_only``;
    otherwise the platform must be ``a2a3sim`` (checked before compiling). A DFX capture (swimlane,
    dependencies, dumps, scope stats) on a run that only compiles is a ``CaptureError``.
    """
    config = RunConfig() if config is None else config
    if not isinstance(config, RunConfig):
        raise TypeError(f"config must be a pypto.runtime.RunConfig, got {type(config).__name__}")
    executes = bool(tensors) and not config.codegen_only
    if executes:
        require_runnable(config.platform)
    else:
        check_no_capture(config, "codegen_only=True" if config.codegen_only else "no tensors are given")
    compiled = compile_with_config(program, config, config.save_kernels_dir)
    if executes:
        compiled(*tensors, config=config)
    return compiled


def compile_with_config(program: Any, config: RunConfig, output_dir: str | Path | None) -> Any:
    """``compile_program`` of ``program`` into ``output_dir`` with the compile fields of ``config``."""
    return compile_program(
        program,
        output_dir,
        strategy=config.strategy,
        backend_type=config.backend_type,
        dump_passes=config.dump_passes,
        platform=config.platform,
        dump_ptoas_passes=config.dump_ptoas_passes,
        diagnostic_phase=config.diagnostic_phase,
        disabled_diagnostics=config.disabled_diagnostics,
        profiling=config.compile_profiling,
        analyze_auto_scopes_for_deps=config.analyze_auto_scopes_for_deps,
        memory_planner=_planner(config.memory_planner),
        distributed_config=config.distributed_config,
    )


def compile_program(
    program: Any,
    work_dir: str | Path | None,
    *,
    strategy: Any = None,
    backend_type: Any = None,
    dump_passes: Any = False,
    dump_ptoas_passes: bool = False,
    diagnostic_phase: Any = None,
    disabled_diagnostics: Any = None,
    profiling: bool = False,
    analyze_auto_scopes_for_deps: bool = False,
    memory_planner: Any = None,
    enable_pypto_l0c_double_buffer: bool | None = None,
    platform: str | None = None,
    distributed_config: Any = None,
) -> Any:
    """``ir.compile`` of ``program`` into ``work_dir`` (None: ``ir.compile``'s default, ``build_output/<Program>_<time>``); returns the ``CompiledProgram``.

    Options pypto does not implement are accepted with an :class:`IgnoredOptionWarning`;
    ``distributed_config`` (multi-chip) is refused.
    """
    from pypto.backend import BackendType
    from pypto.compile import compile
    from pypto.ir.function import Program

    if not isinstance(program, Program):
        raise TypeError(f"expected a @pl.program class or an ir.Program, got {type(program).__name__}")
    if distributed_config is not None:
        raise ValueError("distributed_config: multi-chip programs are not supported; pypto runs one chip (a2a3sim)")
    given = {
        "compile_profiling": profiling,
        "diagnostic_phase": diagnostic_phase,
        "disabled_diagnostics": disabled_diagnostics,
        "dump_ptoas_passes": dump_ptoas_passes,
    }
    for name, default, why in _UNHONOURED_COMPILE_FIELDS:
        if given[name] != default:
            warn_ignored(name, why)
    if enable_pypto_l0c_double_buffer is not None:
        warn_ignored("enable_pypto_l0c_double_buffer", "pypto's memory planner has no L0C double-buffer switch")
    return compile(
        program,
        output_dir=work_dir,
        strategy=strategy,
        dump_passes=_dumps(dump_passes),
        backend_type=backend_type if backend_type is not None else BackendType.Ascend910B,
        platform=platform,
        memory_planner=memory_planner,
        analyze_auto_scopes_for_deps=analyze_auto_scopes_for_deps,
    )


def execute_compiled(
    work_dir: str | Path,
    args: Sequence[Any],
    *,
    platform: str = "a2a3sim",
    device_id: int = 0,
    dfx: Mapping[str, int] | None = None,
    level: int = 2,
    aicpu_thread_num: int | None = None,
    analyze_auto_scopes_for_deps: bool = False,
) -> SimulatorRun:
    """Run the artifact tree in ``work_dir`` with ``args`` (orchestration order; outputs written in place).

    ``dfx`` maps DFX flag names (``enable_chip_swimlane``, ``enable_dump_args``, ``enable_dep_gen``,
    ``enable_scope_stats``) to levels; only level 2 and ``a2a3sim`` run here.
    """
    if level != 2:
        raise ValueError(f"execute_compiled supports level=2 only (one chip), got level={level!r}")
    require_runnable(platform)
    if analyze_auto_scopes_for_deps:
        warn_ignored("analyze_auto_scopes_for_deps", "it is a compile option")
    dfx = dict(dfx or {})
    known = set(DFX_FLAGS)
    if set(dfx) - known:
        raise ValueError(f"unknown DFX flags {sorted(set(dfx) - known)} (use {sorted(known)})")
    options = CallOptions(platform, device_id, aicpu_thread_num, {k: int(v) for k, v in dfx.items()})
    return run_on_simulator(work_dir, list(args), options=options)


def _dumps(level: Any) -> bool:
    """A dump level of either API (bool, pypto's NONE/ALL, the established NONE/CONCISE/EXPLICIT) as on/off."""
    if isinstance(level, bool):
        return level
    name = getattr(level, "name", level)
    if name in ("NONE", "none"):
        return False
    if name in ("ALL", "CONCISE", "EXPLICIT", "all", "concise", "explicit"):
        return True
    raise ValueError(f"dump_passes must be a bool or a PassDumpLevel (NONE, CONCISE, EXPLICIT), got {level!r}")


def _planner(value: Any) -> Any:
    """The config's memory planner for the compile: pypto's own, with a warning for any other."""
    if value is None or getattr(value, "name", value) == "PYPTO":
        return None
    warn_ignored("memory_planner", f"pypto plans memory with its own passes, not {getattr(value, 'name', value)}")
    return None


@dataclass(frozen=True)
class BenchmarkResult:
    """What :func:`benchmark` measured: per timed round the host wall time and the device time
    (seconds; the simulator has no device clock, so those are 0)."""

    host_seconds: tuple[float, ...]
    device_seconds: tuple[float, ...]

    @property
    def mean_host_seconds(self) -> float:
        """The mean host wall time of a round."""
        return sum(self.host_seconds) / len(self.host_seconds)

    @property
    def min_host_seconds(self) -> float:
        """The fastest round's host wall time."""
        return min(self.host_seconds)


def benchmark(
    compiled: Any,
    args: Sequence[Any],
    *,
    rounds: int = 100,
    warmup: int = 3,
    platform: str | None = None,
    device_id: int | None = None,
    config: RunConfig | None = None,
    persistent: bool = False,
    reset_persistent_windows: Any = None,
) -> BenchmarkResult:
    """Run ``compiled(*args, config=config)`` ``warmup`` times, then time ``rounds`` more runs.

    ``platform``/``device_id`` replace those of ``config`` (default ``RunConfig()``); only a2a3sim
    runs. The runs use the active ``ChipWorker`` (``with worker:``), else the process-wide worker,
    where the program stays registered from one run to the next whether ``persistent`` or not;
    ``reset_persistent_windows`` has no effect here.
    """
    for name, value, least in (("rounds", rounds, 1), ("warmup", warmup, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"benchmark: {name} must be an int >= {least}, got {value!r}")
    config = RunConfig() if config is None else config
    if not isinstance(config, RunConfig):
        raise TypeError(f"config must be a pypto.runtime.RunConfig, got {type(config).__name__}")
    changes = {k: v for k, v in (("platform", platform), ("device_id", device_id)) if v is not None}
    config = replace(config, **changes) if changes else config
    require_runnable(config.platform)
    if reset_persistent_windows is not None:
        warn_ignored("reset_persistent_windows", "pypto keeps no persistent windows between runs")
    for _ in range(warmup):
        compiled(*args, config=config)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        compiled(*args, config=config)
        times.append(time.perf_counter() - start)
    return BenchmarkResult(tuple(times), (0.0,) * rounds)


# ----- test descriptions ------------------------------------------------------------------------------


@dataclass
class TensorSpec:
    """A named test tensor: ``create_tensor()`` builds it from ``init_value`` (torch needed)."""

    name: str
    shape: list[int]
    dtype: Any
    init_value: Any = None
    is_output: bool = False

    def create_tensor(self) -> Any:
        """None: zeros; a number: filled; a tensor: converted; ``torch.randn``/``rand``/``zeros``/``ones``:
        called with the shape; another callable: called without arguments, then converted."""
        import torch

        value = self.init_value
        if value is None:
            return torch.zeros(self.shape, dtype=self.dtype)
        if isinstance(value, bool | int | float):
            return torch.full(self.shape, value, dtype=self.dtype)
        if isinstance(value, torch.Tensor):
            return value.to(self.dtype)
        if value in (torch.randn, torch.rand, torch.zeros, torch.ones):
            return value(self.shape, dtype=self.dtype)
        if callable(value):
            return torch.as_tensor(value(), dtype=self.dtype)
        raise TypeError(f"TensorSpec {self.name!r}: unsupported init_value of type {type(value).__name__}")


_CTYPES = ("int64", "int32", "uint64", "uint32", "float", "double")


@dataclass
class ScalarSpec:
    """A named test scalar passed as ``ctype`` (``int64``, ``int32``, ``uint64``, ``uint32``, ``float``, ``double``)."""

    name: str
    value: int | float
    ctype: str = "int64"

    def __post_init__(self) -> None:
        if self.ctype not in _CTYPES:
            raise ValueError(f"ScalarSpec {self.name!r}: ctype must be one of {', '.join(_CTYPES)}, got {self.ctype!r}")


@dataclass
class RunResult:
    """The outcome of one test run; ``str()`` gives ``PASS``/``FAIL``, the name, the error and the seconds."""

    passed: bool
    test_name: str | None = None
    error: str | None = None
    execution_time: float | None = None
    profile: Any = None

    def __str__(self) -> str:
        parts = ["PASS" if self.passed else "FAIL"]
        if self.test_name:
            parts.append(self.test_name)
        text = ": ".join(parts)
        if self.error:
            text += f" - {self.error}"
        if self.execution_time is not None:
            text += f" ({self.execution_time:.2f}s)"
        return text


# ----- logging ------------------------------------------------------------------------------------------


def configure_log(level: int | str, *, sync_pypto: bool = False) -> None:
    """Set the level of the simulator's ``simpler`` logger (and of ``pypto``'s with ``sync_pypto``)."""
    number = logging.getLevelName(level.upper()) if isinstance(level, str) else level
    if not isinstance(number, int):
        raise ValueError(f"unknown log level {level!r} (use DEBUG, INFO, WARNING, ERROR or CRITICAL)")
    logging.getLogger("simpler").setLevel(number)
    if sync_pypto:
        logging.getLogger("pypto").setLevel(number)


def log_level() -> int:
    """The effective level of the ``simpler`` logger."""
    return logging.getLogger("simpler").getEffectiveLevel()

