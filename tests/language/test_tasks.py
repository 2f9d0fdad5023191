"""Task launches and manual dependencies: pl.submit / pl.spmd_submit, deps=, task_dummy, None
seeds, TaskId carries and arrays, pl.no_dep, pl.dump_tag and dumps= (seed: 手工依赖原语)."""

# ruff: noqa: F841, RUF059  (DSL bodies bind IR values the checks do not see used)
from __future__ import annotations

from collections.abc import Callable

import pytest
from orchestration_helpers import assert_manual_deps_on_submit_only, parse_error, roundtrip, text_error

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import (
    InvalidOperationError,
    ParserSyntaxError,
    ParserTypeError,
    UnsupportedFeatureError,
)


# ----- the seed's four manual-dependency examples ---------------------------------------------------
def seed_example_1() -> ir.Program:
    """Both mechanisms: a scope-wide opt-out (manual_scope) plus an explicit edge."""

    @pl.program
    class Example1:
        @pl.function(type=pl.FunctionType.InCore)
        def stage1(
            self, x: pl.Tensor[[64], pl.FP32], scratch: pl.Out[pl.Tensor[[64], pl.FP32]]
        ) -> pl.Tensor[[64], pl.FP32]:
            t = pl.load(x, [0], [64])
            scratch = pl.store(t, [0], scratch)
            return scratch

        @pl.function(type=pl.FunctionType.InCore)
        def stage2(
            self, s: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]
        ) -> pl.Tensor[[64], pl.FP32]:
            t = pl.load(s, [0], [64])
            out = pl.store(pl.add(t, t), [0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self,
            x: pl.Tensor[[64], pl.FP32],
            scratch: pl.Out[pl.Tensor[[64], pl.FP32]],
            out: pl.Out[pl.Tensor[[64], pl.FP32]],
        ) -> pl.Tensor[[64], pl.FP32]:
            with pl.manual_scope():  # mechanism A: scope-wide
                scratch, stage1_tid = pl.submit(self.stage1, x, scratch)
                out, _ = pl.submit(self.stage2, scratch, out, deps=[stage1_tid])  # mechanism B
            return out

    return Example1


def seed_example_2() -> ir.Program:
    """Only mechanism B: explicit edges on top of automatic tracking (no manual_scope)."""

    @pl.program
    class Example2:
        @pl.function(type=pl.FunctionType.InCore)
        def preprocess(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            return x

        @pl.function(type=pl.FunctionType.InCore)
        def consume(
            self, t: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]
        ) -> pl.Tensor[[64], pl.FP32]:
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            tmp, prep_tid = pl.submit(self.preprocess, x)
            out, _ = pl.submit(self.consume, tmp, out, deps=[prep_tid])
            return out

    return Example2


def seed_example_3() -> ir.Program:
    """pl.at blocks as producer and consumer; `as tid` captures the outlined task's TaskId."""

    @pl.program
    class Example3:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP) as tid_a:
                # the block body is outlined into an InCore kernel
                a = pl.load(x, [0], [64])
                out = pl.store(a, [0], out)
            with pl.at(level=pl.Level.CORE_GROUP, deps=[tid_a]) as tid_b:
                # explicit edge: runs strictly after the tid_a block
                b = pl.load(out, [0], [64])
                out = pl.store(pl.mul(b, 2.0), [0], out)
            return out

    return Example3


def seed_example_4() -> ir.Program:
    """Mechanism A per tensor: a manual_dep scratch buffer ordered only by explicit edges."""
    N = 64

    @pl.program
    class Example4:
        @pl.function(type=pl.FunctionType.InCore)
        def fill(self, x: pl.Tensor[[64], pl.FP32], s: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            return s

        @pl.function(type=pl.FunctionType.InCore)
        def consume(
            self, s: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]
        ) -> pl.Tensor[[64], pl.FP32]:
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            scratch = pl.create_tensor([N], dtype=pl.FP32, manual_dep=True)
            scratch, prod_tid = pl.submit(self.fill, x, scratch)
            out, _ = pl.submit(self.consume, scratch, out, deps=[prod_tid])
            return out

    return Example4


