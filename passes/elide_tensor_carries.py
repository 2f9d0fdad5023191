"""ElideTensorCarries: a GM tensor carried by a kernel loop or if is its init's buffer; the carry goes
(docs/passes.md#elidetensorcarries).

After ConvertTensorToTileOps a kernel's tensors are GM buffers: its parameters and the results of
ops that write one (a store returns its destination). A loop that stores into its output each
iteration carries that output, but every iteration names the same buffer, and an if whose branches
store into one output yields that output: the iter_arg, the yielded value and the result are all
the init's buffer. Writing them as that buffer leaves no tensor carry for the code generators,
which print a kernel's tensors as pointers to the buffers they are. A carry whose yield is another
buffer (the loop swaps two outputs, the branches yield different tensors) is refused.
"""

from __future__ import annotations

from pypto.analysis import function_index
from pypto.analysis.roots import written_arg
from pypto.languages.invariants import KernelTensorCarriesElided
from pypto.languages.tiled import tiled

from pypto.ir.enums import is_incore_type
from pypto.ir.expr import Expr, IterArg, Var
from pypto.ir.function import Function
from pypto.ir.stmt import AssignStmt, ForStmt, IfStmt, Stmt, WhileStmt, YieldStmt
from pypto.ir.types import TensorType

from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import rebuild

_CARRIERS = (ForStmt, WhileStmt, IfStmt)


def _carries_tensor(stmt: ForStmt | WhileStmt | IfStmt) -> bool:
    return any(isinstance(rv.type, TensorType) for rv in stmt.return_vars)


class _Slots:
    """The carries of one loop or if: for each, the buffer it is (None: a kept tile/scalar carry;
    an if's buffer is set by its first branch's yield)."""

    def __init__(self, stmt: Stmt, buffers: list[Var | None], tensor: list[bool]) -> None:
        self.stmt, self.buffers, self.tensor = stmt, buffers, tensor


class ElideTensorCarries(RewritePass):
    """Replace each tensor carry of a kernel loop or if by the buffer it carries.

    before:  for i, (o,) in pl.range(4, init_values=(out,)):
                 o1 = pl.tile.store(r, [i * 16, 0], o)
                 o2 = pl.yield_(o1)
             return o2
    after:   for i in pl.range(4):
                 o1 = pl.tile.store(r, [i * 16, 0], out)
             return out
    """

    source = tiled
    produces = frozenset({KernelTensorCarriesElided})

    def applies(self, func: Function) -> bool:
        return is_incore_type(func.func_type) and any(map(_carries_tensor, function_index(func).of(*_CARRIERS)))

    def function(self, func: Function) -> Function:
        self.buffer: dict[Var, Var] = {}  # a tensor value -> the buffer (parameter or untraced value) it is
        self.slots: list[_Slots] = []
        return super().function(func)

    def _buffer(self, value: Expr) -> Var | None:
        return self.buffer.get(value, value) if isinstance(value, Var) else None

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        new = self.children(node)
        if isinstance(new.var.type, TensorType):
            target = new.value if isinstance(new.value, Var) else written_arg(new.value)
            buffer = self._buffer(target) if target is not None else None
            if buffer is not None:
                self.buffer[new.var] = buffer
        return new

    @on(ForStmt, WhileStmt)
    def _loop(self, node: ForStmt | WhileStmt) -> Result:
        kept: list[IterArg] = []
        buffers: list[Var | None] = []
        for ia in node.iter_args:
            if not isinstance(ia.type, TensorType):
                kept.append(self.define(ia))
                buffers.append(None)
                continue
            buffer = self._buffer(self.expr(ia.initValue))
            if buffer is None:
                raise self.error(f"the tensor carry '{ia.name_hint}' starts from an expression, not a tensor",
                                 ia.span, hint="start the loop from the tensor the kernel writes")
            self.bind(ia, buffer)
            buffers.append(buffer)
        changes: dict[str, object] = {"iter_args": kept}
        if isinstance(node, ForStmt):
            changes |= {f: self.expr(getattr(node, f)) for f in ("start", "stop", "step")}
            changes["loop_var"] = self.define(node.loop_var)
        else:
            changes["condition"] = self.expr(node.condition)
        self.slots.append(_Slots(node, buffers, [b is not None for b in buffers]))
        changes["body"] = self.body(node.body)
        self.slots.pop()
        changes["return_vars"] = self._results(node.return_vars, buffers)
        return rebuild(node, **changes)

    @on(IfStmt)
    def _if(self, node: IfStmt) -> Result:
        condition = self.expr(node.condition)
        tensor = [isinstance(rv.type, TensorType) for rv in node.return_vars]
        slots = _Slots(node, [None] * len(tensor), tensor)
        self.slots.append(slots)
        then_body, else_body = self.body(node.then_body), self.body(node.else_body)
        self.slots.pop()
        return_vars = self._results(node.return_vars, slots.buffers)
        return rebuild(node, condition=condition, then_body=then_body, else_body=else_body, return_vars=return_vars)

    def _results(self, return_vars: list[Var], buffers: list[Var | None]) -> list[Var]:
        """The kept result variables; each elided one stands for its buffer from here on."""
        kept = []
        for rv, buffer in zip(return_vars, buffers):
            if buffer is None:
                kept.append(self.define(rv))
            else:
                self.bind(rv, buffer)
        return kept

    @on(YieldStmt)
    def _yield(self, node: YieldStmt) -> Result:
        slots = self.slots[-1]
        values = []
        for k, value in enumerate(node.value):
            value = self.expr(value)
            if not slots.tensor[k]:
                values.append(value)
                continue
            buffer = self._buffer(value)
            if slots.buffers[k] is None:  # an if's first branch names the buffer
                slots.buffers[k] = buffer
            if buffer is None or buffer is not slots.buffers[k]:
                raise self._mismatch(slots, k, buffer if buffer is not None else value, node)
        if not values and any(slots.tensor):
            return None
        return rebuild(node, value=values)

    def _mismatch(self, slots: _Slots, k: int, value: Expr, node: YieldStmt) -> Exception:
        carried = slots.buffers[k]
        what = "loop" if isinstance(slots.stmt, (ForStmt, WhileStmt)) else "if"
        name = value.name_hint if isinstance(value, Var) else type(value).__name__
        return self.error(
            f"this kernel {what} carries tensor '{carried.name_hint if carried else '?'}' but yields '{name}', "
            "another buffer; a kernel's tensors are the buffers its parameters point at, so a carried tensor "
            "must stay the same buffer",
            node.span,
            hint="store into the same output in every iteration and branch (out = pl.store(t, offsets, out)), "
            "or pick the destination with an if around the stores",
        )

