"""``@pl.jit`` kernels run on a2a3sim, called with torch tensors and numpy arrays, against torch
(simulator tier; the kernels compile once per session into one kernel cache)."""

from __future__ import annotations

import time
from pathlib import Path

import jit_kernels as K
import numpy as np
import pytest
import torch

from pypto.runtime import RunConfig, simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)


@pytest.fixture(autouse=True)
def dirs(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "jit-kernel-cache"))


def test_torch_tensors_and_a_folded_scalar_then_a_cached_call() -> None:
    gen = torch.Generator().manual_seed(3)
    a, b = torch.rand(32, 64, generator=gen), torch.rand(32, 64, generator=gen)
    c = torch.zeros(32, 64)
    assert K.scaled_add(a, b, c, 3.0) is None
    torch.testing.assert_close(c, a * 3.0 + b * K.SCALE)
    compiles = K.scaled_add.cache_size()
    c.zero_()
    start = time.perf_counter()
    K.scaled_add(a, b, c, 3.0)
    cached = time.perf_counter() - start
    assert K.scaled_add.cache_size() == compiles
    torch.testing.assert_close(c, a * 3.0 + b * K.SCALE)
    assert cached < 30  # the run alone: no specialisation, compile or kernel build


def test_a_bare_store_feeds_the_next_scope() -> None:
    x = torch.rand(64, 64)
    tmp, y = torch.zeros(64, 64), torch.zeros(64, 64)
    K.shift_scaled(x, tmp, y, config=RunConfig(aicpu_thread_num=2))
    torch.testing.assert_close(tmp, x * 3.0)
    torch.testing.assert_close(y, x * 3.0 + 1.0)


def test_one_compile_runs_every_extent_of_a_dynamic_dim() -> None:
    for rows in (32, 80):
        a = np.random.default_rng(rows).random((rows, 64), dtype=np.float32)
        c = np.zeros_like(a)
        K.dyn_rows(a, c)
        np.testing.assert_allclose(c, np.exp(a), rtol=1e-5)
    assert K.dyn_rows.cache_size() == 1


def test_incore_and_inline_helpers_compile_into_the_callers_program() -> None:
    a, b, c = torch.rand(32, 64), torch.rand(32, 64), torch.zeros(32, 64)
    K.with_helpers(a, b, c)
    torch.testing.assert_close(c, (a + b) * 2)


def test_helpers_specialised_through_a_slice_and_a_tuple_return() -> None:
    a, c = torch.rand(64, 64), torch.zeros(32, 64)
    K.through_views(a, c)
    torch.testing.assert_close(c, (a[:32] + a[32:]) * 2)
    x = torch.rand(32, 64)
    lo, hi, d = torch.zeros(32, 64), torch.zeros(32, 64), torch.zeros(32, 64)
    K.through_tuple(x, lo, hi, d)
    torch.testing.assert_close((lo, hi), (x, x * 2))
    torch.testing.assert_close(d, (x + x * 2) * 2)


def test_a_name_a_loop_writes_first_is_a_fresh_local_of_a_new_shape() -> None:
    a, b, c = torch.rand(32, 64), torch.zeros(32, 64), torch.zeros(32, 64)
    K.loop_scratch(a, b, c)
    torch.testing.assert_close((b, c), (a + a, a * 3.0))
