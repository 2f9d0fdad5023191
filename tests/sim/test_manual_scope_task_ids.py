"""TaskIds made in a manual scope and waited for after it, on a2a3sim against the interpreter.

``prev = tid`` of a ``pl.at ... as tid`` carried across loop trips (it failed UseAfterDef after
outlining), and a loop's and an if's TaskId read after the manual scope (the scope is a C++ block: the
orchestration did not build)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

SOURCE = """
@pl.program
class CarryOut:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], acc: pl.InOut[pl.Tensor[[64, 64], pl.FP32]],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.manual_scope():
            prev = None
            for b in pl.range(4):
                with pl.at(level=pl.Level.CORE_GROUP, deps=[prev]) as tid:
                    t = pl.load(acc, [b * 16, 0], [16, 64])
                    u = pl.load(x, [b * 16, 0], [16, 64])
                    pl.store(pl.add(t, u), [b * 16, 0], acc)
                prev = tid
            if n > 2:
                with pl.at(level=pl.Level.CORE_GROUP, deps=[prev]) as t2:
                    t = pl.load(acc, [0, 0], [16, 64])
                    pl.store(pl.mul(t, 2.0), [0, 0], acc)
                last = t2
            else:
                last = prev
        with pl.at(level=pl.Level.CORE_GROUP, deps=[last]):
            a = pl.load(acc, [0, 0], [16, 64])
            b2 = pl.load(acc, [48, 0], [16, 64])
            pl.store(pl.add(a, b2), [0, 0], out)
        return out
"""


@pytest.mark.parametrize("n", [1, 3])
def test_task_ids_carried_in_and_out_of_a_manual_scope(n: int, tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(pl.parse(SOURCE), output_dir=tmp_path / "out", dump_passes=False)
    rng = np.random.default_rng(n)
    x, acc = rng.random((64, 64), np.float32), rng.random((64, 64), np.float32)
    want_acc, want = acc.copy(), compiled.interpret(x, n, acc.copy())
    compiled.interpret(x, n, want_acc)
    got = np.zeros((16, 64), np.float32)
    compiled.run(x, n, acc, got, cache_dir=kernel_cache)
    np.testing.assert_allclose(acc, want_acc, rtol=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-6)


VIEW_SOURCE = """
@pl.program
class ViewOut:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.manual_scope():
            v = pl.slice(x, [16, 64], [16, 0])
            with pl.at(level=pl.Level.CORE_GROUP) as first:
                a = pl.load(v, [0, 0], [16, 64])
                pl.store(pl.add(a, 1.0), [0, 0], out)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[first]):
            a = pl.load(v, [0, 0], [16, 64])
            b = pl.load(out, [0, 0], [16, 64])
            pl.store(pl.mul(a, b), [0, 0], out)
        return out
"""


def test_a_view_made_in_a_manual_scope_and_read_after_it(tmp_path: Path, kernel_cache: Path) -> None:
    # The view was declared inside the scope's C++ block and read after it: the orchestration did not build.
    compiled = ir.compile(pl.parse(VIEW_SOURCE), output_dir=tmp_path / "out", dump_passes=False)
    x = np.random.default_rng(0).random((64, 64), np.float32)
    want = compiled.interpret(x)
    got = np.zeros((16, 64), np.float32)
    compiled.run(x, got, cache_dir=kernel_cache)
    np.testing.assert_allclose(want, (x[16:32] + 1.0) * x[16:32], rtol=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-6)
