"""walk and the node index against plain definitions: the pre-order of every IR node below a
function (types not entered, variables as leaves, a loop's init values after its fields), the
index's classes, types in node order and op calls, and the reads of its statements (use_counts,
stmt_reads, free_vars), for every function every pass produces from several examples and the
benchmarks' generated program."""

from __future__ import annotations

import operator
from collections import Counter
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto.analysis import expr_vars, free_vars, stmt_defs, stmt_exprs, stmt_reads, use_counts
from pypto.analysis.index import FunctionIndex, _node_fields, push_value, walk

from test_derived_index import _bench_program, _old_and_new

ROOT = Path(__file__).resolve().parents[2]


def _pre_order(node: ir.IRNode, out: list[ir.IRNode]) -> list[ir.IRNode]:
    """The reference walk, recursive (the programs here are shallow)."""
    out.append(node)
    if isinstance(node, ir.Var):
        return out
    for name in _node_fields(type(node)):
        children: list[ir.IRNode] = []
        push_value(getattr(node, name), children)
        for child in children:
            _pre_order(child, out)
    if isinstance(node, (ir.ForStmt, ir.WhileStmt)):
        for ia in node.iter_args:
            _pre_order(ia.initValue, out)
    return out


def _assert_index_of_definitions(func: ir.Function, reads: bool = False) -> None:
    nodes = _pre_order(func, [])
    if reads and any(isinstance(n, _COMPOUND) for n in nodes):  # a straight-line body reads as its block
        _assert_reads_of_definitions(func, nodes)
    walked = walk(func)
    assert len(walked) == len(nodes) and all(map(operator.is_, walked, nodes))
    index = FunctionIndex(func)
    nodes = nodes[1:]
    assert index.classes == {type(n) for n in nodes} | {ir.Function}
    for cls in {type(n) for n in nodes}:
        assert index.of(cls) == [n for n in nodes if isinstance(n, cls)]
    # Positions are kept per tuple of classes: a second ask (after of() asked them) gives the same.
    for classes in ((ir.AssignStmt,), (ir.AssignStmt, ir.EvalStmt, ir.ReturnStmt), (ir.Stmt,), (ir.Expr, ir.Stmt),
                    (ir.IfStmt,)):
        expected = [i for i, n in enumerate(nodes) if isinstance(n, classes)]
        assert index.positions(*classes) == expected and index.positions(*classes) == expected
    types: dict[int, ir.Type] = {}
    for n in nodes:
        t = getattr(n, "type", None)
        if t is not None:
            types.setdefault(id(t), t)
    assert list(map(id, index.types)) == list(types)
    calls = [n for n in nodes if isinstance(n, ir.Call) and not isinstance(n.op, ir.GlobalVar)]
    assert index.op_names == {c.op.name for c in calls}
    for name in index.op_names:
        assert index.calls_to(name) == [c for c in calls if c.op.name == name]


def _assert_reads_of_definitions(func: ir.Function, nodes: list[ir.IRNode]) -> None:
    """The reads of the function body and of each scope in it, against the statements of the
    reference walk ``nodes`` (they walk from body to body)."""
    scopes = [n for n in nodes if isinstance(n, ir.ScopeStmt)]
    for root in [func.body, *scopes]:
        stmts = [n for n in (nodes if root is func.body else _pre_order(root, [])) if isinstance(n, ir.Stmt)]
        read = [v for s in stmts for e in stmt_exprs(s) + ([s.condition] if isinstance(s, ir.WhileStmt) else [])
                for v in expr_vars(e)]
        counts = use_counts(root)
        assert counts == Counter(read) and list(counts) == list(Counter(read))
        assert stmt_reads(root) == set(read)
        defined = {id(v) for s in stmts for v in stmt_defs(s)}
        assert free_vars(root) == list({id(v): v for v in read if id(v) not in defined}.values())


_COMPOUND = (ir.ForStmt, ir.WhileStmt, ir.IfStmt, ir.ScopeStmt)


class _Every(passes.PassInstrument):
    """Keeps the program after every pass."""

    name = "EveryOutput"

    def __init__(self) -> None:
        self.programs: list[ir.Program] = []

    def after_pass(self, p: passes.Pass, program: ir.Program) -> None:
        self.programs.append(program)


def test_blocks_with_compound_and_repeated_statements() -> None:
    for func in _old_and_new():
        _assert_index_of_definitions(func)


# Examples covering each kind of body: mixed cube+vector, cross-core pipes and spmd, loops with ifs
# and while, dynamic shapes, accumulation, manual dependencies (all of them took ~6 s under typeguard).
_EXAMPLES = ["mixed_split_epilogue", "cross_core_pipes", "cross_core_spmd", "deps_while_if", "tensor_dyn_rows",
             "tensor_matmul_acc", "deps_manual_tensor", "tensor_row_loop"]


@pytest.mark.parametrize("source", ["examples", "bench300"])
def test_every_function_of_every_pass(source: str) -> None:
    programs = ([pl.loads_program(str(ROOT / "examples" / f"{name}.py")) for name in _EXAMPLES]
                if source == "examples" else [_bench_program(300)])
    every = _Every()
    with passes.PassContext([every]):
        for program in programs:
            passes.PassManager(passes.builtin_passes(), verify=False).run(program)
    checked: set[int] = set()
    for program in [*programs, *every.programs]:
        for func in program.functions.values():
            if id(func) not in checked:
                checked.add(id(func))
                _assert_index_of_definitions(func, reads=source == "examples")
    assert len(checked) > (40 if source == "examples" else 10)
