"""MessagePack serialization of IR (spec/ir.md §9)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterator

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typeguard import suppress_type_checks

from pypto import DataType, ir
from pypto.ir.node import ModelBase
from pypto.ir.serialize import SerializationError
from pypto.ir.traversal import child_fields

I64 = ir.ScalarType(ir.INT64)
IDX = ir.ScalarType(ir.INDEX)


def sp(line: int) -> ir.Span:
    return ir.Span("kernel.py", line, 5, line, 20)


def rich_program() -> ir.Program:
    """A program touching every node kind, type, view and kwarg value type."""
    n = ir.Var("N", IDX, sp(1))
    vec = ir.MemRef("mem_vec_0", 128, 4096, sp(2))
    pinned = ir.MemRef("buf", span=sp(2), slots=2)[1]
    tile_t = ir.TileType(
        [16, n],
        ir.FP16,
        vec,
        ir.TileView(
            valid_shape=[16, 8], stride=[n, 1], start_offset=4, pad=ir.PadValue.max, compact=ir.CompactMode.normal
        ),
        ir.Mem.Vec,
    )
    acc_t = ir.TileType([16, 16], ir.FP32, pinned, None, ir.Mem.Acc)
    tensor_view = ir.TensorView([n, 1], ir.TensorLayout.DN, [32, n], ir.PadValue.zero)
    tensor_t = ir.TensorType([64, n], ir.FP32, None, tensor_view)
    x = ir.Var("x", tensor_t, sp(3))
    out = ir.Var("out", ir.TensorType([64, n], ir.FP32), sp(3))
    t = ir.Var("t", tile_t, sp(4))
    load = ir.Call(
        ir.Op("tile.load"),
        [x, ir.MakeTuple([ir.ConstInt(0, ir.INDEX), ir.ConstInt(0, ir.INDEX)], sp(5))],
        {
            "dtype": ir.FP16,
            "target_memory": ir.Mem.Vec,
            "layout": ir.TileLayout.col_major,
            "tlayout": ir.TensorLayout.NZ,
            "pad": ir.PadValue.min,
            "flag": True,
            "count": 3,
            "scale": 0.5,
            "name": "tile",
            "dims": [1, 2],
        },
        {"arg_directions": [ir.ArgDirection.Input, ir.ArgDirection.OutputExisting], "extra": ir.ConstInt(7, ir.INT32)},
        tile_t,
        sp(5),
    )
    i = ir.Var("i", IDX, sp(6))
    acc = ir.IterArg("acc", ir.ScalarType(ir.FP32), ir.ConstFloat(0.0, ir.FP32), sp(6))
    acc_out = ir.Var("acc_out", ir.ScalarType(ir.FP32), sp(6))
    step = ir.Var("s", ir.ScalarType(ir.FP32), sp(7))
    loop_body = ir.SeqStmts(
        [
            ir.attach_leading_comments(
                ir.AssignStmt(step, ir.FloatDiv(acc, ir.ConstFloat(float("inf"), ir.FP32), ir.FP32, sp(7)), sp(7)),
                ["scale the accumulator", "second line"],
            ),
            ir.IfStmt(ir.Gt(i, ir.ConstInt(3, ir.INDEX), ir.BOOL), ir.SeqStmts([ir.BreakStmt(sp(8))]), None, [], sp(8)),
            ir.YieldStmt([step], sp(9)),
        ]
    )
    loop = ir.ForStmt(
        i, 0, n, 2, [acc], loop_body, [acc_out], sp(6), ir.ForKind.Pipeline, {"pipeline_stages": 2, "tag": "p"}
    )
    w = ir.IterArg("w", IDX, ir.ConstInt(0, ir.INDEX))
    w_out = ir.Var("w_out", IDX)
    wloop = ir.WhileStmt(
        ir.Lt(w, n, ir.BOOL),
        [w],
        ir.SeqStmts([ir.ContinueStmt(), ir.YieldStmt([ir.Add(w, ir.ConstInt(1, ir.INDEX), ir.INDEX)])]),
        [w_out],
    )
    r = ir.Var("r", ir.ScalarType(ir.FP32))
    branch = ir.IfStmt(
        ir.And(ir.ConstBool(True), ir.Not(ir.ConstBool(False), ir.BOOL), ir.BOOL),
        ir.SeqStmts([ir.YieldStmt([acc_out])]),
        ir.SeqStmts([ir.YieldStmt([ir.ConstFloat(float("nan"), ir.FP32)])]),
        [r],
    )
    scopes = ir.RuntimeScopeStmt(
        True,
        "rt",
        body=ir.SeqStmts(
            [
                ir.InCoreScopeStmt(ir.SplitMode.UP_DOWN, "k", body=ir.SeqStmts([ir.EvalStmt(load)])),
                ir.ClusterScopeStmt("c", body=ir.SeqStmts([])),
                ir.HierarchyScopeStmt(ir.Level.HOST, ir.Role.SubWorker, body=ir.SeqStmts([])),
                ir.SpmdScopeStmt(8, True, body=ir.SeqStmts([]), attrs={"task_id_var": n}),
                ir.SplitAivScopeStmt(ir.SplitMode.LEFT_RIGHT, 2, body=ir.SeqStmts([ir.InlineStmt("print(1)")])),
            ]
        ),
    )
    task = ir.Var("task", ir.TupleType([ir.ScalarType(DataType.TASK_ID)]))
    deps = ir.Var("deps", ir.ArrayType(DataType.TASK_ID, 4))
    submit = ir.Submit(
        ir.GlobalVar("kernel"),
        [x],
        [deps],
        {"mode": 2},
        {},
        task.type,
        sp(12),
        core_num=4,
        sync_start=True,
        allow_early_resolve=True,
        predicate=ir.ConstBool(True),
    )
    acc_tile = ir.Var("c", acc_t)
    body = ir.SeqStmts(
        [
            ir.AssignStmt(t, load, sp(4)),
            ir.AssignStmt(acc_tile, ir.Call(ir.Op("tile.create"), [], acc_t)),
            loop,
            wloop,
            branch,
            scopes,
            ir.AssignStmt(deps, ir.Call(ir.Op("array.create"), [], deps.type)),
            ir.AssignStmt(task, submit),
            ir.EvalStmt(ir.TupleGetItemExpr(task, 0)),
            ir.EvalStmt(ir.Cast(ir.Neg(n, ir.INDEX), ir.INT32)),
            ir.ReturnStmt([out]),
        ]
    )
    main = ir.Function(
        "main",
        [x, (out, ir.ParamDirection.Out), (n, ir.ParamDirection.InOut)],
        [out.type],
        body,
        sp(1),
        ir.FunctionType.Orchestration,
        attrs={"split": ir.SplitMode.UP_DOWN, "note": "hi"},
    )
    kernel = ir.Function("kernel", [ir.Var("a", tensor_t)], [], ir.SeqStmts([]), type=ir.FunctionType.InCore,
                         requires_runtime_binding=True)
    return ir.Program([main, kernel], "prog", sp(0))


def pairs(a: Any, b: Any) -> Iterator[tuple[Any, Any]]:
    """Every pair of corresponding IR objects of two equal-shaped trees (each pair once)."""
    seen: set[int] = set()
    todo = [(a, b)]
    while todo:
        x, y = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        yield x, y
        assert type(x) is type(y)
        for name in child_fields(type(x)):
            todo.extend(_value_pairs(getattr(x, name), getattr(y, name)))


def _value_pairs(x: Any, y: Any) -> Iterator[tuple[Any, Any]]:
    if isinstance(x, ModelBase):
        yield x, y
    elif isinstance(x, (list, tuple)):
        assert len(x) == len(y)
        for p, q in zip(x, y):
            yield from _value_pairs(p, q)
    elif isinstance(x, dict):
        assert list(x) == list(y)
        for key in x:
            yield from _value_pairs(x[key], y[key])


def test_round_trip_is_structurally_equal() -> None:
    prog = rich_program()
    back = ir.deserialize(ir.serialize(prog))
    ir.assert_structural_equal(prog, back, enable_auto_mapping=True)
    assert ir.structural_hash(prog, True) == ir.structural_hash(back, True)


def test_round_trip_is_stable() -> None:
    data = ir.serialize(rich_program())
    assert ir.serialize(ir.deserialize(data)) == data


def test_every_field_survives() -> None:
    """Spans, names, comments, kwargs with their value types, memrefs and views: all fields,
    including those structural equality ignores, come back equal."""
    prog = rich_program()
    back = ir.deserialize(ir.serialize(prog))
    count = 0
    for x, y in pairs(prog, back):
        count += 1
        for name in type(x).model_fields:
            if name == "unique_id":
                continue
            p, q = getattr(x, name), getattr(y, name)
            if isinstance(p, ir.Span):
                assert (p.filename, p.begin_line, p.begin_column, p.end_line, p.end_column) == (
                    q.filename,
                    q.begin_line,
                    q.begin_column,
                    q.end_line,
                    q.end_column,
                )
            elif not isinstance(p, (ModelBase, list, dict)) and p is not None:
                assert type(p) is type(q), (type(x).__name__, name)
                assert p == q or (isinstance(p, float) and math.isnan(p) and math.isnan(q)), (type(x).__name__, name)
    assert count > 100


def test_kwargs_attrs_and_memrefs_keep_their_values_and_types() -> None:
    back = ir.deserialize(ir.serialize(rich_program()))
    main = back.get_function("main")
    assign = main.body[0]
    load = assign.value
    assert load.kwargs == {
        "dtype": ir.FP16,
        "target_memory": ir.Mem.Vec,
        "layout": ir.TileLayout.col_major,
        "tlayout": ir.TensorLayout.NZ,
        "pad": ir.PadValue.min,
        "flag": True,
        "count": 3,
        "scale": 0.5,
        "name": "tile",
        "dims": [1, 2],
    }
    assert [type(v) for v in load.kwargs.values()] == [
        DataType, ir.MemorySpace, ir.TileLayout, ir.TensorLayout, ir.PadValue, bool, int, float, str, list
    ]
    assert load.arg_directions == [ir.ArgDirection.Input, ir.ArgDirection.OutputExisting]
    assert isinstance(load.attrs["extra"], ir.ConstInt) and load.attrs["extra"].dtype == ir.INT32
    tile_t = assign.var.type
    assert tile_t.memory_space == ir.Mem.Vec
    ref = tile_t.memref
    assert (ref.base.name_hint, ref.byte_offset.value, ref.size) == ("mem_vec_0", 128, 4096)
    assert tile_t.tile_view.pad == ir.PadValue.max and tile_t.tile_view.compact == ir.CompactMode.normal
    pinned = main.body[1].var.type.memref
    assert (pinned.name_hint, pinned.is_pinned, pinned.slot_count, pinned.slot_index) == ("buf", True, 2, 1)
    assert main.params[0].type.tensor_view.layout == ir.TensorLayout.DN
    assert main.param_directions == [ir.ParamDirection.In, ir.ParamDirection.Out, ir.ParamDirection.InOut]
    assert main.attrs == {"split": ir.SplitMode.UP_DOWN, "note": "hi"} and main.split == ir.SplitMode.UP_DOWN
    assert (main.level, main.role) == (ir.Level.CHIP, ir.Role.Orchestrator)
    assert back.get_function("kernel").requires_runtime_binding
    assert main.body[2].body[0].leading_comments == ["scale the accumulator", "second line"]
    assert back.name == "prog" and [gv.name for gv in back.functions] == ["kernel", "main"]


def test_object_sharing_is_preserved() -> None:
    x = ir.Var("x", I64)
    back = ir.deserialize(ir.serialize(ir.Add(x, x, ir.INT64)))
    assert back.left is back.right
    prog = ir.deserialize(ir.serialize(rich_program()))
    main = prog.get_function("main")
    loop = main.body[2]
    assert loop.body[0].value.left is loop.iter_args[0]
    assert main.body[0].var.type is main.body[0].value.type
    n = main.params[2]
    assert main.params[0].type.shape[1] is n and loop.stop is n


def test_separate_round_trips_do_not_share_variables() -> None:
    x = ir.Var("x", I64)
    data = ir.serialize(ir.Add(x, x, ir.INT64))
    one, two = ir.deserialize(data), ir.deserialize(data)
    assert one.left is not two.left and one.left is not x
    assert one.left.unique_id != x.unique_id


def test_singleton_types_stay_singletons() -> None:
    assert ir.deserialize(ir.serialize(ir.UnknownType.get())) is ir.UnknownType.get()
    assert ir.deserialize(ir.serialize(ir.PtrType.get())) is ir.PtrType.get()


def test_types_views_and_plain_values_round_trip() -> None:
    view = ir.TileView(valid_shape=[4, 4], blayout=ir.TileLayout.col_major)
    assert ir.deserialize(ir.serialize(view)) == view
    t = ir.TensorType([8, 8], ir.BF16)
    assert ir.deserialize(ir.serialize(t)) == t
    assert ir.deserialize(ir.serialize([t, (1, "a"), {"k": ir.FP8E4M3FN}])) == [t, (1, "a"), {"k": ir.FP8E4M3FN}]


def test_file_round_trip(tmp_path: Path) -> None:
    prog = rich_program()
    path = tmp_path / "prog.msgpack"
    ir.serialize_to_file(prog, path)
    ir.assert_structural_equal(prog, ir.deserialize_from_file(str(path)), enable_auto_mapping=True)


def test_encoding_layout() -> None:
    x = ir.Var("x", I64, ir.Span("f.py", 1, 2))
    doc = msgpack.unpackb(ir.serialize(ir.Neg(x, ir.INT64)), strict_map_key=False)
    assert doc["format"] == "pypto.ir" and doc["version"] == 1
    assert doc["root"] == {"ref": 2}
    assert [(r["id"], r["type"]) for r in doc["nodes"]] == [(0, "ScalarType"), (1, "Var"), (2, "Neg")]
    assert doc["nodes"][1]["fields"] == {
        "span": {"span": ["f.py", 1, 2, -1, -1]},
        "type": {"ref": 0},
        "name_hint": "x",
    }


def test_unencodable_value_is_a_clear_error() -> None:
    bad = ir.Call(ir.Op("f"), [], {}, {"obj": object()}, ir.UnknownType())
    with pytest.raises(SerializationError, match="^serialize: cannot encode a value of type object"):
        ir.serialize(bad)


def _doc(nodes: list[Any], root: Any, **extra: Any) -> bytes:
    return msgpack.packb({"format": "pypto.ir", "version": 1, "nodes": nodes, "root": root, **extra})


_CI = {"id": 0, "type": "ConstInt", "fields": {"value": 1, "dtype": {"dtype": 0x14}}}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "deserialize: not valid MessagePack data (ValueError: Unpack failed: incomplete input)"),
        (b"\xc1", "deserialize: not valid MessagePack data"),
        (msgpack.packb([1, 2]), "deserialize: not a serialized pypto IR (missing format header)"),
        (msgpack.packb({"format": "pypto.ir", "version": 2, "nodes": [], "root": None}),
         "deserialize: unsupported version 2 (expected 1)"),
        (_doc({}, None), "deserialize: 'nodes' must be a list"),
        (_doc([{"id": 0}], None), "deserialize: node #0 is not an {id, type, fields} map"),
        (_doc([{**_CI, "id": 3}], None), "deserialize: node #0 has id 3"),
        (_doc([{**_CI, "type": "Nope"}], None), "deserialize: node #0 has unknown type 'Nope'"),
        (_doc([{**_CI, "fields": [1]}], None), "deserialize: node #0 (ConstInt) has malformed fields"),
        (_doc([{**_CI, "fields": {"value": "one", "dtype": {"dtype": 0x14}}}], None),
         "deserialize: node #0 (ConstInt) is invalid: ConstInt: field 'value': Input should be a valid integer"),
        (_doc([{**_CI, "fields": {"value": 1, "dtype": {"dtype": 0x99}}}], None),
         "deserialize: Unknown DataType code 0x99"),
        (_doc([{**_CI, "fields": {"value": 1, "dtype": {"dtype": None}}}], None),
         "deserialize: a dtype code must be an int, got None"),
        (_doc([{**_CI, "fields": {"value": 1, "bogus": 2, "dtype": {"dtype": 0x14}}}], None),
         "deserialize: node #0 (ConstInt) is invalid: ConstInt: field 'bogus': unknown field"),
        (_doc([_CI], {"ref": 1}), "deserialize: dangling reference 1"),
        (_doc([], {"enum": ["Nope", 1]}), "deserialize: unknown enum 'Nope'"),
        (_doc([], {"enum": ["MemorySpace", 42]}), "deserialize: 42 is not a valid MemorySpace"),
        (_doc([], {"span": ["f", "x", 1, 1, 1]}), "deserialize: malformed span ['f', 'x', 1, 1, 1]"),
        (_doc([], {"what": 1}), "deserialize: malformed tagged value {'what': 1}"),
        (_doc([], {"dict": [[[1], 2]]}), "deserialize: a dict key is not hashable"),
        (_doc([], b"raw"), "deserialize: unexpected binary value"),
        (_doc([{"id": 0, "type": "MemRef", "fields": {"base_": 3}}], None),
         "deserialize: node #0 (MemRef) is invalid"),
    ],
)
def test_corrupt_input_is_a_clear_error(data: bytes, message: str) -> None:
    with pytest.raises(SerializationError) as info:
        ir.deserialize(data)
    assert str(info.value).startswith(message)
    assert isinstance(info.value, ValueError)


def test_non_bytes_input() -> None:
    with suppress_type_checks(), pytest.raises(SerializationError, match="^deserialize: expected bytes, got str$"):
        ir.deserialize("abc")  # type: ignore[arg-type]
    assert isinstance(ir.deserialize(bytearray(ir.serialize(ir.BreakStmt()))), ir.BreakStmt)


_VALID = ir.serialize(rich_program())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(_VALID) - 1), st.integers(0, 255), st.integers(1, len(_VALID)))
def test_property_mutated_bytes_never_escape_as_internal_errors(pos: int, byte: int, cut: int) -> None:
    for data in (_VALID[:pos] + bytes([byte]) + _VALID[pos + 1 :], _VALID[:cut]):
        try:
            ir.deserialize(data)
        except (ValueError, RuntimeError):
            pass
