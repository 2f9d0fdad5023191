"""AllocateMemoryAddr places the cross-core rings a kernel reserves (issue 30): explicit bases as
written, ``pl.AUTO`` ones above them, the kernel's tiles above the rings; overlaps and rings that
do not fit are errors."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.analysis import walk
from pypto.passes import PassError

_SOURCE = '''
import pypto.language as pl


@pl.program
class CubeToVector:
    @pl.function(type=pl.FunctionType.AIC)
    def mm_aic(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16]):
        peer = pl.import_peer_buffer(name="ring", peer_func="mm_aiv")
        pl.aic_initialize_pipe(peer, pl.const(0, pl.INT32), dir_mask=1, slot_size=16384, slot_num=2)
        a_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        a_left: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.move(a_mat, target_memory=pl.Mem.Left)
        b_right: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.move(b_mat, target_memory=pl.Mem.Right)
        acc: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.matmul(a_left, b_right)
        pl.tpush_to_aiv(acc, split=0)

    @pl.function(type=pl.FunctionType.AIV)
    def mm_aiv(self, out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
RESERVE
        pl.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=16384, slot_num=2)
        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=0)
        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(c)
        pl.tfree_to_aic(c)
        out = pl.store(e, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def mm(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        self.mm_aic(a, b)
        out = self.mm_aiv(out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = self.mm(a, b, out)
        return out
'''


def _compile(reserve: str, tmp_path: Path) -> ir.CompiledProgram:
    source = _SOURCE.replace("RESERVE", "\n".join("        " + line for line in reserve.splitlines()))
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
                        'buf = pl.reserve_buffer(name="ring", size=32768, base=pl.AUTO)\n'
                        'low = pl.reserve_buffer(name="low", size=64, base=0)', tmp_path)
    aiv = compiled.final_program.get_function("mm_aiv")
    assert _bases(aiv) == {"low": 0, "spare": 64, "ring": 1088}
    assert _vec_offsets(aiv) == {"e": 33856}  # the aligned end of ring (1088 + 32768); the popped c has no address
    assert compiled.peak_memory()[ir.MemorySpace.Vec] == 33856 + 16384


def test_overlapping_rings_are_an_error(tmp_path: Path) -> None:
    with pytest.raises(PassError) as err:
        _compile('buf = pl.reserve_buffer(name="ring", size=32768, base=0)\n'
                 'other = pl.reserve_buffer(name="other", size=64, base=1024)', tmp_path)
    assert "reserved buffer 'other' [1024, 1088) overlaps 'ring' [0, 32768) in Vec" in str(err.value)
    assert err.value.span.begin_line > 0 and "pl.AUTO" in err.value.hint


def test_a_ring_counts_in_the_capacity_of_its_space(tmp_path: Path) -> None:
    with pytest.raises(PassError, match=r"Function 'mm_aiv': Vec buffer usage \(196608 bytes\) exceeds platform "
                                        r"limit \(188416 bytes\)") as err:
        _compile('buf = pl.reserve_buffer(name="ring", size=180224, base=pl.AUTO)', tmp_path)
    assert "the reserved pipe rings take the first 180224 bytes" in err.value.hint
