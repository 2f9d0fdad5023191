"""AST mutations of DSL programs: small, syntactically valid edits that a user could make by mistake.

``mutate(text, rng)`` applies one edit to the program text: a number changed (a shape, an offset, a
constant), an op, dtype or memory space swapped for another, an argument or keyword dropped, two
arguments swapped, a statement deleted or duplicated. The result still parses as Python; whether it
is a valid pypto program is for the compiler to decide, with a pypto error if not.
"""

from __future__ import annotations

import ast
import random

_OPS = [
    "add", "sub", "mul", "div", "maximum", "minimum", "exp", "neg", "abs", "sqrt", "row_sum", "row_max",
    "row_expand_sub", "row_expand_mul", "row_expand_div", "matmul", "matmul_acc", "load", "store", "move",
    "create_tile", "create_tensor", "cast", "reshape", "transpose",
]
_DTYPES = ["FP32", "FP16", "BF16", "INT32", "INT8", "INDEX", "INT64", "BOOL"]
_SPACES = ["Vec", "Mat", "Left", "Right", "Acc", "DDR"]
_INTS = [0, 1, -1, 2, 3, 7, 8, 15, 17, 63, 65, 128, 4096, 1 << 20]
_FLOATS = [0.0, -1.0, 1e30, float("nan"), 2.5]


def _is_pl_attr(node: ast.AST, names: list[str]) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in names


def _candidates(tree: ast.Module) -> list[tuple[str, ast.AST, ast.AST | None]]:
    """Every mutable site: ``(kind, node, parent)``."""
    sites: list[tuple[str, ast.AST, ast.AST | None]] = []
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            if isinstance(child, ast.Constant) and type(child.value) in (int, float):
                sites.append(("number", child, parent))
            elif _is_pl_attr(child, _OPS):
                sites.append(("op", child, parent))
            elif _is_pl_attr(child, _DTYPES):
                sites.append(("dtype", child, parent))
            elif _is_pl_attr(child, _SPACES):
                sites.append(("space", child, parent))
            elif isinstance(child, ast.Call) and (child.args or child.keywords):
                sites.append(("call", child, parent))
        body = getattr(parent, "body", None)
        if isinstance(parent, (ast.FunctionDef, ast.For, ast.If)) and isinstance(body, list) and len(body) > 1:
            sites.append(("block", parent, None))
    return sites


def _mutate_call(call: ast.Call, rng: random.Random) -> None:
    choice = rng.choice(["drop_arg", "swap_args", "drop_keyword"])
    if choice == "drop_keyword" and call.keywords:
        call.keywords.pop(rng.randrange(len(call.keywords)))
    elif choice == "swap_args" and len(call.args) > 1:
        i, j = rng.sample(range(len(call.args)), 2)
        call.args[i], call.args[j] = call.args[j], call.args[i]
    elif call.args:
        call.args.pop(rng.randrange(len(call.args)))


def mutate(text: str, rng: random.Random) -> str:
    """``text`` with one random edit (see the module docstring)."""
    tree = ast.parse(text)
    sites = _candidates(tree)
    kind, node, _ = rng.choice(sites)
    if kind == "number":
        assert isinstance(node, ast.Constant)
        node.value = rng.choice(_INTS if isinstance(node.value, int) else _FLOATS)
    elif kind == "op":
        assert isinstance(node, ast.Attribute)
        node.attr = rng.choice(_OPS)
    elif kind == "dtype":
        assert isinstance(node, ast.Attribute)
        node.attr = rng.choice(_DTYPES)
    elif kind == "space":
        assert isinstance(node, ast.Attribute)
        node.attr = rng.choice(_SPACES)
    elif kind == "call":
        assert isinstance(node, ast.Call)
        _mutate_call(node, rng)
    else:
        body = node.body  # type: ignore[attr-defined]
        i = rng.randrange(len(body))
        if rng.random() < 0.5:
            body.pop(i)
        else:
            body.insert(i, body[i])
    return ast.unparse(tree)
