"""Checking several invariants in one loop over the functions (``check_all``) and its caches."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from inv_helpers import prog
from pypto.languages import Dialect
from pypto.languages.invariants import Invariant, Reporter, structure
from pypto.languages.invariants import base
from pypto.languages.invariants.base import check_all, clear_caches

from pypto import ir, passes
from pypto.ir.errors import VerificationError

SOURCE = """
@pl.program
class P:
    @pl.function
    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        return a

    @pl.function
    def g(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        return a
"""

CALLS = """
@pl.program
class P:
    @pl.function
    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        return a

    @pl.function
    def g(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        b: pl.Scalar[pl.INT64] = self.f(a)
        return b
"""


@pytest.fixture(autouse=True)
def _cold() -> Iterator[None]:
    clear_caches()
    yield
    clear_caches()


def _recording(
    name: str, calls: list[tuple[str, str]], reads_bodies: bool = False, reads_signatures: bool = False
) -> Invariant:
    def check(func: ir.Function, program: ir.Program, report: Reporter) -> None:
        calls.append((name, func.name))
        report.error("X", f"{name} dislikes {func.name}", func)

    return Invariant.per_function(
        name, "test", check, reads_bodies=reads_bodies, reads_signatures=reads_signatures
    )


def _whole(name: str, calls: list[tuple[str, str]]) -> Invariant:
    def check(program: ir.Program, report: Reporter) -> None:
        calls.append((name, "*"))
        report.error("Y", f"{name} dislikes the program", program)

    return Invariant.per_program(name, "test", check)


def test_checkers_run_function_by_function_and_report_invariant_by_invariant() -> None:
    calls: list[tuple[str, str]] = []
    a, b, c = _recording("A", calls), _whole("B", calls), _recording("C", calls)
    found = check_all(prog(SOURCE), [a, b, c])
    assert calls == [("A", "f"), ("C", "f"), ("A", "g"), ("C", "g"), ("B", "*")]
    assert [v.message for v in found] == [
        "A dislikes f",
        "A dislikes g",
        "B dislikes the program",
        "C dislikes f",
        "C dislikes g",
    ]


def test_dialect_check_lists_grammar_first_then_each_invariant() -> None:
    calls: list[tuple[str, str]] = []
    a, c = _recording("A", calls), _recording("C", calls)
    program = prog(SOURCE)
    dialect = Dialect("tiny", "no returns allowed", {ir.Program, ir.Function, ir.Var}, invariants=[c, a])
    found = [(v.dialect, v.rule, v.function, v.message) for v in dialect.check(program)]
    assert found == [
        ("tiny", "Grammar", "f", "ReturnStmt is not a node of this dialect"),
        ("tiny", "Grammar", "g", "ReturnStmt is not a node of this dialect"),
        ("tiny", "A", "f", "A dislikes f"),
        ("tiny", "A", "g", "A dislikes g"),
        ("tiny", "C", "f", "C dislikes f"),
        ("tiny", "C", "g", "C dislikes g"),
    ]
    assert calls == [("A", "f"), ("C", "f"), ("A", "g"), ("C", "g")]


def test_results_are_reused_for_an_equal_program_signature() -> None:
    calls: list[tuple[str, str]] = []
    inv = _recording("A", calls, reads_bodies=True)
    program = prog(SOURCE)
    again = ir.Program(list(program.functions.values()), program.name, program.span)
    assert inv.context(program) is inv.context(again)
    first, second = inv.check(program), inv.check(again)
    assert [v.message for v in second] == [v.message for v in first] == ["A dislikes f", "A dislikes g"]
    assert calls == [("A", "f"), ("A", "g")]


def test_flatten_call_expr_shares_its_no_nested_calls_check_with_the_boundary(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # NoNestedCalls is declared as grammar rules now: count its per-function walks.
    scanned: list[str] = []
    walk = structure.NoNestedCalls._function_check

    def counting(func: ir.Function, program: ir.Program, report: Reporter) -> None:
        scanned.append(func.name)
        walk(func, program, report)

    monkeypatch.setattr(structure.NoNestedCalls, "_function_check", counting)
    program = prog(CALLS)
    manager = passes.PassManager(passes.front_passes(), verify=True)
    assert manager.run(program).functions == program.functions
    assert scanned == ["f", "g"]


OTHER_F = """
@pl.program
class P:
    @pl.function
    def f(self, a: pl.Scalar[pl.INT64], c: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        return a
"""


def test_a_kept_function_is_checked_again_when_a_signature_it_may_read_changed() -> None:
    # One check_all mixes checkers that read other functions' signatures with ones that do not: a
    # kept caller is re-checked by the first kind only, and a changed function by both (those reading
    # nothing of the other functions first).
    calls: list[tuple[str, str]] = []
    reads, local = _recording("R", calls, reads_bodies=True), _recording("L", calls)
    program = prog(CALLS)
    check_all(program, [reads, local])
    calls.clear()
    (new_f,) = prog(OTHER_F).functions.values()
    changed = ir.Program([new_f, list(program.functions.values())[1]], program.name, program.span)
    found = check_all(changed, [reads, local])
    assert calls == [("L", "f"), ("R", "f"), ("R", "g")]
    assert [v.message for v in found] == ["R dislikes f", "R dislikes g", "L dislikes f", "L dislikes g"]


OTHER_F_BODY = """
@pl.program
class P:
    @pl.function
    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        b: pl.Scalar[pl.INT64] = a + 1
        return b
"""


def test_a_kept_function_is_checked_again_when_a_body_it_may_read_changed() -> None:
    # f gets another body under the same signature: a checker reading other functions' bodies runs
    # again on the kept caller g, one reading only signatures (and one reading nothing) does not.
    calls: list[tuple[str, str]] = []
    bodies = _recording("B", calls, reads_bodies=True)
    signatures = _recording("S", calls, reads_signatures=True)
    local = _recording("L", calls)
    program = prog(CALLS)
    check_all(program, [bodies, signatures, local])
    calls.clear()
    (new_f,) = prog(OTHER_F_BODY).functions.values()
    changed = ir.Program([new_f, list(program.functions.values())[1]], program.name, program.span)
    check_all(changed, [bodies, signatures, local])
    assert calls == [("L", "f"), ("S", "f"), ("B", "f"), ("B", "g")]


class _BreakKernel(passes.FunctionPass):
    """Test pass: assigns g's first variable twice, keeping every other function object."""

    def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
        if func.name != "g":
            return func
        first, *rest = func.body.stmts
        return func.model_copy(update={"body": ir.SeqStmts([first, first, *rest], func.body.span)})


def test_strict_checks_catch_a_broken_function_beside_cached_ones() -> None:
    program = prog(CALLS)
    front = passes.front_passes()
    passes.PassManager(front, verify=True).run(program)  # f and g checked and cached
    manager = passes.PassManager(front + [_BreakKernel()], verify=True)
    with pytest.raises(VerificationError, match=r"(?s)after pass _BreakKernel.*MULTIPLE_ASSIGNMENT in 'g'"):
        manager.run(program)


def test_model_copy_of_a_node_builds_a_new_node_and_keeps_the_shared_one() -> None:
    # Pydantic's model_copy wrote the update into the node itself (nodes copy as themselves), so a
    # pass using it changed a function that cached checks and other programs still held.
    program = prog(CALLS)
    g = list(program.functions.values())[1]
    body = g.body
    copy = g.model_copy(update={"body": ir.ReturnStmt([g.params[0]], g.span)})
    assert copy is not g and g.body is body and isinstance(copy.body, ir.ReturnStmt)
    assert g.model_copy() is g


def test_cached_results_live_as_long_as_their_function() -> None:
    calls: list[tuple[str, str]] = []
    a = _recording("A", calls)
    program = prog(SOURCE)
    first = check_all(program, [a])
    again = check_all(program, [a])
    assert calls == [("A", "f"), ("A", "g")]  # the second check is all cache hits
    assert [(v.node, v.message) for v in again] == [(v.node, v.message) for v in first]
    assert [v.node.name for v in again] == ["f", "g"]  # a cached violation at a function keeps its node
    assert len(base._FACTS) == 2
    kept = next(f for f in program.functions.values() if f.name == "f")
    del program, first, again
    gc.collect()
    assert len(base._FACTS) == 1  # g was freed with its program (its violation did not hold it)
    check_all(ir.Program([kept], "P", ir.Span.unknown()), [a])
    assert calls == [("A", "f"), ("A", "g")]


def _passing(name: str, calls: list[tuple[str, str]]) -> Invariant:
    def check(func: ir.Function, program: ir.Program, report: Reporter) -> None:
        calls.append((name, func.name))

    return Invariant.per_function(name, "test", check)


def _whole_passing(name: str, calls: list[tuple[str, str]]) -> Invariant:
    def check(program: ir.Program, report: Reporter) -> None:
        calls.append((name, "*"))

    return Invariant.per_program(name, "test", check)


def test_a_program_of_the_same_functions_as_one_that_passed_is_not_walked_again() -> None:
    # Another program object of the same function objects (a pass that changed nothing) passes the
    # per-function and the whole-program checks it passed without running them; a changed function
    # runs them again, and a failing result is never taken for granted.
    calls: list[tuple[str, str]] = []
    a, w = _passing("A", calls), _whole_passing("W", calls)
    program = prog(SOURCE)
    funcs = list(program.functions.values())
    assert check_all(program, [a, w]) == []
    assert check_all(ir.Program(funcs, program.name, program.span), [a, w]) == []
    assert calls == [("A", "f"), ("A", "g"), ("W", "*")]
    calls.clear()
    (new_f,) = prog(OTHER_F_BODY).functions.values()
    assert check_all(ir.Program([new_f, funcs[1]], program.name, program.span), [a, w]) == []
    assert calls == [("A", "f"), ("W", "*")]
    calls.clear()
    failing = _whole("B", calls)
    assert [v.message for v in check_all(program, [a, failing])] == ["B dislikes the program"]
    assert [v.message for v in check_all(program, [a, failing])] == ["B dislikes the program"]
    assert calls == [("B", "*"), ("B", "*")]


def test_the_checkers_of_a_function_in_turn_report_under_their_own_names() -> None:
    # The checkers of a function share one reporter, reset for each: a passing one between two that
    # report, and one that renames the function it reports in, leave nothing to the next.
    def renaming(func: ir.Function, program: ir.Program, report: Reporter) -> None:
        report.function = "elsewhere"

    calls: list[tuple[str, str]] = []
    a, c = _recording("A", calls), _recording("C", calls)
    quiet = Invariant.per_function("B", "test", renaming)
    program = prog(SOURCE)
    expected = [
        ("A", "f", "A dislikes f"),
        ("A", "g", "A dislikes g"),
        ("C", "f", "C dislikes f"),
        ("C", "g", "C dislikes g"),
    ]
    found = check_all(program, [a, quiet, c])
    assert [(v.rule, v.function, v.message) for v in found] == expected
    assert quiet.check(program) == []
    calls.clear()
    assert [(v.rule, v.function, v.message) for v in check_all(program, [a, quiet, c])] == expected
    assert calls == []  # cached, the same results


def test_a_checker_with_nothing_to_visit_is_not_called(monkeypatch: pytest.MonkeyPatch) -> None:
    # A declared invariant about calls of functions finds nothing where no function is called: its
    # idle test says so from the node classes, and only g is walked.
    from pypto.languages.invariants.grammar import Forbid, FunctionCalls

    walked: list[str] = []
    walk = base.check_rules

    def counting(rules: tuple, func: ir.Function, report: Reporter) -> None:
        walked.append(func.name)
        walk(rules, func, report)

    monkeypatch.setattr(base, "check_rules", counting)
    inv = Invariant.declared("NoCalls", "test", Forbid("NO_CALL", "{func} calls a function", what=FunctionCalls()))
    program = prog(CALLS)
    assert [inv.idle_if(f) for f in program.functions.values()] == [True, False]
    assert [v.message for v in check_all(program, [inv])] == ["g calls a function"]
    assert walked == ["g"]


def test_the_grammar_skips_functions_of_known_node_classes_only() -> None:
    # The grammar's idle test: nothing foreign and no removed form among a function's node classes.
    program = prog(CALLS)
    kinds = {ir.Program, ir.Function, ir.Var, ir.ReturnStmt, ir.SeqStmts, ir.AssignStmt, ir.GlobalVar}
    dialect = Dialect("tiny", "no calls", kinds)
    grammar = dialect._checked(())[0]
    assert [grammar.idle_if(f) for f in program.functions.values()] == [True, False]
    found = [(v.function, v.message) for v in dialect.check(program)]
    assert found == [("g", "Call is not a node of this dialect")]
