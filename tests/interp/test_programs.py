"""Whole programs built with the typed ``ir.op`` builders, checked against numpy written here."""

from __future__ import annotations

import numpy as np
from interp_ir import SP, var

from pypto import ir
from pypto.interp import run
from pypto.interp.testing import assert_pass_preserves
from pypto.ir import DataType as D
from pypto.ir.op import tensor as TS
from pypto.ir.op import tile as T

RNG = np.random.default_rng(3)
S = ir.MemorySpace


class Block:
    """Collects ``name = call`` statements, naming each result after the call's deduced type."""

    def __init__(self) -> None:
        self.stmts: list[ir.Stmt] = []

    def let(self, name: str, value: ir.Expr) -> ir.Var:
        v = ir.Var(name, value.type, SP)
        self.stmts.append(ir.AssignStmt(v, value, SP))
        return v

    def seq(self, *tail: ir.Stmt) -> ir.SeqStmts:
        return ir.SeqStmts([*self.stmts, *tail], SP)


def softmax_rows(rows: int, cols: int, block: int) -> ir.Function:
    """Row softmax of a ``rows x cols`` tensor, ``block`` rows per loop iteration."""
    tt = ir.TensorType([rows, cols], D.FP32)
    x, out = var("x", tt), var("out", tt)
    i = var("i", ir.ScalarType(D.INDEX))
    b = Block()
    row = i * block
    t = b.let("t", T.load(x, [row, 0], [block, cols]))
    m = b.let("m", T.row_max(t, t))
    e = b.let("e", T.exp(b.let("s", T.row_expand_sub(t, m))))
    z = b.let("z", T.row_sum(e, e))
    y = b.let("y", T.row_expand_div(e, z))
    b.stmts.append(ir.AssignStmt(out, T.store(y, [row, 0], out), SP))
    loop = ir.ForStmt(i, 0, rows // block, 1, [], b.seq(), [], SP)
    body = ir.SeqStmts([loop, ir.ReturnStmt([out], SP)], SP)
    return ir.Function("softmax", [x, (out, ir.ParamDirection.Out)], [tt], body, SP, type=ir.FunctionType.InCore)


def test_row_softmax_over_a_loop_of_tiles() -> None:
    x = RNG.normal(size=(32, 64)).astype(np.float32)
    got = run(softmax_rows(32, 64, 8), x, np.zeros_like(x)).value
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def k_loop_matmul(m: int, k: int, n: int, kt: int) -> ir.Function:
    """``out = a @ b`` accumulating ``kt``-wide K slabs through a loop-carried Acc tile."""
    a, b_, out = (
        var("a", ir.TensorType([m, k], D.FP16)),
        var("b", ir.TensorType([k, n], D.FP16)),
        var("out", ir.TensorType([m, n], D.FP32)),
    )
    pre = Block()
    a0 = pre.let("a0", T.move(pre.let("a0_mat", T.load(a, [0, 0], [m, kt], target_memory=S.Mat)), S.Left))
    b0 = pre.let("b0", T.move(pre.let("b0_mat", T.load(b_, [0, 0], [kt, n], target_memory=S.Mat)), S.Right))
    c0 = pre.let("c0", T.matmul(a0, b0))
    kk = var("kk", ir.ScalarType(D.INDEX))
    acc = ir.IterArg("acc", c0.type, c0, SP)
    body = Block()
    ak = body.let("ak", T.move(body.let("ak_mat", T.load(a, [0, kk * kt], [m, kt], target_memory=S.Mat)), S.Left))
    bk = body.let("bk", T.move(body.let("bk_mat", T.load(b_, [kk * kt, 0], [kt, n], target_memory=S.Mat)), S.Right))
    nxt = body.let("acc_next", T.matmul_acc(acc, ak, bk))
    c = var("c", c0.type)
    loop = ir.ForStmt(kk, 1, k // kt, 1, [acc], body.seq(ir.YieldStmt([nxt], SP)), [c], SP)
    post = Block()
    r = post.let("r", T.store(c, [0, 0], out))
    stmts = ir.SeqStmts([*pre.stmts, loop, *post.stmts, ir.ReturnStmt([r], SP)], SP)
    return ir.Function("mm", [a, b_, (out, ir.ParamDirection.Out)], [out.type], stmts, SP, type=ir.FunctionType.InCore)


def test_k_loop_matmul_with_a_loop_carried_accumulator() -> None:
    a = RNG.normal(size=(32, 64)).astype(np.float16)
    b = RNG.normal(size=(64, 16)).astype(np.float16)
    got = run(k_loop_matmul(32, 64, 16, 16), a, b, np.zeros((32, 16), np.float32)).value
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)


def tensor_mlp() -> ir.Function:
    """``y = exp(x @ w + 1)`` with tensor ops, the result assembled into rows 8..16 of ``out``."""
    x, w = var("x", ir.TensorType([8, 16], D.FP32)), var("w", ir.TensorType([16, 4], D.FP32))
    out = var("out", ir.TensorType([16, 4], D.FP32))
    b = Block()
    h = b.let("h", TS.adds(b.let("xw", TS.matmul(x, w)), 1.0))
    y = b.let("y", TS.exp(h))
    r = b.let("r", TS.assemble(out, y, [8, 0]))
    return ir.Function("mlp", [x, w, (out, ir.ParamDirection.InOut)], [out.type], b.seq(ir.ReturnStmt([r], SP)), SP)


def test_tensor_level_program() -> None:
    x = RNG.normal(size=(8, 16)).astype(np.float32) / 4
    w = RNG.normal(size=(16, 4)).astype(np.float32) / 4
    out = np.full((16, 4), 7.0, np.float32)
    result = run(tensor_mlp(), x, w, out)
    expected = out.copy()
    expected[8:] = np.exp(x.astype(np.float64) @ w + 1)
    np.testing.assert_allclose(result.value, expected, rtol=1e-5)
    np.testing.assert_allclose(result.outputs["out"], expected, rtol=1e-5)


def test_a_hand_written_loop_split_preserves_softmax() -> None:
    """A toy "pass" that retiles the softmax loop keeps its meaning."""
    x = RNG.normal(size=(32, 64)).astype(np.float32)
    assert_pass_preserves(lambda p: softmax_rows(32, 64, 4), softmax_rows(32, 64, 8), [x, np.zeros_like(x)])
