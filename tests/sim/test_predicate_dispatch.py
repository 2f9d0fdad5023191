"""Dispatch predicates on a2a3sim: the scheduler reads the gate element when the task is ready and
skips the task when the comparison is false; each output equals the interpreter's, for gates that
run a task and gates that skip it (seed: 调度谓词, the MoE "skip empty experts" example)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

# gate copies the counts into rc, which two experts read at dispatch (their producer is a dep):
# one spmd_submit with rc[0, 0] > 0, one submit with the mirrored 0 < rc[0, 1]; the spmd scope's
# predicate reads a parameter directly.
SKIP_EMPTY_EXPERTS = """
import pypto.language as pl

@pl.program
class SkipEmptyExperts:
    @pl.function(type=pl.FunctionType.InCore)
    def gate(self, counts: pl.Tensor[[1, 8], pl.INT32],
             rc: pl.Out[pl.Tensor[[1, 8], pl.INT32]]) -> pl.Tensor[[1, 8], pl.INT32]:
        t: pl.Tile[[1, 8], pl.INT32] = pl.load(counts, [0, 0], [1, 8])
        rc = pl.store(t, [0, 0], rc)
        return rc

    @pl.function(type=pl.FunctionType.InCore)
    def expert(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
               scale: pl.Scalar[pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        d: pl.Tile[[16, 64], pl.FP32] = pl.mul(t, scale)
        out = pl.store(d, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        counts: pl.Tensor[[1, 8], pl.INT32],
        out0: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
        out1: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
        out2: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        rc: pl.Tensor[[1, 8], pl.INT32] = pl.create_tensor([1, 8], dtype=pl.INT32)
        with pl.manual_scope():
            rc, g_tid = pl.submit(self.gate, counts, rc)
            out0, _ = pl.spmd_submit(self.expert, x, out0, 2.0, core_num=1, deps=[g_tid],
                                     predicate=(rc[0, 0] > 0))
            out1, _ = pl.submit(self.expert, x, out1, 3.0, deps=[g_tid], predicate=(0 < rc[0, 1]))
        with pl.spmd(2, predicate=(counts[0, 2] != 0)):
            b = pl.tile.get_block_idx()
            t: pl.Tensor[[8, 64], pl.FP32] = x[b * 8 : b * 8 + 8, :]
            u: pl.Tensor[[8, 64], pl.FP32] = pl.mul(t, 4.0)
            out2[b * 8 : b * 8 + 8, :] = u
        return out2
"""


@pytest.mark.parametrize("counts", [[3, 0, 1], [0, 2, 0]], ids=["out1-skipped", "out0-out2-skipped"])
def test_a_false_predicate_skips_its_task_and_a_true_one_runs_it(
    counts: list[int], tmp_path: Path, kernel_cache: Path
) -> None:
    compiled = ir.compile(pl.parse(SKIP_EMPTY_EXPERTS), output_dir=tmp_path / "out", dump_passes=False)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((16, 64), dtype=np.float32)
    gates = np.zeros((1, 8), np.int32)
    gates[0, :3] = counts
    initial = [np.full((16, 64), v, np.float32) for v in (7.0, 8.0, 9.0)]
    sim = [x.copy(), gates.copy(), *(o.copy() for o in initial)]
    ref = [x.copy(), gates.copy(), *(o.copy() for o in initial)]
    compiled.run(*sim, cache_dir=kernel_cache)
    compiled.interpret(*ref)
    for k, scale in enumerate((2.0, 3.0, 4.0)):
        np.testing.assert_array_equal(sim[2 + k], ref[2 + k], err_msg=f"out{k}")
        expected = x * np.float32(scale) if counts[k] else initial[k]  # a skipped task leaves it unwritten
        np.testing.assert_array_equal(sim[2 + k], expected, err_msg=f"out{k}")


GATE_IN_A_LOOP = """
import pypto.language as pl

@pl.program
class GateInALoop:
    @pl.function(type=pl.FunctionType.InCore)
    def expert(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]],
               scale: pl.Scalar[pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(out, [0, 0], [16, 64])
        u: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        d: pl.Tile[[16, 64], pl.FP32] = pl.add(t, pl.mul(u, scale))
        out = pl.store(d, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], counts: pl.Tensor[[1, 8], pl.INT32],
             out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.FP32]:
        for i in pl.range(n):
            out, _ = pl.submit(self.expert, x, out, 1.0, predicate=(counts[0, i] > 0))
        return out
"""


def test_a_gate_index_outside_its_tensor_stops_the_run(tmp_path: Path, kernel_cache: Path) -> None:
    """The scheduler would read past the tensor; the run stops before, as a kernel window out of bounds does."""
    from pypto.runtime import SimulatorBoundsError

    compiled = ir.compile(pl.parse(GATE_IN_A_LOOP), output_dir=tmp_path / "out", dump_passes=False)
    orchestration = next((tmp_path / "out").rglob("orchestration/*.cpp")).read_text()
    assert "if ((int64_t)(i) < 0 || (int64_t)(i) >= 8) {" in orchestration
    x = np.ones((16, 64), np.float32)
    counts = np.array([[1, 0, 2, 0, 1, 1, 0, 1]], np.int32)
    out = np.zeros((16, 64), np.float32)
    compiled.run(x, counts, out, 8, cache_dir=kernel_cache)
    np.testing.assert_array_equal(out, np.full((16, 64), 5.0, np.float32))
    gate = r"the dispatch predicate .*reads element 8 of axis 1 of 'counts'"
    with pytest.raises(SimulatorBoundsError, match=gate) as info:
        compiled.run(x, counts, np.zeros((16, 64), np.float32), 9, cache_dir=kernel_cache)
    assert "the gate element's index is computed at run time" in info.value.hint
    assert "stopped before submitting the task" in info.value.hint


# The gate's writer waits for a long matmul block; the predicated task has no deps= but reads the gate
# tensor as an argument, so the runtime's tensor map orders it after the (tracked) writer. Without that
# edge (the gate not an argument, a compile error now) the task ran on the previous run's gate.
GATE_ARGUMENT = """
import pypto.language as pl

@pl.program
class GateArgument:
    @pl.function(type=pl.FunctionType.InCore)
    def gate(self, scratch: pl.Tensor[[64, 64], pl.FP32], counts: pl.Tensor[[1, 8], pl.INT32],
             rc: pl.Out[pl.Tensor[[1, 8], pl.INT32]]) -> pl.Tensor[[1, 8], pl.INT32]:
        s: pl.Tile[[1, 8], pl.FP32] = pl.load(scratch, [0, 0], [1, 8])
        t: pl.Tile[[1, 8], pl.INT32] = pl.load(counts, [0, 0], [1, 8])
        rc = pl.store(t, [0, 0], rc)
        return rc

    @pl.function(type=pl.FunctionType.InCore)
    def expert(self, x: pl.Tensor[[16, 64], pl.FP32], g: pl.Tensor[[1, 8], pl.INT32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        out = pl.store(pl.mul(t, 2.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             x: pl.Tensor[[16, 64], pl.FP32], counts: pl.Tensor[[1, 8], pl.INT32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        scratch: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
        rc: pl.Tensor[[1, 8], pl.INT32] = pl.create_tensor([1, 8], dtype=pl.INT32)
        with pl.at(level=pl.Level.CORE_GROUP):
            acc: pl.Tensor[[64, 64], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
            for k in pl.range(1, 4):
                acc = pl.matmul_acc(acc, a, b)
            scratch = pl.assemble(scratch, acc, [0, 0])
        rc = self.gate(scratch, counts, rc)
        out, _ = pl.submit(self.expert, x, rc, out, predicate=(rc[0, 0] > 0))
        return out
"""


def test_a_tracked_task_reading_its_gate_tensor_waits_for_the_gate_writer(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(GATE_ARGUMENT), output_dir=tmp_path / "out", dump_passes=False)
    rng = np.random.default_rng(5)
    a, b = (rng.integers(-2, 3, (64, 64)).astype(np.float16) for _ in range(2))
    x = np.ones((16, 64), np.float32)
    for first in (3, 0, 3):  # a run that read the gate early would see the run before's
        counts = np.array([[first, 0, 0, 0, 0, 0, 0, 0]], np.int32)
        sim = [a.copy(), b.copy(), x.copy(), counts.copy(), np.full((16, 64), 5.0, np.float32)]
        ref = [a.copy(), b.copy(), x.copy(), counts.copy(), np.full((16, 64), 5.0, np.float32)]
        compiled.run(*sim, cache_dir=kernel_cache)
        compiled.interpret(*ref)
        np.testing.assert_array_equal(sim[4], ref[4], err_msg=f"counts[0, 0] = {first}")
