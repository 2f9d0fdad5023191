"""Precompiled headers of the include prelude of generated C++ units, kept in the kernel cache.

A generated kernel or orchestration file starts with a block of preprocessor lines (the pto-isa and
runtime includes, the ``__gm__`` fallbacks): its *prelude*. Parsing those headers is most of a unit's
compile time, so the prelude is compiled once into ``<cache>/pch/<key>.h.pch`` (clang) or
``<key>.h.gch`` (GCC) and each unit is compiled with ``-include <key>.h``, which both compilers
answer from the precompiled file. The key covers the prelude text, the compiler's identity, every
flag and a digest of the include directories' files (path, size, mtime), so a change to any of them
builds a new header. Writes are atomic (the header is linked into place once, the PCH renamed), so
two processes building the same PCH at once both end with a valid one. A PCH the compiler rejects
(corrupt or stale) is rebuilt and the unit compiled again; a prelude that does not precompile leaves
the unit compiled as simpler would, without the flag.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .cache import cache_key

# Lines a prelude may hold: blank, comments and preprocessor directives.
_PRELUDE_LINE = re.compile(r"^\s*(?:$|//|#)")


def prelude(source: str) -> str | None:
    """The directives of the leading preprocessor block of ``source`` (up to its first other line; its comments
    and blank lines, such as a kernel's name, left out so kernels share it), or ``None`` without ``#include``."""
    lines: list[str] = []
    for line in source.splitlines(keepends=True):
        if not _PRELUDE_LINE.match(line):
            break
        if line.lstrip().startswith("#"):
            lines.append(line)
    text = "".join(lines)
    return text if "#include" in text else None


@functools.cache
def headers_digest(include_dirs: tuple[str, ...]) -> str:
    """A digest of the path, size and mtime of every file under ``include_dirs`` (once per process)."""
    entries: list[tuple[str, int, int]] = []
    for directory in include_dirs:
        for root, _, files in os.walk(directory):
            for name in files:
                path = os.path.join(root, name)
                st = os.stat(path)
                entries.append((path, st.st_size, st.st_mtime_ns))
    return cache_key({"headers": sorted(entries)})


@dataclass(frozen=True)
class Compiler:
    """One compiler invocation shape: the executable, its flags (includes too) and its identity.

    ``flags`` are the compile flags of the unit's command without ``-o`` and the sources; ``identity``
    is simpler's description of the executable (its ``--version``), ``cwd`` the directory commands
    run in (simpler's root: include paths are relative to it).
    """

    executable: str
    flags: tuple[str, ...]
    identity: object
    include_dirs: tuple[str, ...]
    cwd: Path

    @property
    def is_clang(self) -> bool:
        """Whether the executable is clang (``.pch``) rather than GCC (``.gch``)."""
        return "clang" in str(self.identity)

    def run(self, args: Sequence[str]) -> subprocess.CompletedProcess[str]:
        """Run the executable with ``flags`` then ``args``; the result is returned whatever the exit code."""
        cmd = [self.executable, *self.flags, *args]
        return subprocess.run(cmd, check=False, capture_output=True, text=True, cwd=self.cwd)


class PchStore:
    """Precompiled preludes in ``<directory>``, built on first use and shared by every unit and process;
    one already in a ``fallbacks`` directory (the install's prebuilt ones, read only) is used from there."""

    def __init__(self, directory: Path, fallbacks: Sequence[Path] = ()) -> None:
        self.directory = directory
        self.fallbacks = tuple(fallbacks)

    def header(self, compiler: Compiler, text: str, *, rebuild: bool = False) -> Path | None:
        """The header to ``-include`` for prelude ``text`` (its PCH built if missing or ``rebuild``), or ``None``
        when the prelude does not precompile."""
        key = cache_key(
            {
                "prelude": text,
                "executable": compiler.executable,
                "flags": compiler.flags,
                "identity": compiler.identity,
                "headers": headers_digest(compiler.include_dirs),
            }
        )
        if not rebuild:
            for directory in (self.directory, *self.fallbacks):
                if self.pch_path(compiler, directory / f"{key}.h").is_file():
                    return directory / f"{key}.h"
        header = self.directory / f"{key}.h"
        pch = self.pch_path(compiler, header)
        self.directory.mkdir(parents=True, exist_ok=True)
        _write_once(header, text)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{key}.", suffix=pch.suffix)
        os.close(fd)
        try:
            result = compiler.run(["-x", "c++-header", "-o", tmp, str(header)])
            if result.returncode != 0:
                return None
            os.replace(tmp, pch)
        finally:
            Path(tmp).unlink(missing_ok=True)
        return header

    @staticmethod
    def pch_path(compiler: Compiler, header: Path) -> Path:
        """Where the compiler looks for the precompiled form of ``header``."""
        return header.with_name(header.name + (".pch" if compiler.is_clang else ".gch"))


def compile_with_pch(
    store: PchStore, compiler: Compiler, source: Path, args: Sequence[str]
) -> subprocess.CompletedProcess[str]:
    """Run ``compiler`` on ``args`` (which name ``source``) with the precompiled prelude of ``source`` included.

    A rejected PCH (the compiler names the PCH file in its output) is rebuilt, and the unit compiled again
    if it failed; GCC falls back to the text header itself, so only its PCH is rebuilt.
    """
    text = prelude(source.read_text())
    header = store.header(compiler, text) if text is not None else None
    if header is None:
        return compiler.run(args)
    result = compiler.run(["-Winvalid-pch", "-include", str(header), *args])
    if PchStore.pch_path(compiler, header).name not in result.stderr:
        return result
    header = store.header(compiler, text or "", rebuild=True)
    if result.returncode == 0:
        return result
    return compiler.run(args if header is None else ["-include", str(header), *args])


def _write_once(path: Path, text: str) -> None:
    """Create ``path`` with ``text`` unless it exists; never rewritten (a PCH records its header's mtime)."""
    if path.is_file():
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w") as out:
        out.write(text)
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        os.unlink(tmp)
