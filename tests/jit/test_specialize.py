"""Specialisation (spec/runtime.md §1.3, §1.5, §1.6): the program a ``@pl.jit`` call compiles, printed
(snapshots), and what it folds."""

from __future__ import annotations

from pathlib import Path

import jit_kernels as K
import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.analysis import function_index


@pytest.fixture(autouse=True)
def build_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))
    return tmp_path


def f32(*shape: int) -> np.ndarray:
    return np.zeros(shape, np.float32)


CASES = {
    "scaled_add": (K.scaled_add, (f32(32, 64), f32(32, 64), f32(32, 64), 3.0)),
    "shift_scaled": (K.shift_scaled, (f32(64, 64), f32(64, 64), f32(64, 64))),
    "dtype_and_dims": (K.dtype_and_dims, (f32(16, 32), f32(16, 32))),
    "dyn_rows": (K.dyn_rows, (f32(48, 64), f32(48, 64))),
    "bound_rows": (K.bound_rows, (f32(48, 64), f32(48, 64))),
    "with_helpers": (K.with_helpers, (f32(32, 64), f32(32, 64), f32(32, 64))),
    "recast": (K.recast, (f32(32, 64), np.zeros((32, 64), np.float16))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_specialised_program(name: str, snapshot) -> None:
    kernel, args = CASES[name]
    assert kernel.compile(*args).program.as_python() == snapshot


def test_spans_cite_the_users_file_and_line() -> None:
    program = K.scaled_add.compile(f32(32, 64), f32(32, 64), f32(32, 64), 3.0).program
    func = program.get_function("scaled_add")
    assert Path(func.span.filename).name == "jit_kernels.py"
    first = ir.flatten_to_stmts(func.body)[0]
    assert (Path(first.span.filename).name, first.span.begin_line) == ("jit_kernels.py", 14)


def test_a_tensor_keyword_and_a_default_bind_like_python() -> None:
    by_name = K.scaled_add.compile(f32(32, 64), f32(32, 64), c=f32(32, 64), alpha=3.0)
    assert by_name is K.scaled_add.compile(f32(32, 64), f32(32, 64), f32(32, 64), 3.0)


def test_signature_mode_takes_full_annotations_and_keeps_a_runtime_scalar() -> None:
    text = K.runtime_n.compile().program.as_python()
    assert "n: pl.Scalar[pl.FP32]" in text and "pl.tile.store(pl.tile.muls(t, n), [0, 0], c)" in text
    lowered = K.runtime_n.lower()
    assert isinstance(lowered, ir.Program) and lowered.get_function("runtime_n") is not None


def test_a_bare_tensor_annotation_without_a_sample_cannot_specialise() -> None:
    with pytest.raises(TypeError, match="@pl.jit function 'typed': parameter 'c' is a bare pl.Tensor and cannot "
                       "specialize from the signature"):
        K.typed.compile()
    with pytest.raises(TypeError, match="@pl.jit function 'needs_n': scalar parameter 'n' has no value"):
        K.needs_n.compile()
    assert "pl.tile.muls(t, 2.0)" in K.needs_n.compile(n=2.0).program.as_python()


def test_a_helper_tensor_the_call_site_cannot_describe_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="@pl.jit: missing inferred tensor metadata for parameter 'c' of 'add_rows'"):
        K.orphan_call(f32(32, 64), f32(32, 64))


def test_torch_dtypes_map_to_dsl_dtypes_and_bfloat16_specialises() -> None:
    import torch as t

    text = K.recast.compile(t.zeros(32, 64, dtype=t.bfloat16), t.zeros(32, 64, dtype=t.float16)).program.as_python()
    assert "a: pl.Tensor[[32, 64], pl.BF16], c: pl.Out[pl.Tensor[[32, 64], pl.FP16]]" in text


def test_a_closure_constant_folds_and_each_closure_compiles_its_own() -> None:
    half, third = K.scaler(0.5), K.scaler(3.0)
    assert "pl.tile.muls(t, 0.5)" in half.compile(f32(32, 64), f32(32, 64)).program.as_python()
    assert "pl.tile.muls(t, 3.0)" in third.compile(f32(32, 64), f32(32, 64)).program.as_python()


def test_an_inline_helpers_out_wrapper_is_dropped_with_a_deprecation_warning() -> None:
    with pytest.warns(DeprecationWarning, match="@pl.jit.inline 'store_into': parameter 'c' drops its pl.Out/pl.InOut"):
        text = K.via_inline_out.compile(f32(32, 64), f32(32, 64)).program.as_python()
    assert "def store_into(self, t: pl.Tile[[32, 64], pl.FP32], c: pl.Tensor[[32, 64], pl.FP32])" in text


def test_a_local_made_by_create_tensor_describes_a_helpers_parameter() -> None:
    text = K.through_scratch.compile(f32(32, 64), f32(32, 64), f32(32, 64)).program.as_python()
    assert "tmp: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.create([32, 64], dtype=pl.FP32" in text
    assert "def add_rows(a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32], c: pl.Out[" in text


def test_a_ctypes_scalar_is_passed_on_unfolded() -> None:
    import ctypes

    text = K.scaled_add.compile(f32(32, 64), f32(32, 64), f32(32, 64), ctypes.c_float(3.0)).program.as_python()
    assert "alpha: pl.Scalar[pl.FP32]" in text and "pl.tile.muls(x, alpha)" in text


HELPER_SIGNATURE = (
    "def add_rows(a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32], "
    "c: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:"
)


@pytest.mark.parametrize(
    ("kernel", "args"),
    [
        (K.through_views, (f32(64, 64), f32(32, 64))),  # pl.slice and a[32:64, :]
        (K.through_reshape, (f32(64, 32), f32(32, 64))),  # pl.reshape
        (K.through_tuple, (f32(32, 64), f32(32, 64), f32(32, 64), f32(32, 64))),  # x, y = halves(a, lo, hi)
    ],
    ids=["slice_and_subscript", "reshape", "tuple_return"],
)
def test_a_helper_takes_metadata_through_views_and_tuple_returns(kernel: pl.JITFunction, args: tuple) -> None:
    program = kernel.lower(*args)
    helper = program.get_function("add_rows")
    assert ir.python_print(helper).splitlines()[1] == HELPER_SIGNATURE


def test_outputs_annotated_alike_keep_the_shapes_of_their_own_arguments() -> None:
    # Both annotations read "pl.Out[pl.Tensor]"; the parser's annotation cache, keyed by that text,
    # gave 'out' the [2, 64] of 'partial'.
    program = K.two_outputs.lower(f32(16, 64), f32(2, 64), np.zeros((1, 64), np.float32))
    main = program.get_function("two_outputs")
    assert [str(p.type) for p in main.params] == [
        "pl.Tensor[[16, 64], pl.FP32]", "pl.Tensor[[2, 64], pl.FP32]", "pl.Tensor[[1, 64], pl.FP32]"
    ]
    assert [str(t) for t in main.return_types] == ["pl.Tensor[[2, 64], pl.FP32]", "pl.Tensor[[1, 64], pl.FP32]"]


def test_a_dynamic_dim_read_in_the_body_is_the_dim_of_the_parameters() -> None:
    """``R = pl.dynamic("R")`` bound by ``bind_dynamic`` and read as a loop bound: one ``R`` (it was a
    second variable of the same name, refused as used before defined)."""
    program = K.bound_rows_tail.lower(f32(70, 64), f32(70, 64))
    main = program.get_function("bound_rows_tail")
    [loop] = function_index(main).of(ir.ForStmt)
    assert loop.stop is main.params[0].type.shape[0] is main.params[1].type.shape[0]


def test_a_submitted_helper_is_a_kernel_of_the_program() -> None:
    """``pl.submit(add_block, x, acc, row, deps=[prev])`` pulls ``add_block`` in (specialised from the
    launch's arguments) and launches ``self.add_block`` (it was 'pl.submit launches a function of the
    program, got JITFunction add_block')."""
    program = K.submitted_chain.lower(f32(64, 64), f32(64, 64))
    kernel = program.get_function("add_block")
    assert kernel.func_type is ir.FunctionType.AIV  # the InCore kernel, lowered
    assert [str(p.type) for p in kernel.params] == ["pl.Tensor[[64, 64], pl.FP32]"] * 2 + ["pl.Scalar[pl.INDEX]"]
    [submit] = function_index(program.get_function("submitted_chain")).of(ir.Submit)
    assert submit.op.name == "add_block" and len(submit.deps) == 1
