"""``walk`` and the per-function node index.

``function_index(func)`` lists every IR node of a function once (types are not entered; variables
are leaves, and a loop's iter_args contribute their init values). The index is cached per Function
object, weakly: nodes are immutable and passes share untouched functions, so a function that
several boundary checks and passes look at is walked once, and dropped with the function; a new
function with the body and parameters of a live one shares its index.
"""

from __future__ import annotations

import bisect
import enum
import functools
import itertools
import operator
import weakref
from collections.abc import Callable

from pypto.ir.attrs import AttrsBase
from pypto.ir.expr import Call, GlobalVar, Op, Var
from pypto.ir.function import Function
from pypto.ir.node import IRNode
from pypto.ir.stmt import ForStmt, SeqStmts, Stmt, WhileStmt
from pypto.ir.traversal import child_fields
from pypto.ir.type_base import Type
from pypto.util import IdentityCache


@functools.cache
def _node_fields(cls: type) -> tuple[str, ...]:
    """Child fields of ``cls`` that may hold IR nodes (types are skipped, variables are leaves)."""
    if issubclass(cls, Var):
        return ()
    return tuple(name for name in child_fields(cls) if name != "type")


def push_value(value: object, out: list[IRNode]) -> None:
    """Append the IR nodes of a field value (a node, or lists/tuples/dicts/attrs of them) to ``out``."""
    if isinstance(value, IRNode):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            push_value(item, out)
    elif isinstance(value, (dict, AttrsBase)):
        for item in value.values():
            push_value(item, out)


# Values that hold no IR node (most keyword arguments and attributes).
PLAIN = (bool, int, float, str, enum.Enum, type(None))


def plain_attrs(attrs: AttrsBase) -> bool:
    """True when no value ``attrs`` holds (its given keys, see ``AttrsBase.__getitem__``) can hold an IR node."""
    extra = attrs.__pydantic_extra__ or {}
    values = attrs.__dict__
    for key in attrs.__pydantic_fields_set__:
        if not isinstance(extra[key] if key in extra else values[key], PLAIN):
            return False
    return True


# The child fields of each node class, last first (the walk pushes them onto its stack in that
# order); () for leaves. A dict, not functools.cache: it is read for every node.
_REVERSED_FIELDS: dict[type, tuple[str, ...]] = {}
# The attrs classes met so far (AttrsBase subclasses).
_ATTRS_KINDS: set[type] = set()


def _push_reversed(value: object, push: Callable[[IRNode], None]) -> None:
    """Push the IR nodes of a field value onto the walk's stack, last first."""
    found: list[IRNode] = []
    push_value(value, found)
    for node in reversed(found):
        push(node)


def walk(root: IRNode) -> list[IRNode]:
    """Every IR node under ``root`` (itself included) in pre-order, without recursion."""
    out: list[IRNode] = []
    stack: list[IRNode] = [root]
    fields, attrs_kinds = _REVERSED_FIELDS, _ATTRS_KINDS
    pop, emit, push = stack.pop, out.append, stack.append
    while stack:
        node = pop()
        emit(node)
        cls = type(node)
        names = fields.get(cls)
        if names is None:
            names = fields[cls] = tuple(reversed(_node_fields(cls)))
        if not names:  # variables, constants, ops
            continue
        # Children go onto the stack last first, so they come off it in field order.
        if cls is ForStmt or cls is WhileStmt:  # a loop's init values follow its fields
            for ia in reversed(node.iter_args):
                push(ia.initValue)
        for name in names:
            value = getattr(node, name)
            # push_value, inlined for the common shapes: a node, a list of nodes, empty attrs or dicts.
            # ``type(x) in fields`` tells a node of a class met before: isinstance against a pydantic
            # class of another type than the object's own runs the metaclass's Python-level check.
            kind = type(value)
            if kind in fields:
                push(value)
            elif kind is list:
                for item in reversed(value):
                    if type(item) in fields or isinstance(item, IRNode):
                        push(item)
                    else:
                        _push_reversed(item, push)
            elif value is None:
                continue
            elif kind in attrs_kinds:
                # Most attrs are empty or plain (flags, names): the mapping view is slow, skip it then.
                if value.__pydantic_fields_set__ and not plain_attrs(value):
                    _push_reversed(value, push)
            elif isinstance(value, IRNode):
                push(value)
            elif isinstance(value, AttrsBase):
                attrs_kinds.add(kind)
                if value.__pydantic_fields_set__ and not plain_attrs(value):
                    _push_reversed(value, push)
            elif kind is dict:
                if value and not all(isinstance(item, PLAIN) for item in value.values()):
                    _push_reversed(value, push)  # keyword arguments are mostly enums and numbers
            elif value:
                _push_reversed(value, push)
    return out


