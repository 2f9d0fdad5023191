"""Ops a kernel target cannot print, refused when a compile starts.

Every compile prints each kernel for both kernel targets (PTO-ISA ``.pto`` and CCE C++), so a
program calling an op either target has no rule for could only end in a CodegenError after every
pass had accepted it. :func:`check_printable` refuses it before the first pass instead, at the
call, naming the target and why. ``REFUSED`` (op name -> the targets lacking a rule, and why) is
kept equal to what the targets lack by ``tests/codegen/test_unsupported_ops.py``. The interpreter
runs those it has semantics for.
"""

from __future__ import annotations

import linecache
from typing import NamedTuple

from pypto.ir.errors import PyptoError, render_diagnostic
from pypto.ir.expr import Call, Op
from pypto.ir.function import Program
from pypto.ir.span import Span
from pypto.ir.transforms import walk

_BOTH = ("pto", "cce")
_NO_SEMANTICS = "pypto defines no reference semantics for it either"


class Refusal(NamedTuple):
    """The kernel targets without a rule for an op, and why (empty: no more to say)."""

    targets: tuple[str, ...]
    reason: str = ""


REFUSED: dict[str, Refusal] = {
    "tile.sin": Refusal(_BOTH, "pto-isa has no sine instruction"),
    "tile.cos": Refusal(_BOTH, "pto-isa has no cosine instruction"),
    "tile.tri": Refusal(_BOTH),
    "tile.random": Refusal(_BOTH, _NO_SEMANTICS),
    "tile.gather_row": Refusal(_BOTH, _NO_SEMANTICS),
    "tile.gather_mask": Refusal(_BOTH, _NO_SEMANTICS),
    "tile.gather_compare": Refusal(_BOTH, _NO_SEMANTICS),
    "tile.scatter_mask": Refusal(_BOTH, _NO_SEMANTICS),
    "tile.scatter_update": Refusal(_BOTH),
    "tile.mgather": Refusal(_BOTH, _NO_SEMANTICS),
    "tile.matmul_mx": Refusal(_BOTH, _NO_SEMANTICS),
    "tile.matmul_mx_acc": Refusal(_BOTH, _NO_SEMANTICS),
    "tile.matmul_mx_bias": Refusal(_BOTH, _NO_SEMANTICS),
    "tile.reinterpret_view": Refusal(_BOTH),
    "tile.mrgsort_format2": Refusal(("cce",), "a2a3 TMRGSORT of several lists"),
    "tile.mscatter": Refusal(("cce",), "a2a3's MSCATTER scatters whole rows, not elements"),
}
_HINT = "write the computation with ops the kernel targets print (docs/codegen.md#unsupported)"


class UnsupportedOpError(PyptoError):
    """A call of an op in ``REFUSED``; rendered like a parser diagnostic (message, span, hint)."""

    def __init__(self, message: str, span: Span, hint: str) -> None:
        self.message, self.span, self.hint = message, span, hint
        super().__init__(message)

    def __str__(self) -> str:
        lines = linecache.getlines(self.span.filename) if self.span.is_valid() else []
        return render_diagnostic(type(self).__name__, self.message, self.span, self.hint, None, lines or None)


def refusal_message(op: str, targets: frozenset[str]) -> str | None:
    """Why ``op`` cannot be compiled for the printed ``targets``, or None when they all print it."""
    refusal = REFUSED.get(op)
    lacking = [t for t in refusal.targets if t in targets] if refusal is not None else []
    if not lacking:
        return None
    verb = "has" if len(lacking) == 1 else "have"
    plural = "" if len(lacking) == 1 else "s"
    why = f" ({refusal.reason})" if refusal.reason else ""
    return f"{op} cannot be compiled: the {' and '.join(lacking)} target{plural} {verb} no rule for it{why}"


def check_printable(program: Program, targets: frozenset[str]) -> None:
    """Raise :class:`UnsupportedOpError` at the first call of an op one of the printed kernel
    ``targets`` (``pto``, ``cce``) cannot print."""
    for node in walk(program):
        if isinstance(node, Call) and isinstance(node.op, Op):
            message = refusal_message(node.op.name, targets)
            if message is not None:
                raise UnsupportedOpError(message, node.span, _HINT)
