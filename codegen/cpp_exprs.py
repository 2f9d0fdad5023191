"""C++ spellings of scalar IR expressions that the CCE and orchestration emitters share."""

from __future__ import annotations

from pypto.ir.expr import (
    Add, And, BitAnd, BitNot, BitOr, BitShiftLeft, BitShiftRight, BitXor, Eq, Ge, Gt, Le, Lt, Mul, Ne, Neg, Not, Or, Sub,
)

# Binary nodes that are one C++ infix operator in both emitters (each adds its own few).
INFIX: dict[type, str] = {
    Add: "+", Sub: "-", Mul: "*", Eq: "==", Ne: "!=", Lt: "<", Le: "<=", Gt: ">", Ge: ">=", And: "&&", Or: "||",
    BitAnd: "&", BitOr: "|", BitXor: "^", BitShiftLeft: "<<", BitShiftRight: ">>",
}
PREFIX: dict[type, str] = {Neg: "-", Not: "!", BitNot: "~"}


def int_floor_div(a: str, b: str) -> str:
    """``a // b`` on signed integers: C++ ``/`` truncates towards zero, PyPTO's ``//`` floors."""
    return f"({a} / {b} - ((({a} % {b}) != 0) && (({a} < 0) != ({b} < 0))))"


def int_floor_mod(a: str, b: str) -> str:
    """``a % b`` on signed integers with the sign of ``b``, as PyPTO's ``%``."""
    return f"((({a} % {b}) + {b}) % {b})"
