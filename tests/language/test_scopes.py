"""Scope context managers (seed: 作用域上下文管理器, pl.spmd 多 block 派发): every form, its IR and
every rejection."""

# ruff: noqa: F841, RUF059, SIM117  (DSL bodies bind IR values the checks do not see used)
from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from orchestration_helpers import parse_error, roundtrip, text_error

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import (
    ParserSyntaxError,
    ParserTypeError,
    UndefinedVariableError,
)
from pypto.language.parser.diagnostics.exceptions import ParserWarning


def at_scopes() -> ir.Program:
    """pl.at at CORE_GROUP with every option, positional level, and hierarchy levels."""

    @pl.program
    class AtScopes:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self, x: pl.Tensor[[64], pl.FP32], y: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]
        ) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                a = pl.load(x, [0], [64])
                out = pl.store(a, [0], out)
            with pl.at(pl.Level.CORE_GROUP, name_hint="positional") as first:
                b = pl.load(y, [0], [64])
            with pl.at(
                level=pl.Level.CORE_GROUP,
                optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)],
                deps=[first, None],
                no_dep_args=[x, y],
                allow_early_resolve=True,
                dumps=[out],
                name_hint="fused",
                attrs={"note": "kept"},
            ) as second:
                c = pl.load(x, [0], [64])
                out = pl.store(pl.add(c, c), [0], out)
            with pl.at(
                level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=2)], allow_early_resolve=False
            ):
                pass
            with pl.at(level=pl.Level.HOST):
                with pl.at(level=pl.Level.L2CACHE, role=pl.Role.SubWorker, name_hint="die"):
                    with pl.at(level=pl.Level.CORE_GROUP, deps=[second]):
                        d = pl.load(y, [0], [64])
            return out

    return AtScopes


def runtime_and_cluster_scopes() -> ir.Program:
    """pl.scope() under auto_scope=False, MANUAL scopes in both modes, pl.cluster()."""

    @pl.program
    class Runtime:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            return out

        @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
        def placed(
            self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]
        ) -> pl.Tensor[[64], pl.FP32]:
            with pl.scope():
                out = self.k(x, out)
                with pl.scope(mode=pl.ScopeMode.MANUAL, name_hint="inner"):
                    out = self.k(x, out)
            with pl.scope(mode=pl.ScopeMode.AUTO):
                out = self.k(x, out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            with pl.manual_scope():
                out = self.k(x, out)
            with pl.scope(mode=pl.ScopeMode.MANUAL):
                out = self.k(x, out)
            with pl.cluster():
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [0], [64])
                with pl.spmd(2):
                    out = self.k(x, out)
            with pl.cluster(name_hint="grp"):
                for i in pl.spmd(4, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):
                    u = pl.load(x, [i * 16], [16])
            return out

    return Runtime


def spmd_scopes() -> ir.Program:
    """The three pl.spmd forms, dispatch vs inline bodies, the explicit carrier, optimizations."""

    @pl.program
    class Spmd:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            return out

        @pl.function(type=pl.FunctionType.InCore)
        def pair(self, x: pl.Tensor[[64], pl.FP32]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
            return x, x

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], n: pl.Scalar[pl.INDEX]
        ) -> pl.Tensor[[64], pl.FP32]:
            # dispatch body: temporaries and tuple projections are not dispatches
            with pl.spmd(8):
                tmp = pl.create_tensor([64], dtype=pl.FP32)
                a, b = self.pair(tmp)
            # dispatch body with optimizations: wrapped in an InCore scope carrying them
            with pl.spmd(
                4, sync_start=True, optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)]
            ):
                out = self.k(x, out)
            # capture form with deps and early resolve
            with pl.spmd(n, deps=[None], allow_early_resolve=True, name_hint="grid") as grid:
                out = self.k(x, out)
            with pl.spmd(2, deps=[grid]) as after:
                out = self.k(x, out)
            # inline body (reads the block index, not first): wrapped in an implicit InCore scope
            with pl.spmd(4, optimizations=[pl.cross_core_slot(slot_num=8)]):
                t = pl.load(x, [0], [16])
                off = pl.tile.get_block_idx() * 16
                pl.store(t, [off], out)
            # inline body whose first statement reads the index: prints as the for form
            with pl.spmd(4):
                bid = pl.tile.get_block_idx()
                v = pl.load(x, [bid * 16], [16])
            for i in pl.spmd(4, sync_start=True, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):
                w = pl.load(x, [i * 16], [16])
            with pl.spmd(4) as inline_tid:
                j = pl.get_block_idx()
            # explicit carrier: the nested pl.at is the InCore region (optimizations go on it)
            with pl.spmd(2):
                with pl.at(
                    pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)], name_hint="carrier"
                ) as ktid:
                    out = self.k(x, out)
            return out

    return Spmd


