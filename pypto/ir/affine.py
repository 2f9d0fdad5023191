"""Index expressions in a canonical affine form: a constant plus a sum of ``coefficient * atom``.

An atom is any INDEX / INT64 subexpression that is not a sum, a difference, a negation or a product
with a constant: a variable, ``i // 2``, ``pl.min(a, b)``, a product of two variables, ... Two atoms
are the same when they are structurally equal (a free variable equals only itself). So
``c + 128 - (c + 64)`` is the constant 64 and ``(i + 1) * 64 - i * 64`` is 64.

This is the one notion of "provably equal index expressions": the parser's slice extents, the shape
rules' dimension comparisons and the Simplify pass all read it. Arithmetic is that of unbounded
integers; INDEX and INT64 are 64-bit, so the identities used (commutativity, distributivity,
cancellation) hold for their wrapping arithmetic too. Other dtypes are atoms, never rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass

from .datatype import DataType
from .expr import Add, BinaryExpr, ConstInt, Expr, Mul, Neg, Sub, UnaryExpr, Var
from .structural import structural_equal, structural_hash

_INDEX_LIKE = frozenset({DataType.INDEX, DataType.INT64})


class _Atom:
    """An atom as a dict key: variables by identity, other expressions structurally."""

    __slots__ = ("expr", "_hash")

    def __init__(self, expr: Expr) -> None:
        self.expr = expr
        self._hash = hash(expr) if isinstance(expr, Var) else structural_hash(expr)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Atom):
            return NotImplemented
        a, b = self.expr, other.expr
        if a is b:
            return True
        return not isinstance(a, Var) and not isinstance(b, Var) and structural_equal(a, b)


@dataclass(frozen=True)
class Affine:
    """``constant + sum(coefficient * atom)``; terms keep their first appearance order, none is zero."""

    terms: dict[_Atom, int]
    constant: int

    def constant_value(self) -> int | None:
        """The value when no atom is left, else None."""
        return None if self.terms else self.constant


def _combine(a: Affine, b: Affine, sign: int) -> Affine:
    terms = dict(a.terms)
    for atom, k in b.terms.items():
        total = terms.get(atom, 0) + sign * k
        if total:
            terms[atom] = total
        else:
            terms.pop(atom, None)
    return Affine(terms, a.constant + sign * b.constant)


def _scale(a: Affine, k: int) -> Affine:
    if k == 0:
        return Affine({}, 0)
    return Affine({atom: c * k for atom, c in a.terms.items()}, a.constant * k)


def _index_like(e: Expr) -> bool:
    return isinstance(e, (BinaryExpr, UnaryExpr, ConstInt)) and e.dtype in _INDEX_LIKE


def _operands(e: Expr) -> tuple[Expr, ...]:
    """The operands the form of ``e`` is built from (none for an atom or a constant)."""
    if not _index_like(e):
        return ()
    if isinstance(e, (Add, Sub, Mul)):
        return e.left, e.right
    if isinstance(e, Neg):
        return (e.operand,)
    return ()


Memo = dict[int, tuple[Expr, Affine]]
"""Forms already computed, by ``id`` of the expression (kept alive beside its form)."""


def affine_form(e: Expr, memo: Memo | None = None) -> Affine:
    """The canonical affine form of an integer expression (bottom-up with a stack: expressions may be deep).

    ``memo`` shares the forms of subexpressions between calls (a pass folding bottom-up).
    """
    known: Memo = {} if memo is None else memo
    todo: list[tuple[Expr, bool]] = [(e, False)]
    while todo:
        node, ready = todo.pop()
        if id(node) in known:
            continue
        operands = _operands(node)
        if operands and not ready:
            todo.append((node, True))
            todo.extend((x, False) for x in operands)
            continue
        form = _form(node, [known[id(x)][1] for x in operands])
        known[id(node)] = node, form
    return known[id(e)][1]


def _form(node: Expr, operands: list[Affine]) -> Affine:
    """The form of ``node`` from those of its operands (none for an atom or a constant)."""
    if not operands:
        if isinstance(node, ConstInt) and node.dtype in _INDEX_LIKE:
            return Affine({}, node.value)
        return Affine({_Atom(node): 1}, 0)
    if isinstance(node, Add):
        return _combine(operands[0], operands[1], 1)
    if isinstance(node, Sub):
        return _combine(operands[0], operands[1], -1)
    if isinstance(node, Neg):
        return _scale(operands[0], -1)
    left, right = operands  # a product: affine when one side is a constant
    if left.terms and right.terms:
        return Affine({_Atom(node): 1}, 0)
    return _scale(right, left.constant) if not left.terms else _scale(left, right.constant)


def affine_difference(a: Expr, b: Expr) -> int | None:
    """``a - b`` when it is a constant whatever the variables hold, else None."""
    if a is b:
        return 0
    if isinstance(a, ConstInt) and isinstance(b, ConstInt):
        return a.value - b.value
    if isinstance(a, Var) and isinstance(b, (Var, ConstInt)) or isinstance(b, Var) and isinstance(a, ConstInt):
        return None  # different atoms, or an atom and a constant: never provably equal
    return _combine(affine_form(a), affine_form(b), -1).constant_value()


def provably_equal(a: Expr, b: Expr) -> bool:
    """Whether ``a == b`` whatever the variables hold (by their affine forms)."""
    return affine_difference(a, b) == 0


def _size(e: Expr) -> int:
    """Node count of the arithmetic skeleton of ``e`` (atoms count 1)."""
    count, todo = 0, [e]
    while todo:
        node = todo.pop()
        count += 1
        todo.extend(_operands(node))
    return count


def _build(form: Affine, dtype: DataType, like: Expr) -> Expr:
    span = like.span
    out: Expr | None = None
    for atom, k in form.terms.items():
        magnitude = abs(k) if out is not None else k
        piece = atom.expr if magnitude == 1 else Mul(atom.expr, ConstInt(magnitude, dtype, span), dtype, span)
        if out is None:
            out = piece
        else:
            out = (Add if k > 0 else Sub)(out, piece, dtype, span)
    if out is None:
        return ConstInt(form.constant, dtype, span)
    if form.constant:
        out = (Add if form.constant > 0 else Sub)(out, ConstInt(abs(form.constant), dtype, span), dtype, span)
    return out


def simplify_index(e: Expr, memo: Memo | None = None) -> Expr:
    """``e`` in canonical form when that is smaller (a constant, or with terms cancelled), else ``e``."""
    if not _operands(e):
        return e
    form = affine_form(e, memo)
    if not form.terms:
        return ConstInt(form.constant, e.dtype, e.span)
    canonical = _build(form, e.dtype, e)
    return canonical if _size(canonical) < _size(e) else e
