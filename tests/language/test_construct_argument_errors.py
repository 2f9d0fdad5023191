"""Malformed arguments of language constructs (block counts, bool flags, optimizations=, func_attr,
predicate=, break/continue in parallel or unrolled loops) are ParserSyntaxError, as in the
established PyPTO: the construct is written wrongly, whatever the value's type."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto.language.parser import ParserSyntaxError

PROGRAM = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]],
             rc: pl.Tensor[[8, 8], pl.INT32]) -> pl.Tensor[[64], pl.FP32]:
{body}
        return out
"""

KERNEL = """
import pypto.language as pl

@pl.function
def f(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
{body}
    return x
"""


def _in(template: str, indent: str, *lines: str) -> str:
    return template.format(body="".join(f"{indent}{line}\n" for line in lines))


def _orch(*lines: str) -> str:
    return _in(PROGRAM, "        ", *lines)


def _kernel(*lines: str) -> str:
    return _in(KERNEL, "    ", *lines)


CASES = [
    ("spmd-submit-without-core-num", _orch("out, t = pl.spmd_submit(self.k, x, out)"),
     "pl.spmd_submit needs core_num=N (the number of blocks)"),
    ("core-num-zero", _orch("out, t = pl.spmd_submit(self.k, x, out, core_num=0)"),
     "core_num= must be a positive integer, got int 0"),
    ("core-num-tensor", _orch("out, t = pl.spmd_submit(self.k, x, out, core_num=x)"),
     "core_num= must be a positive integer, got"),
    ("spmd-scope-count", _orch("with pl.spmd(0):", "    out = self.k(x, out)"),
     "pl.spmd core count must be a positive integer, got int 0"),
    ("sync-start-int", _orch("out, t = pl.spmd_submit(self.k, x, out, core_num=2, sync_start=1)"),
     "sync_start= must be True or False, got int 1"),
    ("submit-sync-start", _orch("out, t = pl.submit(self.k, x, out, sync_start=True)"),
     "pl.submit takes no sync_start=: a launch on several blocks is pl.spmd_submit"),
    ("submit-core-num", _orch("out, t = pl.submit(self.k, x, out, core_num=4)"),
     "pl.submit takes no core_num=: a launch on several blocks is pl.spmd_submit"),
    ("early-resolve-str", _orch("out, t = pl.submit(self.k, x, out, allow_early_resolve='yes')"),
     "allow_early_resolve= must be True or False, got str 'yes'"),
    ("optimizations-not-a-list", _orch("with pl.at(level=pl.Level.CORE_GROUP, optimizations=3):", "    pass"),
     "optimizations= takes a list"),
    ("optimizations-entry", _orch("with pl.at(level=pl.Level.CORE_GROUP, optimizations=[1]):", "    pass"),
     "optimizations= entries are pl.split(...) or pl.cross_core_slot(...), got '1'"),
    ("split-mode-int", _orch("with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(1)]):", "    pass"),
     "pl.split(mode) must be a pl.SplitMode member, got int 1"),
    ("slot-num-zero",
     _orch("with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=0)]):", "    pass"),
     "slot_num= must be a positive integer literal, got int 0"),
    ("func-attr-no-dict", _kernel("pl.func_attr()"), 'pl.func_attr takes one dict: pl.func_attr({"key": value})'),
    ("func-attr-bad-value", _kernel("pl.func_attr({'split': 7})"),
     "pl.func_attr: field 'attrs.split': 7 is not a value of SplitMode"),
    ("func-attr-int-keys", _kernel("pl.func_attr({1: 2})"), "pl.func_attr takes a dict with string keys, got"),
    ("predicate-float-target", _orch("out, t = pl.submit(self.k, x, out, predicate=(rc[0, 0] > 1.5))"),
     "the target of a predicate must be an integer literal, got float 1.5"),
    ("predicate-whole-tensor", _orch("out, t = pl.submit(self.k, x, out, predicate=(rc > 0))"),
     "the predicate operand must select a single tensor element"),
    ("range-step-zero", _kernel("for i in pl.range(0, 4, 0):", "    pass"), "pl.range step must not be zero"),
    ("break-in-parallel", _kernel("for i in pl.parallel(4):", "    break"),
     "'break' is not supported inside a pl.parallel loop"),
    ("continue-in-parallel", _kernel("for i in pl.parallel(4):", "    if i == 1:", "        continue"),
     "'continue' is not supported inside a pl.parallel loop"),
    ("break-in-unroll", _kernel("for i in pl.unroll(4):", "    break"),
     "'break' is not supported inside a pl.unroll loop"),
    ("continue-in-unroll", _kernel("for i in pl.unroll(4):", "    continue"),
     "'continue' is not supported inside a pl.unroll loop"),
]


@pytest.mark.parametrize(("code", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_malformed_construct_argument_is_a_syntax_error(code: str, message: str) -> None:
    with pytest.raises(ParserSyntaxError) as info:
        pl.parse(code, filename="constructs.py")
    err = info.value
    assert type(err) is ParserSyntaxError
    assert err.message.startswith(message), err.message
    assert err.span["filename"] == "constructs.py" and err.span["begin_line"] > 0
    assert err.hint
