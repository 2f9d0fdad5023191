"""What a call site tells a helper about its parameters (docs/jit.md#forms).

A helper is specialised from its first call site: an argument passes on the metadata the caller
knows of it. Known are the caller's tensor parameters and the locals it makes with
``pl.create_tensor([shape], dtype=...)``, ``pl.slice(t, [shape], [offset])``, ``pl.reshape(t,
[shape])``, a subscript of a known tensor (``t[i]`` drops a leading dim per integer index,
``t[0:16, :]`` keeps a dim per slice), and ``v1, ..., vk = helper2(...)`` (``vi`` is the argument
of ``helper2``'s i-th ``pl.Out``/``pl.InOut`` parameter). Shapes must be static: literals,
folded scalars, constants and static dims. Scalars pass their literal or folded value.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from pypto import ir

from .metadata import TensorMeta
from .specialize import Binding, _direction_head, _FunctionSpec, _safe_eval

if TYPE_CHECKING:
    from .function import JITFunction


def call_site_binding(caller: _FunctionSpec, call: ast.Call, helper: JITFunction) -> Binding:
    """The metadata ``call`` passes on to ``helper``'s parameters."""
    site = _Site(caller)
    out = Binding()
    for name, arg in _pairs(call, helper):
        meta = site.tensor(arg)
        if meta is not None:
            out.tensors[name] = meta
        elif isinstance(arg, ast.Name) and arg.id in caller.binding.scalars and arg.id not in caller.assigned:
            out.scalars[name] = caller.binding.scalars[arg.id]
        elif isinstance(arg, ast.Constant) and type(arg.value) in (int, float, bool):
            out.scalars[name] = arg.value
    return out


def _pairs(call: ast.Call, helper: JITFunction) -> list[tuple[str, ast.expr]]:
    """(parameter, argument) of ``call``: positional by index, keywords by name."""
    names = helper.param_names()
    return list(zip(names, call.args)) + [(k.arg, k.value) for k in call.keywords if k.arg is not None]


