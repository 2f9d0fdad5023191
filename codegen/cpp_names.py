"""C++ identifiers for IR names: the keyword set and header names the CCE and orchestration emitters share."""

from __future__ import annotations

import functools
import re

from .cpp_target_names import TARGET_NAMES

# C++20 keywords and alternative tokens: a PyPTO name equal to one of them gets a trailing "_".
CPP_KEYWORDS = frozenset(
    "alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t "
    "class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield "
    "decltype default delete do double dynamic_cast else enum explicit export extern false float for friend "
    "goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private "
    "protected public register reinterpret_cast requires return short signed sizeof static static_assert "
    "static_cast struct switch template this thread_local throw true try typedef typeid typename union "
    "unsigned using virtual void volatile wchar_t while xor xor_eq".split()
)

# Macros, types, enumerators and variables the headers of the generated sources declare
# (scripts/gen_cpp_target_names.py): ``half x(16, 64);`` or a kernel named ``int8_t`` would not build.
HEADER_NAMES = frozenset().union(*TARGET_NAMES.values())


_NOT_IDENTIFIER = re.compile(r"[^A-Za-z0-9_]")


@functools.lru_cache(maxsize=4096)  # the emitters ask for every variable's name, and names recur
def cpp_identifier(name: str, reserved: frozenset[str] = frozenset()) -> str:
    """``name`` as a C++ identifier: other characters become ``_``, a leading digit gets a ``_``
    prefix, and a C++ keyword, a name the target headers declare (or a name in ``reserved``, the
    emitter's own) gets a ``_`` suffix."""
    text = _NOT_IDENTIFIER.sub("_", name) or "v"
    text = "_" + text if text[0].isdigit() else text
    return text + "_" if text in CPP_KEYWORDS or text in HEADER_NAMES or text in reserved else text
