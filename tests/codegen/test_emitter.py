"""The emitter base on a toy target: dispatch, the dialect check, "no rule" errors and the doc layer."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from pypto.backend import A2A3, A5
from pypto.codegen.base import Emitter, Rules, implies, note_validated
from pypto.codegen.coverage import coverage
from pypto.codegen.doc import Doc
from pypto.codegen.errors import CodegenError
from pypto.codegen.op_table import OpRule, OpTable
from pypto.codegen.target import Target
from pypto.ir.enums import FunctionType
from pypto.ir.errors import VerificationError
from pypto.ir.expr import Add, Call, ConstInt, GlobalVar, Mul, Op, Var
from pypto.ir.function import Function, Program
from pypto.ir.stmt import AssignStmt, ForStmt, ReturnStmt, SeqStmts
from pypto.language.parser.text_parser import loads_program
from pypto.languages.dialect import Dialect


@dataclass(frozen=True)
class Infix(OpRule):
    """``lhs <mnemonic> rhs``."""

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"lhs", "rhs"}


@dataclass(frozen=True)
class Prefix(OpRule):
    """``<mnemonic>(input)``: a form the toy emitter has no rule for."""

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"input"}


TOY_DIALECT = Dialect("toy", "straight-line scalar and tensor code",
                      [Program, Function, SeqStmts, AssignStmt, ReturnStmt, Var, ConstInt, Add, Call, Op])
TOY = Target("toy", TOY_DIALECT, frozenset({FunctionType.Opaque}),
             OpTable("toy", {"tensor.add": Infix("+"), "tensor.sub": Infix("-"), "tensor.neg": Prefix("neg")}))


class ToyEmitter(Emitter):
    """Prints each function as ``func name(params) {`` ... ``}``."""

    target = TOY
    rules = Rules("toy")
    indent_unit = "    "

    @rules.register(Program)
    def _program(self, node: Program) -> str:
        for func in node.functions.values():
            self.emit(func)
        return self.doc.render()

    @rules.register(Function)
    def _function(self, node: Function) -> None:
        with self.doc.block(f"func {node.name}({', '.join(p.name_hint for p in node.params)}) {{"):
            self.emit(node.body)

    @rules.register(SeqStmts)
    def _seq(self, node: SeqStmts) -> None:
        for stmt in node.stmts:
            self.emit(stmt)

    @rules.register(AssignStmt)
    def _assign(self, node: AssignStmt) -> None:
        self.doc.line(f"{node.var.name_hint} = {self.emit(node.value)}")

    @rules.register(ReturnStmt)
    def _return(self, node: ReturnStmt) -> None:
        self.doc.line("return " + ", ".join(self.emit(v) for v in node.value))

    @rules.register(Var)
    def _var(self, node: Var) -> str:
        return node.name_hint

    @rules.register(ConstInt)
    def _const(self, node: ConstInt) -> str:
        return str(node.value)

    @rules.register(Add)
    def _add(self, node: Add) -> str:
        return f"{self.emit(node.left)} + {self.emit(node.right)}"

    @rules.op(Infix)
    def _infix(self, call: Call, rule: Infix) -> str:
        lhs, rhs = call.args
        return f"{self.emit(lhs)} {rule.mnemonic} {self.emit(rhs)}"


def _program(tmp_path: Path, body: str, params: str = "a: pl.Tensor[[4], pl.FP32], b: pl.Tensor[[4], pl.FP32]",
             result: str = "pl.Tensor[[4], pl.FP32]") -> Program:
    path = tmp_path / "toy.py"
    path.write_text(
        "import pypto.language as pl\n\n\n@pl.program\nclass Toy:\n    @pl.function\n"
        f"    def f(self, {params}) -> {result}:\n" + "".join(f"        {line}\n" for line in body.splitlines())
    )
    return loads_program(path)


def test_rules_print_a_program(tmp_path: Path) -> None:
    program = _program(tmp_path, "c = pl.add(a, b)\nd = pl.sub(c, a)\nreturn d")
    assert ToyEmitter(A2A3)(program) == "func f(a, b) {\n    c = a + b\n    d = c - a\n    return d\n}\n"


def test_scalar_node_rules(tmp_path: Path) -> None:
    program = _program(tmp_path, "y = x + 1\nreturn y", params="x: pl.Scalar[pl.INDEX]", result="pl.Scalar[pl.INDEX]")
    assert ToyEmitter(A2A3)(program) == "func f(x) {\n    y = x + 1\n    return y\n}\n"


def test_a_node_without_a_rule_is_an_error_with_its_span(tmp_path: Path) -> None:
    program = _program(tmp_path, "y = x * 2\nreturn y", params="x: pl.Scalar[pl.INDEX]", result="pl.Scalar[pl.INDEX]")
    toy = Dialect("toy-mul", "", TOY_DIALECT.kinds | {Mul})

    class MulEmitter(ToyEmitter):
        target = Target("toy", toy, TOY.functions, TOY.ops)

    with pytest.raises(CodegenError) as err:
        MulEmitter(A2A3)(program)
    path = tmp_path / "toy.py"
    assert str(err.value) == (
        "no rule for Mul in toy\n"
        f"  --> {path}:8:13\n"
        "  |\n"
        "8 |         y = x * 2\n"
        "  |             ^^^^^\n"
        "  = hint: MulEmitter registers no rule for Mul nodes"
    )
    assert err.value.span.begin_line == 8


def test_an_op_without_a_table_entry_is_a_no_rule_error(tmp_path: Path) -> None:
    program = _program(tmp_path, "c = pl.add(a, b)\nd = pl.mul(c, b)\nreturn d")
    with pytest.raises(CodegenError) as err:
        ToyEmitter(A2A3)(program)
    assert err.value.message == "no rule for tensor.mul in toy"
    assert (err.value.span.begin_line, err.value.span.begin_column) == (9, 13)
    assert err.value.hint == "the toy op table has no entry for 'tensor.mul'"


def test_an_entry_whose_form_has_no_rule_is_a_no_rule_error(tmp_path: Path) -> None:
    program = _program(tmp_path, "c = pl.neg(a)\nreturn c")
    with pytest.raises(CodegenError) as err:
        ToyEmitter(A2A3)(program)
    assert err.value.message == "no rule for tensor.neg in toy"
    assert err.value.hint == "its toy table entry is a Prefix, and ToyEmitter registers no rule for Prefix entries"


def test_an_argument_the_rule_cannot_print_is_a_no_rule_error(tmp_path: Path) -> None:
    table = OpTable("toy", {"tensor.div": Infix("/")})

    class DivEmitter(ToyEmitter):
        target = Target("toy", TOY_DIALECT, TOY.functions, table)

    program = _program(tmp_path, "c = pl.div(a, b, high_precision=True)\nreturn c")
    with pytest.raises(CodegenError) as err:
        DivEmitter(A2A3)(program)
    assert err.value.message == "no rule for tensor.div with high_precision in toy"
    plain = _program(tmp_path, "c = pl.div(a, b)\nreturn c")
    assert DivEmitter(A2A3)(plain) == "func f(a, b) {\n    c = a / b\n    return c\n}\n"


def test_a_keyword_at_its_default_is_not_an_argument_the_rule_must_print(tmp_path: Path) -> None:
    # op_call's shortcut (a rule spelling every parameter, and every keyword the call stores) does not
    # hold: the keyword is stored, at its default, so the full check decides, and lets it through
    table = OpTable("toy", {"tensor.div": Infix("/")})

    class DivEmitter(ToyEmitter):
        target = Target("toy", TOY_DIALECT, TOY.functions, table)

    plain = _program(tmp_path, "c = pl.div(a, b)\nreturn c")
    func = plain.get_function("f")
    assign, ret = func.body.stmts
    div = assign.value  # the parser stores no keyword at its default: the node is made with one
    stored = Call(div.op, list(div.args), {"high_precision": False}, div.type, div.span)
    assert stored.kwargs == {"high_precision": False}
    body = SeqStmts([AssignStmt(assign.var, stored, assign.span), ret], func.body.span)
    program = Program([Function(func.name, func.params, func.return_types, body, func.span)], plain.name, plain.span)
    assert DivEmitter(A2A3)(program) == "func f(a, b) {\n    c = a / b\n    return c\n}\n"


def test_a_parameter_the_rule_does_not_spell_is_refused_whatever_the_keywords(tmp_path: Path) -> None:
    # a rule that does not spell every parameter of its op never takes op_call's shortcut
    @dataclass(frozen=True)
    class Left(OpRule):
        def spelled(self, op: str) -> frozenset[str]:
            return self.implied | {"lhs"}

    class LeftEmitter(ToyEmitter):
        target = Target("toy", TOY_DIALECT, TOY.functions, OpTable("toy", {"tensor.add": Left("+")}))
        rules = ToyEmitter.rules.extend("toy-left")

        @rules.op(Left)
        def _left(self, call: Call, rule: Left) -> str:
            return self.emit(call.args[0])

    with pytest.raises(CodegenError) as err:
        LeftEmitter(A2A3)(_program(tmp_path, "c = pl.add(a, b)\nreturn c"))
    assert err.value.message == "no rule for tensor.add with rhs in toy"


def test_a_function_call_without_a_rule_is_a_no_rule_error(tmp_path: Path) -> None:
    path = tmp_path / "calls.py"
    path.write_text(
        "import pypto.language as pl\n\n\n@pl.program\nclass Calls:\n"
        "    @pl.function\n    def g(self, a: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n"
        "        return a\n\n"
        "    @pl.function\n    def f(self, a: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n"
        "        b = self.g(a)\n        return b\n"
    )
    toy = Dialect("toy-calls", "", TOY_DIALECT.kinds | {GlobalVar})

    class CallEmitter(ToyEmitter):
        target = Target("toy", toy, TOY.functions, TOY.ops)

    with pytest.raises(CodegenError) as err:
        CallEmitter(A2A3)(loads_program(path))
    assert err.value.message == "no rule for a call of function 'g' in toy"
    assert err.value.span.begin_line == 12


def test_entering_checks_the_program_is_in_the_dialect(tmp_path: Path) -> None:
    program = _program(tmp_path, "for i in pl.range(2):\n    a = pl.add(a, b)\nreturn a")
    with pytest.raises(VerificationError, match=r"program 'Toy' is not in dialect 'toy' \(toy code generation\)"):
        ToyEmitter(A2A3)(program)


def test_a_program_validated_in_an_implying_dialect_is_not_checked_again(tmp_path: Path) -> None:
    looser = Dialect("loose", "toy with loops", TOY_DIALECT.kinds | {ForStmt})
    assert implies(TOY_DIALECT, looser) and not implies(looser, TOY_DIALECT)

    def loop_program() -> Program:  # not in toy: it has a loop
        return _program(tmp_path, "for i in pl.range(2):\n    a = pl.add(a, b)\nreturn a")

    in_looser, on_a5 = loop_program(), loop_program()
    note_validated(looser, in_looser, A2A3)
    note_validated(TOY_DIALECT, on_a5, A5)
    for program in (in_looser, on_a5):  # a looser dialect or another platform proves nothing
        with pytest.raises(VerificationError, match=r"not in dialect 'toy' \(toy code generation\)"):
            ToyEmitter(A2A3)(program)
    recorded = loop_program()
    note_validated(TOY_DIALECT, recorded, A2A3)  # as if it had passed: the emitter takes it unchecked
    with pytest.raises(CodegenError, match="no rule for ForStmt in toy"):
        ToyEmitter(A2A3)(recorded)


def test_the_generators_check_a_compile_result_only_when_the_pipeline_did_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pypto import ir
    from pypto.languages.runtime import runtime
    from pypto.languages.synced import synced

    program = loads_program(Path(__file__).resolve().parents[2] / "examples" / "tile_add.py")
    seen: list[tuple[str, str]] = []
    validate = Dialect.validate

    def spy(self: Dialect, prog: Program, *args: object, **kwargs: object) -> Program:
        seen.append((self.name, str(kwargs.get("context"))))
        return validate(self, prog, *args, **kwargs)

    monkeypatch.setattr(Dialect, "validate", spy)
    generated = {}
    for level in ("strict", "basic", "none"):
        seen.clear()
        ir.compile(program, output_dir=tmp_path / level, dump_passes=False, verify=level)
        generated[level] = [entry for entry in seen if "code generation" in entry[1]]
    # strict and basic validate the synced result after InsertPipeSync, which implies runtime
    assert generated["strict"] == generated["basic"] == []
    assert generated["none"] == [("runtime", "pto code generation"), ("synced", "cce code generation")]
    assert implies(synced, runtime) and not implies(runtime, synced)


def test_rules_extend_and_report_what_they_handle() -> None:
    assert ToyEmitter.rules.handles(Add) and not ToyEmitter.rules.handles(Mul)
    assert ToyEmitter.rules.handles_form(Infix) and not ToyEmitter.rules.handles_form(Prefix)
    child = ToyEmitter.rules.extend("toy2")

    @child.op(Prefix)
    def _prefix(self: Emitter, call: Call, rule: Prefix) -> str:
        return f"{rule.mnemonic}({self.emit(call.args[0])})"

    assert child.handles_form(Prefix) and child.handles(Add) and not ToyEmitter.rules.handles_form(Prefix)


def test_coverage_of_an_emitter_lists_what_it_lacks() -> None:
    report = coverage(TOY, ToyEmitter)
    assert report.missing_nodes == ()
    assert "tensor.neg" in report.missing_ops and "tensor.add" not in report.missing_ops
    assert report.missing_ops == tuple(sorted({n for n in TOY.needed_ops() if n not in TOY.ops} | {"tensor.neg"}))
    assert coverage(TOY, None).missing_nodes == tuple(sorted(
        c.__name__ for c in TOY_DIALECT.kinds if c is not Op))


def test_capture_renders_into_a_separate_doc() -> None:
    emitter = ToyEmitter(A2A3)
    emitter.doc.line("head")
    with emitter.capture() as body:
        emitter.doc.line("inner")
    with emitter.doc.indent():
        emitter.doc.extend(body)
    assert emitter.doc.render() == "head\n    inner\n"


def test_doc_indents_blocks_and_splices() -> None:
    doc = Doc("  ")
    with doc.block("outer {"):
        doc.line("a")
        doc.line()
        with doc.block("inner {", "} // inner"):
            doc.line("b")
    part = Doc("  ")
    part.line("x")
    with part.indent(2):
        part.line("y")
    with doc.indent():
        doc.extend(part)
    assert doc.render() == "outer {\n  a\n\n  inner {\n    b\n  } // inner\n}\n  x\n      y\n"
    assert len(doc) == 9 and doc.depth == 0


def test_doc_written_at_its_splice_depth_is_copied_as_it_is() -> None:
    part = Doc("  ", 1)
    part.line("x")
    part.line()
    with part.block("if {"):
        part.line("y")
    doc = Doc("  ")
    with doc.block("f {"):
        doc.extend(part)
    with doc.block("g {"), doc.indent():
        doc.extend(part)  # one level deeper than it was written for
    assert doc.render() == "f {\n  x\n\n  if {\n    y\n  }\n}\ng {\n    x\n\n    if {\n      y\n    }\n}\n"
    with pytest.raises(ValueError, match="cannot extend a document at depth 0 with one that starts at depth 1"):
        Doc("  ").extend(part)


def test_doc_depth_is_restored_after_an_error() -> None:
    doc = Doc()
    with pytest.raises(CodegenError):
        with doc.indent():
            raise CodegenError("boom")
    doc.line("z")
    assert doc.render() == "z\n"


def test_an_error_without_a_known_span_renders_the_message_and_hint() -> None:
    assert str(CodegenError("no rule for X in toy", hint="add one")) == (
        "no rule for X in toy\n  = hint: add one")
