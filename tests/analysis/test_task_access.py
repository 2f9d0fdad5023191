"""pypto.analysis.task_access: the buffer behind a tensor argument of a task, and each task's accesses."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir
from pypto.analysis.task_access import TaskAccess
from pypto.ir.enums import ArgDirection

SOURCE = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def h(self, x: pl.Tensor[[16, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        return y

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.scope():
            half: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.slice(y, [32, 64], [32, 0])
            part: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.slice(half, [16, 64], [8, 0])
            src: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.slice(x, [16, 64], [0, 0])
            own: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32, manual_dep=True)
            part_1: pl.Tensor[[16, 64], pl.FP32] = self.h(src, part, attrs={"arg_directions": [
                pl.adir.input, pl.adir.inout]})
            own_1: pl.Tensor[[16, 64], pl.FP32] = self.h(part_1, own, attrs={"arg_directions": [
                pl.adir.input, pl.adir.output_existing]})
            part_2: pl.Tensor[[16, 64], pl.FP32] = self.h(pl.no_dep(src), part_1, attrs={"arg_directions": [
                pl.adir.no_dep, pl.adir.output_existing]})
        return y
"""


def _setup() -> tuple[TaskAccess, list[ir.Call], dict[str, ir.Var]]:
    program = pl.parse_program(SOURCE)
    main = program.get_function("main")
    scope = next(s for s in ir.flatten_to_stmts(main.body) if isinstance(s, ir.ScopeStmt))
    stmts = [s for s in ir.flatten_to_stmts(scope.body) if isinstance(s, ir.AssignStmt)]
    names = {s.var.name_hint: s.var for s in stmts}
    calls = [s.value for s in stmts if isinstance(s.value, ir.Call) and isinstance(s.value.op, ir.GlobalVar)]
    return TaskAccess(main, program), calls, {**names, **{p.name_hint: p for p in main.params}}


def test_a_view_of_a_view_is_a_nested_box_of_the_base_buffer() -> None:
    access, _, v = _setup()
    assert access.buffer(v["part"]) == (v["y"], ((40, 56), (0, 64)))
    assert access.buffer(v["part_1"]) == (v["y"], ((40, 56), (0, 64)))  # a call's result is the argument it returns
    assert access.buffer(v["half"]) == (v["y"], ((32, 64), (0, 64)))
    assert access.buffer(v["y"]) == (v["y"], None)


def test_accesses_leave_out_no_dep_arguments_and_manual_dep_tensors() -> None:
    access, calls, v = _setup()
    first, second, third = (access.accesses(c) for c in calls)
    assert [(a.buffer, a.box, a.direction, a.arg, a.reads, a.writes) for a in first] == [
        (v["x"], ((0, 16), (0, 64)), ArgDirection.Input, v["src"], True, False),
        (v["y"], ((40, 56), (0, 64)), ArgDirection.InOut, v["part"], True, True),
    ]
    assert [(a.buffer, a.direction) for a in second] == [(v["y"], ArgDirection.Input)]  # own is untracked
    assert [(a.buffer, a.direction) for a in third] == [(v["y"], ArgDirection.OutputExisting)]


ROTATE = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        return y

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.scope():
            a: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32)
            b: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32)
            for i, (t, u, v, w) in pl.range(3, init_values=(a, b, y, x)):
                t_1: pl.Tensor[[16, 64], pl.FP32] = self.k(x, t, attrs={"arg_directions": [
                    pl.adir.input, pl.adir.output_existing]})
                w_1: pl.Tensor[[16, 64], pl.FP32] = self.k(x, w, attrs={"arg_directions": [
                    pl.adir.input, pl.adir.output_existing]})
                t_2, u_2, v_2, w_2 = pl.yield_(u, v, t_1, w_1)
        return y
"""


def test_a_carry_that_rotates_buffers_may_name_each_of_them() -> None:
    program = pl.parse_program(ROTATE)
    main = program.get_function("main")
    scope = next(s for s in ir.flatten_to_stmts(main.body) if isinstance(s, ir.ScopeStmt))
    loop = next(s for s in ir.flatten_to_stmts(scope.body) if isinstance(s, ir.ForStmt))
    a, b = (s.var for s in ir.flatten_to_stmts(scope.body) if isinstance(s, ir.AssignStmt))
    access = TaskAccess(main, program)
    t, u, v, w = loop.iter_args
    y, x = main.params[1], main.params[0]
    # t takes u's buffer on trip 2 and v's (u's before) on trip 3; w only ever names x
    assert {*access.buffers(t)} == {*access.buffers(u)} == {*access.buffers(v)} == {a, b, y}
    assert {*access.buffers(loop.return_vars[0])} == {a, b, y}
    assert access.buffers(w) == (x,)
    assert access.buffer(t) == (a, None)  # the initial buffer
    write = next(s.value for s in ir.flatten_to_stmts(loop.body) if isinstance(s, ir.AssignStmt))
    assert [(r.buffer, r.sure) for r in access.accesses(write)] == [
        (x, True), *((b_, False) for b_ in access.buffers(t))]
