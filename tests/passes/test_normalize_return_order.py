"""NormalizeReturnOrder: kernels return the parameters they write, in parameter order; callers'
tuple items follow the new order."""

from __future__ import annotations

import importlib

import pytest
from pass_helpers import before_after
from tile_programs import PROGRAMS, RETURNS, front, inputs

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.languages.invariants import ReturnParamsExplicit
from pypto.passes import PassError


def split(name: str) -> ir.Program:
    return passes.expand_mixed_kernel()(passes.infer_tile_memory_space()(front(name)))


def normalize(program: ir.Program) -> ir.Program:
    return assert_pass_preserves(passes.normalize_return_order(), program, inputs(program), entry="main")


@pytest.mark.parametrize("name", sorted({**PROGRAMS, **RETURNS}))
def test_snapshot(name: str, snapshot) -> None:
    before = split(name)
    after = normalize(before)
    assert ReturnParamsExplicit.check(after) == []
    assert before_after("NormalizeReturnOrder", before, after) == snapshot


def test_a_store_result_is_returned_as_its_parameter() -> None:
    after = normalize(split("tile_add"))
    assert after.get_function("tile_add").body.stmts[-1].as_python() == "return c"
    # An InCore kernel breaks the rule before the pass and keeps it after.
    incore = passes.infer_tile_memory_space()(front("tile_add"))
    assert [v.code for v in ReturnParamsExplicit.check(incore)] == ["IMPLICIT_PARAM_RETURN"]
    assert ReturnParamsExplicit.check(passes.normalize_return_order()(incore)) == []


def test_returns_follow_parameter_order_and_callers_follow_them() -> None:
    after = normalize(split("two_outputs"))
    assert after.get_function("k").body.stmts[-1].as_python() == "return p, q"
    main = after.get_function("main").body.stmts
    assert [s.as_python() for s in main[1:3]] == [
        "a: pl.Tensor[[64, 64], pl.FP32] = _tuple_tmp[1]",
        "b: pl.Tensor[[64, 64], pl.FP32] = _tuple_tmp[0]",
    ]


def test_a_loop_carried_write_back_is_its_parameter() -> None:
    after = normalize(split("loop_carry"))
    assert after.get_function("scale_loop").body.stmts[-1].as_python() == "return y"


def test_a_normalized_program_is_unchanged() -> None:
    once = passes.normalize_return_order()(split("two_outputs"))
    assert passes.normalize_return_order()(once) is once


def test_a_whole_tuple_use_of_reordered_results_is_an_error() -> None:
    program = split("two_outputs")
    main = program.get_function("main")
    call = main.body.stmts[0]
    ret = ir.ReturnStmt([call.var])
    whole = ir.replace(main, body=ir.SeqStmts([call, ret]), return_types=[call.var.type])
    program = ir.Program([program.get_function("k"), whole], program.name)
    with pytest.raises(PassError, match="the results of 'k' are used as a whole tuple"):
        passes.normalize_return_order()(program)


def _general_aliases(func: ir.Function) -> dict[ir.Var, ir.Var]:
    from pypto.languages.invariants.functions import _param_aliases

    return {v: p for v, p in _param_aliases(func).items() if v is not p}


@pytest.mark.parametrize("name", sorted({**PROGRAMS, **RETURNS}))
def test_returned_aliases_agree_with_the_alias_walk(name: str) -> None:
    # A straight-line kernel's returned aliases come from following its definitions back; they are
    # what the forward alias walk of every variable (the general path) gives for the returned values.
    from pypto.passes.normalize_return_order import _returned_aliases
    from pypto.transform.util import straight_line

    for func in split(name).functions.values():
        alias, returns = _returned_aliases(func, straight_line(func))
        general = _general_aliases(func)
        returned = {v for r in returns for v in r.value if isinstance(v, ir.Var)}
        assert alias == {v: general[v] for v in returned if v in general}
        if straight_line(func) is None:  # the general path: every variable's alias
            assert alias == general


@pytest.mark.parametrize("name", sorted({**PROGRAMS, **RETURNS}))
def test_straight_line_kernels_are_rewritten_as_the_general_path_does(name: str, monkeypatch) -> None:
    # A straight-line kernel's aliases are followed back and its block copied with the returns
    # replaced (and permuted); the general path (alias walk, generic rewrite) gives an equal program.
    module = importlib.import_module("pypto.passes.normalize_return_order")  # (the package's name is the pass)
    before = split(name)
    fast = passes.normalize_return_order()(before)
    monkeypatch.setattr(module, "straight_line", lambda func: None)
    general = passes.normalize_return_order()(before)
    ir.assert_structural_equal(fast, general)
    assert fast.as_python() == general.as_python()
    for f in before.functions.values():  # a function left as it is stays the same object on both paths
        assert (fast.get_function(f.name) is f) == (general.get_function(f.name) is f)


def test_returned_aliases_of_a_rebound_variable_take_its_latest_write() -> None:
    # Not SSA: `r` is a copy of the store into p, then a plain tile. The latest assignment with an
    # alias decides, as in the forward walk; a later one without keeps it.
    from pypto.passes.normalize_return_order import _returned_aliases
    from pypto.transform.util import straight_line

    k = split("two_outputs").get_function("k")
    stmts = k.body.stmts
    stores = [s for s in stmts if isinstance(s, ir.AssignStmt) and s.value.op.name == "tile.store"]
    tile = next(s for s in stmts if isinstance(s, ir.AssignStmt) and s.value.op.name != "tile.store")
    r = ir.Var("r", stores[0].var.type)
    body = [s for s in stmts if not isinstance(s, ir.ReturnStmt)]
    found = []
    for tail in (
        [ir.AssignStmt(r, stores[1].var)],
        [ir.AssignStmt(r, stores[1].var), ir.AssignStmt(r, tile.var)],
        [ir.AssignStmt(r, tile.var)],
    ):
        func = ir.replace(k, body=ir.SeqStmts([*body, *tail, ir.ReturnStmt([r])]), return_types=[r.type])
        alias, _ = _returned_aliases(func, straight_line(func))
        assert alias == {v: p for v, p in _general_aliases(func).items() if v is r}
        found.append(alias)
    p = k.params[1]
    assert found == [{r: p}, {r: p}, {}]


def test_a_kernel_storing_into_its_output_a_thousand_times_returns_it() -> None:
    # The returned value is the last of 1200 chained stores into the Out parameter: followed back to
    # it without recursion (Python's limit is 1000 frames).
    t = "pl.Tensor[[16, 16], pl.FP32]"
    chain = "\n".join(f"        y{i}: {t} = pl.store(s, [0, 0], y{i - 1})" for i in range(1, 1200))
    program = pl.parse(f"""
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: {t}, y: pl.Out[{t}]) -> {t}:
        s: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        y0: {t} = pl.store(s, [0, 0], y)
{chain}
        return y1199

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {t}, y: pl.Out[{t}]) -> {t}:
        r: {t} = self.k(x, y)
        return r
""")
    k = passes.normalize_return_order()(program).get_function("k")
    (returned,) = k.body.stmts[-1].value
    assert returned is k.params[1]
