"""DeriveCallDirections: the direction table of spec/passes.md §4.26, case by case."""

from __future__ import annotations

import pytest
from pass_helpers import before_after
from runtime_programs import DIRECTIONS, T, inputs, orch, parse
from pypto.languages.invariants import CallDirectionsResolved

from pypto import ir, passes
from pypto.analysis import walk
from pypto.interp.testing import assert_pass_preserves
from pypto.ir.errors import VerificationError
from pypto.passes import PassError

AD = ir.ArgDirection
IN, SC, OE, IO, ND = AD.Input, AD.Scalar, AD.OutputExisting, AD.InOut, AD.NoDep

# The directions of main's calls, in program order.
EXPECTED = {
    "first_write_is_output_existing": [[IN, SC, OE]],
    "second_write_is_inout": [[IN, SC, OE], [IN, SC, IO]],
    "inside_sequential_loop": [[IN, SC, IO], [IN, SC, IO]],
    "inside_parallel_loop": [[IN, SC, OE]],
    "parallel_inside_sequential": [[IN, SC, IO]],
    "while_loop": [[IN, SC, IO]],
    "inout_param_of_caller": [[IN, SC, IO]],
    "inout_callee_param": [[IN, IO]],
    "internal_tensor_chain": [[IN, SC, OE], [IN, SC, IO], [IN, SC, OE]],
    "branch_does_not_see_other_branch": [[IN, SC, OE], [IN, SC, OE], [IN, SC, IO]],
    "group_wrapper_is_raised": [[IN, OE]],
    "submit_stays_submit": [[IN, SC, OE], [IN, SC, IO]],
    "no_dep_is_kept": [[ND, SC, OE], [IN, SC, IO]],
}


def calls(func: ir.Function) -> list[ir.Call | ir.Submit]:
    return [n for n in walk(func.body) if isinstance(n, (ir.Call, ir.Submit)) and isinstance(n.op, ir.GlobalVar)]


def directions(program: ir.Program, name: str = "main") -> list[list[ir.ArgDirection]]:
    return [list(c.attrs["arg_directions"]) for c in calls(program.get_function(name))]


def test_every_case_has_an_expectation() -> None:
    assert sorted(EXPECTED) == sorted(DIRECTIONS)


@pytest.mark.parametrize("name", sorted(DIRECTIONS))
def test_direction_table(name: str) -> None:
    after = passes.derive_call_directions()(parse(DIRECTIONS[name]))
    assert directions(after) == EXPECTED[name]
    assert CallDirectionsResolved.check(after) == []


@pytest.mark.parametrize("name", sorted(DIRECTIONS))
def test_preserves_results(name: str) -> None:
    program = parse(DIRECTIONS[name])
    assert_pass_preserves(passes.derive_call_directions(), program, inputs(program))


@pytest.mark.parametrize("name", ["inside_sequential_loop", "branch_does_not_see_other_branch", "group_wrapper_is_raised"])
def test_snapshot(name: str, snapshot) -> None:
    before = parse(DIRECTIONS[name])
    after = passes.derive_call_directions()(before)
    assert before_after("DeriveCallDirections", before, after) == snapshot


def test_idempotent() -> None:
    for source in DIRECTIONS.values():
        once = passes.derive_call_directions()(parse(source))
        assert passes.derive_call_directions()(once) is once


def test_group_wrapper_param_is_raised_and_kernel_calls_get_directions() -> None:
    after = passes.derive_call_directions()(parse(DIRECTIONS["group_wrapper_is_raised"]))
    g = after.get_function("g")
    assert g.param_directions == [ir.ParamDirection.In, ir.ParamDirection.Out]
    assert directions(after, "g") == [[IN, SC, OE]]


def test_wrappers_are_raised_to_a_fixpoint() -> None:
    """g2 forwards to g, which forwards to the kernel: both become Out; a param only read stays In."""
    source = orch("out = self.g2(a, out)", extra=f"""
    @pl.function(type=pl.FunctionType.Group)
    def g2(self, a: {T}, out: {T}) -> {T}:
        out = self.g(a, out)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def g(self, a: {T}, out: {T}) -> {T}:
        out = self.k(a, 0, out)
        return out
""")
    after = passes.derive_call_directions()(parse(source))
    for name in ("g", "g2"):
        assert after.get_function(name).param_directions == [ir.ParamDirection.In, ir.ParamDirection.Out]
    assert directions(after, "g2") == [[IN, OE]]
    assert directions(after) == [[IN, OE]]


def test_tensor_direction_given_to_a_scalar_is_replaced() -> None:
    program = parse(DIRECTIONS["first_write_is_output_existing"])
    call = calls(program.get_function("main"))[0]
    stale = ir.replace(call, attrs={"arg_directions": [AD.Input, AD.Input, AD.Output]})
    assign = program.get_function("main").body.stmts[0]
    main = ir.replace(program.get_function("main"),
                      body=ir.SeqStmts([ir.replace(assign, value=stale), *program.get_function("main").body.stmts[1:]],
                                       assign.span))
    program = ir.Program([main if f.name == "main" else f for f in program.functions.values()], program.name, program.span)
    assert directions(passes.derive_call_directions()(program)) == [[IN, SC, OE]]


def test_overrides_become_no_dep_and_the_rest_is_derived() -> None:
    # pl.no_dep(a) is parsed to the override of argument 0 only; the pass writes every direction
    # and keeps the overrides, exactly as printed.
    program = parse(DIRECTIONS["no_dep_is_kept"])
    first = calls(program.get_function("main"))[0]
    assert dict(first.attrs) == {"arg_direction_overrides": [0]}
    after = passes.derive_call_directions()(program)
    text = after.as_python()
    assert ('self.k(a, 0, out, attrs={"arg_directions": [pl.adir.no_dep, pl.adir.scalar, pl.adir.output_existing], '
            '"arg_direction_overrides": [0]})') in text


