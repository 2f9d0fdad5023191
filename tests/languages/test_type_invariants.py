"""TypeChecked, AssignTypeSymmetry, TileTypeCoherence, TensorViewCanonical and ArrayNotEscaped."""

from __future__ import annotations

from pathlib import Path

from inv_helpers import INDEX, found, prog, single
from pypto.analysis import function_index
from pypto.backend import current_platform
from pypto.languages.invariants import (
    ArrayNotEscaped,
    AssignTypeSymmetry,
    TensorViewCanonical,
    TileTypeCoherence,
    TypeChecked,
)
from pypto.languages.invariants.base import Reporter
from pypto.languages.invariants.type_checks import _Compare

import pypto.language as pl
from pypto import ir, passes
from pypto.ir.parts import copy_parts

_SPAN = ir.Span.unknown()
BOOL = ir.ScalarType(ir.BOOL)


def _tensor(*shape: int) -> ir.TensorType:
    return ir.TensorType(list(shape), ir.FP32)


def test_assignment_mismatches() -> None:
    x = ir.Var("x", _tensor(16))
    f = ir.Var("f", ir.ScalarType(ir.FP32))
    stmts = [
        ir.AssignStmt(ir.Var("a", ir.ScalarType(ir.FP32)), x),
        ir.AssignStmt(ir.Var("b", ir.ScalarType(ir.INT32)), f),
        ir.AssignStmt(ir.Var("c", _tensor(4, 4)), x),
        ir.AssignStmt(ir.Var("d", _tensor(8)), x),
        ir.AssignStmt(ir.Var("e", ir.ScalarType(ir.INT32)), ir.ConstInt(1, ir.INDEX)),
        ir.ReturnStmt([x]),
    ]
    program = single("main", [x, f], ir.SeqStmts(stmts, _SPAN), [_tensor(16)])
    assert [(c, m) for c, m, _ in found(TypeChecked, program)] == [
        ("101", "assignment to 'a': expected a Scalar, got a Tensor"),
        ("102", "assignment to 'b': dtype int32 vs fp32"),
        ("103", "assignment to 'c': rank 2 vs 1"),
        ("104", "assignment to 'd': dimension 0 is 8 vs 16"),
    ]


def test_assignments_of_equal_or_dynamic_dimensions_agree() -> None:
    """Other dimension objects of equal value, or a dynamic one, are no mismatch; a later
    assignment of another dtype still is, after an if's mismatch that comes first in the body."""
    x, n = ir.Var("x", _tensor(16)), ir.Var("n", INDEX)
    same = ir.AssignStmt(ir.Var("a", _tensor(16)), x)  # its own ConstInt(16)
    dynamic = ir.AssignStmt(ir.Var("b", ir.TensorType([n], ir.FP32)), x)
    phi = ir.Var("phi", INDEX)
    bad_if = ir.IfStmt(n, ir.YieldStmt([n, n]), ir.YieldStmt([n]), [phi], _SPAN)
    other = ir.AssignStmt(ir.Var("c", ir.TensorType([16], ir.FP16)), x)
    body = ir.SeqStmts([same, dynamic, bad_if, other, ir.ReturnStmt([x])], _SPAN)
    program = single("main", [x, n], body, [_tensor(16)])
    assert [(c, m) for c, m, _ in found(TypeChecked, program)] == [
        ("108", "condition must be BOOL, got index"),
        ("105", "yield of 2 values for 1 carried values"),
        ("102", "assignment to 'c': dtype fp16 vs fp32"),
    ]
    fine = single("main", [x, n], ir.SeqStmts([same, dynamic, ir.ReturnStmt([x])], _SPAN), [_tensor(16)])
    assert found(TypeChecked, fine) == []


def test_types_sharing_a_shape_list_agree_only_in_one_dtype() -> None:
    """A pass's copy of a type keeps its shape list: that list is not compared again, the dtype is."""
    x = ir.Var("x", _tensor(16))
    same, other = copy_parts(x.type, {}), copy_parts(x.type, {"dtype": ir.FP16})
    assert same is not x.type and same.shape is x.type.shape is other.shape
    stmts = [ir.AssignStmt(ir.Var("a", same), x), ir.AssignStmt(ir.Var("b", other), x), ir.ReturnStmt([x])]
    program = single("main", [x], ir.SeqStmts(stmts, _SPAN), [_tensor(16)])
    assert [(c, m) for c, m, _ in found(TypeChecked, program)] == [("102", "assignment to 'b': dtype fp16 vs fp32")]