def array_carry_fence() -> ir.Program:
    """The seed's manual-scope pl.parallel fence: prev_tid is re-bound inside pl.parallel."""
    N_PHASES = 3
    N_BRANCHES = 4
    TILE_M = 16

    @pl.program
    class Fence:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel_stripe(
            self,
            data: pl.Tensor[[256, 64], pl.FP32],
            row: pl.Scalar[pl.INDEX],
            scale: pl.Scalar[pl.FP32],
            out: pl.InOut[pl.Tensor[[256, 64], pl.FP32]],
        ) -> pl.Tensor[[256, 64], pl.FP32]:
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self, data: pl.Tensor[[256, 64], pl.FP32], out: pl.InOut[pl.Tensor[[256, 64], pl.FP32]]
        ) -> pl.Tensor[[256, 64], pl.FP32]:
            with pl.manual_scope():
                prev_tid = None  # seed: no producer yet
                for phase in pl.range(N_PHASES):
                    for branch in pl.parallel(N_BRANCHES):  # compile-time constant
                        row = (phase * N_BRANCHES + branch) * TILE_M
                        out, prev_tid = pl.submit(self.kernel_stripe, data, row, 1.0, out, deps=[prev_tid])
            return out

    return Fence


def task_id_values() -> ir.Program:
    """TaskId arrays, array slots as deps, a dummy fan-in barrier, None dropped from deps, a TaskId
    iter_arg seeded with None, spmd_submit options and a kernel without results."""

    @pl.program
    class TaskIds:
        @pl.function(type=pl.FunctionType.InCore)
        def work(
            self, x: pl.Tensor[[64], pl.FP32], i: pl.Scalar[pl.INDEX], out: pl.InOut[pl.Tensor[[64], pl.FP32]]
        ) -> pl.Tensor[[64], pl.FP32]:
            return out

        @pl.function(type=pl.FunctionType.InCore)
        def touch(self, x: pl.Tensor[[64], pl.FP32]):
            t = pl.load(x, [0], [64])

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self, x: pl.Tensor[[64], pl.FP32], out: pl.InOut[pl.Tensor[[64], pl.FP32]], n: pl.Scalar[pl.INDEX]
        ) -> pl.Tensor[[64], pl.FP32]:
            tids = pl.array.create(4, pl.TASK_ID)
            for b in pl.parallel(4):
                out, t = pl.submit(self.work, x, b, out, deps=[None])
                tids[b] = t
            barrier = pl.system.task_dummy(deps=[tids])
            first = tids[0]
            empty = pl.system.task_dummy()
            out, after = pl.spmd_submit(
                self.work,
                x,
                0,
                out,
                core_num=8,
                sync_start=True,
                deps=[barrier, first, tids[1]],
                allow_early_resolve=True,
            )
            for k, (carry,) in pl.range(n, init_values=(None,)):
                out, nxt = pl.submit(self.work, x, k, out, deps=[carry, None, empty])
                carry_out = pl.yield_(nxt)
            only_tid = pl.submit(self.touch, x, deps=[carry_out, after])
            pl.spmd_submit(self.touch, x, core_num=n, deps=[only_tid])
            return out

    return TaskIds


def no_dep_arguments() -> ir.Program:
    """pl.no_dep(arg) on a plain call, a keyword argument and a submit."""

    @pl.program
    class NoDep:
        @pl.function(type=pl.FunctionType.InCore)
        def scatter(
            self,
            x: pl.Tensor[[64], pl.FP32],
            k: pl.Scalar[pl.INDEX],
            acc: pl.InOut[pl.Tensor[[64], pl.FP32]],
            out: pl.Out[pl.Tensor[[64], pl.FP32]],
        ) -> pl.Tensor[[64], pl.FP32]:
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self,
            x: pl.Tensor[[64], pl.FP32],
            acc: pl.InOut[pl.Tensor[[64], pl.FP32]],
            out: pl.Out[pl.Tensor[[64], pl.FP32]],
        ) -> pl.Tensor[[64], pl.FP32]:
            out = self.scatter(x, 1, pl.no_dep(acc), out)
            out = self.scatter(pl.no_dep(x), 2, acc, out=pl.no_dep(out))
            out, tid = pl.submit(self.scatter, x, 3, pl.no_dep(acc), out)
            return out

    return NoDep