@pytest.mark.parametrize("index", [1, 3])
def test_an_override_of_a_non_tensor_argument_is_an_error(index: int) -> None:
    source = orch(f'out = self.k(a, 0, out, attrs={{"arg_direction_overrides": [{index}]}})')
    with pytest.raises(PassError, match=f"arg_direction_overrides names argument {index}, which is not a tensor") as err:
        passes.derive_call_directions()(parse(source))
    assert err.value.span.is_valid() and "pl.no_dep" in err.value.hint


def test_a_tensor_fed_to_an_in_and_an_out_parameter_makes_the_wrapper_param_inout() -> None:
    """``self.k(out, 0, out)`` in a Group: read through ``a`` and written through ``out``, so InOut."""
    source = orch("out = self.g(out)", params=f"out: pl.InOut[{T}]", extra=f"""
    @pl.function(type=pl.FunctionType.Group)
    def g(self, out: {T}) -> {T}:
        out = self.k(out, 0, out)
        return out
""")
    after = passes.derive_call_directions()(parse(source))
    assert after.get_function("g").param_directions == [ir.ParamDirection.InOut]
    assert CallDirectionsResolved.check(after) == []


def test_a_tensor_written_then_read_in_the_wrapper_stays_out() -> None:
    """``c`` is written by the first kernel, then read by the second: the caller's contents are never read."""
    source = orch("c = pl.create_tensor([128, 128], dtype=pl.FP32)\nout = self.g(a, c, out)", extra=f"""
    @pl.function(type=pl.FunctionType.Group)
    def g(self, a: {T}, c: {T}, out: {T}) -> {T}:
        c = self.k(a, 0, c)
        out = self.k(c, 0, out)
        return out
""")
    after = passes.derive_call_directions()(parse(source))
    assert after.get_function("g").param_directions == [ir.ParamDirection.In, ir.ParamDirection.Out,
                                                        ir.ParamDirection.Out]
    assert CallDirectionsResolved.check(after) == []


EARLY = """
    @pl.program
    class Early:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
              ) -> pl.Tensor[[16, 64], pl.FP32]:
            t: pl.Tile[[16, 64], pl.FP32] = pl.load(a, [0, 0], [16, 64])
            out = pl.store(pl.add(t, t), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
                 ) -> pl.Tensor[[16, 64], pl.FP32]:
            out = self.k(a, out)
            for i in pl.range(2):
                out = self.k(out, out)
            return out
"""


def test_applied_on_its_own_it_takes_a_parsed_program_before_ssa_and_memory_planning() -> None:
    """As the established pass, it needs only outlined kernels: a freshly parsed program, whose kernel
    holds unplanned tiles and whose orchestration re-assigns its output, is accepted."""
    program = parse(EARLY)
    after = assert_pass_preserves(passes.derive_call_directions(), program, inputs(program))
    assert directions(after) == [[IN, OE], [IN, IO]]
    assert CallDirectionsResolved.check(after) == []


def test_applied_on_its_own_a_call_nested_in_another_gets_its_directions_too() -> None:
    """Before FlattenCallExpr a call of a function may be another call's argument: the pass then walks
    every expression (after it, only the statements' values)."""
    nested = EARLY.replace("out = self.k(a, out)\n", "out = self.k(self.k(a, out), out)\n", 1)
    after = passes.derive_call_directions()(parse(nested))
    assert directions(after) == [[IN, IO], [IN, OE], [IN, IO]]


def test_applied_on_its_own_it_refuses_a_kernel_scope_left_in_orchestration() -> None:
    source = """
        @pl.program
        class Unoutlined:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    b: pl.Tensor[[16, 64], pl.FP32] = pl.add(a, a)
                return b
    """
    with pytest.raises(VerificationError, match=r"input of pass DeriveCallDirections(.|\n)*SplitIncoreOrch"):
        passes.derive_call_directions()(parse(source))


def test_a_declared_inout_the_kernels_only_write_is_kept() -> None:
    """Directions are raised, never lowered: a wrapper's ``pl.InOut`` stays, and the check accepts it."""
    source = orch("c = pl.create_tensor([128, 128], dtype=pl.FP32)\nout = self.g(a, c, out)", extra=f"""
    @pl.function(type=pl.FunctionType.Group)
    def g(self, a: {T}, c: {T}, out: pl.InOut[{T}]) -> {T}:
        c = self.k(a, 0, c)
        out = self.k(c, 0, out)
        return out
""")
    after = passes.derive_call_directions()(parse(source))
    assert after.get_function("g").param_directions == [ir.ParamDirection.In, ir.ParamDirection.Out,
                                                        ir.ParamDirection.InOut]
    assert CallDirectionsResolved.check(after) == []


@pytest.mark.parametrize("name", sorted(DIRECTIONS))
def test_remembered_roots_are_the_edge_walks(name: str) -> None:
    # Roots remembers each root it followed (with the variables on the way); asked in any order,
    # every variable's is the one a walk of the alias edges gives, rebound (pre-SSA) ones included.
    from pypto.analysis.roots import Roots

    def walked(roots: Roots, var: ir.Var) -> ir.Var:
        while var in roots.edges:
            var = roots.edges[var]
        return var

    program = parse(DIRECTIONS[name])
    for func in program.functions.values():
        variables = list(dict.fromkeys(n for n in walk(func) if isinstance(n, ir.Var)))
        for order in (variables, [*reversed(variables), *variables]):
            roots = Roots(func, program)
            for var in order:
                assert roots.root(var) is walked(roots, var)
