"""The semantics table and the op registry agree: every registered op has a meaning or a stated reason."""

from __future__ import annotations

from pypto.interp.semantics import SEMANTICS
from pypto.ir import op_registry

# Registered ops the interpreter does not model, and why. Running one is an InterpreterError.
WITHOUT_REFERENCE_MEANING = {
    # hardware-specific encodings (sort pairs, MX scales, packed gathers) the spec leaves open
    "tensor.mrgsort_format2": "value/index pair layout",
    "tile.mrgsort_format2": "value/index pair layout",
    "tile.matmul_mx": "MX scale block layout",
    "tile.matmul_mx_acc": "MX scale block layout",
    "tile.matmul_mx_bias": "MX scale block layout",
    "tensor.gather_compare": "output packing",
    "tile.gather_compare": "output packing",
    "tensor.gather_row": "accumulator layout",
    "tile.gather_row": "accumulator layout",
    "tensor.paged_gather": "paged block tables",
    "tensor.create_l1": "on-chip accumulator for paged gather",
    "tensor.random": "counter-based generator rounds",
    "tile.random": "counter-based generator rounds",
}


def test_every_registered_op_has_semantics_or_a_reason() -> None:
    registered = {entry.name for entry in op_registry.all_entries()}
    assert sorted(registered - set(SEMANTICS) - set(WITHOUT_REFERENCE_MEANING)) == []
    assert sorted(set(WITHOUT_REFERENCE_MEANING) & set(SEMANTICS)) == []


def test_semantics_only_for_registered_ops() -> None:
    registered = {entry.name for entry in op_registry.all_entries()}
    assert sorted(set(SEMANTICS) - registered) == []
    assert sorted(set(WITHOUT_REFERENCE_MEANING) - registered) == []