def test_control_flow_mismatches() -> None:
    n = ir.Var("n", INDEX)
    x = ir.Var("x", _tensor(16))
    phi = ir.Var("phi", INDEX)
    bad_if = ir.IfStmt(n, ir.YieldStmt([n, n]), ir.YieldStmt([n]), [phi], _SPAN)
    bad_cond = ir.IfStmt(x, ir.SeqStmts([], _SPAN), None, [], _SPAN)
    bad_loop = ir.ForStmt(ir.Var("i", INDEX), 0, x, 1, [], ir.SeqStmts([], _SPAN), [], _SPAN)
    vec = ir.TileType([16], ir.FP32, None, None, ir.Mem.Vec)
    mat = ir.TileType([16], ir.FP32, None, None, ir.Mem.Mat)
    t = ir.Var("t", mat)
    carry = ir.IterArg("acc", vec, t)
    rv = ir.Var("rv", vec)
    loop = ir.ForStmt(ir.Var("j", INDEX), 0, 4, 1, [carry], ir.YieldStmt([carry]), [rv], _SPAN)
    body = ir.SeqStmts([bad_if, bad_cond, bad_loop, loop, ir.ReturnStmt([n])], _SPAN)
    program = single("main", [n, x, t], body, [INDEX])
    assert [(c, m) for c, m, _ in found(TypeChecked, program)] == [
        ("108", "condition must be BOOL, got index"),
        ("105", "yield of 2 values for 1 carried values"),
        ("106", "condition must be a scalar, got a Tensor"),
        ("107", "for range bound must be an integer scalar, got pl.Tensor[[16], pl.FP32]"),
        ("111", "iter_arg 'acc' vs its init: memory space Vec vs Mat"),
    ]


def test_well_typed_program_is_accepted() -> None:
    program = prog(
        """
        @pl.program
        class A:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
                t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
                for i, (acc,) in pl.range(4, init_values=(t,)):
                    if i > 1:
                        nxt = pl.yield_(pl.add(acc, acc))
                    else:
                        nxt = pl.yield_(acc)
                    res = pl.yield_(nxt)
                r: pl.Tensor[[16, 16], pl.FP32] = pl.store(res, [0, 0], out)
                return r
        """
    )
    assert found(TypeChecked, program) == []
    assert found(AssignTypeSymmetry, program) == []


def test_assign_type_symmetry() -> None:
    x = ir.Var("x", ir.TileType([16], ir.FP32, None, None, ir.Mem.Vec))
    y = ir.Var("y", ir.TileType([16], ir.FP32))
    program = single("main", [x], ir.SeqStmts([ir.AssignStmt(y, x), ir.ReturnStmt([y])], _SPAN))
    assert found(AssignTypeSymmetry, program) == [
        (
            "ASSIGN_TYPE",
            "'y' is pl.Tile[[16], pl.FP32] but its value is pl.Tile[[16], pl.FP32, pl.Mem.Vec]",
            "y: pl.Tile[[16], pl.FP32] = x",
        ),
    ]


def test_tile_type_coherence() -> None:
    good = ir.TileType([16, 16], ir.FP32, None, None, ir.Mem.Vec)
    stored = ir.TileType.model_construct(
        shape=good.shape, dtype=ir.FP32, memref=None, tile_view=ir.TileView(), memory_space_=ir.Mem.Vec
    )
    x = ir.Var("x", good)
    t = ir.Var("t", stored)
    program = single("main", [x], ir.SeqStmts([ir.AssignStmt(t, x), ir.ReturnStmt([t])], _SPAN))
    assert [(c, m) for c, m, _ in found(TileTypeCoherence, program)] == [
        ("IMPLICIT_VIEW_STORED", "'t' stores a tile view the type implies"),
    ]
    ok = single("main", [x], ir.ReturnStmt([x]))
    assert found(TileTypeCoherence, ok) == []


