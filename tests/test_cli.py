"""The ``pypto`` command line: the README's main job and its error behaviour."""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(autouse=True)
def _temporary_folders_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiles without an output folder write into tmp_path, not the system's temporary folder."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_compile_example_dumps_every_stage(example: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["compile", str(EXAMPLES / example), "-o", str(out)]) == 0
    dumps = sorted(p.name for p in (out / "passes_dump").iterdir())
    assert dumps[0] == "00_frontend.py"
    assert any(n.endswith("_after_ConvertToSSA.py") for n in dumps)
    final = pl.parse((out / "passes_dump" / dumps[-1]).read_text())
    assert isinstance(final, ir.Program)
    captured = capsys.readouterr()
    assert captured.out.startswith(f"compiled {final.name} in ")
    assert f" -> {out}\n" in captured.out
    loading = r"\(loading pypto and the file took \d+\.\d\ds\)"
    assert re.fullmatch(rf"pypto: compiling {re.escape(str(EXAMPLES / example))} {loading} \.\.\.\n", captured.err)



def test_compile_summary_lists_functions_and_tasks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(EXAMPLES / "row_blocks.py"), "-o", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().out.splitlines()
    kinds = [line for line in lines if line.startswith("  functions: ")]
    assert len(kinds) == 1 and "Orchestration main" in kinds[0] and "block_add" in kinds[0]
    assert "  tasks: 1 kernel call site(s), 2 per run" in lines


def test_compile_without_output_uses_a_temporary_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(EXAMPLES / "tile_add.py")]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    out = Path(first.split(" -> ")[1])
    assert out.name.startswith("pypto-TileAdd-") and (out / "passes_dump" / "00_frontend.py").is_file()


def test_compile_for_a5(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(EXAMPLES / "matmul.py"), "-o", str(tmp_path / "out"), "--backend", "a5"]) == 0
    assert capsys.readouterr().out.startswith("compiled Matmul in ")


def test_parse_prints_the_program(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(EXAMPLES / "tile_add.py"), "--concise"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# pypto.program: TileAdd\n")
    assert "tile_c = pl.tile.add(tile_a, tile_b)" in text


def test_missing_file_is_a_diagnostic_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(tmp_path / "missing.py")]) == 1
    assert capsys.readouterr().err.strip() == f"error: input file '{tmp_path / 'missing.py'}' does not exist"


