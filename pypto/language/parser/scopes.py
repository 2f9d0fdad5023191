"""Scope statements: ``pl.at``, ``pl.cluster``, ``pl.spmd``, ``pl.scope`` / ``pl.manual_scope`` and
``pl.split_aiv``.

* ``with pl.at(level=pl.Level.CORE_GROUP, optimizations=[...], deps=[...], no_dep_args=[...],
  allow_early_resolve=..., dumps=[...], name_hint=...) [as tid]:`` -> ``InCoreScopeStmt``
  (split in its field; ``as tid`` / deps / no_dep_args / allow_early_resolve / dumps / slot_num
  in ``attrs["task_id_var" | "manual_dep_edges" | "no_dep_args" | "allow_early_resolve" |
  "dump_vars" | "slot_num"]``); any other level -> ``HierarchyScopeStmt``.
* ``with pl.spmd(N, ...) [as tid]:`` -> ``SpmdScopeStmt``. Its body is
  - a *carrier*: a single ``with pl.at(<CORE_GROUP>, ...)``, parsed as that nested scope;
  - an *inline kernel*: it reads ``pl.tile.get_block_idx()``; wrapped in an ``InCoreScopeStmt``;
  - a *dispatch*: exactly one ``self.kernel(...)`` call (plus temporaries); wrapped in an
    ``InCoreScopeStmt`` only when ``optimizations=`` needs one to carry split / slot_num.
  ``for i in pl.spmd(N, ...):`` is the inline form with ``i = pl.tile.get_block_idx()`` first.
  ``deps=`` needs ``as tid``; inside ``pl.cluster()`` a spmd cannot capture a TaskId, take deps,
  ``allow_early_resolve`` or a ``predicate`` (it is unwrapped into the Group and never a Submit).
* ``with pl.scope():`` (needs ``@pl.function(auto_scope=False)``), ``pl.scope(mode=MANUAL)``,
  ``pl.manual_scope()`` -> ``RuntimeScopeStmt``; ``pl.cluster()`` -> ``ClusterScopeStmt``;
  ``for aiv_id in pl.split_aiv(2, mode=...)`` / ``with pl.split_aiv(...)`` -> ``SplitAivScopeStmt``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from pypto import ir
from pypto.ir import Level, Role, ScopeMode, SplitMode
from pypto.ir.utils import warn_at

from .. import scopes
from ..op import tensor as tensor_ops
from ..op import tile as tile_ops
from .core import Block, describe, make_body
from .diagnostics import ParserSyntaxError, ParserTypeError
from .diagnostics.exceptions import ParserWarning
from .predicates import parse_predicate
from .registry import register_expr, register_for, register_with
from .scope_state import Producer, ScopeFrame, calls_in, state_of, walk
from .tasks import (
    attrs_dict,
    bind,
    bool_literal,
    core_count,
    keyword_node,
    merge_vars,
    parse_deps,
    parse_tensor_names,
    str_literal,
)

_INDEX = ir.ScalarType(ir.DataType.INDEX)
_TASK_ID = ir.ScalarType(ir.DataType.TASK_ID)
_BLOCK_INDEX_OPS = ("tile.get_block_idx", "tensor.get_block_idx")
_OPTIMIZATIONS = "optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)]"


@dataclass
class Optimizations:
    """What ``optimizations=[...]`` asks of an InCore region."""

    split: SplitMode = SplitMode.NONE
    slot_num: int | None = None

    def attrs(self) -> dict[str, Any]:
        return {} if self.slot_num is None else {"slot_num": self.slot_num}


# ----- shared pieces ---------------------------------------------------------------------------
def _enum(p: Any, node: ast.expr, cls: type, what: str) -> Any:
    value = p.eval(node)
    if not isinstance(value, cls):
        p.fail(
            ParserSyntaxError,
            f"{what} must be a pl.{cls.__name__} member, got {describe(value)}",
            node,
            f"write pl.{cls.__name__}.<member>, one of: {', '.join(cls.__members__)}",
        )
    return value


def _positive_int(p: Any, node: ast.expr, what: str) -> int:
    value = p.eval(node)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        p.fail(
            ParserSyntaxError,
            f"{what} must be a positive integer literal, got {describe(value)}",
            node,
            f"write an int literal or closure int >= 1, e.g. {what}4",
        )
    return value


def parse_optimizations(p: Any, node: ast.expr) -> Optimizations:
    """``[pl.split(MODE), pl.cross_core_slot(slot_num=N)]`` (entries orthogonal, each at most once)."""
    if type(node) not in (ast.List, ast.Tuple):
        p.fail(
            ParserSyntaxError,
            f"optimizations= takes a list: {_OPTIMIZATIONS}",
            node,
            "wrap the entries in a list literal, even a single one: optimizations=[pl.split(...)]",
        )
    opts = Optimizations()
    seen: set[Any] = set()
    for item in node.elts:  # type: ignore[attr-defined]
        construct = p.eval(item.func) if type(item) is ast.Call else None
        if construct not in (scopes.split, scopes.cross_core_slot):
            p.fail(
                ParserSyntaxError,
                f"optimizations= entries are pl.split(...) or pl.cross_core_slot(...), got '{ast.unparse(item)}'",
                item,
                _OPTIMIZATIONS,
            )
        if construct in seen:
            p.fail(
                ParserSyntaxError,
                f"optimizations= lists pl.{construct.__name__} twice",
                item,
                f"keep one pl.{construct.__name__}(...) entry",
            )
        seen.add(construct)
        bound = bind(p, construct, item)
        slot = bound.get("slot_num")
        if construct is scopes.split:
            opts.split = _enum(p, bound["mode"], SplitMode, "pl.split(mode)")
            if slot is not None:
                warn_at(
                    "pl.split(MODE, slot_num=N) is deprecated; use pl.cross_core_slot(slot_num=N) in optimizations=",
                    ParserWarning,
                    p.span(item),
                )
        if slot is not None:
            value = _positive_int(p, slot, "slot_num=")
            if opts.slot_num is not None and opts.slot_num != value:
                p.fail(
                    ParserSyntaxError,
                    f"optimizations= gives two slot_num values ({opts.slot_num} and {value})",
                    item,
                    "give slot_num once, in pl.cross_core_slot(slot_num=N)",
                )
            opts.slot_num = value
    return opts


def _tid_target(p: Any, node: ast.With, construct: str, allowed: bool) -> str | None:
    """The name of ``with ... as tid``, if any."""
    target = node.items[0].optional_vars
    if target is None:
        return None
    if not allowed:
        p.fail(
            ParserSyntaxError,
            f"{construct} has no TaskId to bind with 'as'",
            target,
            "drop 'as ...'; only pl.at(level=pl.Level.CORE_GROUP) and pl.spmd(...) launch a task with a TaskId",
        )
    if type(target) is not ast.Name:
        p.fail(
            ParserSyntaxError,
            "'as' binds one name: with pl.at(...) as tid:",
            target,
            "bind the TaskId to a single plain name, e.g. as tid",
        )
    return target.id  # type: ignore[union-attr]


def _scope_body(
    p: Any, body: list[ast.stmt], kind: str, split: SplitMode | None = None
) -> tuple[ir.Stmt, Block, ScopeFrame]:
    """Parse a scope body. Loops outside the scope are not loops of the body (no break/continue)."""
    state = state_of(p)
    frame = ScopeFrame(kind, split=split)
    state.scopes.append(frame)
    saved_loops, p.loops = p.loops, []
    try:
        stmts, block = p.parse_block(body, "scope")
    finally:
        p.loops = saved_loops
        state.scopes.pop()
    return stmts, block, frame


def _common_attrs(p: Any, bound: dict[str, Any], frame: ScopeFrame) -> dict[str, Any]:
    """``attrs={...}`` merged with ``dumps=[...]`` and the tensors ``pl.dump_tag`` tagged in the body."""
    attrs = attrs_dict(p, bound["attrs"]) if "attrs" in bound else {}
    dumps = parse_tensor_names(p, bound["dumps"], "dumps=") if "dumps" in bound else []
    dump_vars = merge_vars(merge_vars(list(attrs.get("dump_vars", [])), dumps), frame.dump_vars)
    if dump_vars:
        attrs["dump_vars"] = dump_vars
    return attrs


def _name_hint(p: Any, bound: dict[str, Any]) -> str:
    return str_literal(p, bound["name_hint"], "name_hint=") if "name_hint" in bound else ""


def _bind_tid(p: Any, name: str | None, node: ast.AST) -> ir.Var | None:
    if name is None:
        return None
    return ir.Var(name, _TASK_ID, p.span(node))


def _emit(p: Any, stmt_cls: type, args: tuple[Any, ...], body: ir.Stmt, node: ast.AST, attrs: dict[str, Any]) -> None:
    try:
        p.emit(stmt_cls(*args, body=body, span=p.span(node), attrs=attrs))
    except (TypeError, ValueError) as err:
        p.fail(
            ParserTypeError,
            str(err),
            node,
            "check the scope's keyword values: name_hint= takes a string and attrs= a dict with string keys",
        )


def _task_options(p: Any, bound: dict[str, Any], attrs: dict[str, Any]) -> list[ir.Expr]:
    """``deps=`` and ``allow_early_resolve=`` into ``attrs``; returns the deps."""
    deps: list[ir.Expr] = []
    if "deps" in bound:
        deps = parse_deps(p, bound["deps"])
        attrs["manual_dep_edges"] = deps
    if "allow_early_resolve" in bound and bool_literal(p, bound["allow_early_resolve"], "allow_early_resolve="):
        attrs["allow_early_resolve"] = True
    return deps


# ----- pl.at -----------------------------------------------------------------------------------
@register_with(scopes.at, "with pl.at(level=pl.Level.CORE_GROUP):")
def _at(p: Any, node: ast.With, call: ast.Call) -> None:
    predicate = keyword_node(call, "predicate")
    if predicate is not None:
        p.fail(
            ParserSyntaxError,
            "pl.at does not accept predicate=",
            predicate,
            "dispatch predicates go on pl.submit(...), pl.spmd_submit(...) or with pl.spmd(..., predicate=...)",
        )
    bound = bind(p, scopes.at, call)
    level = _enum(p, bound["level"], Level, "level=")
    if level == Level.CORE_GROUP:
        _incore(p, node, call, bound)
    else:
        _hierarchy(p, node, call, bound, level)


def _incore(p: Any, node: ast.With, call: ast.Call, bound: dict[str, Any]) -> None:
    if "role" in bound:
        p.fail(
            ParserSyntaxError,
            "pl.at(level=pl.Level.CORE_GROUP) takes no role=",
            bound["role"],
            "drop role=; it only applies to the hierarchy levels above CORE_GROUP",
        )
    opts = parse_optimizations(p, bound["optimizations"]) if "optimizations" in bound else Optimizations()
    tid_name = _tid_target(p, node, "pl.at", True)
    attrs = opts.attrs()
    _task_options(p, bound, attrs)
    if "no_dep_args" in bound:
        attrs["no_dep_args"] = parse_tensor_names(p, bound["no_dep_args"], "no_dep_args=")
    name_hint = _name_hint(p, bound)
    body, _, frame = _scope_body(p, node.body, "incore")
    attrs.update(_common_attrs(p, bound, frame))
    tid = _bind_tid(p, tid_name, node.items[0].optional_vars or node)
    if tid is not None:
        attrs["task_id_var"] = tid
    _emit(p, ir.InCoreScopeStmt, (opts.split, name_hint), body, node, attrs)
    if tid is not None:
        p.vars[tid_name] = tid


def _hierarchy(p: Any, node: ast.With, call: ast.Call, bound: dict[str, Any], level: Level) -> None:
    for key in ("optimizations", "deps", "no_dep_args", "allow_early_resolve"):
        if key in bound:
            p.fail(
                ParserSyntaxError,
                f"{key}= only applies to pl.at(level=pl.Level.CORE_GROUP), not to the {level.name} level",
                bound[key],
                f"drop {key}=, or put it on a with pl.at(level=pl.Level.CORE_GROUP, {key}=...) inside this scope",
            )
    _tid_target(p, node, f"pl.at(level=pl.Level.{level.name})", False)
    role = _enum(p, bound["role"], Role, "role=") if bound.get("role") is not None else None
    name_hint = _name_hint(p, bound)
    body, _, frame = _scope_body(p, node.body, "hierarchy")
    _emit(p, ir.HierarchyScopeStmt, (level, role, name_hint), body, node, _common_attrs(p, bound, frame))


# ----- pl.cluster, pl.scope, pl.manual_scope ----------------------------------------------------
@register_with(scopes.cluster, "with pl.cluster():")
def _cluster(p: Any, node: ast.With, call: ast.Call) -> None:
    bound = bind(p, scopes.cluster, call)
    _tid_target(p, node, "pl.cluster()", False)
    name_hint = _name_hint(p, bound)
    body, _, frame = _scope_body(p, node.body, "cluster")
    _emit(p, ir.ClusterScopeStmt, (name_hint,), body, node, _common_attrs(p, bound, frame))


def _runtime(p: Any, node: ast.With, call: ast.Call, bound: dict[str, Any], manual: bool, construct: str) -> None:
    _tid_target(p, node, construct, False)
    name_hint = _name_hint(p, bound)
    body, _, frame = _scope_body(p, node.body, "runtime")
    _emit(p, ir.RuntimeScopeStmt, (manual, name_hint), body, node, _common_attrs(p, bound, frame))


@register_with(scopes.scope, "with pl.scope(): / with pl.scope(mode=pl.ScopeMode.MANUAL):")
def _scope(p: Any, node: ast.With, call: ast.Call) -> None:
    bound = bind(p, scopes.scope, call)
    mode = _enum(p, bound["mode"], ScopeMode, "mode=") if "mode" in bound else ScopeMode.AUTO
    if mode == ScopeMode.AUTO and p.state.auto_scope:
        p.fail(
            ParserSyntaxError,
            f"pl.scope() (an AUTO runtime scope) needs @pl.function(auto_scope=False) on '{p.state.name}'",
            call,
            "with auto_scope=True (the default) the compiler places AUTO scopes; "
            "pl.scope(mode=pl.ScopeMode.MANUAL) / pl.manual_scope() work in both modes",
        )
    _runtime(p, node, call, bound, mode == ScopeMode.MANUAL, "pl.scope()")


@register_with(scopes.manual_scope, "with pl.manual_scope():")
def _manual_scope(p: Any, node: ast.With, call: ast.Call) -> None:
    _runtime(p, node, call, bind(p, scopes.manual_scope, call), True, "pl.manual_scope()")


# ----- pl.spmd ---------------------------------------------------------------------------------
@dataclass
class SpmdOptions:
    """The parsed keywords of ``pl.spmd(...)`` (``attrs`` collects deps / early resolve / predicate)."""

    core_num: ir.Expr
    sync_start: bool
    opts: Optimizations | None
    attrs: dict[str, Any]
    name_hint: str


def _spmd_options(p: Any, call: ast.Call, bound: dict[str, Any], capture: bool) -> SpmdOptions:
    in_cluster = state_of(p).enclosing("cluster") is not None
    for key in ("allow_early_resolve", "predicate", "deps"):
        if in_cluster and key in bound:
            p.fail(
                ParserSyntaxError,
                f"{key}= is not accepted on a pl.spmd inside pl.cluster(): the cluster unwraps it into its "
                "Group function, so it never becomes a Submit and the option would be lost",
                bound[key],
                f"move the pl.spmd out of the pl.cluster() or drop {key}=",
            )
    if "deps" in bound and not capture:
        p.fail(
            ParserSyntaxError,
            "deps= on pl.spmd needs the capture form: with pl.spmd(N, deps=[...]) as tid:",
            bound["deps"],
            "only `with pl.spmd(...) as tid:` lowers to a Submit that can carry dependency edges",
        )
    core_num = core_count(p, bound["core_num"], "pl.spmd core count")
    sync_start = bool_literal(p, bound["sync_start"], "sync_start=") if "sync_start" in bound else False
    opts = parse_optimizations(p, bound["optimizations"]) if "optimizations" in bound else None
    attrs: dict[str, Any] = {}
    deps = _task_options(p, bound, attrs)
    if "predicate" in bound:
        attrs["predicate"] = parse_predicate(p, bound["predicate"], deps)
    return SpmdOptions(core_num, sync_start, opts, attrs, _name_hint(p, bound))


def _incore_wrapper(opts: Optimizations | None, body: ir.Stmt, span: ir.Span) -> ir.InCoreScopeStmt:
    opts = opts or Optimizations()
    return ir.InCoreScopeStmt(opts.split, body=body, span=span, attrs=opts.attrs())


@register_with(scopes.spmd, "with pl.spmd(N): / with pl.spmd(N, deps=[...]) as tid:")
def _spmd_with(p: Any, node: ast.With, call: ast.Call) -> None:
    bound = bind(p, scopes.spmd, call)
    target = node.items[0].optional_vars
    if target is not None and state_of(p).enclosing("cluster") is not None:
        p.fail(
            ParserSyntaxError,
            "a pl.spmd inside pl.cluster() cannot bind a TaskId: the cluster unwraps it into its Group function",
            target,
            "move the pl.spmd out of the pl.cluster() to capture its TaskId",
        )
    tid_name = _tid_target(p, node, "pl.spmd", True)
    spmd = _spmd_options(p, call, bound, tid_name is not None)
    body, block, frame = _scope_body(p, node.body, "spmd")
    span = p.span(node)
    if _is_carrier(node, block):
        if spmd.opts is not None:
            p.fail(
                ParserSyntaxError,
                "optimizations= goes on the pl.at(...) that carries this pl.spmd body, not on pl.spmd(...)",
                bound["optimizations"],
                "with pl.spmd(N):\n    with pl.at(level=pl.Level.CORE_GROUP, " + _OPTIMIZATIONS + "):",
            )
    elif _reads_block_index(block.stmts):
        body = _incore_wrapper(spmd.opts, body, span)
    else:
        _check_single_dispatch(p, node, block.stmts)
        if spmd.opts is not None:
            body = _incore_wrapper(spmd.opts, body, span)
    attrs = {**spmd.attrs, **_common_attrs(p, bound, frame)}
    tid = _bind_tid(p, tid_name, target or node)
    if tid is not None:
        attrs["task_id_var"] = tid
        _record_scope_products(p, block.stmts, tid)
    _emit(p, ir.SpmdScopeStmt, (spmd.core_num, spmd.sync_start, spmd.name_hint), body, node, attrs)
    if tid is not None:
        p.vars[tid_name] = tid


def _indexed_body(
    p: Any, node: ast.For, index_op: str, kind: str, split: SplitMode | None = None
) -> tuple[ir.Stmt, ScopeFrame]:
    """The body of ``for i in pl.spmd(N)`` / ``pl.split_aiv(...)``: ``i = <index_op>()`` first, then
    the statements, with ``i`` bound only inside the loop."""
    name = node.target.id
    span = p.span(node.target)
    index = ir.Var(name, _INDEX, span)
    first = ir.AssignStmt(index, ir.create_op_call(index_op, [], span), span)
    saved = p.vars.get(name)
    p.vars[name] = index
    try:
        _, block, frame = _scope_body(p, node.body, kind, split)
    finally:
        if saved is None:
            p.vars.pop(name, None)
        else:
            p.vars[name] = saved
    return make_body([first, *block.stmts], span), frame


@register_for(scopes.spmd, "for i in pl.spmd(N):")
def _spmd_for(p: Any, node: ast.For, call: ast.Call) -> None:
    if type(node.target) is not ast.Name:
        p.fail(
            ParserSyntaxError,
            "for ... in pl.spmd(N) binds one name, the block index: for i in pl.spmd(N):",
            node.target,
            "bind the block index to a single plain name; pl.spmd carries no loop values",
        )
    bound = bind(p, scopes.spmd, call)
    spmd = _spmd_options(p, call, bound, False)
    body, frame = _indexed_body(p, node, "tile.get_block_idx", "spmd")
    inner = _incore_wrapper(spmd.opts, body, p.span(node))
    attrs = {**spmd.attrs, **_common_attrs(p, bound, frame)}
    _emit(p, ir.SpmdScopeStmt, (spmd.core_num, spmd.sync_start, spmd.name_hint), inner, node, attrs)


def _is_carrier(node: ast.With, block: Block) -> bool:
    """The body is a single ``with pl.at(<CORE_GROUP>)``: that InCore scope carries the kernel."""
    return (
        len(node.body) == 1
        and type(node.body[0]) is ast.With
        and len(block.stmts) == 1
        and type(block.stmts[0]) is ir.InCoreScopeStmt
    )


def _reads_block_index(stmts: list[ir.Stmt]) -> bool:
    return any(isinstance(c.op, ir.Op) and c.op.name in _BLOCK_INDEX_OPS for c in calls_in(stmts))


def _check_single_dispatch(p: Any, node: ast.With, stmts: list[ir.Stmt]) -> None:
    """A dispatch body launches exactly one kernel (later ones would be silently dropped)."""
    dispatches = [c for c in calls_in(stmts) if isinstance(c.op, ir.GlobalVar)]
    if not dispatches:
        p.fail(
            ParserSyntaxError,
            "the body of pl.spmd neither dispatches a kernel (self.kernel(...)) nor reads pl.tile.get_block_idx()",
            node,
            "call one kernel: `out = self.kernel(...)`, or write the kernel inline and read the block index "
            "(or use for i in pl.spmd(N):)",
        )
    if len(dispatches) > 1:
        first, second = dispatches[0].op.name, dispatches[1].op.name
        raise ParserSyntaxError(
            f"a dispatch-body pl.spmd launches exactly one kernel, but this body also dispatches '{second}' "
            f"after '{first}' (only the first would run)",
            dispatches[1].span,
            "use one pl.spmd per kernel, or make the body an inline kernel that reads pl.tile.get_block_idx()",
            source_lines=p.src.lines,
        )


def _record_scope_products(p: Any, stmts: list[ir.Stmt], tid: ir.Var) -> None:
    """Tensors assigned in a ``with pl.spmd(...) as tid`` body are produced by ``tid``."""
    state = state_of(p)
    for stmt in stmts:
        for item in walk(stmt):
            if isinstance(item, ir.AssignStmt) and isinstance(item.var.type, ir.TensorType):
                state.record_producer(item.var, Producer(tid, "pl.spmd"))


# ----- pl.split_aiv ----------------------------------------------------------------------------
def _split_aiv_args(p: Any, call: ast.Call) -> tuple[dict[str, Any], SplitMode, int]:
    bound = bind(p, scopes.split_aiv, call)
    mode = _enum(p, bound["mode"], SplitMode, "mode=")
    count = _positive_int(p, bound["count"], "the pl.split_aiv lane count") if "count" in bound else 2
    if count != 2:
        p.fail(ParserSyntaxError, f"pl.split_aiv({count}, ...): a cluster has 2 AIV lanes, so a region splits in 2",
               bound["count"], "write pl.split_aiv(2, mode=...); for more parts, loop over them inside each lane")
    if mode is SplitMode.NONE:
        p.fail(ParserSyntaxError, "pl.split_aiv needs the axis to split: mode=pl.SplitMode.NONE splits nothing",
               bound["mode"], "write mode=pl.SplitMode.UP_DOWN (rows) or mode=pl.SplitMode.LEFT_RIGHT (columns)")
    return bound, mode, count


@register_for(scopes.split_aiv, "for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):")
def _split_aiv_for(p: Any, node: ast.For, call: ast.Call) -> None:
    if type(node.target) is not ast.Name:
        p.fail(
            ParserSyntaxError,
            "for ... in pl.split_aiv(...) binds one name, the lane index",
            node.target,
            "for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):",
        )
    bound, mode, count = _split_aiv_args(p, call)
    body, frame = _indexed_body(p, node, "tile.get_subblock_idx", "split_aiv", mode)
    _emit(p, ir.SplitAivScopeStmt, (mode, count, _name_hint(p, bound)), body, node, _common_attrs(p, bound, frame))


@register_with(scopes.split_aiv, "with pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):")
def _split_aiv_with(p: Any, node: ast.With, call: ast.Call) -> None:
    bound, mode, count = _split_aiv_args(p, call)
    _tid_target(p, node, "pl.split_aiv", False)
    name_hint = _name_hint(p, bound)
    body, _, frame = _scope_body(p, node.body, "split_aiv", mode)
    _emit(p, ir.SplitAivScopeStmt, (mode, count, name_hint), body, node, _common_attrs(p, bound, frame))


def _split_from_region(fn: Any) -> None:
    # Inside a region ``split=`` may be left out (the printer leaves it out): it is the region's mode.
    @register_expr(fn)
    def _call(p: Any, call: ast.Call) -> Any:
        args, kwargs = p.call_arguments(call)
        region = state_of(p).enclosing("split_aiv")
        if region is not None and "split" not in kwargs:
            kwargs["split"] = int(region.split)
        return p.call_op(fn, call, args, kwargs)


for _fn in (tile_ops.aiv_shard, tile_ops.aic_gather, tensor_ops.aiv_shard, tensor_ops.aic_gather):
    _split_from_region(_fn)


# ----- misplaced option constructs --------------------------------------------------------------
def _option_only(construct: Any) -> None:
    @register_expr(construct)
    def _misplaced(p: Any, call: ast.Call) -> Any:
        p.fail(
            ParserSyntaxError,
            f"pl.{construct.__name__}(...) can only appear in optimizations=[...] of pl.at(...) or pl.spmd(...)",
            call,
            _OPTIMIZATIONS,
        )


_option_only(scopes.split)
_option_only(scopes.cross_core_slot)
