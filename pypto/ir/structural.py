"""Structural equality and hashing of IR nodes and types (docs/ir.md#structural-equality).

Two trees are structurally equal when they have the same node kinds and field values, ignoring
spans, ``Var.name_hint``, statement comments, ``Function.name``, ``Program.name``, ``Var.unique_id``
and the MemRef of tensor/tile types, with variables matched through a bijective map:

* at a *def position* (``AssignStmt.var``, ``IfStmt.return_vars``, ``ForStmt.loop_var`` /
  ``iter_args`` / ``return_vars``, ``WhileStmt.iter_args`` / ``return_vars``, ``Function.params``)
  an unmapped pair is recorded (their types must match; free variables inside those types, the
  dynamic dimensions, are defined there too);
* at a use position the pair must already be mapped to each other, or be the same object, unless
  ``enable_auto_mapping`` maps any unmapped pair of equally typed variables on first sight.

Both traversals use an explicit stack (no recursion limit on deep trees) and visit children in the
same order, so that def-before-use holds for both sides; the hash is computed from the same walk as
a flat token stream, hence equal trees hash alike.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

from . import hooks
from .datatype import DataType
from .errors import PyptoError
from .expr import ConstInt, IterArg, Var
from .function import Function, Program
from .memref import MemRef
from .node import IRNode, ModelBase
from .stmt import ForStmt, SeqStmts, Stmt, WhileStmt
from .type_base import ScalarType, Type
from .types import ShapedType

# Item modes: bit flags carried by each pending comparison.
_USE = 0
_DEF = 1  # a def position: unmapped variables (and those in their types) get mapped
_LOOP_VAR = 2  # ForStmt.loop_var: its ScalarType treats INDEX and INT64 as equal
_IDX64 = 4  # on a ScalarType: compare INDEX and INT64 as equal
# Attr keys whose value a node defines: a scope's ``as tid`` TaskId (``attrs["task_id_var"]``).
_DEF_KEYS = frozenset({"task_id_var"})

# The while condition reads the iter_args, so they are bound first.
_FIELD_ORDER: dict[type, tuple[str, ...]] = {WhileStmt: ("iter_args", "condition", "body", "return_vars")}
_MEMREF_FIELDS = ("base_", "byte_offset_", "size_", "is_pinned_", "slot_count_", "slot_index_")


@functools.cache
def _plan(cls: type[ModelBase]) -> tuple[tuple[str, int], ...] | None:
    """The compared fields of ``cls`` with their modes, in comparison order; None for an attrs model,
    which compares as a map (like a dict)."""
    if cls._mapping:
        return None
    ignored = {"span", "unique_id", *cls._derived}
    if issubclass(cls, Stmt):
        ignored.add("leading_comments")
    if issubclass(cls, Var):
        ignored.add("name_hint")
    if issubclass(cls, (Function, Program)):
        ignored.add("name")
    if issubclass(cls, ShapedType):
        ignored.add("memref")
    names = [n for n in cls.model_fields if n not in ignored]
    for base, order in _FIELD_ORDER.items():
        if issubclass(cls, base):
            names = list(order) + [n for n in names if n not in order]
    roles = dict.fromkeys(cls._defs, _DEF)
    if issubclass(cls, ForStmt):
        roles["loop_var"] |= _LOOP_VAR
    return tuple((n, roles.get(n, _USE)) for n in names)


def _norm_dtype(dtype: Any) -> Any:
    return DataType.INT64 if dtype is DataType.INDEX else dtype


def _leaf_equal(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if a == b:
        return True
    return isinstance(a, float) and math.isnan(a) and math.isnan(b)


class _Mismatch(Exception):
    """Internal: the first difference found, with its path (a linked list of accessors)."""

    def __init__(self, path: Any, reason: str) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason


def _name(v: Var) -> str:
    return f"'{v.name_hint}'" if v.name_hint else f"<{type(v).__name__} #{v.unique_id}>"


class _Equal:
    """One structural comparison: the bijective var map and the work stack."""

    def __init__(self, auto: bool, track: bool) -> None:
        self.auto = auto
        self.track = track
        self.l2r: dict[int, Var] = {}
        self.r2l: dict[int, Var] = {}

    def run(self, lhs: Any, rhs: Any) -> None:
        track = self.track
        stack: list[tuple[Any, Any, int, Any]] = [(lhs, rhs, _USE, None)]
        push = stack.append
        while stack:
            l, r, mode, path = stack.pop()
            if isinstance(l, ModelBase):
                if isinstance(l, Var):
                    self._var(l, r, mode, path, push)
                    continue
                if l is r and not (mode & _DEF or self.auto):
                    continue
                cls = type(l)
                if type(r) is not cls:
                    raise _Mismatch(path, _kind_reason(l, r))
                if cls is ConstInt:
                    if l.value != r.value or _norm_dtype(l.dtype) is not _norm_dtype(r.dtype):
                        raise _Mismatch(path, f"constants differ: {l.value} ({l.dtype}) vs {r.value} ({r.dtype})")
                    continue
                if cls is ScalarType and mode & _IDX64:
                    if _norm_dtype(l.dtype) is not _norm_dtype(r.dtype):
                        raise _Mismatch(path, f"scalar dtypes differ: {l.dtype} vs {r.dtype}")
                    continue
                if cls is Program:
                    lf, rf = list(l.functions.values()), list(r.functions.values())
                    if len(lf) != len(rf):
                        raise _Mismatch(path, f"programs have {len(lf)} vs {len(rf)} functions")
                    for i in range(len(lf) - 1, -1, -1):
                        push((lf[i], rf[i], _USE, (path, "func", (i, lf[i].name)) if track else None))
                    continue
                plan = _plan(cls)
                if plan is None:
                    self._map(l, r, mode, path, push)
                    continue
                inherited = mode & _DEF
                seq = cls is SeqStmts
                for name, fmode in reversed(plan):
                    child_path = None
                    if track:
                        child_path = path if seq else (path, "attr", name)
                    push((getattr(l, name), getattr(r, name), fmode | inherited, child_path))
            elif isinstance(l, (list, tuple)):
                if type(r) is not type(l):
                    raise _Mismatch(path, _kind_reason(l, r))
                if len(l) != len(r):
                    raise _Mismatch(path, f"lengths differ: {len(l)} vs {len(r)}")
                for i in range(len(l) - 1, -1, -1):
                    push((l[i], r[i], mode, (path, "index", i) if track else None))
            elif isinstance(l, dict):
                if not isinstance(r, dict):
                    raise _Mismatch(path, _kind_reason(l, r))
                self._map(l, r, mode, path, push)
            elif not _leaf_equal(l, r):
                reason = _kind_reason(l, r) if type(l) is not type(r) else f"values differ: {l!r} vs {r!r}"
                raise _Mismatch(path, reason)

    def _map(self, l: Mapping[Any, Any], r: Mapping[Any, Any], mode: int, path: Any, push: Any) -> None:
        """Two dicts, or two attrs models: the same keys, and equal values pushed in key order."""
        if l.keys() != r.keys():
            only_l = sorted(map(str, l.keys() - r.keys()))
            only_r = sorted(map(str, r.keys() - l.keys()))
            raise _Mismatch(path, f"keys differ: only in lhs {only_l}, only in rhs {only_r}")
        track = self.track
        for key in reversed(_sorted_keys(l)):
            kmode = mode | _DEF if key in _DEF_KEYS else mode
            push((l[key], r[key], kmode, (path, "key", key) if track else None))

    def _var(self, l: Var, r: Any, mode: int, path: Any, push: Any) -> None:
        if type(r) is not type(l):
            raise _Mismatch(path, _kind_reason(l, r))
        mapped = self.l2r.get(id(l))
        if mapped is not None:
            if mapped is not r:
                raise _Mismatch(path, f"variable {_name(l)} is mapped to {_name(mapped)}, not to {_name(r)}")
            return
        back = self.r2l.get(id(r))
        if back is not None:
            raise _Mismatch(path, f"variable {_name(r)} is already mapped to {_name(back)}, not to {_name(l)}")
        if not (mode & _DEF or self.auto or l is r or isinstance(l, MemRef)):
            raise _Mismatch(
                path,
                f"variables {_name(l)} and {_name(r)} are not mapped to each other "
                "(a free variable equals only itself unless enable_auto_mapping=True)",
            )
        self.l2r[id(l)] = r
        self.r2l[id(r)] = l
        track = self.track
        if isinstance(l, MemRef):
            for name in reversed(_MEMREF_FIELDS):
                push((getattr(l, name), getattr(r, name), mode & _DEF, (path, "attr", name) if track else None))
            return
        if isinstance(l, IterArg):
            push((l.initValue, r.initValue, _USE, (path, "attr", "initValue") if track else None))
        type_mode = (mode & _DEF) | (_IDX64 if mode & _LOOP_VAR else 0)
        push((l.type, r.type, type_mode, (path, "attr", "type") if track else None))


def _sorted_keys(d: Mapping[Any, Any]) -> list[Any]:
    keys = list(d)
    try:
        return sorted(keys)
    except TypeError:
        return sorted(keys, key=repr)


def _kind_reason(l: Any, r: Any) -> str:
    if l is None or r is None:
        side = "lhs" if l is None else "rhs"
        other = r if l is None else l
        return f"{side} is None, the other side is {type(other).__name__}"
    return f"node kinds differ: {type(l).__name__} vs {type(r).__name__}"


def structural_equal(lhs: Any, rhs: Any, enable_auto_mapping: bool = False) -> bool:
    """True when ``lhs`` and ``rhs`` (IR nodes, types or views) have the same structure (§7)."""
    try:
        _Equal(enable_auto_mapping, track=False).run(lhs, rhs)
    except _Mismatch:
        return False
    return True


class StructuralEqualityError(PyptoError, ValueError):
    """Raised by :func:`assert_structural_equal`; the message shows path, both sides and reason."""


def assert_structural_equal(lhs: Any, rhs: Any, enable_auto_mapping: bool = False) -> None:
    """Raise ``ValueError`` describing the first difference when ``lhs`` and ``rhs`` differ.

    The message reads ``Structural equality assertion failed at: <path>`` (``SeqStmts`` and
    ``Program`` are transparent: ``['main'].body[1].value``), then the innermost differing IR
    nodes of both sides printed as DSL text, then ``Reason: ...``.
    """
    try:
        _Equal(enable_auto_mapping, track=True).run(lhs, rhs)
    except _Mismatch as m:
        steps = _unlink(m.path)
        left, right = _innermost(lhs, steps), _innermost(rhs, steps)
        raise StructuralEqualityError(
            f"Structural equality assertion failed at: {_render_path(steps)}\n"
            f"lhs:\n{_show(left)}\n"
            f"rhs:\n{_show(right)}\n"
            f"Reason: {m.reason}"
        ) from None


def _unlink(path: Any) -> list[tuple[str, Any]]:
    steps = []
    while path is not None:
        path, kind, key = path
        steps.append((kind, key))
    steps.reverse()
    return steps


def _render_path(steps: list[tuple[str, Any]]) -> str:
    parts = []
    for kind, key in steps:
        if kind == "attr":
            parts.append(f".{key}")
        elif kind == "index":
            parts.append(f"[{key}]")
        elif kind == "func":
            parts.append(f"[{key[1]!r}]")
        else:
            parts.append(f"[{key!r}]")
    text = "".join(parts)
    return text[1:] if text.startswith(".") else text or "<root>"


def _step(obj: Any, kind: str, key: Any) -> Any:
    if kind == "attr":
        return getattr(obj, key)
    if kind == "func":
        return list(obj.functions.values())[key[0]]
    if kind == "index" and isinstance(obj, SeqStmts):
        return obj.stmts[key]
    return obj[key]


def _innermost(root: Any, steps: list[tuple[str, Any]]) -> Any:
    """The deepest IR object on the path (the differing value itself when it is one)."""
    best, obj = root, root
    for kind, key in steps:
        obj = _step(obj, kind, key)
        if (isinstance(obj, ModelBase) and not obj._mapping) or obj is None:  # attrs models are containers
            best = obj
    return best


def _show(value: Any) -> str:
    """DSL text of an IR object, or a field dump when the printer is unavailable (imported lazily)."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if not isinstance(value, ModelBase):
        return repr(value)
    try:
        from . import printer
    except ImportError:
        printer = None
    if isinstance(value, Type) and hasattr(printer, "python_print_type"):
        return printer.python_print_type(value)
    if isinstance(value, IRNode) and hasattr(printer, "python_print"):
        return printer.python_print(value)
    fields = ", ".join(f"{n}={_show(getattr(value, n))}" for n, _ in _plan(type(value)))
    return f"{type(value).__name__}({fields})"


