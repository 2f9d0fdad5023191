"""simpler's ``KernelCompiler`` and its cache inputs, made once per process and install.

Making a ``KernelCompiler`` and its cache tokens asks the compilers for their identity (each a
subprocess through the machine-wide two-compiler lock): seconds on a busy machine, which every call
of an already built program would otherwise pay. The install ``stamp`` is part of each key, and the
caller holds the install's toolchain ``PATH`` when a fact is first made.
"""

from __future__ import annotations

import functools
from typing import Any

PLATFORM = "a2a3sim"


@functools.cache
def kernel_compiler(stamp: str) -> Any:
    """The ``KernelCompiler`` of the a2a3sim platform for the install with ``stamp``."""
    from simpler_setup.kernel_compiler import KernelCompiler

    return KernelCompiler(platform=PLATFORM)


@functools.cache
def orchestration_facts(stamp: str, runtime: str) -> tuple[Any, Any, Any, Any]:
    """(kernel include dirs, orchestration include dirs, orchestration extra sources, orchestration token)."""
    kc = kernel_compiler(stamp)
    orch_includes, orch_sources = kc.get_orchestration_cache_inputs(runtime)
    token = kc.compile_cache_token(runtime, [])["orchestration"]
    return kc.get_orchestration_include_dirs(runtime), orch_includes, orch_sources, token


@functools.cache
def incore_token(stamp: str, core_type: str) -> Any:
    """The compile cache token of kernels for ``core_type``."""
    return kernel_compiler(stamp).incore_compile_cache_token(core_type)
