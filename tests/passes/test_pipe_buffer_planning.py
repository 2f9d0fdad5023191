"""AllocateMemoryAddr places the cross-core rings a kernel reserves (issue 30): explicit bases as
written, ``pl.AUTO`` ones above them, the kernel's tiles above the rings; overlaps and rings that
do not fit are errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_programs import cube_to_vector

import pypto.language as pl
from pypto import ir
from pypto.analysis import walk
from pypto.passes import PassError

def _compile(reserve: str, tmp_path: Path) -> ir.CompiledProgram:
    source = cube_to_vector(reserve=reserve)
    path = tmp_path / "c2v.py"
    path.write_text(source)
    return ir.compile(pl.loads_program(str(path)), output_dir=tmp_path / "out")


def _bases(func: ir.Function) -> dict[str, int]:
    return {n.kwargs["name"]: n.kwargs["base"] for n in walk(func.body)
            if isinstance(n, ir.Call) and n.op.name == "system.reserve_buffer"}


def _vec_offsets(func: ir.Function) -> dict[str, int]:
    return {s.var.name_hint: s.var.type.memref.byte_offset.value for s in walk(func.body)
            if isinstance(s, ir.AssignStmt) and isinstance(s.var.type, ir.TileType) and s.var.type.memref is not None}


def test_auto_rings_go_above_explicit_ones_and_tiles_above_all(tmp_path: Path) -> None:
    compiled = _compile('spare = pl.reserve_buffer(name="spare", size=1000, base=pl.AUTO)\n'
                        'buf = pl.reserve_buffer(name="c2v_buf", size=32768, base=pl.AUTO)\n'
                        'low = pl.reserve_buffer(name="low", size=64, base=0)', tmp_path)
    aiv = compiled.final_program.get_function("mm_aiv")
    assert _bases(aiv) == {"low": 0, "spare": 64, "c2v_buf": 1088}
    assert _vec_offsets(aiv) == {"e": 33856}  # the aligned end of the ring (1088 + 32768); the popped c has no address
    assert compiled.peak_memory()[ir.MemorySpace.Vec] == 33856 + 16384


def test_overlapping_rings_are_an_error(tmp_path: Path) -> None:
    with pytest.raises(PassError) as err:
        _compile('buf = pl.reserve_buffer(name="c2v_buf", size=32768, base=0)\n'
                 'other = pl.reserve_buffer(name="other", size=64, base=1024)', tmp_path)
    assert "reserved buffer 'other' [1024, 1088) overlaps 'c2v_buf' [0, 32768) in Vec" in str(err.value)
    assert err.value.span.begin_line > 0 and "pl.AUTO" in err.value.hint


def test_a_ring_counts_in_the_capacity_of_its_space(tmp_path: Path) -> None:
    with pytest.raises(PassError, match=r"Function 'mm_aiv': Vec buffer usage \(196608 bytes\) exceeds platform "
                                        r"limit \(188416 bytes\)") as err:
        _compile('buf = pl.reserve_buffer(name="c2v_buf", size=180224, base=pl.AUTO)', tmp_path)
    assert "the reserved pipe rings take the first 180224 bytes" in err.value.hint