class _Hasher:
    """One structural hash: walks like ``_Equal`` and collects a flat token stream."""

    def __init__(self, auto: bool) -> None:
        self.auto = auto
        self.var_ids: dict[int, int] = {}
        self.count = 0

    def run(self, root: Any) -> int:
        tokens: list[Any] = []
        emit = tokens.append
        stack: list[tuple[Any, int]] = [(root, _USE)]
        push = stack.append
        while stack:
            v, mode = stack.pop()
            if isinstance(v, ModelBase):
                cls = type(v)
                emit(cls.__name__)
                if isinstance(v, Var):
                    self._var(v, mode, emit, push)
                elif cls is ConstInt:
                    emit(v.value)
                    emit(_norm_dtype(v.dtype))
                elif cls is ScalarType and mode & _IDX64:
                    emit(_norm_dtype(v.dtype))
                elif cls is Program:
                    funcs = list(v.functions.values())
                    emit(len(funcs))
                    for f in reversed(funcs):
                        push((f, _USE))
                else:
                    plan = _plan(cls)
                    if plan is None:
                        _push_map(v, mode, emit, push)
                        continue
                    inherited = mode & _DEF
                    for name, fmode in reversed(plan):
                        push((getattr(v, name), fmode | inherited))
            elif isinstance(v, (list, tuple)):
                emit(len(v))
                for item in reversed(v):
                    push((item, mode))
            elif isinstance(v, dict):
                _push_map(v, mode, emit, push)
            elif isinstance(v, float) and math.isnan(v):
                emit("nan")
            else:
                emit(v)
        return hash(tuple(tokens))

    def _var(self, v: Var, mode: int, emit: Any, push: Any) -> None:
        known = self.var_ids.get(id(v))
        if known is not None:
            emit(known)
            return
        if isinstance(v, MemRef):
            for name in reversed(_MEMREF_FIELDS):
                push((getattr(v, name), mode & _DEF))
            return
        if not (mode & _DEF or self.auto):
            self.var_ids[id(v)] = -1 - v.unique_id
            emit(-1 - v.unique_id)
            return
        self.count += 1
        self.var_ids[id(v)] = self.count
        emit(self.count)
        if isinstance(v, IterArg):
            push((v.initValue, _USE))
        push((v.type, (mode & _DEF) | (_IDX64 if mode & _LOOP_VAR else 0)))


def _push_map(v: Mapping[Any, Any], mode: int, emit: Any, push: Any) -> None:
    """Hash tokens of a dict or an attrs model: its size, then each key and value in key order."""
    keys = _sorted_keys(v)
    emit(len(keys))
    for key in reversed(keys):
        push((v[key], mode | _DEF if key in _DEF_KEYS else mode))
        push((key, _USE))


def structural_hash(node: Any, enable_auto_mapping: bool = False) -> int:
    """A hash of ``node``'s structure: ``structural_equal(a, b, m)`` implies equal hashes for mode ``m``.

    Spans and names are ignored; variables bound at def positions (and, with auto mapping, every
    variable) hash by their order of first occurrence, other variables by ``unique_id``.
    """
    return _Hasher(enable_auto_mapping).run(node)


# Type.__eq__ / __hash__ in the core (which this module builds on) call these.
hooks.structural_equal = structural_equal
hooks.structural_hash = structural_hash

__all__ = ["StructuralEqualityError", "assert_structural_equal", "structural_equal", "structural_hash"]
