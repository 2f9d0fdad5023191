"""Specialisation: a ``@pl.jit`` entry and the helpers it calls, rewritten for one set of argument
metadata and parsed by pypto's own parser into one ``ir.Program`` (docs/jit.md#specialisation).

No text is generated: each user ``def`` is copied (its nodes keep their positions), rewritten, and
parsed with an environment whose first layer holds the specialised values, so every diagnostic
cites the user's file and line. Rewrites: tensor parameters get their full type; ``x.shape``,
``x.shape[i]`` and ``x.dtype`` fold (a dynamic dim becomes ``pl.tensor.dim(x, i)``); ``M, N =
x.shape`` / ``K = x.shape[1]`` of static dims are dropped and the names inlined; specialised scalar
parameters fold to their literal; ``x.bind_dynamic(k, M)`` and ``M = pl.dynamic("M")`` statements
go; ``helper(a, out=o)`` becomes ``self.helper(a, o)``, ``pl.submit(helper, ...)`` launches
``self.helper``. Module and closure constants need no
rewrite: the parser reads them from the function's environment.
"""

from __future__ import annotations

import ast
import copy
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import ParserError
from pypto.language.parser.env import MISSING as _MISSING
from pypto.language.parser.env import Env
from pypto.language.parser.functions import FunctionOptions, function_options, parse_signature
from pypto.language.parser.program import ProgramContext
from pypto.language.parser.source import SourceFile
from pypto.language.typing import DynVar, InOut, Out

from .aliases import Aliases, user_names
from .metadata import TensorMeta

if TYPE_CHECKING:
    from .function import JITFunction

_PL = "__jit_pl"  # the environment name of pypto.language in rewritten nodes
_FUNC_TYPES = {
    "orchestration": ir.FunctionType.Orchestration,
    "incore": ir.FunctionType.InCore,
    "inline": ir.FunctionType.Inline,
    "opaque": ir.FunctionType.Opaque,
}


@dataclass
class Binding:
    """What one function of the program is specialised for: tensor metadata and folded scalars by
    parameter name."""

    tensors: dict[str, TensorMeta] = field(default_factory=dict)
    scalars: dict[str, Any] = field(default_factory=dict)


def discover(entry: JITFunction) -> list[JITFunction]:
    """The helpers ``entry`` calls, transitively, leaf-first (each once; cycles are safe)."""
    order: list[JITFunction] = []
    seen: set[int] = {id(entry)}

    def visit(jf: JITFunction) -> None:
        for helper in jf.direct_helpers():
            if id(helper) not in seen:
                seen.add(id(helper))
                visit(helper)
                order.append(helper)

    visit(entry)
    return order


# The launches that take a kernel as their first argument, and their own keywords.
_LAUNCHES = (pl.submit, pl.spmd_submit)
_LAUNCH_KEYWORDS = frozenset({"deps", "predicate", "allow_early_resolve", "dumps", "core_num", "sync_start"})


def _launched(call: ast.Call, env: Env) -> ast.Call | None:
    """``helper(args)`` for ``pl.submit(helper, args, deps=...)`` (at the launch's position), else None."""
    if not (isinstance(call.func, ast.Attribute) and call.args and isinstance(call.args[0], ast.Name)):
        return None
    if not any(_safe_eval(call.func, env) is launch for launch in _LAUNCHES):
        return None
    keywords = [k for k in call.keywords if k.arg not in _LAUNCH_KEYWORDS]
    return ast.copy_location(ast.Call(call.args[0], call.args[1:], keywords), call)


def called_helpers(jf: JITFunction) -> Iterator[tuple[ast.Call, JITFunction]]:
    """Calls of a bare name in ``jf``'s body that resolve to a helper JITFunction, in source order;
    ``pl.submit(helper, ...)`` / ``pl.spmd_submit(helper, ...)`` count as ``helper(...)``."""
    from .function import HELPER_KINDS, JITFunction

    _, node = jf.source()
    env = jf.env()
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
        call = call if isinstance(call.func, ast.Name) else _launched(call, env)  # type: ignore[assignment]
        if call is None:
            continue
        target = env.lookup(call.func.id)  # type: ignore[attr-defined]
        if isinstance(target, JITFunction) and target.func_type in HELPER_KINDS:
            yield call, target


