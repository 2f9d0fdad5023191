"""Dispatch predicates (seed: 调度谓词): the accepted shape, its IR, and every rejection."""

# ruff: noqa: F841, RUF059  (DSL bodies bind IR values the checks do not see used)
from __future__ import annotations

import pytest
from orchestration_helpers import roundtrip, text_error

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import InvalidOperationError, ParserSyntaxError, ParserTypeError


def moe_submit() -> ir.Program:
    """The seed's MoE "skip empty experts" example, submit spelling."""

    @pl.program
    class MoeSubmit:
        @pl.function(type=pl.FunctionType.InCore)
        def gate(self, rc: pl.InOut[pl.Tensor[[8, 8], pl.INT32]]) -> pl.Tensor[[8, 8], pl.INT32]:
            return rc

        @pl.function(type=pl.FunctionType.InCore)
        def expert(
            self, x: pl.Tensor[[64], pl.FP32], out: pl.InOut[pl.Tensor[[64], pl.FP32]]
        ) -> pl.Tensor[[64], pl.FP32]:
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self, x: pl.Tensor[[64], pl.FP32], rc: pl.Tensor[[8, 8], pl.INT32], out: pl.InOut[pl.Tensor[[64], pl.FP32]]
        ) -> pl.Tensor[[64], pl.FP32]:
            with pl.manual_scope():
                rc, g_tid = pl.spmd_submit(self.gate, rc, core_num=1)  # producer of rc
                out, _ = pl.spmd_submit(
                    self.expert,
                    x,
                    out,
                    core_num=1,
                    deps=[g_tid],  # the producer is a dependency
                    predicate=(rc[0, 0] > 0),
                )
            return out

    return MoeSubmit


def moe_scope() -> ir.Program:
    """The same example, scope spelling (with pl.spmd(...) as tid)."""

    @pl.program
    class MoeScope:
        @pl.function(type=pl.FunctionType.InCore)
        def gate(self, rc: pl.InOut[pl.Tensor[[8, 8], pl.INT32]]) -> pl.Tensor[[8, 8], pl.INT32]:
            return rc

        @pl.function(type=pl.FunctionType.InCore)
        def expert(
            self, x: pl.Tensor[[64], pl.FP32], out: pl.InOut[pl.Tensor[[64], pl.FP32]]
        ) -> pl.Tensor[[64], pl.FP32]:
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self, x: pl.Tensor[[64], pl.FP32], rc: pl.Tensor[[8, 8], pl.INT32], out: pl.InOut[pl.Tensor[[64], pl.FP32]]
        ) -> pl.Tensor[[64], pl.FP32]:
            with pl.spmd(1) as g_tid:  # producer of rc
                rc = self.gate(rc)
            with pl.spmd(4, deps=[g_tid], predicate=(rc[0, 0] > 0)) as tid:  # the producer is a dependency
                out = self.expert(x, out)
            return out

    return MoeScope


def predicate_forms() -> ir.Program:
    """Every accepted spelling: all six operators, mirrored, negative target, loop-variable index,
    an INT64 element (no cast), the printed pl.tensor.read form, a parameter tensor without
    producer, and the plain and for forms of pl.spmd; an array dep skips the contract check."""

    @pl.program
    class Forms:
        @pl.function(type=pl.FunctionType.InCore)
        def gate(self, rc: pl.InOut[pl.Tensor[[8], pl.INT64]]) -> pl.Tensor[[8], pl.INT64]:
            return rc

        @pl.function(type=pl.FunctionType.InCore)
        def expert(
            self, x: pl.Tensor[[64], pl.FP32], out: pl.InOut[pl.Tensor[[64], pl.FP32]]
        ) -> pl.Tensor[[64], pl.FP32]:
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self,
            x: pl.Tensor[[64], pl.FP32],
            rc: pl.Tensor[[8], pl.INT64],
            flags: pl.Tensor[[4, 4], pl.INT8],
            out: pl.InOut[pl.Tensor[[64], pl.FP32]],
        ) -> pl.Tensor[[64], pl.FP32]:
            for e in pl.range(8):
                out, t1 = pl.submit(self.expert, x, out, predicate=(rc[e] == 1))
                out, t2 = pl.submit(self.expert, x, out, predicate=(rc[e] != -1))
                out, t3 = pl.submit(self.expert, x, out, predicate=(0 < rc[e]))
                out, t4 = pl.submit(self.expert, x, out, predicate=(flags[e, 1] <= 3))
                out, t5 = pl.submit(self.expert, x, out, predicate=(pl.tensor.read(flags, [0, 1]) >= 0))
                out, t6 = pl.submit(self.expert, x, out, predicate=(-2 > flags[1, 1]))
            rc, g = pl.submit(self.gate, rc)
            tids = pl.array.create(2, pl.TASK_ID)
            tids[0] = g
            out, t7 = pl.submit(self.expert, x, out, deps=[tids[0]], predicate=(rc[0] > 0))
            with pl.spmd(2, predicate=(flags[0, 0] > 0)):
                out = self.expert(x, out)
            for i in pl.spmd(2, predicate=(flags[0, 1] > 0), allow_early_resolve=True):
                t = pl.load(x, [i * 32], [32])
            return out

    return Forms


