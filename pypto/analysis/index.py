"""``walk`` and the per-function node index.

``function_index(func)`` lists every IR node of a function once (types are not entered; variables
are leaves, and a loop's iter_args contribute their init values). The index is cached per Function
object, weakly: nodes are immutable and passes share untouched functions, so a function that
several boundary checks and passes look at is walked once, and dropped with the function; a new
function with the body and parameters of a live one shares its index. A pass that rebuilds a
function keeping most of its statements can have the new index copied from the old one
(:func:`derive_index`) instead of walked.
"""

from __future__ import annotations

import collections
import enum
import functools
import itertools
import weakref
from collections.abc import Callable
from operator import itemgetter

from pypto.ir.attrs import AttrsBase
from pypto.ir.expr import Call, GlobalVar, Op, Var
from pypto.ir.function import Function
from pypto.ir.node import IRNode
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, SeqStmts, Stmt, WhileStmt
from pypto.ir.traversal import child_fields
from pypto.ir.type_base import Type, UnknownType
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
        if cls is SeqStmts:
            # The common block: its plain statements are emitted here in order, without the stack
            # (most kernels are one block of them); from its first compound statement on, the rest
            # go onto the stack.
            stmts = node.stmts
            for k, stmt in enumerate(stmts):
                kind = type(stmt)
                if kind is AssignStmt:
                    emit(stmt)
                    emit(stmt.var)
                    value = stmt.value
                elif kind is EvalStmt:
                    emit(stmt)
                    value = stmt.expr
                else:
                    for item in reversed(stmts[k:]):
                        push(item)
                    break
                if type(value) is not Call or not _emit_leaf_call(value, emit, fields):
                    out += walk(value)  # a nested walk of the expression: the stack holds the rest
            continue
        if cls is AssignStmt:  # the common statement: its variable is a leaf, emitted at once
            emit(node.var)
            node = node.value
            if type(node) is not Call or not _emit_leaf_call(node, emit, fields):
                push(node)
            continue
        if cls is EvalStmt:  # the next most common (stores, syncs): one call, mostly of leaves
            node = node.expr
            if type(node) is not Call or not _emit_leaf_call(node, emit, fields):
                push(node)
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


def _emit_leaf_call(call: Call, emit: Callable[[IRNode], None], fields: dict[type, tuple[str, ...]]) -> bool:
    """Emit ``call`` and its children in pre-order when they are all leaves (its op and arguments
    of classes met before without child fields; no IR node in its keywords or attrs), without the
    stack; False (nothing emitted) for any other call."""
    op, args, kwargs, attrs = call.op, call.args, call.kwargs, call.attrs
    if fields.get(type(op)) != ():
        return False
    for a in args:  # (a loop: a generator costs more than the few arguments it would test)
        if fields.get(type(a)) != ():
            return False
    if kwargs and not all(isinstance(item, PLAIN) for item in kwargs.values()):
        return False
    if attrs.__pydantic_fields_set__ and not plain_attrs(attrs):
        return False
    emit(call)
    emit(op)
    for a in args:
        emit(a)
    return True


_NO_CALLS: list[Call] = []


def _leaves(classes: tuple[type, ...]) -> bool:
    """True when none of ``classes`` has a subclass: a node is then an instance of one exactly when
    its class is one of them (asked again on every miss, so a subclass made later is seen)."""
    return not any(map(type.__subclasses__, classes))


