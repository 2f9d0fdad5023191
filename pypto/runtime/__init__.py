"""Run a compiled artifact tree (``kernel_config.py``, kernels, orchestration) on the a2a3sim simulator.

``run_on_simulator(out_dir, [a, b, c], params)`` compiles the generated C++ with simpler's
``KernelCompiler`` (cached), runs it on ``simpler.worker.Worker(level=2, platform="a2a3sim")`` and
writes the outputs into the caller's arrays. simpler is installed by ``scripts/install-simulator.sh``
and imported only when a run needs it.
"""

from .arguments import ScalarParam, TensorParam
from .artifacts import ArtifactTree, Direction, KernelEntry, OrchestrationEntry, load_artifacts
from .build import BuildRecord
from .cache import KernelCache, default_cache_dir
from .errors import (
    ArtifactError,
    SimulatorArgumentError,
    SimulatorBuildError,
    SimulatorError,
    SimulatorNotInstalledError,
    SimulatorRunError,
    SimulatorUnsupportedError,
)
from .install import SimulatorInstall, find_simulator, simulator_missing_reason
from .simulator import SimulatorRun, run_on_simulator

__all__ = [
    "ArtifactError",
    "ArtifactTree",
    "BuildRecord",
    "Direction",
    "KernelCache",
    "KernelEntry",
    "OrchestrationEntry",
    "ScalarParam",
    "SimulatorArgumentError",
    "SimulatorBuildError",
    "SimulatorError",
    "SimulatorInstall",
    "SimulatorNotInstalledError",
    "SimulatorRun",
    "SimulatorRunError",
    "SimulatorUnsupportedError",
    "TensorParam",
    "default_cache_dir",
    "find_simulator",
    "load_artifacts",
    "run_on_simulator",
    "simulator_missing_reason",
]