class _Site:
    """The tensors and static sizes a caller's body makes, read in line order."""

    def __init__(self, caller: _FunctionSpec) -> None:
        self.caller = caller
        self.env = caller.jf.env()
        self.sizes: dict[str, int] = {}  # names bound to static ints: K = a.shape[1], M, N = a.shape
        self.made: dict[str, TensorMeta] = {}
        _, node = caller.jf.source()
        for stmt in sorted((n for n in ast.walk(node) if isinstance(n, ast.Assign)), key=lambda n: n.lineno):
            if len(stmt.targets) == 1:
                self._assign(stmt.targets[0], stmt.value)

    def _assign(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Attribute) and value.attr == "shape":
            meta = self.tensor(value.value)
            if meta is not None and len(target.elts) == len(meta.shape):
                self.sizes.update({t.id: d for t, d in zip(target.elts, meta.shape) if isinstance(t, ast.Name) and d})
        elif isinstance(target, ast.Name):
            size = self.int_value(value)
            if size is not None:
                self.sizes[target.id] = size
            meta = self._made_by(value)
            if meta is not None:
                self.made.setdefault(target.id, meta)
        if isinstance(value, ast.Call):
            names = target.elts if isinstance(target, ast.Tuple) else [target]
            for name, meta in zip(names, self._helper_outputs(value)):
                if isinstance(name, ast.Name) and meta is not None:
                    self.made.setdefault(name.id, meta)

    def tensor(self, node: ast.expr) -> TensorMeta | None:
        """The metadata of the tensor ``node`` names or subscripts, if known."""
        if isinstance(node, ast.Name):
            known = self.caller.binding.tensors.get(node.id)  # a parameter rebound keeps its buffer
            return known if known is not None else self.made.get(node.id)
        if isinstance(node, ast.Subscript):
            return self._subscript(node)
        return None

    def _made_by(self, value: ast.expr) -> TensorMeta | None:
        if isinstance(value, ast.Subscript):
            return self._subscript(value)
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.args):
            return None
        op = value.func.attr
        if op == "create_tensor" and isinstance(value.args[0], ast.List):
            return self._shaped(value.args[0], self._dtype(value, 1))
        source = self.tensor(value.args[0])
        shape = _argument(value, 1, "shape")
        if op not in ("slice", "reshape") or source is None or not isinstance(shape, ast.List):
            return None
        meta = self._shaped(shape, source.dtype)
        if meta is None or op == "reshape":
            return meta
        dropped = _argument(value, 4, "drop_dims")
        if dropped is None:
            return meta
        axes = [self.int_value(a) for a in dropped.elts] if isinstance(dropped, ast.List | ast.Tuple) else [None]
        if any(a is None for a in axes):
            return None
        return TensorMeta(tuple(d for i, d in enumerate(meta.shape) if i not in axes), meta.dtype)

    def _subscript(self, node: ast.Subscript) -> TensorMeta | None:
        source = self.tensor(node.value)
        if source is None:
            return None
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(items) > len(source.shape):
            return None
        shape: list[int | None] = []
        for item, dim in zip(items, source.shape):
            if not isinstance(item, ast.Slice):
                continue  # an integer index drops the dim
            if item.step is not None:
                return None
            start = 0 if item.lower is None else self.int_value(item.lower)
            stop = dim if item.upper is None else self.int_value(item.upper)
            if start is None or stop is None:
                return None
            shape.append(stop - start)
        return TensorMeta((*shape, *source.shape[len(items):]), source.dtype)

    def _helper_outputs(self, call: ast.Call) -> list[TensorMeta | None]:
        """Per ``pl.Out``/``pl.InOut`` parameter of the helper ``call`` calls, its argument's metadata."""
        from .function import HELPER_KINDS, JITFunction

        helper = self.env.lookup(call.func.id) if isinstance(call.func, ast.Name) else None
        if not isinstance(helper, JITFunction) or helper.func_type not in HELPER_KINDS:
            return []
        _, node = helper.source()
        env = helper.env()
        outputs = [a.arg for a in node.args.args if _direction_head(a.annotation, env) is not None]
        args = dict(_pairs(call, helper))
        return [self.tensor(args[name]) if name in args else None for name in outputs]

    def _shaped(self, dims: ast.List, dtype: ir.DataType | None) -> TensorMeta | None:
        shape = [self.int_value(d) for d in dims.elts]
        if dtype is None or any(d is None for d in shape):
            return None
        return TensorMeta(tuple(shape), dtype)

    def _dtype(self, call: ast.Call, index: int) -> ir.DataType | None:
        node = _argument(call, index, "dtype")
        if node is None:
            return None
        if isinstance(node, ast.Attribute) and node.attr == "dtype":
            meta = self.tensor(node.value)
            if meta is not None:
                return meta.dtype
        value = _safe_eval(node, self.env)
        return value if isinstance(value, ir.DataType) else None

    def int_value(self, node: ast.expr) -> int | None:
        """The value of a static integer expression (literals, folded scalars, constants, static dims)."""
        if isinstance(node, ast.Constant):
            return node.value if type(node.value) is int else None
        if isinstance(node, ast.Name):
            if node.id in self.sizes:
                return self.sizes[node.id]
            assigned = node.id in self.caller.assigned
            value = self.caller.binding.scalars.get(node.id) if not assigned else None
            value = value if value is not None else _safe_eval(node, self.env)
            return value if type(value) is int else None
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
                and isinstance(node.slice, ast.Constant)):
            meta = self.tensor(node.value.value)
            index = node.slice.value
            if meta is not None and type(index) is int and -len(meta.shape) <= index < len(meta.shape):
                return meta.shape[index]
            return None
        if isinstance(node, ast.BinOp) and type(node.op) in _INT_OPS:
            left, right = self.int_value(node.left), self.int_value(node.right)
            if left is not None and right is not None and not (isinstance(node.op, ast.FloorDiv) and right == 0):
                return _INT_OPS[type(node.op)](left, right)
        return None


_INT_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
            ast.FloorDiv: lambda a, b: a // b}


def _argument(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    """The argument of ``call`` at position ``index`` or named ``keyword``."""
    named = next((k.value for k in call.keywords if k.arg == keyword), None)
    return named if named is not None else (call.args[index] if len(call.args) > index else None)
