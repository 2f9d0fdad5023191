"""InlineFunctionsEliminated, OrchestrationReferencesResolved, ReturnParamsExplicit, OutParamNotShadowed."""

from __future__ import annotations

from inv_helpers import found, prog
from pypto.languages.invariants import (
    InlineFunctionsEliminated,
    OrchestrationReferencesResolved,
    OutParamNotShadowed,
    ReturnParamsExplicit,
)

from pypto import ir, passes

_T = "pl.Tensor[[16], pl.FP32]"

INLINE = f"""
    @pl.program
    class A:
        @pl.function(type=pl.FunctionType.Inline)
        def sq(self, x: {_T}) -> {_T}:
            y: {_T} = pl.mul(x, x)
            return y

        @pl.function
        def main(self, a: {_T}) -> {_T}:
            r: {_T} = self.sq(a)
            return r
"""

KERNEL = f"""
    @pl.program
    class K:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
            t: pl.Tile[[16], pl.FP32] = pl.load(x, [0], [16])
            r: {_T} = pl.store(t, [0], out)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
            y: {_T} = self.k(x, out)
            return y
"""


def test_inline_functions_eliminated() -> None:
    program = prog(INLINE)
    assert found(InlineFunctionsEliminated, program) == [
        ("INLINE_CALL", "call to inline function 'sq'", "sq(a)"),
        ("INLINE_FUNCTION", "inline function 'sq' is still in the program", "function sq"),
    ]
    assert found(InlineFunctionsEliminated, passes.inline_functions()(program)) == []


def test_orchestration_references_resolved() -> None:
    program = prog(KERNEL)
    assert found(OrchestrationReferencesResolved, program) == []
    orphan = ir.Program([program.get_function("main")], "K", program.span)
    assert found(OrchestrationReferencesResolved, orphan) == [
        ("UNRESOLVED_CALLEE", "callee 'k' is not a function of the program", "k(x, out)"),
    ]


def test_return_params_explicit() -> None:
    program = prog(KERNEL)
    assert found(ReturnParamsExplicit, program) == [
        ("IMPLICIT_PARAM_RETURN", "'r' writes back parameter 'out'; return the parameter itself", "return r"),
    ]
    # Re-binding the parameter's name makes a new variable (SSA as parsed): the return is implicit
    # until NormalizeReturnOrder returns the parameter itself.
    rebound = prog(
        KERNEL.replace(
            f"r: {_T} = pl.store(t, [0], out)\n            return r",
            "out = pl.store(t, [0], out)\n            return out",
        )
    )
    assert found(ReturnParamsExplicit, rebound) == [
        ("IMPLICIT_PARAM_RETURN", "'out' writes back parameter 'out'; return the parameter itself", "return out"),
    ]
    explicit = passes.normalize_return_order().run(rebound)
    assert found(ReturnParamsExplicit, explicit) == []


def test_out_param_not_shadowed() -> None:
    program = prog(
        f"""
        @pl.program
        class A:
            @pl.function
            def main(self, x: {_T}, out: pl.Out[{_T}]) -> {_T}:
                out = pl.create_tensor([16], dtype=pl.FP32)
                fresh = pl.create_tensor([16], dtype=pl.FP32)
                return out
        """
    )
    assert [(c, m) for c, m, _ in found(OutParamNotShadowed, program)] == [
        ("OUT_PARAM_SHADOWED", "Out/InOut parameter 'out' is re-created with tensor.create"),
    ]
    # The program is not in surface, so a pass applied alone refuses it unless checks are off.
    with passes.PassContext(verify=False):
        after = passes.convert_to_ssa()(program)
    assert [c for c, _, _ in found(OutParamNotShadowed, after)] == ["OUT_PARAM_SHADOWED"]
    assert found(OutParamNotShadowed, prog(KERNEL)) == []
