"""derive_index: the index of a rebuilt function, copied in part from the index of the one it
rebuilds, lists exactly the nodes a walk of it does."""

from __future__ import annotations

import importlib.util
import operator
import sys
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto.analysis import function_index
from pypto.analysis.index import FunctionIndex, derive_index, walk

INDEX = ir.ScalarType(ir.INDEX)


def _same_nodes(func: ir.Function) -> bool:
    walked = walk(func)[1:]
    listed = function_index(func).nodes
    return len(walked) == len(listed) and all(a is b for a, b in zip(walked, listed))


def _old_and_new() -> tuple[ir.Function, ir.Function]:
    """A function with a loop (an iter_arg's init value follows the loop's fields), an if and a
    statement held twice in one block; and a rebuild keeping them with statements inserted."""
    n, x, i, s, t, u, out, c = (ir.Var(name, INDEX) for name in ("n", "x", "i", "s", "t", "u", "out", "c"))
    acc = ir.IterArg("acc", INDEX, x + 1)
    twice = ir.EvalStmt(acc + i)
    loop_body = [ir.AssignStmt(s, acc + i + n), twice, twice, ir.YieldStmt([s])]
    branch = [ir.AssignStmt(u, n * 2), ir.EvalStmt(u + 1)]
    head = [ir.AssignStmt(t, n + 1), ir.AssignStmt(c, t < n)]

    def func(extra: ir.Stmt | None) -> ir.Function:
        more = [] if extra is None else [extra]
        loop = ir.ForStmt(i, 0, n, 1, [acc], ir.SeqStmts(more + loop_body[:2] + more + loop_body[2:]), [out])
        branch_stmt = ir.IfStmt(c, ir.SeqStmts(branch[:1] + more + branch[1:]), None, [])
        body = ir.SeqStmts(head[:1] + more + head[1:] + [loop, branch_stmt] + more + [ir.ReturnStmt([out])])
        return ir.Function("f", [n, x], [INDEX], body)

    return func(None), func(ir.EvalStmt(n + 3))


def test_a_derived_index_lists_the_nodes_of_a_walk() -> None:
    old, new = _old_and_new()
    function_index(old)
    index = derive_index(new, old)
    assert function_index(new) is index
    assert _same_nodes(new)


def test_a_function_indexed_before_keeps_its_index() -> None:
    old, new = _old_and_new()
    first = function_index(new)
    assert derive_index(new, old) is first


# ---- every function the deriving passes produce, against a fresh index -------------------------------

ROOT = Path(__file__).resolve().parents[2]
DERIVING = ("InsertPipeSync", "NormalizeReturnOrder")  # the passes that call derive_index


