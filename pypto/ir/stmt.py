"""Statements: assignment, sequencing, structured control flow, yields, returns and scopes."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator, Field

from .attrs import AttrsBase, ForAttrs, InCoreScopeAttrs, ScopeAttrs, SpmdScopeAttrs
from .datatype import DataType
from .enums import ForKind, InlineLanguage, Level, Role, ScopeKind, SplitMode
from .errors import IRTypeError
from .expr import ConstInt, Expr, IterArg, Var
from .node import Bool, Int, IRNode, Str
from .span import Span


def _index(v: Any) -> Any:
    return ConstInt(v, DataType.INDEX) if isinstance(v, int) and not isinstance(v, bool) else v


IndexExpr = Annotated[Expr, BeforeValidator(_index)]


class Stmt(IRNode):
    """Base of statements. ``leading_comments`` print as ``# text`` lines above the statement."""

    leading_comments: list[Str] = Field(default_factory=list)


# How many in-place comment changes there have been: text printed before the last one may be stale,
# so the printers that keep printed text for reuse compare it.
comment_edits = 0


def attach_leading_comments(stmt: Stmt, comments: list[str]) -> Stmt:
    """Replace ``stmt``'s leading comments in place and return it (comments are not structure)."""
    global comment_edits
    if not isinstance(stmt, Stmt):
        raise IRTypeError(f"attach_leading_comments: expected a Stmt, got {type(stmt).__name__}")
    object.__setattr__(stmt, "leading_comments", [str(c) for c in comments])
    comment_edits += 1
    return stmt


class AssignStmt(Stmt):
    """``var = value``; defines ``var``."""

    var: Var
    value: Expr
    _positional = ("var", "value", "span")
    _defs = ("var",)


class EvalStmt(Stmt):
    """An expression evaluated for its effect."""

    expr: Expr
    _positional = ("expr", "span")


class SeqStmts(Stmt):
    """A block of statements."""

    stmts: list[Stmt]
    _positional = ("stmts", "span")

    def __getitem__(self, i: int) -> Stmt:
        return self.stmts[i]

    def __len__(self) -> int:
        return len(self.stmts)

    def __bool__(self) -> bool:
        return True


class IfStmt(Stmt):
    """``if condition: then_body else: else_body``; ``return_vars`` are the phis."""

    condition: Expr
    then_body: Stmt
    else_body: Stmt | None = None
    return_vars: list[Var] = Field(default_factory=list)
    _positional = ("condition", "then_body", "else_body", "return_vars", "span")
    _defs = ("return_vars",)


class ForStmt(Stmt):
    """``for loop_var in range(start, stop, step)`` with loop-carried ``iter_args``."""

    loop_var: Var
    start: IndexExpr
    stop: IndexExpr
    step: IndexExpr
    iter_args: list[IterArg] = Field(default_factory=list)
    body: Stmt
    return_vars: list[Var] = Field(default_factory=list)
    kind: ForKind = ForKind.Sequential
    attrs: ForAttrs = ForAttrs()
    _positional = ("loop_var", "start", "stop", "step", "iter_args", "body", "return_vars", "span", "kind", "attrs")
    _defs = ("loop_var", "iter_args", "return_vars")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) > 9:
            args = args[:9] + (ForAttrs.for_node("ForStmt", args[9]),) + args[10:]
        if "attrs" in kwargs:
            kwargs["attrs"] = ForAttrs.for_node("ForStmt", kwargs["attrs"])
        super().__init__(*args, **kwargs)


class WhileStmt(Stmt):
    """``while condition`` with loop-carried ``iter_args``."""

    condition: Expr
    iter_args: list[IterArg] = Field(default_factory=list)
    body: Stmt
    return_vars: list[Var] = Field(default_factory=list)
    _positional = ("condition", "iter_args", "body", "return_vars", "span")
    _defs = ("iter_args", "return_vars")


