"""Printing a program pauses the cyclic garbage collector and restores its state afterwards."""

from __future__ import annotations

import gc

import pytest

from pypto import ir
from pypto.ir import FP32

S = ir.Span.unknown()


def _program() -> ir.Program:
    x = ir.Var("x", ir.TensorType([4], FP32))
    return ir.Program([ir.Function("f", [x], [x.type], ir.ReturnStmt([x]), S)], "p", S)


@pytest.mark.parametrize("enabled", [True, False])
def test_collector_state_is_restored(enabled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    printer = ir.printer.program.ProgramPrinter
    real = printer.function

    def recording(self: object, *args: object) -> None:
        seen.append(gc.isenabled())
        real(self, *args)

    monkeypatch.setattr(printer, "function", recording)
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        _program().as_python()
        assert (seen, gc.isenabled()) == ([False], enabled)
    finally:
        (gc.enable if was else gc.disable)()
