"""pypto.analysis.gm_alias: which tensor's buffer a kernel's tensor variables name."""

from __future__ import annotations

from pypto import ir
from pypto.analysis.gm_alias import GmAliases, written_tensor

T = ir.TensorType([16, 16], ir.DataType.FP32)
INDEX = ir.ScalarType(ir.INDEX)


def _assemble(target: ir.Var, source: ir.Var) -> ir.Call:
    offsets = ir.MakeTuple([ir.ConstInt(0, ir.INDEX), ir.ConstInt(0, ir.INDEX)], ir.Span.unknown())
    return ir.create_op_call("tensor.assemble", [target, source, offsets], {}, ir.Span.unknown())


def test_a_written_tensor_result_names_the_tensor_it_writes() -> None:
    out, src, r1, r2 = (ir.Var(n, T) for n in ("out", "src", "r1", "r2"))
    aliases = GmAliases()
    aliases.assign(ir.AssignStmt(r1, _assemble(out, src)))
    aliases.assign(ir.AssignStmt(r2, _assemble(r1, src)))
    assert aliases.root(r2) is out and aliases.root(r1) is out and aliases.root(src) is src
    assert written_tensor(_assemble(out, src)) is out
    add = ir.create_op_call("tensor.add", [out, src], {}, ir.Span.unknown())
    assert written_tensor(add) is None  # reads only: a new tensor


def test_tensor_loop_carries_name_their_init_and_cycles_are_ignored() -> None:
    out, src, r = (ir.Var(n, T) for n in ("out", "src", "r"))
    i, n = ir.Var("i", INDEX), ir.Var("n", INDEX)
    acc = ir.IterArg("acc", T, out)
    acc2 = ir.Var("acc2", T)
    body = ir.SeqStmts([ir.AssignStmt(acc2, _assemble(acc, src)), ir.YieldStmt([acc2])])
    loop = ir.ForStmt(i, 0, n, 1, [acc], body, [r])
    aliases = GmAliases()
    aliases.loop(loop)
    aliases.assign(body.stmts[0])
    assert aliases.root(acc2) is out and aliases.root(r) is out
    aliases.add(out, r)  # would close out -> r -> out
    assert aliases.root(out) is out