def dynamic_dims(jf: JITFunction) -> dict[tuple[str, int], DynVar]:
    """The dynamic dims of ``jf``'s tensor parameters: annotation dims holding a DynVar, and
    ``p.bind_dynamic(<int>, <name>)`` statements (which win)."""
    _, node = jf.source()
    env = jf.env()
    local_dyn = _local_dynvars(node)
    dims: dict[tuple[str, int], DynVar] = {}
    for arg in node.args.args:
        shape = _annotation_dims(arg.annotation)
        for axis, dim in enumerate(shape or []):
            value = local_dyn.get(dim.id) if isinstance(dim, ast.Name) else None
            value = value or (_safe_eval(dim, env) if isinstance(dim, ast.Name | ast.Call) else None)
            if isinstance(value, DynVar):
                dims[(arg.arg, axis)] = value
    for stmt in ast.walk(node):
        bound = _bind_dynamic(stmt)
        if bound is not None:
            param, axis, name = bound
            value = local_dyn.get(name) or env.lookup(name)
            if not isinstance(value, DynVar):
                value = DynVar(name)
            dims[(param, axis)] = value
    return dims


def _local_dynvars(node: ast.FunctionDef) -> dict[str, DynVar]:
    """``v = pl.dynamic("lit")`` statements of the body: ``v`` -> its DynVar."""
    out: dict[str, DynVar] = {}
    for stmt in ast.walk(node):
        lit = _dynamic_decl(stmt)
        if lit is not None:
            out[lit[0]] = DynVar(lit[1])
    return out


def _dynamic_decl(stmt: ast.AST) -> tuple[str, str] | None:
    if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute)
            and stmt.value.func.attr == "dynamic" and len(stmt.value.args) == 1
            and isinstance(stmt.value.args[0], ast.Constant) and isinstance(stmt.value.args[0].value, str)):
        return stmt.targets[0].id, stmt.value.args[0].value
    return None


def _bind_dynamic(stmt: ast.AST) -> tuple[str, int, str] | None:
    if (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "bind_dynamic"
            and isinstance(stmt.value.func.value, ast.Name) and len(stmt.value.args) == 2
            and isinstance(stmt.value.args[0], ast.Constant) and isinstance(stmt.value.args[0].value, int)
            and isinstance(stmt.value.args[1], ast.Name)):
        return stmt.value.func.value.id, stmt.value.args[0].value, stmt.value.args[1].id
    return None


def _annotation_dims(annotation: ast.expr | None) -> list[ast.expr] | None:
    """The dim nodes of ``pl.Tensor[[d0, d1], dt]`` (inside ``pl.Out[...]`` too), else None."""
    node = annotation
    while isinstance(node, ast.Subscript):
        items = node.slice
        if isinstance(items, ast.Tuple) and items.elts and isinstance(items.elts[0], ast.List):
            return list(items.elts[0].elts)
        node = items if isinstance(items, ast.Subscript) else None
    return None


def _safe_eval(node: ast.expr, env: Env) -> Any:
    """The value of a plain name or attribute chain in ``env`` (None if not one)."""
    if isinstance(node, ast.Name):
        value = env.lookup(node.id)
        return None if value is _MISSING else value
    if isinstance(node, ast.Attribute):
        base = _safe_eval(node.value, env)
        return getattr(base, node.attr, None) if base is not None else None
    return None


def _direction_head(annotation: ast.expr | None, env: Env) -> ast.expr | None:
    """The ``pl.Out`` / ``pl.InOut`` head of a directed annotation."""
    if isinstance(annotation, ast.Subscript) and _safe_eval(annotation.value, env) in (Out, InOut):
        return annotation.value
    return None


def _is_tensor_annotation(annotation: ast.expr | None, env: Env) -> bool:
    node = annotation
    head = _direction_head(node, env)
    if head is not None:
        node = node.slice  # type: ignore[union-attr]
    target = node.value if isinstance(node, ast.Subscript) else node
    return target is not None and _safe_eval(target, env) is pl.Tensor


