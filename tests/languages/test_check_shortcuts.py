"""The checkers' shortcuts (a flat-function scan, ``holds_if`` and ``idle_if`` conditions, rule
pre-filters) change no verdict: every invariant reports the same violations with them as without them."""

from __future__ import annotations

from pathlib import Path

import pytest
from inv_helpers import INDEX, prog, single
from pypto.languages.invariants import ALL, calls, grammar, memory, ssa, writes
from pypto.languages.invariants.base import clear_caches

from pypto import ir, passes
from test_call_invariants import READ_AFTER

_SPAN = ir.Span.unknown()
_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_TILE = "pl.Tile[[64, 64], pl.FP32]"
_TENSOR = "pl.Tensor[[64, 64], pl.FP32]"


def _flat(*stmts: ir.Stmt) -> ir.Stmt:
    return ir.SeqStmts(list(stmts), _SPAN)


def _malformed() -> list[ir.Program]:
    """Flat functions that break the properties the shortcuts are about."""
    x, ghost, n = (ir.Var(name, INDEX) for name in ("x", "ghost", "n"))
    kernel = f"""
        @pl.program
        class K:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {_TENSOR}, out: pl.Out[{_TENSOR}]) -> {_TENSOR}:
                t: {_TILE} = pl.load(a, [0, 0], [64, 64])
                u: {_TILE} = BODY
                r: {_TENSOR} = pl.store(u, [0, 0], out)
                return r
        """
    return [
        single("ghost", [], _flat(ir.AssignStmt(x, ghost, _SPAN), ir.ReturnStmt([x], _SPAN)), [INDEX]),
        single("twice", [n], _flat(ir.AssignStmt(x, n, _SPAN), ir.AssignStmt(x, x, _SPAN), ir.ReturnStmt([x]))),
        single("use_then_def", [], _flat(ir.AssignStmt(x, ir.Add(x, ir.ConstInt(1, ir.INDEX, _SPAN), ir.INDEX, _SPAN), _SPAN), ir.ReturnStmt([x]))),
        single("nested_seq", [n], _flat(_flat(ir.AssignStmt(x, n, _SPAN)), ir.ReturnStmt([x], _SPAN)), [INDEX]),
        single("one_child", [n], _flat(ir.ReturnStmt([n], _SPAN)), [INDEX]),
        single("yield_first", [n], _flat(ir.YieldStmt([n], _SPAN), ir.ReturnStmt([n], _SPAN)), [INDEX]),
        single("eval", [n], _flat(ir.EvalStmt(ghost, _SPAN), ir.ReturnStmt([n], _SPAN)), [INDEX]),
        prog(kernel.replace("BODY", "pl.add(pl.exp(t), t)")),
        prog(kernel.replace("BODY", "pl.exp(t)").replace("return r", "return pl.store(u, [0, 0], out)")),
        prog(READ_AFTER),
        *_malformed_kernels(),
    ]


def _reassigned() -> list[ir.Program]:
    """Flat functions defining a name twice, as new variables: re-assignments in one scope (SSA)."""
    x, x2, n, n2 = (ir.Var(name, INDEX) for name in ("x", "x", "n", "n"))
    return [
        single("reassign", [n], _flat(ir.AssignStmt(x, n, _SPAN), ir.AssignStmt(x2, x, _SPAN), ir.ReturnStmt([x2]))),
        single("params", [n, n2], _flat(ir.AssignStmt(x, n2, _SPAN), ir.ReturnStmt([x], _SPAN)), [INDEX]),
    ]


def _tile(
    space: ir.MemorySpace | None, name: str, shape: list | None = None, memref: ir.MemRef | None = None
) -> ir.Var:
    return ir.Var(name, ir.TileType(shape or [16, 16], ir.FP32, memref, None, space))


def _raw(name: str, args: list[ir.Expr], result: ir.Type, **kwargs: object) -> ir.Call:
    """An op call built without the registry's checks (to hold what a checker must catch)."""
    return ir.Call(ir.get_op(name), args, dict(kwargs), result, _SPAN)


def _kernel(stmts: list[ir.Stmt], params: list[ir.Var], func_type: ir.FunctionType) -> ir.Program:
    return single("k", params, _flat(*stmts), func_type=func_type)


