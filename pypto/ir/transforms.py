"""Small IR helpers shared by passes (docs/ir.md#visitors): flattening, def collection, yield lookup,
variable substitution, deep cloning and a statement-parent map.

Substitution, cloning and the statement rewriting of ``pypto.passes`` all run on one traversal
kernel, :func:`transform` (iterative, memoised, copy-on-write through
:func:`pypto.ir.traversal.map_children`); substitution and cloning also rewrite the expressions
inside types (``Call.type`` shapes, views). Variables are identities: a
variable is replaced only through the mapping, never rebuilt because its type mentions a
replaced variable, except that an ``IterArg`` whose ``initValue`` changes becomes a new IterArg
used consistently afterwards.
"""

from __future__ import annotations

import operator
from types import UnionType
from typing import Any, Callable, Iterator, Mapping, TypeVar, Union, get_args, get_origin

from .errors import IRTypeError
from .expr import BinaryExpr, Call, Expr, IterArg, MakeTuple, Submit, UnaryExpr, Var
from .function import Function, Program
from .memref import MemRef
from .node import ModelBase, copy_node, replace
from .parts import copy_parts
from .stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, ReturnStmt, ScopeStmt, SeqStmts, Stmt, WhileStmt, YieldStmt
from .traversal import _map_value, child_fields, iter_children, iter_value, map_children
from .type_base import TupleType, Type
from .types import TensorType, TensorView, TileType, TileView

T = TypeVar("T", bound=ModelBase)


def _leaf_classes(base: type) -> list[type]:
    """The classes below ``base`` that have no subclass (the concrete node classes)."""
    out, todo = [], [base]
    while todo:
        cls = todo.pop()
        subs = cls.__subclasses__()
        todo.extend(subs)
        if not subs:
            out.append(cls)
    return out


def flatten_to_stmts(stmt: Stmt) -> list[Stmt]:
    """The statements of ``stmt`` with every nested ``SeqStmts`` spliced in (a non-block gives ``[stmt]``)."""
    if type(stmt) is SeqStmts:
        if SeqStmts not in map(type, stmt.stmts):  # already flat (most blocks): one scan in C
            return list(stmt.stmts)
    elif not isinstance(stmt, SeqStmts):
        return [stmt]
    out: list[Stmt] = []
    todo = [stmt]
    while todo:
        s = todo.pop()
        if isinstance(s, SeqStmts):
            todo.extend(reversed(s.stmts))
        else:
            out.append(s)
    return out


def walk(root: ModelBase) -> Iterator[ModelBase]:
    """Every IR object below ``root`` (pre-order, each shared object once); variables are leaves."""
    seen: set[int] = set()
    todo = [root]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if not isinstance(node, Var):
            todo.extend(reversed(list(iter_children(node))))


def collect_def_vars(node: ModelBase) -> list[Var]:
    """Every variable bound at a def position inside ``node`` (assignment targets, loop variables,
    iter_args, return_vars, function parameters) in binding order (a loop's return_vars after its
    body), each once."""
    out: list[Var] = []
    seen: set[int] = set()
    visited: set[int] = set()
    todo: list[ModelBase] = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, Var):  # a def position's variable (only those are pushed)
            if id(n) not in seen:
                seen.add(id(n))
                out.append(n)
            continue
        if id(n) in visited:
            continue
        visited.add(id(n))
        defs = type(n)._defs
        # Only statements, functions and programs bind variables: expressions, types and attrs
        # below them hold no def position, so the walk does not enter them.
        for name in reversed(child_fields(type(n))):
            value = getattr(n, name)
            if name in defs:
                todo.extend(v for v in reversed(list(iter_value(value))) if isinstance(v, Var))
            elif isinstance(value, _BINDERS):
                todo.append(value)
            elif type(value) is list or type(value) is dict:
                todo.extend(c for c in reversed(list(iter_value(value))) if isinstance(c, _BINDERS))
    return out