class _Rewriter(ast.NodeTransformer):
    """The body rewrites of one function (see the module docstring)."""

    def __init__(self, spec: _FunctionSpec) -> None:
        self.spec = spec
        self.inlined: dict[str, ast.expr] = {}  # names of dropped shape assignments -> their value

    def _here(self, new: ast.AST, old: ast.AST) -> Any:
        return ast.fix_missing_locations(ast.copy_location(new, old))

    def _pl(self, old: ast.AST, *attrs: str) -> ast.expr:
        node: ast.expr = ast.Name(_PL, ast.Load())
        for a in attrs:
            node = ast.Attribute(node, a, ast.Load())
        return self._here(node, old)

    def _dim(self, param: str, axis: int, old: ast.AST) -> ast.expr:
        meta = self.spec.binding.tensors[param]
        size = meta.shape[axis]
        if size is not None:
            return self._here(ast.Constant(size), old)
        call = ast.Call(self._pl(old, "tensor", "dim"), [ast.Name(param, ast.Load()), ast.Constant(axis)], [])
        return self._here(call, old)

    def _tensor_attr(self, node: ast.expr) -> tuple[str, str] | None:
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in self.spec.binding.tensors and node.value.id not in self.spec.assigned):
            return node.value.id, node.attr
        return None

    def _shape_item(self, node: ast.expr) -> tuple[str, int] | None:
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            attr = self._tensor_attr(node.value)
            index = node.slice.value
            if attr is not None and attr[1] == "shape" and isinstance(index, int) and not isinstance(index, bool):
                rank = len(self.spec.binding.tensors[attr[0]].shape)
                if -rank <= index < rank:
                    return attr[0], index % rank
        return None

    # ---- statements ------------------------------------------------------------------------------

    def visit_Expr(self, node: ast.Expr) -> Any:
        if _bind_dynamic(node) is not None:
            return None
        return self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> Any:
        if _dynamic_decl(node) is not None:
            return None
        if len(node.targets) == 1:
            target = node.targets[0]
            item = self._shape_item(node.value)
            if isinstance(target, ast.Name) and item is not None and self._static(*item):
                self.inlined[target.id] = self._dim(*item, node.value)
                return None
            attr = self._tensor_attr(node.value)
            if isinstance(target, ast.Tuple) and attr is not None and attr[1] == "shape":
                return self._unpack_shape(node, target, attr[0])
        for t in node.targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    self.inlined.pop(n.id, None)
        return self.generic_visit(node)

    def _static(self, param: str, axis: int) -> bool:
        return self.spec.binding.tensors[param].shape[axis] is not None

    def _unpack_shape(self, node: ast.Assign, target: ast.Tuple, param: str) -> Any:
        rank = len(self.spec.binding.tensors[param].shape)
        names = target.elts
        if len(names) != rank or not all(isinstance(n, ast.Name) for n in names):
            return self.generic_visit(node)
        out: list[ast.stmt] = []
        for axis, name in enumerate(names):
            value = self._dim(param, axis, node.value)
            if self._static(param, axis):
                self.inlined[name.id] = value  # type: ignore[attr-defined]
            else:
                target = ast.Name(name.id, ast.Store())  # type: ignore[attr-defined]
                out.append(self._here(ast.Assign([target], value), node))
        return out

    # ---- expressions -----------------------------------------------------------------------------

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        item = self._shape_item(node)
        if item is not None:
            return self._dim(*item, node)
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        attr = self._tensor_attr(node)
        if attr is not None and attr[1] == "shape":
            rank = len(self.spec.binding.tensors[attr[0]].shape)
            return self._here(ast.Tuple([self._dim(attr[0], k, node) for k in range(rank)], ast.Load()), node)
        if attr is not None and attr[1] == "dtype":
            return self._pl(node, self.spec.binding.tensors[attr[0]].dtype.name)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> Any:
        if isinstance(node.ctx, ast.Load):
            if node.id in self.inlined:
                return copy.deepcopy(self.inlined[node.id])
            if node.id in self.spec.binding.scalars and node.id not in self.spec.assigned:
                return self._here(ast.Constant(self.spec.binding.scalars[node.id]), node)
        return node

    def visit_Call(self, node: ast.Call) -> Any:
        helper = self.spec.helpers.get(_site(node))
        node = self.generic_visit(node)  # type: ignore[assignment]
        if helper is None:
            return node
        if not isinstance(node.func, ast.Name):  # pl.submit(helper, ...): launch self.helper
            kernel = ast.Attribute(self._here(ast.Name("self", ast.Load()), node), helper.__name__, ast.Load())
            node.args[0] = self._here(kernel, node.args[0])
            return node
        args = list(node.args)
        names = helper.param_names()
        by_name = {k.arg: k.value for k in node.keywords if k.arg is not None}
        for name in names[len(args):]:
            if name in by_name:
                args.append(by_name.pop(name))
            else:
                break
        if by_name or any(k.arg is None for k in node.keywords):
            raise self.spec.fail(f"call of helper '{helper.__name__}' passes keywords its parameters do not take "
                                 "in order", node)
        func = ast.Attribute(self._here(ast.Name("self", ast.Load()), node), helper.__name__, ast.Load())
        return self._here(ast.Call(self._here(func, node), args, []), node)