def _first_types(nodes: list[IRNode], start: int, found: dict[int, tuple[Type, int]]
                 ) -> tuple[tuple[Type, ...], tuple[int, ...]]:
    """``found`` (type id -> type, first position) completed with the types of ``nodes[start:]``."""
    for i in range(start, len(nodes)):
        t = getattr(nodes[i], "type", None)
        if t is not None and id(t) not in found:
            found[id(t)] = (t, i)
    return tuple(t for t, _ in found.values()), tuple(i for _, i in found.values())


_NO_CALLS: list[Call] = []


class FunctionIndex:
    """All nodes below one function, with per-class lookups (in pre-order).

    The function itself is counted in ``classes`` but not held (the cache is weak on it).
    """

    def __init__(self, func: Function, nodes: list[IRNode] | None = None,
                 positions: dict[type, list[int]] | None = None) -> None:
        """The index of ``func``; ``nodes`` and ``positions`` (the positions of each node class in
        ``nodes``, none empty): what the caller has already."""
        self.nodes = walk(func)[1:] if nodes is None else nodes
        if positions is None:
            positions = {}
            for i, node in enumerate(self.nodes):
                found = positions.get(type(node))
                if found is None:
                    positions[type(node)] = [i]
                else:
                    found.append(i)
        self._positions = positions
        self.classes = frozenset(self._positions) | {type(func)}
        self._by_class: dict[tuple[type, ...], list] = {}
        self._has: dict[tuple[type, ...], bool] = {}

    def of(self, *classes: type) -> list:
        """The nodes that are instances of any of ``classes``, in pre-order."""
        found = self._by_class.get(classes)
        if found is None:
            groups = [pos for cls, pos in self._positions.items() if issubclass(cls, classes)]
            positions = groups[0] if len(groups) == 1 else sorted(itertools.chain.from_iterable(groups))
            found = list(map(self.nodes.__getitem__, positions))
            self._by_class[classes] = found
        return found

    @property
    def types(self) -> tuple[Type, ...]:
        """The type objects of the nodes, each once, in node order (nodes share their types: a kernel
        of 300 nodes has about 15), so a test of every type looks at each once."""
        return self._typed[0]

    @functools.cached_property
    def _typed(self) -> tuple[tuple[Type, ...], tuple[int, ...]]:
        """``types`` and the position of each one's first node."""
        return _first_types(self.nodes, 0, {})

    @functools.cached_property
    def op_names(self) -> frozenset[str]:
        """The names of the ops the function calls (not program functions)."""
        return frozenset(self._op_calls)

    @functools.cached_property
    def _op_calls(self) -> dict[str, list[Call]]:
        out: dict[str, list[Call]] = {}
        for call in self.of(Call):
            op = call.op  # the exact class first: isinstance against another pydantic class is slow
            if type(op) is Op or not isinstance(op, GlobalVar):
                out.setdefault(op.name, []).append(call)
        return out

    def calls_to(self, name: str) -> list[Call]:
        """The calls of op ``name`` (not of program functions), in pre-order; callers must not change
        the list. One grouping of the calls serves every op a check looks for."""
        return self._op_calls.get(name, _NO_CALLS)

    def has(self, *classes: type) -> bool:
        """True when some node is an instance of one of ``classes``."""
        found = self._has.get(classes)
        if found is None:
            found = self._has[classes] = any(issubclass(c, classes) for c in self.classes)
        return found


