"""Pass base classes, the per-pass rewriter and standalone pass calls."""

from __future__ import annotations

import pytest
from front_programs import CONVERT_TO_SSA, parse
from pypto.languages.invariants import SSAForm
from pypto.passes import PassContext, PassError, Rewriter

from pypto import ir, passes
from pypto.ir.errors import VerificationError

INDEX = ir.ScalarType(ir.INDEX)


class Renamer:
    """Replaces one variable by another; everything else goes through the fallback."""

    rewrite = Rewriter("Renamer")

    def __init__(self, old: ir.Var, new: ir.Expr) -> None:
        self.old, self.new = old, new

    @rewrite.register(ir.Var)
    def _var(self, node: ir.Var) -> ir.Expr:
        return self.new if node is self.old else node


class ConstantsToZero(Renamer):
    """A subclass extending the parent's rewriter: also replaces integer constants by 0."""

    rewrite = Renamer.rewrite.extend("ConstantsToZero")

    @rewrite.register(ir.ConstInt)
    def _const(self, node: ir.ConstInt) -> ir.Expr:
        return ir.ConstInt(0, node.dtype)


def _stmt() -> tuple[ir.Var, ir.Var, ir.Stmt]:
    a, b = ir.Var("a", INDEX), ir.Var("b", INDEX)
    other = ir.AssignStmt(ir.Var("c", INDEX), b + 1)
    block = ir.SeqStmts([ir.AssignStmt(b, a * 2), other])
    return a, b, block


def test_fallback_returns_the_same_object_when_nothing_changes() -> None:
    a, _, block = _stmt()
    unrelated = ir.Var("z", INDEX)
    assert Renamer(unrelated, a).rewrite(block) is block


def test_fallback_rebuilds_only_the_changed_path() -> None:
    a, b, block = _stmt()
    x = ir.Var("x", INDEX)
    new = Renamer(a, x).rewrite(block)
    assert new is not block
    assert new.stmts[0].value.left is x
    assert new.stmts[1] is block.stmts[1]
    assert new.stmts[0].var is b


def test_extend_keeps_parent_cases_and_parent_is_unaffected() -> None:
    a, _, block = _stmt()
    x = ir.Var("x", INDEX)
    child = ConstantsToZero(a, x).rewrite(block)
    assert child.stmts[0].value.left is x and child.stmts[0].value.right.value == 0
    parent = Renamer(a, x).rewrite(block)
    assert parent.stmts[0].value.right.value == 2


def test_types_are_left_alone_unless_asked() -> None:
    n = ir.Var("n", INDEX)
    t = ir.Var("t", ir.TensorType([n, 4], ir.FP32))

    class Plain:
        rewrite = Rewriter("Plain")

        @rewrite.register(ir.Var)
        def _var(self, node: ir.Var) -> ir.Expr:
            return ir.ConstInt(8, ir.INDEX) if node is n else node

    class WithTypes(Plain):
        rewrite = Rewriter("WithTypes", types=True)
        rewrite.register(ir.Var)(Plain._var)

    call = ir.Call(ir.Op("tensor.dim"), [t, ir.ConstInt(0, ir.INDEX)], t.type)
    assert Plain().rewrite(call) is call
    rebuilt = WithTypes().rewrite(call)
    assert rebuilt.type == ir.TensorType([8, 4], ir.FP32)


def test_function_pass_returns_the_program_when_no_function_changes() -> None:
    program = parse(CONVERT_TO_SSA["accumulate"])
    once = passes.convert_to_ssa()(program)
    assert passes.convert_to_ssa()(once) is once


def test_standalone_call_checks_what_the_pass_produces() -> None:
    class Broken(passes.FunctionPass):
        name = "Broken"
        produces = frozenset({SSAForm})

        def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
            return func

    program = parse(CONVERT_TO_SSA["accumulate"])
    with pytest.raises(VerificationError) as err:
        Broken()(program)
    assert str(err.value).splitlines()[0] == "program 'Acc' breaks its invariants (after pass Broken): 1 violation"
    assert err.value.violations[0].code == "MULTIPLE_ASSIGNMENT"
    with PassContext(verify=False):
        assert Broken()(program) is program


def test_pass_must_return_a_program() -> None:
    class Wrong(passes.ProgramPass):
        name = "Wrong"

        def run(self, program: ir.Program) -> ir.Program:
            return program.get_function("main")  # type: ignore[return-value]

    with pytest.raises(PassError, match="^Wrong: returned Function instead of a Program$"):
        Wrong()(parse(CONVERT_TO_SSA["accumulate"]))


def test_factories_name_their_passes() -> None:
    made = [
        passes.inline_functions(),
        passes.unroll_loops(),
        passes.ctrl_flow_transform(),
        passes.convert_to_ssa(),
        passes.simplify(),
        passes.normalize_stmt_structure(),
        passes.flatten_call_expr(),
    ]
    assert [p.name for p in made] == [p.name for p in passes.front_passes()]
    assert repr(made[3]) == "<Pass ConvertToSSA>"


def test_every_pass_documents_its_rewrite() -> None:
    for p in passes.builtin_passes():
        doc = type(p).__doc__ or ""
        assert "before" in doc and "after" in doc, p.name
