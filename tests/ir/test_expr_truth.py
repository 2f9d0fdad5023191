"""``Expr == Expr`` builds an ``Eq`` node whose truth value is the identity of its operands (DESIGN.md),
so containers and dict keys of expressions mean "the same node"; ``!=`` builds ``Ne``, its negation."""

from __future__ import annotations

from pypto import ir

S = ir.Span.unknown()
I64 = ir.ScalarType(ir.INT64)


def test_membership_is_identity() -> None:
    a, b = ir.Var("x", I64, S), ir.Var("x", I64, S)
    assert a not in [b] and a in [a] and a in [b, a]
    assert [a, b].index(b) == 1 and [a, b, a].count(a) == 2
    assert ir.ConstInt(1, ir.INDEX, S) not in [ir.ConstInt(1, ir.INDEX, S)]  # equal values, distinct nodes


def test_eq_and_ne_nodes_have_identity_truth_values() -> None:
    a, b = ir.Var("x", I64, S), ir.Var("y", I64, S)
    eq, ne = a == b, a != b
    assert isinstance(eq, ir.Eq) and isinstance(ne, ir.Ne)  # still expressions
    assert bool(eq) is False and bool(ne) is True
    assert bool(a == a) is True and bool(a != a) is False
    assert bool(a == 3) is False  # a constant is a different node


def test_operands_without_a_scalar_comparison_compare_by_identity() -> None:
    t, u = ir.Var("t", ir.TensorType([4], ir.FP32), S), ir.Var("u", ir.TensorType([4], ir.FP32), S)
    flag, other = ir.Var("b", ir.ScalarType(ir.BOOL), S), ir.Var("c", ir.ScalarType(ir.BOOL), S)
    assert t not in [u] and t in [u, t] and (t == u) is False and (t != u) is True
    assert flag not in [other] and flag in [flag]
    assert (t == "t") is False


def test_expressions_work_as_dict_keys() -> None:
    a, b = ir.Var("x", I64, S), ir.Var("x", I64, S)
    table = {a: 1, b: 2}
    assert table[a] == 1 and table[b] == 2 and len({a, b, a}) == 2
