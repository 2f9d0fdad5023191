"""``JITFunction``: a ``@pl.jit`` function; calling it specialises, compiles (once per key) and runs
(docs/jit.md#cache-key, docs/jit.md#signature-mode)."""

from __future__ import annotations

import ast
import ctypes
import hashlib
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pypto.compiled import CompiledProgram
from pypto.ir import DataType
from pypto.language.parser.diagnostics import ParserError
from pypto.language.parser.env import MISSING, Env
from pypto.language.parser.functions import FunctionOptions
from pypto.language.parser.source import SourceFile, locate_function
from pypto.language.typing.scalar import RuntimeScalarMarker

from .aliases import errors_in_user_names
from .metadata import tensor_meta
from .specialize import Binding, dynamic_dims, options_for, specialise

# The kinds a call of a bare name pulls into the caller's program.
HELPER_KINDS = frozenset({"incore", "inline", "opaque"})
KINDS = ("orchestration", "incore", "inline", "opaque")
_CONSTANT_TYPES = (bool, int, float)


@dataclass(frozen=True)
class _Key:
    """Everything that changes the artifact (docs/jit.md#cache-key lists how it differs from the
    established key)."""

    source: str
    platform: str | None
    strategy: str
    tensors: tuple[tuple[str, tuple[int | None, ...], str], ...]
    scalars: tuple[tuple[str, str, Any], ...]
    constants: tuple[tuple[str, str, str, Any], ...]
    options: tuple[tuple[str, str], ...]


