"""``pypto memmap`` and ``pypto compile --memmap``: the SVGs they write, and their errors."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pypto.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SVG = "{http://www.w3.org/2000/svg}"


def test_memmap_writes_one_svg_per_kernel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "maps"
    assert main(["memmap", str(EXAMPLES / "mixed_matmul_softmax.py"), "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["main_incore_0_aic.svg", "main_incore_0_aiv.svg"]
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        ("main_incore_0_aic (AIC): peak bytes Mat 32768 of 524288, Left 16384 of 65536, Right 16384 of 65536, "
         "Acc 16384 of 131072"),
        "main_incore_0_aiv (AIV): peak bytes Vec 65792 of 188416",
    ]
    assert lines[2].startswith(f"  wrote 2 memory map(s) into {out} in ")
    ring = ET.parse(out / "main_incore_0_aiv.svg").getroot().find(f".//{SVG}g[@class='ring']")
    assert (ring.get("data-name"), ring.get("data-address"), ring.get("data-size")) == (
        "main_incore_0_c2v_slot_buffer", "0", "32768")


def test_memmap_of_a_program_that_does_not_fit_draws_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "big_add.py"
    source.write_text((EXAMPLES / "tile_add.py").read_text().replace("128, 128", "256, 128"))
    assert main(["memmap", str(source), "-o", str(tmp_path / "maps")]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("tile_add (AIV): peak bytes Vec 262144 of 188416\n")
    assert "CapacityError: AllocateMemoryAddr: Function 'tile_add': Vec buffer usage (262144 bytes)" in captured.err
    assert captured.err.endswith("pypto: the maps show the overflow in red (in tile_add)\n")
    root = ET.parse(tmp_path / "maps" / "tile_add.svg").getroot()
    assert root.find(f".//{SVG}g[@data-name='tile_b']").get("class") == "buffer overflow"


def test_memmap_of_a_program_that_does_not_compile_draws_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bad.py"
    source.write_text((EXAMPLES / "tile_add.py").read_text().replace("pl.add(", "pl.nonexistent_op("))
    assert main(["memmap", str(source), "-o", str(tmp_path / "maps")]) == 1
    assert "nonexistent_op" in capsys.readouterr().err
    assert not (tmp_path / "maps").exists()


@pytest.mark.parametrize("output, message", [
    ("file", "the output path {out} is not a writable folder"),
    ("file/sub", "cannot make the output folder {out}: {file} is not a writable folder"),
])
def test_memmap_output_that_is_a_file_is_refused(
    output: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("")
    out = tmp_path / output
    assert main(["memmap", str(EXAMPLES / "tile_add.py"), "-o", str(out)]) == 2
    assert capsys.readouterr().err == "pypto memmap: error: " + message.format(out=out, file=tmp_path / "file") + "\n"


def test_compile_memmap_writes_into_the_artifact_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["compile", str(EXAMPLES / "row_softmax.py"), "-o", str(out), "--memmap"]) == 0
    assert "memmap/softmax.svg" in capsys.readouterr().out
    assert ET.parse(out / "memmap" / "softmax.svg").getroot().get("data-kernel") == "softmax"


def test_memmap_of_a_program_without_kernels_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memmap", str(EXAMPLES / "loop_sum.py"), "-o", str(tmp_path / "maps")]) == 0
    assert capsys.readouterr().out == f"{EXAMPLES / 'loop_sum.py'} has no AIC or AIV kernel: no memory map to draw\n"
    assert not (tmp_path / "maps").exists()