@dataclass
class _FunctionSpec:
    """One function of the program being specialised."""

    jf: JITFunction
    binding: Binding
    src: SourceFile
    helpers: dict[tuple[int, int], JITFunction]  # a call's (line, column) -> the helper it calls
    assigned: set[str]

    def fail(self, message: str, node: ast.AST) -> ParserError:
        from pypto.language.parser.diagnostics import ParserTypeError

        return ParserTypeError(f"@pl.jit function '{self.jf.__name__}': {message}", self.src.span(node))


def _site(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


def _assigned_names(node: ast.FunctionDef) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def specialise(
    entry: JITFunction, binding: Binding, dyn: dict[tuple[str, int], DynVar]
) -> tuple[ir.Program, dict[str, str]]:
    """The program of ``entry`` and its helpers for ``binding``, and its aliases (alias -> the user's name)."""
    from .call_site import call_site_binding  # it reads this module's Binding and annotation helpers

    helpers = discover(entry)
    bindings: dict[int, Binding] = {id(entry): binding}
    dyns: dict[int, dict[tuple[str, int], DynVar]] = {id(entry): dyn}
    ctx = ProgramContext(entry.__name__)
    sources: dict[str, SourceFile] = {}
    renamed: dict[str, str] = {}  # alias -> the user's name, over all functions
    parsed: list[tuple[JITFunction, ast.FunctionDef, Env, FunctionOptions]] = []
    # Reversed post-order puts every caller before its callees: a call site fills its callee's binding.
    for jf in [entry, *reversed(helpers)]:
        src, node = jf.source()
        sources[src.filename] = src
        spec = _FunctionSpec(jf, bindings[id(jf)], src, {}, _assigned_names(node))
        for call, helper in called_helpers(jf):
            spec.helpers[_site(call)] = helper
            if id(helper) not in bindings:
                bindings[id(helper)] = call_site_binding(spec, call, helper)
                dyns[id(helper)] = {**dynamic_dims(helper), **_inherited_dims(spec, call, helper, dyns[id(jf)])}
        new, overlay, original = _rewrite(spec, node, dyns[id(jf)])
        renamed.update(original)
        env = jf.env()
        env = Env([overlay, *env.layers], is_text=False)
        parsed.append((jf, new, env, jf.options()))
    try:
        for jf, new, env, options in [parsed[0], *reversed(parsed[1:])]:  # leaf-first
            src, _ = jf.source()
            ctx.add_signature(parse_signature(src, env, new, options, ctx), src.span(new))
        return ctx.build(entry.source()[0].span(entry.source()[1])), renamed
    except ParserError as err:
        src = sources.get(err.location.filename)
        if src is not None:
            err.attach_source(src.lines)
        if err.message is not None:
            err.message = user_names(err.message, renamed)
        if err.hint is not None:
            err.hint = user_names(err.hint, renamed)
        raise


def _inherited_dims(caller: _FunctionSpec, call: ast.Call, helper: JITFunction,
                    dyn: dict[tuple[str, int], DynVar]) -> dict[tuple[str, int], DynVar]:
    names = helper.param_names()
    pairs = list(zip(names, call.args)) + [(k.arg, k.value) for k in call.keywords if k.arg is not None]
    out: dict[tuple[str, int], DynVar] = {}
    for name, arg in pairs:
        if isinstance(arg, ast.Name):
            out.update({(name, axis): var for (p, axis), var in dyn.items() if p == arg.id})
    return out


def _rewrite(spec: _FunctionSpec, node: ast.FunctionDef,
             dyn: dict[tuple[str, int], DynVar]) -> tuple[ast.FunctionDef, dict[str, Any], dict[str, str]]:
    """The rewritten copy of ``node``, the environment layer its new names read, and its aliases."""
    env = spec.jf.env()
    overlay: dict[str, Any] = {_PL: pl}
    # A body's ``R = pl.dynamic("R")`` is the DynVar of the dims it is bound to: one ir.Var in types and body.
    dims_by_name = {var.name: var for var in dyn.values()}
    overlay.update({name: dims_by_name.get(var.name, var) for name, var in _local_dynvars(node).items()})
    new = copy.deepcopy(node)
    new.decorator_list = []
    new.args.defaults = []
    new.args.kw_defaults = []
    for arg in new.args.args:
        head = _direction_head(arg.annotation, env)
        if head is not None and spec.jf.func_type == "inline":  # inlined: the caller's buffer is written anyway
            warnings.warn(f"@pl.jit.inline '{spec.jf.__name__}': parameter '{arg.arg}' drops its pl.Out/pl.InOut "
                          "wrapper (an inline helper writes the caller's tensor directly)", DeprecationWarning,
                          stacklevel=2)
            arg.annotation = arg.annotation.slice  # type: ignore[union-attr]
        meta = spec.binding.tensors.get(arg.arg)
        if meta is not None:
            meta = TensorMeta(tuple(None if (arg.arg, k) in dyn else d for k, d in enumerate(meta.shape)), meta.dtype)
            spec.binding.tensors[arg.arg] = meta
            dims = [d if d is not None else dyn[(arg.arg, k)] for k, d in enumerate(meta.shape)]
            layout = _layout(arg.annotation, env)
            items = (dims, meta.dtype, layout) if layout is not None else (dims, meta.dtype)
            name = f"__jit_t_{arg.arg}"
            overlay[name] = pl.Tensor[items]
            plain = ast.copy_location(ast.Name(name, ast.Load()), arg.annotation or arg)
            head = _direction_head(arg.annotation, env)
            arg.annotation = ast.fix_missing_locations(
                ast.copy_location(ast.Subscript(head, plain, ast.Load()), arg.annotation) if head is not None else plain
            )
        elif _is_tensor_annotation(arg.annotation, env) and _annotation_dims(arg.annotation) is None:
            raise ValueError(f"@pl.jit: missing inferred tensor metadata for parameter '{arg.arg}' of "
                             f"'{spec.jf.__name__}' ({spec.src.filename}:{arg.lineno})")
    rewriter = _Rewriter(spec)
    new.body = [s for stmt in new.body for s in _as_list(rewriter.visit(stmt))]
    aliases = Aliases(new)
    aliases.run(new)
    if new.returns is None:
        new.returns = _return_annotation(new, overlay, env, aliases.original)
    return new, overlay, aliases.original


def _layout(annotation: ast.expr | None, env: Env) -> Any:
    """The third slot of ``pl.Tensor[[...], dt, layout]`` when written (a TensorView there is refused)."""
    node = annotation
    if _direction_head(node, env) is not None:
        node = node.slice  # type: ignore[union-attr]
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) >= 3:
        value = _safe_eval(node.slice.elts[2], env)
        if value is not None and not isinstance(value, ir.TensorLayout):
            raise TypeError(f"@pl.jit: the third slot of a parameter annotation must be a layout (pl.ND, pl.DN, "
                            f"pl.NZ), got {value!r}")
        return value
    return None


