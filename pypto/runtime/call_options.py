"""What a ``RunConfig`` changes about one simulator call: platform, AICPU threads, DFX flags, rings.

``call_options(config, platform)`` reads a config at the point a call consumes it (checking that
the platform runs here and warning about what a2a3sim ignores); ``call_config`` turns the options
into simpler's ``CallConfig`` for one artifact tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import DFX_FLAGS, RunConfig, ring_values, warn_ignored

DFX_DIR = "dfx_outputs"
_RINGS = ("ring_task_window", "ring_heap", "ring_dep_pool")


@dataclass(frozen=True)
class CallOptions:
    """The run-time part of a ``RunConfig`` (``None`` threads: the artifact's ``RUNTIME_CONFIG``)."""

    platform: str
    device_id: int = 0
    aicpu_thread_num: int | None = None
    dfx: dict[str, int] = field(default_factory=dict)
    rings: dict[str, list[int]] = field(default_factory=dict)

    @property
    def any_dfx(self) -> bool:
        """Whether a DFX flag is on (the run then writes ``<output_dir>/dfx_outputs``)."""
        return any(self.dfx.values())


def call_options(config: Any, platform: str, *, rings: bool = False) -> CallOptions:
    """The options of a call without (``platform`` runs) or with ``config`` (its platform runs).

    ``TypeError`` for a config that is not a ``RunConfig``; the caller checks that the platform runs.
    ``rings``: apply the ring fields (``ChipWorker`` calls do; one-shot calls do not).
    """
    if config is None:
        return CallOptions(platform)
    if not isinstance(config, RunConfig):
        raise TypeError(f"config must be a pypto.runtime.RunConfig, got {type(config).__name__}")
    if config.enable_pmu:
        warn_ignored("enable_pmu", "the simulator has no performance monitoring unit")
    threads = config.aicpu_thread_num
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"aicpu_thread_num must be a positive int, got {threads!r}")
    return CallOptions(
        platform=config.platform,
        device_id=config.device_id,
        aicpu_thread_num=config.aicpu_thread_num,
        dfx={name: int(getattr(config, name)) for name in DFX_FLAGS},
        rings={name: ring_values(getattr(config, name)) for name in _RINGS} if rings else {},
    )


def call_config(options: CallOptions | None, dfx_dir: Path, default_threads: int) -> Any:
    """simpler's ``CallConfig`` for a run with ``options`` (DFX outputs go to ``dfx_dir``)."""
    from simpler.task_interface import CallConfig

    config = CallConfig()
    threads = options.aicpu_thread_num if options is not None else None
    config.aicpu_thread_num = default_threads if threads is None else threads
    if options is None:
        return config
    for name, value in options.dfx.items():
        setattr(config, name, type(getattr(config, name))(value))  # some flags are bool there
    if options.any_dfx:
        dfx_dir.mkdir(parents=True, exist_ok=True)
        config.output_prefix = str(dfx_dir)
    if options.rings:
        env = config.runtime_env
        for name, values in options.rings.items():
            setattr(env, name, values)
        config.runtime_env = env
    return config
