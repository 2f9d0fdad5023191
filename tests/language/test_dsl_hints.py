"""Every parser error carries a span, a message and a specific hint.

Two checks: a structural one over the source of ``pypto.language`` (every place that raises a
ParserError passes a hint), and a table of bad programs, one per reachable raising site, each
asserting the error class, a message fragment, a non-empty hint and a valid span.
"""

from __future__ import annotations

import ast
import linecache
import textwrap
import warnings
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.language.parser import diagnostics
from pypto.language.parser.diagnostics import (
    InvalidOperationError,
    ParserDefinitionError,
    ParserError,
    ParserSyntaxError,
    ParserTypeError,
    ParserWarning,
    PythonSyntaxError,
    SSAViolationError,
    UndefinedVariableError,
    UnsupportedFeatureError,
)

LANGUAGE = Path(pl.__file__).parent
ERROR_NAMES = {name for name in diagnostics.__all__ if name.endswith("Error")}


# ----- every raising site passes a hint ---------------------------------------------------------
def _raising_sites() -> list[tuple[str, ast.Call]]:
    """``fail(...)`` calls and constructions of ParserError classes in ``pypto.language``."""
    sites = []
    for path in sorted(LANGUAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if type(node) is not ast.Call:
                continue
            func = node.func
            name = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else ""
            if name == "fail" or name in ERROR_NAMES:
                sites.append((f"{path.relative_to(LANGUAGE)}:{node.lineno}", node))
    return sites


def _hint_argument(call: ast.Call) -> ast.expr | None:
    func = call.func
    name = func.attr if type(func) is ast.Attribute else func.id  # type: ignore[union-attr]
    position = 3 if name == "fail" else 2  # fail(cls, message, node, hint) / Error(message, span, hint)
    for kw in call.keywords:
        if kw.arg == "hint":
            return kw.value
    return call.args[position] if len(call.args) > position else None


def test_every_raising_site_passes_a_hint() -> None:
    sites = _raising_sites()
    assert len(sites) > 250
    missing = []
    for where, call in sites:
        hint = _hint_argument(call)
        if hint is None or (type(hint) is ast.Constant and not hint.value):
            missing.append(where)
    assert missing == []


# ----- a table of bad programs --------------------------------------------------------------------
PARAMS = "x: pl.Tensor[[64, 64], pl.FP32], n: pl.INDEX, f: pl.FP32, b: pl.BOOL"


def fn(body: str, params: str = PARAMS, head: str = "@pl.function", returns: str = "") -> str:
    """One function with ``body`` (dedented) as its statements."""
    arrow = f" -> {returns}" if returns else ""
    return f"{head}\ndef f({params}){arrow}:\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"


KERNEL = """
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        return out
"""


def prog(body: str, head: str = "@pl.function(type=pl.FunctionType.Orchestration)", extra: str = "") -> str:
    """A program with the kernel ``k`` and an orchestration ``main`` whose statements are ``body``."""
    main = (
        f"    {head}\n"
        "    def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], n: pl.INDEX,\n"
        "             rc: pl.Tensor[[4, 4], pl.INT32], t: pl.Tensor[[8, 8], pl.FP32]):\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), "        ")
        + "\n"
    )
    return "@pl.program\nclass P:" + textwrap.dedent(KERNEL).replace("\n", "\n    ") + "\n" + extra + main


def incore(body: str, params: str = "x: pl.Tensor[[64, 64], pl.FP32], n: pl.INDEX") -> str:
    return fn(body, params, head="@pl.function(type=pl.FunctionType.InCore)")


# (id, DSL text, error class, message fragment)
# fmt: off
CASES: list[tuple[str, str, type[ParserError], str]] = [
    # ----- annotations
    ("out-outside-param", fn("y: pl.Out[pl.INT64] = 1"), ParserTypeError, "can only annotate a function parameter"),
    ("scalar-inout", fn("pass", "s: pl.InOut[pl.Scalar[pl.FP32]]"), ParserTypeError, "cannot be InOut"),
    ("tensor-items", fn("y: pl.Tensor[[64]] = x"), ParserTypeError, "needs at least a shape and a dtype"),
    ("tile-items", fn("y: pl.Tile[[16, 16], pl.FP32, 3] = x"), ParserTypeError, "unexpected annotation item"),
    ("array-items", fn("y: pl.Array[n, pl.INT32] = x"), ParserTypeError, "the extent must be a static int"),
    ("not-a-type-head", fn("y: pl.range[3] = x"), ParserTypeError, "is not a type"),
    ("bare-tensor", fn("y: pl.Tensor = x"), ParserTypeError, "pl.Tensor needs its items"),
    ("bare-scalar", fn("y: pl.Scalar = n"), ParserTypeError, "pl.Scalar needs its items in brackets"),
    ("not-an-annotation", fn("y: 3 = x"), ParserTypeError, "is not a type annotation"),
    ("param-not-annotated", fn("pass", "y"), ParserTypeError, "needs a type annotation"),
    ("param-varargs", fn("pass", "*ys: pl.INDEX"), UnsupportedFeatureError, "*args parameters"),
    ("param-kwonly", fn("pass", "a: pl.INDEX, *, b: pl.INDEX"), UnsupportedFeatureError, "keyword-only"),
    ("param-default", fn("pass", "a: pl.INDEX = 1"), UnsupportedFeatureError, "default values"),
    ("level-contradicts-type", fn("pass", "n: pl.INDEX", head="@pl.function(type=pl.FunctionType.AIC, level=pl.Level.HOST)"), ParserTypeError, "contradicts function type"),
    # ----- type checks
    ("annotation-mismatch", fn("y: pl.Tensor[[8], pl.FP32] = x"), ParserTypeError, "the annotation declares"),
    ("return-mismatch", fn("return n", returns="pl.FP16"), ParserTypeError, "declares the return value as"),
    ("return-count", fn("return n, n", returns="pl.INDEX"), ParserTypeError, "declares 1 return value(s)"),
    ("return-undeclared", fn("return n"), ParserTypeError, "declares no return type"),
    ("argument-mismatch", prog("y = self.k(n, out)"), ParserTypeError, "parameter 'a' expects"),
    # ----- calls
    ("call-a-value", fn("y = x(1)"), ParserTypeError, "not a function"),
    ("construct-in-expression", fn("y = pl.add(pl.yield_(x), x)"), ParserSyntaxError, "cannot be used inside"),
    ("call-a-class", fn("y = pl.Tensor(x)"), ParserTypeError, "cannot call"),
    ("starred-argument", fn("y = pl.add(*x)"), UnsupportedFeatureError, "'*' arguments"),
    ("double-starred-argument", fn("y = pl.add(x, **x)"), UnsupportedFeatureError, "'**' arguments"),
    ("op-type-error", fn("y = pl.tile.load(n)"), ParserTypeError, "Operator 'tile.load'"),
    ("op-value-error", fn("y = pl.tensor.slice(x, [128, 64], [0, 0])"), InvalidOperationError, "reads past the source"),
    ("attrs-not-dict", fn("y = pl.add(x, x, attrs=3)"), ParserTypeError, "attrs= must be a dict"),
    ("attrs-on-scalar", fn("y = pl.add(n, n, attrs={})"), ParserTypeError, "attrs= can only be given"),
    ("undefined-program-function", prog("y = self.g(x)"), UndefinedVariableError, "has no function 'g'"),
    ("deps-on-plain-call", prog("y = self.k(x, out, deps=[])"), ParserSyntaxError, "deps= is not accepted"),
    ("no-such-parameter", prog("y = self.k(x, zz=out)"), ParserTypeError, "has no parameter 'zz'"),
    ("keyword-before-positional", prog("y = self.k(out=out)"), ParserTypeError, "must follow the positional"),
    ("arity", prog("y = self.k(x)"), ParserTypeError, "takes 2 argument(s) but 1 were given"),
    ("starred-program-call", prog("y = self.k(*x)"), UnsupportedFeatureError, "'*' arguments"),
    # ----- expressions
    ("conditional-expression", fn("y = n if b else 1"), UnsupportedFeatureError, "conditional expressions"),
    ("lambda", fn("y = lambda: n"), UnsupportedFeatureError, "lambda"),
    ("list-comprehension", fn("y = [i for i in n]"), UnsupportedFeatureError, "list comprehensions"),
    ("set-display", fn("y = {n}"), UnsupportedFeatureError, "set displays"),
    ("walrus", fn("y = (z := n)"), UnsupportedFeatureError, "assignment expressions"),
    ("starred-expression", fn("y = (*n,)"), UnsupportedFeatureError, "starred expressions"),
    ("slice-outside-subscript", fn("y = pl.add(x, 1:2)".replace("1:2", "slice(1, 2)")), UndefinedVariableError, "undefined variable 'slice'"),
    ("f-string", fn('y = f"{n}"'), UnsupportedFeatureError, "f-strings"),
    ("bytes-literal", fn("y = b'x'"), UnsupportedFeatureError, "bytes literals"),
    ("self-as-value", prog("y = self"), UnsupportedFeatureError, "'self' can only be used to call"),
    ("undefined-variable", fn("y = nn + 1"), UndefinedVariableError, "undefined variable 'nn'"),
    ("undefined-variable-no-match", fn("y = qqqq"), UndefinedVariableError, "undefined variable 'qqqq'"),
    ("python-range", fn("y = range(3)"), UndefinedVariableError, "undefined variable 'range'"),
    ("attribute-of-value", fn("y = x.shape"), UnsupportedFeatureError, "attribute access '.shape'"),
    ("private-attribute", fn("y = pl._private"), UnsupportedFeatureError, "private attribute"),
    ("attribute-of-constant", fn("y = (1).real"), UnsupportedFeatureError, "attribute '.real' of int 1"),
    ("missing-attribute", fn("y = pl.tile.lod(x)"), UndefinedVariableError, "has no attribute 'lod'"),
    ("missing-attribute-no-match", fn("y = pl.tile.qqqqqqq(x)"), UndefinedVariableError, "has no attribute"),
    ("huge-constant", fn("y = 2 ** 100000"), InvalidOperationError, "too large in a constant expression"),
    ("matmul-operator", fn("y = n @ n"), UnsupportedFeatureError, "operator '@' is not supported"),
    ("constant-matmul-operator", fn("y = 2 @ 3"), UnsupportedFeatureError, "operator '@' is not supported"),
    ("tensor-operand", fn("y = x + 1"), ParserTypeError, "operators work on scalars"),
    ("scalar-operator-types", fn("y = n & f"), ParserTypeError, "operator '&'"),
    ("constant-division-by-zero", fn("y = 1 // 0"), InvalidOperationError, "division by zero"),
    ("constant-operator-types", fn("y = 'a' - 1"), ParserTypeError, "operator '-' on constants"),
    ("constant-unary", fn("y = -'a'"), ParserTypeError, "unary operator on a constant"),
    ("scalar-unary", fn("y = ~f"), ParserTypeError, "bit_not"),
    ("compare-is", fn("y = n is n"), UnsupportedFeatureError, "'is' cannot compare DSL values"),
    ("compare-types", fn("y = n < b"), ParserTypeError, "comparison '<'"),
    ("dict-unpack", fn("y = pl.add(x, x, attrs={**d})"), UnsupportedFeatureError, "'**' in a dict display"),
    ("dict-key", fn("y = pl.add(x, x, attrs={1.5: 2})"), ParserTypeError, "dict keys must be strings or ints"),
    ("not-a-dsl-value", fn("y = pl.add"), ParserTypeError, "cannot be used as a DSL value"),
    # ----- statements
    ("chained-assignment", fn("a = c = n"), UnsupportedFeatureError, "chained assignment"),
    ("declaration-without-value", fn("y: pl.INDEX"), ParserSyntaxError, "needs a value"),
    ("annotated-subscript", fn("x[0, 0]: pl.FP32 = f"), ParserSyntaxError, "only a plain variable name"),
    ("attribute-target", fn("x.y = n"), UnsupportedFeatureError, "assignment to an attribute"),
    ("unpack-non-name", fn("a, x[0, 0] = n, n"), UnsupportedFeatureError, "only names can be unpacked"),
    ("unpack-count", fn("a, c = n, n, n"), ParserTypeError, "cannot unpack 3 values into 2 names"),
    ("unpack-tuple-count", prog("a, c, d = pl.submit(self.k, x, out)"), ParserTypeError, "a tuple of 2 values into 3 names"),
    ("unpack-non-tuple", fn("a, c = x"), ParserTypeError, "it is not a tuple"),
    ("augassign-subscript", fn("x[0, 0] += f"), UnsupportedFeatureError, "augmented assignment"),
    ("augassign-undefined", fn("zz += 1"), UndefinedVariableError, "undefined variable 'zz'"),
    ("break-outside-loop", fn("break"), ParserSyntaxError, "'break' outside of a loop"),
    ("break-in-parallel", fn("for i in pl.parallel(4):\n    break"), ParserSyntaxError, "not supported inside a pl.parallel"),
    ("for-else", fn("for i in pl.range(4):\n    pass\nelse:\n    pass"), UnsupportedFeatureError, "for ... else"),
    ("for-over-list", fn("for i in [1, 2]:\n    pass"), ParserSyntaxError, "a DSL loop iterates over"),
    ("for-over-unknown", fn("for i in pl.add(x, x):\n    pass"), ParserSyntaxError, "is not a DSL loop"),
    ("with-two-items", fn("with pl.cluster(), pl.cluster():\n    pass"), UnsupportedFeatureError, "exactly one scope"),
    ("with-not-a-call", fn("with pl.cluster:\n    pass"), ParserSyntaxError, "opens a scope such as pl.at"),
    ("with-not-a-scope", fn("with pl.add(x, x):\n    pass"), UnsupportedFeatureError, "is not a DSL scope"),
    ("nested-def", fn("def g():\n    pass"), UnsupportedFeatureError, "nested function definitions"),
    ("import-in-body", fn("import math"), UnsupportedFeatureError, "imports are not supported"),
    ("try-statement", fn("try:\n    pass\nexcept Exception:\n    pass"), UnsupportedFeatureError, "try statements"),
    ("assert-statement", fn("assert n"), UnsupportedFeatureError, "assert is not supported"),
    ("del-statement", fn("del n"), UnsupportedFeatureError, "del is not supported"),
    ("global-statement", fn("global n"), UnsupportedFeatureError, "global declarations"),
    ("statement-after-yield", fn("if b:\n    y = pl.yield_(n)\n    z = n\nelse:\n    y = pl.yield_(n)"), ParserSyntaxError, "must be the last statement"),
    ("strict-ssa", fn("y = n\ny = n + 1", head="@pl.function(strict_ssa=True)"), SSAViolationError, "more than once"),
    # ----- control flow
    ("if-yield-one-branch", fn("if b:\n    y = pl.yield_(n)\nelse:\n    pass"), ParserSyntaxError, "both branches"),
    ("if-yield-different-names", fn("if b:\n    y = pl.yield_(n)\nelse:\n    z = pl.yield_(n)"), ParserSyntaxError, "yield different variables"),
    ("if-bare-yield-values", fn("if b:\n    pl.yield_(n)\nelse:\n    pl.yield_(n)"), ParserSyntaxError, "assignment form"),
    ("yield-keyword", fn("if b:\n    y = pl.yield_(v=n)\nelse:\n    y = pl.yield_(n)"), ParserTypeError, "only positional"),
    ("yield-subscript-target", fn("if b:\n    x[0] = pl.yield_(n)\nelse:\n    x[0] = pl.yield_(n)"), ParserSyntaxError, "binds plain names"),
    ("yield-count", fn("if b:\n    y, z = pl.yield_(n)\nelse:\n    y, z = pl.yield_(n)"), ParserTypeError, "name(s) bound to a pl.yield_"),
    ("yield-outside", fn("y = pl.yield_(n)"), ParserSyntaxError, "can only end an if branch or a loop body"),
    ("yield-in-plain-loop", fn("for i in pl.range(4):\n    y = pl.yield_(n)"), ParserSyntaxError, "needs a loop with init_values"),
    ("yield-count-loop", fn("for i, (a,) in pl.range(4, init_values=(n,)):\n    a1, a2 = pl.yield_(a, a)"), ParserTypeError, "the loop carries 1 value(s)"),
    ("bare-yield-with-init", fn("for i, (a,) in pl.range(4, init_values=(n,)):\n    pl.yield_(a)"), ParserSyntaxError, "requires assignment-form"),
    ("yield-result-unassigned", fn("if b:\n    pl.yield_(n)"), ParserSyntaxError, "assignment form"),
    ("range-keyword", fn("for i in pl.range(4, step=2):\n    pass"), ParserTypeError, "unexpected keyword argument 'step'"),
    ("range-arity", fn("for i in pl.range():\n    pass"), ParserTypeError, "takes 1 to 3 positional arguments"),
    ("pipeline-stage", fn("for i in pl.pipeline(4, stage=0):\n    pass"), ParserTypeError, "stage= must be an int"),
    ("range-bound-type", fn("for i in pl.range(x):\n    pass"), ParserTypeError, "bounds must be integer scalars"),
    ("loop-attrs", fn("for i in pl.range(4, attrs=3):\n    pass"), ParserTypeError, "attrs= must be a dict"),
    ("init-values-not-tuple", fn("for i, (a,) in pl.range(4, init_values=n):\n    a2 = pl.yield_(a)"), ParserTypeError, "init_values= must be a tuple"),
    ("loop-target-tuple", fn("for i, j in pl.range(4):\n    pass"), ParserSyntaxError, "binds one name"),
    ("init-target-shape", fn("for i in pl.range(4, init_values=(n,)):\n    pass"), ParserSyntaxError, "binds a loop variable and a tuple"),
    ("init-carried-names", fn("for i, a in pl.range(4, init_values=(n,)):\n    pass"), ParserSyntaxError, "a tuple of names"),
    ("init-count", fn("for i, (a, c) in pl.range(4, init_values=(n,)):\n    pass"), ParserTypeError, "2 loop-carried name(s) but 1"),
    ("while-else", fn("while n < 4:\n    pass\nelse:\n    pass"), UnsupportedFeatureError, "while ... else"),
    ("while-args", fn("for (a,) in pl.while_(3, init_values=(n,)):\n    pl.cond(a < 4)"), ParserTypeError, "takes only init_values"),
    ("while-target", fn("for (a, x[0]) in pl.while_(init_values=(n, n)):\n    pl.cond(a < 4)"), ParserSyntaxError, "binds a tuple of names"),
    ("while-count", fn("for (a, c) in pl.while_(init_values=(n,)):\n    pl.cond(a < 4)"), ParserTypeError, "2 loop-carried name(s)"),
    ("while-no-cond", fn("for (a,) in pl.while_(init_values=(n,)):\n    a2 = pl.yield_(a)"), ParserSyntaxError, "must be pl.cond"),
    ("while-cond-arity", fn("for (a,) in pl.while_(init_values=(n,)):\n    pl.cond(a < 4, a < 5)\n    a2 = pl.yield_(a)"), ParserTypeError, "exactly one condition"),
    # ----- constructs
    ("cond-misplaced", fn("pl.cond(n > 0)"), ParserSyntaxError, "pl.cond can only be the first statement"),
    ("memref-slots", fn("y: pl.Tile[[16, 16], pl.FP32, pl.MemRef('a', slots=0)] = x"), InvalidOperationError, "slots must be"),
    ("static-print-conversion", fn('pl.static_print(f"{n!r}")'), ParserSyntaxError, "!r / !s / !a"),
    ("static-print-format", fn('pl.static_print(f"{n:>4}")'), ParserSyntaxError, "format specs"),
    ("static-print-empty", fn("pl.static_print()"), ParserSyntaxError, "at least one positional"),
    ("static-assert-keyword", fn("pl.static_assert(True, text='x')"), ParserTypeError, "unexpected keyword argument 'text'"),
    ("static-assert-arity", fn("pl.static_assert()"), ParserTypeError, "a condition and an optional message"),
    ("static-assert-message", fn("pl.static_assert(True, n)"), ParserSyntaxError, "must be a string literal"),
    ("static-assert-dynamic", fn("pl.static_assert(n > 1)"), ParserSyntaxError, "compile-time constant"),
    ("static-assert-fails", fn("pl.static_assert(1 > 2)"), ParserError, "static assertion failed"),
    ("func-attr-misplaced", fn('y = n\npl.func_attr({"a": 1})'), ParserSyntaxError, "must be the first statement"),
    ("func-attr-arity", fn("pl.func_attr()"), ParserSyntaxError, "takes one dict"),
    ("func-attr-keys", fn("pl.func_attr({1: 2})"), ParserSyntaxError, "a dict with string keys"),
    ("const-type", fn("y = pl.const(1.5, pl.INT32)"), ParserTypeError, "cannot have the integer dtype"),
    ("const-dtype", fn("y = pl.const(1, pl.TASK_ID)"), InvalidOperationError, "are not supported"),
    ("tile-view", fn("y: pl.Tile[[16, 16], pl.FP32, pl.TileView(bogus=1)] = x"), ParserTypeError, "pl.TileView"),
    ("tensor-view", fn("y: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(bogus=1)] = x"), ParserTypeError, "bogus"),
    ("memref", fn("y: pl.Tile[[16, 16], pl.FP32, pl.MemRef(1.5, 2.5)] = x"), ParserTypeError, "MemRef"),
    ("abs-keyword", fn("y = abs(n, k=1)"), ParserTypeError, "abs() takes no keyword arguments"),
    ("min-arity", fn("y = min(n)"), ParserTypeError, "min() takes at least 2 argument(s)"),
    ("abs-constant", fn("y = abs('a')"), ParserTypeError, "abs():"),
    ("max-types", fn("y = max(n, f)"), ParserTypeError, "max():"),
    # ----- subscripts
    ("subscript-scalar", fn("y = n[0]"), ParserTypeError, "cannot be subscripted"),
    ("subscript-constant", fn("y = (1, 2)[5]"), ParserTypeError, "subscript of a constant"),
    ("subscript-function", fn("y = pl.add[0]"), ParserTypeError, "cannot be subscripted"),
    ("tensor-read-bounds", fn("y = x[0:128, 0]"), InvalidOperationError, "slice"),
    ("too-many-indices", fn("y = x[0, 0, 0]"), ParserTypeError, "too many indices"),
    ("ellipsis-index", fn("y = x[..., 0]"), UnsupportedFeatureError, "ellipsis"),
    ("none-index", fn("y = x[None, 0]"), UnsupportedFeatureError, "None (new axis)"),
    ("negative-index", fn("y = x[-1, 0]"), UnsupportedFeatureError, "negative indices"),
    ("list-index", fn("y = x[[0, 1], 0]"), UnsupportedFeatureError, "advanced indexing"),
    ("float-index", fn("y = x[f, 0]"), ParserTypeError, "an index must be an integer"),
    ("slice-step", fn("y = x[0:8:2, 0]"), UnsupportedFeatureError, "slice steps"),
    ("empty-slice", fn("y = x[8:8, 0]"), InvalidOperationError, "empty slice"),
    ("tile-slice-start", incore("t = pl.load(x, [0, 0], [16, 16])\ny = t[n:16, :]"), UnsupportedFeatureError, "the start of a tile slice"),
    ("tile-slice-extent", incore("t = pl.load(x, [0, 0], [16, 16])\ny = t[1:n, :]"), UnsupportedFeatureError, "the extent of a tile slice"),
    ("chained-subscript-write", fn("x[0][0] = f"), UnsupportedFeatureError, "chained subscript assignment"),
    ("subscript-write-non-variable", fn("pl.add(x, x)[0, 0] = f"), ParserTypeError, "only a DSL variable"),
    ("subscript-write-scalar", fn("n[0] = 1"), ParserTypeError, "cannot be assigned through a subscript"),
    ("subscript-write-element", fn("x[0, 0] = x"), ParserTypeError, "write"),
    ("subscript-write-window", fn("x[0:8, 0] = x"), InvalidOperationError, "cannot reshape"),
    ("array-two-indices", fn("a = pl.array.create(4, pl.INT32)\ny = a[0, 1]"), UnsupportedFeatureError, "an array takes a single index"),
    ("array-negative", fn("a = pl.array.create(4, pl.INT32)\ny = a[-1]"), UnsupportedFeatureError, "negative indices"),
    ("array-float-index", fn("a = pl.array.create(4, pl.INT32)\ny = a[f]"), InvalidOperationError, "integer scalar"),
    ("array-write", fn("a = pl.array.create(4, pl.INT32)\na[0] = x"), ParserTypeError, "array"),
    ("tuple-index-dynamic", prog("r = pl.submit(self.k, x, out)\ny = r[n]"), ParserTypeError, "constant integer"),
    ("tuple-index-range", prog("r = pl.submit(self.k, x, out)\ny = r[5]"), ParserTypeError, "out of range"),
    ("memref-slot-dynamic", fn("y: pl.Tile[[16, 16], pl.FP32, pl.MemRef('a', slots=2)[n]] = x"), ParserTypeError, "a MemRef slot must be a constant integer"),
    ("memref-slot-range", fn("y: pl.Tile[[16, 16], pl.FP32, pl.MemRef('a', slots=2)[5], pl.Mem.Vec] = x"), InvalidOperationError, "out of range"),
    ("unary-bool", fn("y = -b"), ParserTypeError, "neg: operand must not be bool"),
    ("dynamic-in-body", fn("y = pl.dynamic('N')"), ParserTypeError, "cannot call function dynamic"),
    # ----- inline / program structure
    ("inline-arity", "@pl.inline\ndef h(a):\n    return a\n\n" + fn("y = h(n, n)"), ParserTypeError, "takes 1 argument(s)"),
    ("inline-keyword", "@pl.inline\ndef h(a):\n    return a\n\n" + fn("y = h(zz=n)"), ParserTypeError, "has no parameter 'zz'"),
    ("inline-recursion", "@pl.inline\ndef h(a):\n    return h(a)\n\n" + fn("y = h(n)"), ParserSyntaxError, "nest too deeply"),
    ("inline-params", "@pl.inline\ndef h(*a):\n    return a\n\n" + fn("y = h(n)"), ParserSyntaxError, "plain positional parameters"),
    ("inline-return-in-branch", "@pl.inline\ndef h(a):\n    if a > 0:\n        return a\n\n" + fn("y = h(n)"), UnsupportedFeatureError, "return inside control flow"),
    ("inline-argument-type", "@pl.inline\ndef h(a: pl.FP32):\n    return a\n\n" + fn("y = h(x)"), ParserTypeError, "parameter 'a' expects"),
    ("inline-no-return", "@pl.inline\ndef h(a) -> pl.INDEX:\n    c = a\n\n" + fn("y = h(n)"), ParserTypeError, "does not return"),
    ("inline-in-program", "@pl.program\nclass P:\n    @pl.inline\n    def h(self, a):\n        return a\n", ParserDefinitionError, "cannot be program members"),
    ("program-member", "@pl.program\nclass P:\n    x = 1\n", ParserDefinitionError, "contains only @pl.function"),
    ("function-defined-twice", "@pl.program\nclass P:\n" + textwrap.indent(fn("pass") * 2, "    ").replace("def f(", "def f(self, "), ParserSyntaxError, "defined twice"),
    # ----- text
    ("syntax-error", "@pl.function\ndef f(:\n    pass\n", PythonSyntaxError, "invalid Python syntax"),
    ("import-other-module", "import os\n" + fn("pass"), ParserSyntaxError, "only pypto.language can be imported"),
    ("import-without-alias", "import pypto.language\n" + fn("pass"), ParserSyntaxError, "with an alias"),
    ("import-missing-name", "from pypto.language import nothing_here as q\n" + fn("pass"), ParserSyntaxError, "cannot import"),
    ("decorator-positional", "@pl.function(1)\ndef f():\n    pass\n", ParserSyntaxError, "keyword arguments"),
    ("class-decorator", "@pl.function\nclass P:\n    pass\n", ParserDefinitionError, "must be decorated with @pl.program"),
    ("function-decorator", "@pl.program\ndef f():\n    pass\n", ParserDefinitionError, "decorated with @pl.function or @pl.inline"),
    ("decorator-option", "@pl.function(typ=1)\ndef f():\n    pass\n", ParserTypeError, "unexpected keyword argument 'typ'"),
    ("decorator-option-value", "@pl.function(strict_ssa=1)\ndef f():\n    pass\n", ParserTypeError, "must be True or False"),
    ("module-statement", "print(1)\n" + fn("pass"), ParserSyntaxError, "unsupported module-level statement"),
    ("two-programs", "@pl.program\nclass A:\n    pass\n\n@pl.program\nclass B:\n    pass\n", ParserDefinitionError, "more than one"),
    ("no-function", "x = 1\n", ParserDefinitionError, "no @pl.function or @pl.program found"),
    # ----- module-level constants
    ("const-bytes", "N = b'x'\n" + fn("pass"), ParserSyntaxError, "unsupported literal"),
    ("const-dict-unpack", "N = {**{}}\n" + fn("pass"), ParserSyntaxError, "'**' is not supported"),
    ("const-undefined", "N = M + 1\n" + fn("pass"), ParserSyntaxError, "undefined name 'M'"),
    ("const-operator", "N = 2 @ 3\n" + fn("pass"), ParserSyntaxError, "unsupported operator"),
    ("const-private", "N = pl._x\n" + fn("pass"), ParserSyntaxError, "private attribute"),
    ("const-attribute", "N = (1).real\n" + fn("pass"), ParserSyntaxError, "is not allowed in a module-level constant"),
    ("const-missing-attribute", "N = pl.FP33\n" + fn("pass"), ParserSyntaxError, "has no attribute 'FP33'"),
    ("const-annotation-items", "T = pl.Tensor[[64]]\n" + fn("pass"), ParserTypeError, "needs at least a shape"),
    ("const-subscript", "N = pl.FP32[0]\n" + fn("pass"), ParserSyntaxError, "this subscript is not allowed"),
    ("const-call", "N = len([1])\n" + fn("pass"), ParserSyntaxError, "undefined name 'len'"),
    ("const-call-other", "N = pl.add(1, 2)\n" + fn("pass"), ParserSyntaxError, "is not allowed at module level"),
    ("const-starred", "N = pl.dynamic(*['N'])\n" + fn("pass"), ParserSyntaxError, "'*' / '**' arguments"),
    ("const-sequence-size", "N = [0] * 10**7\n" + fn("pass"), InvalidOperationError, "too large"),
    ("const-exponent", "N = 2 ** 100000\n" + fn("pass"), InvalidOperationError, "exponent too large"),
    ("const-division", "N = 1 // 0\n" + fn("pass"), InvalidOperationError, "division by zero"),
    ("const-types", "N = 'a' - 1\n" + fn("pass"), ParserTypeError, "invalid module-level constant"),
    ("const-index", "N = [1][3]\n" + fn("pass"), ParserTypeError, "invalid module-level constant"),
    ("const-dynamic", "N = pl.dynamic('1 x')\n" + fn("pass"), ParserTypeError, "must be a Python identifier"),
    ("const-lambda", "N = lambda: 1\n" + fn("pass"), ParserSyntaxError, "Lambda is not allowed"),
    # ----- tasks
    ("submit-no-kernel", prog("pl.submit()"), ParserTypeError, "needs the kernel to launch"),
    ("submit-not-a-kernel", prog("y, t = pl.submit(x)"), ParserTypeError, "launches a function of the program"),
    ("spmd-submit-core-num", prog("y, t2 = pl.spmd_submit(self.k, x, out)"), ParserSyntaxError, "needs core_num=N"),
    ("spmd-submit-core-num-value", prog("y, t2 = pl.spmd_submit(self.k, x, out, core_num=0)"), ParserSyntaxError, "must be a positive integer"),
    ("spmd-submit-core-num-type", prog("y, t2 = pl.spmd_submit(self.k, x, out, core_num=x)"), ParserSyntaxError, "must be a positive integer"),
    ("deps-not-list", prog("y, t2 = pl.submit(self.k, x, out, deps=3)"), ParserTypeError, "deps= takes a list"),
    ("deps-python-value", prog("y, t2 = pl.submit(self.k, x, out, deps=['a'])"), ParserTypeError, "deps= entries must be TaskId"),
    ("deps-tensor", prog("y, t2 = pl.submit(self.k, x, out, deps=[x])"), ParserTypeError, "is a Tensor"),
    ("early-resolve", prog("y, t2 = pl.submit(self.k, x, out, allow_early_resolve=1)"), ParserSyntaxError, "must be True or False"),
    ("submit-attrs", prog("y, t2 = pl.submit(self.k, x, out, attrs=3)"), ParserTypeError, "attrs= must be a dict"),
    ("dumps-expression", prog("y, t2 = pl.submit(self.k, x, out, dumps=[pl.add(x, x)])"), ParserSyntaxError, "must be tensor variable names"),
    ("dumps-undefined", prog("y, t2 = pl.submit(self.k, x, out, dumps=[zz])"), UndefinedVariableError, "not a variable of this function"),
    ("dumps-scalar", prog("y, t2 = pl.submit(self.k, x, out, dumps=[n])"), ParserTypeError, "entries must be tensors"),
    ("task-dummy-positional", prog("d = pl.system.task_dummy(x)"), ParserTypeError, "takes only deps="),
    ("task-dummy-keyword", prog("d = pl.system.task_dummy(other=1)"), ParserTypeError, "unexpected keyword argument 'other'"),
    ("no-dep-arity", prog("y = self.k(pl.no_dep(x, x), out)"), ParserTypeError, "takes one tensor argument"),
    ("no-dep-placement", prog("y = pl.no_dep(x)"), ParserSyntaxError, "can only wrap an argument"),
    ("no-dep-scalar", prog("y = self.k(pl.no_dep(n), out)"), ParserTypeError, "wraps a tensor argument"),
    ("submit-starred", prog("y, t2 = pl.submit(self.k, *x)"), UnsupportedFeatureError, "'*' arguments"),
    ("parallel-task-id", prog("t0 = pl.system.task_dummy(deps=[])\nfor i in pl.parallel(n):\n    y, t0 = pl.submit(self.k, x, out, deps=[t0])"), UnsupportedFeatureError, "statically-known trip count"),
    ("dump-tag-incore", incore("pl.dump_tag(x)"), ParserSyntaxError, "only be used in Orchestration"),
    ("dump-tag-arity", prog("pl.dump_tag(x, x)"), ParserSyntaxError, "exactly one tensor variable name"),
    ("dump-tag-expression", prog("pl.dump_tag(pl.add(x, x))"), ParserSyntaxError, "a bare variable name"),
    ("dump-tag-undefined", prog("pl.dump_tag(zz)"), UndefinedVariableError, "not a variable of this function"),
    ("dump-tag-scalar", prog("pl.dump_tag(n)"), ParserTypeError, "tags tensors"),
    # ----- predicates
    ("predicate-bool-op", prog("y, t2 = pl.submit(self.k, x, out, predicate=(rc[0, 0] > 0 and rc[0, 1] > 0))"), ParserSyntaxError, "boolean combinations"),
    ("predicate-not", prog("y, t2 = pl.submit(self.k, x, out, predicate=(not rc[0, 0]))"), ParserSyntaxError, "'not' is not supported"),
    ("predicate-not-compare", prog("y, t2 = pl.submit(self.k, x, out, predicate=rc[0, 0])"), ParserSyntaxError, "must be a comparison"),
    ("predicate-chained", prog("y, t2 = pl.submit(self.k, x, out, predicate=(0 < rc[0, 0] < 3))"), ParserSyntaxError, "chained comparisons"),
    ("predicate-operator", prog("y, t2 = pl.submit(self.k, x, out, predicate=(rc[0, 0] is 0))"), ParserSyntaxError, "compares with one of"),
    ("predicate-arithmetic", prog("y, t2 = pl.submit(self.k, x, out, predicate=(rc[0, 0] + 1 > 0))"), ParserSyntaxError, "arithmetic"),
    ("predicate-target", prog("y, t2 = pl.submit(self.k, x, out, predicate=(rc[0, 0] > 1.5))"), ParserSyntaxError, "must be an integer literal"),
    ("predicate-constants", prog("y, t2 = pl.submit(self.k, x, out, predicate=(1 > 0))"), ParserSyntaxError, "compares two constants"),
    ("predicate-two-reads", prog("y, t2 = pl.submit(self.k, x, out, predicate=(rc[0, 0] > rc[0, 1]))"), ParserSyntaxError, "not an integer literal"),
    ("predicate-slice", prog("y, t2 = pl.submit(self.k, x, out, predicate=(rc[0:1, 0] > 0))"), ParserSyntaxError, "slices are not supported"),
    ("predicate-rank", prog("y, t2 = pl.submit(self.k, x, out, predicate=(rc[0] > 0))"), ParserSyntaxError, "one index per dimension"),
    ("predicate-dtype", prog("y, t2 = pl.submit(self.k, x, out, predicate=(t[0, 0] > 0))"), ParserTypeError, "compares its element as a signed integer"),
    ("predicate-whole-tensor", prog("y, t2 = pl.submit(self.k, x, out, predicate=(rc > 0))"), ParserSyntaxError, "single tensor element"),
    ("predicate-unnamed-tensor", prog("y, t2 = pl.submit(self.k, x, out, predicate=(pl.add(rc, rc)[0, 0] > 0))"), ParserSyntaxError, "a named tensor"),
    ("predicate-index-expression", prog("y, t2 = pl.submit(self.k, x, out, predicate=(rc[n + 1, 0] > 0))"), ParserSyntaxError, "each predicate index"),
    ("predicate-tile", prog("tl = pl.load(rc, [0, 0], [4, 4])\ny, t2 = pl.submit(self.k, x, out, predicate=(tl[0, 0] > 0))"), ParserSyntaxError, "is a tile"),
    ("predicate-producer-not-in-deps", prog("y, t1 = pl.submit(self.k, x, out)\nz, t2 = pl.submit(self.k, x, out, predicate=(y[0] > 0))"), InvalidOperationError, "is not in deps="),
    ("predicate-scalar", prog("y, t2 = pl.submit(self.k, x, out, predicate=(n > 0))"), ParserSyntaxError, "must be a tensor element"),
    # ----- scopes
    ("at-predicate", prog("with pl.at(level=pl.Level.CORE_GROUP, predicate=(rc[0, 0] > 0)):\n    pass"), ParserSyntaxError, "does not accept predicate="),
    ("at-level", prog("with pl.at(level=3):\n    pass"), ParserSyntaxError, "must be a pl.Level member"),
    ("at-role", prog("with pl.at(level=pl.Level.CORE_GROUP, role=pl.Role.Worker):\n    pass"), ParserSyntaxError, "takes no role="),
    ("at-optimizations-not-list", prog("with pl.at(level=pl.Level.CORE_GROUP, optimizations=3):\n    pass"), ParserSyntaxError, "optimizations= takes a list"),
    ("at-optimizations-entry", prog("with pl.at(level=pl.Level.CORE_GROUP, optimizations=[3]):\n    pass"), ParserSyntaxError, "entries are pl.split"),
    ("at-optimizations-twice", prog("with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.split(pl.SplitMode.UP_DOWN)]):\n    pass"), ParserSyntaxError, "twice"),
    ("at-two-slot-nums", prog("with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN, slot_num=2), pl.cross_core_slot(slot_num=4)]):\n    pass"), ParserSyntaxError, "two slot_num values"),
    ("at-slot-num", prog("with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=0)]):\n    pass"), ParserSyntaxError, "positive integer literal"),
    ("at-unknown-keyword", prog("with pl.at(level=pl.Level.CORE_GROUP, bogus=1):\n    pass"), ParserSyntaxError, "pl.at:"),
    ("at-as-target", prog("with pl.at(level=pl.Level.CORE_GROUP) as (a, c):\n    pass"), ParserSyntaxError, "'as' binds one name"),
    ("at-host-deps", prog("with pl.at(level=pl.Level.HOST, deps=[]):\n    pass"), ParserSyntaxError, "only applies to pl.at(level=pl.Level.CORE_GROUP)"),
    ("at-host-as", prog("with pl.at(level=pl.Level.HOST) as tid:\n    pass"), ParserSyntaxError, "has no TaskId"),
    ("at-name-hint", prog("with pl.at(level=pl.Level.CORE_GROUP, name_hint=3):\n    pass"), ParserSyntaxError, "name_hint= must be a string"),
    ("scope-auto", prog("with pl.scope():\n    pass"), ParserSyntaxError, "needs @pl.function(auto_scope=False)"),
    ("spmd-for-target", prog("for (i, j) in pl.spmd(4):\n    pass"), ParserSyntaxError, "binds one name, the block index"),
    ("spmd-for-else", prog("for i in pl.spmd(4):\n    pass\nelse:\n    pass"), UnsupportedFeatureError, "for ... else"),
    ("spmd-deps-without-as", prog("with pl.spmd(4, deps=[]):\n    y = self.k(x, out)"), ParserSyntaxError, "needs the capture form"),
    ("spmd-empty-body", prog("with pl.spmd(4):\n    pass"), ParserSyntaxError, "neither dispatches a kernel"),
    ("split-aiv-target", incore("for (i, j) in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n    pass"), ParserSyntaxError, "binds one name, the lane index"),
    ("spmd-in-cluster-option", prog("with pl.cluster():\n    with pl.spmd(4, allow_early_resolve=True):\n        y = self.k(x, out)"), ParserSyntaxError, "inside pl.cluster()"),
    ("spmd-in-cluster-as", prog("with pl.cluster():\n    with pl.spmd(4) as tid:\n        y = self.k(x, out)"), ParserSyntaxError, "cannot bind a TaskId"),
    ("spmd-carrier-optimizations", prog("with pl.spmd(4, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):\n    with pl.at(level=pl.Level.CORE_GROUP):\n        y = self.k(x, out)"), ParserSyntaxError, "optimizations= goes on the pl.at(...)"),
    ("spmd-two-kernels", prog("with pl.spmd(4):\n    y = self.k(x, out)\n    z = self.k(x, out)"), ParserSyntaxError, "launches exactly one kernel"),
    ("at-starred", prog("with pl.at(*x):\n    pass"), UnsupportedFeatureError, "'*' arguments"),
    ("at-double-starred", prog("with pl.at(**x):\n    pass"), UnsupportedFeatureError, "'**' arguments"),
    ("split-outside-optimizations", prog("y = pl.split(pl.SplitMode.UP_DOWN)"), ParserSyntaxError, "can only appear in optimizations"),
]
# fmt: on


@pytest.mark.parametrize(("code", "cls", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_program_error_has_span_message_and_hint(code: str, cls: type[ParserError], message: str) -> None:
    with pytest.raises(ParserError) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore", ParserWarning)  # deprecation remarks on the way to the error
        pl.parse(code, filename="bad.py")
    err = info.value
    assert type(err) is cls, f"{type(err).__name__}: {err.message}"
    assert message in err.message, err.message
    assert err.hint, f"no hint: {err.message}"
    assert err.location.is_valid() and err.location.filename == "bad.py", err.location
    assert f"  = hint: {err.hint}" in str(err)


@pytest.mark.parametrize(("body", "hint"), [
    ("t = pl.load(x, [60, 0], [8, 64])",
     "signature: pl.load(tensor, offsets, shapes, valid_shape=None, target_memory=pl.MemorySpace.Vec, clamp=False, "
     "*, flatten=False)"),
    ("t = pl.exp(x, x)", "check the arguments against the entry of pl.exp in the operator reference (docs/ops.md)"),
    ("t = pl.mul(x, 'two')", "signature: pl.mul(lhs, rhs, **kwargs)"),
])
def test_an_op_call_error_shows_the_parameters_a_user_writes(body: str, hint: str) -> None:
    # Not the parser's span=, type annotations or enum reprs; a dispatcher taking *args names the reference.
    with pytest.raises(ParserError) as info:
        pl.parse(incore(body), filename="bad.py")
    assert info.value.hint == hint


def test_a_call_of_a_function_returning_a_value_it_does_not_declare_is_refused_at_the_call() -> None:
    # The caller comes first, so its call met the callee's empty return list before the callee's body
    # said what was wrong ("argument 'tile' must be a Tile, got Tuple[]").
    code = textwrap.dedent("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[16, 64], pl.FP32],
                  z: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
                z = pl.store(self.inc(pl.load(x, [0, 0], [16, 64])), [0, 0], z)
                return z

            @pl.function(type=pl.FunctionType.Inline)
            def inc(self, t: pl.Tile[[16, 64], pl.FP32]):
                if True:
                    return pl.add(t, 1.0)
    """)
    with pytest.raises(ParserTypeError) as info:
        pl.parse(code, filename="bad.py")
    err = info.value
    assert err.message == ("function 'inc' returns a value (line 13) but declares no return type, so its call "
                           "gives nothing")
    assert err.hint == "declare what it returns: def inc(...) -> <its type>:"
    assert (err.span["begin_line"], err.span["begin_column"]) == (7, 22)


# ----- errors of DSL objects used at Python level ---------------------------------------------------
T_BAD = pl.Tensor[[64]]  # unresolved: the parser reports it where it is used


def _method_called_without_program() -> None:
    class NotAProgram:
        @pl.function
        def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            return x

    NotAProgram.k(None, None)


def _inline_called_at_python_level() -> None:
    @pl.inline
    def helper(a):
        return a

    helper(1)


def _self_outside_a_program() -> None:
    @pl.function
    def f(n: pl.INDEX) -> pl.INDEX:
        m = self.g(n)  # noqa: F821  (the DSL error under test)
        return m


def _unresolved_annotation() -> None:
    @pl.function
    def f(x: T_BAD) -> pl.INDEX:
        return 0


def _unresolved_direction() -> None:
    @pl.function
    def f(x: pl.Out[T_BAD]) -> pl.INDEX:
        return 0


OUT_BAD = pl.Out[T_BAD]


def _unresolved_directed_closure() -> None:
    @pl.function
    def f(x: OUT_BAD) -> pl.INDEX:
        return 0


@pl.function
def k(a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    return a


def _external_clashes_with_a_method() -> None:
    @pl.program
    class P:
        @pl.function
        def k(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            return a

        @pl.function
        def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            b = k(a)
            return b


def _two_externals_with_one_name() -> None:
    first = k

    @pl.function
    def k2(a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return a

    second = ir_replace_name(k2, "k")

    @pl.program
    class P:
        @pl.function
        def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            b = first(a)
            c = second(b)
            return c


def ir_replace_name(func: ir.Function, name: str) -> ir.Function:
    return ir.replace(func, name=name)


def _source_not_available() -> None:
    namespace = {"pl": pl}
    code = "@pl.function\ndef f(n: pl.INDEX) -> pl.INDEX:\n    return n\n"
    exec(compile(code, "<generated>", "exec"), namespace)  # noqa: S102  (a function without source text)


def _exec_with_stale_source(code: str, stale: list[str] | None) -> None:
    """Define ``code`` as if from a file whose text (``stale``; None: not available) differs."""
    filename = "<generated>"
    if stale is not None:
        linecache.cache[filename] = (len("".join(stale)), None, stale, filename)
    try:
        exec(compile(code, filename, "exec"), {"pl": pl})  # noqa: S102  (a definition whose source is stale)
    finally:
        linecache.cache.pop(filename, None)


PROGRAM_SOURCE = (
    "@pl.program\nclass P:\n    @pl.function\n    def f(self, n: pl.INDEX) -> pl.INDEX:\n        return n\n"
)


def _inline_with_varargs() -> None:
    @pl.inline
    def helper(*a):
        return a


PYTHON_LEVEL: list[tuple[str, object, type[ParserError], str]] = [
    ("method-without-program", _method_called_without_program, ParserTypeError, "is a method of a program class"),
    ("function-of-int", lambda: pl.function(3), ParserTypeError, "@pl.function decorates a function"),
    ("program-of-int", lambda: pl.program(3), ParserTypeError, "@pl.program decorates a class"),
    ("inline-at-python-level", _inline_called_at_python_level, ParserSyntaxError, "can only be called inside"),
    ("pipeline-at-python-level", lambda: pl.pipeline(4), ParserSyntaxError, "pl.pipeline can only be used inside"),
    ("at-at-python-level", lambda: pl.at(pl.Level.CORE_GROUP), ParserSyntaxError, "pl.at can only be used inside"),
    ("self-outside-program", _self_outside_a_program, UndefinedVariableError, "'self' is only available"),
    ("unresolved-annotation", _unresolved_annotation, ParserTypeError, "needs at least a shape and a dtype"),
    ("unresolved-direction", _unresolved_direction, ParserTypeError, "needs at least a shape and a dtype"),
    ("unresolved-directed-closure", _unresolved_directed_closure, ParserTypeError, "needs at least a shape"),
    ("external-clash", _external_clashes_with_a_method, InvalidOperationError, "clashes with the function 'k'"),
    ("externals-one-name", _two_externals_with_one_name, InvalidOperationError, "both named 'k'"),
    ("source-not-available", _source_not_available, ParserError, "its source code is not available"),
    (
        "function-source-changed",
        lambda: _exec_with_stale_source("@pl.function\ndef f(n: pl.INDEX) -> pl.INDEX:\n    return n\n", ["x = 1\n"]),
        ParserError,
        "cannot find the source of function 'f'",
    ),
    (
        "class-source-changed",
        lambda: _exec_with_stale_source(PROGRAM_SOURCE, ["x = 1\n"] * 5),
        ParserError,
        "cannot find the source of class 'P'",
    ),
    (
        "class-source-not-available",
        lambda: _exec_with_stale_source("@pl.program\nclass P:\n    pass\n", None),
        ParserError,
        "cannot parse class 'P': its source code is not available",
    ),
    ("inline-varargs", _inline_with_varargs, ParserSyntaxError, "must take plain positional parameters"),
]


@pytest.mark.parametrize(("build", "cls", "message"), [c[1:] for c in PYTHON_LEVEL], ids=[c[0] for c in PYTHON_LEVEL])
def test_python_level_error_has_span_message_and_hint(build: object, cls: type[ParserError], message: str) -> None:
    with pytest.raises(ParserError) as info:
        build()  # type: ignore[operator]
    err = info.value
    assert type(err) is cls, f"{type(err).__name__}: {err.message}"
    assert message in err.message, err.message
    assert err.hint, f"no hint: {err.message}"
    assert err.location.is_valid(), err.location
    assert err.location.filename in (__file__, "<generated>")
