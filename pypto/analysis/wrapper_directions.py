"""The direction a Group/Spmd wrapper's tensor parameter takes from the kernel parameters it feeds.

Calls are taken in program order, each argument through its buffer root: a parameter only read is
``In``; one written is ``Out``, or ``InOut`` when a call reads it before the first write or in the
writing call itself (the caller's contents are read: ``self.k(out, out)``). Written first and read
after (``c = k1(a, c_out); d = k2(c, d_out)``) it stays ``Out``. DeriveCallDirections raises the
wrapper's declared directions to these; CallDirectionsResolved checks them.
"""

from __future__ import annotations

from pypto.ir.enums import ParamDirection
from pypto.ir.expr import Call, Submit, Var
from pypto.ir.function import Function, Program
from pypto.ir.types import TensorType

from .callgraph import callee
from .index import function_index
from .roots import Roots

_READS = (ParamDirection.In, ParamDirection.InOut)
_WRITES = (ParamDirection.Out, ParamDirection.InOut)


def forwarded_directions(func: Function, program: Program) -> dict[Var, ParamDirection]:
    """Each parameter of ``func`` passed to a program function, with the direction its uses give it."""
    roots = Roots(func, program)
    params = set(func.params)
    read_first: set[Var] = set()
    written: set[Var] = set()
    read: set[Var] = set()
    for call in function_index(func).of(Call, Submit):
        target = callee(program, call)
        if target is None:
            continue
        uses = [(roots.root(arg), pd) for arg, pd in zip(call.args, target.param_directions)
                if isinstance(arg, Var) and isinstance(arg.type, TensorType)]
        for root, pd in uses:
            if root in params and pd in _READS:
                read.add(root)
                if root not in written:
                    read_first.add(root)
        written.update(root for root, pd in uses if root in params and pd in _WRITES)
    out = {p: ParamDirection.InOut if p in read_first else ParamDirection.Out for p in written}
    return {**{p: ParamDirection.In for p in read - written}, **out}


__all__ = ["forwarded_directions"]
