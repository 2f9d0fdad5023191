"""Counterexamples the differential tests found, shrunk, each kept with the behaviour it now has."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir.errors import VerificationError

# A mutant dropped `type=pl.FunctionType.InCore` from a kernel: its tile ops sat in an Opaque function
# that no pass lowers, and InitMemRef's output failed the memref checks (tiles without MemRefs).
OPAQUE_TILE_OPS = """
import pypto.language as pl


@pl.program
class P:
    @pl.function
    def k0(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        out = self.k0(x, out)
        return out
"""


def test_tile_ops_in_an_opaque_function_are_refused_when_outlining(tmp_path: Path) -> None:
    with pytest.raises(VerificationError) as err:
        ir.compile(pl.parse(OPAQUE_TILE_OPS), output_dir=tmp_path / "out", dump_passes=False)
    lines = str(err.value).splitlines()
    assert lines[0] == "program 'P' is not in dialect 'ssa' (after pass OutlineIncoreScopes): 2 violations"
    assert lines[1] == (
        "[ssa] SplitIncoreOrch TILE_OP_IN_OPAQUE in 'k0': tile op tile.load in Opaque function 'k0' (tile ops run"
        " in kernels: declare it @pl.function(type=pl.FunctionType.InCore) or put them in a"
        " pl.at(level=pl.Level.CORE_GROUP) scope)"
    )
    assert lines[3] == "    at <string>:9:41"