def test_tensor_view_canonical() -> None:
    nz = ir.Var("nz", ir.TensorType([16, 16], ir.FP32, None, ir.TensorView([], ir.TensorLayout.NZ)))
    dn = ir.Var("dn", ir.TensorType([16, 16], ir.FP32, None, ir.TensorView([], ir.TensorLayout.DN)))
    odd = ir.Var("odd", ir.TensorType([4, 8], ir.FP32, None, ir.TensorView([1, 8], ir.TensorLayout.ND)))
    fine = ir.Var("fine", ir.TensorType([4, 8], ir.FP32, None, ir.TensorView([8, 1], ir.TensorLayout.ND)))
    dn_fine = ir.Var("dn_fine", ir.TensorType([4, 8], ir.FP32, None, ir.TensorView([1, 4], ir.TensorLayout.DN)))
    plain = ir.Var("plain", _tensor(4))
    program = single("main", [nz, dn, odd, fine, dn_fine, plain], ir.ReturnStmt([plain]))
    assert [(c, m) for c, m, _ in found(TensorViewCanonical, program)] == [
        ("NZ_TENSOR", "'nz' is an NZ tensor"),
        ("IMPLICIT_STRIDE", "'dn' has a tensor view without strides"),
        ("NON_CANONICAL_STRIDE", "'odd' strides [1, 8], expected [8, 1]"),
    ]


def test_a_tensor_view_assigned_in_a_loop_is_checked() -> None:
    """TensorViewCanonical skips a function none of whose defined variables has a tensor view: an
    NZ tensor a loop body assigns is still found."""
    plain = ir.Var("plain", _tensor(4))
    nz = ir.Var("nz", ir.TensorType([4, 8], ir.FP32, None, ir.TensorView([], ir.TensorLayout.NZ)))
    loop = ir.ForStmt(ir.Var("i", ir.ScalarType(ir.INDEX)), 0, 2, 1, [], ir.AssignStmt(nz, plain), [], _SPAN)
    program = single("main", [plain], ir.SeqStmts([loop, ir.ReturnStmt([plain])], _SPAN))
    assert [(c, m) for c, m, _ in found(TensorViewCanonical, program)] == [("NZ_TENSOR", "'nz' is an NZ tensor")]


def test_arrays_do_not_escape() -> None:
    arr = ir.ArrayType(ir.INT32, 4)
    a = ir.Var("a", arr)
    n = ir.Var("n", INDEX)
    program = single("main", [a, n], ir.ReturnStmt([n]), [ir.TupleType([INDEX, arr])])
    assert [(c, m) for c, m, _ in found(ArrayNotEscaped, program)] == [
        ("ARRAY_PARAM", "parameter 'a' is an array"),
        ("ARRAY_RETURN", "return value 0 is an array"),
    ]
    assert found(ArrayNotEscaped, single("main", [n], ir.ReturnStmt([n]), [INDEX])) == []
    # the only escape a tuple return type holding an array: the shortcut looks into tuples too
    in_tuple = single("main", [n], ir.ReturnStmt([n]), [ir.TupleType([INDEX, arr])])
    assert [(c, m) for c, m, _ in found(ArrayNotEscaped, in_tuple)] == [("ARRAY_RETURN", "return value 0 is an array")]


def test_a_type_compared_with_itself_differs_in_nothing() -> None:
    # TypeChecked settles one type object compared with itself at once; the full comparison of each
    # type of lowered kernels (tiles with views and memory spaces, tuples, dynamic dims) with an equal
    # copy of it finds no difference either.
    examples = Path(__file__).resolve().parents[2] / "examples"
    types = []
    for name in ("mixed_matmul_softmax", "tensor_dyn_rows", "loop_sum"):
        source = pl.parse((examples / f"{name}.py").read_text())
        for program in (source, passes.PassManager(passes.builtin_passes(), verify=False).run(source)):
            for func in program.functions.values():
                types += function_index(func).types
    assert any(isinstance(t, ir.TileType) and t.memory_space is not None for t in types)
    assert any(isinstance(t, ir.TupleType) for t in types)
    report, node = Reporter("TypeChecked", "f", current_platform()), ir.Var("v", INDEX)
    for t in types:
        _Compare(report).types(t, t.model_copy(), node, "x", carry=True)
    assert report.violations == []
