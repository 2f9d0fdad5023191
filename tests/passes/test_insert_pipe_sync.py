"""InsertPipeSync: set_flag/wait_flag pairs between the pipes of AIV/AIC kernels, barriers, event ids."""

from __future__ import annotations

import random

import pytest
from pass_helpers import before_after
from runtime_programs import DIRECTIONS, KERNELS, T64, T64H, A, B, C, R, kernel, kernel_inputs, parse, vt

from pypto import ir, passes
from pypto.analysis import function_index, walk
from pypto.analysis.pipes import op_pipe
from pypto.interp.testing import assert_pass_preserves
from pypto.passes.insert_pipe_sync import _Run, _straight_line, _user_events
from pypto.ir.errors import IRTypeError, VerificationError

P = ir.PipeType
RUNTIME = [passes.derive_call_directions(), passes.materialize_runtime_scopes(), passes.classify_iter_arg_carry()]


def synced(name: str) -> ir.Program:
    return passes.insert_pipe_sync()(parse(KERNELS[name]))


def trace(body: ir.Stmt) -> list[str]:
    """One line per statement of a block: ``op`` for op calls, ``set/wait Q->P #e``, ``bar V``."""
    out = []
    for s in body.stmts if isinstance(body, ir.SeqStmts) else [body]:
        call = s.value if isinstance(s, ir.AssignStmt) else s.expr if isinstance(s, ir.EvalStmt) else None
        if not isinstance(call, ir.Call):
            out.append(type(s).__name__)
        elif call.op.name in ("system.sync_src", "system.sync_dst"):
            kw = call.kwargs
            verb = "set" if call.op.name.endswith("src") else "wait"
            out.append(f"{verb} {P(kw['set_pipe']).name}->{P(kw['wait_pipe']).name} #{kw['event_id']}")
        else:
            out.append(call.op.name.removeprefix("tile.").removeprefix("system."))
    return out


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_snapshot(name: str, snapshot) -> None:
    before = parse(KERNELS[name])
    after = passes.insert_pipe_sync()(before)
    assert before_after("InsertPipeSync", before, after) == snapshot


def test_tile_add_has_the_form_of_the_cce_example() -> None:
    """spec/codegen.md §3: MTE2->V before TADD, V->MTE3 before TSTORE, pipe_barrier(PIPE_ALL) at the end."""
    assert trace(synced("tile_add").get_function("kern").body) == [
        "alloc", "alloc", "load", "load", "set MTE2->V #0", "wait MTE2->V #0", "add",
        "set V->MTE3 #0", "wait V->MTE3 #0", "store", "bar_all", "ReturnStmt",
    ]


def test_a_user_flag_pair_is_respected() -> None:
    """The user's MTE2 -> V pair already orders the add after both loads: no second pair is placed."""
    assert trace(synced("user_flags").get_function("kern").body)[2:] == [
        "load", "load", "set MTE2->V #0", "wait MTE2->V #0", "add",
        "set V->MTE3 #0", "wait V->MTE3 #0", "store", "bar_all", "ReturnStmt",
    ]


def test_a_user_barrier_completes_every_pipe_and_user_event_ids_are_left_alone() -> None:
    """After bar_all the add waits for nothing; the user's V -> MTE3 flags take event 0, so the store's
    automatic pair (the exp comes after the user's pair) takes event 1."""
    assert trace(synced("user_barrier").get_function("kern").body)[2:] == [
        "load", "load", "bar_all", "add", "set V->MTE3 #0", "wait V->MTE3 #0", "bar_v", "exp",
        "set V->MTE3 #1", "wait V->MTE3 #1", "store", "bar_all", "ReturnStmt",
    ]


def test_vector_ops_on_one_buffer_get_a_v_barrier() -> None:
    """The form of tests/sim/data/row_blocks: TADD; pipe_barrier(PIPE_V); TMULS."""
    assert trace(synced("add_then_scale").get_function("kern").body)[6:9] == ["add", "bar_v", "muls"]


def test_sets_follow_their_producer_and_live_pairs_get_distinct_ids() -> None:
    assert trace(synced("early_sets").get_function("kern").body)[3:] == [
        "load", "set MTE2->V #0", "load", "set MTE2->V #1", "load",
        "wait MTE2->V #0", "set MTE2->V #0", "exp", "wait MTE2->V #1", "exp", "bar_v", "add",
        "wait MTE2->V #0", "bar_v", "add", "set V->MTE3 #0", "wait V->MTE3 #0", "store", "bar_all", "ReturnStmt",
    ]


