"""Typed attrs (pypto/ir/attrs.py): one model per node kind, dicts validated into it on construction.

Per model: a dict is accepted and typed, a key of another node kind is an error naming the node and
the key, a wrong value type is an error naming both, and printing/parsing, structural equality and
serialization keep the attrs.
"""

from __future__ import annotations

import pytest

from pypto import ir
from pypto.ir.attrs import (
    CallAttrs,
    ForAttrs,
    FunctionAttrs,
    InCoreScopeAttrs,
    ScopeAttrs,
    SpmdScopeAttrs,
    SubmitAttrs,
    TaskDummyAttrs,
)
from pypto.ir.op import system
from pypto.ir.transforms import transform
from pypto.ir.traversal import iter_children, map_children
from pypto.language.parser.diagnostics import ParserSyntaxError, ParserTypeError
from pypto.language.parser.text_parser import parse, parse_program

S = ir.Span.unknown()
AD = ir.ArgDirection
T = ir.TensorType([64], ir.FP32)
TID = ir.ScalarType(ir.DataType.TASK_ID)


def tensor(name: str = "x") -> ir.Var:
    return ir.Var(name, T, S)


def call(attrs: object, op: ir.Op | None = None, args: list | None = None) -> ir.Call:
    return ir.Call(op or ir.GlobalVar("k"), args if args is not None else [tensor()], {}, attrs, ir.UnknownType(), S)


def submit(attrs: object) -> ir.Submit:
    return ir.Submit(ir.GlobalVar("k"), [tensor()], [], {}, attrs, ir.UnknownType(), S)


def loop(attrs: object, kind: ir.ForKind = ir.ForKind.Sequential) -> ir.ForStmt:
    return ir.ForStmt(ir.Var("i", ir.ScalarType(ir.INDEX), S), 0, 4, 1, [], ir.SeqStmts([], S), [], S, kind, attrs)


def function(attrs: object) -> ir.Function:
    return ir.Function("f", [], [], ir.SeqStmts([], S), S, attrs=attrs)


def incore(attrs: object) -> ir.InCoreScopeStmt:
    return ir.InCoreScopeStmt(body=ir.SeqStmts([], S), span=S, attrs=attrs)


def spmd(attrs: object) -> ir.SpmdScopeStmt:
    return ir.SpmdScopeStmt(4, body=ir.SeqStmts([], S), span=S, attrs=attrs)


def cluster(attrs: object) -> ir.ClusterScopeStmt:
    return ir.ClusterScopeStmt(body=ir.SeqStmts([], S), span=S, attrs=attrs)


# ---------------------------------------------------------------- accepted dicts become models


def test_call_attrs_are_typed() -> None:
    dump = tensor("d")
    c = call({"arg_directions": [AD.Input], "dump_vars": [dump], "core_num": 3, "note": "n"})
    assert type(c.attrs) is CallAttrs
    assert c.attrs.arg_directions == [AD.Input] and c.attrs.dump_vars[0] is dump and c.attrs.core_num == 3
    assert c.attrs.sync_start is None and "sync_start" not in c.attrs  # absent, not False
    assert c.attrs["note"] == "n" and c.arg_directions == [AD.Input]
    # an int direction is accepted as in the reference API, and stored as the enum
    assert call({"arg_directions": [2]}).attrs["arg_directions"] == [AD.InOut]
    assert type(call({"arg_directions": [2]}).attrs["arg_directions"][0]) is AD


def test_task_dummy_calls_carry_the_manual_edges() -> None:
    tid = ir.Var("t", TID, S)
    barrier = system.task_dummy([tid], span=S)
    assert type(barrier.attrs) is TaskDummyAttrs and barrier.attrs.manual_dep_edges == [tid]
    marked = ir.replace(barrier, attrs={**barrier.attrs, "dummy_task": True})
    assert marked.attrs == {"manual_dep_edges": [tid], "dummy_task": True}
    # the same edges on a call of a program function, or of any other op, are rejected
    with pytest.raises(ir.IRTypeError, match=r"^Call: field 'attrs.manual_dep_edges': not an attrs key of a call"):
        ir.replace(barrier, op=ir.GlobalVar("k"))
    with pytest.raises(ir.IRTypeError, match=r"^Call: field 'attrs.dummy_task': not an attrs key of a call"):
        call({"dummy_task": True}, op=ir.get_op("system.task_invalid"), args=[])


