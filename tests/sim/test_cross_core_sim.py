"""A cube->vector pipe on a2a3sim (issue 30): the AIC kernel of a Group multiplies and pushes the
FP32 product from Acc, the AIV kernel pops it into Vec, applies exp with its own flags around the
store, frees the slot and stores; the result equals the interpreter's. With an up/down split the
AIV kernel runs on both vector lanes (``dual_aiv_dispatch``), each popping and storing its half."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from shared_programs import DYNAMIC_ROWS_MIXED, cube_to_vector

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)


def _exp_with_flags(rows: int = 64, first_row: str = "0") -> str:
    """The vector kernel's exp of its ``rows`` popped rows, with its own V -> MTE3 flags around the store."""
    return f"""
e: pl.Tile[[{rows}, 64], pl.FP32, pl.Mem.Vec] = pl.exp(c)
pl.tfree_to_aic(c)
pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=3)
pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=3)
out = pl.store(e, [{first_row}, 0], out)
"""


CubeToVector = pl.parse(cube_to_vector(_exp_with_flags()))


def test_cube_to_vector_pipe_equals_the_interpreter(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    compiled = ir.compile(CubeToVector, output_dir=tmp_path / "c2v")
    vector = (tmp_path / "c2v" / "kernels" / "aiv" / "mm_aiv.cpp").read_text()
    # The user's V -> MTE3 pair is printed and is the only one before the store.
    assert vector.count("set_flag(PIPE_V, PIPE_MTE3, EVENT_ID3);") == 1
    assert "set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)" not in vector
    assert "TPOP<Pipe0, Vec_64x64_fp32, TileSplitAxis::TILE_NO_SPLIT>(pipe_0, c);" in vector
    assert compiled.peak_memory()[ir.MemorySpace.Vec] == 32768 + 16384  # the ring, then e
    rng = np.random.default_rng(3)
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = (rng.standard_normal((64, 64)) * 0.1).astype(np.float16)
    got = compiled.run(a, b, cache_dir=kernel_cache)
    record_timing("cube_to_vector", compiled.last_run)
    np.testing.assert_allclose(got, compiled.interpret(a, b), rtol=1e-5, atol=1e-5)


def _split_program() -> ir.Program:
    """Each lane pops, computes and stores its 32 rows."""
    return pl.parse(cube_to_vector(_exp_with_flags(32, "pl.tile.get_subblock_idx() * 32"), split=1, dual=True))


def test_an_up_down_split_runs_the_vector_kernel_on_both_lanes(tmp_path: Path, kernel_cache: Path,
                                                                 record_timing) -> None:
    compiled = ir.compile(_split_program(), output_dir=tmp_path / "split")
    orch = (tmp_path / "split" / "orchestration" / "main.cpp").read_text()
    assert "MixedKernels mixed_0 = {0, 1, 1};" in orch
    rng = np.random.default_rng(4)
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = (rng.standard_normal((64, 64)) * 0.1).astype(np.float16)
    got = compiled.run(a, b, cache_dir=kernel_cache)
    record_timing("cube_to_vector_split", compiled.last_run)
    np.testing.assert_allclose(got, compiled.interpret(a, b), rtol=1e-5, atol=1e-5)


def test_an_unsplit_vector_kernel_on_both_lanes_pops_every_tile_on_each(tmp_path: Path, kernel_cache: Path) -> None:
    """Declared ``dual_aiv_dispatch`` without a split, both lanes pop the whole tile; lane 0 stores it
    (SplitVectorKernel). The kernel entry tells pto-isa's CPU model there are two lanes (simpler reports
    one): without that the lanes shared one pop cursor and the result was off by up to 12.2."""
    dual = pl.parse(cube_to_vector(_exp_with_flags(), dual=True))
    compiled = ir.compile(dual, output_dir=tmp_path / "dual")
    assert "MixedKernels mixed_0 = {0, 1, 1};" in (tmp_path / "dual" / "orchestration" / "main.cpp").read_text()
    vector = (tmp_path / "dual" / "kernels" / "aiv" / "mm_aiv.cpp").read_text()
    lanes = "pto::cpu_sim::ScopedExecutionContext __pypto_lanes(get_block_idx(args), get_sub_block_id(args), 2);"
    assert lanes in vector
    rng = np.random.default_rng(5)
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = (rng.standard_normal((64, 64)) * 0.1).astype(np.float16)
    got = compiled.run(a, b, cache_dir=kernel_cache)
    np.testing.assert_allclose(got, compiled.interpret(a, b), rtol=1e-5, atol=1e-5)


@pl.program
class GroupOfMixedKernel:
    """A hand-written Group calling a mixed InCore kernel: the Group launches the kernel's AIC and AIV halves."""

    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a_mat = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b_mat = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(a_mat, target_memory=pl.Mem.Left), pl.move(b_mat, target_memory=pl.Mem.Right))
        out = pl.store(pl.exp(pl.move(acc, target_memory=pl.Mem.Vec)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def grp(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
            out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = self.mm(a, b, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = self.grp(a, b, out)
        return out


@pl.program
class ClusterOfMixedScope:
    """A pl.cluster() holding a mixed pl.at scope: the cluster's Group launches the scope's two kernels."""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.cluster():
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.matmul(a, b, out_dtype=pl.FP32)
                out = pl.assemble(out, pl.exp(c), [0, 0])
        return out


@pytest.mark.parametrize(("program", "kernel"), [(GroupOfMixedKernel, "mm"), (ClusterOfMixedScope, "main_incore_0")])
def test_a_group_calling_a_mixed_kernel_runs_as_one_mixed_task(program: ir.Program, kernel: str, tmp_path: Path,
                                                                kernel_cache: Path) -> None:
    compiled = ir.compile(program, output_dir=tmp_path / "g")
    orch = (tmp_path / "g" / "orchestration" / "main.cpp").read_text()
    assert "MixedKernels mixed_0 = {0, 1, 1};" in orch and orch.count("rt_submit_task(") == 1
    assert sorted(p.stem for p in (tmp_path / "g" / "kernels").rglob("*.cpp")) == [f"{kernel}_aic", f"{kernel}_aiv"]
    rng = np.random.default_rng(5)
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = (rng.standard_normal((64, 64)) * 0.1).astype(np.float16)
    got = compiled.run(a, b, cache_dir=kernel_cache)
    np.testing.assert_allclose(got, compiled.interpret(a, b), rtol=1e-5, atol=1e-5)


def test_a_tile_valid_on_a_runtime_row_count_crosses_the_pipe(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(DYNAMIC_ROWS_MIXED), output_dir=tmp_path / "dyn")
    rng = np.random.default_rng(6)
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = (rng.standard_normal((64, 64)) * 0.1).astype(np.float16)
    for n in (40, 64):
        want, got = np.zeros((64, 64), np.float32), np.zeros((64, 64), np.float32)
        compiled.interpret(a, b, n, want)
        compiled.run(a, b, n, got, cache_dir=kernel_cache)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        assert not want[n:].any() and want[:n].all()  # only the valid rows are stored


def test_a_cluster_of_a_mixed_spmd_runs_on_both_blocks(tmp_path: Path, kernel_cache: Path) -> None:
    """examples/cross_core_cluster.py: a pl.cluster() whose body is one pl.spmd of mixed work."""
    example = Path(__file__).resolve().parents[2] / "examples" / "cross_core_cluster.py"
    compiled = ir.compile(pl.loads_program(str(example)), output_dir=tmp_path / "cs")
    assert sorted(p.stem for p in (tmp_path / "cs" / "kernels").rglob("*.cpp")) == [
        "main_incore_0_aic", "main_incore_0_aiv"]
    rng = np.random.default_rng(7)
    a = rng.standard_normal((128, 64)).astype(np.float16)
    b = (rng.standard_normal((64, 64)) * 0.1).astype(np.float16)
    got = compiled.run(a, b, cache_dir=kernel_cache)
    np.testing.assert_allclose(got, compiled.interpret(a, b), rtol=1e-5, atol=1e-5)


@pl.program
class VectorToCubeLoop:
    """Four vector->cube tiles through a pipe of the default 8 slots, of which the cube reserves 2 on
    chip: the ring lives in GM (InjectGMPipeBuffer), so no slot lands on the cube's other tiles."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
          c: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        b_mat = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        for i, (acc_c,) in pl.range(4, init_values=(c,)):
            av = pl.load(a, [i * 64, 0], [64, 64])
            a_left = pl.move(pl.mul(av, av), target_memory=pl.Mem.Left)
            acc = pl.matmul(a_left, pl.move(b_mat, target_memory=pl.Mem.Right))
            stored = pl.store(acc, [i * 64, 0], acc_c)
            out = pl.yield_(stored)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        c = self.k(a, b, c)
        return c


def test_vector_to_cube_tiles_pass_through_the_gm_ring(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(VectorToCubeLoop, output_dir=tmp_path / "v2c")
    cube = (tmp_path / "v2c" / "kernels" / "aic" / "k_aic.cpp").read_text()
    assert "Pipe0 pipe_0((__gm__ void*)__gm_pipe_buffer, static_cast<uint32_t>(0), static_cast<uint32_t>(v2c_buf));" \
        in cube
    orch = (tmp_path / "v2c" / "orchestration" / "main.cpp").read_text()
    assert "uint32_t k_gm_pipe_buffer_0_ci_shapes[1] = {16384};" in orch  # 8 slots of 8 KiB, in FP32
    rng = np.random.default_rng(8)
    a = (rng.standard_normal((256, 64)) * 0.5).astype(np.float16)
    b = (rng.standard_normal((64, 64)) * 0.1).astype(np.float16)
    got = compiled.run(a, b, cache_dir=kernel_cache)
    np.testing.assert_allclose(got, compiled.interpret(a, b), rtol=1e-5, atol=1e-5)


@pl.program
class MixedSpmdOnRunTimeBlocks:
    """Mixed work on ``n`` blocks, a run-time count: the orchestration allocates ``n`` GM pipe rings."""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], n: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        for i in pl.spmd(n):
            c = pl.matmul(pl.slice(a, [64, 64], [i * 64, 0]), b, out_dtype=pl.FP32)
            out = pl.assemble(out, pl.exp(c), [i * 64, 0])
        return out


def test_a_mixed_spmd_on_a_run_time_number_of_blocks_has_a_ring_per_block(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(MixedSpmdOnRunTimeBlocks, output_dir=tmp_path / "dyn")
    orch = (tmp_path / "dyn" / "orchestration" / "main.cpp").read_text()
    assert "uint32_t main_incore_0_spmd_gm_pipe_buffer_0_ci_shapes[1] = {32768 * n};" in orch
    rng = np.random.default_rng(9)
    a = rng.standard_normal((128, 64)).astype(np.float16)
    b = (rng.standard_normal((64, 64)) * 0.1).astype(np.float16)
    want, got = np.zeros((128, 64), np.float32), np.zeros((128, 64), np.float32)
    compiled.interpret(a, b, 2, want)
    compiled.run(a, b, 2, got, cache_dir=kernel_cache)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