PROGRAMS = {"moe_submit": moe_submit, "moe_scope": moe_scope, "predicate_forms": predicate_forms}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_predicate_roundtrip(name: str, snapshot) -> None:
    assert roundtrip(PROGRAMS[name]()) == snapshot


def _submits(program: ir.Program) -> list[ir.Submit]:
    out = []
    for stmt in ir.flatten_to_stmts(program.get_function("main").body):
        for s in [stmt, *(ir.flatten_to_stmts(stmt.body) if isinstance(stmt, (ir.ForStmt, ir.ScopeStmt)) else [])]:
            if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Submit):
                out.append(s.value)
    return out


def test_predicate_lowers_to_a_comparison_of_a_tensor_read() -> None:
    """``rc[0, 0] > 0`` on an INT32 tensor is Gt(Cast(tensor.read(rc, [0, 0]), INDEX), 0) on the Submit."""
    expert = _submits(moe_submit())[1]
    pred = expert.predicate
    assert isinstance(pred, ir.Gt) and pred.dtype == pl.BOOL
    assert isinstance(pred.left, ir.Cast) and pred.left.dtype == pl.INDEX
    read = pred.left.operand
    assert isinstance(read, ir.Call) and read.op.name == "tensor.read"
    assert read.args[0].name_hint == "rc" and [i.value for i in read.args[1].elements] == [0, 0]
    assert isinstance(pred.right, ir.ConstInt) and pred.right.value == 0 and pred.right.dtype == pl.INDEX


def test_predicate_is_never_a_statement() -> None:
    main = moe_submit().get_function("main")
    scope = ir.flatten_to_stmts(main.body)[0]
    for stmt in ir.flatten_to_stmts(scope.body):
        assert not (isinstance(stmt, ir.EvalStmt) or isinstance(getattr(stmt, "value", None), ir.Gt))


def test_mirrored_comparison_is_kept_as_written() -> None:
    pred = _submits(predicate_forms())[2].predicate
    assert isinstance(pred, ir.Lt) and isinstance(pred.left, ir.ConstInt) and pred.left.value == 0
    assert pred.right.op.name == "tensor.read"  # INT64 element: no cast
    mirrored_negative = _submits(predicate_forms())[5].predicate
    assert isinstance(mirrored_negative, ir.Gt) and mirrored_negative.left.value == -2


def test_scope_predicate_is_a_scope_attr() -> None:
    main = moe_scope().get_function("main")
    scope = ir.flatten_to_stmts(main.body)[1]
    assert isinstance(scope, ir.SpmdScopeStmt)
    pred = scope.attrs["predicate"]
    assert isinstance(pred, ir.Gt) and pred.left.operand.op.name == "tensor.read"
    assert scope.attrs["manual_dep_edges"][0] is ir.flatten_to_stmts(main.body)[0].attrs["task_id_var"]


