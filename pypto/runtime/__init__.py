"""Run a compiled artifact tree (``kernel_config.py``, kernels, orchestration) on the a2a3sim simulator.

``run_on_simulator(out_dir, [a, b, c], params)`` compiles the generated C++ with simpler's
``KernelCompiler`` (cached), runs it on ``simpler.worker.Worker(level=2, platform="a2a3sim")`` and
writes the outputs into the caller's arrays. simpler is installed by ``scripts/install-simulator.sh``
and imported only when a run needs it.

The established runtime API sits on it (docs/simulator.md#runtime-api): ``RunConfig``, ``run`` and
the runner's helpers (``pypto.runtime.runner``), ``ChipWorker`` with ``DeviceTensor`` and
registration handles.
"""

from .arguments import ScalarParam, TensorParam
from .artifacts import ArtifactTree, Direction, KernelEntry, OrchestrationEntry, load_artifacts
from .build import BuildRecord
from .cache import KernelCache, default_cache_dir
from .errors import (
    ArtifactError,
    CaptureError,
    SimulatorArgumentError,
    SimulatorBoundsError,
    SimulatorBuildError,
    SimulatorError,
    SimulatorNotInstalledError,
    SimulatorRunError,
    SimulatorUnsupportedError,
)
from pypto.compile_options import MemoryPlanner, UnsupportedOptionError

from .config import IgnoredOptionWarning, RunConfig
from .device_tensor import DeviceTensor
from .install import SimulatorInstall, find_simulator, simulator_missing_reason
from .runner import (
    BenchmarkResult,
    RunResult,
    ScalarSpec,
    TensorSpec,
    benchmark,
    compile_program,
    configure_log,
    execute_compiled,
    log_level,
    run,
)
from .simulator import SimulatorRun, run_on_simulator
from .worker import ChipWorker, RegistrationHandle

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
