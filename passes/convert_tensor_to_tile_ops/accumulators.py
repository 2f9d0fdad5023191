"""Which kernel values are one matmul accumulator carried through loops and ifs, for
ConvertTensorToTileOps (docs/passes.md#converttensortotileops).

Values joined by a carry (a loop's init, iter_arg, yielded value and return var; an if's return var
and its branch yields) are one buffer. A class holding the accumulator of a ``tensor.matmul_acc``
lives in Acc (L0C): a ``tensor.create`` in it becomes an Acc tile, and a ``tensor.matmul`` in it,
chosen by an if against the ``matmul_acc`` of the other branch, writes the carried buffer.
"""

from __future__ import annotations

from pypto.analysis import function_index, op_name, use_counts, walk
from pypto.ir.expr import Call, Expr, Var
from pypto.ir.function import Function
from pypto.ir.stmt import ForStmt, IfStmt, Stmt, WhileStmt, YieldStmt
from pypto.ir.transforms import flatten_to_stmts


def _yielded(body: Stmt | None) -> list[Expr]:
    last = flatten_to_stmts(body)[-1:] if body is not None else []
    return list(last[0].value) if last and isinstance(last[0], YieldStmt) else []


class Accumulators:
    """Union-find over the carry-joined variables of one kernel, and the classes that hold a
    ``tensor.matmul_acc`` accumulator."""

    def __init__(self, func: Function) -> None:
        self.parent: dict[Var, Var] = {}
        self.roots: set[Var] = set()
        if "tensor.matmul_acc" not in function_index(func).op_names:
            return  # no accumulator to find
        self.uses = use_counts(func.body)
        for s in walk(func.body):
            if isinstance(s, (ForStmt, WhileStmt)):
                for ia, y, rv in zip(s.iter_args, _yielded(s.body), s.return_vars):
                    for other in (ia.initValue, y, rv):
                        self._union(ia, other)
            elif isinstance(s, IfStmt):
                for i, rv in enumerate(s.return_vars):
                    for branch in (_yielded(s.then_body), _yielded(s.else_body)):
                        if i < len(branch):
                            self._union(rv, branch[i])
        self.roots = {self._find(c.args[0]) for c in walk(func.body)
                      if isinstance(c, Call) and op_name(c) == "tensor.matmul_acc" and isinstance(c.args[0], Var)}

    def _find(self, v: Var) -> Var:
        while self.parent.get(v, v) is not v:
            v = self.parent[v]
        return v

    def _union(self, a: Var, b: Expr) -> None:
        if isinstance(b, Var):
            ra, rb = self._find(a), self._find(b)
            if ra is not rb:
                self.parent[rb] = ra

    def holds(self, var: Var) -> bool:
        """True when ``var`` is (carried into) the accumulator of a ``tensor.matmul_acc``."""
        return self._find(var) in self.roots

    def carried_into(self, var: Var, carry: Var, other_branch: Stmt | None) -> bool:
        """True when the product ``var`` may be written straight into ``carry``'s buffer: both are one
        accumulator, and ``carry`` is read once, as the accumulator of a ``tensor.matmul_acc`` in
        ``other_branch`` (the branch of the if that does not compute ``var``)."""
        if other_branch is None or not self.holds(var) or self._find(var) is not self._find(carry):
            return False
        reads = [c for c in walk(other_branch)
                 if isinstance(c, Call) and op_name(c) == "tensor.matmul_acc" and c.args[0] is carry]
        return len(reads) == 1 and self.uses[carry] == 1