def test_back_edge_hazard_in_a_loop() -> None:
    """The next iteration's load overwrites the tile this iteration's add read: V -> MTE2 in the body."""
    loop = next(s for s in walk(synced("loop_carry").get_function("kern").body) if isinstance(s, ir.ForStmt))
    assert trace(loop.body) == [
        "set V->MTE2 #0", "wait V->MTE2 #0", "load", "set MTE2->V #0", "wait MTE2->V #0", "bar_v", "add",
        "YieldStmt",
    ]


def test_branches_join_before_the_store() -> None:
    """Both branches waited for the load, so the store waits only for the vector pipe."""
    body = synced("branch").get_function("kern").body
    assert trace(body)[3:] == ["set V->MTE3 #0", "wait V->MTE3 #0", "store", "bar_all", "ReturnStmt"]
    branch = next(s for s in body.stmts if isinstance(s, ir.IfStmt))
    assert trace(branch.then_body) == ["set MTE2->V #0", "wait MTE2->V #0", "exp", "YieldStmt"]
    assert trace(branch.else_body) == ["set MTE2->V #0", "wait MTE2->V #0", "neg", "YieldStmt"]


def test_cube_pipeline() -> None:
    assert trace(synced("matmul").get_function("kern").body)[5:] == [
        "load", "set MTE2->MTE1 #0", "load", "wait MTE2->MTE1 #0", "set MTE2->MTE1 #0", "move",
        "wait MTE2->MTE1 #0", "move", "set MTE1->M #0", "wait MTE1->M #0", "matmul",
        "set M->FIX #0", "wait M->FIX #0", "store", "bar_all", "ReturnStmt",
    ]


def test_gm_round_trip() -> None:
    assert trace(synced("store_then_reload").get_function("kern").body)[2:] == [
        "load", "set MTE2->MTE3 #0", "wait MTE2->MTE3 #0", "store", "set MTE3->MTE2 #0", "wait MTE3->MTE2 #0",
        "load", "set MTE2->V #0", "wait MTE2->V #0", "exp", "set V->MTE3 #0", "wait V->MTE3 #0", "store",
        "bar_all", "ReturnStmt",
    ]


def _check_events(body: ir.Stmt) -> None:
    """In every block: each set is waited later in the same block, and no id is set twice while live."""
    live: set[tuple[int, int, int]] = set()
    for s in body.stmts if isinstance(body, ir.SeqStmts) else [body]:
        if isinstance(s, ir.EvalStmt) and s.expr.op.name in ("system.sync_src", "system.sync_dst"):
            kw = s.expr.kwargs
            key = (kw["set_pipe"], kw["wait_pipe"], kw["event_id"])
            assert 0 <= key[2] < 8
            if s.expr.op.name == "system.sync_src":
                assert key not in live, f"event {key} set twice"
                live.add(key)
            else:
                assert key in live, f"wait on {key} without a set"
                live.remove(key)
        for child in (getattr(s, "body", None), getattr(s, "then_body", None), getattr(s, "else_body", None)):
            if isinstance(child, ir.Stmt):
                _check_events(child)
    assert not live, f"sets never waited: {live}"


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_event_pairs_match_and_do_not_collide(name: str) -> None:
    _check_events(synced(name).get_function("kern").body)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_preserves_results(name: str) -> None:
    program = parse(KERNELS[name])
    assert_pass_preserves(passes.insert_pipe_sync(), program, kernel_inputs(program.get_function("kern")), entry="kern")


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_every_inserted_call_is_auto_sync_and_rerunning_changes_nothing(name: str) -> None:
    before, after = parse(KERNELS[name]), synced(name)

    def syncs(program: ir.Program) -> list[ir.Call]:
        return [n for n in walk(program.get_function("kern").body) if isinstance(n, ir.Call)
                and n.op.name.startswith("system.")]

    user = syncs(before)  # the kernel's own syncs stay as written; every other one is marked
    inserted = [c for c in syncs(after) if c.attrs.get("auto_sync") is not True]
    assert len(syncs(after)) > len(user) and len(inserted) == len(user)
    assert all(not c.attrs.get("auto_sync") for c in user)
    ir.assert_structural_equal(passes.insert_pipe_sync()(after), after)
    ir.assert_structural_equal(parse(after.as_python()), after)  # auto_sync prints and parses back


