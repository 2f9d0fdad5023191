"""Functions and programs (docs/ir.md#printer): decorators, signatures, ``pl.func_attr``, the
program header, ``X = pl.dynamic("X")`` lines and callee-before-caller function order.

``self`` follows the stated rule of §8.2: it is the first parameter only inside a program and
only when the function's role is not ``SubWorker`` (so InCore/AIC/AIV/Group kernels, whose role
is derived as SubWorker, print without it); calls of program functions print as ``self.f(...)``.
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

from .. import stmt as stmt_nodes
from ..enums import FunctionType, ParamDirection, Role, SplitMode
from ..expr import Var
from ..function import Function, Program
from ..gcpause import gc_paused
from ..type_base import Type
from ..types import TensorType, TileType
from .naming import VarCollector, assign_names, reads_vars
from ..transforms import flatten_to_stmts
from .stmts import INDENT, RETURN, StmtPrinter
from .values import dq, enum_text


class FunctionInfo:
    """What the pre-pass learned about one function."""

    def __init__(self, func: Function) -> None:
        c = VarCollector()
        for param in func.params:
            c.define(param)
        for t in func.return_types:
            c.type(t)
        c.stmt(func.body)
        self.func = func
        self.collector = c
        params = set(func.params)
        self.body_defs = {v for v in c.defs if v not in params}
        # Dimension vars neither passed in nor defined (plus params read in a param's valid_shape).
        self.dynamic: dict[Var, Var] = {k: v for k, v in c.type_vars.items() if k not in c.defs}
        for param in func.params:
            for k, v in _valid_shape_vars(param.type).items():
                if k in params:
                    self.dynamic.setdefault(k, v)
        self.free: dict[Var, Var] = {k: v for k, v in c.uses.items() if k not in c.defs and k not in self.dynamic}

    def names(self, dynamic_names: dict[Var, str]) -> dict[Var, str]:
        """Printed names: dynamic vars keep ``dynamic_names``; then params, body defs, free uses."""
        fixed = {k: dynamic_names[k] for k in self.dynamic}
        order = list(self.collector.defs.values()) + list(self.free.values())
        return assign_names(order, fixed, self.free)


def _valid_shape_vars(t: Type) -> dict[Var, Var]:
    c = VarCollector()
    if isinstance(t, TensorType) and t.tensor_view is not None:
        c.dims(t.tensor_view.valid_shape)
    elif isinstance(t, TileType) and t.tile_view is not None:
        c.dims(t.tile_view.valid_shape)
    return c.type_vars


def function_order(callees: dict[str, set[str]]) -> list[str]:
    """Callees before callers: Tarjan's SCCs over GlobalVar calls, visited in name order.

    ``callees`` maps each function name to the names of the program functions it calls.

    Tarjan emits each strongly connected component after every component it reaches, so callees
    come first; the members of a cycle print in name order.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    order: list[str] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        on_stack.add(name)
        for callee in sorted(callees[name]):
            if callee not in callees:
                continue
            if callee not in index:
                visit(callee)
                low[name] = min(low[name], low[callee])
            elif callee in on_stack:
                low[name] = min(low[name], index[callee])
        if low[name] == index[name]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == name:
                    break
            order.extend(sorted(component))

    for name in sorted(callees):
        if name not in index:
            visit(name)
    return order


class _Printed(NamedTuple):
    """A program function printed with provisional dynamic-dim names, and what ordering needs."""

    func: Function
    callees: set[str]
    dynamic: dict[Var, Var]
    own: dict[Var, str]
    lines: list[str]


# A program function's _Printed without the function: callees, dynamic dims, their names, lines.
_Parts = tuple[set[str], dict[Var, Var], dict[Var, str], list[str]]
# Per function object (weakly: dropped with it; functions compare by identity): the printer options,
# the count of comment edits and the parts.
_PRINTED: weakref.WeakKeyDictionary[Function, tuple[tuple[str, bool, bool, int], _Parts]] = (
    weakref.WeakKeyDictionary())


