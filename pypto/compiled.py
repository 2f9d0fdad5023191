"""``CompiledProgram``: what ``ir.compile`` returns; calling it runs the program on a2a3sim.

    compiled = ir.compile(program, output_dir="out/tile_add")
    compiled(a, b, c)            # every argument given: outputs are written into c in place
    c = compiled(a, b)           # Out tensors left out: allocated from the signature and returned
    c_ref = compiled.interpret(a, b)   # the same call on the reference interpreter

    c = compiled(a, b, config=RunConfig(aicpu_thread_num=2))   # run options (pypto.runtime)
    compiled(a=a, b=b, out=c)    # by parameter name

Arguments follow the orchestration function's parameters: numpy arrays (or CPU torch tensors,
bfloat16 included, or a ``ChipWorker``'s ``DeviceTensor``) for tensors, Python numbers (or ctypes
scalars) for ``pl.Scalar`` parameters. A wrong count, dtype or shape, or a scalar
of the wrong kind, is a :class:`~pypto.runtime.SimulatorArgumentError` before anything runs; arrays
of any memory layout are accepted (the run uses contiguous copies), only the outputs are written,
and a failed run leaves the caller's arrays as they were.
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from pypto.backend import BackendType
from pypto.ir.numpy_dtypes import numpy_dtype
from pypto.ir import expr as E
from pypto.ir import stmt as S
from pypto.ir.enums import FunctionType, MemorySpace, ParamDirection
from pypto.ir.function import Function, Program
from pypto.ir.memref import MemRef
from pypto.ir.node import replace as node_replace
from pypto.ir.ops.cross_core_ops import reserved_space
from pypto.ir.traversal import iter_children
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TensorType, TileType
from pypto.runtime.arguments import (
    Param,
    ScalarParam,
    StagedTensor,
    TensorParam,
    check_device_tensor,
    check_tensor,
    scalar_word,
)
from pypto.runtime.binding import positional
from pypto.runtime.bounds import check_windows
from pypto.runtime.config import PLATFORMS as RUN_PLATFORMS
from pypto.runtime.config import RunConfig, require_runnable
from pypto.runtime.device_tensor import DeviceTensor
from pypto.runtime.errors import SimulatorArgumentError, SimulatorError

if TYPE_CHECKING:
    from pypto.validate_ir import StageCheck
KERNEL_KINDS = frozenset({FunctionType.AIC, FunctionType.AIV, FunctionType.InCore, FunctionType.Group})


@dataclass(frozen=True)
class TaskCount:
    """Kernel calls of the orchestration: ``sites`` in its code, ``per_run`` when loop bounds are constant."""

    sites: int
    per_run: int | None


@dataclass(eq=False)
class CompiledProgram:
    """A compiled program: the input ``program``, the ``final_program`` after the passes, and the
    artifact tree in ``output_dir``.

    ``files`` are the generated files (relative paths; the pass dumps are in ``passes_dump/``),
    ``final_dialect`` the dialect the pipeline ended in, ``generated`` whether it reached ``runtime``
    so that the code generators ran, ``platform`` where a call runs.
    ``last_run`` holds the build and run times of the latest simulator call, ``last_result`` what it
    returned (``pypto.runtime.run`` returns the program, not the call's value).
    As a path (``os.fspath``, ``str``, equality and hash) it is its ``output_dir``.
    """

    program: Program | None
    final_program: Program
    output_dir: Path
    backend_type: BackendType
    platform: str
    files: tuple[str, ...]
    final_dialect: str
    generated: bool = True
    skip_ptoas: bool = False
    last_run: Any = field(default=None, compare=False)
    last_result: Any = field(default=None, compare=False)

    @property
    def source(self) -> Program | None:
        """Deprecated alias of :attr:`program` (the input program)."""
        warnings.warn("CompiledProgram.source is deprecated; use .program", DeprecationWarning, stacklevel=2)
        return self.program

    @classmethod
    def from_dir(
        cls, output_dir: str | Path, *, platform: str | None = None, backend_type: BackendType | str | None = None
    ) -> CompiledProgram:
        """The program compiled into ``output_dir``, callable from its ``compiled_meta.json``.

        ``program`` is then None (no interpreter); ``FileNotFoundError`` without the file,
        ``ValueError`` if it is malformed.
        """
        from pypto.runtime.meta import read_meta

        folder = Path(output_dir).resolve()
        signature, meta = read_meta(folder)
        return cls(
            program=None,
            final_program=signature,
            output_dir=folder,
            backend_type=BackendType(backend_type if backend_type is not None else meta["backend_type"]),
            platform=platform if platform is not None else meta["platform"],
            files=(),
            final_dialect="runtime",
        )

    # ----- the artifact folder --------------------------------------------------------------------

    def __fspath__(self) -> str:
        return str(self.output_dir)

    def __str__(self) -> str:
        return str(self.output_dir)

    def __repr__(self) -> str:
        return f"CompiledProgram({self.output_dir})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CompiledProgram):
            return self.output_dir == other.output_dir
        if isinstance(other, str | Path):
            return self.output_dir == Path(other).resolve()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.output_dir)

    # ----- calling --------------------------------------------------------------------------------

    def __call__(self, *args: Any, config: RunConfig | None = None, **kwargs: Any) -> Any:
        """Run on the simulator; see the module docstring for the two call forms.

        Arguments may also be given by parameter name. ``config`` (a ``pypto.runtime.RunConfig``):
        its platform replaces the compiled one (only a2a3sim runs), plus ``aicpu_thread_num`` and
        the DFX flags.
        """
        return self.run(*args, config=config, **kwargs)

    def run(
        self,
        *args: Any,
        cache_dir: str | os.PathLike[str] | None = None,
        config: RunConfig | None = None,
        worker: Any = None,
        **kwargs: Any,
    ) -> Any:
        """``__call__`` with a choice of kernel cache folder (default ``$PYPTO_CACHE_DIR``) and of
        ``ChipWorker`` (default: the active one of ``with worker:``, else the process-wide worker)."""
        from pypto.runtime.call_options import call_options
        from pypto.runtime.simulator import run_on_simulator

        options = call_options(config, self.platform, rings=worker is not None)
        self._check_runnable(options.platform)
        entry = self._orchestration()
        caller = caller_view(entry)
        args = tuple(positional(caller, args, kwargs))
        dims = dynamic_dims(caller, args)
        params = parameters(entry, dims)
        full, returned = _complete(caller, params[: len(caller.params)], args, params[len(caller.params) :])
        self._check_windows(entry, params, full)
        self.last_run = run_on_simulator(
            self.output_dir, full, params, cache_dir=cache_dir, options=options, worker=_worker(worker, options)
        )
        self.last_result = _result(full, returned, self.call_results())
        return self.last_result

    def build_orch_args(self, *args: Any, worker: Any = None, **kwargs: Any) -> Any:
        """simpler's ``TaskArgs`` of one call, for ``chip_callable`` and ``build_call_config``.

        Every argument is given (outputs too, by position or name, and a zero-filled tensor for each
        tensor the entry creates and returns: the parameters ExportEntryResults adds, after the others,
        which a call allocates) and checked as a call checks it;
        host tensors must be contiguous, because the arguments refer to their memory (nothing is
        copied: a run with them writes the outputs straight into the caller's tensors, which must
        outlive it). ``worker`` is the ``ChipWorker`` to run on (default: the active one, else the
        process-wide simulator worker); a ``DeviceTensor`` must be live memory of it.
        """
        from pypto.runtime.artifacts import load_artifacts
        from pypto.runtime.arguments import bind_arguments
        from pypto.runtime.call_options import call_options
        from pypto.runtime.simulator import build_task_args, default_worker

        self._check_runnable(self.platform)
        entry = self._orchestration()
        args = tuple(positional(entry, args, kwargs))
        params = parameters(entry, dynamic_dims(entry, args))
        if len(args) != len(params):
            names = ", ".join(p.name for p in params)
            created = [p.name for p in params[len(caller_view(entry).params) :]]
            also = f" (and {', '.join(created)}, which '{entry.name}' creates and returns)" if created else ""
            raise SimulatorArgumentError(
                f"build_orch_args takes every argument of '{entry.name}' ({names}), got {len(args)}",
                f"pass the output tensors too{also}: the arguments refer to the memory the run writes",
            )
        self._check_windows(entry, params, list(args))
        tree = load_artifacts(self.output_dir)
        bound = bind_arguments(tree, args, params)
        for tensor in bound.tensors:
            caller = getattr(tensor, "caller", None)
            if caller is not None and not caller.flags.c_contiguous:
                raise ValueError(f"build_orch_args: {tensor.name} must be a contiguous tensor")
        direct = replace(bound, tensors=tuple(_in_place(t) for t in bound.tensors))
        chip = _worker(worker, call_options(None, self.platform))
        simpler_worker = chip._ready("build_orch_args", 0) if chip is not None else default_worker(tree.runtime)
        return build_task_args(simpler_worker, direct, chip)

    def _check_windows(self, entry: Function, params: list[Param], args: list[Any]) -> None:
        """Check the arguments, then every task window with their values (docs/simulator.md#bounds)."""
        values: dict[E.Var, Any] = {}
        for p, param, d, arg in zip(entry.params, params, entry.param_directions, args):
            if isinstance(param, TensorParam):
                if isinstance(arg, DeviceTensor):
                    check_device_tensor(param, arg)
                else:
                    check_tensor(param, arg, d != ParamDirection.In)
                values.update((dim, n) for dim, n in zip(p.type.shape, param.shape) if isinstance(dim, E.Var))
            else:
                values[p] = _scalar(param, arg)
        check_windows(self.final_program, entry, values)

    def interpret(self, *args: Any, **kwargs: Any) -> Any:
        """Run the input program on the reference interpreter, with the call forms and checks of ``__call__``."""
        from pypto import interp

        if self.program is None:
            raise SimulatorError(
                f"{self!r} was loaded with from_dir: it has no program to interpret",
                "compile the program with ir.compile to get one that interprets",
            )
        entry = self.entry_function()
        args = tuple(positional(entry, args, kwargs))
        params = parameters(entry, dynamic_dims(entry, args))
        full, returned = _complete(entry, params, args)
        results = self.call_results()
        inputs = [
            check_tensor(p, a, d != ParamDirection.In) if isinstance(p, TensorParam) else _scalar(p, a)
            for p, d, a in zip(params, entry.param_directions, full)
        ]
        from pypto.backend import platform_for
        from pypto.passes import PassContext

        with PassContext.for_platform(platform_for(self.backend_type)):  # its cast chains are the chip's
            result = interp.run(self.program, *inputs, entry=entry.name)
        for p, array in zip(params, inputs):
            if p.name in result.outputs:
                np.copyto(array, result.outputs[p.name])
        if results is not None:  # what the simulator call returns: the created tensors too
            like = _torch_like(args)
            values = [full[i] if i < len(full) else _like(like, np.asarray(v)) for i, v in zip(results, result.returns)]
            return values[0] if len(values) == 1 else tuple(values)
        if not any(isinstance(p, TensorParam) for p in params):
            return result.value if len(result.returns) == 1 else result.returns
        return _result(full, returned)

    def validate_ir(
        self, tensors: Sequence[Any], expected: Any, *, rtol: float = 5e-2, atol: float = 5e-2
    ) -> list[StageCheck]:
        """Interpret every stage in ``passes_dump/`` on ``tensors`` (either call form) and compare the
        written tensors with ``expected``: a mapping by parameter name, or the Out/InOut tensors in
        parameter order (one tensor alone when there is one). A failing stage is the suspect pass."""
        from pypto.compile import DUMP_DIR
        from pypto.validate_ir import validate_dumps

        entry = self.entry_function()
        params = parameters(entry, dynamic_dims(entry, tensors))
        full, _ = _complete(entry, params, tensors)
        inputs = [
            check_tensor(p, a, d != ParamDirection.In) if isinstance(p, TensorParam) else _scalar(p, a)
            for p, d, a in zip(params, entry.param_directions, full)
        ]
        written = [p.name for p, d in zip(params, entry.param_directions) if d != ParamDirection.In]
        if not isinstance(expected, Mapping):
            values = list(expected) if isinstance(expected, list | tuple) else [expected]
            if len(values) != len(written):
                raise SimulatorArgumentError(
                    f"expected {len(written)} output(s) ({', '.join(written)}), got {len(values)}"
                )
            expected = dict(zip(written, values))
        unknown = [name for name in expected if name not in written]
        if unknown:
            raise SimulatorArgumentError(f"{unknown[0]!r} is not an output of '{entry.name}' ({', '.join(written)})")
        wanted = {name: _host_array(name, value) for name, value in expected.items()}
        return validate_dumps(self.output_dir / DUMP_DIR, entry.name, inputs, wanted, rtol=rtol, atol=atol)

    def _check_runnable(self, platform: str) -> None:
        require_runnable(platform)
        if not self.generated:
            raise SimulatorError(
                f"the pipeline ended in dialect '{self.final_dialect}', so no code was generated",
                "code generation needs a pipeline that reaches the 'runtime' dialect",
            )
        if self.skip_ptoas:
            raise SimulatorError(
                "the program was compiled with skip_ptoas=True: it has no kernel C++ to run",
                "compile with skip_ptoas=False",
            )
        self._orchestration()

    def call_results(self) -> list[int] | None:
        """The final entry's parameter behind each value a call returns, in return order, when the entry
        returns tensors it creates (docs/passes.md#exportentryresults); None when a call returns the Out
        tensors it allocated."""
        found = self._orchestrations()
        return found[0].attrs.results if len(found) == 1 and found[0].attrs.created_results else None

    def _orchestrations(self) -> list[Function]:
        return [f for f in self.final_program.functions.values() if f.func_type == FunctionType.Orchestration]

    def _orchestration(self) -> Function:
        found = self._orchestrations()
        if len(found) != 1:
            what = "no orchestration function" if not found else f"{len(found)} orchestration functions"
            raise SimulatorError(
                f"program '{self.final_program.name}' has {what}; the simulator runs exactly one",
                "mark the function that calls the kernels @pl.function(type=pl.FunctionType.Orchestration)",
            )
        return found[0]

    def entry_function(self) -> Function:
        """The function a call runs: the input program's orchestration function, else the interpreter's entry."""
        if self.program is None:
            return self._orchestration()
        orchestration = [f for f in self.program.functions.values() if f.func_type == FunctionType.Orchestration]
        if len(orchestration) == 1:
            return orchestration[0]
        from pypto.interp.run import _entry

        return _entry(self.program, None)

    # ----- what was compiled ----------------------------------------------------------------------

    def __getitem__(self, name: str) -> CompiledProgram:
        """The program of orchestration ``name`` (pypto compiles one orchestration per program: itself)."""
        names = self.orchestration_names
        if name not in names:
            raise KeyError(f"{name!r} is not an orchestration of {self!r}; it has {', '.join(names) or 'none'}")
        return self

    def __getattr__(self, name: str) -> CompiledProgram:
        # Only reached for names that are no attribute: ``compiled.<orchestration name>``.
        if name.startswith("_") or "final_program" not in self.__dict__:
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"'CompiledProgram' object has no attribute {name!r}") from None

    @property
    def param_names(self) -> list[str]:
        """The orchestration's parameter names, in call order."""
        return [p.name_hint for p in self.entry_function().params]

    @property
    def output_indices(self) -> list[int]:
        """Positions of the pure ``Out`` parameters (left out of the return call form)."""
        entry = self.entry_function()
        return [i for i, d in enumerate(entry.param_directions) if d == ParamDirection.Out]

    @property
    def has_return(self) -> bool:
        """Whether the orchestration returns values."""
        return bool(self.entry_function().return_types)

    @property
    def orchestration_names(self) -> list[str]:
        """The names of the orchestration functions (a call runs the only one)."""
        program = self.program if self.program is not None else self.final_program
        return [f.name for f in program.functions.values() if f.func_type == FunctionType.Orchestration]

    @property
    def runtime_config(self) -> dict[str, Any]:
        """``RUNTIME_CONFIG`` of the generated ``kernel_config.py``."""
        from pypto.runtime.artifacts import load_artifacts

        self._check_runnable(self.platform)
        tree = load_artifacts(self.output_dir)
        return {"runtime": tree.runtime, "aicpu_thread_num": tree.aicpu_thread_num}

    @property
    def runtime_name(self) -> str:
        """The PTO2 runtime the program runs on."""
        return str(self.runtime_config["runtime"])

    @property
    def chip_callable(self) -> Any:
        """simpler's ``ChipCallable`` of the program (built now, or taken from the kernel cache)."""
        from pypto.runtime.simulator import chip_callable

        return chip_callable(self._build(None))

    def load(self, *, cache_dir: str | os.PathLike[str] | None = None, worker: Any = None) -> None:
        """Build the kernels and orchestration now (from the kernel cache when it has them); with a
        ``ChipWorker``, also register the program with it."""
        built = self._build(cache_dir)
        if worker is not None:
            worker.bind(built)

    def _build(self, cache_dir: str | os.PathLike[str] | None) -> Any:
        from pypto.runtime.artifacts import load_artifacts
        from pypto.runtime.build import build_artifacts
        from pypto.runtime.cache import KernelCache
        from pypto.runtime.install import find_simulator

        self._check_runnable(self.platform)
        return build_artifacts(load_artifacts(self.output_dir), find_simulator(), KernelCache(cache_dir))

    def build_call_config(
        self, config: RunConfig | None = None, *, aicpu_thread_num: int | None = None, dfx_dir: str | Path | None = None
    ) -> Any:
        """simpler's ``CallConfig`` for a call with ``config``: AICPU threads from the keyword, else the
        config, else ``RUNTIME_CONFIG``; DFX outputs into ``dfx_dir`` (default ``<output_dir>/dfx_outputs``)."""
        from pypto.runtime.call_options import DFX_DIR, call_config, call_options

        options = call_options(config, self.platform)
        if aicpu_thread_num is not None:
            options = replace(options, aicpu_thread_num=aicpu_thread_num)
        folder = Path(dfx_dir) if dfx_dir is not None else self.output_dir / DFX_DIR
        return call_config(options, folder, int(self.runtime_config["aicpu_thread_num"]))

    def functions_by_kind(self) -> dict[str, list[str]]:
        """Function names of the final program by function kind (``AIV``, ``Orchestration``, ...)."""
        kinds: dict[str, list[str]] = {}
        for f in self.final_program.functions.values():
            kinds.setdefault(f.func_type.name, []).append(f.name)
        return kinds

    def tasks(self) -> TaskCount:
        """Kernel calls in the orchestration function(s); a Spmd launch is one task."""
        launched = KERNEL_KINDS | {FunctionType.Spmd}
        kernels = {f.name for f in self.final_program.functions.values() if f.func_type in launched}
        sites, per_run = 0, 0
        known = True
        stack: list[tuple[Any, int | None]] = [
            (f.body, 1) for f in self.final_program.functions.values() if f.func_type == FunctionType.Orchestration
        ]
        while stack:
            node, times = stack.pop()
            if isinstance(node, E.Call | E.Submit) and isinstance(node.op, E.GlobalVar) and node.op.name in kernels:
                sites += 1
                if times is None:
                    known = False
                else:
                    per_run += times
            if isinstance(node, S.ForStmt):
                trips = _trip_count(node)
                inner = None if times is None or trips is None else times * trips
                stack.append((node.body, inner))
                stack.extend((child, times) for child in iter_children(node) if child is not node.body)
                continue
            if isinstance(node, S.IfStmt | S.WhileStmt):
                stack.extend((child, None) for child in iter_children(node))
                continue
            stack.extend((child, times) for child in iter_children(node))
        return TaskCount(sites, per_run if known else None)

    def peak_memory(self) -> dict[MemorySpace, int]:
        """The highest byte any kernel's tiles reach in each on-chip memory space (after planning).

        Empty when the program has no planned tiles (the pipeline ended before memory planning).
        """
        peak: Counter[MemorySpace] = Counter()
        for f in self.final_program.functions.values():
            if f.func_type not in KERNEL_KINDS:
                continue
            for space, end in _tile_extents(f):
                peak[space] = max(peak[space], end)
        return dict(sorted(peak.items(), key=lambda item: item[0].value))


def parameters(func: Function, dims: Mapping[str, int] | None = None) -> list[Param]:
    """The call parameters of ``func``: a TensorParam per tensor, a ScalarParam per scalar.

    ``dims`` gives the values of dynamic dimensions (``N = pl.dynamic("N")``) by name; a call reads
    them off its arrays (:func:`dynamic_dims`).
    """
    params: list[Param] = []
    for p in func.params:
        t = p.type
        if isinstance(t, TensorType):
            shape = []
            for dim in t.shape:
                if isinstance(dim, E.Var) and dims is not None and dim.name_hint in dims:
                    shape.append(dims[dim.name_hint])
                    continue
                if not isinstance(dim, E.ConstInt):
                    what = f"the dynamic dimension {dim.name_hint}" if isinstance(dim, E.Var) else "a computed dimension"
                    raise SimulatorArgumentError(
                        f"parameter '{p.name_hint}' of '{func.name}' has {what}, which no argument gives",
                        "pass an array for a parameter with that dimension (Out tensors too, in the full call form)",
                    )
                shape.append(dim.value)
            params.append(TensorParam(p.name_hint, t.dtype, tuple(shape)))
        elif isinstance(t, ScalarType):
            params.append(ScalarParam(p.name_hint, t.dtype))
        else:
            raise SimulatorArgumentError(f"parameter '{p.name_hint}' of '{func.name}' is a {t}; calls take tensors and scalars")
    return params


def dynamic_dims(func: Function, args: Sequence[Any]) -> dict[str, int]:
    """The values of ``func``'s dynamic dimensions read off the arrays of a call (either call form);
    the first array with a dimension gives it, so a disagreeing one fails the shape check after."""
    params = func.params
    if len(args) != len(params):
        params = [p for p, d in zip(func.params, func.param_directions) if d != ParamDirection.Out]
    dims: dict[str, int] = {}
    for p, arg in zip(params, args):
        shape = getattr(arg, "shape", None)
        if not isinstance(p.type, TensorType) or shape is None or len(shape) != len(p.type.shape):
            continue
        for dim, extent in zip(p.type.shape, shape):
            if isinstance(dim, E.Var):
                dims.setdefault(dim.name_hint, int(extent))
    return dims


def caller_view(entry: Function) -> Function:
    """``entry`` with the parameters its caller passes: without those ExportEntryResults added for the
    tensors it creates and returns (a call allocates them)."""
    k = entry.attrs.created_results
    if not k:
        return entry
    return node_replace(entry, params=entry.params[:-k], param_directions=entry.param_directions[:-k])


def _complete(
    func: Function, params: list[Param], args: Sequence[Any], created: Sequence[Param] = ()
) -> tuple[list[Any], list[int]]:
    """All arguments of the call, and the indices of the Out tensors allocated for it (none if all were given);
    ``created`` are the parameters of returned created tensors, always allocated (after the others)."""
    allocated = [_like(_torch_like(args), _zeros(p)) for p in created]
    if len(args) == len(params):
        return [*args, *allocated], []
    outs = [i for i, d in enumerate(func.param_directions) if d == ParamDirection.Out]
    if not outs or len(args) != len(params) - len(outs):
        names = ", ".join(p.name for p in params)
        inputs = ", ".join(p.name for i, p in enumerate(params) if i not in outs)
        short = f" or {len(params) - len(outs)} without its outputs ({inputs})" if outs else ""
        raise SimulatorArgumentError(
            f"'{func.name}' takes {len(params)} arguments ({names}){short}, got {len(args)}"
        )
    torch_like = _torch_like(args)
    given = iter(args)
    full: list[Any] = []
    for i, p in enumerate(params):
        full.append(_like(torch_like, _zeros(p)) if i in outs else next(given))
    return [*full, *allocated], outs


def _zeros(param: Param) -> np.ndarray:
    assert isinstance(param, TensorParam)  # Out parameters are tensors (the parser checks)
    return np.zeros(param.shape, dtype=numpy_dtype(param.dtype))


def _torch_like(args: Sequence[Any]) -> Any:
    """A torch tensor among ``args``, if any: outputs are allocated as torch tensors then."""
    return next((a for a in args if type(a).__module__.startswith("torch")), None)


def _like(example: Any, array: np.ndarray) -> Any:
    """``array`` as a torch tensor when the caller passed torch tensors (sharing memory), else as is."""
    if example is None:
        return array
    from pypto.runtime.host_arrays import torch_from_numpy

    return torch_from_numpy(array)


def _in_place(tensor: Any) -> Any:
    """A bound host tensor whose run uses the caller's array itself, not a copy."""
    return replace(tensor, staged=tensor.caller) if isinstance(tensor, StagedTensor) else tensor


def _worker(given: Any, options: Any) -> Any:
    """The ``ChipWorker`` a call runs on: the one given, else the active one bound like the call, else None."""
    if given is not None:
        return given
    from pypto.runtime.worker import ChipWorker

    return ChipWorker.current(platform=options.platform, device_id=options.device_id)


def _result(full: list[Any], returned: list[int], results: list[int] | None = None) -> Any:
    """What a call returns: the allocated Out tensors, or (``results``: the entry returns tensors it
    creates) the arguments behind its returned values, in return order."""
    if results is not None:
        returned = results
    if not returned:
        return None
    values = [full[i] for i in returned]
    return values[0] if len(values) == 1 else tuple(values)


def _host_array(name: str, value: Any) -> np.ndarray:
    from pypto.runtime.host_arrays import is_torch_tensor, torch_numpy

    return torch_numpy(value) if is_torch_tensor(value) else np.asarray(value)


def _scalar(param: ScalarParam, value: Any) -> Any:
    scalar_word(param, value)  # the same checks as a simulator call
    return value.item() if isinstance(value, np.generic) else value


def _trip_count(loop: S.ForStmt) -> int | None:
    bounds = (loop.start, loop.stop, loop.step)
    if not all(isinstance(b, E.ConstInt) for b in bounds):
        return None
    start, stop, step = (b.value for b in bounds)
    return max(0, -(-(stop - start) // step)) if step > 0 else None


def _tile_extents(func: Function) -> list[tuple[MemorySpace, int]]:
    """(space, end byte) of every tile with a constant MemRef offset in ``func``, and of every
    cross-core ring it reserves (planned bases)."""
    extents = []
    stack: list[Any] = [*func.params, func.body]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, E.Var) and not isinstance(node, MemRef):
            t = node.type
            if isinstance(t, TileType) and t.memref is not None and t.memory_space is not None:
                offset = t.memref.byte_offset
                if isinstance(offset, E.ConstInt) and t.memory_space != MemorySpace.DDR:
                    extents.append((t.memory_space, offset.value + t.memref.size))
        elif isinstance(node, E.Call) and isinstance(node.op, E.Op) and node.op.name == "system.reserve_buffer":
            if node.kwargs["base"] >= 0:
                extents.append((reserved_space(func.func_type), node.kwargs["base"] + node.kwargs["size"]))
        stack.extend(iter_children(node))
    return extents
