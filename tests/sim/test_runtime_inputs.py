"""pypto.runtime's checks that need no simulator: artifact trees, argument binding, the cache, the install lookup."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pypto import DataType
from pypto.runtime import (
    ArtifactError,
    Direction,
    KernelCache,
    ScalarParam,
    SimulatorArgumentError,
    SimulatorNotInstalledError,
    TensorParam,
    find_simulator,
    load_artifacts,
)
from pypto.runtime import install as install_module
from pypto.runtime.arguments import bind_arguments

CONFIG = """
RUNTIME_CONFIG = {"runtime": "tensormap_and_ringbuffer", "aicpu_thread_num": 0}
ORCHESTRATION = {"source": "orchestration/main.cpp", "function_name": "aicpu_orchestration_entry",
                 "signature": ["IN", "OUT"]}
KERNELS = [{"func_id": 0, "name": "k", "source": "kernels/aiv/k.cpp", "core_type": "aiv", "signature": ["IN", "OUT"]}]
"""


def _tree(root: Path, config: str = CONFIG) -> Path:
    (root / "orchestration").mkdir(parents=True)
    (root / "kernels" / "aiv").mkdir(parents=True)
    (root / "orchestration" / "main.cpp").write_text("// orchestration\n")
    (root / "kernels" / "aiv" / "k.cpp").write_text("// kernel\n")
    (root / "kernel_config.py").write_text(config)
    return root


def test_load_artifacts_resolves_sources_against_the_tree(tmp_path: Path) -> None:
    tree = load_artifacts(_tree(tmp_path))
    assert tree.runtime == "tensormap_and_ringbuffer"
    assert tree.orchestration.source == tmp_path / "orchestration" / "main.cpp"
    assert tree.orchestration.signature == (Direction.IN, Direction.OUT)
    (kernel,) = tree.kernels
    assert (kernel.func_id, kernel.label, kernel.core_type) == (0, "k", "aiv")
    assert kernel.source == tmp_path / "kernels" / "aiv" / "k.cpp"


def test_a_folder_without_kernel_config_is_an_artifact_error(tmp_path: Path) -> None:
    with pytest.raises(ArtifactError) as info:
        load_artifacts(tmp_path)
    assert info.value.message == f"{tmp_path / 'kernel_config.py'} does not exist"
    assert "output folder of a compile" in str(info.value)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c.replace("KERNELS = ", "_KERNELS = "), "does not define KERNELS"),
        (lambda c: c.replace('"core_type": "aiv"', '"core_type": "gpu"'), "is malformed"),
        (lambda c: c.replace('["IN", "OUT"]}', '["IN", "SIDEWAYS"]}'), "unknown direction 'SIDEWAYS'"),
        (lambda c: c.replace("k.cpp", "missing.cpp"), "missing.cpp (named in"),
        (lambda c: c.replace("ORCHESTRATION =", "1/0\nORCHESTRATION ="), "failed to load: ZeroDivisionError"),
    ],
    ids=["no-kernels", "core-type", "direction", "missing-source", "raises"],
)
def test_malformed_kernel_config_is_an_artifact_error(tmp_path: Path, edit, message: str) -> None:
    root = _tree(tmp_path, edit(CONFIG))
    with pytest.raises(ArtifactError) as info:
        load_artifacts(root)
    assert message in info.value.message


def test_scalars_become_the_words_the_orchestration_reads(tmp_path: Path) -> None:
    tree = load_artifacts(_tree(tmp_path))
    x, y = np.zeros(4, np.float32), np.zeros(4, np.float32)
    params = [
        TensorParam("x", DataType.FP32, (4,)),
        ScalarParam("alpha", DataType.FP32),
        ScalarParam("offset", DataType.INT32),
        ScalarParam("wide", DataType.INT64),
        ScalarParam("half", DataType.FP16),
        TensorParam("y", DataType.FP32, (4,)),
    ]
    bound = bind_arguments(tree, [x, 1.5, -1, 2**40, np.float16(1.0), y], params)
    assert bound.scalars == (0x3FC00000, 2**64 - 1, 2**40, 0x3C00)
    assert [(t.name, t.direction, t.simpler_dtype) for t in bound.tensors] == [
        ("x", Direction.IN, "FLOAT32"),
        ("y", Direction.OUT, "FLOAT32"),
    ]
    assert bound.tensors[0].staged is not x  # the run works on a private copy


def test_without_params_a_float_is_fp32_and_an_int_int64(tmp_path: Path) -> None:
    tree = load_artifacts(_tree(tmp_path))
    bound = bind_arguments(tree, [np.zeros(2, np.int32), 0.5, -2, np.float16(0.25), np.zeros(2, np.int32)], None)
    assert bound.scalars == (0x3F000000, 2**64 - 2, 0x3400)
    assert [t.simpler_dtype for t in bound.tensors] == ["INT32", "INT32"]
    with pytest.raises(SimulatorArgumentError) as info:
        bind_arguments(tree, [np.zeros(2, np.int32), np.float64(0.25), np.zeros(2, np.int32)], None)
    assert info.value.message == "argument 1 has dtype float64, which pypto does not support"


@pytest.mark.parametrize(
    ("value", "dtype", "message"),
    [
        (2**31, DataType.INT32, "n = 2147483648 does not fit in int32"),
        (1.5, DataType.INT32, "n is int32, got the non-integer 1.5"),
        (np.zeros(1), DataType.FP32, "n must be a scalar of fp32, got ndarray"),
    ],
)
def test_bad_scalars(tmp_path: Path, value: object, dtype: DataType, message: str) -> None:
    tree = load_artifacts(_tree(tmp_path))
    params = [TensorParam("x", DataType.FP32, (2,)), ScalarParam("n", dtype), TensorParam("y", DataType.FP32, (2,))]
    with pytest.raises(SimulatorArgumentError) as info:
        bind_arguments(tree, [np.zeros(2, np.float32), value, np.zeros(2, np.float32)], params)
    assert info.value.message == message


def test_a_read_only_output_and_a_tensor_count_mismatch_are_argument_errors(tmp_path: Path) -> None:
    tree = load_artifacts(_tree(tmp_path))
    params = [TensorParam("x", DataType.FP32, (2,)), TensorParam("y", DataType.FP32, (2,))]
    y = np.zeros(2, np.float32)
    y.flags.writeable = False
    with pytest.raises(SimulatorArgumentError) as info:
        bind_arguments(tree, [np.zeros(2, np.float32), y], params)
    assert info.value.message == "y is written by the program but the array is read-only"
    with pytest.raises(SimulatorArgumentError) as info:
        bind_arguments(tree, [np.zeros(2, np.float32)], None)
    assert info.value.message == "the orchestration takes 2 tensors (IN, OUT), got 1"


def test_kernel_cache_round_trip(tmp_path: Path) -> None:
    cache = KernelCache(tmp_path / "c")
    assert cache.get("k") is None
    cache.put("k", b"\x7fELF")
    assert cache.get("k") == b"\x7fELF"
    assert [p.name for p in (tmp_path / "c").iterdir()] == ["k.so"]


def test_a_missing_simulator_names_the_install_script(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(install_module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(SimulatorNotInstalledError) as info:
        find_simulator()
    assert info.value.message == "simpler (the PTO2 runtime with the a2a3sim platform) is not installed"
    assert "scripts/install-simulator.sh SIMPLER_DIR PTO_ISA_BUNDLE" in str(info.value)


def test_importing_pypto_runtime_does_not_import_simpler() -> None:
    code = "import sys, pypto, pypto.runtime; print(sorted(m for m in sys.modules if m.startswith('simpler')))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"