class FunctionIndex:
    """All nodes below one function, with per-class lookups (in pre-order).

    The function itself is counted in ``classes`` but not held (the cache is weak on it).
    """

    def __init__(self, func: Function, nodes: list[IRNode] | None = None) -> None:
        """The index of ``func``; ``nodes``: ``walk(func)[1:]`` when the caller has it (:func:`derive_index`)."""
        self.nodes = walk(func)[1:] if nodes is None else nodes
        positions: collections.defaultdict[type, list[int]] = collections.defaultdict(list)
        for i, node in enumerate(self.nodes):  # (the defaultdict makes a class's list in C)
            positions[type(node)].append(i)
        self._positions = dict(positions)  # a plain dict: asking for a class it lacks must not add it
        self.classes = frozenset(self._positions) | {type(func)}
        self._by_class: dict[tuple[type, ...], list] = {}
        self._at: dict[tuple[type, ...], list[int]] = {}
        self._has: dict[tuple[type, ...], bool] = {}
        self._types_of: dict[tuple[type, ...], tuple[Type, ...]] = {}

    def of(self, *classes: type) -> list:
        """The nodes that are instances of any of ``classes``, in pre-order."""
        found = self._by_class.get(classes)
        if found is None:
            found = self._by_class[classes] = list(map(self.nodes.__getitem__, self.positions(*classes)))
        return found

    def positions(self, *classes: type) -> list[int]:
        """The positions in ``nodes`` of the instances of any of ``classes``, ascending (callers must
        not change the list)."""
        found = self._at.get(classes)  # (several checkers ask for the same classes)
        if found is None:
            if _leaves(classes):  # the usual ask: no issubclass test of every class the function holds
                groups = [self._positions[c] for c in dict.fromkeys(classes) if c in self._positions]
            else:
                groups = [pos for cls, pos in self._positions.items() if issubclass(cls, classes)]
            found = self._at[classes] = groups[0] if len(groups) == 1 else sorted(itertools.chain.from_iterable(groups))
        return found

    @functools.cached_property
    def types(self) -> tuple[Type, ...]:
        """The type objects of the nodes, each once, in node order (nodes share their types: a kernel
        of 300 nodes has about 15), so a test of every type looks at each once."""
        found: dict[int, Type] = {}
        for node in self.nodes:
            t = getattr(node, "type", None)
            if t is not None and id(t) not in found:
                found[id(t)] = t
        return tuple(found.values())

    def types_of(self, *classes: type) -> tuple[Type, ...]:
        """The :attr:`types` that are instances of any of ``classes``, in order. After memory planning
        each tile variable has its own type: the checks that look for a kind of tile scan this once
        for all of them."""
        found = self._types_of.get(classes)
        if found is None:
            found = self._types_of[classes] = tuple(t for t in self.types if isinstance(t, classes))
        return found

    @functools.cached_property
    def op_names(self) -> frozenset[str]:
        """The names of the ops the function calls (not program functions)."""
        return frozenset(self._op_calls)

    @functools.cached_property
    def _op_calls(self) -> dict[str, list[Call]]:
        out: collections.defaultdict[str, list[Call]] = collections.defaultdict(list)
        for call in self.of(Call):
            op = call.op  # the exact class first: isinstance against another pydantic class is slow
            if type(op) is Op or not isinstance(op, GlobalVar):
                out[op.name].append(call)
        return dict(out)

    def calls_to(self, name: str) -> list[Call]:
        """The calls of op ``name`` (not of program functions), in pre-order; callers must not change
        the list. One grouping of the calls serves every op a check looks for."""
        return self._op_calls.get(name, _NO_CALLS)

    def carry_lookups(self, base: FunctionIndex, inserted_ops: frozenset[str]) -> None:
        """Take over the op calls and ``types_of`` lookups ``base`` has worked out, for a function that is
        ``base``'s with untyped evaluations of ``inserted_ops`` inserted and nothing removed (see
        :func:`derive_index`); nothing when ``base`` calls one of those ops or this index has its own.

        Its typed nodes are then ``base``'s in the same order plus nodes of type ``UnknownType``: a
        ``types_of`` that excludes that type lists the same types. Its calls are ``base``'s plus the
        inserted ones, which are the evaluations of those ops. Each is otherwise a walk of every node,
        on a rebuilt function whose nodes are mostly out of cache.
        """
        if "_op_calls" in self.__dict__ or "_op_calls" not in base.__dict__:
            return
        if not base.op_names.isdisjoint(inserted_ops):
            return
        calls = dict(base._op_calls)
        for stmt in self.of(EvalStmt):
            call = stmt.expr
            if type(call) is Call and type(call.op) is Op and call.op.name in inserted_ops:
                calls.setdefault(call.op.name, []).append(call)
        self.__dict__["_op_calls"] = calls
        unknown = UnknownType.get()
        for classes, found in base._types_of.items():
            if not isinstance(unknown, classes):
                self._types_of.setdefault(classes, found)

    def has(self, *classes: type) -> bool:
        """True when some node is an instance of one of ``classes``."""
        found = self._has.get(classes)
        if found is None:
            if _leaves(classes):
                found = self._has[classes] = any(c in self.classes for c in classes)
            else:
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


def _index_of(func: Function, make: Callable[[Function], FunctionIndex] = FunctionIndex) -> FunctionIndex:
    params = tuple(func.params)
    attrs = func.attrs
    if attrs.__pydantic_fields_set__ and not plain_attrs(attrs):  # its nodes are in the index too
        return make(func)
    hit = _BY_BODY.get(func.body)
    if hit is not None and len(hit[0]) == len(params) and all(a is b for a, b in zip(hit[0], params)):
        shared = hit[1]()
        if shared is not None:
            return shared
    index = make(func)
    _BY_BODY.put(func.body, (params, weakref.ref(index)))
    return index