def _malformed_kernels() -> list[ir.Program]:
    """Kernels that break the lowering dialects' tile, memory and side properties."""
    vec, left, tmp = _tile(ir.Mem.Vec, "v"), _tile(ir.Mem.Left, "l"), _tile(ir.Mem.Vec, "tmp")
    zero, one = ir.ConstInt(0, ir.INDEX), ir.ConstInt(1, ir.INDEX)
    off = ir.Var("off", ir.TupleType([INDEX, INDEX]))
    assembled = [vec, tmp, off]
    cube = _tile(ir.Mem.Vec, "cube", [2, 16, 16])
    pair = ir.Var("pair", ir.TupleType([vec.type, ir.TupleType([ir.TileType([16, 16], ir.FP32)])]))
    exp = ir.AssignStmt(_tile(ir.Mem.Vec, "e"), _raw("tile.exp", [vec], vec.type))
    matmul = ir.AssignStmt(_tile(ir.Mem.Acc, "m"), _raw("tile.matmul", [left, vec], vec.type))
    AIV, AIC, InCore = ir.FunctionType.AIV, ir.FunctionType.AIC, ir.FunctionType.InCore
    return [
        _kernel([ir.AssignStmt(ir.Var("c", cube.type), _raw("tile.exp", [cube], cube.type))], [cube], AIV),
        _kernel([ir.AssignStmt(ir.Var("tr", vec.type), _raw("tile.transpose", [vec, zero, one], vec.type))], [vec], AIV),
        _kernel([ir.AssignStmt(ir.Var("a", vec.type), _raw("tile.assemble", assembled, vec.type))], assembled, AIV),
        _kernel([ir.AssignStmt(_tile(None, "u"), _raw("tile.exp", [vec], vec.type)), exp], [vec], AIV),
        _kernel([ir.AssignStmt(pair, ir.MakeTuple([vec, ir.MakeTuple([vec], _SPAN)], _SPAN)), exp], [vec], AIV),
        _kernel([matmul], [left, vec], AIC),
        _kernel([matmul, exp], [left, vec], InCore),
        _kernel([matmul, exp], [left, vec], AIV),
    ]


def _well_formed_kernels() -> list[ir.Program]:
    """Kernels the tile shortcuts must accept without the rule walk."""
    vec = _tile(ir.Mem.Vec, "v", memref=ir.MemRef("mem_vec_0", 0, 1024))
    pair = ir.Var("pair", ir.TupleType([vec.type, ir.TupleType([vec.type])]))
    ok = ir.AssignStmt(ir.Var("tr", vec.type), _raw("tile.exp", [vec], vec.type))
    tuple_def = ir.AssignStmt(pair, ir.MakeTuple([vec, ir.MakeTuple([vec], _SPAN)], _SPAN))
    return [_kernel([tuple_def, ok], [vec], ir.FunctionType.AIV)]


# The lowering stages the corpus keeps of each example (the dialects' boundaries).
_STAGES = ("InferTileMemorySpace", "ExpandMixedKernel", "InsertPipeSync")


def _lowering_stages(source: ir.Program) -> list[ir.Program]:
    """``source`` after each pass of ``_STAGES`` of the default pipeline."""
    kept: list[ir.Program] = []

    class Keep(passes.PassInstrument):
        def after_pass(self, pass_: passes.Pass, program: ir.Program) -> None:
            if pass_.name in _STAGES:
                kept.append(program)

    with passes.PassContext([Keep()]):
        passes.PassManager(passes.builtin_passes(), verify=False).run(source)
    return kept


def _dynamic_dim() -> ir.Program:
    """A flat function reading a dimension variable of its parameter's type: defined at entry."""
    x, dim = ir.Var("x", INDEX), ir.Var("d", INDEX)
    param = ir.Var("t", ir.TensorType([dim, 4], ir.FP32))
    return single("dynamic", [param], _flat(ir.AssignStmt(x, dim, _SPAN), ir.ReturnStmt([x], _SPAN)), [INDEX])


def _corpus() -> list[ir.Program]:
    import pypto.language as pl

    sources = [pl.parse(path.read_text()) for path in sorted(_EXAMPLES.glob("*.py"))]
    lowered = [passes.PassManager(passes.front_passes(), verify=False).run(p) for p in sources]
    stages = [stage for p in sources for stage in _lowering_stages(p)]
    return sources + lowered + stages + _well_formed_kernels() + [_dynamic_dim()] + _reassigned() + _malformed()


def _findings(program: ir.Program) -> list[tuple]:
    clear_caches()
    out = []
    for inv in sorted(ALL.values(), key=lambda i: i.name):
        out += [(v.rule, v.code, v.message, id(v.node), v.span, v.function) for v in inv.check(program)]
    return out


def test_shortcuts_change_no_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = _corpus()
    fast = [_findings(p) for p in corpus]
    monkeypatch.setattr(ssa, "_flat_scan", lambda func: None)
    monkeypatch.setattr(calls, "calls_functions", lambda func: True)
    monkeypatch.setattr(calls, "names_functions", lambda func: True)  # (InOutUseValid's first return)
    monkeypatch.setattr(grammar, "_active", lambda rules, func, classes: grammar._plan(rules))
    monkeypatch.setattr(grammar, "_VISITS", {})  # (plans made with the real _active)
    monkeypatch.setattr(writes, "_direct_writes", lambda func: None)
    monkeypatch.setattr(memory, "_addresses_fit", lambda func, capacity: False)
    for inv in ALL.values():
        monkeypatch.setattr(inv, "holds_if", None)
        monkeypatch.setattr(inv, "idle_if", None)
    slow = [_findings(p) for p in corpus]
    assert fast == slow
    # The malformed programs do break something, so the comparison covers the full checkers' texts.
    assert all(found for found in fast[-len(_malformed()) :])
    assert not any(fast[-len(_malformed()) - len(_reassigned()) : -len(_malformed())])
