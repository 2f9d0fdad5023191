"""``pl.jit`` forms and their keyword checks (spec/runtime.md §1.1)."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto.jit import JITFunction


def body(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    """Doc of body."""
    return c


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda f: pl.jit(f), "orchestration"),
        (lambda f: pl.jit()(f), "orchestration"),
        (lambda f: pl.jit(auto_scope=False)(f), "orchestration"),
        (lambda f: pl.jit.incore(f), "incore"),
        (lambda f: pl.jit.incore(level=pl.Level.CORE_GROUP)(f), "incore"),
        (lambda f: pl.jit.inline(f), "inline"),
        (lambda f: pl.jit.inline(auto_scope=False)(f), "inline"),
        (lambda f: pl.jit.opaque(f), "opaque"),
        (lambda f: pl.jit.opaque()(f), "opaque"),
    ],
)
def test_every_form_bare_or_called_makes_a_jit_function(make, kind: str) -> None:
    jf = make(body)
    assert isinstance(jf, pl.JITFunction) and pl.JITFunction is JITFunction
    assert jf.func_type == kind
    assert (jf.__name__, jf.__doc__, jf.__module__) == ("body", "Doc of body.", __name__)
    assert repr(jf) == f"JITFunction('body', func_type='{kind}')"


def test_auto_scope_false_reaches_the_function_options() -> None:
    assert pl.jit(auto_scope=False)(body).options().attrs == {"auto_scope": False}
    assert pl.jit(body).options().func_type is pl.FunctionType.Orchestration
    assert pl.jit.incore(level=pl.Level.CORE_GROUP)(body).options().level is pl.Level.CORE_GROUP


@pytest.mark.parametrize(
    ("decorate", "message"),
    [
        (lambda: pl.jit.incore(auto_scope=True), "@pl.jit.incore does not accept an auto_scope= argument"),
        (lambda: pl.jit.inline(level=pl.Level.CORE_GROUP), "@pl.jit.inline does not accept a level= argument"),
        (lambda: pl.jit.opaque(level=None), "@pl.jit.opaque does not accept a level= argument"),
        (lambda: pl.jit.opaque(auto_scope=False), "@pl.jit.opaque does not accept an auto_scope= argument"),
        (lambda: pl.jit(auto_scope="yes"), "@pl.jit: auto_scope= must be True or False, got 'yes'"),
        (lambda: pl.jit(3), "@pl.jit decorates a function, got int"),
    ],
)
def test_a_keyword_not_allowed_for_the_form_is_a_type_error(decorate, message: str) -> None:
    with pytest.raises(TypeError) as err:
        decorate()
    assert str(err.value).startswith(message)


def test_host_and_extern_say_what_is_missing_at_decoration() -> None:
    with pytest.raises(NotImplementedError, match="@pl.jit.host needs multi-chip"):
        pl.jit.host(body)
    with pytest.raises(NotImplementedError, match="@pl.jit.extern needs kernels from external C\\+\\+ sources"):
        pl.jit.extern(body, core_type="aiv", source="k.cpp")


def test_runtime_marker_is_a_scalar_without_a_value() -> None:
    assert repr(pl.RUNTIME) == "pl.RUNTIME" and isinstance(pl.RUNTIME, pl.Scalar)
    with pytest.raises(RuntimeError, match="pl.RUNTIME marks a run-time scalar parameter"):
        pl.RUNTIME + 1
