"""ClassifyIterArgCarry: iter_arg_rebind_<i> per orchestration loop carry; the program enters `runtime`."""

from __future__ import annotations

import pytest
from pass_helpers import before_after
from runtime_programs import DIRECTIONS, T, inputs, orch, parse

from pypto import ir, passes
from pypto.analysis import walk
from pypto.interp.testing import assert_pass_preserves
from pypto.ir.errors import VerificationError
from pypto.languages import runtime
from pypto.passes import PassError
from pypto.transform.rewrite import Rewrite, on

CARRIES = {
    # the kernel returns its Out parameter: the carry stays in one buffer
    "kernel_writes_the_carry": DIRECTIONS["inside_sequential_loop"],
    "scalar_carry": orch(f"""
        for i, (o, r) in pl.range(2, init_values=(out, 0)):
            o2: {T} = self.k(a, r, o)
            o3, r2 = pl.yield_(o2, r + 64)
    """, ret="o3"),
    # the yielded tensor is another buffer: a mutable carry
    "yield_of_another_buffer": orch(f"""
        for i, (o,) in pl.range(2, init_values=(out,)):
            t: {T} = pl.create_tensor([128, 128], dtype=pl.FP32)
            t2: {T} = self.k(a, i * 64, t)
            o3 = pl.yield_(t2)
        out = self.k(o3, 64, out)
    """),
    "nested_loop_return_var": orch(f"""
        for j, (o,) in pl.range(2, init_values=(out,)):
            for i, (p,) in pl.range(2, init_values=(o,)):
                p2: {T} = self.k(a, i * 64, p)
                p3 = pl.yield_(p2)
            o2 = pl.yield_(p3)
    """, ret="o2"),
    "task_id_arrays_in_manual_scope": orch("""
        with pl.manual_scope():
            p0: pl.Scalar[pl.TASK_ID] = pl.system.task_invalid()
            for phase, (o, p) in pl.range(3, init_values=(out, p0)):
                for b, (o2, q) in pl.parallel(2, init_values=(o, p)):
                    o3, q2 = pl.submit(self.k, a, b * 64, o2, deps=[q])
                    o4, q3 = pl.yield_(o3, q2)
                o5, p2 = pl.yield_(o4, q3)
    """, ret="o5"),
    "task_id_outside_manual_scope": orch("""
        p0: pl.Scalar[pl.TASK_ID] = pl.system.task_invalid()
        for b, (o, q) in pl.parallel(2, init_values=(out, p0)):
            o3, q2 = pl.submit(self.k, a, b * 64, o)
            o4, q3 = pl.yield_(o3, q2)
    """, ret="o4"),
}

EXPECTED = {
    "kernel_writes_the_carry": [{"iter_arg_rebind_0": False}],
    "scalar_carry": [{"iter_arg_rebind_0": False, "iter_arg_rebind_1": True}],
    "yield_of_another_buffer": [{"iter_arg_rebind_0": True}],
    "nested_loop_return_var": [{"iter_arg_rebind_0": False}, {"iter_arg_rebind_0": False}],
    "task_id_arrays_in_manual_scope": [
        {"iter_arg_rebind_0": False, "iter_arg_rebind_1": True, "iter_arg_array_size_1": 2},
        {"iter_arg_rebind_0": False, "iter_arg_rebind_1": True, "iter_arg_array_size_1": 2},
    ],
    "task_id_outside_manual_scope": [{"iter_arg_rebind_0": False, "iter_arg_rebind_1": True}],
}


def ready(source: str) -> ir.Program:
    return passes.materialize_runtime_scopes()(passes.derive_call_directions()(parse(source)))


def loop_attrs(program: ir.Program) -> list[dict]:
    return [dict(n.attrs) for n in walk(program.get_function("main").body) if isinstance(n, ir.ForStmt)]


def test_every_case_has_an_expectation() -> None:
    assert sorted(EXPECTED) == sorted(CARRIES)


@pytest.mark.parametrize("name", sorted(CARRIES))
def test_classification(name: str) -> None:
    after = passes.classify_iter_arg_carry()(ready(CARRIES[name]))
    assert loop_attrs(after) == EXPECTED[name]
    assert runtime.check(after) == []


@pytest.mark.parametrize("name", sorted(CARRIES))
def test_preserves_results(name: str) -> None:
    program = ready(CARRIES[name])
    assert_pass_preserves(passes.classify_iter_arg_carry(), program, inputs(program))


@pytest.mark.parametrize("name", ["scalar_carry", "task_id_arrays_in_manual_scope"])
def test_snapshot(name: str, snapshot) -> None:
    before = ready(CARRIES[name])
    after = passes.classify_iter_arg_carry()(before)
    assert before_after("ClassifyIterArgCarry", before, after) == snapshot


def test_idempotent_and_printed_attrs_parse_back() -> None:
    once = passes.classify_iter_arg_carry()(ready(CARRIES["task_id_arrays_in_manual_scope"]))
    assert passes.classify_iter_arg_carry()(once) is once
    ir.assert_structural_equal(parse(once.as_python()), once)


def test_requires_runtime_scopes() -> None:
    program = passes.derive_call_directions()(parse(CARRIES["scalar_carry"]))
    with pytest.raises(VerificationError, match="RuntimeScopesMaterialized"):
        passes.classify_iter_arg_carry()(program)


def test_task_id_array_needs_a_constant_trip_count() -> None:
    program = ready(CARRIES["task_id_arrays_in_manual_scope"])
    main = program.get_function("main")
    n = ir.Var("n", ir.ScalarType(ir.INDEX))
    inner = next(x for x in walk(main.body) if isinstance(x, ir.ForStmt) and x.kind is ir.ForKind.Parallel)

    class Dynamic(Rewrite):
        @on(ir.ForStmt)
        def _for(self, node: ir.ForStmt) -> ir.Stmt:
            new = self.children(node)
            return ir.replace(new, stop=n) if node is inner else new

    rewrite = Dynamic()
    rewrite.start(main, program)
    body = rewrite.function(main).body
    main = ir.replace(main, params=[*main.params, n], param_directions=[*main.param_directions, ir.ParamDirection.In],
                      body=body)
    program = ir.Program([main if f.name == "main" else f for f in program.functions.values()], program.name,
                         program.span)
    with pytest.raises(PassError, match="needs a constant trip count") as err:
        passes.classify_iter_arg_carry()(program)
    assert err.value.span == inner.span