def _bench_program(statements: int) -> ir.Program:
    """The benchmarks' generated program of about ``statements`` statements."""
    spec = importlib.util.spec_from_file_location("bench_parse_print", ROOT / "tests" / "benchmarks" / "bench_parse_print.py")
    module = sys.modules.setdefault(spec.name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return pl.parse(module.program_text(statements))


class _Outputs(passes.PassInstrument):
    """Keeps the program after each run of a deriving pass."""

    name = "DerivedOutputs"

    def __init__(self) -> None:
        self.programs: list[tuple[str, ir.Program]] = []

    def after_pass(self, p: passes.Pass, program: ir.Program) -> None:
        if p.name in DERIVING:
            self.programs.append((p.name, program))


def _assert_same_index(derived: FunctionIndex, fresh: FunctionIndex) -> None:
    assert len(derived.nodes) == len(fresh.nodes) and all(map(operator.is_, derived.nodes, fresh.nodes))
    assert derived._positions == fresh._positions and list(derived._positions) == list(fresh._positions)
    assert derived.classes == fresh.classes
    assert list(map(id, derived.types)) == list(map(id, fresh.types))
    assert derived.op_names == fresh.op_names
    # any other attribute an index sets up (its caches of lookups are empty or equal)
    assert vars(derived).keys() == vars(fresh).keys()
    # the lookups carried over from the rebuilt function's index (derive_index's inserted_ops)
    for classes, found in derived._types_of.items():
        assert list(map(id, found)) == list(map(id, fresh.types_of(*classes)))
    for name in fresh.op_names:
        assert list(map(id, derived.calls_to(name))) == list(map(id, fresh.calls_to(name)))


@pytest.mark.parametrize("verify", ["none", "basic"])
@pytest.mark.parametrize("source", ["examples", "bench300"])
def test_the_indexes_of_the_deriving_passes_equal_fresh_ones(source: str, verify: str) -> None:
    """The index function_index holds for every function InsertPipeSync and NormalizeReturnOrder produce
    (derived from the function each rebuilt, shared with the input, or walked) equals a fresh walk's, for
    every example (every other one with the checks on) and the benchmarks' generated program of 300 statements: with the checks off (an index
    is derived whether or not a check asks for it) and on (the checks before InsertPipeSync fill the
    lookups of the kernels' indexes that it carries over to the synced kernels)."""
    paths = sorted((ROOT / "examples").glob("*.py"))
    if verify == "basic":  # every other example: the checks' lookups are the same kinds on each
        paths = paths[::2]
    programs = [pl.loads_program(str(path)) for path in paths] if source == "examples" else [_bench_program(300)]
    outputs = _Outputs()
    with passes.PassContext([outputs]):
        for program in programs:
            passes.PassManager(passes.builtin_passes(), verify=verify).run(program)
    checked = set()
    for _, program in outputs.programs:
        for func in program.functions.values():
            if id(func) not in checked:
                checked.add(id(func))
                _assert_same_index(function_index(func), FunctionIndex(func))
    assert {name for name, _ in outputs.programs} == set(DERIVING)
    assert len(checked) > (50 if source == "examples" else 10)


def test_a_kernel_synced_again_carries_nothing_over() -> None:
    """InsertPipeSync run on its own output strips its syncs and places them again: the kernels it had synced
    call the sync ops already, so the indexes of their rebuilds carry no lookup over (their sync calls
    would be listed twice) and equal fresh ones."""
    program = passes.PassManager(passes.builtin_passes(), verify="basic").run(
        pl.loads_program(str(ROOT / "examples" / "row_softmax.py")))
    kernels = [f for f in program.functions.values() if f.func_type in (ir.FunctionType.AIV, ir.FunctionType.AIC)]
    for func in kernels:  # the lookups a check makes, which a first run carries over
        assert function_index(func).op_names and function_index(func).types_of(ir.TileType)
    synced_again = passes.insert_pipe_sync()(program)
    rebuilt = [f for f in synced_again.functions.values() if f not in kernels and f.func_type in (
        ir.FunctionType.AIV, ir.FunctionType.AIC)]
    assert rebuilt
    for func in rebuilt:
        _assert_same_index(function_index(func), FunctionIndex(func))


_AUTO_SYNC_STORE = """
@pl.program
class T:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [0, 0], [128, 128])
        c: pl.Tile[[128, 128], pl.FP32] = pl.add(t, t)
        pl.store(c, [0, 0], out, attrs={"auto_sync": True})
        r: pl.Tensor[[128, 128], pl.FP32] = pl.store(c, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        out = self.k(a, out)
        return out
"""


def test_a_kernel_with_a_stripped_statement_carries_nothing_over() -> None:
    """InsertPipeSync strips every auto_sync evaluation, whatever its op (here a store): the synced kernel
    lacks a call of the kernel it rebuilt, so its index carries no lookup over and equals a fresh one."""
    outputs = _Outputs()
    with passes.PassContext([outputs]):
        passes.PassManager(passes.builtin_passes(), verify="basic").run(pl.parse(_AUTO_SYNC_STORE))
    synced = dict(outputs.programs)["InsertPipeSync"]
    kernels = [f for f in synced.functions.values() if f.func_type in (ir.FunctionType.AIV, ir.FunctionType.AIC)]
    assert kernels
    for func in kernels:
        assert len(function_index(func).calls_to("tile.store")) == 1
        _assert_same_index(function_index(func), FunctionIndex(func))
