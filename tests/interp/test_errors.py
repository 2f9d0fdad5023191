"""Run-time errors: clear InterpreterErrors carrying the failing statement's span."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from interp_ir import SP, assign, call, function, op_function, ret, span, tensor_t, tile_t, tup, var

from pypto import ir
from pypto.interp import InterpreterError, run
from pypto.ir import DataType as D
from pypto.ir.errors import PyptoError

V = {"target_memory": ir.MemorySpace.Vec}


def _load_store(
    load_off: tuple[int, int], store_off: tuple[int, int], out_dir: ir.ParamDirection = ir.ParamDirection.InOut
) -> ir.Function:
    t = tensor_t([8, 8])
    x, out = var("x", t), var("out", t)
    tl = tile_t([4, 4])
    a, s = var("a", tl), var("s", t)
    return function(
        "k",
        [x, (out, out_dir)],
        [t],
        assign(a, call("tile.load", [x, tup(*load_off), tup(4, 4), tup(4, 4)], V, tl), line=3),
        assign(s, call("tile.store", [a, tup(*store_off), out], None, t), line=4),
        ret(s),
    )


def test_interpreter_error_is_a_pypto_error() -> None:
    assert issubclass(InterpreterError, PyptoError)


def test_out_of_bounds_load() -> None:
    with pytest.raises(InterpreterError) as info:
        run(_load_store((6, 0), (0, 0)), np.zeros((8, 8), np.float32), np.zeros((8, 8), np.float32))
    assert str(info.value) == (
        "prog.py:3:1: tile.load: load: window at offsets [6, 0] of size [4, 4] is out of bounds of shape [8, 8]"
    )
    assert info.value.span == span(3)


def test_out_of_bounds_store() -> None:
    with pytest.raises(InterpreterError) as info:
        run(_load_store((0, 0), (0, 5)), np.zeros((8, 8), np.float32), np.zeros((8, 8), np.float32))
    assert str(info.value) == (
        "prog.py:4:1: tile.store: store: window at offsets [0, 5] of size [4, 4] is out of bounds of shape [8, 8]"
    )


def test_reading_an_unwritten_out_tensor() -> None:
    t = tensor_t([4])
    out = var("out", t)
    f = function("k", [(out, ir.ParamDirection.Out)], [], ir.EvalStmt(call("tensor.read", [out, tup(2)]), span(9)))
    with pytest.raises(InterpreterError) as info:
        run(f, np.zeros(4, np.float32))
    assert str(info.value) == (
        "prog.py:9:1: tensor.read: reads an unwritten element [2] of the read tensor "
        "(Out tensors must be written before they are read)"
    )


def test_reading_a_fresh_tensor_create_before_writing_it() -> None:
    t = tensor_t([2, 2])
    c, r = var("c", t), var("r", t)
    f = function(
        "k",
        [],
        [t],
        assign(c, call("tensor.create", [tup(2, 2)], {"dtype": D.FP32}, t)),
        assign(r, call("tensor.exp", [c], None, t), line=5),
        ret(r),
    )
    with pytest.raises(
        InterpreterError, match=r"^prog.py:5:1: tensor.exp: reads an unwritten element \[0, 0\] of operand"
    ):
        run(f)


def test_writing_then_reading_an_out_tensor_is_fine() -> None:
    result = run(
        _load_store((0, 0), (0, 0), ir.ParamDirection.Out), np.ones((8, 8), np.float32), np.zeros((8, 8), np.float32)
    )
    assert result.value[:4, :4].sum() == 16


def test_runtime_shape_mismatch_against_the_declared_type() -> None:
    t = tensor_t([4, 4])
    x = var("x", t)
    r = var("r", tensor_t([4, 4]))
    f = function(
        "k", [x], [t], assign(r, call("tensor.reshape", [x, tup(2, 8)], None, tensor_t([4, 4])), line=2), ret(r)
    )
    with pytest.raises(
        InterpreterError,
        match=r"^prog.py:2:1: tensor.reshape: produced shape \[2, 8\] "
        r"but the call's type is pl.Tensor\[\[4, 4\], pl.FP32\]$",
    ):
        run(f, np.zeros((4, 4), np.float32))


def test_operand_shapes_that_do_not_broadcast() -> None:
    f = op_function("tensor.add", [tensor_t([4, 3]), tensor_t([5])])
    with pytest.raises(InterpreterError, match=r"tensor.add: operand shapes \[4, 3\] and \[5\] do not broadcast"):
        run(f, np.zeros((4, 3), np.float32), np.zeros(5, np.float32))


def test_input_shape_mismatch() -> None:
    f = op_function("tensor.exp", [tensor_t([4, 4])])
    with pytest.raises(
        InterpreterError,
        match=r"argument 'p0' of 'f' has shape \[3, 4\] but its type is pl.Tensor\[\[4, 4\], pl.FP32\]",
    ):
        run(f, np.zeros((3, 4), np.float32))


def test_dynamic_dims_are_bound_from_inputs_and_checked() -> None:
    n = ir.Var("N", ir.ScalarType(D.INDEX), SP)
    t = ir.TensorType([n, 4], D.FP32)
    x, y = var("x", t), var("y", t)
    r = var("r", t)
    f = function("f", [x, y], [t], assign(r, call("tensor.add", [x, y], None, t)), ret(r))
    assert run(f, np.ones((3, 4), np.float32), np.ones((3, 4), np.float32)).value.shape == (3, 4)
    with pytest.raises(InterpreterError, match="argument 'y' of 'f' has shape \\[5, 4\\] but 'N' is 3"):
        run(f, np.ones((3, 4), np.float32), np.ones((5, 4), np.float32))


def test_unknown_op_has_no_semantics() -> None:
    f = op_function("tile.frobnicate", [tile_t([2, 2])])
    with pytest.raises(InterpreterError, match="op 'tile.frobnicate' has no reference semantics in the interpreter"):
        run(f, np.zeros((2, 2), np.float32))


def test_unsupported_dtype_input() -> None:
    f = op_function("tensor.exp", [tensor_t([4], D.HF8)])
    with pytest.raises(
        InterpreterError, match="input 'p0' of 'f': unsupported dtype hf8: no exact numpy/ml_dtypes equivalent"
    ):
        run(f, np.zeros(4, np.float32))


def test_integer_inputs_must_convert_exactly() -> None:
    f = op_function("tensor.neg", [tensor_t([2], D.INT8)])
    np.testing.assert_array_equal(run(f, np.array([1, -3])).value, [-1, 3])
    with pytest.raises(InterpreterError, match="input 'p0' of 'f' has values that int8 cannot hold exactly"):
        run(f, np.array([1, 300]))


@pytest.mark.parametrize("value", [np.array(["a", "b"]), "ab", np.array([1 + 2j, 0j]), [b"x", b"y"]])
def test_non_numeric_tensor_inputs(value: object) -> None:
    f = op_function("tensor.neg", [tensor_t([2])])
    with pytest.raises(InterpreterError, match="input 'p0' of 'f' must be a numeric array"):
        run(f, value)


def test_ml_dtypes_inputs_are_numeric() -> None:
    f = op_function("tensor.neg", [tensor_t([2], D.BF16)])
    np.testing.assert_array_equal(run(f, np.ones(2, ml_dtypes.bfloat16)).value.astype(np.float32), [-1, -1])


def test_wrong_number_of_inputs_and_undefined_variables() -> None:
    f = op_function("tensor.exp", [tensor_t([4])])
    with pytest.raises(InterpreterError, match=r"function 'f' takes 1 inputs \(p0\), got 0"):
        run(f)
    ghost = var("ghost", tensor_t([4]))
    r = var("r", tensor_t([4]))
    g = function("g", [], [r.type], assign(r, call("tensor.exp", [ghost]), line=6), ret(r))
    with pytest.raises(InterpreterError, match="^prog.py:6:1: variable 'ghost' is used before it is defined$"):
        run(g)


def test_entry_selection() -> None:
    a = function("a", [], [], ir.EvalStmt(ir.Call(ir.GlobalVar("b"), [], SP), SP))
    b = function("b", [], [])
    c = function("c", [], [])
    assert run(ir.Program([a, b], "p", SP)).returns == ()
    with pytest.raises(InterpreterError, match="cannot choose the entry function among a, c: pass entry="):
        run(ir.Program([a, b, c], "p", SP))
    with pytest.raises(InterpreterError, match="program has no function 'z' \\(functions: a, b, c\\)"):
        run(ir.Program([a, b, c], "p", SP), entry="z")
    with pytest.raises(InterpreterError, match="calls function 'b' but the interpreter was given a lone Function"):
        run(a)
