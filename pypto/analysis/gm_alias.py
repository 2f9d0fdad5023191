"""GM aliases in a kernel: which tensor's buffer each tensor variable names.

An op that writes a tensor argument returns that tensor (``s = tile.store(t, offsets, out)``,
``a = tensor.assemble(out, src, offsets)``: the result names ``out``'s buffer); a loop's tensor
iter_arg and return var name their init's buffer. :meth:`GmAliases.root` follows these edges to the
variable owning the buffer (a parameter, or a tensor the kernel made). Pipe synchronisation
compares GM accesses by root; tensor-to-tile conversion finds the parameter a store writes.
"""

from __future__ import annotations

from pypto.ir.expr import Call, Var
from pypto.ir.op_registry import Effect, lookup
from pypto.ir.stmt import AssignStmt, ForStmt, WhileStmt
from pypto.ir.types import TensorType


def written_tensor(call: Call) -> Var | None:
    """The first tensor variable ``call`` writes (an argument of a WRITE or READ_WRITE parameter)."""
    entry = lookup(call.op.name)
    if entry is None:
        return None
    for param, arg in zip(entry.params, call.args):
        if param.effect is not Effect.READ and isinstance(arg, Var) and isinstance(arg.type, TensorType):
            return arg
    return None


class GmAliases:
    """Alias edges between tensor variables, added statement by statement in program order."""

    def __init__(self) -> None:
        self._edges: dict[Var, Var] = {}

    def root(self, var: Var) -> Var:
        """The variable owning ``var``'s buffer (``var`` itself when it aliases nothing)."""
        while var in self._edges:
            var = self._edges[var]
        return var

    def add(self, var: Var, tensor: Var) -> None:
        """``var`` names ``tensor``'s buffer (ignored when that would close a cycle)."""
        if self.root(tensor) is not var:
            self._edges[var] = tensor

    def assign(self, stmt: AssignStmt) -> None:
        """The alias of an assignment whose value writes a tensor (its result names that tensor)."""
        if isinstance(stmt.var.type, TensorType) and isinstance(stmt.value, Call):
            written = written_tensor(stmt.value)
            if written is not None:
                self.add(stmt.var, written)

    def loop(self, stmt: ForStmt | WhileStmt) -> None:
        """The aliases of a loop: each tensor iter_arg and its return var name the init's buffer."""
        for it, rv in zip(stmt.iter_args, stmt.return_vars):
            if isinstance(it.type, TensorType) and isinstance(it.initValue, Var):
                self.add(it, it.initValue)
                self.add(rv, it.initValue)
