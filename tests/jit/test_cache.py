"""The compile cache of a ``@pl.jit`` function (spec/runtime.md §1.7): one compile per key, and the
key changes with everything that changes the artifact."""

from __future__ import annotations

from pathlib import Path

import jit_kernels as K
import numpy as np
import pytest

import pypto.language as pl
from pypto.jit import JITFunction


@pytest.fixture(autouse=True)
def build_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))
    return tmp_path


def fresh(kernel: JITFunction) -> JITFunction:
    """The same function with an empty cache."""
    return JITFunction(kernel.func, kernel.func_type, kernel.level, kernel.auto_scope)


def f32(*shape: int) -> np.ndarray:
    return np.zeros(shape, np.float32)


def test_the_same_shapes_reuse_the_compiled_program() -> None:
    kernel = fresh(K.scaled_add)
    first = kernel.compile(f32(32, 64), f32(32, 64), f32(32, 64), 3.0)
    assert kernel.compile(np.ones((32, 64), np.float32), f32(32, 64), f32(32, 64), 3.0) is first
    assert kernel.cache_size() == 1


def test_shapes_dtypes_and_scalar_values_each_compile_again() -> None:
    kernel = fresh(K.scaled_add)
    h16 = np.zeros((32, 64), np.float16)
    seen = {
        id(kernel.compile(f32(32, 64), f32(32, 64), f32(32, 64), 3.0)),
        id(kernel.compile(f32(16, 64), f32(16, 64), f32(16, 64), 3.0)),
        id(kernel.compile(h16, h16, h16, 3.0)),
        id(kernel.compile(f32(32, 64), f32(32, 64), f32(32, 64), 4.0)),
    }
    assert len(seen) == 4 == kernel.cache_size()


def test_equal_scalars_of_different_types_do_not_share_a_compile() -> None:
    kernel = fresh(K.scaled_add)
    args = (f32(32, 64), f32(32, 64), f32(32, 64))
    first = kernel.compile(*args, 1.0)
    assert kernel.compile(*args, 1) is not first  # the established key lets 1 and 1.0 collide
    assert kernel.cache_size() == 2


def test_a_changed_module_constant_compiles_again(monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = fresh(K.scaled_add)
    args = (f32(32, 64), f32(32, 64), f32(32, 64), 3.0)
    before = kernel.compile(*args)
    monkeypatch.setattr(K, "SCALE", 5.0)
    after = kernel.compile(*args)
    assert after is not before and "pl.tile.muls(y, 5.0)" in after.program.as_python()


def test_a_changed_constant_of_a_helper_compiles_again(monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = fresh(K.calls_gained)
    before = kernel.compile(f32(32, 64), f32(32, 64))
    monkeypatch.setattr(K, "GAIN", 0.25)
    after = kernel.compile(f32(32, 64), f32(32, 64))
    assert after is not before and "pl.tile.muls(t, 0.25)" in after.program.as_python()


def test_dynamic_dims_compile_once_for_every_extent() -> None:
    kernel = fresh(K.dyn_rows)
    first = kernel.compile(f32(48, 64), f32(48, 64))
    assert kernel.compile(f32(96, 64), f32(96, 64)) is first
    bound = fresh(K.bound_rows)
    assert bound.compile(f32(32, 64), f32(32, 64)) is bound.compile(f32(64, 64), f32(64, 64))


def test_a_strategy_in_the_config_is_part_of_the_key() -> None:
    from pypto.passes import OptimizationStrategy
    from pypto.runtime import RunConfig

    kernel = fresh(K.scaled_add)
    args = (f32(32, 64), f32(32, 64), f32(32, 64), 3.0)
    config = RunConfig(strategy=OptimizationStrategy.Default)
    assert kernel.compile(*args, config=config) is not kernel.compile(*args)


def test_helpers_are_discovered_once_leaf_first() -> None:
    from pypto.jit.specialize import discover

    assert [h.__name__ for h in discover(K.with_helpers)] == ["double", "add_rows"]
    assert K.with_helpers.direct_helpers() == [K.add_rows]
    assert isinstance(K.double, pl.JITFunction)
