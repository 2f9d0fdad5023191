"""Fresh aliases for re-assigned names (docs/jit.md#specialisation): a name assigned again at the depth of
its first assignment (parameters count as depth 0; each ``for``/``while``/``if``/``with`` body is one
deeper) becomes ``<name>_v1``, ``<name>_v2``, ... from there on, so a new value may have a new type.
A re-assignment deeper down keeps the current name (a loop-carried or branch-merged value), except
that a same-depth name a ``for`` body writes before reading, and nothing reads after the loop, is a
fresh local of the loop (so its value there may have a new type); names first bound in a
then-branch are forgotten before its else-branch. Errors raised after
specialisation name the user's variables again (:func:`errors_in_user_names`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager


class Aliases(ast.NodeTransformer):
    """Renames one function's re-assigned names in place; ``original`` maps each alias back."""

    def __init__(self, node: ast.FunctionDef) -> None:
        self.taken = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {a.arg for a in node.args.args}
        self.current: dict[str, str] = {a.arg: a.arg for a in node.args.args}
        self.depth_of: dict[str, int] = {a.arg: 0 for a in node.args.args}
        self.original: dict[str, str] = {}
        self.depth = 0
        self.rest: list[list[ast.stmt]] = []  # per enclosing block, the statements after the current one

    def run(self, node: ast.FunctionDef) -> None:
        node.body = self._block(node.body)

    def _block(self, stmts: Iterable[ast.stmt]) -> list[ast.stmt]:
        stmts = list(stmts)
        out = []
        for i, stmt in enumerate(stmts):
            self.rest.append(stmts[i + 1 :])
            try:
                out.append(self.visit(stmt))
            finally:
                self.rest.pop()
        return out

    def _fresh(self, name: str) -> str:
        k = 1
        while f"{name}_v{k}" in self.taken:
            k += 1
        alias = f"{name}_v{k}"
        self.taken.add(alias)
        self.original[alias] = self.original.get(name, name)
        return alias

    def _store(self, target: ast.expr) -> None:
        if isinstance(target, (ast.Subscript, ast.Attribute)):
            self.visit(target)  # ``t[i] = v`` writes into t's current value: its names are reads
            return
        if isinstance(target, (ast.Tuple, ast.List, ast.Starred)):
            for elt in target.elts if not isinstance(target, ast.Starred) else [target.value]:
                self._store(elt)
            return
        for n in ast.walk(target):
            if isinstance(n, ast.Name):
                name = n.id
                if name not in self.depth_of:
                    self.depth_of[name] = self.depth
                    self.current[name] = name
                elif self.depth_of[name] == self.depth:
                    self.current[name] = self._fresh(name)
                n.id = self.current[name]

    def _nested(self, body: list[ast.stmt]) -> list[ast.stmt]:
        self.depth += 1
        try:
            return self._block(body)
        finally:
            self.depth -= 1

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if isinstance(node.ctx, ast.Load) and node.id in self.current:
            node.id = self.current[node.id]
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.Assign:
        node.value = self.visit(node.value)
        for t in node.targets:
            self._store(t)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AnnAssign:
        if node.value is not None:
            node.value = self.visit(node.value)
        self._store(node.target)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AugAssign:
        node.value = self.visit(node.value)
        if isinstance(node.target, ast.Name) and node.target.id in self.current:
            node.target.id = self.current[node.target.id]  # read and written in place: same name
        return node

    def visit_For(self, node: ast.For) -> ast.For:
        node.iter = self.visit(node.iter)
        after = [s for block in reversed(self.rest) for s in block]
        for name in sorted(_written(node.body)):
            if (self.depth_of.get(name) == self.depth and _first_use(node.body, name) == "write"
                    and _first_use(after, name) != "read"):
                self.current[name] = self._fresh(name)  # a fresh local of the loop
        self.depth += 1
        self._store(node.target)
        self.depth -= 1
        node.body = self._nested(node.body)
        node.orelse = self._nested(node.orelse)
        return node

    def visit_While(self, node: ast.While) -> ast.While:
        node.test = self.visit(node.test)
        node.body = self._nested(node.body)
        node.orelse = self._nested(node.orelse)
        return node

    def visit_If(self, node: ast.If) -> ast.If:
        node.test = self.visit(node.test)
        before = set(self.depth_of)
        node.body = self._nested(node.body)
        for name in set(self.depth_of) - before:
            del self.depth_of[name]
            self.current.pop(name, None)
        node.orelse = self._nested(node.orelse)
        return node

    def visit_With(self, node: ast.With) -> ast.With:
        for item in node.items:
            item.context_expr = self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.depth += 1
                self._store(item.optional_vars)
                self.depth -= 1
        node.body = self._nested(node.body)
        return node