def test_submit_attrs_are_typed() -> None:
    tid = ir.Var("t", TID, S)
    s = submit({"arg_directions": [AD.NoDep], "compiler_manual_dep_edges": [tid]})
    assert type(s.attrs) is SubmitAttrs and s.attrs.compiler_manual_dep_edges == [tid]
    assert s.arg_directions == [AD.NoDep]


def test_for_attrs_are_typed_including_the_indexed_keys() -> None:
    f = loop({"pipeline_stages": 2, "iter_arg_rebind_0": False, "iter_arg_array_size_1": 8, "unroll_hint": 4},
             ir.ForKind.Pipeline)
    assert type(f.attrs) is ForAttrs and f.attrs.pipeline_stages == 2
    assert f.attrs == {"pipeline_stages": 2, "iter_arg_rebind_0": False, "iter_arg_array_size_1": 8, "unroll_hint": 4}
    assert loop(None).attrs == {} and type(loop(None).attrs) is ForAttrs


def test_scope_attrs_depend_on_the_scope_kind() -> None:
    tid, dep, x = ir.Var("t", TID, S), ir.Var("d", TID, S), tensor()
    s = incore({"task_id_var": tid, "manual_dep_edges": [dep], "no_dep_args": [x], "slot_num": 4,
                "allow_early_resolve": True})
    assert type(s.attrs) is InCoreScopeAttrs and s.attrs.task_id_var is tid and s.attrs.slot_num == 4
    pred = ir.Gt(ir.Var("n", ir.ScalarType(ir.INDEX), S), ir.ConstInt(0, ir.INDEX, S), ir.BOOL, S)
    assert type(spmd({"predicate": pred}).attrs) is SpmdScopeAttrs and spmd({"predicate": pred}).attrs.predicate is pred
    c = cluster({"dump_vars": [x], "note": "kept"})
    assert type(c.attrs) is ScopeAttrs and c.attrs.dump_vars == [x]


def test_function_attrs_are_typed() -> None:
    f = function({"split": 2, "auto_scope": False, "core_num": 8, "visited_by": "plugin"})
    assert type(f.attrs) is FunctionAttrs and f.attrs.split is ir.SplitMode.LEFT_RIGHT and f.split is f.attrs.split
    assert f.attrs.auto_scope is False and f.attrs["visited_by"] == "plugin"
    assert function(None).attrs == {} and function(None).split is None


# ---------------------------------------------------------------- keys of another kind, typos


@pytest.mark.parametrize(
    "build, key, message",
    [
        (call, "manual_dep_edges", r"^Call: field 'attrs.manual_dep_edges': not an attrs key of a call, but of a "
                                   r"system.task_dummy call, an InCore scope, an Spmd scope"),
        (submit, "manual_dep_edges", r"^Submit: field 'attrs.manual_dep_edges': not an attrs key of a submit"),
        (loop, "split", r"^ForStmt: field 'attrs.split': not an attrs key of a for loop, but of a function"),
        (function, "pipeline_stages", r"^Function 'f': field 'attrs.pipeline_stages': not an attrs key of a function"),
        (incore, "predicate", r"^InCoreScopeStmt: field 'attrs.predicate': not an attrs key of an InCore scope"),
        (spmd, "no_dep_args", r"^SpmdScopeStmt: field 'attrs.no_dep_args': not an attrs key of an Spmd scope"),
        (cluster, "task_id_var", r"^ClusterScopeStmt: field 'attrs.task_id_var': not an attrs key of a Cluster"),
        (call, "iter_arg_rebind_3", r"^Call: field 'attrs.iter_arg_rebind_3': not an attrs key of a call, but of a "
                                    r"for loop"),
    ],
)
def test_a_key_of_another_node_kind_is_an_error(build: object, key: str, message: str) -> None:
    with pytest.raises(ir.IRTypeError, match=message):
        build({key: []})  # type: ignore[operator]


def test_a_near_miss_of_a_reserved_key_is_an_error() -> None:
    with pytest.raises(ir.IRTypeError, match=r"^Call: field 'attrs.arg_direction': unknown key \(did you mean "
                                             r"'arg_directions'\?\)"):
        call({"arg_direction": [AD.Input]})


