"""pypto.analysis: defs (one definition), free variables, use counts, the call graph, fresh names
and the weak per-function cache."""

from __future__ import annotations

import gc
import operator

from pypto import ir
from pypto.analysis import (
    NameSupply,
    call_graph,
    expr_vars,
    find_cycle,
    free_vars,
    function_index,
    stmt_defs,
    use_counts,
)
from pypto.analysis.index import _INDEX, FunctionIndex, _leaves, derive_index, walk

INDEX = ir.ScalarType(ir.INDEX)


def _loop() -> tuple[dict[str, ir.Var], ir.ForStmt]:
    n, x, i, s, out = (ir.Var(name, INDEX) for name in ("n", "x", "i", "s", "out"))
    acc = ir.IterArg("acc", INDEX, x)
    body = ir.SeqStmts([ir.AssignStmt(s, acc + i + n), ir.YieldStmt([s])])
    return dict(n=n, x=x, i=i, s=s, out=out, acc=acc), ir.ForStmt(i, 0, n, 1, [acc], body, [out])


def test_stmt_defs_and_collect_def_vars_agree() -> None:
    v, loop = _loop()
    assert stmt_defs(loop) == [v["i"], v["acc"], v["out"]]
    assert ir.collect_def_vars(loop) == [v["i"], v["acc"], v["s"], v["out"]]


def test_free_vars_are_the_live_ins_in_first_read_order() -> None:
    v, loop = _loop()
    assert free_vars(loop) == [v["n"], v["x"]]
    counts = use_counts(loop)
    assert counts[v["acc"]] == 1 and counts[v["s"]] == 1 and counts[v["i"]] == 1


def test_expr_vars_of_a_deep_expression() -> None:
    x = ir.Var("x", INDEX)
    e: ir.Expr = x
    for _ in range(5_000):
        e = ir.Add(e, x, ir.INDEX)
    assert len(expr_vars(e)) == 5_001


def _call(name: str) -> ir.Stmt:
    return ir.EvalStmt(ir.Call(ir.GlobalVar(name), [], INDEX))


def test_call_graph_and_its_cycles() -> None:
    funcs = [
        ir.Function("a", [], [], ir.SeqStmts([_call("b"), _call("c")])),
        ir.Function("b", [], [], _call("c")),
        ir.Function("c", [], [], _call("b")),
        ir.Function("d", [], [], _call("a")),
    ]
    program = ir.Program(funcs, "P")
    assert call_graph(program) == {"a": ["b", "c"], "b": ["c"], "c": ["b"], "d": ["a"]}
    assert find_cycle(call_graph(program)) == ["b", "c", "b"]
    assert find_cycle(call_graph(program, lambda f: f.name != "c")) is None


def test_names_are_numbered_per_key() -> None:
    names = NameSupply()
    assert [names.number("x"), names.number("x"), names.number("y"), names.number("x")] == [0, 1, 0, 2]


def test_the_function_index_is_cached_weakly() -> None:
    _, loop = _loop()
    func = ir.Function("f", [], [], loop)
    assert function_index(func) is function_index(func)
    gc.collect()  # earlier tests' garbage (no longer held by the checker caches) goes first
    before = len(_INDEX)
    del func
    gc.collect()
    assert len(_INDEX) == before - 1


def test_the_function_index_finds_nodes_by_their_class_or_a_base_class() -> None:
    v, loop = _loop()
    assign, yield_ = loop.body.stmts
    index = function_index(ir.Function("f", [], [], loop))
    assert index.of(ir.YieldStmt) == [yield_]
    assert index.of(ir.YieldStmt, ir.AssignStmt, ir.YieldStmt) == [assign, yield_]  # pre-order, once each
    assert index.of(ir.Stmt) == [loop, loop.body, assign, yield_]
    assert index.of(ir.Var) == index.of(ir.Var, ir.IterArg)  # an IterArg is a Var
    assert v["acc"] in index.of(ir.Var) and index.of(ir.IterArg) == [v["acc"]] * index.of(ir.Var).count(v["acc"])
    assert index.has(ir.IterArg) and index.has(ir.Stmt) and not index.has(ir.IfStmt, ir.WhileStmt)


def test_a_class_is_a_leaf_until_a_subclass_is_made() -> None:
    # The index looks an exact class up directly only while no subclass of it exists.
    class Base:
        pass

    assert _leaves((Base, ir.YieldStmt)) and not _leaves((ir.Stmt,))

    class Derived(Base):
        pass

    assert not _leaves((Base,)) and _leaves((Derived,))


