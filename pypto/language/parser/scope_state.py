"""Per-function parse state of the orchestration constructs, and small IR / syntax-tree helpers.

The scope, task, predicate and dump-tag handlers share a little state while one function body
is parsed: the stack of enclosing scopes (``pl.at`` ... ``pl.spmd`` ...), the producer TaskId of
tensors bound by ``pl.submit`` / ``pl.spmd ... as tid`` (for the best-effort predicate contract
check) and the tensors tagged by ``pl.dump_tag``. It lives beside the body parser, keyed by the
parser object, so the parser core needs no fields for it.

Variables are keyed by ``id``: ``ir.Var.__eq__`` builds an ``Eq`` node, so a Var must never be
compared with ``==`` (a dict lookup on hash collision would).
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pypto import ir
from pypto.ir.node import ModelBase
from pypto.ir.traversal import iter_children

# Scope kinds whose body a later pass outlines into a task (dump tags attach to them).
OUTLINED = frozenset({"incore", "spmd", "cluster", "hierarchy"})


@dataclass
class ScopeFrame:
    """An enclosing scope: its kind (``incore``, ``spmd``, ``cluster``, ``hierarchy``, ``runtime``,
    ``split_aiv``), the tensors ``pl.dump_tag`` attached to it and a ``split_aiv`` region's mode."""

    kind: str
    dump_vars: list[ir.Var] = field(default_factory=list)
    split: ir.SplitMode | None = None


@dataclass
class Producer:
    """The task that last wrote a tensor: its TaskId variable (None when it was discarded with
    ``_``) and how it was launched (for messages)."""

    task_id: ir.Var | None
    construct: str


@dataclass
class OrchestrationState:
    """What the orchestration handlers remember while one function body is parsed."""

    scopes: list[ScopeFrame] = field(default_factory=list)
    producers: dict[int, tuple[ir.Var, Producer]] = field(default_factory=dict)
    dump_tags: dict[int, ir.Var] = field(default_factory=dict)

    def record_producer(self, tensor: ir.Var, producer: Producer) -> None:
        """Remember that ``producer`` wrote ``tensor``."""
        self.producers[id(tensor)] = (tensor, producer)

    def producer_of(self, tensor: ir.Var) -> Producer | None:
        """The recorded producer of ``tensor``, if any."""
        entry = self.producers.get(id(tensor))
        return entry[1] if entry is not None else None

    def enclosing(self, *kinds: str) -> ScopeFrame | None:
        """The innermost enclosing scope of one of ``kinds``."""
        for frame in reversed(self.scopes):
            if frame.kind in kinds:
                return frame
        return None


_STATES: weakref.WeakKeyDictionary[Any, OrchestrationState] = weakref.WeakKeyDictionary()
_PARENTS: weakref.WeakKeyDictionary[ast.AST, dict[int, ast.AST]] = weakref.WeakKeyDictionary()


def state_of(parser: Any) -> OrchestrationState:
    """The orchestration state of ``parser`` (created on first use)."""
    state = _STATES.get(parser)
    if state is None:
        state = _STATES[parser] = OrchestrationState()
    return state


def parent_of(parser: Any, node: ast.AST) -> ast.AST | None:
    """The syntax-tree parent of ``node`` in the source the parser is reading."""
    tree = parser.src.tree
    parents = _PARENTS.get(tree)
    if parents is None:
        parents = {}
        for outer in ast.walk(tree):
            for child in ast.iter_child_nodes(outer):
                parents[id(child)] = outer
        _PARENTS[tree] = parents
    return parents.get(id(node))


def walk(node: ModelBase) -> Iterator[ModelBase]:
    """``node`` and every IR object below it, depth first in field order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        children = list(iter_children(current))
        children.reverse()
        stack.extend(children)


def calls_in(stmts: list[ir.Stmt]) -> Iterator[ir.Call | ir.Submit]:
    """Every Call and Submit in ``stmts``, in source order."""
    for stmt in stmts:
        for node in walk(stmt):
            if isinstance(node, (ir.Call, ir.Submit)):
                yield node


def is_task_id(expr: ir.Expr) -> bool:
    """True for a ``Scalar[TASK_ID]`` value."""
    t = expr.type
    return isinstance(t, ir.ScalarType) and t.dtype == ir.DataType.TASK_ID


def is_task_id_array(expr: ir.Expr) -> bool:
    """True for an ``Array[N, TASK_ID]`` value."""
    t = expr.type
    return isinstance(t, ir.ArrayType) and t.dtype == ir.DataType.TASK_ID
