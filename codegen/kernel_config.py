"""``kernel_config.py`` (docs/codegen.md#kernel-config): the runtime, the orchestration source and the kernel table.

simpler reads it to build an artifact tree: ``RUNTIME_CONFIG`` names the runtime, ``ORCHESTRATION``
the orchestration C++ and its entry, ``KERNELS`` one entry per kernel the orchestration submits,
with the ``func_id`` the submits pass (first-use order, :func:`~pypto.codegen.orchestration.kernel_ids`)
and the kernel's source under ``kernels/aiv|aic/``. Signatures list tensor parameters only::

    KERNELS = [
    	{"func_id": 0, "name": "tile_add", "source": str(_ROOT_DIR / "kernels" / "aiv" / "tile_add.cpp"),
    	 "core_type": "aiv", "signature": [_D.IN, _D.IN, _D.OUT]},
    ]
"""

from __future__ import annotations

from pypto.analysis.callgraph import function_named
from pypto.ir.enums import FunctionType, ParamDirection
from pypto.ir.function import Function, Program
from pypto.ir.types import TensorType

from .errors import CodegenError
from .orchestration import kernel_ids, orchestration_function

RUNTIMES = ("tensormap_and_ringbuffer", "host_build_graph")

_SIGNATURE = {ParamDirection.In: "_D.IN", ParamDirection.Out: "_D.OUT", ParamDirection.InOut: "_D.INOUT"}
_CORE_TYPES = {FunctionType.AIV: "aiv", FunctionType.AIC: "aic"}


def kernel_source(func: Function) -> str:
    """The kernel's C++ path in the artifact tree: ``kernels/aiv/<name>.cpp`` or ``kernels/aic/<name>.cpp``."""
    return f"kernels/{_CORE_TYPES[func.func_type]}/{func.name}.cpp"


def orchestration_source(func: Function) -> str:
    """The orchestration C++ path in the artifact tree: ``orchestration/<name>.cpp``."""
    return f"orchestration/{func.name}.cpp"


def _signature(func: Function) -> str:
    dirs = [_SIGNATURE[d] for p, d in zip(func.params, func.param_directions, strict=True)
            if isinstance(p.type, TensorType)]
    return "[" + ", ".join(dirs) + "]"


def _path(relative: str) -> str:
    return "str(_ROOT_DIR / " + " / ".join(f'"{part}"' for part in relative.split("/")) + ")"


def generate_kernel_config(program: Program, runtime: str = "tensormap_and_ringbuffer", aicpu_thread_num: int = 0) -> str:
    """The text of ``kernel_config.py`` for ``program`` (which must have an Orchestration function)."""
    if runtime not in RUNTIMES:
        raise CodegenError(f"no rule for runtime '{runtime}' in kernel_config", None,
                           f"the runtime is one of {', '.join(RUNTIMES)}")
    orch = orchestration_function(program)
    if orch is None:
        raise CodegenError(f"no rule for program '{program.name}' without an Orchestration function in kernel_config",
                           program.span, "kernel_config.py names the orchestration the runtime runs")
    kernels = [function_named(program, name) for name in kernel_ids(program)]
    lines = [
        "# Kernel and Orchestration Configuration",
        "",
        "from pathlib import Path",
        "",
        "from simpler.task_interface import ArgDirection as _D",
        "",
        "_ROOT_DIR = Path(__file__).parent",
        "",
        f"# Runtime configuration for {runtime}.",
        "# AICPU thread count 0 selects the runtime's architecture default (a2a3: 4; a5: 5).",
        "RUNTIME_CONFIG = {",
        f'\t"runtime": "{runtime}",',
        f'\t"aicpu_thread_num": {aicpu_thread_num},',
        "}",
        "",
        "ORCHESTRATION = {",
        f'\t"source": {_path(orchestration_source(orch))},',
        '\t"function_name": "aicpu_orchestration_entry",',
        f'\t"signature": {_signature(orch)},',
        "}",
        "",
        "KERNELS = [",
    ]
    for func_id, func in enumerate(kernels):
        assert func is not None  # kernel_ids lists only functions of the program
        lines.append(
            f'\t{{"func_id": {func_id}, "name": "{func.name}", "source": {_path(kernel_source(func))}, '
            f'"core_type": "{_CORE_TYPES[func.func_type]}", "signature": {_signature(func)}}},'
        )
    lines.append("]")
    return "\n".join(lines) + "\n"