def derive_index(func: Function, old: Function, inserted_ops: frozenset[str] = frozenset()) -> FunctionIndex:
    """The index of ``func``, a rebuild of ``old`` that keeps most of its statements (a pass that
    inserts a few), cached as :func:`function_index` would: the nodes below a kept statement are
    copied from ``old``'s index, not walked again.

    ``inserted_ops``: ``func`` is ``old`` with statements inserted, each the evaluation of an
    untyped (``UnknownType``) call of one of these ops, and nothing else changed but the blocks and
    compound statements holding them. When ``old`` calls none of them, the op calls and typed lookups
    its index has worked out are carried over (see :meth:`FunctionIndex.carry_lookups`).
    """
    hit = _INDEX_ENTRIES.get(id(func))
    if hit is not None:
        return hit[1]
    index = _INDEX.put(func, _index_of(func, lambda f: FunctionIndex(f, _nodes_reusing(f, function_index(old)))))
    if inserted_ops:
        base = _INDEX_ENTRIES.get(id(old))  # (None when ``func``'s index is a live function's, not copied)
        if base is not None:
            index.carry_lookups(base[1], inserted_ops)
    return index


def _nodes_reusing(func: Function, base: FunctionIndex) -> list[IRNode]:
    """``walk(func)[1:]``, copying the nodes of the statements ``func`` shares with ``base``'s function.

    A statement's nodes are a contiguous run of the pre-order that ends where its next sibling in
    a block starts; the last of each block is walked, and so is, in a nested block, a statement
    held more than once.
    """
    nodes, positions = base.nodes, base._positions
    groups = [(cls, found) for cls, found in positions.items() if issubclass(cls, Stmt)]
    held = sum(map(len, map(itemgetter(1), groups)))
    blocks = positions.get(SeqStmts, ())
    known: dict[int, list[IRNode]] = {}  # statement id -> its nodes
    if len(blocks) == 1 and held == 1 + len(nodes[blocks[0]].stmts):
        # A flat body (one block, a statement node for each of its entries, none below them): its
        # statements start at the other statement positions, in order (the runs of a repeated
        # statement are equal).
        starts = sorted(itertools.chain.from_iterable(found for cls, found in groups if cls is not SeqStmts))
        known.update(zip(map(id, nodes[blocks[0]].stmts), map(nodes.__getitem__, map(slice, starts, starts[1:]))))
    else:
        at: dict[int, int] = {}  # statement id -> its position (the last one of a repeated statement)
        for _, found in groups:
            at.update(zip(map(id, map(nodes.__getitem__, found)), found))
        twice: set[int] = set()
        if len(at) != held:
            counts = collections.Counter(id(nodes[i]) for _, found in groups for i in found)
            twice = {k for k, n in counts.items() if n > 1}
        for i in blocks:
            keys = list(map(id, nodes[i].stmts))
            starts = list(map(at.__getitem__, keys))
            runs = map(nodes.__getitem__, map(slice, starts, starts[1:]))
            if not twice:
                known.update(zip(keys, runs))
            else:
                for key, after, run in zip(keys, keys[1:], runs):
                    if key not in twice and after not in twice:
                        known[key] = run
    out: list[IRNode] = []
    _copy_walk(func, known, out)
    return out[1:]


def _copy_walk(node: IRNode, known: dict[int, list[IRNode]], out: list[IRNode]) -> None:
    """Append ``walk(node)`` to ``out``, the nodes of a statement in ``known`` copied from there (a
    statement of a block walked here is added to it: a repeated one is walked once)."""
    cls = type(node)
    if not issubclass(cls, Stmt) and cls is not Function:  # an expression or a type: no statement below
        out += walk(node)
        return
    out.append(node)
    if cls is SeqStmts:  # the common parent: most of its statements are copied
        stmts = node.stmts
        ids = list(map(id, stmts))
        for stmt in stmts:  # the statements not copied (inserted ones, mostly a few distinct syncs)
            key = id(stmt)
            if key in known:
                continue
            if type(stmt) in (AssignStmt, EvalStmt):  # no statement below: the plain walk
                known[key] = walk(stmt)
            else:
                sub: list[IRNode] = []
                _copy_walk(stmt, known, sub)
                known[key] = sub
        out += itertools.chain.from_iterable(map(known.__getitem__, ids))
        return
    for name in _node_fields(cls):
        value = getattr(node, name)
        if isinstance(value, AttrsBase) and (not value.__pydantic_fields_set__ or plain_attrs(value)):
            continue  # most attrs hold no node (see walk)
        children: list[IRNode] = []
        push_value(value, children)
        for child in children:
            found = known.get(id(child))
            if found is not None:
                out += found
            elif _REVERSED_FIELDS.get(type(child)) == ():  # a leaf of a class walked before (a variable)
                out.append(child)
            else:
                _copy_walk(child, known, out)
    if cls is ForStmt or cls is WhileStmt:  # a loop's init values follow its fields (see walk)
        for ia in node.iter_args:
            out += walk(ia.initValue)


def clear_function_indexes() -> None:
    """Forget every cached index (benchmarks measure cold checks)."""
    _INDEX.clear()
    _BY_BODY.clear()
