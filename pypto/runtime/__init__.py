"""Run a compiled artifact tree (``kernel_config.py``, kernels, orchestration) on the a2a3sim simulator.

``run_on_simulator(out_dir, [a, b, c], params)`` compiles the generated C++ with simpler's
``KernelCompiler`` (cached), runs it on ``simpler.worker.Worker(level=2, platform="a2a3sim")`` and
writes the outputs into the caller's arrays. simpler is installed by ``scripts/install-simulator.sh``
and imported only when a run needs it.

The established runtime API sits on it (docs/simulator.md#runtime-api): ``RunConfig``, ``run`` and
the runner's helpers (``pypto.runtime.runner``), ``ChipWorker`` with ``DeviceTensor`` and
registration handles.
"""

from __future__ import annotations

import importlib
from typing import Any

# Where each public name lives. They are imported on first use (PEP 562): a compile reads only a few
# of these modules (dtypes, config, meta), and the rest (numpy, the builder, the simulator binding)
# would be most of the first compile's import time.
_EXPORTS: dict[str, str] = {
    "ScalarParam": ".arguments",
    "TensorParam": ".arguments",
    "ArtifactTree": ".artifacts",
    "Direction": ".artifacts",
    "KernelEntry": ".artifacts",
    "OrchestrationEntry": ".artifacts",
    "load_artifacts": ".artifacts",
    "BuildRecord": ".build",
    "KernelCache": ".cache",
    "default_cache_dir": ".cache",
    "ArtifactError": ".errors",
    "CaptureError": ".errors",
    "SimulatorArgumentError": ".errors",
    "SimulatorBoundsError": ".errors",
    "SimulatorBuildError": ".errors",
    "SimulatorError": ".errors",
    "SimulatorNotInstalledError": ".errors",
    "SimulatorRunError": ".errors",
    "SimulatorUnsupportedError": ".errors",
    "MemoryPlanner": "pypto.compile_options",
    "UnsupportedOptionError": "pypto.compile_options",
    "IgnoredOptionWarning": ".config",
    "RunConfig": ".config",
    "DeviceTensor": ".device_tensor",
    "SimulatorInstall": ".install",
    "find_simulator": ".install",
    "simulator_missing_reason": ".install",
    "BenchmarkResult": ".runner",
    "RunResult": ".runner",
    "ScalarSpec": ".runner",
    "TensorSpec": ".runner",
    "benchmark": ".runner",
    "compile_program": ".runner",
    "configure_log": ".runner",
    "execute_compiled": ".runner",
    "log_level": ".runner",
    "run": ".runner",
    "SimulatorRun": ".simulator",
    "run_on_simulator": ".simulator",
    "ChipWorker": ".worker",
    "RegistrationHandle": ".worker",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "ArtifactError",
    "ArtifactTree",
    "BenchmarkResult",
    "CaptureError",
    "BuildRecord",
    "ChipWorker",
    "DeviceTensor",
    "Direction",
    "IgnoredOptionWarning",
    "KernelCache",
    "KernelEntry",
    "MemoryPlanner",
    "OrchestrationEntry",
    "RegistrationHandle",
    "RunConfig",
    "RunResult",
    "ScalarParam",
    "ScalarSpec",
    "SimulatorArgumentError",
    "SimulatorBoundsError",
    "SimulatorBuildError",
    "SimulatorError",
    "SimulatorInstall",
    "SimulatorNotInstalledError",
    "SimulatorRun",
    "SimulatorRunError",
    "SimulatorUnsupportedError",
    "TensorParam",
    "TensorSpec",
    "UnsupportedOptionError",
    "benchmark",
    "compile_program",
    "configure_log",
    "default_cache_dir",
    "execute_compiled",
    "find_simulator",
    "load_artifacts",
    "log_level",
    "run",
    "run_on_simulator",
    "simulator_missing_reason",
]
