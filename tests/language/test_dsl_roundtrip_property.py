"""Property: for random well-typed DSL programs (nested control flow, loop-carried values, scalar
and tensor ops), ``parse(print(x))`` is structurally equal to ``x`` and prints the same text."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from dsl_helpers import assert_roundtrip
from hypothesis import given, note, settings
from hypothesis import strategies as st

import pypto.language as pl

_INT_OPS = ["+", "-", "*", "//", "%", "<<", ">>", "&", "|", "^"]
_FLOAT_OPS = ["+", "-", "*", "/", "**"]
_CMP_OPS = ["==", "!=", "<", "<=", ">", ">="]
_TENSOR_BINARY = ["pl.add({a}, {b})", "pl.sub({a}, {b})", "pl.mul({a}, {b})", "pl.maximum({a}, {b})"]
_TENSOR_UNARY = ["pl.exp({a})", "pl.mul({a}, 2.0)", "pl.tensor.adds({a}, 1.5)", "pl.neg({a})", "{a}[0:8, :]"]


@dataclass
class Pools:
    """Names in scope by kind: ``int`` (INDEX/INT64), ``i32``, ``float`` (FP32), ``bool``, ``tensor``."""

    names: dict[str, list[str]] = field(default_factory=dict)

    def copy(self) -> Pools:
        return Pools({k: list(v) for k, v in self.names.items()})

    def add(self, kind: str, name: str) -> None:
        self.names.setdefault(kind, []).append(name)


class ProgramGen:
    """Generates a random program as DSL text from a seeded random generator (hypothesis draws
    the seed: drawing every choice through hypothesis would make 500 examples take far longer)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.counter = 0
        self.lines: list[str] = []

    def int_in(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def pick(self, items: list) -> Any:
        return self.rng.choice(items)

    def coin(self) -> bool:
        return self.rng.random() < 0.5

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # ----- expressions ----------------------------------------------------------------------
    def int_expr(self, pools: Pools, depth: int) -> str:
        choice = self.int_in(0, 6 if depth > 0 else 2)
        if choice == 0:
            return str(self.int_in(1, 9))
        if choice in (1, 2):
            return self.pick(pools.names["int"])
        if choice == 3:
            return f"pl.const({self.int_in(1, 9)}, pl.INT64)"
        if choice == 4:
            fn = self.pick(["pl.min", "pl.max"])
            return f"{fn}({self.int_expr(pools, depth - 1)}, {self.int_expr(pools, depth - 1)})"
        if choice == 5:
            return f"{self.pick(['-', '~', 'abs'])}({self.int_expr(pools, depth - 1)})"
        op = self.pick(_INT_OPS)
        right = str(self.int_in(1, 3)) if op in ("<<", ">>") else self.int_expr(pools, depth - 1)
        return f"({self.int_expr(pools, depth - 1)} {op} {right})"

    def float_expr(self, pools: Pools, depth: int) -> str:
        choice = self.int_in(0, 3 if depth > 0 else 1)
        if choice == 0:
            return self.pick(["1.5", "0.25", "pl.const(2.0, pl.FP32)", "3.0"])
        if choice == 1:
            return self.pick(pools.names["float"])
        if choice == 2:
            return f"-({self.float_expr(pools, depth - 1)})"
        op = self.pick(_FLOAT_OPS)
        return f"({self.float_expr(pools, depth - 1)} {op} {self.float_expr(pools, depth - 1)})"

    def bool_expr(self, pools: Pools, depth: int) -> str:
        choice = self.int_in(0, 4 if depth > 0 else 2)
        if choice == 0:
            return self.pick(pools.names["bool"])
        if choice == 1:
            return f"{self.int_expr(pools, 1)} {self.pick(_CMP_OPS)} {self.int_expr(pools, 1)}"
        if choice == 2:
            return f"{self.float_expr(pools, 1)} {self.pick(_CMP_OPS)} {self.float_expr(pools, 1)}"
        if choice == 3:
            return f"not ({self.bool_expr(pools, depth - 1)})"
        op = self.pick(["and", "or", "^", "&", "|"])
        return f"({self.bool_expr(pools, depth - 1)}) {op} ({self.bool_expr(pools, depth - 1)})"

    def i32_expr(self, pools: Pools) -> str:
        name = self.pick(pools.names["i32"])
        return self.pick([f"{name} + {name}", f"pl.cast({name}, pl.INDEX) * 2", f"{name} + 1", "pl.cast(n, pl.INT32)"])

    def tensor_expr(self, pools: Pools) -> str:
        a = self.pick(pools.names["tensor"])
        if self.coin():
            return self.pick(_TENSOR_BINARY).format(a=a, b=self.pick(pools.names["tensor"]))
        return self.pick(_TENSOR_UNARY).format(a=a)

    # ----- statements -----------------------------------------------------------------------
    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def block(self, pools: Pools, indent: int, depth: int) -> None:
        for _ in range(self.int_in(1, 2)):
            self.stmt(pools, indent, depth)

    def stmt(self, pools: Pools, indent: int, depth: int) -> None:
        kind = self.int_in(0, 9 if depth > 0 else 4)
        if kind == 0:
            name = self.fresh("v")
            self.emit(indent, f"{name} = {self.int_expr(pools, 2)}")
            pools.add("int", name)
        elif kind == 1:
            name = self.fresh("f")
            self.emit(indent, f"{name}: pl.FP32 = {self.float_expr(pools, 2)}")
            pools.add("float", name)
        elif kind == 2:
            name = self.fresh("b")
            self.emit(indent, f"{name} = {self.bool_expr(pools, 2)}")
            pools.add("bool", name)
        elif kind == 3:
            name = self.fresh("t")
            self.emit(indent, f"{name} = {self.tensor_expr(pools)}")
            pools.add("tensor" if "[0:8" not in self.lines[-1] else "slice", name)
        elif kind == 4:
            name = self.fresh("c")
            self.emit(indent, f"{name} = {self.i32_expr(pools)}")
            pools.add("int" if "pl.INDEX" in self.lines[-1] else "i32", name)
        elif kind in (5, 6):
            self.if_stmt(pools, indent, depth)
        elif kind == 7:
            self.for_stmt(pools, indent, depth)
        elif kind == 8:
            self.while_stmt(pools, indent, depth)
        else:
            loop = self.fresh("p")
            self.emit(indent, f"for {loop} in pl.parallel({self.int_in(1, 8)}):")
            inner = pools.copy()
            inner.add("int", loop)
            self.block(inner, indent + 1, depth - 1)

    def if_stmt(self, pools: Pools, indent: int, depth: int) -> None:
        self.emit(indent, f"if {self.bool_expr(pools, 1)}:")
        result = self.fresh("y")
        with_yield = self.coin()
        for branch in ("then", "else"):
            if branch == "else":
                self.emit(indent, "else:")
            inner = pools.copy()
            self.block(inner, indent + 1, depth - 1)
            if with_yield:
                self.emit(indent + 1, f"{result} = pl.yield_({self.int_expr(inner, 1)})")
        if with_yield:
            pools.add("int", result)

    def for_stmt(self, pools: Pools, indent: int, depth: int) -> None:
        loop, acc, out = self.fresh("i"), self.fresh("acc"), self.fresh("r")
        bounds = self.pick(["n", "4", "1, n", "0, n, 2", "pl.const(0, pl.INDEX), 8"])
        init = self.int_expr(pools, 1)
        self.emit(indent, f"for {loop}, ({acc},) in pl.range({bounds}, init_values=({init},)):")
        inner = pools.copy()
        inner.add("int", loop)
        inner.add("int", acc)
        self.block(inner, indent + 1, depth - 1)
        self.emit(indent + 1, f"{out} = pl.yield_({self.int_expr(inner, 1)})")
        pools.add("int", out)

    def while_stmt(self, pools: Pools, indent: int, depth: int) -> None:
        carried, out = self.fresh("w"), self.fresh("wr")
        self.emit(indent, f"for ({carried},) in pl.while_(init_values=({self.int_expr(pools, 1)},)):")
        inner = pools.copy()
        inner.add("int", carried)
        self.emit(indent + 1, f"pl.cond({carried} < n)")
        self.block(inner, indent + 1, depth - 1)
        self.emit(indent + 1, f"{out} = pl.yield_({carried} + 1)")
        pools.add("int", out)

    def program(self) -> str:
        self.lines = [
            "@pl.function",
            (
                "def f(n: pl.INDEX, a: pl.INT64, k: pl.INT32, x: pl.FP32, p: pl.BOOL, "
                "t: pl.Tensor[[16, 16], pl.FP32]) -> pl.INDEX:"
            ),
        ]
        pools = Pools({"int": ["n", "a"], "i32": ["k"], "float": ["x"], "bool": ["p"], "tensor": ["t"]})
        self.block(pools, 1, 2)
        self.emit(1, f"return {self.int_expr(pools, 1)}")
        return "\n".join(self.lines) + "\n"


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1))
def test_random_programs_round_trip(seed: int) -> None:
    text = ProgramGen(seed).program()
    note(text)
    func = pl.parse(text)
    assert_roundtrip(func, concise=False)
