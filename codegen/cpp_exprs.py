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


def int_pow(a: str, b: str, c: str) -> str:
    """``a ** b`` on integers of C type ``c``, as the interpreter computes it (pypto.ir.scalar_eval).

    Square-and-multiply in ``uint64_t`` wraps like the interpreter (signed overflow would be undefined),
    and a negative exponent gives the truncated real power: 1 for a base of 1, +-1 for -1, else 0.
    """
    return (
        f"({{ uint64_t __pypto_r = 1, __pypto_x = (uint64_t)({a}); int64_t __pypto_e = (int64_t)({b}); "
        f"if (__pypto_e < 0) __pypto_r = (int64_t)({a}) == 1 ? 1 : (int64_t)({a}) == -1 ? "
        f"((__pypto_e & 1) ? (uint64_t)-1 : 1) : 0; "
        f"else for (; __pypto_e > 0; __pypto_e >>= 1, __pypto_x *= __pypto_x) "
        f"if (__pypto_e & 1) __pypto_r *= __pypto_x; ({c})__pypto_r; }})"
    )