def dump_tags() -> ir.Program:
    """pl.dump_tag at function level (later kernel calls consuming the tensor list it), inside a
    pl.at scope (the scope's dumps=) and in an inlined helper; explicit dumps=[...]."""

    @pl.inline
    def tag_helper(t):
        pl.dump_tag(t)

    @pl.program
    class Dumps:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self, x: pl.Tensor[[64], pl.FP32], y: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]
        ) -> pl.Tensor[[64], pl.FP32]:
            out = self.k(x, out)
            pl.dump_tag(x)
            out = self.k(x, out)
            out = self.k(y, out)
            tag_helper(y)
            out, tid = pl.submit(self.k, y, out, dumps=[out])
            with pl.at(level=pl.Level.CORE_GROUP, dumps=[x]):
                pl.dump_tag(out)
                t = pl.load(x, [0], [64])
                out = pl.store(t, [0], out)
            return out

    return Dumps


PROGRAMS: dict[str, Callable[[], ir.Program]] = {
    "seed_example_1": seed_example_1,
    "seed_example_2": seed_example_2,
    "seed_example_3": seed_example_3,
    "seed_example_4": seed_example_4,
    "array_carry_fence": array_carry_fence,
    "task_id_values": task_id_values,
    "no_dep_arguments": no_dep_arguments,
    "dump_tags": dump_tags,
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_roundtrip(name: str, snapshot) -> None:
    assert roundtrip(PROGRAMS[name]()) == snapshot


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_manual_deps_on_submit_only_holds(name: str) -> None:
    """ManualDepsOnSubmitOnly: deps live on Submits (and task_dummy), never on a plain call."""
    assert_manual_deps_on_submit_only(PROGRAMS[name]())


def _main(program: ir.Program) -> list[ir.Stmt]:
    return ir.flatten_to_stmts(program.get_function("main").body)


# ----- the IR the constructs build ----------------------------------------------------------------
def test_submit_is_one_submit_with_a_trailing_task_id() -> None:
    stmts = _main(seed_example_2())
    tmp = stmts[0]
    assert isinstance(tmp, ir.AssignStmt) and isinstance(tmp.value, ir.Submit)
    assert tmp.value.type == ir.TupleType([ir.TensorType([64], pl.FP32), ir.ScalarType(pl.TASK_ID)])
    assert tmp.value.op.name == "preprocess" and tmp.value.deps == []
    consume = stmts[3].value
    assert isinstance(consume, ir.Submit) and len(consume.deps) == 1
    assert consume.deps[0] is stmts[2].var  # prep_tid = _tuple_tmp[1]
    assert isinstance(stmts[2].value, ir.TupleGetItemExpr) and stmts[2].value.index == 1


def test_submit_of_a_kernel_without_results_is_the_task_id() -> None:
    main = task_id_values().get_function("main")
    only = [s for s in ir.flatten_to_stmts(main.body) if isinstance(s, ir.AssignStmt) and s.var.name_hint == "only_tid"]
    assert only[0].value.type == ir.ScalarType(pl.TASK_ID)


def test_spmd_submit_records_the_launch_spec() -> None:
    stmts = [s for s in _main(task_id_values()) if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Submit)]
    launch = stmts[0].value
    assert launch.core_num.value == 8 and launch.sync_start and launch.allow_early_resolve
    assert [d.type for d in launch.deps] == [ir.ScalarType(pl.TASK_ID)] * 3


def test_none_seed_is_task_invalid_and_none_deps_are_dropped() -> None:
    fence = _main(array_carry_fence())[0].body
    seed = ir.flatten_to_stmts(fence)[0]
    assert seed.var.type == ir.ScalarType(pl.TASK_ID)
    assert isinstance(seed.value, ir.Call) and seed.value.op.name == "system.task_invalid" and seed.value.args == []
    loop = next(s for s in _main(task_id_values()) if isinstance(s, ir.ForStmt))
    submit = ir.flatten_to_stmts(loop.body)[0].value
    assert submit.deps == []  # deps=[None]


