"""The shortcuts of the write, tile, memory and kernel checkers (tests that read a function's node
index instead of walking it) change no verdict: each violation at the edge of a shortcut is still
reported with the same text, and the corpus of test_check_shortcuts gets the same findings with
the shortcuts as without them."""

from __future__ import annotations

import pytest
from inv_helpers import found, prog, with_body
from pypto.languages.invariants import ALL, InputsNotWritten, OutParamsWritten, writes
from pypto.languages.invariants.base import clear_caches

from pypto import ir
from test_check_shortcuts import _corpus

_T = "pl.Tensor[[16, 16], pl.FP32]"
_TILE = "pl.Tile[[16, 16], pl.FP32]"
_TO_INPUT = "declare it pl.Out[...] (written only) or pl.InOut[...] (read and written) to write it"
_NOT_WRITTEN = ("write it on every path (an if needs it in both branches) or declare it pl.InOut[...], whose "
                "contents the caller provides")
_OWNED = ("InputsNotWritten", "OutParamsWritten")


def _kernel(body: str) -> ir.Program:
    """A program of one InCore kernel ``k(x: In, n: INDEX, y: Out)`` with ``body``."""
    return prog(f"""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {_T}, n: pl.Scalar[pl.INDEX], y: pl.Out[{_T}]) -> {_T}:
            t: {_TILE} = pl.load(x, [0, 0], [16, 16])
{body}
    """)


_LOAD = "pl.tile.load(x, [0, 0], [16, 16])"


def _disable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn off the shortcuts this file covers (each falls back to the full checker)."""
    monkeypatch.setattr(writes, "_direct_writes", lambda func: None)


def _both(program: ir.Program, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, str]]:
    """The write findings of ``program``, the same with the shortcuts as without them."""
    fast = found(InputsNotWritten, program) + found(OutParamsWritten, program)
    with monkeypatch.context() as patch:
        _disable(patch)
        clear_caches()
        slow = found(InputsNotWritten, program) + found(OutParamsWritten, program)
    clear_caches()
    assert fast == slow
    return fast


def test_a_straight_kernel_writing_its_out_parameter_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _both(_kernel("            r: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], y)\n"
                         "            return r"), monkeypatch) == []


def test_a_store_into_an_alias_of_an_input_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    program = _kernel(f"""            z: {_T} = x
            r: {_T} = pl.store(t, [0, 0], z)
            s: {_T} = pl.store(t, [0, 0], y)
            return s""")
    assert _both(program, monkeypatch) == [
        ("WRITE_TO_INPUT", f"input parameter 'x' is written by tile.store; {_TO_INPUT}", "pl.tile.store(t, [0, 0], z)"),
    ]


def test_an_out_parameter_written_in_one_branch_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    program = _kernel(f"""            if n > 0:
                r: {_T} = pl.store(t, [0, 0], y)
            return y""")
    assert _both(program, monkeypatch) == [
        ("OUT_NOT_WRITTEN", f"Out parameter 'y' is not written on every path (at this return); {_NOT_WRITTEN}",
         "return y"),
    ]


def test_a_return_before_the_write_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    program = _kernel(f"""            if n > 0:
                return y
            r: {_T} = pl.store(t, [0, 0], y)
            return r""")
    assert _both(program, monkeypatch) == [
        ("OUT_NOT_WRITTEN", f"Out parameter 'y' is not written on every path (at this return); {_NOT_WRITTEN}",
         "return y"),
    ]


def test_an_out_parameter_rebound_before_its_store_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    program = _kernel(f"""            y = x
            r: {_T} = pl.store(t, [0, 0], y)
            return r""")
    assert _both(program, monkeypatch) == [
        ("WRITE_TO_INPUT", f"input parameter 'x' is written by tile.store; {_TO_INPUT}", "pl.tile.store(t, [0, 0], y)"),
        ("OUT_NOT_WRITTEN", f"Out parameter 'y' is not written on every path (at this return); {_NOT_WRITTEN}",
         "return r"),
    ]


def test_a_store_inside_another_expression_does_not_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """The path walk counts the writes of calls a statement's value reaches through calls only: a
    store held in a tuple writes nothing for it, and the shortcut must not count it either."""
    source = _kernel(f"""            r: {_T} = pl.store(t, [0, 0], y)
            return r""")
    kernel = source.get_function("k")
    load, store, ret = kernel.body.stmts
    tupled = ir.AssignStmt(ir.Var("p", ir.TupleType([store.var.type])), ir.MakeTuple([store.value], store.span))
    program = with_body(source, "k", ir.SeqStmts([load, tupled, ir.ReturnStmt([kernel.params[2]])], kernel.body.span))
    assert _both(program, monkeypatch) == [
        ("OUT_NOT_WRITTEN", f"Out parameter 'y' is not written on every path (at this return); {_NOT_WRITTEN}",
         "return y"),
    ]


def test_the_corpus_gets_the_same_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = _corpus()
    owned = [ALL[name] for name in _OWNED]

    def findings() -> list[list[tuple]]:
        out = []
        for program in corpus:
            clear_caches()
            out.append([(v.rule, v.code, v.message, id(v.node), v.span, v.function)
                        for inv in owned for v in inv.check(program)])
        return out

    fast = findings()
    _disable(monkeypatch)
    assert findings() == fast
