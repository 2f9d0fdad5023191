"""simpler's ``KernelCompiler`` and its cache inputs, made once per process and install.

Making a ``KernelCompiler`` and its cache tokens asks the compilers for their identity (``--version``).
Through the install's shims each such query would wait for one of the machine-wide two compiler slots,
and simpler gives up after 5 s: on a busy machine the identity became ``TimeoutExpired`` (a different
cache key, so every unit was rebuilt) and ``g++`` lost ``-fno-gnu-unique``. The queries therefore run
once per process with a private slot directory (``--version`` compiles nothing). The install ``stamp``
is part of each key, and the caller holds the install's toolchain ``PATH`` when a fact is first made.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .pch import Compiler

PLATFORM = "a2a3sim"


@functools.cache
def kernel_compiler(stamp: str) -> Any:
    """The ``KernelCompiler`` of the a2a3sim platform for the install with ``stamp``."""
    from simpler_setup import kernel_compiler as module

    with _private_compile_slots():
        kc = module.KernelCompiler(platform=PLATFORM)
        for executable in (kc.gxx15.cxx_path, kc.host_gxx.cxx_path):
            module._executable_cache_identity(executable)  # simpler caches it for the tokens
    return kc


@contextlib.contextmanager
def _private_compile_slots() -> Iterator[None]:
    """Point the shims' ``PYPTO_COMPILE_SLOTS`` at a fresh directory for the block."""
    old = os.environ.get("PYPTO_COMPILE_SLOTS")
    with tempfile.TemporaryDirectory(prefix="pypto-slots-") as slots:
        os.environ["PYPTO_COMPILE_SLOTS"] = slots
        try:
            yield
        finally:
            if old is None:
                del os.environ["PYPTO_COMPILE_SLOTS"]
            else:
                os.environ["PYPTO_COMPILE_SLOTS"] = old


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


@functools.cache
def incore_compiler(stamp: str, runtime: str, core_type: str, pto_isa_root: str) -> Compiler:
    """Kernels' compiler for ``core_type``: the flags and include dirs of simpler's ``_compile_incore_sim``."""
    from simpler_setup.compile_paths import compiler_visible_path

    kc = kernel_compiler(stamp)
    token = incore_token(stamp, core_type)
    includes = [
        f"{pto_isa_root}/include",
        f"{pto_isa_root}/include/pto",
        *kc.get_incore_include_dirs(),
        *orchestration_facts(stamp, runtime)[0],
    ]
    flags = (*token["flags"], *(f"-I{compiler_visible_path(d)}" for d in includes))
    return Compiler(kc.gxx15.cxx_path, flags, token["identity"], tuple(includes), Path(kc.project_root))


@functools.cache
def orchestration_compiler(stamp: str, runtime: str) -> tuple[Compiler, Compiler]:
    """(compiler of orchestration objects, its linker): simpler's orchestration flags, include dirs and link flags."""
    from simpler_setup.compile_paths import compiler_visible_path

    kc = kernel_compiler(stamp)
    _, includes, _, token = orchestration_facts(stamp, runtime)
    executable = kc.host_gxx.cxx_path
    flags = (*token["compile_flags"], *(f"-I{compiler_visible_path(d)}" for d in includes))
    root = Path(kc.project_root)
    compiler = Compiler(executable, flags, token["identity"], tuple(includes), root)
    linker = Compiler(executable, (*token["compile_flags"], *token["link_flags"]), token["identity"], (), root)
    return compiler, linker
