"""deep_clone walks the tree with a handler per node class (pypto.ir.transforms._Clone) instead of
the generic traversal kernel: on every function of the examples at every pass boundary, on generated
programs (loops carrying values, branches, tuples, tasks) and on hand-made corner cases, its copy
equals the generic walk's field for field, with the same sharing (among the copy's nodes and with
the input) and fresh variables made in the same order."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto.ir.expr import Expr, Var
from pypto.ir.node import ModelBase
from pypto.ir.parts import copy_parts
from pypto.ir.transforms import (
    _Substitution,
    _renamed,
    _renamed_fresh,
    _same_name,
    collect_def_vars,
    deep_clone,
    map_children,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "differential"))
from kernel_gen import generate  # noqa: E402

IDX = ir.ScalarType(ir.INDEX)


def generic_clone(node: Any, var_map: Mapping[Var, Expr] | None = None) -> Any:
    """deep_clone through :func:`~pypto.ir.transforms.transform`'s generic child walk."""
    renaming = not var_map or all(type(v) is type(k) and v.type is k.type for k, v in var_map.items())
    rebuild = (_renamed_fresh if not var_map else _renamed) if renaming else map_children
    sub = _Substitution(var_map or {}, copy_all=True, rebuild=rebuild)
    for var in collect_def_vars(node):
        if id(var) not in sub.map:
            sub.fresh[id(var)] = _same_name
    return sub(node)


def _objects(roots: list[Any]) -> set[int]:
    """The ids of every IR object reachable from ``roots`` (variables' types and inits included)."""
    seen: set[int] = set()
    todo = list(roots)
    while todo:
        value = todo.pop()
        if isinstance(value, ModelBase):
            if id(value) in seen:
                continue
            seen.add(id(value))
            todo.extend(value.values() if value._mapping else value.__dict__.values())
        elif isinstance(value, (list, tuple)):
            todo.extend(value)
        elif isinstance(value, dict):
            todo.extend(value.values())
    return seen


def assert_same_clone(node: Any, var_map: Mapping[Var, Expr] | None = None) -> None:
    """deep_clone and the generic walk give copies that are alike field for field, share the same
    objects with ``node`` (kept variables, ops, unchanged types) and among their own nodes, and
    made their fresh variables in the same order (ids one fixed distance apart)."""
    old = _objects([node, *(var_map or {}).values()])
    expected = generic_clone(node, var_map)
    got = deep_clone(node, var_map)
    pairs: dict[int, int] = {}
    back: dict[int, int] = {}
    offsets: set[int] = set()
    todo: list[tuple[Any, Any, str]] = [(expected, got, "root")]
    while todo:
        a, b, where = todo.pop()
        if isinstance(a, ModelBase) and not a._mapping:
            assert (id(a) in old) == (id(b) in old), f"{where}: shared with the input on one side only"
            if id(a) in old:
                assert a is b, f"{where}: a different input object kept"
                continue
            assert type(a) is type(b), f"{where}: {type(a).__name__} vs {type(b).__name__}"
            assert pairs.setdefault(id(a), id(b)) == id(b), f"{where}: sharing differs"
            assert back.setdefault(id(b), id(a)) == id(a), f"{where}: sharing differs"
            assert a.__pydantic_fields_set__ == b.__pydantic_fields_set__, where
            for name, value in a.__dict__.items():
                other = b.__dict__[name]
                if name == "unique_id":
                    offsets.add(other - value)
                else:
                    todo.append((value, other, f"{where}.{type(a).__name__}.{name}"))
        elif isinstance(a, ModelBase):  # an attrs model
            assert type(a) is type(b) and a.__pydantic_fields_set__ == b.__pydantic_fields_set__, where
            assert list(a.keys()) == list(b.keys()), where
            todo.extend((a[k], b[k], f"{where}[{k!r}]") for k in a.keys())
        elif isinstance(a, (list, tuple)):
            assert type(a) is type(b) and len(a) == len(b), where
            todo.extend((x, y, f"{where}[{i}]") for i, (x, y) in enumerate(zip(a, b)))
        elif isinstance(a, dict):
            assert type(b) is dict and list(a) == list(b), where
            todo.extend((a[k], b[k], f"{where}[{k!r}]") for k in a)
        else:
            assert type(a) is type(b) and a == b, f"{where}: {a!r} vs {b!r}"
    assert len(offsets) <= 1, f"fresh variables made in another order: {sorted(offsets)}"


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


# The stages whose functions are compared: the surface program and the inputs of the passes that
# clone (and of those between them); the pipeline runs up to the last of them.
_STAGES = frozenset({"ConvertToSSA", "OutlineHierarchyScopes", "OutlineIncoreScopes", "OutlineClusterScopes",
                     "ConvertTensorToTileOps", "ExpandMixedKernel", "SplitVectorKernel"})


