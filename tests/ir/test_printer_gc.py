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
    real = ir.printer.program.FunctionInfo

    def recording(func: ir.Function) -> object:
        seen.append(gc.isenabled())
        return real(func)

    monkeypatch.setattr(ir.printer.program, "FunctionInfo", recording)
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        _program().as_python()
        assert (seen, gc.isenabled()) == ([False], enabled)
    finally:
        (gc.enable if was else gc.disable)()
