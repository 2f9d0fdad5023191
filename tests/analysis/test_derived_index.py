"""derive_index: the index of a rebuilt function, copied in part from the index of the one it
rebuilds, lists exactly the nodes a walk of it does."""

from __future__ import annotations

from pypto import ir
from pypto.analysis import function_index
from pypto.analysis.index import derive_index, walk

INDEX = ir.ScalarType(ir.INDEX)


def _same_nodes(func: ir.Function) -> bool:
    walked = walk(func)[1:]
    listed = function_index(func).nodes
    return len(walked) == len(listed) and all(a is b for a, b in zip(walked, listed))


def _old_and_new() -> tuple[ir.Function, ir.Function]:
    """A function with a loop (an iter_arg's init value follows the loop's fields), an if and a
    statement held twice in one block; and a rebuild keeping them with statements inserted."""
    n, x, i, s, t, u, out, c = (ir.Var(name, INDEX) for name in ("n", "x", "i", "s", "t", "u", "out", "c"))
    acc = ir.IterArg("acc", INDEX, x + 1)
    twice = ir.EvalStmt(acc + i)
    loop_body = [ir.AssignStmt(s, acc + i + n), twice, twice, ir.YieldStmt([s])]
    branch = [ir.AssignStmt(u, n * 2), ir.EvalStmt(u + 1)]
    head = [ir.AssignStmt(t, n + 1), ir.AssignStmt(c, t < n)]

    def func(extra: ir.Stmt | None) -> ir.Function:
        more = [] if extra is None else [extra]
        loop = ir.ForStmt(i, 0, n, 1, [acc], ir.SeqStmts(more + loop_body[:2] + more + loop_body[2:]), [out])
        branch_stmt = ir.IfStmt(c, ir.SeqStmts(branch[:1] + more + branch[1:]), None, [])
        body = ir.SeqStmts(head[:1] + more + head[1:] + [loop, branch_stmt] + more + [ir.ReturnStmt([out])])
        return ir.Function("f", [n, x], [INDEX], body)

    return func(None), func(ir.EvalStmt(n + 3))


def test_a_derived_index_lists_the_nodes_of_a_walk() -> None:
    old, new = _old_and_new()
    function_index(old)
    index = derive_index(new, old)
    assert function_index(new) is index
    assert _same_nodes(new)


def test_a_function_indexed_before_keeps_its_index() -> None:
    old, new = _old_and_new()
    first = function_index(new)
    assert derive_index(new, old) is first