def test_task_dummy_keeps_its_edges_in_attrs() -> None:
    stmts = _main(task_id_values())
    barrier = next(s for s in stmts if isinstance(s, ir.AssignStmt) and s.var.name_hint == "barrier").value
    assert barrier.op.name == "system.task_dummy" and barrier.args == []
    assert [e.type for e in barrier.attrs["manual_dep_edges"]] == [ir.ArrayType(pl.TASK_ID, 4)]
    assert barrier.type == ir.ScalarType(pl.TASK_ID)


def test_no_dep_records_only_the_overridden_argument_indices() -> None:
    # DeriveCallDirections derives every direction later (NoDep at these indices).
    calls = [s.value for s in _main(no_dep_arguments()) if isinstance(s, ir.AssignStmt) and s.var.name_hint != "tid"]
    plain, keyword, submit = calls[0], calls[1], calls[2]
    assert dict(plain.attrs) == {"arg_direction_overrides": [2]}
    assert dict(keyword.attrs) == {"arg_direction_overrides": [0, 3]}
    assert isinstance(submit, ir.Submit)
    assert dict(submit.attrs) == {"arg_direction_overrides": [2]}
    text = no_dep_arguments().as_python()
    assert 'self.scatter(x, 1, acc, out, attrs={"arg_direction_overrides": [2]})' in text


def test_dump_tag_marks_later_consumers_and_scopes() -> None:
    stmts = _main(dump_tags())
    first, tagged, other, after_inline = stmts[0].value, stmts[1].value, stmts[2].value, stmts[3].value
    assert "dump_vars" not in first.attrs  # before the tag
    assert [v.name_hint for v in tagged.attrs["dump_vars"]] == ["x"]
    assert "dump_vars" not in other.attrs  # y was not tagged yet
    assert [v.name_hint for v in after_inline.attrs["dump_vars"]] == ["y", "out"]  # tagged by the helper + dumps=
    scope = next(s for s in stmts if isinstance(s, ir.InCoreScopeStmt))
    assert [v.name_hint for v in scope.attrs["dump_vars"]] == ["x", "out"]