# ----- rejections ---------------------------------------------------------------------------------
HEADER = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def gate(self, rc: pl.InOut[pl.Tensor[[4, 4], pl.INT32]]) -> pl.Tensor[[4, 4], pl.INT32]:
        return rc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], rc: pl.Tensor[[4, 4], pl.INT32], u: pl.Tensor[[4], pl.INT32],
             out: pl.Out[pl.Tensor[[64], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
"""


def _body(*lines: str) -> str:
    return HEADER + "".join(f"        {line}\n" for line in lines) + "        return out\n"


def _submit_with(predicate: str) -> str:
    return _body(f"out, t = pl.submit(self.k, x, out, predicate=({predicate}))")


@pytest.mark.parametrize(
    "predicate, message",
    [
        ("0 < rc[0, 0] < 8", "chained comparisons are not supported in a predicate: '0 < rc[0, 0] < 8'"),
        (
            "rc[0, 0] > 0 and rc[1, 1] > 0",
            "a predicate is a single comparison; boolean combinations (and / or) are not supported",
        ),
        ("not rc[0, 0] > 0", "a predicate is a single comparison; 'not' is not supported"),
        ("rc[0, 0] % 8 == 0", "arithmetic is not supported in a predicate: 'rc[0, 0] % 8'"),
        ("rc[0, 0] > n", "the predicate compares with 'n', which is not an integer literal"),
        ("rc[0, 0] > u[0]", "the predicate compares with 'u[0]', which is not an integer literal"),
        ("rc[0] > 0", "the predicate needs one index per dimension: 'rc' has rank 2, got 1 index(es)"),
        ("rc[0, 0, 0] > 0", "the predicate needs one index per dimension: 'rc' has rank 2, got 3 index(es)"),
        ("rc[0:1, 0] > 0", "a predicate index selects one element; slices are not supported"),
        ("rc[n + 1, 0] > 0", "each predicate index must be an integer constant or an integer variable, got 'n + 1'"),
        ("n > 0", "the predicate operand must be a tensor element t[i, j], got 'n'"),
        ("rc[0, 0]", "a predicate must be a comparison, got 'rc[0, 0]'"),
        ("rc[0, 0] in 3", "a predicate compares with one of == != < <= > >="),
        ("3 > 2", "a predicate must read a tensor element; this one compares two constants"),
    ],
)
def test_predicate_shape_rejections(predicate: str, message: str) -> None:
    err = text_error(_submit_with(predicate), ParserSyntaxError)
    assert err.message == message
    assert err.hint  # every rejection suggests a fix


def test_predicate_target_of_wrong_kind() -> None:
    err = text_error(_submit_with("rc[0, 0] > 1.5"), ParserSyntaxError)
    assert err.message == "the target of a predicate must be an integer literal, got float 1.5"


@pytest.mark.parametrize("dtype", ["FP32", "UINT8"])
def test_predicate_on_a_float_or_unsigned_tensor_is_rejected(dtype: str) -> None:
    """The runtime sign-extends the element it reads: only signed integers and BOOL compare as written."""
    code = _body("out, t = pl.submit(self.k, x, out, predicate=(w[1] > 0))").replace(
        "n: pl.Scalar[pl.INDEX])", f"n: pl.Scalar[pl.INDEX], w: pl.Tensor[[4], pl.{dtype}])"
    )
    err = text_error(code, ParserTypeError)
    assert err.message == (
        f"the predicate reads 'w', a {dtype} tensor, but the scheduler compares its element as a signed integer"
    )
    assert err.hint.startswith("compute the gate into an INT8/INT16/INT32/INT64 (or BOOL) tensor")


def test_predicate_on_a_tile_is_rejected() -> None:
    code = _body(
        "with pl.at(level=pl.Level.CORE_GROUP):",
        "    t = pl.load(x, [0], [64])",
        "out, s = pl.submit(self.k, x, out, predicate=(t[0, 0] > 0))",
    )
    err = text_error(code, ParserSyntaxError)
    assert err.message == "the predicate operand must be a tensor element, but 't' is a tile"


def test_predicate_on_pl_at_is_rejected() -> None:
    err = text_error(
        _body("with pl.at(level=pl.Level.CORE_GROUP, predicate=(rc[0, 0] > 0)):", "    pass"), ParserSyntaxError
    )
    assert err.message == "pl.at does not accept predicate="
    assert "pl.spmd" in err.hint


def test_producer_missing_from_deps_is_rejected() -> None:
    code = _body(
        "rc, g_tid = pl.spmd_submit(self.gate, rc, core_num=1)",
        "out, t = pl.spmd_submit(self.k, x, out, core_num=1, predicate=(rc[0, 0] > 0))",
    )
    err = text_error(code, InvalidOperationError)
    assert (
        err.message
        == "the predicate reads 'rc', produced by the task 'g_tid' (pl.spmd_submit), but 'g_tid' is not in deps="
    )
    assert err.hint.startswith("add deps=[..., g_tid]")


def test_producer_of_a_spmd_scope_missing_from_deps_is_rejected() -> None:
    code = _body(
        "with pl.spmd(1) as g_tid:",
        "    rc = self.gate(rc)",
        "out, t = pl.submit(self.k, x, out, deps=[None], predicate=(rc[1, 1] >= 2))",
    )
    err = text_error(code, InvalidOperationError)
    assert (
        err.message == "the predicate reads 'rc', produced by the task 'g_tid' (pl.spmd), but 'g_tid' is not in deps="
    )
    assert err.hint  # every rejection suggests a fix


def test_producer_with_discarded_task_id_is_rejected() -> None:
    code = _body(
        "rc, _ = pl.submit(self.gate, rc)", "with pl.spmd(2, predicate=(rc[0, 0] > 0)):", "    out = self.k(x, out)"
    )
    err = text_error(code, InvalidOperationError)
    assert err.message == (
        "the predicate reads 'rc', which an earlier pl.submit produced, but that task's TaskId was discarded, "
        "so it cannot be in deps="
    )
    assert err.hint  # every rejection suggests a fix


def test_contract_check_is_best_effort() -> None:
    """Aliases, single-target spmd_submit and TaskId-array deps are not seen through (seed table)."""
    code = _body(
        "rc, g = pl.submit(self.gate, rc)",
        "rc2 = rc",
        "out, a = pl.submit(self.k, x, out, predicate=(rc2[0, 0] > 0))",
        "res = pl.spmd_submit(self.gate, rc2, core_num=1)",
        "out, b = pl.submit(self.k, x, out, predicate=(rc2[0, 0] > 0))",
        "tids = pl.array.create(1, pl.TASK_ID)",
        "out, c = pl.submit(self.k, x, out, deps=[tids], predicate=(rc[0, 0] > 0))",
    )
    roundtrip(pl.parse_program(code))