class _ValueStmt(Stmt):
    value: list[Expr] = Field(default_factory=list)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and isinstance(args[0], Span):
            kwargs["span"], args = args[0], args[1:]
        if args:
            kwargs["value"], args = args[0], args[1:]
        if args:
            kwargs["span"], args = args[0], args[1:]
        if args:
            raise IRTypeError(f"{type(self).__name__}(): too many positional arguments")
        if isinstance(kwargs.get("value"), Expr):
            kwargs["value"] = [kwargs["value"]]
        super().__init__(**kwargs)


class YieldStmt(_ValueStmt):
    """``pl.yield_(a, b)``: the values carried out of a loop or if branch."""


class ReturnStmt(_ValueStmt):
    """``return a, b``."""


class BreakStmt(Stmt):
    """``break``."""

    _positional = ("span",)


class ContinueStmt(Stmt):
    """``continue``."""

    _positional = ("span",)


class InlineStmt(Stmt):
    """Verbatim source text in another language, printed re-indented."""

    body: Str
    language: InlineLanguage = InlineLanguage.Python
    _positional = ("body", "language", "span")


class ScopeStmt(Stmt):
    """Base of ``with``-scopes. ``body`` and ``span`` are keyword-only in subclass constructors."""

    scope_kind: ClassVar[ScopeKind]
    _attrs_model: ClassVar[type[AttrsBase]] = ScopeAttrs
    name_hint: Str = ""
    body: Stmt
    attrs: ScopeAttrs = ScopeAttrs()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if type(self) is ScopeStmt:
            raise IRTypeError("ScopeStmt is abstract; build InCoreScopeStmt, SpmdScopeStmt, ... instead")
        if "attrs" in kwargs:
            kwargs["attrs"] = self._attrs_model.for_node(type(self).__name__, kwargs["attrs"])
        super().__init__(*args, **kwargs)


class InCoreScopeStmt(ScopeStmt):
    """``with pl.at(level=pl.Level.CORE_GROUP): ...``: a region outlined into an InCore kernel."""

    scope_kind = ScopeKind.InCore
    _attrs_model = InCoreScopeAttrs
    split: SplitMode = SplitMode.NONE
    attrs: InCoreScopeAttrs = InCoreScopeAttrs()
    _positional = ("split", "name_hint")


class ClusterScopeStmt(ScopeStmt):
    """``with pl.cluster(): ...``: an AIC+AIV co-scheduled group."""

    scope_kind = ScopeKind.Cluster
    _positional = ("name_hint",)


class HierarchyScopeStmt(ScopeStmt):
    """``with pl.at(level=pl.Level.HOST, role=...): ...``: a distributed hierarchy level."""

    scope_kind = ScopeKind.Hierarchy
    level: Level
    role: Role | None = None
    _positional = ("level", "role", "name_hint")


class SpmdScopeStmt(ScopeStmt):
    """``with pl.spmd(N): ...``: a multi-block dispatch of ``core_num`` blocks."""

    scope_kind = ScopeKind.Spmd
    _attrs_model = SpmdScopeAttrs
    core_num: IndexExpr
    attrs: SpmdScopeAttrs = SpmdScopeAttrs()
    sync_start: Bool = False
    _positional = ("core_num", "sync_start", "name_hint")


class RuntimeScopeStmt(ScopeStmt):
    """``with pl.scope():`` (AUTO) or ``with pl.manual_scope():`` (``manual=True``)."""

    scope_kind = ScopeKind.Runtime
    manual: Bool = False
    _positional = ("manual", "name_hint")


class SplitAivScopeStmt(ScopeStmt):
    """``for aiv_id in pl.split_aiv(2, mode=...)``: a region split across the two AIV lanes."""

    scope_kind = ScopeKind.SplitAiv
    split: SplitMode
    count: Int = 2
    _positional = ("split", "count", "name_hint")


class CommDomainScopeStmt(ScopeStmt):
    """A distributed communication domain (distributed dialect only)."""

    scope_kind = ScopeKind.CommDomain
    _positional = ("name_hint",)