def _return_annotation(node: ast.FunctionDef, overlay: dict[str, Any], env: Env,
                       original: dict[str, str]) -> ast.expr | None:
    """``return a`` of a tensor parameter (or an alias of one): its type; ``return a, b``: the tuple
    of them; another returned value: the first ``Out`` parameter's type."""
    last = node.body[-1] if node.body else None
    if not isinstance(last, ast.Return) or last.value is None:
        return None
    declared: dict[str, ast.expr] = {}
    for arg in node.args.args:
        ann = arg.annotation
        ann = ann.slice if _direction_head(ann, env) is not None else ann  # type: ignore[union-attr]
        if f"__jit_t_{arg.arg}" in overlay or (_is_tensor_annotation(ann, env) and _annotation_dims(ann) is not None):
            declared[arg.arg] = ann  # type: ignore[assignment]
    values = last.value.elts if isinstance(last.value, ast.Tuple) else [last.value]
    names = [original.get(v.id, v.id) if isinstance(v, ast.Name) else "" for v in values]
    if not all(n in declared for n in names):
        outs = [a.arg for a in node.args.args if _direction_head(a.annotation, env) is not None and a.arg in declared]
        if len(values) != 1 or not outs or isinstance(last.value, ast.Call):
            return None
        names = outs[:1]
    items = [copy.deepcopy(declared[n]) for n in names]
    ann: ast.expr = items[0] if len(items) == 1 and not isinstance(last.value, ast.Tuple) else ast.Subscript(
        ast.Name("tuple", ast.Load()), ast.Tuple(items, ast.Load()), ast.Load())
    return ast.fix_missing_locations(ast.copy_location(ann, last))


def _as_list(value: Any) -> list[ast.stmt]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def options_for(kind: str, level: Any, auto_scope: bool) -> FunctionOptions:
    """The ``@pl.function`` options of a JITFunction kind."""
    return function_options(type=_FUNC_TYPES[kind], level=level, auto_scope=auto_scope)


__all__ = ["Binding", "discover", "dynamic_dims", "options_for", "specialise"]