def _reference_walk(node: object) -> list:
    """Pre-order of the nodes below ``node`` as ``walk`` documents it: child fields in order (types
    skipped, variables leaves), then a loop's iter_arg init values."""
    from pypto.analysis.index import _node_fields
    from pypto.ir.traversal import iter_value
    from pypto.ir.type_base import Type

    out = [node]
    for name in _node_fields(type(node)):
        for child in iter_value(getattr(node, name)):
            if not isinstance(child, Type):  # a function's return types
                out += _reference_walk(child)
    if isinstance(node, (ir.ForStmt, ir.WhileStmt)):
        for ia in node.iter_args:
            out += _reference_walk(ia.initValue)
    return out


def test_walk_lists_every_node_in_pre_order() -> None:
    # Leaf calls (walked without the stack), nested calls, keyword values and loops, before and
    # after memory planning.
    from pathlib import Path

    import pypto.language as pl
    from pypto import passes
    from pypto.analysis import walk

    examples = Path(__file__).resolve().parents[2] / "examples"
    names = ("tile_add", "mixed_matmul_softmax", "deps_while_if", "tensor_dyn_rows", "cross_core_pipes")
    upto = []
    for p in passes.builtin_passes():
        upto.append(p)
        if p.name == "InitMemRef":
            break
    for name in names:
        program = pl.loads_program(str(examples / f"{name}.py"))
        for stage in (program, passes.PassManager(upto).run(program)):
            for func in stage.functions.values():
                assert [id(n) for n in walk(func)] == [id(n) for n in _reference_walk(func)]


def _nodes(func: ir.Function) -> list:
    return walk(func)[1:]


def test_a_rebuild_keeping_the_first_statements_shares_their_nodes_in_its_index() -> None:
    v, loop = _loop()
    y, z = ir.Var("y", INDEX), ir.Var("z", INDEX)
    body = ir.SeqStmts([loop, ir.AssignStmt(y, v["out"] + 1), ir.ReturnStmt([y])])
    old = ir.Function("f", [v["n"], v["x"]], [INDEX], body)
    kept = function_index(old).nodes
    assert function_index(old).types  # computed before sharing: the shared index derives its own
    for tail in ([ir.ReturnStmt([v["out"]])], [ir.AssignStmt(z, y * 2), ir.ReturnStmt([z])], []):
        new = ir.replace(old, body=ir.SeqStmts(list(old.body.stmts[:2]) + tail))
        derive_index(new, old)
        nodes = function_index(new).nodes
        assert len(nodes) == len(_nodes(new)) and all(map(operator.is_, nodes, _nodes(new)))
        walked = FunctionIndex(new)
        assert function_index(new)._positions == walked._positions and function_index(new).classes == walked.classes
        assert list(map(id, function_index(new).types)) == list(map(id, walked.types))
        # The loop and the assignment: the same node objects as the old index (a copy of its list).
        assert nodes[2] is new.body and all(map(operator.is_, nodes[3:len(kept) - 2], kept[3:len(kept) - 2]))
    # Another statement first: every node is walked again, still the function's own.
    other = ir.replace(old, body=ir.SeqStmts([ir.AssignStmt(y, v["x"] + 1), ir.ReturnStmt([y])]))
    derive_index(other, old)
    assert all(map(operator.is_, function_index(other).nodes, _nodes(other)))
    # Other parameters: no sharing (the index is built by a walk when asked).
    params = ir.replace(old, params=[v["n"]], param_directions=[ir.ParamDirection.In])
    derive_index(params, old)
    assert function_index(params) is not function_index(old)
    assert all(map(operator.is_, function_index(params).nodes, _nodes(params)))


def test_types_of_lists_the_types_of_some_classes_in_order() -> None:
    from pathlib import Path

    import pypto.language as pl
    from pypto.analysis import function_index

    program = pl.loads_program(str(Path(__file__).resolve().parents[2] / "examples" / "tile_add.py"))
    for func in program.functions.values():
        index = function_index(func)
        # types: each distinct type object of a node, in the order of its first node.
        first: dict[int, ir.Type] = {}
        for node in index.nodes:
            t = getattr(node, "type", None)
            if t is not None:
                first.setdefault(id(t), t)
        assert list(map(id, index.types)) == list(first)
        for classes in ((ir.TileType,), (ir.TensorType, ir.ScalarType)):
            assert index.types_of(*classes) == tuple(t for t in index.types if isinstance(t, classes))
        assert index.types_of(ir.TileType) or func.func_type is not ir.FunctionType.InCore


def test_index_constants_are_shared_nodes() -> None:
    from pypto.analysis.intervals import index_const
    from pypto.ir.datatype import DataType
    from pypto.ir.expr import ConstInt

    three = index_const(3)
    assert three is index_const(3)
    assert type(three) is ConstInt and three.value == 3 and three.dtype == DataType.INDEX
