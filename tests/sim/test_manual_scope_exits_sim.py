"""Values a manual scope makes and the code after it reads, on a2a3sim: views made in a loop and in
an if, an array, an array a loop updates and a view a loop's tasks update (the scope is a C++ block,
so they are declared in front of it). The generated orchestration builds and its results equal the
interpreter's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

T16 = pl.Tensor[[16, 16], pl.FP32]


@pl.program
class ViewsLeavingManual:
    @pl.function(type=pl.FunctionType.InCore)
    def shift(self, a: T16, k: pl.Scalar[pl.INT32], out: pl.Out[T16]) -> T16:
        t = pl.load(a, [0, 0], [16, 16])
        out = pl.store(pl.add(t, pl.cast(k, pl.FP32)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 16], pl.FP32], n: pl.Scalar[pl.INDEX], x: pl.Out[T16],
             y: pl.Out[T16]) -> tuple[T16, T16]:
        with pl.manual_scope():
            counts = pl.array.create(2, pl.INT32)
            counts = pl.array.update_element(counts, 0, 3)
            v = pl.slice(a, [16, 16], [0, 0])
            for i in pl.range(1, n):
                v = pl.slice(a, [16, 16], [i * 16, 0])
            if n > 2:
                w = pl.slice(a, [16, 16], [16, 0])
            else:
                w = pl.slice(a, [16, 16], [48, 0])
        x = self.shift(v, pl.array.get_element(counts, 0), x)
        y = self.shift(w, pl.array.get_element(counts, 1), y)
        return x, y


def test_views_and_an_array_leaving_a_manual_scope(tmp_path: Path, kernel_cache: Path, record_timing) -> None:
    compiled = ir.compile(ViewsLeavingManual, output_dir=tmp_path / "out")
    text = (tmp_path / "out" / "orchestration" / "main.cpp").read_text()
    front = text[: text.index("PTO2_SCOPE(PTO2ScopeMode::MANUAL)")]
    assert "int32_t counts__ssa_v0[2] = {0};" in front
    assert front.count("ChipTensor ") == 2  # the loop's view and the if's view
    a = np.arange(64 * 16, dtype=np.float32).reshape(64, 16)
    for n in (2, 4):
        x, y = compiled.run(a, n, cache_dir=kernel_cache)
        record_timing(f"manual scope exits n={n}", compiled.last_run)
        want_x, want_y = compiled.interpret(a, n)
        np.testing.assert_array_equal(x, want_x)
        np.testing.assert_array_equal(y, want_y)
        np.testing.assert_array_equal(x, a[(n - 1) * 16 : n * 16] + 3)
        np.testing.assert_array_equal(y, a[16:32] if n > 2 else a[48:64])


@pl.program
class ArrayCarriedInManual:
    @pl.function(type=pl.FunctionType.InCore)
    def shift(self, a: T16, k: pl.Scalar[pl.INT32], out: pl.Out[T16]) -> T16:
        t = pl.load(a, [0, 0], [16, 16])
        out = pl.store(pl.add(t, pl.cast(k, pl.FP32)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T16, x: pl.Out[T16]) -> T16:
        with pl.manual_scope():
            counts = pl.array.create(2, pl.INT32)
            for i in pl.range(2):
                counts = pl.array.update_element(counts, i, 3 + i)
        x = self.shift(a, pl.array.get_element(counts, 1), x)
        return x


def test_an_array_carried_through_a_loop_leaves_a_manual_scope(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(ArrayCarriedInManual, output_dir=tmp_path / "out")
    text = (tmp_path / "out" / "orchestration" / "main.cpp").read_text()
    assert "int32_t counts__ssa_v0[2] = {0};" in text[: text.index("PTO2_SCOPE(PTO2ScopeMode::MANUAL)")]
    a = np.arange(256, dtype=np.float32).reshape(16, 16)
    got = compiled.run(a, cache_dir=kernel_cache)
    np.testing.assert_array_equal(got, compiled.interpret(a))
    np.testing.assert_array_equal(got, a + 4)


@pl.program
class ViewUpdatedInManual:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, acc: pl.InOut[T16]) -> T16:
        acc = pl.store(pl.add(pl.load(acc, [0, 0], [16, 16]), 1.0), [0, 0], acc)
        return acc

    @pl.function(type=pl.FunctionType.InCore)
    def add(self, v: T16, b: T16, out: pl.Out[T16]) -> T16:
        out = pl.store(pl.add(pl.load(v, [0, 0], [16, 16]), pl.load(b, [0, 0], [16, 16])), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.InOut[pl.Tensor[[32, 16], pl.FP32]], b: T16, y: pl.Out[T16]) -> T16:
        with pl.manual_scope():
            v = pl.slice(a, [16, 16], [16, 0])
            v, tid = pl.submit(self.inc, v)
            for i in pl.range(2):
                v, tid = pl.submit(self.inc, v, deps=[tid])
        with pl.manual_scope():  # the tasks of a manual scope are ordered by task ids only
            y, _ = pl.submit(self.add, v, b, y, deps=[tid])
        return y


def test_a_view_made_in_a_manual_scope_and_updated_in_a_loop_leaves_it(tmp_path: Path, kernel_cache: Path) -> None:
    compiled = ir.compile(ViewUpdatedInManual, output_dir=tmp_path / "out")
    text = (tmp_path / "out" / "orchestration" / "main.cpp").read_text()
    assert "ChipTensor v__ssa_v0;" in text[: text.index("PTO2_SCOPE(PTO2ScopeMode::MANUAL)")]
    a = np.zeros((32, 16), np.float32)
    b = np.arange(256, dtype=np.float32).reshape(16, 16)
    want_a = a.copy()
    want = compiled.interpret(want_a, b)
    got = compiled.run(a, b, cache_dir=kernel_cache)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a, want_a)
    np.testing.assert_array_equal(got, b + 3)
