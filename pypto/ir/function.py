"""Functions and programs."""

from __future__ import annotations

from typing import Any

from .attrs import FunctionAttrs
from .enums import FunctionType, Level, ParamDirection, Role, SplitMode
from .errors import IRTypeError, IRValueError
from .expr import GlobalVar, Var
from .node import Bool, IRNode, Str
from .stmt import Stmt
from .type_base import Type

# The level and role a function of each of these kinds gets unless it is given one.
DERIVED_LEVEL_ROLE: dict[FunctionType, tuple[Level, Role]] = {
    FunctionType.Orchestration: (Level.CHIP, Role.Orchestrator),
    FunctionType.Graph: (Level.CHIP, Role.Orchestrator),
    FunctionType.InCore: (Level.CHIP_DIE, Role.SubWorker),
    FunctionType.AIC: (Level.AIC, Role.SubWorker),
    FunctionType.AIV: (Level.AIV, Role.SubWorker),
    FunctionType.Group: (Level.CORE_GROUP, Role.SubWorker),
}


class Function(IRNode):
    """A function: ``Function(name, params, return_types, body, span, type=FunctionType.Opaque,
    level=None, role=None, attrs=None, requires_runtime_binding=False)``.

    ``params`` items are Vars (direction In) or ``(Var, ParamDirection)`` pairs. Level and role are
    derived from the function type where the table of docs/ir.md#functions fixes them.
    """

    name: Str
    params: list[Var]
    param_directions: list[ParamDirection]
    return_types: list[Type]
    body: Stmt
    func_type: FunctionType = FunctionType.Opaque
    level: Level | None = None
    role: Role | None = None
    attrs: FunctionAttrs = FunctionAttrs()
    requires_runtime_binding: Bool = False
    _positional = ("name", "params", "return_types", "body", "span", "type", "level", "role", "attrs",
                   "requires_runtime_binding")
    _defs = ("params",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names = self._positional
        if len(args) > len(names):
            raise IRTypeError(f"Function() takes at most {len(names)} positional arguments")
        for name, value in zip(names, args):
            if name in kwargs:
                raise IRTypeError(f"Function() got multiple values for argument '{name}'")
            kwargs[name] = value
        if "type" in kwargs:
            kwargs["func_type"] = kwargs.pop("type")
        kwargs["attrs"] = FunctionAttrs.for_node(f"Function '{kwargs.get('name')}'", kwargs.get("attrs"))
        if "param_directions" not in kwargs:
            given = kwargs.get("params", [])
            params, dirs = [], []
            for p in given if isinstance(given, (list, tuple)) else ():  # else the field check reports it
                if isinstance(p, tuple):
                    if len(p) != 2:
                        raise IRTypeError("Function: a parameter pair must be (Var, ParamDirection)")
                    params.append(p[0])
                    dirs.append(p[1])
                else:
                    params.append(p)
                    dirs.append(ParamDirection.In)
            if isinstance(given, (list, tuple)):
                kwargs["params"] = params
            kwargs["param_directions"] = dirs
        func_type = kwargs.get("func_type", FunctionType.Opaque)
        derived = DERIVED_LEVEL_ROLE.get(func_type) if isinstance(func_type, FunctionType) else None
        if derived is not None:
            for key, value in zip(("level", "role"), derived):
                given = kwargs.get(key)
                if given is not None and given != value:
                    raise IRValueError(
                        f"Function '{kwargs.get('name')}': {key} {given.name} contradicts function type "
                        f"{func_type.name} (which implies {value.name})"
                    )
                kwargs[key] = value
        super().__init__(**kwargs)
        if len(self.params) != len(self.param_directions):
            raise IRValueError(f"Function '{self.name}': params and param_directions differ in length")

    @property
    def split(self) -> SplitMode | None:
        """``attrs["split"]``, or None."""
        return self.attrs.split


class Program(IRNode):
    """A set of functions keyed by ``GlobalVar``, ordered by name: ``Program(functions, name, span)``."""

    functions: dict[GlobalVar, Function]
    name: Str = ""
    _positional = ("functions", "name", "span")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        for name, value in zip(self._positional, args):
            kwargs[name] = value
        funcs = kwargs.get("functions")
        if isinstance(funcs, (list, tuple)):
            by_name: dict[str, Function] = {}
            for f in funcs:
                if not isinstance(f, Function):
                    raise IRTypeError(f"Program: functions must be Function nodes, got {type(f).__name__}")
                if f.name in by_name:
                    raise IRValueError(f"Program: duplicate function name '{f.name}'")
                by_name[f.name] = f
            kwargs["functions"] = {GlobalVar(n): by_name[n] for n in sorted(by_name)}
        elif isinstance(funcs, dict):
            for gv, f in funcs.items():
                if isinstance(gv, GlobalVar) and isinstance(f, Function) and gv.name != f.name:
                    raise IRValueError(f"Program: GlobalVar '{gv.name}' names function '{f.name}'")
            kwargs["functions"] = dict(sorted(funcs.items(), key=lambda kv: getattr(kv[0], "name", "")))
        super().__init__(**kwargs)

    def get_function(self, name: str) -> Function | None:
        """The function called ``name``, or None."""
        return self.functions.get(GlobalVar(name))

    def get_global_var(self, name: str) -> GlobalVar | None:
        """The GlobalVar key of the function called ``name``, or None."""
        for gv in self.functions:
            if gv.name == name:
                return gv
        return None

    def __getitem__(self, name: str) -> Function | None:
        return self.get_function(name)