def split_aiv_scopes() -> ir.Program:
    """pl.split_aiv in its for form (the lane index) and with form."""

    @pl.program
    class SplitAiv:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(
            self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]
        ) -> pl.Tensor[[64, 64], pl.FP32]:
            for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t = pl.load(x, [lane * 32, 0], [32, 64])
                out = pl.store(t, [lane * 32, 0], out)
            with pl.split_aiv(mode=pl.SplitMode.LEFT_RIGHT, name_hint="halves"):
                u = pl.load(x, [0, 0], [64, 32])
            return out

    return SplitAiv


PROGRAMS = {
    "at_scopes": at_scopes,
    "runtime_and_cluster_scopes": runtime_and_cluster_scopes,
    "spmd_scopes": spmd_scopes,
    "split_aiv_scopes": split_aiv_scopes,
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_scope_roundtrip(name: str, snapshot) -> None:
    assert roundtrip(PROGRAMS[name]()) == snapshot


def _stmts(program: ir.Program, func: str = "main") -> list[ir.Stmt]:
    return ir.flatten_to_stmts(program.get_function(func).body)


# ----- the IR of each form ------------------------------------------------------------------------
def test_at_core_group_is_an_incore_scope_with_attrs() -> None:
    stmts = _stmts(at_scopes())
    plain, positional, full, empty, host = stmts[:5]
    assert type(plain) is ir.InCoreScopeStmt and plain.attrs == {} and plain.split == ir.SplitMode.NONE
    assert positional.name_hint == "positional" and positional.attrs["task_id_var"].type == ir.ScalarType(pl.TASK_ID)
    assert full.split == ir.SplitMode.UP_DOWN and full.name_hint == "fused"
    assert full.attrs["slot_num"] == 4 and full.attrs["allow_early_resolve"] is True and full.attrs["note"] == "kept"
    assert full.attrs["manual_dep_edges"] == [positional.attrs["task_id_var"]]  # None dropped
    assert [v.name_hint for v in full.attrs["no_dep_args"]] == ["x", "y"]
    assert [v.name_hint for v in full.attrs["dump_vars"]] == ["out"]
    assert empty.attrs == {"slot_num": 2}  # allow_early_resolve=False is the default
    assert type(host) is ir.HierarchyScopeStmt and host.level == pl.Level.HOST and host.role is None
    die = ir.flatten_to_stmts(host.body)[0]
    assert die.level == pl.Level.CHIP_DIE and die.role == pl.Role.SubWorker and die.name_hint == "die"


def test_runtime_scopes() -> None:
    program = runtime_and_cluster_scopes()
    placed = _stmts(program, "placed")
    assert type(placed[0]) is ir.RuntimeScopeStmt and not placed[0].manual
    inner = ir.flatten_to_stmts(placed[0].body)[1]
    assert inner.manual and inner.name_hint == "inner"
    main = _stmts(program)
    assert main[0].manual and main[1].manual
    assert type(main[2]) is ir.ClusterScopeStmt and main[3].name_hint == "grp"


def test_spmd_body_kinds() -> None:
    stmts = [s for s in _stmts(spmd_scopes()) if isinstance(s, ir.SpmdScopeStmt)]
    dispatch, wrapped, grid, after, inline, first_read, for_form, captured_inline, carried = stmts
    # a dispatch body stays unwrapped
    assert not any(isinstance(s, ir.ScopeStmt) for s in ir.flatten_to_stmts(dispatch.body))
    # optimizations on a dispatch body: one InCore scope carries them
    assert type(wrapped.body) is ir.InCoreScopeStmt and wrapped.body.split == ir.SplitMode.UP_DOWN
    assert wrapped.body.attrs == {"slot_num": 4} and wrapped.sync_start and wrapped.core_num.value == 4
    assert grid.attrs["manual_dep_edges"] == [] and grid.attrs["allow_early_resolve"] is True
    assert grid.name_hint == "grid" and isinstance(grid.core_num, ir.Var)
    assert after.attrs["manual_dep_edges"] == [grid.attrs["task_id_var"]]
    # inline bodies are wrapped in an implicit InCore scope
    assert type(inline.body) is ir.InCoreScopeStmt and inline.body.attrs == {"slot_num": 8}
    assert type(first_read.body) is ir.InCoreScopeStmt
    # the for form binds the loop variable to the block index as the first statement
    index = ir.flatten_to_stmts(for_form.body.body)[0]
    assert index.var.name_hint == "i" and index.value.op.name == "tile.get_block_idx"
    assert for_form.body.split == ir.SplitMode.LEFT_RIGHT and for_form.sync_start
    assert type(captured_inline.body) is ir.InCoreScopeStmt and "task_id_var" in captured_inline.attrs
    # the explicit carrier is the nested scope itself, not wrapped again
    assert type(carried.body) is ir.InCoreScopeStmt and carried.body.name_hint == "carrier"
    assert "task_id_var" in carried.body.attrs and carried.body.split == ir.SplitMode.UP_DOWN


def test_split_aiv_forms() -> None:
    stmts = _stmts(split_aiv_scopes(), "kernel")
    lanes, halves = stmts[0], stmts[1]
    assert lanes.split == ir.SplitMode.UP_DOWN and lanes.count == 2
    assert ir.flatten_to_stmts(lanes.body)[0].value.op.name == "tile.get_subblock_idx"
    assert halves.split == ir.SplitMode.LEFT_RIGHT and halves.name_hint == "halves"


_SHARDS = """
import pypto.language as pl

@pl.program
class Shards:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32]):
        t = pl.load(x, [0, 0], [64, 64])
        for lane in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
            a = pl.aiv_shard(t)
            b = pl.tile.aiv_shard(t, split=1)
            c = pl.aic_gather(a)
            d = pl.tensor.aiv_shard(x)
"""


def test_a_split_aiv_region_implies_the_split_of_shards_and_gathers() -> None:
    program = pl.parse_program(_SHARDS)
    (region,) = [s for s in _stmts(program, "kernel") if isinstance(s, ir.SplitAivScopeStmt)]
    calls = [s.value for s in ir.flatten_to_stmts(region.body)[1:]]
    assert [(c.op.name, c.kwargs["split"]) for c in calls] == [
        ("tile.aiv_shard", 2), ("tile.aiv_shard", 1), ("tile.aic_gather", 2), ("tensor.aiv_shard", 2)
    ]
    # The printer leaves out only the split the region implies, so the text parses back the same.
    text = roundtrip(program)
    assert "pl.tile.aiv_shard(t)" in text and "pl.tile.aiv_shard(t, split=1)" in text
    err = text_error(_SHARDS.replace("        for lane in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):\n", "")
                     .replace("\n            ", "\n        "), ParserTypeError)
    assert err.message == "aiv_shard() missing 1 required keyword-only argument: 'split'"


def test_deprecated_split_slot_num_warns() -> None:
    code = _body(
        "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN, slot_num=4)]):", "    pass"
    )
    with pytest.warns(ParserWarning, match=r"pl\.split\(MODE, slot_num=N\) is deprecated") as record:
        program = pl.parse_program(code)
    scope = _stmts(program)[0]
    assert scope.split == ir.SplitMode.UP_DOWN and scope.attrs == {"slot_num": 4}
    # The warning names the user's line, not the parser's.
    (warning,) = record.list
    assert warning.lineno == code.splitlines().index(next(ln for ln in code.splitlines() if "slot_num=4" in ln)) + 1
    assert "pypto" not in warning.filename


def test_scope_constructs_raise_outside_dsl() -> None:
    with pytest.raises(ParserSyntaxError, match="pl.at can only be used inside a @pl.function body"):
        pl.at(pl.Level.CORE_GROUP)
    with pytest.raises(ParserSyntaxError, match="pl.submit can only be used inside a @pl.function body"):
        pl.submit(None)


# ----- rejections ---------------------------------------------------------------------------------
HEADER = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
"""


def _body(*lines: str) -> str:
    return HEADER + "".join(f"        {line}\n" for line in lines) + "        return out\n"


def test_spmd_deps_without_capture_is_rejected() -> None:
    err = text_error(
        _body("out, t = pl.submit(self.k, x, out)", "with pl.spmd(4, deps=[t]):", "    out = self.k(x, out)"),
        ParserSyntaxError,
    )
    assert err.message == "deps= on pl.spmd needs the capture form: with pl.spmd(N, deps=[...]) as tid:"
    err = text_error(_body("for i in pl.spmd(4, deps=[None]):", "    pass"), ParserSyntaxError)
    assert err.message == "deps= on pl.spmd needs the capture form: with pl.spmd(N, deps=[...]) as tid:"
    assert err.hint  # every rejection suggests a fix


def test_spmd_second_dispatch_is_rejected() -> None:
    err = text_error(
        _body("with pl.spmd(4):", "    out = self.k(x, out)", "    out = self.k(x, out)"), ParserSyntaxError
    )
    assert err.message == (
        "a dispatch-body pl.spmd launches exactly one kernel, but this body also dispatches 'k' after 'k' "
        "(only the first would run)"
    )
    assert err.location.begin_line == 14  # the second dispatch (the with is line 12)
    assert err.hint  # every rejection suggests a fix


def test_spmd_body_without_dispatch_or_block_index_is_rejected() -> None:
    err = text_error(_body("with pl.spmd(4):", "    t = pl.create_tensor([64], dtype=pl.FP32)"), ParserSyntaxError)
    assert err.message == (
        "the body of pl.spmd neither dispatches a kernel (self.kernel(...)) nor reads pl.tile.get_block_idx()"
    )
    assert err.hint  # every rejection suggests a fix


def test_spmd_optimizations_with_a_carrier_is_rejected() -> None:
    code = _body(
        "with pl.spmd(4, optimizations=[pl.cross_core_slot(slot_num=2)]):",
        "    with pl.at(level=pl.Level.CORE_GROUP):",
        "        out = self.k(x, out)",
    )
    err = text_error(code, ParserSyntaxError)
    assert err.message == "optimizations= goes on the pl.at(...) that carries this pl.spmd body, not on pl.spmd(...)"
    assert err.hint  # every rejection suggests a fix


@pytest.mark.parametrize("option", ["allow_early_resolve=True", "predicate=(x[0] > 0)", "deps=[None]"])
def test_spmd_task_options_inside_cluster_are_rejected(option: str) -> None:
    key = option.split("=")[0]
    code = _body("with pl.cluster():", f"    with pl.spmd(4, {option}):", "        out = self.k(x, out)")
    err = text_error(code, ParserSyntaxError)
    assert err.message == (
        f"{key}= is not accepted on a pl.spmd inside pl.cluster(): the cluster unwraps it into its Group function, "
        "so it never becomes a Submit and the option would be lost"
    )
    assert err.hint  # every rejection suggests a fix


def test_spmd_capture_inside_cluster_is_rejected() -> None:
    code = _body("with pl.cluster():", "    with pl.spmd(4) as t:", "        out = self.k(x, out)")
    err = text_error(code, ParserSyntaxError)
    assert (
        err.message
        == "a pl.spmd inside pl.cluster() cannot bind a TaskId: the cluster unwraps it into its Group function"
    )
    assert err.hint  # every rejection suggests a fix


def test_auto_scope_needs_auto_scope_false() -> None:
    err = text_error(_body("with pl.scope():", "    out = self.k(x, out)"), ParserSyntaxError)
    assert err.message == "pl.scope() (an AUTO runtime scope) needs @pl.function(auto_scope=False) on 'main'"
    assert err.hint  # every rejection suggests a fix


def test_scope_without_task_id_rejects_as() -> None:
    for header, what in [
        ("with pl.cluster() as t:", "pl.cluster()"),
        ("with pl.manual_scope() as t:", "pl.manual_scope()"),
        ("with pl.at(level=pl.Level.HOST) as t:", "pl.at(level=pl.Level.HOST)"),
    ]:
        err = text_error(_body(header, "    pass"), ParserSyntaxError)
        assert err.message == f"{what} has no TaskId to bind with 'as'"


def test_as_binds_one_name() -> None:
    err = text_error(_body("with pl.at(level=pl.Level.CORE_GROUP) as (a, b):", "    pass"), ParserSyntaxError)
    assert err.message == "'as' binds one name: with pl.at(...) as tid:"


def test_task_options_on_hierarchy_levels_are_rejected() -> None:
    err = text_error(_body("with pl.at(level=pl.Level.HOST, deps=[None]):", "    pass"), ParserSyntaxError)
    assert err.message == "deps= only applies to pl.at(level=pl.Level.CORE_GROUP), not to the HOST level"
    err = text_error(_body("with pl.at(level=pl.Level.CHIP, optimizations=[]):", "    pass"), ParserSyntaxError)
    assert err.message == "optimizations= only applies to pl.at(level=pl.Level.CORE_GROUP), not to the CHIP level"


def test_role_on_core_group_is_rejected() -> None:
    err = text_error(_body("with pl.at(pl.Level.CORE_GROUP, pl.Role.SubWorker):", "    pass"), ParserSyntaxError)
    assert err.message == "pl.at(level=pl.Level.CORE_GROUP) takes no role="


def test_bad_at_arguments() -> None:
    err = text_error(_body("with pl.at(level=3):", "    pass"), ParserSyntaxError)
    assert err.message == "level= must be a pl.Level member, got int 3"
    err = text_error(_body("with pl.at():", "    pass"), ParserTypeError)
    assert err.message == "pl.at: missing a required argument: 'level'"
    err = text_error(_body("with pl.at(level=pl.Level.CORE_GROUP, bogus=1):", "    pass"), ParserSyntaxError)
    assert err.message == "pl.at: got an unexpected keyword argument 'bogus'"
    err = text_error(_body("with pl.at(level=pl.Level.CORE_GROUP, name_hint=1):", "    pass"), ParserSyntaxError)
    assert err.message == "name_hint= must be a string, got int 1"


def test_bad_optimizations() -> None:
    err = text_error(
        _body("with pl.at(level=pl.Level.CORE_GROUP, optimizations=pl.split(pl.SplitMode.UP_DOWN)):", "    pass"),
        ParserSyntaxError,
    )
    assert err.message.startswith("optimizations= takes a list")
    err = text_error(_body("with pl.at(level=pl.Level.CORE_GROUP, optimizations=[1]):", "    pass"), ParserSyntaxError)
    assert err.message == "optimizations= entries are pl.split(...) or pl.cross_core_slot(...), got '1'"
    code = _body(
        "with pl.spmd(4, optimizations=[pl.cross_core_slot(slot_num=2), pl.cross_core_slot(slot_num=2)]):",
        "    out = self.k(x, out)",
    )
    assert text_error(code, ParserSyntaxError).message == "optimizations= lists pl.cross_core_slot twice"
    code = _body("with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=0)]):", "    pass")
    assert text_error(code, ParserSyntaxError).message == "slot_num= must be a positive integer literal, got int 0"
    code = _body("with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(1)]):", "    pass")
    assert text_error(code, ParserSyntaxError).message == "pl.split(mode) must be a pl.SplitMode member, got int 1"
    code = _body(
        "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN, slot_num=2), "
        "pl.cross_core_slot(slot_num=4)]):",
        "    pass",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParserWarning)
        assert text_error(code, ParserSyntaxError).message == "optimizations= gives two slot_num values (2 and 4)"


def test_option_constructs_outside_optimizations_are_rejected() -> None:
    err = text_error(_body("s = pl.split(pl.SplitMode.UP_DOWN)"), ParserSyntaxError)
    assert err.message == "pl.split(...) can only appear in optimizations=[...] of pl.at(...) or pl.spmd(...)"


def test_no_dep_args_are_tensor_names() -> None:
    err = text_error(_body("with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[n]):", "    pass"), ParserTypeError)
    assert err.message == "no_dep_args= entries must be tensors, but 'n' is a value of type pl.Scalar[pl.INDEX]"
    err = text_error(
        _body("with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[x[0:8]]):", "    pass"), ParserSyntaxError
    )
    assert err.message == "no_dep_args= entries must be tensor variable names, got 'x[0:8]'"
    err = text_error(
        _body("with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[zz]):", "    pass"), UndefinedVariableError
    )
    assert err.message == "no_dep_args= names 'zz', which is not a variable of this function"


def test_spmd_core_count_must_be_positive() -> None:
    err = text_error(_body("with pl.spmd(0):", "    out = self.k(x, out)"), ParserSyntaxError)
    assert err.message == "pl.spmd core count must be a positive integer, got int 0"


def test_break_does_not_cross_a_scope() -> None:
    err = text_error(
        _body("for i in pl.range(4):", "    with pl.at(level=pl.Level.CORE_GROUP):", "        break"), ParserSyntaxError
    )
    assert err.message == "'break' outside of a loop"


def test_tid_is_visible_only_after_the_scope() -> None:
    err = text_error(_body("with pl.at(level=pl.Level.CORE_GROUP, deps=[t]) as t:", "    pass"), UndefinedVariableError)
    assert err.message == "deps= names 't', which nothing before this task defines"
    assert err.hint == "a task waits only for tasks submitted before it: submit the producer first"


def test_decorated_rejection_points_at_the_source() -> None:
    def build() -> None:
        @pl.program
        class Bad:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                with pl.scope():
                    pass
                return x

    err = parse_error(build, ParserSyntaxError)
    assert err.location.filename.endswith("test_scopes.py")
    assert "with pl.scope():" in str(err)


def test_split_aiv_splits_in_two_along_an_axis() -> None:
    # Four lanes ran the body four times over halves of the tile: the third lane wrote past its end.
    err = text_error(_body("for lane in pl.split_aiv(4, mode=pl.SplitMode.UP_DOWN):", "    pass"), ParserSyntaxError)
    assert err.message == "pl.split_aiv(4, ...): a cluster has 2 AIV lanes, so a region splits in 2"
    assert err.hint == "write pl.split_aiv(2, mode=...); for more parts, loop over them inside each lane"
    err = text_error(_body("with pl.split_aiv(mode=pl.SplitMode.NONE):", "    pass"), ParserSyntaxError)
    assert err.message == "pl.split_aiv needs the axis to split: mode=pl.SplitMode.NONE splits nothing"
    assert err.location.begin_column == len("        with pl.split_aiv(mode=") + 1  # at the mode


_CLUSTER_EXAMPLE = (Path(__file__).resolve().parents[2] / "examples" / "cross_core_cluster.py").read_text()
_UNWRAPPED = ("is not accepted on a pl.spmd inside pl.cluster(): the cluster unwraps it into its Group function, so it "
              "never becomes a Submit and the option would be lost")


@pytest.mark.parametrize(("spmd", "message", "hint"), [
    ("for i in pl.spmd(2, allow_early_resolve=True):", f"allow_early_resolve= {_UNWRAPPED}",
     "move the pl.spmd out of the pl.cluster() or drop allow_early_resolve="),
    ("for i in pl.spmd(2, predicate=(a[0, 0] > 0)):", f"predicate= {_UNWRAPPED}",
     "move the pl.spmd out of the pl.cluster() or drop predicate="),
    ("for i in pl.spmd(2, deps=[None]):", f"deps= {_UNWRAPPED}",
     "move the pl.spmd out of the pl.cluster() or drop deps="),
    ("with pl.spmd(2) as i:", "a pl.spmd inside pl.cluster() cannot bind a TaskId: the cluster unwraps it into its "
     "Group function", "move the pl.spmd out of the pl.cluster() to capture its TaskId"),
])
def test_the_cluster_example_refuses_the_task_forms_of_its_spmd(spmd: str, message: str, hint: str) -> None:
    # The seed: a pl.spmd inside pl.cluster() becomes part of the cluster's Group, never a task of its own.
    assert "for i in pl.spmd(2):" in _CLUSTER_EXAMPLE
    err = text_error(_CLUSTER_EXAMPLE.replace("for i in pl.spmd(2):", spmd), ParserSyntaxError)
    assert (err.message, err.hint) == (message, hint)
    assert err.span["begin_line"] == next(k for k, line in enumerate(_CLUSTER_EXAMPLE.splitlines(), start=1)
                                          if "pl.spmd(2)" in line)