def test_dsl_error_is_rendered_with_source_and_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import pypto.language as pl\n\n"
        "@pl.program\n"
        "class P:\n"
        "    @pl.function\n"
        "    def f(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n"
        "        y = pl.tensor.ad(x, x)\n"
        "        return y\n"
    )
    assert main(["compile", str(bad), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "UndefinedVariableError: 'pl.tensor' has no attribute 'ad'" in err
    assert f"--> {bad}:7:13" in err
    assert "hint: did you mean 'pl.tensor.add'?" in err


def test_bad_arguments_exit_with_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["compile", str(EXAMPLES / "tile_add.py"), "--verify", "loud", "-o", "x"])
    assert exc.value.code == 2
    assert "invalid choice: 'loud'" in capsys.readouterr().err


def test_pass_options_reach_the_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    option = "AutoTileMatmulL0.l0ab_stages=1"
    argv = ["compile", str(EXAMPLES / "matmul_big_k.py"), "-o", str(out), "--pass-option", option]
    assert main(argv) == 0
    (dump,) = (out / "passes_dump").glob("*_after_AutoTileMatmulL0.py")
    # [128, 512] x [512, 128] FP16: slabs of all of L0A/L0B (K 256, 2 of them) instead of half (K 128, 4).
    assert "pl.range(1, 2, init_values=" in dump.read_text()
    assert main(["compile", str(EXAMPLES / "tile_add.py"), "--pass-option", "MemoryReuse.strategy=first"]) == 1
    assert capsys.readouterr().err.endswith(
        "PassError: MemoryReuse: option 'strategy' must be one of 'first_fit', 'best_fit', 'none', got 'first'\n"
    )


def test_passes_lists_each_pass_with_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["passes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("MemoryReuse")
    assert lines[at : at + 3] == [
        "MemoryReuse",
        "    strategy: one of 'first_fit', 'best_fit', 'none' = 'first_fit'",
        "AllocateMemoryAddr",
    ]
    assert lines[0] == "InlineFunctions" and "    max_trip_count: int >= 1 or None = None" in lines


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["compile", "x.py", "--pass-option", "MemoryReuse=none"],
         "argument --pass-option: invalid pass option 'MemoryReuse=none': expected PASS.OPTION=VALUE"),
        (["compile", "x.py", "--backend", "a3"], "argument --backend: invalid choice: 'a3'"),
        (["run", "x.py", "--seed", "-1"], "argument --seed: invalid seed '-1': expected a non-negative integer"),
        (["run", "x.py", "--seed", "one"], "argument --seed: invalid seed 'one': expected a non-negative integer"),
        (["run"], "the following arguments are required: file"),
        (["frobnicate"], "argument command: invalid choice: 'frobnicate'"),
    ],
)
def test_bad_run_and_compile_arguments(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_run_checks_the_inputs_file_before_compiling(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "in.npz"
    assert main(["run", str(EXAMPLES / "tile_add.py"), "--inputs", str(missing)]) == 1
    assert capsys.readouterr().err == f"error: inputs file '{missing}' does not exist\n"
    bad = tmp_path / "bad.npz"
    bad.write_text("not numpy")
    assert main(["run", str(EXAMPLES / "tile_add.py"), "--inputs", str(bad)]) == 1
    assert f"error: inputs file '{bad}' is not a .npz file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        ({"z": np.zeros(3)}, "holds z, which 'main' has no parameter for (parameters: a, b, out)"),
        ({"out": np.zeros((128, 128), np.float32)}, "gives 'out', an output of 'main'"),
    ],
)
def test_run_rejects_inputs_the_program_does_not_take(
    arrays: dict, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = tmp_path / "in.npz"
    np.savez(inputs, **arrays)
    assert main(["run", str(EXAMPLES / "tile_add.py"), "--inputs", str(inputs), "-o", str(tmp_path / "out")]) == 1
    assert f"error: {inputs} {message}" in capsys.readouterr().err


def test_run_needs_integer_scalars_from_the_inputs_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(EXAMPLES / "loop_sum.py"), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "error: 'n' is an integer scalar of 'loop_sum'; random values could index out of bounds" in err


def test_run_needs_an_array_for_each_dynamic_dimension(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Random inputs cannot size ``x: [N, 64]``: the error says to give ``x`` (whose rows fix N) in --inputs."""
    assert main(["run", str(EXAMPLES / "tensor_dyn_rows.py"), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert (
        "error: 'x' has the dynamic dimension N, which no array of --inputs gives\n"
        "  hint: give an array for a parameter with that dimension (not an output) in --inputs FILE.npz "
        "(np.savez(FILE, x=...))\n"
    ) in err


def test_run_folders_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """However recent, only the newest entries of ``runs/`` stay: an edit-run loop of failing runs is bounded."""
    from pypto import cli

    monkeypatch.setenv("PYPTO_CACHE_DIR", str(tmp_path))
    runs = tmp_path / "runs"
    for n in range(cli.KEPT_RUNS + 2):
        (runs / f"old-{n}" / "old.failed-1").mkdir(parents=True)
        os.utime(runs / f"old-{n}", (time.time() - 10 + n, time.time() - 10 + n))
    with cli._run_folder("examples/tile_add.py") as made:
        assert made.parent.parent == runs and made.parent.name.startswith("tile_add-") and made.name == "tile_add"
        kept = sorted(p.name for p in runs.iterdir() if p != made.parent)
    assert kept == [f"old-{n}" for n in range(3, cli.KEPT_RUNS + 2)]


def test_a_run_folder_in_use_is_never_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry held by a run still going on (in another process, here an outer run) stays."""
    from pypto import cli

    monkeypatch.setenv("PYPTO_CACHE_DIR", str(tmp_path))
    runs = tmp_path / "runs"
    with cli._run_folder("busy.py") as busy:
        os.utime(busy.parent, (0, 0))  # the oldest entry
        for n in range(cli.KEPT_RUNS + 2):
            with cli._run_folder(f"next-{n}.py"):
                pass
        assert busy.parent.is_dir()
    assert len(list(runs.iterdir())) == cli.KEPT_RUNS + 1  # the held one stays beside the newest


def test_a_failed_compile_of_a_run_leaves_one_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The failed tree is kept inside the run's entry, with no empty folder beside it."""
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "big_add.py"
    source.write_text((EXAMPLES / "tile_add.py").read_text().replace("128, 128", "256, 256"))
    assert main(["run", str(source)]) == 1
    [entry] = (tmp_path / "cache" / "runs").iterdir()
    assert [p.name for p in entry.iterdir()] == ["big_add.failed-1"]
    assert f"what it wrote is kept in {entry / 'big_add.failed-1'}" in capsys.readouterr().err


def test_run_reports_loading_apart_from_compiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """What ``pypto run`` does before compiling (reading --inputs, importing numpy) counts as loading."""
    from pypto import cli

    def slow_npz(path: str) -> dict[str, np.ndarray]:
        time.sleep(0.3)
        return {}

    monkeypatch.setattr(cli, "_npz", slow_npz)
    assert main(["run", str(EXAMPLES / "loop_sum.py"), "-o", str(tmp_path / "out"), "--inputs", "x.npz"]) == 1
    loaded = re.search(r"\(loading pypto and the file took (\d+\.\d\d)s\)", capsys.readouterr().err)
    assert loaded is not None and float(loaded[1]) >= 0.3
