"""Compile an artifact tree's orchestration and kernels into shared objects with simpler's commands.

The commands are the ones simpler's ``KernelCompiler`` runs (its flags, include dirs and compilers,
read from it in :mod:`pypto.runtime.compiler_facts`) plus ``-include`` of a precompiled header.

Each unit is looked up in the :class:`~pypto.runtime.cache.KernelCache` first. Kernels are compiled by
``g++-15`` (the shim running clang++-19 with pto-isa's CPU backend), the orchestration by ``g++``; both
come from the install's ``bin/``, which admits two compilers at a time machine-wide. Each unit
includes a precompiled header of its include prelude (:mod:`pypto.runtime.pch`); the runtime's fixed
orchestration sources are compiled once into the cache and linked with each orchestration. Both are
looked up in the install's prebuilt artifacts too (:mod:`pypto.runtime.prebuild`), so a first run with
an empty kernel cache compiles only its own units; program units come from the kernel cache alone.

A unit that takes longer than :data:`PROGRESS_AFTER` seconds logs ``building <unit> (<n> of <m>)``
at INFO on the ``pypto.runtime.build`` logger (``pypto run`` prints it on stderr; a library user sees it
only when they configure logging).
"""

from __future__ import annotations

import hashlib
import logging
import re
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pypto.ir.span import Span

from .artifacts import ArtifactTree, KernelEntry
from .cache import KernelCache, cache_key
from .compiler_facts import PLATFORM, incore_compiler, incore_token, orchestration_compiler, orchestration_facts
from .errors import SimulatorBuildError
from .install import SimulatorInstall
from .pch import PchStore, compile_with_pch

PROGRESS_AFTER = 1.0
_log = logging.getLogger(__name__)

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
    with install.toolchain_path():
        incore_includes, orch_includes, orch_sources, orch_token = orchestration_facts(install.stamp, tree.runtime)
        orch_compiler, orch_linker = orchestration_compiler(install.stamp, tree.runtime)
        pch = PchStore(cache.directory / "pch", fallbacks=(install.prebuilt / "pch",))
        prebuilt = KernelCache(install.prebuilt)
        common = {"stamp": install.stamp, "platform": PLATFORM, "runtime": tree.runtime}
        total = 1 + len(tree.kernels)

        def orchestration_object(source: Path, obj: Path) -> str:
            """One of the runtime's fixed orchestration sources, compiled once into the cache, written to ``obj``."""
            key = cache_key(
                {
                    **common,
                    "unit": "orchestration-object",
                    "source": _digest(source),
                    "token": orch_token,
                    "includes": orch_includes,
                }
            )
            binary = cache.get(key) or prebuilt.get(key)
            if binary is None:
                _check(orch_compiler.run(["-c", "-o", str(obj), str(source)]))
                cache.put(key, obj.read_bytes())
            else:
                obj.write_bytes(binary)
            return str(obj)

        def compile_orchestration() -> bytes:
            source = tree.orchestration.source.resolve()
            with tempfile.TemporaryDirectory(prefix="pypto-build-") as tmp:
                scratch = Path(tmp)
                objects = [
                    orchestration_object(Path(p), scratch / f"{i}-{Path(p).stem}.o")
                    for i, p in enumerate(orch_sources)
                    if Path(p).is_file()
                ]
                main = scratch / "orchestration.o"
                _check(compile_with_pch(pch, orch_compiler, source, ["-c", "-o", str(main), str(source)]))
                out = scratch / "orchestration.so"
                _check(orch_linker.run([*objects, str(main), "-o", str(out)]))
                return out.read_bytes()

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
            return _cached(cache, key, "orchestration", source, tree, compile_orchestration, (1, total))

        def compile_kernel(entry: KernelEntry) -> bytes:
            compiler = incore_compiler(install.stamp, tree.runtime, entry.core_type, str(install.pto_isa_root))
            source = entry.source.resolve()
            with tempfile.TemporaryDirectory(prefix="pypto-build-") as tmp:
                out = Path(tmp) / "kernel.so"
                _check(compile_with_pch(pch, compiler, source, ["-o", str(out), str(source)]))
                return out.read_bytes()

        def kernel(n: int, entry: KernelEntry) -> tuple[bytes, BuildRecord]:
            key = cache_key(
                {
                    **common,
                    "unit": "kernel",
                    "source": _digest(entry.source),
                    "token": incore_token(install.stamp, entry.core_type),
                    "includes": incore_includes,
                }
            )
            return _cached(cache, key, entry.label, entry.source, tree, lambda: compile_kernel(entry), (n, total))

        with ThreadPoolExecutor(max_workers=2) as pool:
            orch_future = pool.submit(orchestration)
            kernel_futures = [pool.submit(kernel, n, entry) for n, entry in enumerate(tree.kernels, start=2)]
            orch_binary, orch_record = orch_future.result()
            kernel_results = [future.result() for future in kernel_futures]
    return BuiltProgram(
        tree=tree,
        orchestration=orch_binary,
        kernels=tuple((entry, binary) for entry, (binary, _) in zip(tree.kernels, kernel_results)),
        records=(orch_record, *(record for _, record in kernel_results)),
    )


def _check(result: subprocess.CompletedProcess[str]) -> None:
    """Raise what simpler raises for a failed compiler run: ``RuntimeError`` carrying its stderr."""
    if result.returncode != 0:
        raise RuntimeError(result.stderr)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _cached(
    cache: KernelCache,
    key: str,
    unit: str,
    source: Path,
    tree: ArtifactTree,
    compile_unit: Callable[[], bytes],
    position: tuple[int, int],
) -> tuple[bytes, BuildRecord]:
    start = time.perf_counter()
    binary = cache.get(key)
    if binary is not None:
        return binary, BuildRecord(unit, source, time.perf_counter() - start, cached=True)
    progress = threading.Timer(PROGRESS_AFTER, _log.info, ("building %s (%d of %d) ...", unit, *position))
    progress.daemon = True
    progress.start()
    try:
        binary = compile_unit()
    except RuntimeError as err:  # a failed compiler run: RuntimeError(stderr)
        raise _build_error(unit, source, str(err), tree.root) from None
    finally:
        progress.cancel()
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
