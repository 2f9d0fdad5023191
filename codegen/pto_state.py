"""Per-function state of the PTO emitter: SSA names, the constants block and tensor-view bindings.

Names follow docs/codegen.md#pto-types: IR var names sanitised to ``[A-Za-z0-9_.$]`` (``_`` before a
leading digit), a numeric temp ``%0, %1, ...`` on collision or for anonymous values, constants
``%c64_index`` / ``%cn1_i32`` / ``%cst``, ``%cst_0``, ... each emitted once per function.

Constants are printed at the head of the function in three groups, each in first-use order: tile
addresses, then those the tensor views use, then those of the body (the body is rendered before
the views, so a constant remembers the earliest group that used it).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from pypto.ir.enums import FunctionType
from pypto.ir.expr import Call, Var

from .doc import Doc

ADDRESSES, VIEWS, BODY = 0, 1, 2

_UNSAFE = re.compile(r"[^A-Za-z0-9_.$]")
# Names of the constants block: a variable spelled like one gets a numeric temp instead.
_CONSTANT = re.compile(r"cn?\d+_\w+|cst(_\d+)?|true|false")


def sanitise(hint: str) -> str:
    """An IR name as an MLIR SSA name body (without ``%``); empty for an anonymous value."""
    text = _UNSAFE.sub("_", hint)
    return "_" + text if text[:1].isdigit() else text


@functools.lru_cache(maxsize=4096)  # every tile and view of every kernel asks; the names recur
def _own_name(hint: str) -> str | None:
    """``sanitise(hint)``, or None when that is empty or spelled like a constant (a temp then)."""
    text = sanitise(hint)
    return None if not text or _CONSTANT.fullmatch(text) else text


@dataclass
class FunctionState:
    """What the emitter knows about the function it is printing."""

    indent: str
    names: dict[int, str] = field(default_factory=dict)  # id(var) -> SSA name
    roots: dict[int, Var] = field(default_factory=dict)  # id(tensor var) -> the tensor parameter it names
    used_views: set[int] = field(default_factory=set)  # id(tensor parameter) whose view the body reads
    taken: set[str] = field(default_factory=set)
    temps: int = 0
    floats: int = 0
    constants: dict[str, str] = field(default_factory=dict)  # SSA name -> defining line
    float_names: dict[tuple[str, str], str] = field(default_factory=dict)
    # per group, the constants it used in first-use order (a dict: ordered, and a constant asked for
    # again is found without a scan)
    groups: tuple[dict[str, None], dict[str, None], dict[str, None]] = field(default_factory=lambda: ({}, {}, {}))
    ints: dict[tuple[int, int], str] = field(default_factory=dict)  # (value, id(dtype)) -> its registered constant
    group: int = BODY
    target: Var | None = None  # the variable the op call being printed defines
    pointers: dict[int, str] = field(default_factory=dict)  # id(tensor parameter) -> its %argK
    spmd: set[str] = field(default_factory=set)  # hidden SPMD identity parameters the body reads
    kind: FunctionType | None = None  # AIC or AIV
    pops: dict[int, Call] = field(default_factory=dict)  # id(tile a tpop defines) -> the tpop (its free copies it)
    ring_offsets: dict[int, int] = field(default_factory=dict)  # pipe id -> its part of the GM ring, in f32 elements
    head: Doc = field(init=False)

    def __post_init__(self) -> None:
        self.head = Doc(self.indent)

    def temp(self) -> str:
        """A fresh numeric temp."""
        name = f"%{self.temps}"
        self.temps += 1
        return name

    def fresh(self, hint: str) -> str:
        """``%<hint>`` if free, else a numeric temp."""
        text = _own_name(hint)
        if text is None or text in self.taken:
            return self.temp()
        self.taken.add(text)
        return "%" + text

    def bind(self, var: Var, name: str) -> str:
        self.names[id(var)] = name
        return name

    def constant(self, name: str, line: str, group: int | None = None) -> str:
        """Register constant ``name`` (defined by ``line``) as used by ``group`` (default: the
        current one); returns the name."""
        self.constants.setdefault(name, line)
        self.groups[self.group if group is None else group].setdefault(name)
        return name

    def float_constant(self, text: str, mlir_type: str) -> str:
        """``%cst``, ``%cst_0``, ... for the float ``text`` of ``mlir_type``, once per (value, type)."""
        key = (text, mlir_type)
        name = self.float_names.get(key)
        if name is None:
            name = "%cst" if self.floats == 0 else f"%cst_{self.floats - 1}"
            self.floats += 1
            self.float_names[key] = name
        return self.constant(name, f"{name} = arith.constant {text} : {mlir_type}")

    def constant_lines(self) -> list[str]:
        """The constants block: each constant once, in the earliest group that used it."""
        seen: set[str] = set()
        out: list[str] = []
        for members in self.groups:
            for name in members:
                if name not in seen:
                    seen.add(name)
                    out.append(self.constants[name])
        return out