def test_orchestration_is_left_alone() -> None:
    program = parse(DIRECTIONS["internal_tensor_chain"])
    for p in RUNTIME:
        program = p(program)
    after = passes.insert_pipe_sync()(program)
    assert after.get_function("main") is program.get_function("main")
    assert trace(after.get_function("k").body)[1:] == [
        "load", "set MTE2->V #0", "wait MTE2->V #0", "exp", "set V->MTE3 #0", "wait V->MTE3 #0", "store",
        "bar_all", "ReturnStmt",
    ]


def test_requires_the_runtime_dialect() -> None:
    with pytest.raises(VerificationError, match="input of pass InsertPipeSync"):
        passes.insert_pipe_sync()(parse(DIRECTIONS["first_write_is_output_existing"]))


def test_user_syncs_are_kept() -> None:
    source = KERNELS["tile_add"].replace(
        "        tc:", "        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=3)\n        tc:"
    )
    calls = [n for n in walk(passes.insert_pipe_sync()(parse(source)).get_function("kern").body)
             if isinstance(n, ir.Call) and n.op.name == "system.sync_src"]
    assert [(c.kwargs["event_id"], c.attrs.get("auto_sync")) for c in calls] == [(0, True), (3, None), (0, True)]


def test_auto_sync_is_a_typed_call_attr() -> None:
    call = ir.Call(ir.get_op("system.bar_all"), [], attrs={"auto_sync": True}, type=ir.UnknownType.get(),
                   span=ir.Span.unknown())
    assert call.attrs.auto_sync is True
    with pytest.raises(IRTypeError, match="auto_sync"):
        ir.Call(ir.get_op("system.bar_all"), [], attrs={"auto_sync": "yes"}, type=ir.UnknownType.get(),
                span=ir.Span.unknown())


def test_pipe_table() -> None:
    ops = {}
    for name in ("tile_add", "matmul", "row_softmax"):
        for n in walk(parse(KERNELS[name]).get_function("kern").body):
            if isinstance(n, ir.Call):
                ops.setdefault((n.op.name, getattr(n.args[0].type, "memory_space", None) if n.args else None),
                               op_pipe(n))
    Mem = ir.MemorySpace
    assert ops == {
        ("tile.alloc", None): None,
        ("tile.load", Mem.DDR): P.MTE2,
        ("tile.add", Mem.Vec): P.V,
        ("tile.store", Mem.Vec): P.MTE3,
        ("tile.move", Mem.Mat): P.MTE1,
        ("tile.matmul", Mem.Left): P.M,
        ("tile.store", Mem.Acc): P.FIX,
        ("tile.full", None): P.V,
        ("tile.row_max", Mem.Vec): P.V,
        ("tile.row_expand_sub", Mem.Vec): P.V,
        ("tile.exp", Mem.Vec): P.V,
        ("tile.row_sum", Mem.Vec): P.V,
        ("tile.row_expand_div", Mem.Vec): P.V,
    }


def test_a_matmul_syncs_on_the_cube_pipe() -> None:
    """Its MTE1->M and M->FIX pairs are cube pairs (batch_matmul, which ran on V in issue 28, is a 2-D
    matmul by the time this pass runs: TileOps2D keeps it out of kernels)."""
    source = KERNELS["matmul"]
    assert trace(passes.insert_pipe_sync()(parse(source)).get_function("kern").body)[13:] == [
        "set MTE1->M #0", "wait MTE1->M #0", "matmul", "set M->FIX #0", "wait M->FIX #0", "store", "bar_all",
        "ReturnStmt",
    ]