def _stages(program: ir.Program) -> list[ir.Function]:
    """The distinct functions of ``program`` at the input of the passes of ``_STAGES``."""
    seen: dict[int, ir.Function] = {}

    class Grab(passes.PassInstrument):
        name = "Grab"

        def before_pass(self, p: Any, prog: ir.Program) -> None:
            if p.name in _STAGES:
                for f in prog.functions.values():
                    seen.setdefault(id(f), f)

    pipeline = passes.builtin_passes()
    last = max(i for i, p in enumerate(pipeline) if p.name in _STAGES)
    with passes.PassContext([Grab()], verify=False):
        passes.PassManager(pipeline[:last], verify=False).run_passes(program)
    return list(seen.values())


def _renamings(func: ir.Function) -> dict[Var, Var]:
    """Each parameter of ``func`` mapped to a new variable of its class and type (deep_clone's
    renaming path with a var_map)."""
    return {p: copy_parts(p, {}) for p in func.params if type(p) is Var}


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.stem)
def test_clone_of_every_example_function_at_every_stage(path: Path) -> None:
    for func in _stages(pl.loads_program(str(path))):
        assert_same_clone(func)
        assert_same_clone(func.body, _renamings(func))


@pytest.mark.parametrize("seed", range(4))
def test_clone_of_generated_programs(seed: int) -> None:
    for func in _stages(pl.parse(generate(seed).text)):
        assert_same_clone(func)
        assert_same_clone(func.body, _renamings(func))


def _while_program() -> ir.Function:
    n = ir.Var("n", IDX)
    x = ir.Var("x", ir.TensorType([n, ir.ConstInt(8, ir.INDEX)], ir.FP32))
    k = ir.IterArg("k", IDX, ir.ConstInt(0, ir.INDEX))
    acc = ir.IterArg("acc", x.type, x)
    k2, acc2 = ir.Var("k2", IDX), ir.Var("acc2", x.type)
    step = ir.AssignStmt(k2, ir.Add(k, ir.ConstInt(1, ir.INDEX), ir.INDEX))
    pair = ir.Var("pair", ir.TupleType([x.type, IDX]))
    body = ir.SeqStmts([
        step,
        ir.AssignStmt(acc2, ir.Call(ir.Op("tensor.add"), [acc, acc], x.type)),
        ir.AssignStmt(pair, ir.MakeTuple([acc2, k2])),
        ir.YieldStmt([ir.TupleGetItemExpr(pair, 1), ir.TupleGetItemExpr(pair, 0)]),
    ])
    kr, accr = ir.Var("kr", IDX), ir.Var("accr", x.type)
    loop = ir.WhileStmt(ir.Lt(k, n, ir.BOOL), [k, acc], body, [kr, accr])
    r = ir.Var("r", x.type)
    branch = ir.IfStmt(ir.Gt(kr, ir.ConstInt(2, ir.INDEX), ir.BOOL), ir.SeqStmts([ir.YieldStmt([accr])]),
                       ir.SeqStmts([ir.YieldStmt([x])]), [r])
    return ir.Function("f", [n, x], [x.type], ir.SeqStmts([loop, branch, ir.ReturnStmt([r])]), ir.Span.unknown())


def test_clone_of_a_while_loop_binding_its_iter_args_before_the_condition() -> None:
    func = _while_program()
    assert_same_clone(func)
    assert_same_clone(func.body, _renamings(func))
    assert_same_clone(func.body.stmts[0])  # n and x free: kept


def test_clone_of_an_expression_deeper_than_the_recursion_handoff() -> None:
    # Past _Clone._MAX_DEPTH the subtree goes through the iterative kernel: same copy, no
    # recursion error on a chain of a thousand operators.
    x = ir.Var("x", IDX)
    chain: ir.Expr = x
    for i in range(1000):
        chain = ir.Add(chain, ir.ConstInt(i, ir.INDEX), ir.INDEX)
    y = ir.Var("y", IDX)
    body = ir.SeqStmts([ir.AssignStmt(x, ir.ConstInt(1, ir.INDEX)), ir.AssignStmt(y, chain), ir.EvalStmt(chain)])
    assert_same_clone(body)


def test_clone_deep_in_the_stack_hands_off_before_the_recursion_limit() -> None:
    # A pass may call deep_clone with much of the stack in use: the recursive walk stops early enough.
    x = ir.Var("x", IDX)
    chain: ir.Expr = x
    for i in range(300):
        chain = ir.Add(chain, ir.ConstInt(i, ir.INDEX), ir.INDEX)
    body = ir.SeqStmts([ir.AssignStmt(x, ir.ConstInt(1, ir.INDEX)), ir.EvalStmt(chain)])
    depth = sys.getrecursionlimit() - len(inspect.stack(0)) - 200

    def nested(n: int) -> ir.SeqStmts:
        return nested(n - 1) if n else deep_clone(body)

    assert_same_clone(body)
    assert isinstance(nested(depth), ir.SeqStmts)