# The node classes that may bind variables below them.
_BINDERS = (Stmt, Function, Program)


def _block_items(stmt: Stmt) -> list[Stmt]:
    """The statements of a block, looking through SeqStmts and scopes (which are not control flow)."""
    while isinstance(stmt, ScopeStmt):
        stmt = stmt.body
    return list(stmt.stmts) if isinstance(stmt, SeqStmts) else [stmt]


def find_yield_stmt(stmt: Stmt) -> YieldStmt | None:
    """The first ``YieldStmt`` of a block, searching through SeqStmts and scopes but not into
    nested ``if``/``for``/``while`` (their yields belong to them); None if there is none."""
    todo = [stmt]
    while todo:
        s = todo.pop()
        if isinstance(s, YieldStmt):
            return s
        if isinstance(s, (SeqStmts, ScopeStmt)):
            todo.extend(reversed(_block_items(s)))
    return None


def get_last_yield_stmt(stmt: Stmt) -> YieldStmt | None:
    """The yield ending a block (through SeqStmts and scopes), or None if the block ends otherwise."""
    while True:
        if isinstance(stmt, YieldStmt):
            return stmt
        if not isinstance(stmt, (SeqStmts, ScopeStmt)):
            return None
        items = _block_items(stmt)
        if not items:
            return None
        stmt = items[-1]


Enter = Callable[[Any], Any]
Leave = Callable[[Any, Any], Any]


def transform(
    root: Any,
    enter: Enter | None = None,
    leave: Leave | None = None,
    *,
    types: bool = True,
    memo: dict[int, Any] | None = None,
    rebuild: Callable[[Any, Callable[[Any], Any]], Any] = map_children,
) -> Any:
    """The traversal kernel: ``root`` rewritten bottom-up, without recursion.

    Every substitution, clone and pass rewrite of this package runs on it. For each IR object below
    ``root`` (each shared object once, through ``memo``), ``enter(node)`` is asked first: a result
    other than None replaces the node and its subtree is not entered. Otherwise the node's children
    are rewritten, the node is rebuilt from them only if one changed (:func:`map_children`, so an
    untouched subtree comes back as the same object), and ``leave(node, rebuilt)`` gives the final
    result. Variables are leaves (``enter`` decides about them); ``types=False`` keeps types as
    they are. ``rebuild`` is :func:`map_children` or a variant of it (see :func:`deep_clone`). An
    explicit stack replaces recursion, so depth costs no Python frames.
    """
    done: dict[int, Any] = {} if memo is None else memo
    lookup = lambda child: done.get(id(child), child)  # noqa: E731
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        key = id(node)
        if not expanded:
            if key in done:
                continue
            if enter is not None:
                replaced = enter(node)
                if replaced is not None:
                    done[key] = replaced
                    continue
            if isinstance(node, Var):
                done[key] = node
                continue
            kids = [c for c in iter_children(node) if id(c) not in done and (types or not isinstance(c, Type))]
            if kids:
                stack.append((node, True))
                stack.extend((c, False) for c in reversed(kids))
                continue
        new = rebuild(node, lookup)
        done[key] = new if leave is None else leave(node, new)
    return done[id(root)]


def def_vars(node: ModelBase) -> list[Var]:
    """The variables ``node`` itself binds (its ``_defs`` fields: assignment target, loop variable,
    iter_args, return_vars, parameters), not those of nested statements."""
    out: list[Var] = []
    for name in type(node)._defs:
        value = getattr(node, name)
        if isinstance(value, Var):  # an assignment's target, a loop variable
            out.append(value)
        else:
            out.extend(v for v in iter_value(value) if isinstance(v, Var))
    return out