class JITFunction:
    """A function decorated with ``@pl.jit`` (or ``.incore`` / ``.inline`` / ``.opaque``).

    ``kernel(*args, config=None, **kwargs)`` reads the shapes and dtypes of its tensor arguments
    (CPU torch tensors or numpy arrays), compiles the specialised program once per cache key and
    runs it on a2a3sim, writing outputs into the caller's tensors; ``compile`` returns the
    ``CompiledProgram``, ``lower`` the IR after the passes.
    """

    def __init__(self, func: Any, func_type: str | None = None, level: Any = None, auto_scope: bool = True) -> None:
        kind = "orchestration" if func_type is None else func_type
        if kind not in KINDS:
            raise ValueError(f"JITFunction: func_type must be one of {', '.join(KINDS)}, got {func_type!r}")
        self.func = func
        self.func_type = kind
        self.level = level
        self.auto_scope = auto_scope
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.__module__ = func.__module__
        self.__qualname__ = getattr(func, "__qualname__", func.__name__)
        self.__wrapped__ = func
        self._cache: dict[_Key, CompiledProgram] = {}
        self._source: tuple[SourceFile, ast.FunctionDef] | None = None
        self._helpers: list[JITFunction] | None = None
        self._static: tuple[str, list[JITFunction], list[str], dict[tuple[str, int], Any]] | None = None

    def __repr__(self) -> str:
        return f"JITFunction('{self.__name__}', func_type='{self.func_type}')"

    # ---- what the specialiser reads ------------------------------------------------------------

    def source(self) -> tuple[SourceFile, ast.FunctionDef]:
        """The user's file and ``def`` node (OSError when the source cannot be read)."""
        if self._source is None:
            try:
                self._source = locate_function(self.func)
            except ParserError as err:
                code = self.func.__code__
                raise OSError(f"@pl.jit cannot retrieve source code for '{self.__name__}' (defined at "
                              f"{code.co_filename}:{code.co_firstlineno}); define it in a file, not in a REPL, "
                              "notebook cell or exec") from err
        return self._source

    def env(self) -> Env:
        """The names the body reads: closure, module globals, builtins."""
        return Env.of_function(self.func)

    def options(self) -> FunctionOptions:
        return options_for(self.func_type, self.level, self.auto_scope)

    def param_names(self) -> list[str]:
        return list(inspect.signature(self.func).parameters)

    def direct_helpers(self) -> list[JITFunction]:
        """The helpers this function calls directly, in first-appearance order (computed once)."""
        if self._helpers is None:
            from .specialize import called_helpers

            found: dict[int, JITFunction] = {}
            for _, helper in called_helpers(self):
                found.setdefault(id(helper), helper)
            self._helpers = list(found.values())
        return self._helpers

    def _statics(self) -> tuple[str, list[JITFunction], list[tuple[JITFunction, list[str]]], dict[Any, Any]]:
        """Once per JITFunction: the source digest, the helpers, the names each body reads (for the
        constants in the key, looked up in that function's own environment) and the dynamic dims."""
        if self._static is None:
            from importlib.metadata import version

            from .specialize import discover

            helpers = discover(self)
            digest = hashlib.sha256(version("pypto").encode())
            reads: list[tuple[JITFunction, list[str]]] = []
            for jf in [self, *helpers]:
                src, node = jf.source()
                digest.update("".join(src.lines[node.lineno - 1 : node.end_lineno]).encode())
                names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
                reads.append((jf, sorted(names)))
            self._static = (digest.hexdigest()[:16], helpers, reads, dynamic_dims(self))
        return self._static

    # ---- calls ---------------------------------------------------------------------------------

    def __call__(self, *args: Any, config: Any = None, **kwargs: Any) -> Any:
        bound = self._bind(args, kwargs, sample=True)
        compiled = self._compiled(bound, config, run=True)
        call_args = list(bound.values())
        if config is not None:
            return compiled(*call_args, config=config)
        return compiled(*call_args)

    def compile(self, *args: Any, config: Any = None, **kwargs: Any) -> CompiledProgram:
        """The ``CompiledProgram`` a call with these arguments runs (the same cached object).

        Without positional arguments and tensor keywords (signature mode), tensor parameters need
        full annotations and scalars a keyword or default (``pl.RUNTIME`` leaves one unfolded).
        """
        return self._compiled(self._bind(args, kwargs, sample=bool(args)), config)

    def lower(self, *args: Any, config: Any = None, **kwargs: Any) -> Any:
        """The ``ir.Program`` after the pass pipeline, for the same specialisation (no codegen, no cache)."""
        from pypto.backend import BackendType, platform_for
        from pypto.passes import OptimizationStrategy, PassContext, PassManager

        _check_config(config)
        program, renamed = self._program(self._bind(args, kwargs, sample=bool(args)), config)
        strategy = getattr(config, "strategy", None) or OptimizationStrategy.Default
        backend = getattr(config, "backend_type", None) or BackendType.Ascend910B
        with PassContext.for_platform(platform_for(BackendType(backend))):
            with errors_in_user_names(renamed):
                return PassManager.get_strategy(OptimizationStrategy(strategy)).run_passes(program)

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any], sample: bool) -> dict[str, Any]:
        signature = inspect.signature(self.func)
        try:
            bound = signature.bind(*args, **kwargs) if sample else signature.bind_partial(*args, **kwargs)
        except TypeError as err:
            raise TypeError(f"@pl.jit function '{self.__name__}': {err}") from None
        bound.apply_defaults()
        values = dict(bound.arguments)
        if not sample:
            self._check_signature_mode(values)
        for name, value in values.items():
            if isinstance(value, RuntimeScalarMarker) and sample:
                raise TypeError(f"@pl.jit function '{self.__name__}': pl.RUNTIME passed for '{name}'; it only marks "
                                "a run-time scalar in signature mode (.compile() / .lower() with no sample tensors)")
        return values

    def _binding(self, values: dict[str, Any]) -> Binding:
        """Tensor metadata and folded scalars of the bound arguments; any other hashable value (a
        ctypes scalar, say) leaves its parameter unfolded and is only passed on at dispatch."""
        from .specialize import _is_tensor_annotation

        binding = Binding()
        _, node = self.source()
        env = self.env()
        tensor_params = {a.arg for a in node.args.args if _is_tensor_annotation(a.annotation, env)}
        for name, value in values.items():
            try:
                meta = tensor_meta(value, name)
            except TypeError as err:
                raise TypeError(f"@pl.jit function '{self.__name__}': {err}") from None
            if meta is not None:
                binding.tensors[name] = meta
            elif type(value) in _CONSTANT_TYPES:
                binding.scalars[name] = value
            elif name in tensor_params:
                raise ValueError(f"@pl.jit: missing inferred tensor metadata for parameter '{name}' of "
                                 f"'{self.__name__}': got {type(value).__name__}, pass a CPU torch tensor or a numpy "
                                 "array")
            elif not isinstance(value, RuntimeScalarMarker | ctypes._SimpleCData):
                try:
                    hash(value)
                except TypeError:
                    raise TypeError(f"@pl.jit function '{self.__name__}': argument '{name}' of type "
                                    f"{type(value).__name__} is neither a tensor nor a hashable scalar") from None
                if not isinstance(value, np.integer | np.floating | np.bool_):  # the call could not pass it
                    line = next((a.lineno for a in node.args.args if a.arg == name), node.lineno)
                    raise TypeError(f"@pl.jit function '{self.__name__}': scalar parameter '{name}' "
                                    f"({self.source()[0].filename}:{line}) takes a bool, int or float, got "
                                    f"{type(value).__name__} {value!r:.40}")
        self._check_ranks(binding, node)
        return binding

    def _check_signature_mode(self, values: dict[str, Any]) -> None:
        """Without samples every tensor needs a full annotation and every scalar a value."""
        from .specialize import _annotation_dims, _is_tensor_annotation

        _, node = self.source()
        env = self.env()
        for arg in node.args.args:
            if arg.arg in values:
                continue
            if _is_tensor_annotation(arg.annotation, env):
                if _annotation_dims(arg.annotation) is None:
                    raise TypeError(f"@pl.jit function '{self.__name__}': parameter '{arg.arg}' is a bare pl.Tensor "
                                    "and cannot specialize from the signature; pass sample tensors, or annotate it "
                                    "pl.Tensor[[...], dtype]")
            else:
                raise TypeError(f"@pl.jit function '{self.__name__}': scalar parameter '{arg.arg}' has no value to "
                                "specialize from the signature; pass it by keyword, or give it a default "
                                "(pl.RUNTIME keeps it a run-time parameter)")

    def _check_ranks(self, binding: Binding, node: ast.FunctionDef) -> None:
        """A tensor must fit a written annotation: same rank, static dims and dtype."""
        from .specialize import _annotation_dims

        env = self.env()
        for arg in node.args.args:
            meta = binding.tensors.get(arg.arg)
            dims = _annotation_dims(arg.annotation)
            if meta is None or dims is None:
                continue
            where = f"{self.source()[0].filename}:{arg.lineno}"
            if len(dims) != len(meta.shape):
                raise TypeError(f"@pl.jit function '{self.__name__}': parameter '{arg.arg}' ({where}) is declared "
                                f"with rank {len(dims)}, got a tensor of shape {list(meta.shape)}")
            declared = [_static_dim(d, env) for d in dims]
            if any(d is not None and d != got for d, got in zip(declared, meta.shape)):
                shown = ", ".join(ast.unparse(d) for d in dims)
                raise TypeError(f"@pl.jit function '{self.__name__}': parameter '{arg.arg}' ({where}) is declared "
                                f"with shape [{shown}], got a tensor of shape {list(meta.shape)}")
            dtype = _declared_dtype(arg.annotation, env)
            if dtype is not None and dtype != meta.dtype:
                raise TypeError(f"@pl.jit function '{self.__name__}': parameter '{arg.arg}' ({where}) is declared "
                                f"{dtype.name}, got a {meta.dtype.name} tensor")

    def _key(self, binding: Binding, config: Any) -> _Key:
        digest, _, reads, dyn = self._statics()
        constants = []
        for jf, names in reads:
            env = jf.env()
            for name in names:
                value = env.lookup(name)
                if value is not MISSING and type(value) in _CONSTANT_TYPES:
                    constants.append((jf.__name__, name, type(value).__name__, value))
        tensors = tuple((n, tuple(None if (n, k) in dyn else d for k, d in enumerate(m.shape)), m.dtype.name)
                        for n, m in binding.tensors.items())
        scalars = tuple((n, type(v).__name__, v) for n, v in binding.scalars.items())
        strategy = getattr(config, "strategy", None)
        options = tuple((f, repr(getattr(config, f))) for f in ("memory_planner", "dump_ptoas_passes",
                                                                 "analyze_auto_scopes_for_deps", "backend_type")
                        if getattr(config, f, None) is not None)
        return _Key(digest, getattr(config, "platform", None), str(strategy or "Default"), tensors, scalars,
                    tuple(constants), options)

    def _program(self, values: dict[str, Any], config: Any) -> tuple[Any, dict[str, str]]:
        """The specialised program and its aliases (alias -> the user's name)."""
        if self.func_type != "orchestration":
            raise TypeError(f"@pl.jit.{self.func_type} function '{self.__name__}' is a helper: call it from a "
                            "@pl.jit function, which compiles it into its program")
        binding = self._binding(values)
        _, _, _, dyn = self._statics()
        try:
            return specialise(self, binding, dyn)
        except ParserError as err:
            raise err.with_traceback(None) from None

    def _compiled(self, values: dict[str, Any], config: Any, run: bool = False) -> CompiledProgram:
        _check_config(config)
        platform = getattr(config, "platform", None)
        if platform is not None and run:
            from pypto.runtime.config import require_runnable

            require_runnable(platform)
        binding = self._binding(values)
        key = self._key(binding, config)
        found = self._cache.get(key)
        if found is not None:
            return found
        from pypto.compile import compile as ir_compile
        from pypto.compile import new_build_folder
        from pypto.runtime.runner import compile_with_config

        program, renamed = self._program(values, config)
        chosen = getattr(config, "save_kernels_dir", None)
        folder = Path(chosen) if chosen else new_build_folder(f"_jit_{self.__name__}")
        try:
            with errors_in_user_names(renamed):
                if config is None:
                    compiled = ir_compile(program, output_dir=folder)
                else:  # as pypto.runtime.run compiles: backend_type too, checked against the platform
                    compiled = compile_with_config(program, config, folder)
        except BaseException:
            if not chosen:
                folder.rmdir()  # made empty above; the failed tree is kept beside it
            raise
        self._cache[key] = compiled
        return compiled

    def cache_size(self) -> int:
        """How many compiled programs this function holds."""
        return len(self._cache)


def _check_config(config: Any) -> None:
    from pypto.runtime.config import RunConfig

    if config is not None and not isinstance(config, RunConfig):
        raise TypeError(f"config must be a pypto.runtime.RunConfig, got {type(config).__name__}")


def _static_dim(node: ast.expr, env: Env) -> int | None:
    """A dim of an annotation written as an int literal or an int constant (a dynamic one is None)."""
    from .specialize import _safe_eval

    value = node.value if isinstance(node, ast.Constant) else _safe_eval(node, env)
    return value if type(value) is int else None


def _declared_dtype(annotation: ast.expr | None, env: Env) -> DataType | None:
    from .specialize import _direction_head, _safe_eval

    node = annotation
    if _direction_head(node, env) is not None:
        node = node.slice  # type: ignore[union-attr]
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) >= 2:
        value = _safe_eval(node.slice.elts[1], env)
        return value if isinstance(value, DataType) else None
    return None


__all__ = ["HELPER_KINDS", "JITFunction"]
