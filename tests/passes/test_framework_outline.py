"""The rewriting framework proven on a pass it was not written for: outlining InCore scopes.

``OutlineScopes`` (the pass code is the class below: under 40 lines) turns each
``pl.at(level=CORE_GROUP)`` scope into a call of a new InCore function whose parameters are the
scope's live-ins and whose results are the values defined in the scope and read after it: one
statement becomes one or several, and the program gains a function.
"""

from __future__ import annotations

import inspect

import numpy as np
from front_programs import parse

from pypto import ir
from pypto.analysis import free_vars, stmt_defs, use_counts, walk
from pypto.interp.testing import assert_pass_preserves
from pypto.transform.rewrite import Result, RewritePass, on


class OutlineScopes(RewritePass):
    """Outline each InCore scope into a function of its live-ins returning its live-outs.

    before:  with pl.at(level=pl.Level.CORE_GROUP):      after:  d, e = self.main_incore_0(c, a, b)
                 d = pl.mul(c, a)
                 e = pl.add(d, b)
    """

    @on(ir.InCoreScopeStmt)
    def _scope(self, node: ir.InCoreScopeStmt) -> Result:
        body = self.children(node).body
        ins = free_vars(body)
        read, inside = use_counts(self.func.body), use_counts(node)
        outs = [v for n in walk(body) if isinstance(n, ir.Stmt) for v in stmt_defs(n) if read[v] > inside[v]]
        name = f"{self.func.name}_incore_{self.names.number('incore')}"
        params = [ir.Var(v.name_hint, v.type, v.span) for v in ins]
        stmts = ir.flatten_to_stmts(body) + [ir.ReturnStmt(list(outs), node.span)]
        fbody = ir.deep_clone(ir.SeqStmts(stmts, node.span), dict(zip(ins, params)))
        types = [v.type for v in outs]
        self.add_function(ir.Function(name, params, types, fbody, node.span, ir.FunctionType.InCore))
        result = types[0] if len(outs) == 1 else ir.TupleType(types)
        call = ir.Call(ir.GlobalVar(name), list(ins), result, node.span)
        if len(outs) == 1:
            return ir.AssignStmt(outs[0], call, node.span)
        packed = ir.Var(f"{name}_out", result, node.span)
        unpack = [ir.AssignStmt(v, ir.TupleGetItemExpr(packed, i, node.span), node.span) for i, v in enumerate(outs)]
        return [ir.AssignStmt(packed, call, node.span), *unpack]


PROGRAM = """
    @pl.program
    class Outline:
        @pl.function
        def main(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
            c: pl.Tensor[[16, 16], pl.FP32] = pl.add(a, b)
            with pl.at(level=pl.Level.CORE_GROUP):
                d: pl.Tensor[[16, 16], pl.FP32] = pl.mul(c, a)
                e: pl.Tensor[[16, 16], pl.FP32] = pl.add(d, b)
            f: pl.Tensor[[16, 16], pl.FP32] = pl.add(e, d)
            return f
"""

EXPECTED = """\
# pypto.program: Outline
import pypto.language as pl

@pl.program
class Outline:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def main_incore_0(c: pl.Tensor[[16, 16], pl.FP32], a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        d: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.mul(c, a)
        e: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(d, b)
        return d, e
    @pl.function
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        c: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(a, b)
        main_incore_0_out: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.main_incore_0(c, a, b)
        d: pl.Tensor[[16, 16], pl.FP32] = main_incore_0_out[0]
        e: pl.Tensor[[16, 16], pl.FP32] = main_incore_0_out[1]
        f: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(e, d)
        return f"""


def test_the_outlining_pass_is_short() -> None:
    source = inspect.getsource(OutlineScopes).splitlines()
    code = [line for line in source if line.strip() and not line.strip().startswith("#")]
    doc_end = next(i for i, line in enumerate(code) if i > 1 and line.strip().endswith('"""'))
    assert len(code) - doc_end - 1 < 40


def test_a_scope_becomes_a_call_of_a_new_function() -> None:
    program = parse(PROGRAM)
    out = OutlineScopes()(program)
    assert [f.name for f in out.functions.values()] == ["main", "main_incore_0"]
    assert out.as_python() == EXPECTED
    kernel = out["main_incore_0"]
    assert [p.name_hint for p in kernel.params] == ["c", "a", "b"]
    assert kernel.func_type is ir.FunctionType.InCore


def test_outlining_keeps_what_the_program_computes() -> None:
    program = parse(PROGRAM)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((16, 16)).astype(np.float32) for _ in range(2)]
    after = assert_pass_preserves(OutlineScopes(), program, inputs)
    assert after.get_function("main_incore_0") is not None
    # A program without InCore scopes comes back as the same object.
    plain = parse(PROGRAM.replace("with pl.at(level=pl.Level.CORE_GROUP):", "with pl.manual_scope():"))
    assert OutlineScopes()(plain) is plain