class _Substitution:
    """Variable substitution on the kernel; ``fresh`` vars get new copies wherever they occur."""

    def __init__(self, mapping: Mapping[Var, Expr], copy_all: bool, types: bool = True,
                 rebuild: Callable[[Any, Callable[[Any], Any]], Any] = map_children) -> None:
        for key, value in mapping.items():
            if not isinstance(key, Var) or not isinstance(value, Expr):
                raise IRTypeError(
                    f"substitution mapping must be Var -> Expr, got {type(key).__name__} -> {type(value).__name__}"
                )
        self.map: dict[int, Expr] = {id(k): v for k, v in mapping.items()}
        self.copy_all = copy_all
        self.types = types
        self.fresh: dict[int, Callable[[Var], str]] = {}
        self.memo: dict[int, Any] = {}
        self.rebuild = rebuild

    def __call__(self, node: Any) -> Any:
        return transform(node, self.enter, self.leave, types=self.types, memo=self.memo, rebuild=self.rebuild)

    def enter(self, node: Any) -> Any:
        if isinstance(node, Var):
            return self.var(node)
        if isinstance(node, WhileStmt):
            for arg in node.iter_args:  # bound before the condition that reads them
                self.var(arg)
        return None

    def leave(self, old: Any, new: Any) -> Any:
        if new is old and self.copy_all:
            if isinstance(old, (Stmt, Expr)):  # no variable: enter() handles those
                return copy_node(old)  # the same fields, already validated
            if isinstance(old, (Function, Program)):
                return replace(old)
        return new

    def var(self, v: Var) -> Expr:
        key = id(v)
        known = self.map.get(key)
        if known is not None:
            return known
        name = self.fresh.get(key)
        if name is not None:
            new = self.fresh_var(v, name(v))
        elif isinstance(v, IterArg):
            init = self(v.initValue)
            new = v if init is v.initValue else IterArg(v.name_hint, v.type, init, v.span)
        else:
            return v
        self.map[key] = new
        return new

    def fresh_var(self, v: Var, name: str) -> Var:
        """A new variable standing for ``v``: type rewritten, IterArg init rewritten."""
        if isinstance(v, MemRef):
            return MemRef(
                name_hint=name,
                base_=self(v.base_),
                byte_offset_=self(v.byte_offset_),
                size_=v.size_,
                is_pinned_=v.is_pinned_,
                slot_count_=v.slot_count_,
                slot_index_=v.slot_index_,
                span=v.span,
            )
        vtype = self(v.type)
        if isinstance(v, IterArg):
            return IterArg(name, vtype, self(v.initValue), v.span)
        if type(v) is Var and type(vtype) is type(v.type):  # a validated variable's parts: no validation
            return copy_parts(v, {"name_hint": name, "type": vtype})
        return type(v)(name, vtype, v.span)


def substitute_expr(expr: Expr, var_map: Mapping[Var, Expr]) -> Expr:
    """``expr`` with every occurrence of a mapped variable replaced (types included); unchanged
    subtrees are shared with the input."""
    return _Substitution(var_map, copy_all=False)(expr)


def substitute_stmt(stmt: Stmt, var_map: Mapping[Var, Expr]) -> Stmt:
    """``stmt`` with every occurrence of a mapped variable replaced, at uses and def positions alike."""
    return _Substitution(var_map, copy_all=False)(stmt)


def copy_binders(node: T, var_map: Mapping[Var, Expr], name: Callable[[Var], str], types: bool = False) -> T:
    """``node`` with ``var_map`` applied and each loop binder inside it (loop variable, iter_arg) a
    fresh variable called ``name(binder)``, so a copied loop gets binders of its own. Types are
    kept unless ``types``."""
    sub = _Substitution(var_map, copy_all=False, types=types)
    for loop in walk(node):
        if isinstance(loop, (ForStmt, WhileStmt)):
            binders = [loop.loop_var] if isinstance(loop, ForStmt) else []
            for var in binders + list(loop.iter_args):
                if id(var) not in sub.map:
                    sub.fresh[id(var)] = name
    return sub(node)


