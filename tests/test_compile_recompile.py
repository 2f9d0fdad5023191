"""ir.compile end to end into the folder of an earlier compile: the result lists only what this
compile wrote, the earlier tree's other files are gone, and a failed compile leaves the earlier
tree as it was (its own files kept under ``.failed-<n>``)."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.compile import MANIFEST
from pypto.passes import PassError
from shared_programs import INLINE_UNROLL

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_a_recompile_lists_and_keeps_only_its_own_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    first = ir.compile(pl.loads_program(str(EXAMPLES / "matmul.py")), output_dir=out)
    second = ir.compile(pl.loads_program(str(EXAMPLES / "tile_add.py")), output_dir=out)
    stale = set(first.files) - set(second.files)
    assert stale  # the two programs have different kernels
    on_disk = files(out)
    assert not stale & on_disk
    assert set(second.files) <= on_disk
    listed = set((out / MANIFEST).read_text().splitlines())
    assert listed == on_disk - {MANIFEST}
    dumps = {f for f in on_disk if f.startswith("passes_dump/")}
    assert on_disk == set(second.files) | dumps | {MANIFEST}

    # without pass dumps the manifest is made from the files written, not from a listing of the folder
    third = ir.compile(pl.loads_program(str(EXAMPLES / "matmul.py")), output_dir=out, dump_passes=False)
    on_disk = files(out)
    assert set((out / MANIFEST).read_text().splitlines()) == on_disk - {MANIFEST} == set(third.files)
    second = ir.compile(pl.loads_program(str(EXAMPLES / "tile_add.py")), output_dir=out)
    on_disk = files(out)

    before = {f: (out / f).read_bytes() for f in on_disk}
    with pytest.raises(PassError, match="^UnrollLoops: pl.unroll needs a constant stop"):
        ir.compile(pl.parse(INLINE_UNROLL, "fails.py"), output_dir=out)
    assert {f: (out / f).read_bytes() for f in files(out)} == before
    kept = tmp_path / "out.failed-1"
    assert "passes_dump/00_frontend.py" in files(kept)
    assert capsys.readouterr().err.endswith(f"pypto: the compile failed; what it wrote is kept in {kept}\n")