def test_the_issue_example_reports_both_keys() -> None:
    with pytest.raises(ir.IRTypeError) as err:
        call({"arg_directions": "garbage", "manual_dep_edges": 42})
    assert str(err.value).splitlines() == [
        "Call: field 'attrs.manual_dep_edges': not an attrs key of a call, but of a system.task_dummy call, "
        "an InCore scope, an Spmd scope (got int)",
        "Call: field 'attrs.arg_directions': Input should be a valid list (got str)",
    ]


# ---------------------------------------------------------------- wrong value types


@pytest.mark.parametrize(
    "build, attrs, error, message",
    [
        (call, {"arg_directions": ["in"]}, ir.IRTypeError,
         r"^Call: field 'attrs.arg_directions.0': expected a member of ArgDirection \(got str\)$"),
        (call, {"arg_directions": [True]}, ir.IRTypeError, r"expected a member of ArgDirection \(got bool\)"),
        (call, {"arg_directions": [9]}, ir.IRValueError, r"^Call: field 'attrs.arg_directions.0': 9 is not a value of "
                                                         r"ArgDirection$"),
        (call, {"core_num": 0}, ir.IRValueError, r"^Call: field 'attrs.core_num': a core count must be >= 1, got 0$"),
        (call, {"core_num": "4"}, ir.IRTypeError, r"^Call: field 'attrs.core_num': expected an int >= 1 or an index "
                                                  r"Expr"),
        (call, {"dump_vars": [1]}, ir.IRTypeError, r"^Call: field 'attrs.dump_vars.0': Input should be an instance of "
                                                   r"Var"),
        (call, {"core_placement": "gpu"}, ir.IRTypeError, r"^Call: field 'attrs.core_placement': Input should be "
                                                          r"'aic' or 'aiv'"),
        (call, {"sync_start": None}, ir.IRTypeError, r"^Call: field 'attrs.sync_start': a reserved key cannot be None"),
        (submit, {"compiler_manual_dep_edges": 3}, ir.IRTypeError, r"^Submit: field 'attrs.compiler_manual_dep_edges':"
                                                                   r" Input should be a valid list"),
        (loop, {"pipeline_stages": "2"}, ir.IRTypeError, r"^ForStmt: field 'attrs.pipeline_stages': Input should be a "
                                                         r"valid integer"),
        (loop, {"iter_arg_rebind_0": 1}, ir.IRTypeError, r"^ForStmt: field 'attrs.iter_arg_rebind_0': Input should be "
                                                         r"a valid boolean"),
        (loop, {"iter_arg_array_size_2": 0}, ir.IRTypeError, r"^ForStmt: field 'attrs.iter_arg_array_size_2': Input "
                                                             r"should be greater than or equal to 1"),
        (incore, {"slot_num": True}, ir.IRTypeError, r"^InCoreScopeStmt: field 'attrs.slot_num': Input should be a "
                                                     r"valid integer"),
        (incore, {"task_id_var": ir.ConstInt(1, ir.INDEX, S)}, ir.IRTypeError,
         r"^InCoreScopeStmt: field 'attrs.task_id_var': Input should be an instance of Var"),
        (spmd, {"allow_early_resolve": "yes"}, ir.IRTypeError, r"^SpmdScopeStmt: field 'attrs.allow_early_resolve': "
                                                               r"Input should be a valid boolean"),
        (function, {"split": "UP_DOWN"}, ir.IRTypeError, r"^Function 'f': field 'attrs.split': expected a member of "
                                                         r"SplitMode"),
        (function, {"external_source": 1}, ir.IRTypeError, r"^Function 'f': field 'attrs.external_source': Input "
                                                           r"should be a valid string"),
        (function, {1: 2}, ir.IRTypeError, r"^Function 'f': field 'attrs.1': attrs keys must be str"),
        (function, [("split", 1)], ir.IRTypeError, r"^Function 'f': field 'attrs': attrs must be a dict"),
        (call, [], ir.IRTypeError, r"^Call: field 'attrs': attrs must be a dict"),
    ],
)
def test_a_wrong_value_type_is_an_error(build: object, attrs: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        build(attrs)  # type: ignore[operator]


def test_models_built_directly_validate_too() -> None:
    assert CallAttrs(arg_directions=[AD.Input]) == {"arg_directions": [AD.Input]}
    with pytest.raises(ir.IRTypeError, match=r"^CallAttrs: field 'manual_dep_edges': not an attrs key of a call"):
        CallAttrs(manual_dep_edges=[])


# ---------------------------------------------------------------- the mapping view


def test_attrs_read_like_an_ordered_read_only_mapping() -> None:
    x = tensor()
    attrs = call({"note": "n", "dump_vars": [x], "arg_directions": [AD.Input]}).attrs
    # reserved keys in declaration order, then the user keys as given
    assert list(attrs) == ["arg_directions", "dump_vars", "note"] and len(attrs) == 3
    assert dict(attrs) == {"arg_directions": [AD.Input], "dump_vars": [x], "note": "n"}
    assert {**attrs, "k": 1}["k"] == 1 and attrs.get("core_num") is None and attrs.get("note") == "n"
    assert "dump_vars" in attrs and "core_num" not in attrs and bool(CallAttrs()) is False
    assert attrs == {"note": "n", "arg_directions": [AD.Input], "dump_vars": [x]} and attrs != {"note": "n"}
    with pytest.raises(KeyError):
        attrs["core_num"]
    with pytest.raises(AttributeError, match="cannot assign CallAttrs.note"):
        attrs.note = "m"  # type: ignore[misc]
    assert repr(attrs) == f"CallAttrs({{'arg_directions': [{AD.Input!r}], 'dump_vars': [{x!r}], 'note': 'n'}})"


def test_replace_and_rebuilds_keep_or_revalidate_the_model() -> None:
    x, y = tensor("x"), tensor("y")
    c = call({"dump_vars": [x], "note": "n"})
    assert ir.replace(c).attrs is c.attrs  # an attrs model of the right kind is kept as it is
    assert map_children(c, lambda n: n) is c
    moved = map_children(c, lambda n: y if n is x else n)  # an expression inside attrs changed
    assert type(moved.attrs) is CallAttrs and moved.attrs.dump_vars == [y] and moved.attrs["note"] == "n"


# ---------------------------------------------------------------- printing, parsing, equality, serialization

PROGRAM = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "note": "kernel"})
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        for i in pl.range(4, attrs={"unroll_hint": 2, "iter_arg_rebind_0": True}):
            out = self.k(x, out, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
        with pl.manual_scope():
            y, t1 = pl.submit(self.k, x, out, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=4)], deps=[t1]) as t2:
                z: pl.Tensor[[64], pl.FP32] = pl.add(x, x)
            bar = pl.system.task_dummy(deps=[t1, t2])
        with pl.cluster(attrs={"note": "c"}):
            pass
        return out