def _same_name(v: Var) -> str:
    return v.name_hint


# Node classes whose constructor only validates the fields and derives nothing from a child: a copy
# whose changed children are each of the class of the child they replace needs no validation (a
# Submit's constructor also checks its keywords and attrs, which such a copy keeps, and that
# sync_start has a core_num, which a copied core_num still is).
_PLAIN_COPIES = frozenset({
    AssignStmt, EvalStmt, SeqStmts, IfStmt, ForStmt, WhileStmt, YieldStmt, ReturnStmt, Call, Submit,
    *_leaf_classes(BinaryExpr), *_leaf_classes(UnaryExpr), *_leaf_classes(ScopeStmt),
})
# The tensor and tile types normalise their view against their shape (a valid_shape equal to it is
# dropped). With only fresh variables (no var_map) two different dimensions stay different, so a copy
# of a normalised type is normalised already; a var_map may send two variables to one (f(k, k)).
_PLAIN_FRESH_COPIES = _PLAIN_COPIES | {TensorType, TileType, TensorView, TileView}


def _renamed(node: Any, lookup: Callable[[Any], Any], plain: frozenset[type] = _PLAIN_COPIES) -> Any:
    """:func:`map_children` for a renaming copy (:func:`deep_clone` whose ``var_map``, if any, maps
    variables to variables of their class and type): every rebuilt child is a copy of the old one,
    its variables fresh ones of the same types, so a node of ``plain`` whose changed children
    keep their classes (lists their lengths), with its keywords and attrs unchanged, is copied
    without validating it again (the old one was valid)."""
    cls = type(node)
    if cls is MakeTuple:
        return _renamed_tuple(node, lookup)
    if cls not in plain:
        return map_children(node, lookup)
    changes: dict[str, Any] = {}
    for name in child_fields(cls):
        old = getattr(node, name)
        if type(old) is list:
            new = [lookup(x) for x in old]
            if any(a is not b for a, b in zip(new, old)):
                if any(type(a) is not type(b) or not isinstance(b, ModelBase) for a, b in zip(new, old)):
                    return map_children(node, lookup)
                changes[name] = new
        elif isinstance(old, ModelBase) and not old._mapping:
            new = lookup(old)
            if new is not old:
                if type(new) is not type(old):
                    return map_children(node, lookup)
                changes[name] = new
        elif old is not None and not (isinstance(old, ModelBase) and not old.__pydantic_fields_set__):
            if _map_value(old, lookup) is not old:  # keywords, attrs: validated again when changed
                return map_children(node, lookup)
    return copy_parts(node, changes) if changes else node


def copy_children(node: Any, lookup: Callable[[Any], Any]) -> Any:
    """:func:`map_children` without validating a copy that needs none: a node of a class whose
    constructor derives nothing from its children (calls, submits, operators, statements), whose
    changed children each keep the class of the child they replace (lists their lengths) and whose
    keywords and attrs are unchanged, is copied; anything else (a type, a child of another class)
    goes through its constructor. The rewrite framework rebuilds expressions with it."""
    return _renamed(node, lookup)


def _renamed_fresh(node: Any, lookup: Callable[[Any], Any]) -> Any:
    """:func:`_renamed` when every variable is fresh: types and views are copied too."""
    return _renamed(node, lookup, _PLAIN_FRESH_COPIES)


def _renamed_tuple(node: MakeTuple, lookup: Callable[[Any], Any]) -> Any:
    """:func:`_renamed` for a tuple, whose type is derived from its elements' types."""
    old = node.elements
    new = [lookup(x) for x in old]
    if all(map(operator.is_, new, old)):
        return node
    if any(type(a) is not type(b) for a, b in zip(new, old)):
        return map_children(node, lookup)
    types = [e.type for e in new]
    same = all(map(operator.is_, types, (e.type for e in old)))
    return copy_parts(node, {"elements": new, "type": node.type if same else TupleType(types)})


