"""The artifact tree of ir.compile is written into a fresh folder and moved into place; a failed
compile keeps what it wrote under a ``.failed-<n>`` name; files pypto did not write are never removed."""

from __future__ import annotations

import re
import time
import textwrap
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.compile import MANIFEST, OutputDirError, artifact_folder, write_files
from pypto.ir.errors import PyptoError, VerificationError

SOURCE = textwrap.dedent(
    """
    import pypto.language as pl

    @pl.program
    class Loop:
        @pl.function
        def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            acc: pl.Scalar[pl.INDEX] = 0
            for i in pl.range(n):
                acc = acc + i
            return acc
    """
)


def broken_program() -> ir.Program:
    """SOURCE returning a variable nothing defines: the pipeline's input check fails."""
    program = pl.parse(SOURCE)
    main = program.get_function("main")
    orphan = ir.Var("ghost", ir.ScalarType(ir.INDEX))
    body = ir.SeqStmts([ir.ReturnStmt([orphan])], main.body.span)
    return ir.Program([ir.replace(main, body=body)], "Loop", program.span)


def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}



@pytest.fixture(autouse=True)
def _build_folders_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiles without an output folder write into tmp_path."""
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))


def test_a_tree_moves_into_a_new_folder_with_its_manifest(tmp_path: Path) -> None:
    out = tmp_path / "build" / "out"
    with artifact_folder(out) as folder:
        assert folder.parent == out.parent and folder.name.startswith(".out.partial-")
        write_files(folder, {"kernels/aiv/k.cpp": "int k;", "kernel_config.py": "X = 1\n"})
        assert not out.exists()
    assert tree(out) == {
        MANIFEST: "kernel_config.py\nkernels/aiv/k.cpp\n",
        "kernel_config.py": "X = 1\n",
        "kernels/aiv/k.cpp": "int k;\n",
    }
    assert sorted(p.name for p in out.parent.iterdir()) == ["out"]  # no partial folder left


def test_a_failure_keeps_what_was_written_and_says_where(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    (tmp_path / "out.failed-1").mkdir()  # an earlier failure stays as it is
    with pytest.raises(RuntimeError, match="generator broke") as info:
        with artifact_folder(out) as folder:
            write_files(folder, {"ptoas/k.pto": "module {}"})
            raise RuntimeError("generator broke")
    kept = tmp_path / "out.failed-2"
    assert tree(kept) == {"ptoas/k.pto": "module {}\n"}
    assert not out.exists()
    note = f"pypto: the compile failed; what it wrote is kept in {kept}"
    assert capsys.readouterr().err == note + "\n"
    assert info.value.__notes__ == [note]


def test_only_the_newest_failures_are_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    for n in range(1, 6):
        with pytest.raises(RuntimeError):
            with artifact_folder(out) as folder:
                write_files(folder, {"ptoas/k.pto": f"// failure {n}"})
                raise RuntimeError("generator broke")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.failed-3", "out.failed-4", "out.failed-5"]
    assert tree(tmp_path / "out.failed-5") == {"ptoas/k.pto": "// failure 5\n"}
    assert capsys.readouterr().err.count("kept in") == 5


def test_a_failed_compile_keeps_its_pass_dumps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = broken_program()
    with pytest.raises(VerificationError):
        ir.compile(broken, output_dir=tmp_path / "out")
    assert list(tree(tmp_path / "out.failed-1")) == ["passes_dump/00_frontend.py"]
    assert "kept in" in capsys.readouterr().err


def test_a_folder_with_foreign_files_is_refused_before_compiling(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(OutputDirError, match="is not empty and was not written by pypto compile"):
        ir.compile(pl.parse(SOURCE), output_dir=out)
    assert tree(out) == {"notes.txt": "mine"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_recompiling_replaces_only_the_files_of_the_earlier_tree(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with artifact_folder(out) as folder:
        write_files(folder, {"kernels/aiv/old.cpp": "old", "kernel_config.py": "A = 1"})
    (out / "kernels" / "aiv" / "notes.txt").write_text("mine")
    (out / "results.npz").write_text("mine")
    with artifact_folder(out) as folder:
        write_files(folder, {"kernels/aic/new.cpp": "new", "kernel_config.py": "A = 2"})
    assert tree(out) == {
        MANIFEST: "kernel_config.py\nkernels/aic/new.cpp\n",
        "kernel_config.py": "A = 2\n",
        "kernels/aic/new.cpp": "new\n",
        "kernels/aiv/notes.txt": "mine",
        "results.npz": "mine",
    }


def test_a_new_file_over_a_foreign_one_is_an_error_that_keeps_both(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with artifact_folder(out) as folder:
        write_files(folder, {"kernel_config.py": "A = 1"})
    (out / "orchestration").mkdir()
    (out / "orchestration" / "main.cpp").write_text("mine")
    with pytest.raises(OutputDirError, match=r"holds files pypto did not write .*: orchestration/main.cpp"):
        with artifact_folder(out) as folder:
            write_files(folder, {"kernel_config.py": "A = 2", "orchestration/main.cpp": "generated"})
    assert tree(out)["orchestration/main.cpp"] == "mine" and tree(out)["kernel_config.py"] == "A = 1\n"
    assert tree(tmp_path / "out.failed-1")["orchestration/main.cpp"] == "generated\n"


def test_an_output_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("x")
    with pytest.raises(OutputDirError, match="exists and is not a folder"):
        ir.compile(pl.parse(SOURCE), output_dir=tmp_path / "out")


def test_an_output_path_that_cannot_be_a_folder_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(OutputDirError, match=r"cannot write the artifact tree to .*/file/out: Not a directory \(hint"):
        ir.compile(pl.parse(SOURCE), output_dir=tmp_path / "file" / "out")
    with pytest.raises(OutputDirError, match="cannot write the artifact tree to .*/loop/out: Too many levels of symbolic"):
        ir.compile(pl.parse(SOURCE), output_dir=tmp_path / "loop" / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "loop"]


@pytest.mark.parametrize("path", ["/etc/passwd", "../escape.cpp", "a/../../b", "", MANIFEST])
def test_generated_paths_stay_inside_the_tree(tmp_path: Path, path: str) -> None:
    with pytest.raises(PyptoError, match="which is not inside the artifact tree"):
        write_files(tmp_path, {path: "x"})
    assert list(tmp_path.iterdir()) == []


def test_without_an_output_dir_the_tree_goes_to_a_new_build_folder(tmp_path: Path) -> None:
    compiled = ir.compile(pl.parse(SOURCE))
    assert compiled.output_dir.parent == tmp_path
    assert re.fullmatch(r"Loop_\d{8}_\d{6}", compiled.output_dir.name)
    assert (compiled.output_dir / "passes_dump" / "00_frontend.py").is_file()


def test_compiles_in_the_same_second_get_folders_of_their_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "strftime", lambda fmt: "20260101_120000")
    folders = [ir.compile(pl.parse(SOURCE), dump_passes=False).output_dir.name for _ in range(3)]
    assert folders == ["Loop_20260101_120000", "Loop_20260101_120000_1", "Loop_20260101_120000_2"]


def test_without_the_variable_the_build_folder_is_build_output_of_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYPTO_PROG_BUILD_DIR")
    monkeypatch.chdir(tmp_path)
    compiled = ir.compile(pl.parse(SOURCE), dump_passes=False)
    assert compiled.output_dir.parent == tmp_path / "build_output"


def test_a_failed_compile_without_an_output_dir_leaves_only_the_failed_tree(tmp_path: Path) -> None:
    broken = broken_program()
    with pytest.raises(VerificationError):
        ir.compile(broken)
    [kept] = tmp_path.iterdir()
    assert re.fullmatch(r"Loop_\d{8}_\d{6}\.failed-1", kept.name)
