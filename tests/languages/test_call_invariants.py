"""ManualDepsOnSubmitOnly, CallDirectionsResolved and InOutUseValid."""

from __future__ import annotations

import pytest
from inv_helpers import found, prog
from pypto.ir.attrs import TaskDummyAttrs
from pypto.languages.invariants import CallDirectionsResolved, InOutUseValid, ManualDepsOnSubmitOnly

from pypto import ir

_SPAN = ir.Span.unknown()
_T = "pl.Tensor[[16], pl.FP32]"
_AD = ir.ArgDirection

PROGRAM = f"""
    @pl.program
    class A:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {_T}, n: pl.Scalar[pl.INDEX], out: pl.Out[{_T}]) -> {_T}:
            t: pl.Tile[[16], pl.FP32] = pl.load(x, [0], [16])
            out = pl.store(t, [0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
            out = self.k(x, 3, out)
            return out
"""


def _with_call(program: ir.Program, call: ir.Call) -> ir.Program:
    """``program`` with the call of ``main``'s first statement replaced by ``call``."""
    main = program.get_function("main")
    assign, ret = main.body.stmts
    body = ir.SeqStmts([ir.replace(assign, value=call), ret], main.body.span)
    return ir.Program([program.get_function("k"), ir.replace(main, body=body)], program.name, program.span)


def _with_call_attrs(program: ir.Program, attrs: dict) -> ir.Program:
    return _with_call(program, ir.set_call_attrs(program.get_function("main").body.stmts[0].value, attrs))


def test_manual_deps_only_on_submit() -> None:
    program = prog(PROGRAM)
    assert found(ManualDepsOnSubmitOnly, program) == []
    dep = program.get_function("main").params[0]
    # CallAttrs has no manual_dep_edges key: a plain call cannot be built with them ...
    with pytest.raises(ir.IRTypeError, match=r"^Call: field 'attrs.manual_dep_edges': not an attrs key of a call"):
        _with_call_attrs(program, {"manual_dep_edges": [dep]})
    # ... so only IR built without validation can break the invariant, and the checker still sees it.
    call = program.get_function("main").body.stmts[0].value
    fields = {name: getattr(call, name) for name in type(call).model_fields}
    forged = ir.Call.model_construct(**{**fields, "attrs": TaskDummyAttrs(manual_dep_edges=[dep])})
    assert [(c, m) for c, m, _ in found(ManualDepsOnSubmitOnly, _with_call(program, forged))] == [
        ("MANUAL_DEPS_ON_CALL", "plain call to 'k' carries manual_dep_edges (only a Submit may)"),
    ]


def test_call_directions_resolved() -> None:
    program = prog(PROGRAM)
    assert [(c, m) for c, m, _ in found(CallDirectionsResolved, program)] == [
        ("MISSING_DIRECTIONS", "call to 'k' has no arg_directions"),
    ]
    cases = {
        (_AD.Input, _AD.Scalar): ("DIRECTION_COUNT", "call to 'k': 2 directions for 3 args"),
        (_AD.Scalar, _AD.Scalar, _AD.Output): ("DIRECTION_KIND", "call to 'k': tensor argument 0 has direction Scalar"),
        (_AD.Input, _AD.Input, _AD.Output): (
            "DIRECTION_KIND",
            "call to 'k': non-tensor argument 1 has direction Input",
        ),
        (_AD.Output, _AD.Scalar, _AD.Output): (
            "DIRECTION_MISMATCH",
            "call to 'k': argument 0 is Output for an In parameter",
        ),
    }
    for dirs, expected in cases.items():
        assert [
            (c, m)
            for c, m, _ in found(CallDirectionsResolved, _with_call_attrs(program, {"arg_directions": list(dirs)}))
        ] == [expected]
    ok = _with_call_attrs(program, {"arg_directions": [_AD.Input, _AD.Scalar, _AD.OutputExisting]})
    assert found(CallDirectionsResolved, ok) == []


def test_wrapper_directions_follow_the_kernel() -> None:
    program = prog(
        PROGRAM.replace("type=pl.FunctionType.Orchestration", "type=pl.FunctionType.Group").replace(
            f"out: pl.Out[{_T}]) -> {_T}:\n            out = self.k", f"out: {_T}) -> {_T}:\n            out = self.k"
        )
    )
    program = _with_call_attrs(program, {"arg_directions": [_AD.Input, _AD.Scalar, _AD.OutputExisting]})
    assert [(c, m) for c, m, _ in found(CallDirectionsResolved, program)] == [
        ("WRAPPER_DIRECTION", "wrapper parameter 'out' is In but the kernel uses it as Out"),
    ]


READ_AFTER = f"""
    @pl.program
    class A:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
            t: pl.Tile[[16], pl.FP32] = pl.load(x, [0], [16])
            r: {_T} = pl.store(t, [0], out)
            return r

        @pl.function
        def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
            r: {_T} = self.k(x, out)
            for i in pl.range(2):
                s: {_T} = pl.add(out, r)
            out = self.k(x, out)
            u: {_T} = pl.add(out, x)
            return u
"""


def test_inout_use_valid() -> None:
    assert found(InOutUseValid, prog(READ_AFTER)) == [
        ("READ_AFTER_OUT", "'out' is read after being passed as Out/InOut to 'k'", "for i in pl.range(2): ..."),
    ]
    group = prog(
        READ_AFTER.replace(
            "@pl.function\n        def main", "@pl.function(type=pl.FunctionType.Group)\n        def main"
        )
    )
    assert found(InOutUseValid, group) == []
    rebound = prog(READ_AFTER.replace("r: " + _T + " = self.k(x, out)", "out = self.k(x, out)\n            r = out"))
    assert found(InOutUseValid, rebound) == []


def test_one_more_read_of_an_out_argument_is_reported() -> None:
    """An Out argument the call alone reads passes; a single read after the call is reported."""
    alone = READ_AFTER.replace(
        f"""r: {_T} = self.k(x, out)
            for i in pl.range(2):
                s: {_T} = pl.add(out, r)
            out = self.k(x, out)
            u: {_T} = pl.add(out, x)
            return u""",
        f"""r: {_T} = self.k(x, out)
            u: {_T} = pl.add(r, x)
            return u""",
    )
    assert alone != READ_AFTER and found(InOutUseValid, prog(alone)) == []
    read = alone.replace(f"u: {_T} = pl.add(r, x)", f"u: {_T} = pl.add(r, out)")
    assert found(InOutUseValid, prog(read)) == [
        ("READ_AFTER_OUT", "'out' is read after being passed as Out/InOut to 'k'", f"u: {_T} = pl.tensor.add(r, out)"),
    ]