# How the fast clone reads a child field: one node (or None), a list of nodes, or anything else
# (a dict, an attrs model: mapped generically).
_ONE, _LIST, _OTHER = range(3)


def _is_node_class(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, ModelBase) and not tp._mapping


def _field_kind(annotation: Any) -> int:
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is list:
        return _LIST if len(args) == 1 and _is_node_class(args[0]) else _OTHER
    if origin is Union or origin is UnionType:
        return _ONE if all(a is type(None) or _is_node_class(a) for a in args) else _OTHER
    return _ONE if _is_node_class(annotation) else _OTHER


def _holds_nodes(value: dict[str, Any] | ModelBase) -> bool:
    """False for a dict or attrs model of plain values (most kwargs and attrs): nothing to map."""
    if isinstance(value, ModelBase) and not value.__pydantic_fields_set__:
        return False
    return any(isinstance(v, (ModelBase, list, tuple, dict)) for v in value.values())


class _Clone(_Substitution):
    """The substitution of :func:`deep_clone` for a renaming copy, walking the tree by recursion
    with a handler per node class instead of :func:`transform`'s generic child walk. It makes the
    same copies in the same order (fresh variables get the same ids) with the same sharing: a node
    is visited once, its children in field order, then rebuilt as the ``rebuild`` of
    :func:`transform` and ``leave`` would. Past a nesting depth it hands the subtree to
    :func:`transform`, whose explicit stack costs no Python frames."""

    # About three frames per level: 50 levels need ~150 free frames wherever a pass calls it (the
    # generic walk needs none), and trees of the examples nest less deeply.
    _MAX_DEPTH = 50

    def __init__(self, mapping: Mapping[Var, Expr], plain: frozenset[type]) -> None:
        super().__init__(mapping, copy_all=True,
                         rebuild=_renamed_fresh if plain is _PLAIN_FRESH_COPIES else _renamed)
        self.handlers = _CLONE_HANDLERS.setdefault(plain, {})
        self.plain = plain
        self.depth = 0
        memo = self.memo
        self.lookup = lambda child: memo.get(id(child), child)

    def __call__(self, node: Any) -> Any:
        key = id(node)
        done = self.memo.get(key)
        if done is not None:
            return done
        if self.depth > self._MAX_DEPTH:
            return super().__call__(node)
        handler = self.handlers.get(type(node))
        if handler is None:
            handler = self.handlers[type(node)] = _clone_handler(type(node), self.plain)
        self.depth += 1
        try:
            new = handler(self, node)
        finally:
            self.depth -= 1
        self.memo[key] = new
        return new


# Per set of plainly copied classes, the clone handler of each node class met.
_CLONE_HANDLERS: dict[frozenset[type], dict[type, Callable[[_Clone, Any], Any]]] = {}