def test_a_transpose_view_issues_nothing_to_a_pipe() -> None:
    """A view of a Mat tile ran on V (issue 28): the cube kernel synced with a vector pipe it lacks."""
    a_l1 = "pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_0, 0, 8192), pl.Mem.Mat]"
    source = KERNELS["matmul"].replace(
        "pl.move(a_l1, target_memory=pl.Mem.Left)",
        "pl.move(a_t, target_memory=pl.Mem.Left)",
    ).replace("        a_l0:", f"        a_t: {a_l1} = pl.tile.transpose_view(a_l1)\n        a_l0:")
    assert trace(passes.insert_pipe_sync()(parse(source)).get_function("kern").body)[5:] == [
        "load", "set MTE2->MTE1 #0", "load", "set MTE2->MTE1 #1", "transpose_view", "wait MTE2->MTE1 #0", "move",
        "wait MTE2->MTE1 #1", "move", "set MTE1->M #0", "wait MTE1->M #0", "matmul", "set M->FIX #0",
        "wait M->FIX #0", "store", "bar_all", "ReturnStmt",
    ]


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_the_index_of_a_synced_kernel_lists_the_nodes_of_a_walk(name: str) -> None:
    """The pass derives each kernel's node index from the one it rebuilt (pypto.analysis.index.derive_index),
    after a first run and after a run on its own output (whose equal syncs are one statement object)."""
    program = parse(KERNELS[name])
    for _ in range(2):
        program = passes.insert_pipe_sync()(program)
        for func in program.functions.values():
            walked, listed = walk(func)[1:], function_index(func).nodes
            assert len(walked) == len(listed) and all(a is b for a, b in zip(walked, listed))


def test_equal_syncs_of_a_block_are_one_statement() -> None:
    """Statements are immutable: the two bar_v and the two waits on MTE2 -> V #0 of early_sets are one object each."""
    body = synced("early_sets").get_function("kern").body.stmts
    assert trace(synced("early_sets").get_function("kern").body).count("bar_v") == 2
    bars = [s for s in body if isinstance(s, ir.EvalStmt) and s.expr.op.name == "system.bar_v"]
    waits = [s for s in body if isinstance(s, ir.EvalStmt) and s.expr.op.name == "system.sync_dst"
             and s.expr.kwargs["event_id"] == 0]
    assert len(bars) == 2 and bars[0] is bars[1]
    assert len(waits) == 3 and waits[0] is waits[1] is not waits[2]  # MTE2 -> V #0 twice, V -> MTE3 #0


# ---- the straight-line walk (one block, no syncs of its own) against the general one -----------------

_STRAIGHT_TILES = {"A": A, "B": B, "C": C, "R": R.format(b=1, o=16384 + 8192)}  # R lies inside B


def _random_straight_kernel(seed: int) -> str:
    """A kernel of one block: loads, vector ops (some independent of any load) and stores over three tile buffers, row tiles inside
    one of them (a partial overlap), and stored tensors loaded again (GM round trips)."""
    rng = random.Random(seed)
    lines, tiles, rows, tensors, out = [], [], [], ["a", "b"], "c"
    for i in range(rng.randint(3, 16)):
        pick = rng.random()
        if not tiles or pick < 0.3:
            lines.append(f"t{i}: {_STRAIGHT_TILES[rng.choice('ABC')]} = pl.load({rng.choice(tensors)}, [0, 0], "
                         "[64, 64], target_memory=pl.Mem.Vec)")
        elif pick < 0.37:  # a vector op that waits for no load
            lines.append(f"t{i}: {_STRAIGHT_TILES[rng.choice('ABC')]} = pl.tile.full([64, 64], dtype=pl.FP32, "
                         "value=0.0)")
        elif pick < 0.65:
            x, y = rng.choice(tiles), rng.choice(tiles)
            ops = [f"pl.add({x}, {y})", f"pl.mul({x}, {y})", f"pl.exp({x})", f"pl.sub({x}, {y})"]
            op = rng.choice(ops + [f"pl.row_expand_sub({x}, {rows[-1]})"] if rows else ops)
            lines.append(f"t{i}: {_STRAIGHT_TILES[rng.choice('ABC')]} = {op}")
        elif pick < 0.8:
            lines.append(f"r{i}: {_STRAIGHT_TILES['R']} = pl.row_sum({rng.choice(tiles)}, {rng.choice(tiles)})")
            rows.append(f"r{i}")
            continue
        else:
            lines.append(f"s{i}: {T64} = pl.store({rng.choice(tiles)}, [0, 0], {out})")
            tensors.append(f"s{i}")
            out = f"s{i}"
            continue
        tiles.append(f"t{i}")
    allocs = {"mem_vec_0": 16384, "mem_vec_1": 16384, "mem_vec_2": 16384}
    return kernel(f"a: {T64}, b: {T64}, c: pl.Out[{T64}]", "\n".join(lines), allocs, out)


