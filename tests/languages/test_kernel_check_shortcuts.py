"""The shortcuts of the write, tile, memory and kernel checkers (tests that read a function's node
index instead of walking it) change no verdict: each violation at the edge of a shortcut is still
reported with the same text (test_check_shortcuts turns these off too for its corpus of programs,
which gets the same findings with the shortcuts as without them)."""

from __future__ import annotations

import pytest
from inv_helpers import found, prog, with_body
from pypto.languages.invariants import (
    AllocatedMemoryAddr,
    InputsNotWritten,
    KernelNodes,
    OutParamsWritten,
    memory,
    writes,
)
from pypto.languages.invariants.base import clear_caches

from pypto import ir

_T = "pl.Tensor[[16, 16], pl.FP32]"
_TILE = "pl.Tile[[16, 16], pl.FP32]"
_TO_INPUT = "declare it pl.Out[...] (written only) or pl.InOut[...] (read and written) to write it"
_NOT_WRITTEN = ("write it on every path (an if needs it in both branches) or declare it pl.InOut[...], whose "
                "contents the caller provides")
_SPAN = ir.Span.unknown()


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
    monkeypatch.setattr(KernelNodes, "holds_if", None)
    monkeypatch.setattr(memory, "_addresses_fit", lambda func, capacity: False)


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


def _same(inv: object, program: ir.Program, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, str]]:
    """The findings of ``inv`` in ``program``, the same with the shortcuts as without them."""
    clear_caches()
    fast = found(inv, program)
    with monkeypatch.context() as patch:
        _disable(patch)
        clear_caches()
        assert found(inv, program) == fast
    clear_caches()
    return fast


def _vec(name: str, offset: ir.Expr | int | None = None) -> ir.Var:
    memref = None if offset is None else ir.MemRef(f"mem_{name}", offset, 1024)
    return ir.Var(name, ir.TileType([16, 16], ir.FP32, memref, None, ir.Mem.Vec))


def _aiv(stmts: list[ir.Stmt], params: list[ir.Var]) -> ir.Program:
    return ir.Program([ir.Function("k", params, [], ir.SeqStmts(stmts, _SPAN), _SPAN, type=ir.FunctionType.AIV)],
                      "P", _SPAN)


def _exp(target: ir.Var, source: ir.Var) -> ir.AssignStmt:
    return ir.AssignStmt(target, ir.Call(ir.get_op("tile.exp"), [source], target.type, _SPAN))


def test_a_tuple_assigned_among_tuple_operands_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """KernelNodes tells an assigned tuple from the tuples calls take (offsets) by node position."""
    src, shaped = _vec("src", 0), _vec("shaped", 1024)
    dims = ir.MakeTuple([ir.ConstInt(16, ir.INDEX, _SPAN)] * 2, _SPAN)
    reshape = ir.AssignStmt(shaped, ir.Call(ir.get_op("tile.reshape"), [src, dims], shaped.type, _SPAN))
    pair = ir.Var("pair", ir.TupleType([src.type, src.type]))
    made = ir.AssignStmt(pair, ir.MakeTuple([src, shaped], _SPAN))
    assert _same(KernelNodes, _aiv([reshape], [src]), monkeypatch) == []
    assert _same(KernelNodes, _aiv([reshape, made], [src]), monkeypatch) == [
        ("TUPLE_IN_KERNEL", "a tuple value in AIV kernel 'k' (the kernel code generators print no tuple value in a "
         "kernel)", "[src, shaped]"),
    ]


@pytest.mark.parametrize(
    ("offsets", "expected"),
    [
        ([0, 1024], []),
        ([0, -1], [("NO_ADDRESS", "tile 'b' has no address in Vec")]),
        ([0, None], []),  # no MemRef: HasMemRefs' rule, not this one
        ([0, 1024 * 1024], [("CAPACITY", "Function 'k': Vec buffer usage (1049600 bytes) exceeds platform limit "
                                        "(188416 bytes)")]),
    ],
    ids=["placed", "negative", "no-memref", "over-capacity"],
)
def test_addresses_read_from_the_node_types(offsets: list, expected: list, monkeypatch: pytest.MonkeyPatch) -> None:
    """AllocatedMemoryAddr looks at the few distinct tile types first; a bad one is reported at its variable."""
    a, b = _vec("a", offsets[0]), _vec("b", offsets[1])
    found_ = _same(AllocatedMemoryAddr, _aiv([_exp(b, a)], [a]), monkeypatch)
    assert [(code, message) for code, message, _ in found_] == expected


def test_holds_any_is_the_index_has() -> None:
    """The shortcuts' class test reads the index's exact classes, or asks has() for a class with subclasses."""
    from pypto.analysis import function_index
    from pypto.ir.expr import Submit, TupleGetItemExpr
    from pypto.ir.stmt import AssignStmt, RuntimeScopeStmt, Stmt
    from pypto.languages.invariants.walk import holds_any

    a, b = _vec("a", 0), _vec("b", 1024)
    index = function_index(_aiv([_exp(b, a)], [a]).get_function("k"))
    for classes in [(AssignStmt,), (Submit, RuntimeScopeStmt, TupleGetItemExpr), (Submit, AssignStmt), (Stmt,),
                    (ir.Expr,)]:
        assert holds_any(index, classes) == index.has(*classes)
    assert holds_any(index, (Stmt,)) and not holds_any(index, (Submit, RuntimeScopeStmt, TupleGetItemExpr))
