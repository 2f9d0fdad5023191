"""A content-addressed cache of compiled shared objects, so a test run compiles each kernel once.

The key is a hash of everything that decides the bytes (source, flags, compiler identity, the
installed simpler and pto-isa); a stale entry is never looked up again, so nothing is invalidated.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .errors import SimulatorError


def default_cache_dir() -> Path:
    """``$PYPTO_CACHE_DIR`` when set, else ``~/.cache/pypto/kernels``; a :class:`SimulatorError` when that names
    a file (a mistyped variable would otherwise end a run with a bare "Not a directory")."""
    env = os.environ.get("PYPTO_CACHE_DIR")
    folder = Path(env) if env else Path.home() / ".cache" / "pypto" / "kernels"
    hint = "set PYPTO_CACHE_DIR to a folder (made when missing), or unset it to use ~/.cache/pypto/kernels"
    return _folder(folder, hint)


def _folder(folder: Path, hint: str) -> Path:
    """``folder``, checked not to be a file (which would end a run with a bare "Not a directory")."""
    if folder.exists() and not folder.is_dir():
        raise SimulatorError(f"the kernel cache {folder} is a file, not a folder", hint)
    return folder


def cache_key(inputs: dict[str, object]) -> str:
    """The hex digest of ``inputs`` (JSON-encodable) in a canonical form."""
    return hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()


class KernelCache:
    """Compiled objects stored as ``<directory>/<key>.so``; writes are atomic (rename into place)."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        """``directory`` (a :class:`SimulatorError` when it is a file), else :func:`default_cache_dir`."""
        if directory is None:
            self.directory = default_cache_dir()
        else:
            self.directory = _folder(Path(directory), "give a folder (made when missing) as the kernel cache")

    def get(self, key: str) -> bytes | None:
        """The cached bytes for ``key``, or ``None``."""
        try:
            return (self.directory / f"{key}.so").read_bytes()
        except FileNotFoundError:
            return None

    def put(self, key: str, data: bytes) -> None:
        """Store ``data`` under ``key`` (a concurrent writer of the same key writes the same bytes)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{key}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, self.directory / f"{key}.so")