def _random_straight_cube_kernel(seed: int) -> str:
    """An AIC kernel of one block: loads to Mat, moves to Left/Right, matmul and matmul_acc into Acc
    tiles and stores, over tiles that partly overlap in each space (the cube pipes MTE2, MTE1, M, FIX)."""
    rng = random.Random(seed)
    mats = [vt((64, 64), 0, o, "FP16", "Mat") for o in (0, 4096, 8192, 16384)] + [vt((64, 64), 1, 0, "FP16", "Mat")]
    lefts = [vt((64, 64), 0, o, "FP16", "Left") for o in (0, 4096, 8192)]
    rights = [vt((64, 64), 0, o, "FP16", "Right") for o in (0, 8192)]
    accs = [vt((64, 64), 0, o, "FP32", "Acc") for o in (0, 8192, 16384)]
    lines: list[str] = []
    mat: list[str] = []
    left: list[str] = []
    right: list[str] = []
    acc: list[str] = []
    out = "c"
    for i in range(rng.randint(4, 22)):
        pick = rng.random()
        if not mat or pick < 0.25:
            lines.append(f"m{i}: {rng.choice(mats)} = pl.load({rng.choice('ab')}, [0, 0], [64, 64], "
                         "target_memory=pl.Mem.Mat)")
            mat.append(f"m{i}")
        elif pick < 0.45 or not left:
            lines.append(f"l{i}: {rng.choice(lefts)} = pl.move({rng.choice(mat)}, target_memory=pl.Mem.Left)")
            left.append(f"l{i}")
        elif pick < 0.6 or not right:
            lines.append(f"r{i}: {rng.choice(rights)} = pl.move({rng.choice(mat)}, target_memory=pl.Mem.Right)")
            right.append(f"r{i}")
        elif pick < 0.75 or not acc:
            lines.append(f"c{i}: {rng.choice(accs)} = pl.matmul({rng.choice(left)}, {rng.choice(right)})")
            acc.append(f"c{i}")
        elif pick < 0.85:
            lines.append(f"c{i}: {rng.choice(accs)} = pl.matmul_acc({rng.choice(acc)}, {rng.choice(left)}, "
                         f"{rng.choice(right)})")
            acc.append(f"c{i}")
        else:
            lines.append(f"s{i}: {T64} = pl.store({rng.choice(acc)}, [0, 0], {out})")
            out = f"s{i}"
    allocs = {"mem_mat_0": 32768, "mem_mat_1": 8192, "mem_left_0": 16384, "mem_right_0": 16384, "mem_acc_0": 32768}
    return kernel(f"a: {T64H}, b: {T64H}, c: pl.Out[{T64}]", "\n".join(lines), allocs, out, ftype="AIC")


_STRAIGHT = {name: KERNELS[name] for name in ("tile_add", "add_then_scale", "early_sets", "store_then_reload",
                                              "row_softmax", "matmul")}
_STRAIGHT.update({f"random_{seed}": _random_straight_kernel(seed) for seed in range(60)})
_STRAIGHT.update({f"random_cube_{seed}": _random_straight_cube_kernel(seed) for seed in range(40)})


@pytest.mark.parametrize("name", sorted(_STRAIGHT))
def test_the_straight_line_walk_decides_as_the_general_walk(name: str) -> None:
    """A kernel of one block without syncs takes the straight-line walk, which places exactly the
    syncs (positions, pipes, event ids, barriers) the general walk places."""
    func = parse(_STRAIGHT[name]).get_function("kern")
    index = function_index(func)
    assert _straight_line(index)
    straight = _Run(_user_events(index)).straight(func.body)
    general, _ = _Run(_user_events(index)).block(func.body, {})
    assert straight.as_python() == general.as_python()
    assert ir.structural_equal(straight, general)


@pytest.mark.parametrize("name", ["loop_carry", "branch", "user_flags", "user_barrier"])
def test_loops_branches_and_own_syncs_take_the_general_walk(name: str) -> None:
    """A loop or a branch needs the fixpoint and joins of the general walk, a user sync its handling of
    user pairs and barriers (a synced kernel's own output too: it holds the inserted syncs)."""
    func = parse(KERNELS[name]).get_function("kern")
    assert not _straight_line(function_index(func))
    assert not _straight_line(function_index(synced("tile_add").get_function("kern")))
