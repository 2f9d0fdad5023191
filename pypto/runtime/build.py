"""Compile an artifact tree's orchestration and kernels into shared objects with simpler's KernelCompiler.

Each unit is looked up in the :class:`~pypto.runtime.cache.KernelCache` first. Kernels are compiled by
``g++-15`` (the shim running clang++-19 with pto-isa's CPU backend), the orchestration by ``g++``; both
come from the install's ``bin/``, which admits two compilers at a time machine-wide.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pypto.ir.span import Span

from .artifacts import ArtifactTree, KernelEntry
from .cache import KernelCache, cache_key
from .errors import SimulatorBuildError, SimulatorUnsupportedError
from .install import SimulatorInstall

PLATFORM = "a2a3sim"

# "file:line:col: error: message" (GCC and clang alike); "fatal error" too.
_DIAGNOSTIC = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<msg>.*)$", re.MULTILINE)


@dataclass(frozen=True)
class BuildRecord:
    """How one unit was obtained: ``seconds`` of wall time, ``cached`` when no compiler ran."""

    unit: str
    source: Path
    seconds: float
    cached: bool


@dataclass(frozen=True)
class BuiltProgram:
    """The shared objects of one artifact tree: orchestration, kernels by ``func_id``, and how long each took."""

    tree: ArtifactTree
    orchestration: bytes
    kernels: tuple[tuple[KernelEntry, bytes], ...]
    records: tuple[BuildRecord, ...]

    @property
    def digest(self) -> str:
        """A hash of all the binaries (identifies the program to the runtime's callable registry)."""
        h = hashlib.sha256(self.orchestration)
        for kernel, binary in self.kernels:
            h.update(str(kernel.func_id).encode())
            h.update(binary)
        return h.hexdigest()


def build_artifacts(tree: ArtifactTree, install: SimulatorInstall, cache: KernelCache) -> BuiltProgram:
    """Compile (or fetch from ``cache``) every unit of ``tree``; ``SimulatorBuildError`` on a compile failure."""
    from simpler_setup.kernel_compiler import KernelCompiler

    refuse_unmodelled(tree)
    compiler_log = logging.getLogger("simpler_setup.kernel_compiler")
    if compiler_log.level == logging.NOTSET:  # it would print the compiler output our error already carries
        compiler_log.setLevel(logging.CRITICAL)
    with install.toolchain_path():
        kc = KernelCompiler(platform=PLATFORM)
        incore_includes = kc.get_orchestration_include_dirs(tree.runtime)
        orch_includes, orch_sources = kc.get_orchestration_cache_inputs(tree.runtime)
        orch_token = kc.compile_cache_token(tree.runtime, [])["orchestration"]
        common = {"stamp": install.stamp, "platform": PLATFORM, "runtime": tree.runtime}

        def orchestration() -> tuple[bytes, BuildRecord]:
            source = tree.orchestration.source
            extra = [_digest(Path(p)) for p in orch_sources]
            key = cache_key(
                {
                    **common,
                    "unit": "orchestration",
                    "source": _digest(source),
                    "token": orch_token,
                    "includes": orch_includes,
                    "extra_sources": extra,
                }
            )
            return _cached(
                cache, key, "orchestration", source, tree, lambda: kc.compile_orchestration(tree.runtime, str(source))
            )

        def kernel(entry: KernelEntry) -> tuple[bytes, BuildRecord]:
            key = cache_key(
                {
                    **common,
                    "unit": "kernel",
                    "source": _digest(entry.source),
                    "token": kc.incore_compile_cache_token(entry.core_type),
                    "includes": incore_includes,
                }
            )
            return _cached(
                cache,
                key,
                entry.label,
                entry.source,
                tree,
                lambda: kc.compile_incore(
                    str(entry.source),
                    core_type=entry.core_type,
                    pto_isa_root=str(install.pto_isa_root),
                    extra_include_dirs=incore_includes,
                ),
            )

        with ThreadPoolExecutor(max_workers=2) as pool:
            orch_future = pool.submit(orchestration)
            kernel_futures = [pool.submit(kernel, entry) for entry in tree.kernels]
            orch_binary, orch_record = orch_future.result()
            kernel_results = [future.result() for future in kernel_futures]
    return BuiltProgram(
        tree=tree,
        orchestration=orch_binary,
        kernels=tuple((entry, binary) for entry, (binary, _) in zip(tree.kernels, kernel_results)),
        records=(orch_record, *(record for _, record in kernel_results)),
    )


def refuse_unmodelled(tree: ArtifactTree) -> None:
    """``SimulatorUnsupportedError`` for a kernel computing on BF16 values.

    Without C++23 ``<stdfloat>`` (the install's clang++-19 runs on libstdc++ 12), pto-isa's CPU
    backend declares ``typedef _Float16 bfloat16_t`` (include/pto/common/type.hpp): every BF16 value
    a kernel touches would be read and written as FP16 bits, a silently wrong result.
    """
    for entry in tree.kernels:
        if re.search(r"\bbfloat16_t\b", entry.source.read_text()):
            raise SimulatorUnsupportedError(
                f"kernel {entry.label} computes on BF16 values, which {PLATFORM} cannot run: pto-isa's CPU backend "
                "stands in _Float16 for bfloat16_t on this toolchain, so every BF16 result would be wrong",
                "run BF16 programs on the interpreter (CompiledProgram.interpret), or use FP16/FP32 on the simulator",
            )


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _cached(
    cache: KernelCache, key: str, unit: str, source: Path, tree: ArtifactTree, compile_unit: Callable[[], bytes]
) -> tuple[bytes, BuildRecord]:
    start = time.perf_counter()
    binary = cache.get(key)
    if binary is not None:
        return binary, BuildRecord(unit, source, time.perf_counter() - start, cached=True)
    try:
        binary = compile_unit()
    except RuntimeError as err:  # simpler reports a failed compiler run as RuntimeError(stderr)
        raise _build_error(unit, source, str(err), tree.root) from None
    cache.put(key, binary)
    return binary, BuildRecord(unit, source, time.perf_counter() - start, cached=False)


def _build_error(unit: str, source: Path, output: str, output_dir: Path) -> SimulatorBuildError:
    """The first compiler error, in the generated file when it has one, with the offending source line."""
    found = list(_DIAGNOSTIC.finditer(output))
    own = [m for m in found if Path(m["file"]).resolve() == source.resolve()]
    first = (own or found or [None])[0]
    if first is None:
        return SimulatorBuildError(
            f"compiling {unit} ({source}) failed:\n{output.strip()}",
            Span.unknown(),
            output,
            output_dir,
            hint=f"the artifact tree is kept in {output_dir}",
        )
    file, line, col = Path(first["file"]), int(first["line"]), int(first["col"])
    text = f"{file}:{line}:{col}: error: {first['msg']}"
    lines = file.read_text(errors="replace").splitlines() if file.is_file() else []
    if 0 < line <= len(lines):
        text += f"\n    {lines[line - 1]}\n    {' ' * (col - 1)}^"
    return SimulatorBuildError(
        f"compiling {unit} failed: {text}\n{output.strip()}",
        Span(str(file), line, col),
        output,
        output_dir,
        hint=f"the generated files are kept in {output_dir}",
    )
