"""Statement printing with an indentation-aware line writer (docs/ir.md#statements, docs/ir.md#printer).

Blocks flatten nested ``SeqStmts``; an empty block prints ``pass``. The trailing ``YieldStmt`` of
a block whose statement has ``return_vars`` prints as an assignment (``v: T = pl.yield_(a)``,
``v1, v2 = pl.yield_(a, b)``), and the trailing yield of a function body prints as ``return``.
Scope statements print as the ``with``/``for`` headers of the DSL (see ``scope_header``).
"""

from __future__ import annotations

import textwrap
from typing import Any, Callable

from ..datatype import DataType
from ..enums import ForKind, SplitMode
from ..expr import Call, ConstInt, Expr, Op, Var
from ..stmt import (
    AssignStmt,
    BreakStmt,
    ClusterScopeStmt,
    CommDomainScopeStmt,
    ContinueStmt,
    EvalStmt,
    ForStmt,
    HierarchyScopeStmt,
    IfStmt,
    InCoreScopeStmt,
    InlineStmt,
    ReturnStmt,
    RuntimeScopeStmt,
    ScopeStmt,
    SeqStmts,
    SpmdScopeStmt,
    SplitAivScopeStmt,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from ..transforms import flatten_to_stmts
from ..type_base import PtrType, ScalarType
from .exprs import NO_CALL_ATTRS
from .naming import reads_vars
from .type_printer import TypePrinter
from .values import dq, enum_text

INDENT = "    "
# Marker for "the trailing yield of this block is the function's return".
RETURN = "return"
Targets = list[Var] | str | None

_RANGE_FN: dict[ForKind, str] = {
    ForKind.Sequential: "range",
    ForKind.Parallel: "parallel",
    ForKind.Unroll: "unroll",
    ForKind.Pipeline: "pipeline",
}
# Scope attrs with their own DSL keyword, in print order (``task_id_var`` is the ``as`` target).
_SCOPE_ATTR_KEYWORDS: dict[str, str] = {
    "manual_dep_edges": "deps",
    "no_dep_args": "no_dep_args",
    "allow_early_resolve": "allow_early_resolve",
    "predicate": "predicate",
    "dump_vars": "dumps",
}


def _tuple_inner(items: list[str]) -> str:
    """Inside of a Python tuple display: ``a,`` for one element."""
    return items[0] + "," if len(items) == 1 else ", ".join(items)


class StmtPrinter(TypePrinter):
    """Adds statements, blocks and scope headers to the type printer."""

    def __init__(
        self,
        prefix: str,
        names: dict[Var, str] | None = None,
        concise: bool = False,
        explicit_layout: bool = False,
    ) -> None:
        super().__init__(prefix, names, explicit_layout)
        self.concise = concise
        self.lines: list[str] = []
        self.ind = ""
        # Optimistic mode (ProgramPrinter.optimistic_lines): defs are named by their hints as met.
        self.optimistic = False
        self._hints: set[str] = set()

    def emit(self, text: str) -> None:
        self.lines.append(self.ind + text)

    def text(self) -> str:
        return "\n".join(self.lines)

    # ---- blocks ------------------------------------------------------------------------
    def stmt(self, s: Stmt, targets: Targets = None) -> None:
        """Print one statement (its comments first); ``targets`` apply to a trailing yield."""
        if isinstance(s, AssignStmt):
            self.statements([s])
            return
        if self.optimistic:
            self.define_stmt(s)
        comments = s.leading_comments
        if comments:
            self.comments(comments)
        if targets is not None and type(s) is YieldStmt:
            self.yield_assign(s, targets)
            return
        fn = _STMT_FNS.get(type(s))
        if fn is None:
            fn = _resolve(type(s))
        fn(self, s)

    def comments(self, comments: list[str]) -> None:
        for c in comments:
            for line in c.split("\n"):
                self.emit("# " + line if line else "#")

    def block(self, stmts: list[Stmt], targets: Targets = None, prelude: list[str] | None = None) -> None:
        """An indented block; ``pass`` when it has no statements and no prelude lines."""
        self.ind += INDENT
        if prelude:
            for line in prelude:
                self.emit(line)
        elif not stmts:
            self.emit("pass")
        self.statements(stmts, targets)
        self.ind = self.ind[: -len(INDENT)]

    def statements(self, stmts: list[Stmt], targets: Targets = None) -> None:
        """Print ``stmts`` at the current indentation; ``targets`` apply to a trailing yield.

        Assignments (most statements) print in this loop, with no call per statement and the
        printer's tables read once. A call of an op in the generic call shape (no kwargs, no
        attrs) with one or two operands prints without a list, a map or a join: on this
        interpreter allocations cost more than bytecodes. Other values go to :meth:`call` and
        :meth:`expr`; other statements to :meth:`stmt`.
        """
        last = len(stmts) - 1
        names, lines, ind = self.names, self.lines, self.ind
        concise, optimistic, hints = self.concise, self.optimistic, self._hints
        type_memo, simple_callees = self._type_memo, self._simple_callees
        last_type = None  # the type of the last assignment, with its type_text and plain
        for i, s in enumerate(stmts):
            if type(s) is not AssignStmt and not isinstance(s, AssignStmt):
                self.stmt(s, targets if i == last else None)
                continue
            comments = s.leading_comments
            if comments:
                self.comments(comments)
            var = s.var
            t = var.type
            if concise:
                plain = t is self.plain_type
            elif t is not last_type:  # an elementwise result shares its operand's type object
                hit = type_memo.get(id(t))  # type(t), its memo hit inlined
                if hit is None:
                    type_text = self.type(t)
                    plain = t is self.plain_type
                else:
                    type_text = hit[1]
                    plain = hit[2]
                last_type = t
            name = names.get(var)
            if name is None:
                name = var.name_hint
                if optimistic:  # define(var), inlined; a plain type reads no Vars
                    if not plain:
                        if reads_vars(t):
                            self.missed = True
                        else:  # unprinted (concise) types: the next statement's is often the same
                            self.plain_type = t
                    if not name or name in hints:
                        self.missed = True
                    hints.add(name)
                    names[var] = name
                    if type(t) is PtrType:  # only pointers name MemRef bases
                        self.body_ptrs.add(var)
            value = s.value
            if type(value) is Call:
                op = value.op
                callee = simple_callees.get(op.name) if type(op) is Op else None
                attrs = value.attrs
                if (
                    callee is not None
                    and not value.kwargs
                    and (attrs is NO_CALL_ATTRS or not attrs.__pydantic_fields_set__)
                ):
                    args = value.args
                    if len(args) == 2:
                        a, b = args
                        ta = names.get(a)
                        if ta is None:
                            ta = self.call_operand(a)
                        tb = names.get(b)
                        if tb is None:
                            tb = self.call_operand(b)
                        text = f"{callee}({ta}, {tb})"
                    elif len(args) == 1:
                        a = args[0]
                        ta = names.get(a)
                        if ta is None:
                            ta = self.call_operand(a)
                        text = f"{callee}({ta})"
                    else:
                        text = f"{callee}({', '.join(self.call_args(value))})"
                else:
                    text = self.call(value)
            else:
                text = self.expr(value)
            if concise:
                lines.append(f"{ind}{name} = {text}")
            else:
                lines.append(f"{ind}{name}: {type_text} = {text}")

    # ---- optimistic naming -------------------------------------------------------------
    def define(self, var: Var, body: bool = True) -> None:
        """Optimistic mode: name a def by its hint; ``missed`` when that may differ from
        ``assign_names`` (an empty or repeated hint) or the type may read dynamic dims."""
        if var in self.names:
            return
        hint = var.name_hint
        if not hint or hint in self._hints or reads_vars(var.type):
            self.missed = True
        self._hints.add(hint)
        self.names[var] = hint
        if body and type(var.type) is PtrType:  # only pointers name MemRef bases
            self.body_ptrs.add(var)

    def define_stmt(self, s: Stmt) -> None:
        """Optimistic mode: the defs of a statement, in the order of the name pre-pass
        (``VarCollector.stmt``), before any of them prints."""
        t = type(s)
        if t is ForStmt:
            self.define(s.loop_var)
            for v in s.iter_args:
                self.define(v)
            for v in s.return_vars:
                self.define(v)
        elif t is WhileStmt:
            for v in s.iter_args:
                self.define(v)
            for v in s.return_vars:
                self.define(v)
        elif t is IfStmt:
            for v in s.return_vars:
                self.define(v)
        elif isinstance(s, ScopeStmt):
            tid = s.attrs.get("task_id_var")
            if isinstance(tid, Var):
                self.define(tid)

    # ---- simple statements -------------------------------------------------------------
    def eval_stmt(self, s: EvalStmt) -> None:
        self.emit(self.expr(s.expr))

    def seq(self, s: SeqStmts) -> None:
        stmts = flatten_to_stmts(s)
        if not stmts:
            self.emit("pass")
        self.statements(stmts)

    def yield_text(self, s: YieldStmt) -> str:
        return f"{self.p}.yield_({', '.join([self.expr(v) for v in s.value])})"

    def yield_stmt(self, s: YieldStmt) -> None:
        self.emit(self.yield_text(s))

    def yield_assign(self, s: YieldStmt, targets: list[Var] | str) -> None:
        """Trailing yield: ``return a``, ``v: T = pl.yield_(a)`` or ``v1, v2 = pl.yield_(a, b)``."""
        if targets == RETURN:
            self.emit(self.return_text(s.value))
        elif len(targets) == 1 and not self.concise:
            var = targets[0]
            self.emit(f"{self.var(var)}: {self.type(var.type)} = {self.yield_text(s)}")
        else:
            self.emit(f"{', '.join([self.var(v) for v in targets])} = {self.yield_text(s)}")

    def return_text(self, values: list[Expr]) -> str:
        return "return " + ", ".join([self.expr(v) for v in values]) if values else "return"

    def return_stmt(self, s: ReturnStmt) -> None:
        self.emit(self.return_text(s.value))

    def break_stmt(self, s: BreakStmt) -> None:
        self.emit("break")

    def continue_stmt(self, s: ContinueStmt) -> None:
        self.emit("continue")

    def inline_stmt(self, s: InlineStmt) -> None:
        for line in textwrap.dedent(s.body).strip("\n").split("\n"):
            self.emit(line.rstrip())

    # ---- control flow ------------------------------------------------------------------
    def if_stmt(self, s: IfStmt) -> None:
        targets = s.return_vars or None
        self.emit(f"if {self.expr(s.condition)}:")
        self.block(flatten_to_stmts(s.then_body), targets)
        if s.else_body is not None:
            self.emit("else:")
            self.block(flatten_to_stmts(s.else_body), targets)

    def for_stmt(self, s: ForStmt) -> None:
        p = self.p
        target = self.var(s.loop_var)
        if s.iter_args:
            target += f", ({_tuple_inner([self.var(a) for a in s.iter_args])})"
        args = self.range_args(s.start, s.stop, s.step)
        attrs = dict(s.attrs)
        if s.kind == ForKind.Pipeline and "pipeline_stages" in attrs:
            args.append(f"stage={self.value(attrs.pop('pipeline_stages'))}")
        if s.iter_args:
            args.append(f"init_values=({_tuple_inner([self.expr(a.initValue) for a in s.iter_args])})")
        if attrs:
            args.append(self.attrs_item(attrs))
        self.emit(f"for {target} in {p}.{_RANGE_FN[s.kind]}({', '.join(args)}):")
        self.block(flatten_to_stmts(s.body), s.return_vars or None)

    def range_args(self, start: Expr, stop: Expr, step: Expr) -> list[str]:
        """``[stop]``, ``[start, stop]`` or ``[start, stop, step]``: only INDEX 0 / 1 are elided."""
        if _is_index_const(step, 1):
            if _is_index_const(start, 0):
                return [self.expr(stop)]
            return [self.expr(start), self.expr(stop)]
        return [self.expr(start), self.expr(stop), self.expr(step)]

    def while_stmt(self, s: WhileStmt) -> None:
        targets = s.return_vars or None
        if not s.iter_args:
            self.emit(f"while {self.expr(s.condition)}:")
            self.block(flatten_to_stmts(s.body), targets)
            return
        names = _tuple_inner([self.var(a) for a in s.iter_args])
        inits = _tuple_inner([self.expr(a.initValue) for a in s.iter_args])
        self.emit(f"for ({names}) in {self.p}.while_(init_values=({inits})):")
        self.block(flatten_to_stmts(s.body), targets, prelude=[f"{self.p}.cond({self.expr(s.condition)})"])

    # ---- scopes ------------------------------------------------------------------------
    def scope_items(self, s: ScopeStmt, skip: frozenset[str] = frozenset()) -> list[str]:
        """Keyword texts for a scope's attrs (deps, no_dep_args, ...) and its name_hint."""
        attrs = s.attrs
        parts = []
        for key, keyword in _SCOPE_ATTR_KEYWORDS.items():
            if key in attrs and key not in skip:
                value = attrs[key]
                text = self.value(value)
                parts.append(f"{keyword}=({text})" if key == "predicate" else f"{keyword}={text}")
        rest = {k: v for k, v in attrs.items() if k not in _SCOPE_ATTR_KEYWORDS and k != "task_id_var" and k not in skip}
        if rest:
            parts.append(self.attrs_item(rest))
        if s.name_hint:
            parts.append(f"name_hint={dq(s.name_hint)}")
        return parts

    def with_header(self, call: str, s: ScopeStmt) -> str:
        """``with <call>:`` or ``with <call> as tid:``."""
        tid = s.attrs.get("task_id_var")
        return f"with {call} as {self.var(tid)}:" if isinstance(tid, Var) else f"with {call}:"

    def optimizations(self, split: SplitMode, slot_num: Any) -> list[str]:
        """``optimizations=[pl.split(...), pl.cross_core_slot(slot_num=N)]`` or nothing."""
        p = self.p
        opts = []
        if split != SplitMode.NONE:
            opts.append(f"{p}.split({enum_text(p, split)})")
        if slot_num is not None:
            opts.append(f"{p}.cross_core_slot(slot_num={self.value(slot_num)})")
        return [f"optimizations=[{', '.join(opts)}]"] if opts else []

    def incore_scope(self, s: InCoreScopeStmt) -> None:
        parts = [f"level={self.p}.Level.CORE_GROUP"]
        parts += self.optimizations(s.split, s.attrs.get("slot_num"))
        parts += self.scope_items(s, frozenset({"slot_num"}))
        self.emit(self.with_header(f"{self.p}.at({', '.join(parts)})", s))
        self.block(flatten_to_stmts(s.body))

    def cluster_scope(self, s: ClusterScopeStmt) -> None:
        self.emit(self.with_header(f"{self.p}.cluster({', '.join(self.scope_items(s))})", s))
        self.block(flatten_to_stmts(s.body))

    def hierarchy_scope(self, s: HierarchyScopeStmt) -> None:
        parts = [f"level={enum_text(self.p, s.level)}"]
        if s.role is not None:
            parts.append(f"role={enum_text(self.p, s.role)}")
        parts += self.scope_items(s)
        self.emit(self.with_header(f"{self.p}.at({', '.join(parts)})", s))
        self.block(flatten_to_stmts(s.body))

    def spmd_scope(self, s: SpmdScopeStmt) -> None:
        parts = [self.expr(s.core_num)]
        if s.sync_start:
            parts.append("sync_start=True")
        for_form = self.spmd_for_form(s)
        if for_form is None:
            parts += self.scope_items(s)
            self.emit(self.with_header(f"{self.p}.spmd({', '.join(parts)})", s))
            self.block(flatten_to_stmts(s.body))
            return
        inner, index_var, stmts = for_form
        parts += self.optimizations(inner.split, inner.attrs.get("slot_num"))
        parts += self.scope_items(s)
        self.emit(f"for {self.var(index_var)} in {self.p}.spmd({', '.join(parts)}):")
        self.block(stmts)

    def spmd_for_form(self, s: SpmdScopeStmt) -> tuple[InCoreScopeStmt, Var, list[Stmt]] | None:
        """``for i in pl.spmd(N):`` applies when the body is a plain InCore scope whose first
        statement binds ``i = pl.tile.get_block_idx()``; returns (scope, i, remaining stmts)."""
        if "task_id_var" in s.attrs or "manual_dep_edges" in s.attrs:
            return None
        stmts = flatten_to_stmts(s.body)
        if len(stmts) != 1 or type(stmts[0]) is not InCoreScopeStmt:
            return None
        inner = stmts[0]
        if inner.leading_comments or inner.name_hint or set(inner.attrs) - {"slot_num"}:
            return None
        found = _leading_index_assign(inner.body, "tile.get_block_idx")
        return None if found is None else (inner, found[0], found[1])

    def runtime_scope(self, s: RuntimeScopeStmt) -> None:
        parts = [f"mode={self.p}.ScopeMode.MANUAL"] if s.manual else []
        parts += self.scope_items(s)
        self.emit(self.with_header(f"{self.p}.scope({', '.join(parts)})", s))
        self.block(flatten_to_stmts(s.body))

    def split_aiv_scope(self, s: SplitAivScopeStmt) -> None:
        parts = [str(s.count), f"mode={enum_text(self.p, s.split)}"] + self.scope_items(s)
        call = f"{self.p}.split_aiv({', '.join(parts)})"
        found = _leading_index_assign(s.body, "tile.get_subblock_idx")
        saved, self.split_aiv_mode = self.split_aiv_mode, int(s.split)
        if found is not None and "task_id_var" not in s.attrs:
            self.emit(f"for {self.var(found[0])} in {call}:")
            self.block(found[1])
        else:
            self.emit(self.with_header(call, s))
            self.block(flatten_to_stmts(s.body))
        self.split_aiv_mode = saved

    def comm_domain_scope(self, s: CommDomainScopeStmt) -> None:
        """Distributed only: a marker comment, the body at the same indentation."""
        self.emit(f"# pld.comm_domain: {s.name_hint}".rstrip())
        stmts = flatten_to_stmts(s.body)
        if not stmts:
            self.emit("pass")
        self.statements(stmts)

    def unsupported_stmt(self, s: Any) -> None:
        self.emit("<unsupported IRNode type>")


def _is_index_const(e: Expr, value: int) -> bool:
    return type(e) is ConstInt and e.dtype is DataType.INDEX and e.value == value


def _leading_index_assign(body: Stmt, op_name: str) -> tuple[Var, list[Stmt]] | None:
    """``(i, rest)`` when ``body`` starts with a plain ``i = pl.<op_name>()`` of type Scalar[INDEX]."""
    stmts = flatten_to_stmts(body)
    if not stmts:
        return None
    first = stmts[0]
    if type(first) is not AssignStmt or first.leading_comments:
        return None
    value = first.value
    if type(value) is not Call or type(value.op) is not Op or value.op.name != op_name:
        return None
    if value.args or value.kwargs or value.attrs:
        return None
    t = first.var.type
    if not isinstance(t, ScalarType) or t.dtype is not DataType.INDEX:
        return None
    return first.var, stmts[1:]


_STMT_FNS: dict[type, Callable[[StmtPrinter, Any], None]] = {
    EvalStmt: StmtPrinter.eval_stmt,
    SeqStmts: StmtPrinter.seq,
    YieldStmt: StmtPrinter.yield_stmt,
    ReturnStmt: StmtPrinter.return_stmt,
    BreakStmt: StmtPrinter.break_stmt,
    ContinueStmt: StmtPrinter.continue_stmt,
    InlineStmt: StmtPrinter.inline_stmt,
    IfStmt: StmtPrinter.if_stmt,
    ForStmt: StmtPrinter.for_stmt,
    WhileStmt: StmtPrinter.while_stmt,
    InCoreScopeStmt: StmtPrinter.incore_scope,
    ClusterScopeStmt: StmtPrinter.cluster_scope,
    HierarchyScopeStmt: StmtPrinter.hierarchy_scope,
    SpmdScopeStmt: StmtPrinter.spmd_scope,
    RuntimeScopeStmt: StmtPrinter.runtime_scope,
    SplitAivScopeStmt: StmtPrinter.split_aiv_scope,
    CommDomainScopeStmt: StmtPrinter.comm_domain_scope,
}


def _resolve(cls: type) -> Callable[[StmtPrinter, Any], None]:
    for base in cls.__mro__[1:]:
        fn = _STMT_FNS.get(base)
        if fn is not None:
            _STMT_FNS[cls] = fn
            return fn
    _STMT_FNS[cls] = StmtPrinter.unsupported_stmt
    return StmtPrinter.unsupported_stmt