_INDEX: IdentityCache[Function, FunctionIndex] = IdentityCache(20_000)
_INDEX_ENTRIES = _INDEX.entries  # read directly: the checkers ask for an index thousands of times a compile


# The live index of each function body with the parameters it was made with: a pass that rebuilds only
# a function's header (its kind, role or name) keeps the body and parameters, so every node below it.
_BY_BODY: IdentityCache[Stmt, tuple[tuple[Var, ...], weakref.ref[FunctionIndex]]] = IdentityCache(20_000)


def function_index(func: Function) -> FunctionIndex:
    """The node index of ``func`` (cached while ``func`` lives, shared with a live function of the
    same body and parameters)."""
    hit = _INDEX_ENTRIES.get(id(func))
    return hit[1] if hit is not None else _INDEX.put(func, _index_of(func))


def _index_of(func: Function) -> FunctionIndex:
    params = tuple(func.params)
    attrs = func.attrs
    if attrs.__pydantic_fields_set__ and not plain_attrs(attrs):  # its nodes are in the index too
        return FunctionIndex(func)
    hit = _BY_BODY.get(func.body)
    if hit is not None and len(hit[0]) == len(params) and all(a is b for a, b in zip(hit[0], params)):
        shared = hit[1]()
        if shared is not None:
            return shared
    index = FunctionIndex(func)
    _BY_BODY.put(func.body, (params, weakref.ref(index)))
    return index


def share_index(func: Function, old: Function) -> None:
    """Index ``func``, a rebuild of ``old`` that keeps its parameters and the first statements of its
    body, from the index of ``old`` when that is cached: only the statements after the common ones
    are walked (a pass that rewrites a kernel's return keeps every other statement)."""
    hit = _INDEX_ENTRIES.get(id(old))
    body, old_body = func.body, old.body
    if (
        hit is None
        or id(func) in _INDEX_ENTRIES
        or type(body) is not SeqStmts
        or type(old_body) is not SeqStmts
        or len(func.params) != len(old.params)
        or not all(map(operator.is_, func.params, old.params))
        or not _plain(func)
        or not _plain(old)
    ):
        return
    stmts, old_stmts = body.stmts, old_body.stmts
    common = 0
    for a, b in zip(stmts, old_stmts):
        if a is not b:
            break
        common += 1
    # Pre-order: the parameters, the body, each statement's nodes in turn, and nothing after them
    # (plain attrs hold no node), so the kept statements' nodes are a prefix of the old index.
    dropped = sum(len(walk(s)) for s in old_stmts[common:])
    cut = len(hit[1].nodes) - dropped
    nodes = hit[1].nodes[:cut]
    nodes[len(func.params)] = body  # a SeqStmts for a SeqStmts: the class positions stay
    positions = {cls: pos[: bisect.bisect_left(pos, cut)] for cls, pos in hit[1]._positions.items()}
    for stmt in stmts[common:]:
        for node in walk(stmt):
            positions.setdefault(type(node), []).append(len(nodes))
            nodes.append(node)
    index = FunctionIndex(func, nodes, {cls: pos for cls, pos in positions.items() if pos})
    typed = hit[1].__dict__.get("_typed")
    if typed is not None:  # the kept nodes' types are those first met before the cut
        kept_types = {id(t): (t, i) for t, i in zip(*typed) if i < cut}
        index.__dict__["_typed"] = _first_types(nodes, cut, kept_types)
    _INDEX.put(func, index)
    _BY_BODY.put(body, (tuple(func.params), weakref.ref(index)))


def _plain(func: Function) -> bool:
    """True when the attrs of ``func`` hold no IR node (its index holds only parameters and body)."""
    attrs = func.attrs
    return not attrs.__pydantic_fields_set__ or plain_attrs(attrs)


def clear_function_indexes() -> None:
    """Forget every cached index (benchmarks measure cold checks)."""
    _INDEX.clear()
    _BY_BODY.clear()