'''

PRINTED_LINES = [
    "        pl.func_attr({\"split\": pl.SplitMode.UP_DOWN, \"note\": 'kernel'})",
    '        for i in pl.range(4, attrs={"unroll_hint": 2, "iter_arg_rebind_0": True}):',
    '            out: pl.Tensor[[64], pl.FP32] = self.k(x, out, attrs={"arg_directions": [pl.adir.input, '
    'pl.adir.output_existing]})',
    "            _submit_tmp: pl.Tuple[pl.Tensor[[64], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(self.k, x, out, "
    'attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})',
    "            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=4)], "
    "deps=[t1]) as t2:",
    "            bar: pl.Scalar[pl.TASK_ID] = pl.system.task_dummy(deps=[t1, t2])",
    "        with pl.cluster(attrs={\"note\": 'c'}):",
]


def _nodes(program: ir.Program) -> dict[str, object]:
    k, main = program.get_function("k"), program.get_function("main")
    loop_stmt, manual, cluster_stmt, _ = main.body.stmts
    stmts = manual.body.stmts
    return {
        "function": k, "loop": loop_stmt, "call": loop_stmt.body.value, "submit": stmts[0].value,
        "incore": stmts[3], "dummy": stmts[4].value, "cluster": cluster_stmt,
    }


def test_print_parse_round_trip_keeps_every_model() -> None:
    program = parse_program(PROGRAM)
    text = program.as_python()
    lines = text.splitlines()
    for line in PRINTED_LINES:
        assert line in lines
    again = parse_program(text)
    ir.assert_structural_equal(program, again)
    assert again.as_python() == text
    kinds = {name: type(node.attrs) for name, node in _nodes(again).items()}  # type: ignore[attr-defined]
    assert kinds == {
        "function": FunctionAttrs, "loop": ForAttrs, "call": CallAttrs, "submit": SubmitAttrs,
        "incore": InCoreScopeAttrs, "dummy": TaskDummyAttrs, "cluster": ScopeAttrs,
    }


def test_serialize_round_trip_keeps_every_model() -> None:
    program = parse_program(PROGRAM)
    back = ir.deserialize(ir.serialize(program))
    ir.assert_structural_equal(program, back, enable_auto_mapping=True)
    for name, node in _nodes(back).items():
        before = _nodes(program)[name]
        assert type(node.attrs) is type(before.attrs) and list(node.attrs) == list(before.attrs)  # type: ignore
    assert _nodes(back)["function"].attrs == {"split": ir.SplitMode.UP_DOWN, "note": "kernel"}  # type: ignore


@pytest.mark.parametrize(
    "build, same, other",
    [
        (call, {"arg_directions": [AD.Input], "note": 1}, {"arg_directions": [AD.Output], "note": 1}),
        (submit, {"arg_directions": [AD.Input]}, {"arg_directions": [AD.Input], "note": 1}),
        (loop, {"pipeline_stages": 2, "iter_arg_rebind_0": True}, {"pipeline_stages": 2, "iter_arg_rebind_0": False}),
        (incore, {"slot_num": 2}, {"slot_num": 4}),
        (spmd, {"allow_early_resolve": True}, {}),
        (cluster, {"note": "a"}, {"note": "b"}),
        (function, {"split": 1, "core_num": 4}, {"split": 2, "core_num": 4}),
    ],
)
def test_attrs_take_part_in_structural_equality_and_hash(build: object, same: dict, other: dict) -> None:
    a, b, c = build(same), build(dict(reversed(same.items()))), build(other)  # type: ignore[operator]
    assert ir.structural_equal(a, b, enable_auto_mapping=True)  # given order does not matter
    assert ir.structural_hash(a, True) == ir.structural_hash(b, True)
    assert not ir.structural_equal(a, c, enable_auto_mapping=True)
    with pytest.raises(ValueError, match=r"Structural equality assertion failed at: attrs"):
        ir.assert_structural_equal(a, c, enable_auto_mapping=True)


def test_the_scope_task_id_is_a_definition_for_structural_equality() -> None:
    first = incore({"task_id_var": ir.Var("t", TID, S)})
    second = incore({"task_id_var": ir.Var("u", TID, S)})
    assert ir.structural_equal(first, second)


# ---------------------------------------------------------------- DSL errors


@pytest.mark.parametrize(
    "body, message, error",
    [
        ('y = pl.add(x, x, attrs={"arg_directions": "bad"})', "Call: field 'attrs.arg_directions'", ParserTypeError),
        ('for i in pl.range(4, attrs={"pipeline_stages": "x"}):\n    pass', "ForStmt: field 'attrs.pipeline_stages'",
         ParserTypeError),
        ('for i in pl.range(4, attrs={"task_id_var": 1}):\n    pass', "not an attrs key of a for loop",
         ParserTypeError),
        # A malformed pl.func_attr argument is a syntax error, as in the established API (issue 33 item 1).
        ('pl.func_attr({"split": "x"})\npass', "pl.func_attr: field 'attrs.split'", ParserSyntaxError),
        ('with pl.cluster(attrs={"slot_num": 2}):\n    pass', "ClusterScopeStmt: field 'attrs.slot_num'",
         ParserTypeError),
    ],
)
def test_bad_attrs_in_the_dsl_are_parser_errors_with_a_span(body: str, message: str, error: type) -> None:
    src = "@pl.function\ndef f(x: pl.Tensor[[64], pl.FP32]):\n" + "".join(f"    {ln}\n" for ln in body.splitlines())
    with pytest.raises(error) as err:
        parse(src)
    assert message in str(err.value) and err.value.span is not None and err.value.hint


def test_an_attrs_model_is_a_container_for_the_generic_walkers() -> None:
    x, y = tensor("x"), tensor("y")
    attrs = call({"dump_vars": [x], "note": "n"}).attrs
    assert list(iter_children(attrs)) == [x]
    moved = map_children(attrs, lambda n: y if n is x else n)
    assert type(moved) is CallAttrs and moved == {"dump_vars": [y], "note": "n"}
    assert map_children(attrs, lambda n: n) is attrs
    assert transform(attrs, lambda n: y if n is x else None) == {"dump_vars": [y], "note": "n"}
