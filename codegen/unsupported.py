"""Ops a kernel target cannot print, refused when a compile starts.

Every compile prints each kernel for both kernel targets (PTO-ISA ``.pto`` and CCE C++), so a
program calling an op either target has no rule for could only end in a CodegenError after every
pass had accepted it. :func:`check_printable` refuses it before the first pass instead, at the
call, naming the target and why. ``REFUSED`` (op name -> the targets lacking a rule, and why) is
kept equal to what the targets lack by ``tests/codegen/test_unsupported_ops.py``. The interpreter
runs those it has semantics for.
"""

from __future__ import annotations

import functools

from pypto.analysis.index import function_index
from pypto.analysis.kernel_code import placed_calls
from pypto.ir.errors import PyptoError, render_diagnostic
from pypto.ir.expr import Call, Op
from pypto.ir.function import Program
from pypto.ir.span import Span, source_lines_of

_NO_SEMANTICS = "pypto defines no reference semantics for it either"


# Op -> why a kernel target has no rule for it (empty: no more to say). Which targets lack it is
# the coverage report's fact (:func:`lacking_targets`), not written here.
REFUSED: dict[str, str] = {
    "tile.sin": "pto-isa has no sine instruction",
    "tile.cos": "pto-isa has no cosine instruction",
    "tile.tri": "",
    "tile.random": _NO_SEMANTICS,
    "tile.gather_row": _NO_SEMANTICS,
    "tile.gather_compare": _NO_SEMANTICS,
    "tile.scatter_update": "pto-isa has no row update of a tile (TSCATTER places single elements)",
    "tile.matmul_mx": _NO_SEMANTICS,
    "tile.matmul_mx_acc": _NO_SEMANTICS,
    "tile.matmul_mx_bias": _NO_SEMANTICS,
    "tile.mrgsort_format2": "a2a3 TMRGSORT of several lists",
    "tile.mscatter": "a2a3's MSCATTER scatters whole rows, not elements",
    "system.sync_set": "pto-isa's CPU backend has no cross-core flag to set or wait on",
    "system.sync_wait": "pto-isa's CPU backend has no cross-core flag to set or wait on",
    "system.set_ffts": "",
    "system.cacheinvalid": "",
    "system.fence": "",
}
_HINT = "write the computation with ops the kernel targets print (docs/codegen.md#unsupported)"
# Refused ops whose alternative is more specific than _HINT.
_HINTS: dict[str, str] = {
    **dict.fromkeys(("system.sync_set", "system.sync_wait", "system.set_ffts"),
                    "order the cube and vector kernels through a pipe instead: a pl.tpush_to_aiv / pl.tpop_from_aic "
                    "(or pl.tpush_to_aic / pl.tpop_from_aiv) pair waits as a flag would "
                    "(docs/codegen.md#cross-core-flags)"),
}
ODD_SPLIT_HINT = ("pto-isa's CPU model (a2a3sim) splits a tile between the AIV lanes in even halves only: give the "
                   "split axis an even extent and use split=1 (up/down) or split=2 (left/right), or compile with "
                   "skip_ptoas=True to print the PTO module (which has it) only")

# Ops only the orchestration prints: refused in kernel code (kernel functions, and the pl.at /
# pl.spmd / pl.cluster bodies outlined into kernels).
ORCHESTRATION_ONLY: dict[str, str] = {
    "array.create": "arrays (TaskId arrays, integer arrays) live in the orchestration",
    "array.get_element": "arrays (TaskId arrays, integer arrays) live in the orchestration",
    "array.update_element": "arrays (TaskId arrays, integer arrays) live in the orchestration",
}


class UnsupportedOpError(PyptoError):
    """A call of an op in ``REFUSED`` (or of ``ORCHESTRATION_ONLY`` in kernel code); rendered like a
    parser diagnostic (message, span, hint)."""

    def __init__(self, message: str, span: Span, hint: str) -> None:
        self.message, self.span, self.hint = message, span, hint
        super().__init__(message)

    def __str__(self) -> str:
        lines = source_lines_of(self.span) if self.span.is_valid() else None
        return render_diagnostic(type(self).__name__, self.message, self.span, self.hint, None, lines)


@functools.cache
def _lacking() -> dict[str, tuple[str, ...]]:
    from .coverage import coverage, load_emitter
    from .target import CCE, PTO

    out: dict[str, list[str]] = {}
    for target in (PTO, CCE):
        for op in coverage(target, load_emitter(target)).missing_ops:
            out.setdefault(op, []).append(target.name)
    return {op: tuple(names) for op, names in out.items()}


def lacking_targets(op: str) -> tuple[str, ...]:
    """The kernel targets (``pto``, ``cce``) without a rule for ``op``."""
    return _lacking().get(op, ())


def refusal_message(op: str, targets: frozenset[str]) -> str | None:
    """Why ``op`` cannot be compiled for the printed ``targets``, or None when they all print it."""
    lacking = [t for t in lacking_targets(op) if t in targets] if op in REFUSED else []
    if not lacking:
        return None
    verb = "has" if len(lacking) == 1 else "have"
    plural = "" if len(lacking) == 1 else "s"
    why = f" ({REFUSED[op]})" if REFUSED[op] else ""
    return f"{op} cannot be compiled: the {' and '.join(lacking)} target{plural} {verb} no rule for it{why}"


def check_printable(program: Program, targets: frozenset[str]) -> None:
    """Raise :class:`UnsupportedOpError` at the first call of an op one of the printed kernel
    ``targets`` (``pto``, ``cce``) cannot print."""
    for func in program.functions.values():
        if not function_index(func).op_names & ORCHESTRATION_ONLY.keys():
            continue
        for call, in_kernel in placed_calls(func):
            if in_kernel and isinstance(call.op, Op) and call.op.name in ORCHESTRATION_ONLY:
                raise UnsupportedOpError(
                    f"{call.op.name} cannot be compiled in kernel code: the pto and cce targets have no rule for it "
                    f"({ORCHESTRATION_ONLY[call.op.name]})", call.span,
                    "make the array in the orchestration, outside pl.at / pl.spmd blocks, and pass kernels the "
                    "scalars they need")
    cce = "cce" in targets
    for func in program.functions.values():
        index = function_index(func)  # the index later checks reuse
        refusable = not index.op_names.isdisjoint(REFUSED)
        if not (refusable or cce):
            continue
        for node in index.of(Call):
            if not isinstance(node.op, Op):
                continue
            if refusable and node.op.name in REFUSED:
                message = refusal_message(node.op.name, targets)
                if message is not None:
                    raise UnsupportedOpError(message, node.span, _HINTS.get(node.op.name, _HINT))
            if cce and "split" in node.kwargs:
                _check_split(node)


def _check_split(call: Call) -> None:
    """A pipe split code the CCE target cannot print (3/4: an odd split extent) is refused at the call."""
    from .cce_ops import SPLIT_AXES

    code = call.kwargs["split"]
    if isinstance(code, int) and code not in SPLIT_AXES:
        raise UnsupportedOpError(f"{call.op.name} with split={code} (an odd-extent split) cannot be compiled: the cce "
                                 "target has no rule for it", call.span, ODD_SPLIT_HINT)