def _clone_handler(cls: type, plain: frozenset[type]) -> Callable[[_Clone, Any], Any]:
    """How :class:`_Clone` copies a node of ``cls`` (the rules of ``_renamed`` and ``leave``)."""
    if issubclass(cls, Var):
        return _Clone.var
    fields = child_fields(cls)
    copied = issubclass(cls, (Stmt, Expr))  # ``leave`` copies these when nothing below changed
    if not fields and not issubclass(cls, (Function, Program)):
        return (lambda sub, node: copy_node(node)) if copied else (lambda sub, node: node)
    if cls is MakeTuple:
        def tuple_(sub: _Clone, node: MakeTuple) -> Any:
            for x in node.elements:
                sub(x)
            return sub.leave(node, _renamed_tuple(node, sub.lookup))
        return tuple_
    if cls not in plain:
        def generic(sub: _Clone, node: Any) -> Any:
            if isinstance(node, WhileStmt):  # its iter_args are bound first (``enter``)
                for arg in node.iter_args:
                    sub.var(arg)
            for child in iter_children(node):
                sub(child)
            return sub.leave(node, sub.rebuild(node, sub.lookup))
        return generic
    plan = [(name, _field_kind(cls.model_fields[name].annotation)) for name in fields]
    first = issubclass(cls, WhileStmt)

    def plain_(sub: _Clone, node: Any) -> Any:
        if first:
            for arg in node.iter_args:
                sub.var(arg)
        data = node.__dict__
        changes: dict[str, Any] = {}
        validate = False  # a child of another class, or a changed dict or attrs: the constructor
        for name, kind in plan:
            old = data[name]
            if kind == _ONE:
                if old is None:
                    continue
                new = sub(old)
                if new is not old:
                    validate = validate or type(new) is not type(old)
                    changes[name] = new
            elif kind == _LIST:
                new = [sub(x) for x in old]
                if not all(map(operator.is_, new, old)):
                    validate = validate or not all(map(operator.is_, map(type, new), map(type, old)))
                    changes[name] = new
            elif old is not None and _holds_nodes(old) and _map_value(old, sub) is not old:
                validate = True
        if validate:
            return map_children(node, sub.lookup)
        if changes:
            return copy_parts(node, changes)
        return copy_node(node) if copied else node
    return plain_


def deep_clone(node: T, var_map: Mapping[Var, Expr] | None = None) -> T:
    """A copy of ``node`` sharing no expression or statement with it, in which every variable
    defined inside ``node`` (see :func:`collect_def_vars`) is a fresh variable with the same name,
    used consistently at all its occurrences. Variables in ``var_map`` are replaced by their
    values (e.g. parameters by call arguments); other free variables, ops and unchanged types are
    kept. Sharing inside ``node`` is preserved in the copy."""
    # A variable replaced by one of its class and type object is as good as a fresh copy of it.
    renaming = not var_map or all(type(v) is type(k) and v.type is k.type for k, v in var_map.items())
    if renaming:
        sub: _Substitution = _Clone(var_map or {}, _PLAIN_FRESH_COPIES if not var_map else _PLAIN_COPIES)
    else:
        sub = _Substitution(var_map or {}, copy_all=True, rebuild=map_children)
    for var in collect_def_vars(node):
        if id(var) not in sub.map:
            sub.fresh[id(var)] = _same_name
    return sub(node)


class ParentStmtAnalysis:
    """Maps each statement to the statement that directly contains it (``SeqStmts`` included).

    ``ParentStmtAnalysis(root)`` or ``ParentStmtAnalysis()`` then ``build_map(root)`` with a
    Function, Program or Stmt. A statement shared by several parents reports the first one met.
    """

    def __init__(self, root: Function | Program | Stmt | None = None) -> None:
        self._parent: dict[int, Stmt] = {}
        self._keep: list[Stmt] = []
        if root is not None:
            self.build_map(root)

    def build_map(self, root: Function | Program | Stmt) -> None:
        """(Re)build the map for ``root``."""
        self._parent.clear()
        self._keep = []
        for node in walk(root):
            if isinstance(node, Stmt):
                self._keep.append(node)
                for child in iter_children(node):
                    if isinstance(child, Stmt) and id(child) not in self._parent:
                        self._parent[id(child)] = node

    def get_parent(self, stmt: Stmt) -> Stmt | None:
        """The statement directly containing ``stmt``; None for a top-level statement or an unknown one."""
        return self._parent.get(id(stmt))

    def has_parent(self, stmt: Stmt) -> bool:
        """True when ``stmt`` is contained in another statement of the analysed tree."""
        return id(stmt) in self._parent


__all__ = [
    "ParentStmtAnalysis",
    "collect_def_vars",
    "copy_binders",
    "copy_children",
    "deep_clone",
    "def_vars",
    "find_yield_stmt",
    "flatten_to_stmts",
    "get_last_yield_stmt",
    "substitute_expr",
    "substitute_stmt",
    "transform",
    "walk",
]
