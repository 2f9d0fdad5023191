"""A generator of well-typed tile-level DSL programs for differential testing.

``generate(seed)`` returns a :class:`Generated`: the DSL text of a program (InCore kernels of tile
loads, elementwise, scalar-broadcast, unary, row-reduction and row-broadcast ops, matmuls in the
right memory spaces, loops carrying tiles, branches on scalar parameters, stores) with an
orchestration ``main`` that calls the kernels, in loops over row blocks with scalar offsets and
through internal tensors, sometimes as ``pl.submit`` tasks with ``deps=``; or tensor-level programs
(the same ops on tensor slices in a ``pl.at`` block, a loop of them, or a ``pl.spmd`` body). Every generated program is
valid: shapes are chosen so that the live tiles fit each memory space of the a2a3 platform, values
are kept bounded (no overflow to infinity, no division near zero), so the interpreter defines its
expected outputs exactly.

A seeded ``random.Random`` makes the choices (hypothesis draws the seed): one draw per program keeps
a few hundred programs affordable, and a failing seed reproduces with ``generate(seed)``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

# Elementwise binary ops and how they grow a bound on |value|.
_BINARY = {
    "pl.add": lambda a, b: a + b,
    "pl.sub": lambda a, b: a + b,
    "pl.mul": lambda a, b: a * b,
    "pl.maximum": max,
    "pl.minimum": max,
}
_SCALARS = [0.5, 1.25, -2.0, 3.0, -0.75]
# Row broadcasts of a row vector {r} over a tile {b}, and how they grow a bound.
_ROW_EXPAND = {
    "pl.row_expand_sub({b}, {r})": lambda a, r: a + r,
    "pl.row_expand_mul({b}, {r})": lambda a, r: a * r,
    "pl.row_expand_add({b}, {r})": lambda a, r: a + r,
}
# Tensor ops also broadcast an [M, 1] operand on either side (lowered to the row forms).
_TENSOR_ROW_EXPAND = {
    **_ROW_EXPAND,
    "pl.sub({b}, {r})": lambda a, r: a + r,
    "pl.sub({r}, {b})": lambda a, r: a + r,
    "pl.add({r}, {b})": lambda a, r: a + r,
    "pl.mul({r}, {b})": lambda a, r: a * r,
    "pl.maximum({b}, {r})": max,
    "pl.minimum({r}, {b})": max,
}
_LIMIT = 1.0e4  # bound on |value| of every tile: far from FP32 overflow, exp() only of small values


@dataclass
class Generated:
    """A generated program: its DSL text, and ``main``'s parameters in order: ``("in", shape,
    dtype)`` for an input tensor, ``("out", shape, dtype)`` for an Out tensor, ``("scalar", value)``."""

    seed: int
    text: str
    params: list[tuple]

    def arrays(self, seed: int = 0) -> list[np.ndarray | int]:
        """Seeded arguments of ``main`` in parameter order: inputs from a normal distribution, Out
        tensors zero, scalars their chosen values."""
        rng = np.random.default_rng(seed)
        values: list[np.ndarray | int] = []
        for kind, *rest in self.params:
            if kind == "in":
                values.append(rng.standard_normal(rest[0]).astype(rest[1]))
            elif kind == "out":
                values.append(np.zeros(rest[0], dtype=rest[1]))
            else:
                values.append(rest[0])
        return values

    def short_arrays(self, seed: int = 0) -> list[np.ndarray | int]:
        """The arguments of the short call form of a compiled program (Out tensors left out)."""
        return [v for v, (kind, *_) in zip(self.arrays(seed), self.params) if kind != "out"]


@dataclass
class _Tile:
    name: str
    bound: float
    rows: int
    cols: int


class _Kernel:
    """Builds the body of one vector kernel over ``[rows, cols]`` FP32 blocks."""

    row_forms = _ROW_EXPAND

    def __init__(self, rng: random.Random, rows: int, cols: int, n_inputs: int, with_flag: bool, input_bound: float = 5.0) -> None:
        self.rng = rng
        self.input_bound = input_bound
        self.out_bound = 0.0
        self.rows, self.cols = rows, cols
        self.lines: list[str] = []
        self.tiles: list[_Tile] = []
        self.counter = 0
        self.n_inputs = n_inputs
        self.with_flag = with_flag
        self.scratch: str | None = None

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def tile_type(self, cols: int | None = None) -> str:
        return f"pl.Tile[[{self.rows}, {self.cols if cols is None else cols}], pl.FP32]"

    def emit(self, line: str, indent: int = 2) -> None:
        self.lines.append("    " * indent + line)

    def full(self) -> list[_Tile]:
        return [t for t in self.tiles if t.cols == self.cols]

    def op(self, indent: int = 2) -> _Tile:
        """One statement defining a new full-width tile from the tiles in scope."""
        full = self.full()
        a = self.rng.choice(full)
        kind = self.rng.choice(["binary", "binary", "scalar", "unary", "row"])
        name = self.fresh("t")
        if kind == "binary":
            b = self.rng.choice(full)
            op = self.rng.choice(list(_BINARY))
            bound = _BINARY[op](a.bound, b.bound)
            if bound > _LIMIT:
                op, bound = "pl.maximum", max(a.bound, b.bound)
            expr = f"{op}({a.name}, {b.name})"
        elif kind == "scalar":
            c = self.rng.choice(_SCALARS)
            op = self.rng.choice(["pl.mul", "pl.add"])
            bound = a.bound * abs(c) if op == "pl.mul" else a.bound + abs(c)
            if bound > _LIMIT:
                op, c, bound = "pl.mul", 0.5, a.bound * 0.5
            expr = f"{op}({a.name}, {c})"
        elif kind == "unary":
            if a.bound <= 6.0:
                expr, bound = f"pl.exp({a.name})", float(np.exp(a.bound))
            else:
                expr, bound = f"pl.neg({a.name})", a.bound
        else:
            red = self.rng.choice(["pl.row_sum", "pl.row_max"])
            row = self.fresh("r")
            row_bound = a.bound * self.cols if red == "pl.row_sum" else a.bound
            self.emit(f"{row}: {self.tile_type(1)} = {self.row_reduce(red, a)}", indent)
            self.tiles.append(_Tile(row, row_bound, self.rows, 1))
            b = self.rng.choice(full)
            op = self.rng.choice(list(self.row_forms))
            bound = self.row_forms[op](b.bound, row_bound)
            if bound > _LIMIT:
                op, bound = "pl.row_expand_sub({b}, {r})", b.bound + row_bound
                if bound > _LIMIT:
                    self.tiles.pop()
                    expr, bound = f"pl.mul({a.name}, 0.5)", a.bound * 0.5
                    self.emit(f"{name}: {self.tile_type()} = {expr}", indent)
                    return self._add(name, bound)
            expr = op.format(b=b.name, r=row)
        self.emit(f"{name}: {self.tile_type()} = {expr}", indent)
        return self._add(name, bound)

    def row_reduce(self, red: str, a: _Tile) -> str:
        """A row reduction of ``a``; tile reductions take a scratch tile, created once at the top."""
        if self.scratch is None:
            self.scratch = "scratch"
            self.lines.insert(
                0,
                "    " * 2
                + f"scratch: {self.tile_type()} = pl.create_tile([{self.rows}, {self.cols}], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
            )
        return f"{red}({a.name}, {self.scratch})"

    def _add(self, name: str, bound: float) -> _Tile:
        tile = _Tile(name, bound, self.rows, self.cols)
        self.tiles.append(tile)
        return tile

    def loop(self) -> _Tile:
        """An accumulation loop: the tile ``acc`` is carried through ``trips`` iterations."""
        trips = self.rng.randint(1, 3)
        full = self.full()
        init = self.rng.choice(full)
        step = self.rng.choice(full)
        acc = self.fresh("acc")
        self.emit(f"{acc}: {self.tile_type()} = pl.mul({init.name}, 1.0)")
        scale = 0.5 if step.bound > 1.0 else 1.0
        self.emit(f"for j in pl.range({trips}):")
        self.emit(f"{acc} = pl.add({acc}, pl.mul({step.name}, {scale}))", 3)
        bound = init.bound + trips * step.bound * scale
        if bound > _LIMIT:
            # keep the program valid: shrink the carried value each trip
            self.lines[-1] = "    " * 3 + f"{acc} = pl.mul({acc}, 0.5)"
            bound = init.bound
        return self._add(acc, bound)

    def branch(self) -> _Tile:
        """``if flag > k`` choosing between two computations of one tile."""
        full = self.full()
        a, b = self.rng.choice(full), self.rng.choice(full)
        name = self.fresh("sel")
        k = self.rng.randint(0, 2)
        self.emit(f"if flag > {k}:")
        self.emit(f"{name}: {self.tile_type()} = pl.add({a.name}, {b.name})", 3)
        self.emit("else:")
        self.emit(f"{name}: {self.tile_type()} = pl.sub({a.name}, {b.name})", 3)
        return self._add(name, a.bound + b.bound if a.bound + b.bound <= _LIMIT else _LIMIT)

    def body(self, n_ops: int) -> str:
        for i in range(self.n_inputs):
            self.emit(f"x{i}_t: {self.tile_type()} = pl.load(x{i}, [row, 0], [{self.rows}, {self.cols}])")
            self.tiles.append(_Tile(f"x{i}_t", self.input_bound, self.rows, self.cols))
        last = self.tiles[-1]
        for _ in range(n_ops):
            roll = self.rng.random()
            if roll < 0.15:
                last = self.loop()
            elif roll < 0.35 and self.with_flag:
                last = self.branch()
            else:
                last = self.op()
        # store a recent value: the last one, or (sometimes) one computed earlier
        result = last if self.rng.random() < 0.7 else self.rng.choice(self.full())
        self.out_bound = result.bound
        self.emit(f"out = pl.store({result.name}, [row, 0], out)")
        self.emit("return out")
        return "\n".join(self.lines)


class _TensorBody(_Kernel):
    """The body of a ``pl.at`` / ``pl.spmd`` block: the same ops on tensors, slices in and out."""

    row_forms = _TENSOR_ROW_EXPAND

    def tile_type(self, cols: int | None = None) -> str:
        return f"pl.Tensor[[{self.rows}, {self.cols if cols is None else cols}], pl.FP32]"

    def row_reduce(self, red: str, a: _Tile) -> str:
        return f"{red}({a.name})"

    def tensor_body(self, n_ops: int, indent: int, block: str) -> str:
        window = f"{block} * {self.rows} : {block} * {self.rows} + {self.rows}, :"
        for i in range(self.n_inputs):
            self.emit(f"x{i}_s: {self.tile_type()} = x{i}[{window}]", indent)
            self.tiles.append(_Tile(f"x{i}_s", self.input_bound, self.rows, self.cols))
        last = self.tiles[-1]
        for _ in range(n_ops):
            last = self.op(indent)
        self.emit(f"out[{window}] = {last.name}", indent)
        return "\n".join(self.lines)


class _ProgramGen:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def vector_program(self) -> Generated:
        rng = self.rng
        rows = rng.choice([8, 16, 32])
        cols = rng.choice([16, 32, 64])
        blocks = rng.randint(1, 3)
        n_inputs = rng.randint(1, 3)
        with_flag = rng.random() < 0.4
        chained = rng.random() < 0.35
        total = rows * blocks
        tensor = f"pl.Tensor[[{total}, {cols}], pl.FP32]"
        params = ", ".join(f"x{i}: {tensor}" for i in range(n_inputs))
        flag_param = ", flag: pl.Scalar[pl.INDEX]" if with_flag else ""
        kernels = []
        first = _Kernel(rng, rows, cols, n_inputs, with_flag)
        kernels.append(self._kernel("k0", params, tensor, flag_param, first.body(rng.randint(1, 6))))
        if chained:
            second = _Kernel(rng, rows, cols, 1, with_flag, input_bound=first.out_bound).body(rng.randint(1, 4))
            kernels.append(self._kernel("k1", f"x0: {tensor}", tensor, flag_param, second))
        args = ", ".join(f"x{i}" for i in range(n_inputs))
        flag_arg = ", flag" if with_flag else ""
        lines = [f"    @pl.function(type=pl.FunctionType.Orchestration)"]
        lines.append(f"    def main(self, {params}, out: pl.Out[{tensor}]{flag_param}) -> {tensor}:")
        submit = rng.random() < 0.3
        if chained:
            lines.append(f"        tmp: {tensor} = pl.create_tensor([{total}, {cols}], dtype=pl.FP32)")
        lines.append(f"        for i in pl.range({blocks}):")
        lines.append(f"            row: pl.Scalar[pl.INDEX] = i * {rows}")
        if chained and submit:
            lines.append(f"            tmp, t0 = pl.submit(self.k0, {args}, tmp, row{flag_arg})")
            lines.append(f"            out, t1 = pl.submit(self.k1, tmp, out, row{flag_arg}, deps=[t0])")
        elif chained:
            lines.append(f"            tmp = self.k0({args}, tmp, row{flag_arg})")
            lines.append(f"            out = self.k1(tmp, out, row{flag_arg})")
        else:
            lines.append(f"            out = self.k0({args}, out, row{flag_arg})")
        lines.append("        return out")
        text = self._program("\n\n".join(kernels) + "\n\n" + "\n".join(lines))
        params = [("in", (total, cols), "float32")] * n_inputs + [("out", (total, cols), "float32")]
        if with_flag:
            params.append(("scalar", rng.randint(0, 3)))
        return Generated(self.seed, text, params)

    @staticmethod
    def _kernel(name: str, params: str, tensor: str, flag_param: str, body: str) -> str:
        return (
            "    @pl.function(type=pl.FunctionType.InCore)\n"
            f"    def {name}(self, {params}, out: pl.Out[{tensor}], row: pl.Scalar[pl.INDEX]{flag_param}) -> {tensor}:\n"
            f"{body}"
        )

    def matmul_program(self) -> Generated:
        rng = self.rng
        m, k, n = rng.choice([16, 32, 64]), rng.choice([16, 32, 64]), rng.choice([16, 32, 64])
        accumulate = rng.random() < 0.4
        a, b, c = f"pl.Tensor[[{m}, {k}], pl.FP16]", f"pl.Tensor[[{k}, {n}], pl.FP16]", f"pl.Tensor[[{m}, {n}], pl.FP32]"
        body = [
            f"a_mat: pl.Tile[[{m}, {k}], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [{m}, {k}], target_memory=pl.Mem.Mat)",
            f"b_mat: pl.Tile[[{k}, {n}], pl.FP16, pl.Mem.Mat] = pl.load(b, [0, 0], [{k}, {n}], target_memory=pl.Mem.Mat)",
            f"a_left: pl.Tile[[{m}, {k}], pl.FP16, pl.Mem.Left] = pl.move(a_mat, target_memory=pl.Mem.Left)",
            f"b_right: pl.Tile[[{k}, {n}], pl.FP16, pl.Mem.Right] = pl.move(b_mat, target_memory=pl.Mem.Right)",
            f"acc: pl.Tile[[{m}, {n}], pl.FP32, pl.Mem.Acc] = pl.matmul(a_left, b_right)",
        ]
        if accumulate:
            body.append(f"acc2: pl.Tile[[{m}, {n}], pl.FP32, pl.Mem.Acc] = pl.matmul_acc(acc, a_left, b_right)")
        body += [f"c = pl.store({'acc2' if accumulate else 'acc'}, [0, 0], c)", "return c"]
        post = rng.random() < 0.5
        kernels = [
            "    @pl.function(type=pl.FunctionType.InCore)\n"
            f"    def mm(self, a: {a}, b: {b}, c: pl.Out[{c}]) -> {c}:\n" + "\n".join("        " + line for line in body)
        ]
        main = [f"    @pl.function(type=pl.FunctionType.Orchestration)", f"    def main(self, a: {a}, b: {b}, out: pl.Out[{c}]) -> {c}:"]
        if post:
            kernels.append(
                "    @pl.function(type=pl.FunctionType.InCore)\n"
                f"    def post(self, x: {c}, y: pl.Out[{c}]) -> {c}:\n"
                f"        t: pl.Tile[[{m}, {n}], pl.FP32] = pl.load(x, [0, 0], [{m}, {n}])\n"
                f"        u: pl.Tile[[{m}, {n}], pl.FP32] = pl.{rng.choice(['add', 'mul', 'maximum'])}(t, t)\n"
                "        y = pl.store(u, [0, 0], y)\n"
                "        return y"
            )
            main += [
                f"        tmp: {c} = pl.create_tensor([{m}, {n}], dtype=pl.FP32)",
                "        tmp = self.mm(a, b, tmp)",
                "        out = self.post(tmp, out)",
            ]
        else:
            main.append("        out = self.mm(a, b, out)")
        main.append("        return out")
        text = self._program("\n\n".join(kernels) + "\n\n" + "\n".join(main))
        return Generated(self.seed, text, [("in", (m, k), "float16"), ("in", (k, n), "float16"), ("out", (m, n), "float32")])

    def tensor_program(self) -> Generated:
        """Tensor ops in the orchestration: one ``pl.at`` block, a ``pl.range`` loop of them over row
        blocks, or a ``pl.spmd`` body per block; slices in, slice assignment out."""
        rng = self.rng
        rows, cols = rng.choice([8, 16, 32]), rng.choice([16, 32, 64])
        form = rng.choice(["at", "loop", "spmd"])
        blocks = 1 if form == "at" else rng.randint(2, 4)
        n_inputs = rng.randint(1, 2)
        total = rows * blocks
        tensor = f"pl.Tensor[[{total}, {cols}], pl.FP32]"
        params = ", ".join(f"x{i}: {tensor}" for i in range(n_inputs))
        body = _TensorBody(rng, rows, cols, n_inputs, with_flag=False)
        lines = ["    @pl.function", f"    def main(self, {params}, out: pl.Out[{tensor}]) -> {tensor}:"]
        if form == "at":
            lines.append("        with pl.at(level=pl.Level.CORE_GROUP):")
            lines.append(body.tensor_body(rng.randint(1, 5), 3, "0"))
        elif form == "loop":
            lines.append(f"        for i in pl.range({blocks}):")
            lines.append("            with pl.at(level=pl.Level.CORE_GROUP):")
            lines.append(body.tensor_body(rng.randint(1, 5), 4, "i"))
        else:
            lines.append(f"        for i in pl.spmd({blocks}):")
            lines.append(body.tensor_body(rng.randint(1, 5), 3, "i"))
        lines.append("        return out")
        params_list = [("in", (total, cols), "float32")] * n_inputs + [("out", (total, cols), "float32")]
        return Generated(self.seed, self._program("\n".join(lines)), params_list)

    def _program(self, body: str) -> str:
        return f"import pypto.language as pl\n\n\n@pl.program\nclass Gen{self.seed}:\n{body}\n"


def generate(seed: int) -> Generated:
    """The program of ``seed``: a tile-level vector program (half), a matmul program or a
    tensor-level program (a quarter each)."""
    gen = _ProgramGen(seed)
    roll = gen.rng.random()
    if roll < 0.25:
        return gen.matmul_program()
    if roll < 0.5:
        return gen.tensor_program()
    return gen.vector_program()
