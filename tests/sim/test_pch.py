"""Precompiled preludes: hits, what builds a new PCH, and rejected PCH files rebuilt instead of failing a build."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pypto.runtime.install import simulator_missing_reason

if (_reason := simulator_missing_reason()) is not None:
    pytest.skip(_reason, allow_module_level=True)

from pypto.runtime.install import find_simulator
from pypto.runtime.pch import Compiler, PchStore, compile_with_pch, headers_digest, prelude

SOURCE = '// generated\n#include <vector>\n#include "local.h"\n\nint f() { return std::vector<int>(LOCAL).size(); }\n'


@pytest.fixture(autouse=True)
def _toolchain() -> Iterator[None]:
    with find_simulator().toolchain_path():
        yield
    headers_digest.cache_clear()


@pytest.fixture(params=["g++", "g++-15"])
def compiler(request: pytest.FixtureRequest, tmp_path: Path) -> Compiler:
    """The install's GCC (``.gch``) and its clang behind ``g++-15`` (``.pch``) on a tiny prelude."""
    include = tmp_path / "include"
    include.mkdir()
    (include / "local.h").write_text("#pragma once\n#define LOCAL 3\n")
    identity = "clang" if request.param == "g++-15" else "gcc"
    return Compiler(request.param, ("-std=c++17", "-fPIC", f"-I{include}"), identity, (str(include),), tmp_path)


def _source(tmp_path: Path) -> Path:
    path = tmp_path / "unit.cpp"
    path.write_text(SOURCE)
    return path


def test_prelude_is_the_leading_preprocessor_block() -> None:
    assert prelude(SOURCE) == '#include <vector>\n#include "local.h"\n'
    assert prelude(SOURCE.replace("// generated", "// another unit")) == prelude(SOURCE)
    assert prelude("// nothing included\nint x;\n") is None


def test_second_use_hits_the_same_pch(compiler: Compiler, tmp_path: Path) -> None:
    store = PchStore(tmp_path / "pch")
    text = prelude(SOURCE) or ""
    header = store.header(compiler, text)
    assert header is not None
    pch = PchStore.pch_path(compiler, header)
    assert pch.suffix == (".pch" if compiler.is_clang else ".gch")
    built = pch.stat().st_mtime_ns
    assert store.header(compiler, text) == header
    assert pch.stat().st_mtime_ns == built


def test_changed_flag_or_headers_give_a_new_pch(compiler: Compiler, tmp_path: Path) -> None:
    store = PchStore(tmp_path / "pch")
    text = prelude(SOURCE) or ""
    first = store.header(compiler, text)
    flagged = Compiler(
        compiler.executable, (*compiler.flags, "-DEXTRA=1"), compiler.identity, compiler.include_dirs, compiler.cwd
    )
    assert store.header(flagged, text) not in (None, first)
    local = Path(compiler.include_dirs[0]) / "local.h"
    local.write_text("#pragma once\n#define LOCAL 4\n")
    os.utime(local, ns=(1, 1))
    headers_digest.cache_clear()
    changed = store.header(compiler, text)
    assert changed not in (None, first)
    assert len(list((tmp_path / "pch").glob("*.h"))) == 3


def test_corrupt_pch_is_rebuilt_not_a_build_failure(compiler: Compiler, tmp_path: Path) -> None:
    store = PchStore(tmp_path / "pch")
    source = _source(tmp_path)
    header = store.header(compiler, prelude(SOURCE) or "")
    assert header is not None
    pch = PchStore.pch_path(compiler, header)
    pch.write_bytes(b"not a precompiled header")
    result = compile_with_pch(store, compiler, source, ["-c", "-o", str(tmp_path / "unit.o"), str(source)])
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "unit.o").stat().st_size > 0
    assert pch.read_bytes() != b"not a precompiled header"


def test_unit_with_pch_reports_its_own_errors(compiler: Compiler, tmp_path: Path) -> None:
    source = tmp_path / "bad.cpp"
    source.write_text("#include <vector>\n\nint f() { return undeclared_name; }\n")
    result = compile_with_pch(
        PchStore(tmp_path / "pch"), compiler, source, ["-c", "-o", str(tmp_path / "b.o"), str(source)]
    )
    assert result.returncode != 0
    assert "undeclared_name" in result.stderr


def test_a_pch_prebuilt_at_install_is_used_from_there(compiler: Compiler, tmp_path: Path) -> None:
    """The install's prebuilt store answers first use; a rejected one is rebuilt in the cache, never overwritten."""
    text = prelude(SOURCE) or ""
    prebuilt = PchStore(tmp_path / "prebuilt").header(compiler, text)
    assert prebuilt is not None
    store = PchStore(tmp_path / "cache", fallbacks=(tmp_path / "prebuilt",))
    assert store.header(compiler, text) == prebuilt
    assert not (tmp_path / "cache").exists()
    rebuilt = store.header(compiler, text, rebuild=True)
    assert rebuilt == tmp_path / "cache" / prebuilt.name and PchStore.pch_path(compiler, rebuilt).is_file()


def test_a_first_run_with_an_empty_kernel_cache_builds_only_its_own_units(tmp_path: Path) -> None:
    """After the install's prebuild, the precompiled headers and the runtime's orchestration objects come from
    the install: an empty kernel cache receives the program's two units and nothing else."""
    from pypto import ir
    from pypto.language import parse
    from pypto.runtime.artifacts import load_artifacts
    from pypto.runtime.build import build_artifacts
    from pypto.runtime.cache import KernelCache
    from pypto.runtime.prebuild import prebuild

    prebuild()
    example = Path(__file__).resolve().parents[2] / "examples" / "tile_add.py"
    compiled = ir.compile(parse(example.read_text()), output_dir=tmp_path / "tile_add")
    built = build_artifacts(load_artifacts(compiled.output_dir), find_simulator(), KernelCache(tmp_path / "cache"))
    assert [r.cached for r in built.records] == [False, False]
    entries = sorted((tmp_path / "cache").iterdir())
    assert [p.suffix for p in entries] == [".so", ".so"]  # the kernel and the orchestration: no pch/, no runtime objects
