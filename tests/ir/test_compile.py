"""ir.compile runs the pipeline, dumps every stage into passes_dump/ and returns a CompiledProgram."""

from __future__ import annotations

import tempfile
import textwrap
from pathlib import Path

import pytest
from pypto.languages.runtime import runtime

import pypto.language as pl
from pypto import ir, passes
from pypto.backend import BackendType
import pypto.compile as compile_module
from pypto.compiled import CompiledProgram
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



@pytest.fixture(autouse=True)
def _temporary_folders_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiles without an output folder write into tmp_path, not the system's temporary folder."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def test_compile_returns_the_compiled_program() -> None:
    compiled = ir.compile(pl.parse(SOURCE))
    assert isinstance(compiled, CompiledProgram)
    pipeline = passes.PassManager.get_strategy()
    assert compiled.final_dialect == pipeline.final_dialect.name
    assert compiled.generated is pipeline.final_dialect.refines(runtime)
    loop = compiled.final_program.get_function("main").body.stmts[0]
    assert [v.name_hint for v in loop.iter_args] == ["acc__iter_v1"]
    assert compiled.program.get_function("main") is not None
    assert compiled.backend_type is BackendType.Ascend910B and compiled.platform == "a2a3sim"


def test_compile_dumps_each_stage(tmp_path: Path) -> None:
    program = pl.parse(SOURCE)
    out = tmp_path / "out"
    compiled = ir.compile(program, output_dir=out)
    assert compiled.output_dir == out.resolve()
    dumps = out / "passes_dump"
    files = sorted(p.name for p in dumps.iterdir())
    names = passes.PassManager.get_strategy().get_pass_names()
    assert files == ["00_frontend.py"] + [f"{i:02d}_after_{n}.py" for i, n in enumerate(names, 1)]
    assert "01_after_InlineFunctions.py" in files and "04_after_ConvertToSSA.py" in files
    assert (dumps / files[-1]).read_text() == compiled.final_program.as_python() + "\n"
    ir.compile(program, output_dir=tmp_path / "none", dump_passes=False)
    assert not (tmp_path / "none" / "passes_dump").exists()


def test_an_a5_compile_runs_on_a5sim_by_default() -> None:
    compiled = ir.compile(pl.parse(SOURCE), backend_type=BackendType.Ascend950)
    assert compiled.backend_type is BackendType.Ascend950 and compiled.platform == "a5sim"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"platform": "a3sim"}, "unknown platform 'a3sim' (use a2a3sim, a2a3, a5sim, a5)"),
        ({"platform": "a5sim"}, "platform 'a5sim' does not run Ascend910B programs (use 'a2a3sim')"),
        ({"strategy": "Fastest"}, "unknown strategy 'Fastest' (use Default)"),
        ({"verification_level": "basic", "verify": "none"}, "verification_level and its alias verify disagree"),
    ],
)
def test_bad_options_are_pypto_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(PyptoError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ir.compile(pl.parse(SOURCE), **kwargs)


def test_compile_checks_the_input(monkeypatch: pytest.MonkeyPatch) -> None:
    program = pl.parse(SOURCE)
    main = program.get_function("main")
    orphan = ir.Var("ghost", ir.ScalarType(ir.INDEX))
    body = ir.SeqStmts([ir.ReturnStmt([orphan])], main.body.span)
    broken = ir.Program([ir.replace(main, body=body)], "Loop", program.span)
    with pytest.raises(VerificationError, match="UseAfterDef 401 in 'main': 'ghost' is used before it is defined"):
        ir.compile(broken)
    # The code generators validate their input whatever the level: leave them out to see the pipeline's checks off.
    monkeypatch.setattr(compile_module, "code_generators", lambda skip_ptoas=False: [])
    assert ir.compile(broken, verify=False).final_program.get_function("main").body.value[0] is orphan
    assert ir.compile(broken, verification_level="none").final_program.get_function("main").body.value[0] is orphan