def _written(stmts: list[ast.stmt]) -> set[str]:
    return {n.id for s in stmts for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _first_use(nodes: Iterable[ast.AST], name: str) -> str | None:
    """``"write"`` when running ``nodes`` surely writes ``name`` before reading it, ``"read"`` when
    it may read it first, None when it does neither."""
    for node in nodes:
        use = _use(node, name)
        if use is not None:
            return use
    return None


def _use(node: ast.AST, name: str) -> str | None:
    if isinstance(node, ast.Name):
        return None if node.id != name else "read" if isinstance(node.ctx, ast.Load) else "write"
    if isinstance(node, ast.Assign):
        return _first_use([node.value, *node.targets], name)
    if isinstance(node, ast.AnnAssign):
        return _first_use([n for n in (node.value, node.target) if n is not None], name)
    if isinstance(node, ast.AugAssign):
        # ``a += v`` and ``a[i] += v`` read ``a`` before writing it
        target = ast.Name(node.target.id, ast.Load()) if isinstance(node.target, ast.Name) else node.target
        return _first_use([node.value, target], name)
    if isinstance(node, ast.For):
        head = _first_use([node.iter, node.target], name)
        return head or _maybe(_first_use([*node.body, *node.orelse], name))  # the body may not run
    if isinstance(node, ast.While):
        return _first_use([node.test], name) or _maybe(_first_use([*node.body, *node.orelse], name))
    if isinstance(node, ast.If):
        branches = {_first_use(node.body, name), _first_use(node.orelse, name)}
        return _first_use([node.test], name) or ("write" if branches == {"write"} else _maybe(*branches))
    return _first_use(ast.iter_child_nodes(node), name)


def _maybe(*uses: str | None) -> str | None:
    """What code that may not run does: a read if it uses the name at all (the old value may flow on)."""
    return "read" if any(uses) else None


def user_names(message: str, renamed: Mapping[str, str]) -> str:
    """``message`` with each alias (whole words, longest first) replaced by the user's name."""
    for alias in sorted(renamed, key=len, reverse=True):
        message = re.sub(rf"\b{re.escape(alias)}\b", renamed[alias], message)
    return message


def user_error(err: BaseException, renamed: Mapping[str, str]) -> BaseException | None:
    """A shallow copy of ``err`` (class and fields kept; a plain ``Exception`` if it cannot be copied)
    whose arguments, ``message``, ``hint`` and ``note`` name the user's variables instead of aliases;
    None when no text names an alias."""
    args = tuple(user_names(a, renamed) if isinstance(a, str) else a for a in err.args)
    texts = {f: getattr(err, f) for f in ("message", "hint", "note") if isinstance(getattr(err, f, None), str)}
    named = {f: user_names(t, renamed) for f, t in texts.items()}
    if args == err.args and named == texts:
        return None
    try:  # a copy without calling __init__, which need not take the exception's own args
        new = type(err).__new__(type(err), *args)
    except Exception:
        return Exception(*args)
    new.__dict__.update(err.__dict__)
    new.args = args
    for f, text in named.items():
        setattr(new, f, text)
    return new


@contextmanager
def errors_in_user_names(renamed: Mapping[str, str]) -> Iterator[None]:
    """Re-raise an error of the block that names an alias as :func:`user_error`'s copy, ``from`` the original."""
    try:
        yield
    except Exception as err:
        new = user_error(err, renamed)
        if new is None:
            raise
        raise new from err