class ProgramPrinter(StmtPrinter):
    """Adds functions and programs to the statement printer."""

    def function(self, func: Function, info: FunctionInfo | None, dynamic_names: dict[Var, str]) -> None:
        """Decorator, signature and body of ``func`` at the current indentation; without ``info``
        in optimistic mode (see :meth:`optimistic_lines`)."""
        p = self.p
        if info is None:
            self.names, self.body_ptrs, self._hints = {}, set(), set()
            for param in func.params:
                self.define(param, body=False)
            if any(reads_vars(t) for t in func.return_types):
                self.missed = True
        else:
            self.names = info.names(dynamic_names)
            self.body_ptrs = info.body_defs
        self.reset_type_memo()
        self.emit(self.decorator(func))
        params = ["self"] if self.in_program and func.role != Role.SubWorker else []
        self.in_signature = True
        for param, direction in zip(func.params, func.param_directions):
            annotation = self.type(param.type)
            if direction != ParamDirection.In:
                annotation = f"{p}.{direction.name}[{annotation}]"
            params.append(f"{self.var(param)}: {annotation}")
        returns = [self.type(t) for t in func.return_types]
        self.in_signature = False
        ret = ""
        if len(returns) == 1:
            ret = f" -> {returns[0]}"
        elif returns:
            ret = f" -> tuple[{', '.join(returns)}]"
        self.emit(f"def {func.name}({', '.join(params)}){ret}:")
        prelude = []
        attrs = self.func_attrs(func)
        if attrs:
            prelude.append(f"{p}.func_attr({self.dict_text(attrs)})")
        if func.requires_runtime_binding:
            prelude.append("...")
        self.block(flatten_to_stmts(func.body), RETURN, prelude)

    def decorator(self, func: Function) -> str:
        """``@pl.function`` with ``type=``, ``level=``, ``role=``, ``auto_scope=``, ``external_source=``."""
        p = self.p
        keywords = []
        if func.func_type != FunctionType.Opaque:
            keywords.append(f"type={enum_text(p, func.func_type)}")
        if func.level is not None:
            keywords.append(f"level={enum_text(p, func.level)}")
        if func.role is not None:
            keywords.append(f"role={enum_text(p, func.role)}")
        if func.attrs.get("auto_scope") is False:
            keywords.append("auto_scope=False")
        source = func.attrs.external_source
        if source is not None:
            keywords.append(f"external_source={dq(source)}")
        return f"@{p}.function({', '.join(keywords)})" if keywords else f"@{p}.function"

    def func_attrs(self, func: Function) -> dict[str, object]:
        """The attrs left for ``pl.func_attr``: decorator keys and ``split == NONE`` removed."""
        attrs = dict(func.attrs)
        if attrs.get("auto_scope") is False:
            del attrs["auto_scope"]
        attrs.pop("external_source", None)
        if attrs.get("split") is SplitMode.NONE:
            del attrs["split"]
        return attrs

    def program(self, prog: Program) -> None:
        """Header, import, dynamic dims, then ``@pl.program class name:`` with its functions.

        Each function is printed right after its pre-pass, while its nodes are still in the CPU
        caches (on a large program a second walk later would fetch them from memory again). Its
        dynamic dims are named provisionally from the function alone; the rare function whose
        program-wide names differ is printed again once those are known.
        """
        p = self.p
        with gc_paused():
            printed = {gv.name: _Printed(f, *self._printed(f)) for gv, f in prog.functions.items()}
        order = function_order({fname: done.callees for fname, done in printed.items()})
        dynamic_vars = [v for fname in order for v in printed[fname].dynamic.values()]
        dynamic_names = assign_names(dict.fromkeys(dynamic_vars), {})
        name = prog.name or "Program"
        self.emit(f"# pypto.program: {name}")
        self.emit("import pypto.language as pl" if p == "pl" else f"from pypto import language as {p}")
        self.emit("")
        if dynamic_names:
            for dyn in sorted(set(dynamic_names.values())):
                self.emit(f"{dyn} = {p}.dynamic({dq(dyn)})")
            self.emit("")
        self.emit(f"@{p}.program")
        self.emit(f"class {name}:")
        if not order:
            self.emit(INDENT + "pass")
        # No blank line between the functions, as the established printer prints a program.
        for fname in order:
            done = printed[fname]
            lines = done.lines
            if any(done.own[k] != dynamic_names[k] for k in done.dynamic):
                lines = self._function_lines(FunctionInfo(done.func), dynamic_names)
            self.lines.extend(lines)

    def _printed(self, func: Function) -> _Parts:
        """What :meth:`program` needs of ``func`` printed with provisional dynamic-dim names,
        remembered per function object and printer options: a pass dump prints again every
        function the pass left unchanged. Nodes are immutable but for their leading comments
        (``ir.attach_leading_comments``): after any such edit, functions are printed anew."""
        options = (self.p, self.concise, self.explicit_layout, stmt_nodes.comment_edits)
        hit = _PRINTED.get(func)
        if hit is not None and hit[0] == options:
            return hit[1]
        lines = self.optimistic_lines(func)
        if lines is not None:
            parts: _Parts = (self.callees, {}, {}, lines)
        else:
            info = FunctionInfo(func)
            own = assign_names(info.dynamic.values(), {})
            # Only what the program-wide steps need is kept, so the next function's pre-pass
            # reuses the memory (still in the caches) of this one's tables.
            parts = (info.collector.callees, info.dynamic, own, self._function_lines(info, own))
        _PRINTED[func] = (options, parts)
        return parts

    def optimistic_lines(self, func: Function) -> list[str] | None:
        """The lines of ``func`` printed without the name pre-pass, or None when they may differ.

        Most functions name every Var by its hint: each def has a distinct hint, no Var is read
        before its def, no type reads dynamic dims. Such a function prints in one walk: each def
        is named by its hint when met (:meth:`define`), and any doubt (a Var or MemRef base not
        named yet, a repeated or empty hint, a type that may read Vars) sets ``missed``; the
        caller then prints the function again after the pre-pass. Program functions called are
        gathered in ``callees`` on the way.
        """
        saved, self.lines = self.lines, []
        self.in_program, self.ind = True, INDENT
        self.optimistic, self.missed, self.callees = True, False, set()
        self.function(func, None, {})
        self.optimistic, self.in_program, self.ind = False, False, ""
        lines, self.lines = self.lines, saved
        return None if self.missed else lines

    def _function_lines(self, info: FunctionInfo, dynamic_names: dict[Var, str]) -> list[str]:
        """The lines of one program function (indented inside the class)."""
        saved, self.lines = self.lines, []
        self.in_program = True
        self.ind = INDENT
        self.function(info.func, info, dynamic_names)
        self.ind = ""
        self.in_program = False
        lines, self.lines = self.lines, saved
        return lines

    def standalone_function(self, func: Function) -> None:
        """A function outside a program: no ``self``, dynamic dims named but not declared."""
        info = FunctionInfo(func)
        self.function(func, info, assign_names(info.dynamic.values(), {}))
