"""ir.compile runs the implemented pipeline and can dump every stage."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from pypto.languages import ssa

import pypto.language as pl
from pypto import ir
from pypto.ir.errors import VerificationError

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


def test_compile_returns_the_ssa_program() -> None:
    result = ir.compile(pl.parse(SOURCE))
    assert ssa.check(result) == []
    loop = result.get_function("main").body.stmts[0]
    assert [v.name_hint for v in loop.iter_args] == ["acc__iter_v1"]


def test_compile_dumps_each_stage(tmp_path: Path) -> None:
    program = pl.parse(SOURCE)
    result = ir.compile(program, output_dir=tmp_path)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files[0] == "00_frontend.py" and files[-1] == f"{len(files) - 1:02d}_after_FlattenCallExpr.py"
    assert "01_after_InlineFunctions.py" in files and "04_after_ConvertToSSA.py" in files
    assert (tmp_path / files[-1]).read_text() == result.as_python() + "\n"
    assert list((tmp_path / "none").glob("*")) == []
    ir.compile(program, output_dir=tmp_path / "none", dump_passes=False)
    assert not (tmp_path / "none").exists()


def test_compile_checks_the_input() -> None:
    program = pl.parse(SOURCE)
    main = program.get_function("main")
    orphan = ir.Var("ghost", ir.ScalarType(ir.INDEX))
    body = ir.SeqStmts([ir.ReturnStmt([orphan])], main.body.span)
    broken = ir.Program([ir.replace(main, body=body)], "Loop", program.span)
    with pytest.raises(VerificationError, match="UseAfterDef 401 in 'main': 'ghost' is used before it is defined"):
        ir.compile(broken)
    assert ir.compile(broken, verify=False).get_function("main").body.value[0] is orphan
