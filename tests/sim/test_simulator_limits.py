"""What a2a3sim cannot do, handled: a process may run more distinct programs than simpler's worker
can hold registered (the least recently run one is unregistered to make room), and a kernel computing
on BF16 is refused, because pto-isa's CPU backend computes bfloat16_t as _Float16 on this toolchain."""

from __future__ import annotations

import shutil
from pathlib import Path
from unittest import mock

import ml_dtypes
import numpy as np
import pytest

import pypto.language as pl
from pypto import DataType, ir
from pypto.runtime import (
    SimulatorUnsupportedError,
    TensorParam,
    run_on_simulator,
    simulator,
    simulator_missing_reason,
)

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)


DATA = Path(__file__).resolve().parent / "data"


def _program(k: float) -> str:
    return f"""
import pypto.language as pl


@pl.program
class AddConst:
    @pl.function(type=pl.FunctionType.InCore)
    def add_k(self, a: pl.Tensor[[16, 16], pl.FP32],
              out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(a, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32] = pl.add(t, {k})
        out = pl.store(u, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        out = self.add_k(a, out)
        return out
"""


def test_the_handle_limit_is_simplers() -> None:
    from simpler.worker import MAX_REGISTERED_CALLABLE_IDS

    assert simulator.MAX_HANDLES == MAX_REGISTERED_CALLABLE_IDS


def test_more_programs_than_registered_handles_all_run(
    tmp_path: Path, kernel_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(simulator, "MAX_HANDLES", 2)
    a = np.arange(256, dtype=np.float32).reshape(16, 16)
    compiled = [ir.compile(pl.parse(_program(k)), output_dir=tmp_path / str(k), dump_passes=False)
                for k in (1.0, 2.0, 3.0)]
    for k, program in [(1.0, compiled[0]), (2.0, compiled[1]), (3.0, compiled[2]), (1.0, compiled[0])]:
        np.testing.assert_array_equal(program.run(a, cache_dir=kernel_cache), a + k)
        assert len(simulator._handles) <= 2


def test_a_bf16_kernel_is_refused_before_anything_is_built(tmp_path: Path, kernel_cache: Path) -> None:
    text = _program(1.0).replace("pl.FP32", "pl.BF16")
    program = ir.compile(pl.parse(text), output_dir=tmp_path / "bf16", dump_passes=False)
    a = np.arange(256, dtype=np.float32).reshape(16, 16).astype(ml_dtypes.bfloat16)
    out = np.zeros_like(a)
    message = "kernel add_k computes on bfloat16, which a2a3sim cannot"
    with pytest.raises(SimulatorUnsupportedError, match=message):
        program.run(a, out, cache_dir=tmp_path / "cache")
    assert not (tmp_path / "cache").exists()
    assert not out.astype(np.float32).any()


def test_pto_isa_cpu_backend_stands_in_float16_for_bfloat16(tmp_path: Path, kernel_cache: Path) -> None:
    """Why BF16 is refused: the hand-written kernel adds 1 to a bfloat16 tile; the CPU model computes in
    _Float16 and writes 0x3C00 (FP16 1.0), which read as bfloat16 is 2**-7."""
    tree = tmp_path / "bf16_add"
    shutil.copytree(DATA / "bf16_add", tree)
    a = np.zeros((16, 16), dtype=ml_dtypes.bfloat16)
    c = np.zeros_like(a)
    params = [TensorParam("a", DataType.BF16, (16, 16)), TensorParam("c", DataType.BF16, (16, 16))]
    with mock.patch("pypto.runtime.simulator.check_simulable"):
        run_on_simulator(tree, [a, c], params, cache_dir=kernel_cache)
    assert c.view(np.uint16)[0, 0] == 0x3C00
    assert float(c[0, 0]) == 2.0**-7


def test_pto_isa_cpu_backend_overlaps_fp16_sort32_blocks(tmp_path: Path, kernel_cache: Path) -> None:
    """Why FP16 sorts longer than 32 are refused: the hand-written kernel sorts one 64-element half row
    (already descending, indices 0..63). Struct 16 should hold index 16 of block 0, but the CPU model
    wrote block 1 from element 64 (the FP32 pitch), so it holds index 32; elements 192..255 stay unset."""
    tree = tmp_path / "sort32_fp16"
    shutil.copytree(DATA / "sort32_fp16", tree)
    a = np.arange(64, 0, -1).astype(np.float16).reshape(1, 64)
    i = np.arange(64, dtype=np.uint32).reshape(1, 64)
    c = np.zeros((1, 256), dtype=np.float16)
    params = [TensorParam("a", DataType.FP16, (1, 64)), TensorParam("i", DataType.UINT32, (1, 64)),
              TensorParam("c", DataType.FP16, (1, 256))]
    with mock.patch("pypto.runtime.simulator.check_simulable"):
        run_on_simulator(tree, [a, i, c], params, cache_dir=kernel_cache)
    indices = c.view(np.uint8).reshape(64, 8)[:, 4:].copy().view(np.uint32).reshape(-1)
    assert indices[:16].tolist() == list(range(16))
    assert indices[16:48].tolist() == list(range(32, 64))
    assert not c[0, 192:].any()


_SORT = """
import pypto.language as pl


@pl.program
class Sort:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2, COLS], DT], i: pl.Tensor[[2, COLS], pl.UINT32],
          o: pl.Out[pl.Tensor[[2, OUT], DT]]) -> pl.Tensor[[2, OUT], DT]:
        s = pl.tile.sort32(pl.load(a, [0, 0], [2, COLS]), pl.load(i, [0, 0], [2, COLS]))
        o = pl.store(s, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[2, COLS], DT], i: pl.Tensor[[2, COLS], pl.UINT32],
             o: pl.Out[pl.Tensor[[2, OUT], DT]]) -> pl.Tensor[[2, OUT], DT]:
        o = self.k(a, i, o)
        return o
"""


@pytest.mark.parametrize(("dtype", "cols", "refused"), [("FP16", 64, True), ("FP16", 32, False), ("FP32", 64, False)])
def test_fp16_sorts_longer_than_a_block_are_refused(
    tmp_path: Path, kernel_cache: Path, dtype: str, cols: int, refused: bool
) -> None:
    width = 4 if dtype == "FP16" else 2
    text = _SORT.replace("COLS", str(cols)).replace("OUT", str(cols * width)).replace("DT", f"pl.{dtype}")
    program = ir.compile(pl.parse(text), output_dir=tmp_path / "sort", dump_passes=False)
    rng = np.random.default_rng(7)
    nd = np.float16 if dtype == "FP16" else np.float32
    a = rng.permutation(2 * cols).astype(nd).reshape(2, cols)
    i = rng.integers(0, 1000, size=(2, cols)).astype(np.uint32)
    out = np.zeros((2, cols * width), dtype=nd)
    if refused:
        with pytest.raises(SimulatorUnsupportedError, match="kernel k sorts FP16 rows of more than 32 elements"):
            program.run(a, i, out, cache_dir=kernel_cache)
        return
    program.run(a, i, out, cache_dir=kernel_cache)
    want = np.zeros_like(out)
    program.interpret(a, i, want)
    np.testing.assert_array_equal(out.view(np.uint8), want.view(np.uint8))