# ----- rejections ---------------------------------------------------------------------------------
KERNELS = """
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
    return KERNELS + "".join(f"        {line}\n" for line in lines) + "        return out\n"


def test_deps_on_a_plain_call_is_rejected() -> None:
    err = text_error(_body("out, t = pl.submit(self.k, x, out)", "out = self.k(x, out, deps=[t])"), ParserSyntaxError)
    assert err.message == "deps= is not accepted by a plain call of 'k'"
    assert "pl.submit" in err.hint


def test_tensor_in_deps_is_rejected() -> None:
    err = text_error(_body("out, t = pl.submit(self.k, x, out, deps=[x])"), ParserTypeError)
    assert err.message == "deps= entries must be TaskId values, but 'x' is a Tensor (pl.Tensor[[64], pl.FP32])"
    assert "no_dep" in err.hint


@pytest.mark.parametrize(("line", "op", "index"), [
    ("tids[2] = t", "array.update_element", 2),
    ("out, u = pl.submit(self.k, x, out, deps=[tids[5]])", "array.get_element", 5),
])
def test_a_task_id_array_index_out_of_range_is_rejected(line: str, op: str, index: int) -> None:
    code = _body("tids = pl.array.create(2, pl.TASK_ID)", "out, t = pl.submit(self.k, x, out)", line)
    err = text_error(code, InvalidOperationError)
    assert err.message == f"Operator '{op}': index {index} is out of range for an array of 2 elements"
    assert err.location.begin_line == code.splitlines().index(f"        {line}") + 1
    assert "within its extent" in err.hint


def test_non_list_deps_is_rejected() -> None:
    err = text_error(
        _body("out, t = pl.submit(self.k, x, out)", "out, u = pl.submit(self.k, x, out, deps=t)"), ParserTypeError
    )
    assert err.message == "deps= takes a list: deps=[tid]"


def test_submit_needs_a_program_function() -> None:
    err = text_error(_body("out, t = pl.submit(pl.tile.add, x, out)"), ParserTypeError)
    assert err.message.startswith("pl.submit launches a function of the program, got ")


def test_spmd_submit_needs_core_num() -> None:
    err = text_error(_body("out, t = pl.spmd_submit(self.k, x, out)"), ParserSyntaxError)
    assert err.message == "pl.spmd_submit needs core_num=N (the number of blocks)"
    err = text_error(_body("out, t = pl.spmd_submit(self.k, x, out, core_num=0)"), ParserSyntaxError)
    assert err.message == "core_num= must be a positive integer, got int 0"


def test_allow_early_resolve_must_be_a_bool_literal() -> None:
    err = text_error(_body("out, t = pl.submit(self.k, x, out, allow_early_resolve=1)"), ParserSyntaxError)
    assert err.message == "allow_early_resolve= must be True or False, got int 1"


def test_task_dummy_takes_only_deps() -> None:
    err = text_error(_body("b = pl.system.task_dummy(x)"), ParserTypeError)
    assert err.message == "pl.system.task_dummy takes only deps=[...]"


def test_task_id_carry_through_dynamic_parallel_is_rejected() -> None:
    code = _body(
        "prev = None",
        "for i in pl.parallel(n):",
        "    out, prev = pl.submit(self.k, x, out, deps=[prev])",
    )
    err = text_error(code, UnsupportedFeatureError)
    assert err.message == (
        "the TaskId 'prev' is carried through this pl.parallel loop, which needs a statically-known trip count "
        "(one TaskId slot per iteration)"
    )
    assert err.hint  # every rejection suggests a fix


def test_task_id_local_to_a_dynamic_parallel_loop_is_accepted() -> None:
    code = _body(
        "for i in pl.parallel(n):",
        "    out, t = pl.submit(self.k, x, out)",
        "    out, u = pl.submit(self.k, x, out, deps=[t])",
    )
    roundtrip(pl.parse_program(code))


def test_no_dep_outside_a_kernel_argument_is_rejected() -> None:
    err = text_error(_body("y = pl.no_dep(x)"), ParserSyntaxError)
    assert err.message == "pl.no_dep(...) can only wrap an argument of a kernel call"
    err = text_error(_body("out, t = pl.submit(pl.no_dep(x), out)"), ParserSyntaxError)
    assert err.message == "pl.no_dep(...) can only wrap an argument of a kernel call"
    assert err.hint  # every rejection suggests a fix


def test_dump_tag_outside_orchestration_is_rejected() -> None:
    code = """
import pypto.language as pl

@pl.function(type=pl.FunctionType.InCore)
def k(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    pl.dump_tag(x)
    return x
"""
    err = parse_error(lambda: pl.parse(code), ParserSyntaxError)
    assert (
        err.message
        == "pl.dump_tag can only be used in Orchestration or Inline functions, not in the InCore function 'k'"
    )
    assert err.hint  # every rejection suggests a fix


def test_dump_tag_of_a_non_name_is_rejected() -> None:
    err = text_error(_body("pl.dump_tag(out[0:8])"), ParserSyntaxError)
    assert err.message == "pl.dump_tag takes a bare variable name, got 'out[0:8]'"
    assert err.hint  # every rejection suggests a fix


def test_dump_tag_of_a_non_tensor_is_rejected() -> None:
    err = text_error(_body("pl.dump_tag(n)"), ParserTypeError)
    assert err.message == "pl.dump_tag tags tensors, but 'n' is a value of type pl.Scalar[pl.INDEX]"


def test_dump_tag_is_a_statement() -> None:
    err = text_error(_body("y = pl.dump_tag(x)"), ParserSyntaxError)
    assert "cannot be used inside an expression" in err.message


def test_dumps_entries_are_tensor_names() -> None:
    err = text_error(_body("out, t = pl.submit(self.k, x, out, dumps=[n])"), ParserTypeError)
    assert err.message == "dumps= entries must be tensors, but 'n' is a value of type pl.Scalar[pl.INDEX]"
