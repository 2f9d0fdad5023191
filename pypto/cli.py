"""The ``pypto`` command line: compile a DSL file, run it on the simulator, print its IR.

    pypto compile examples/tile_add.py -o out/tile_add [--backend a2a3|a5]   # write the artifact tree
    pypto run examples/tile_add.py [--seed N] [--inputs FILE.npz] [--rtol R] [--atol A]   # sim vs interpreter
    pypto parse examples/tile_add.py [--concise]                            # print the parsed IR
    pypto passes                                                  # list the pipeline's passes and their options
    pypto run examples/manual_deps.py -o out/md --swimlane 4      # also capture the chip swimlane
    pypto timeline out/md [-o run.svg] [--trace run.json]         # draw the capture (SVG and Perfetto JSON)
    pypto graph examples/deps_phase_fence.py -o graph.svg         # draw the task graph of the compiled program
    pypto memmap examples/row_softmax.py -o maps/                 # one memory-map SVG per kernel
    pypto --version

The input file is read as text and parsed from its syntax tree; it is never executed. Errors in
the input are reported as pypto diagnostics (exit status 1), never as Python tracebacks. ``run``
exits with status 1 when an output of the simulator differs from the interpreter's beyond its
tolerance (derived from its dtype and the reductions feeding it, :mod:`pypto.interp.tolerance`;
``--rtol``/``--atol`` override it). The compiler (and numpy) are imported only by the command that needs them, so
``pypto --help`` and ``pypto --version`` answer at once.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import logging
import math
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BACKENDS = {"a2a3": "Ascend910B", "a5": "Ascend950"}


def _load(path: str):
    import pypto.language as pl
    from pypto.ir.errors import PyptoError

    source = Path(path)
    if not source.is_file():
        raise PyptoError(f"input file '{path}' does not exist")
    # pl.static_print writes while the file parses: stdout holds only what the command prints
    # (`pypto parse FILE > printed.py` must give a file that parses).
    with contextlib.redirect_stdout(sys.stderr):
        return pl.loads_program(str(source))


KEPT_RUNS = 5


def _progress(text: str) -> None:
    print(f"pypto: {text}", file=sys.stderr, flush=True)


def _compile(args: argparse.Namespace, output: Path | None = None, dump_passes: bool = True):
    """Compile ``args.file`` (into ``output`` when given, else ``args.output``); with the compile's seconds,
    timed after the modules it imports on first use are loaded (the seconds since the command started printed
    apart)."""
    from pypto import ir
    from pypto.backend import BackendType

    program = _load(args.file)
    _warm_imports()
    _progress(f"compiling {args.file} (loading pypto and the file took {time.perf_counter() - args.started:.2f}s) ...")
    # pypto compile without -o writes into a new temporary folder (docs/cli.md), not ir.compile's build_output/
    temporary = output is None and not args.output
    if temporary:
        output = Path(tempfile.mkdtemp(prefix=f"pypto-{program.name or 'program'}-"))
    start = time.perf_counter()
    try:
        compiled = ir.compile(
            program,
            output_dir=args.output if output is None else output,
            backend_type=BackendType(BACKENDS[args.backend]),
            verify=args.verify,
            pass_options=_options(args),
            dump_passes=dump_passes,
            graph=getattr(args, "graph", False),
            memmap=getattr(args, "memmap", False),
        )
    except BaseException:
        if temporary:
            output.rmdir()  # made empty above; the failed tree is kept beside it
        raise
    return compiled, time.perf_counter() - start


def _options(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    options: dict[str, dict[str, Any]] = {}
    for pass_name, option, value in args.pass_option:
        options.setdefault(pass_name, {})[option] = value
    return options


def _cmd_memmap(args: argparse.Namespace) -> int:
    from pypto.backend import BackendType
    from pypto.memmap import memmap_files, plan_maps

    folder = Path(args.output or f"{Path(args.file).stem}_memmap")
    problem = _unwritable_folder(folder)
    if problem:
        print(f"pypto memmap: error: {problem}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    planned = plan_maps(_load(args.file), BackendType(BACKENDS[args.backend]), _options(args), args.verify)
    if not planned.maps:
        print(f"{args.file} has no AIC or AIV kernel: no memory map to draw")
        return 0
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in memmap_files(planned.maps).items():
        (folder / name).write_text(text)
    for name, kmap in planned.maps.items():
        spaces = ", ".join(f"{s.name} {kmap.peak(s)}" + (f" of {kmap.capacity[s]}" if s in kmap.capacity else "")
                           for s in kmap.spaces())
        print(f"{name} ({kmap.core}): peak bytes {spaces or '(no on-chip buffers)'}")
    print(f"  wrote {len(planned.maps)} memory map(s) into {folder} in {time.perf_counter() - started:.2f}s")
    if planned.error is not None:
        print(planned.error.format_error(), file=sys.stderr)
        over = ", ".join(name for name, kmap in planned.maps.items() if kmap.overflowing())
        print(f"pypto: the maps show the overflow in red (in {over})", file=sys.stderr)
        return 1
    return 0


def _unwritable_folder(folder: Path) -> str | None:
    """Why ``folder`` cannot take the SVGs (it is a file, or its nearest existing parent is not a writable
    folder), else None."""
    if folder.exists():
        return None if folder.is_dir() and os.access(folder, os.W_OK) else (
            f"the output path {folder} is not a writable folder")
    parent = folder.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        return f"cannot make the output folder {folder}: {parent} is not a writable folder"
    return None


def _warm_imports() -> None:
    """Import what the first ``ir.compile`` would import lazily, so the reported compile time excludes it."""
    import pypto.codegen.cce
    import pypto.codegen.orchestration
    import pypto.codegen.pto
    import pypto.compile  # noqa: F401
    from pypto.passes import OptimizationStrategy, PassManager

    PassManager.get_strategy(OptimizationStrategy.Default)


def _summary(compiled, seconds: float) -> list[str]:
    lines = [f"compiled {compiled.program.name} in {seconds:.2f}s (compile only) -> {compiled.output_dir}"]
    kinds = compiled.functions_by_kind()
    lines.append("  functions: " + "; ".join(f"{kind} {', '.join(names)}" for kind, names in kinds.items()))
    tasks = compiled.tasks()
    per_run = "" if tasks.per_run is None else f", {tasks.per_run} per run"
    lines.append(f"  tasks: {tasks.sites} kernel call site(s){per_run}")
    peak = compiled.peak_memory()
    if peak:
        lines.append("  peak memory: " + ", ".join(f"{space.name} {size} bytes" for space, size in peak.items()))
    if not compiled.generated:
        lines.append(f"  no code generated: the pipeline ends in dialect '{compiled.final_dialect}'")
    elif compiled.files:
        lines.append(f"  files: {', '.join(compiled.files)}")
    else:
        lines.append("  no code generated: the program has no kernels and no orchestration")
    return lines


def _cmd_compile(args: argparse.Namespace) -> int:
    compiled, seconds = _compile(args)
    print("\n".join(_summary(compiled, seconds)))
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    given = _npz(args.inputs) if args.inputs else {}
    with contextlib.nullcontext(None) if args.output else _run_folder(args.file) as scratch:
        return _run(args, given, scratch)


def _run(args: argparse.Namespace, given: dict[str, Any], scratch: Path | None) -> int:
    """``pypto run`` into ``scratch`` (None: into ``args.output``), which is removed when the run passes."""
    import numpy as np

    from pypto.compiled import dynamic_dims
    from pypto.interp.tolerance import output_tolerances

    compiled, seconds = _compile(args, scratch)
    print("\n".join(_summary(compiled, seconds)))
    entry = compiled.entry_function()
    inputs = _inputs(entry, given, args)
    sim_args = [x.copy() if isinstance(x, np.ndarray) else x for x in inputs]
    ref_args = [x.copy() if isinstance(x, np.ndarray) else x for x in inputs]
    _progress(f"building and running on {compiled.platform} ...")
    build_log = logging.getLogger("pypto.runtime.build")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("pypto: %(message)s"))
    build_log.addHandler(handler)
    level = build_log.level
    build_log.setLevel(logging.INFO)  # setLevel, not .level =: it clears the logger's isEnabledFor cache
    try:
        got_returned = compiled(*sim_args, config=_capture_config(args.swimlane))
    finally:
        build_log.removeHandler(handler)
        build_log.setLevel(level)
    run = compiled.last_run
    builds = ", ".join(f"{b.unit} {b.seconds:.2f}s{' (cached)' if b.cached else ''}" for b in run.builds)
    print(f"ran on {compiled.platform}: build {builds}; run {run.run_seconds:.3f}s")
    if args.swimlane:
        from pypto.timeline import DFX_DIR

        print(f"  swimlane level {args.swimlane} and dependencies captured in {compiled.output_dir / DFX_DIR} "
              f"(draw with: pypto timeline {compiled.output_dir}"
              f"{'' if args.output else '; kept until newer runs replace it, -o DIR keeps it for good'})")
    _progress("running the reference interpreter ...")
    want_returned = compiled.interpret(*ref_args)
    known = {p.name_hint: x for p, x in zip(entry.params, inputs) if isinstance(x, int) and not isinstance(x, bool)}
    tolerances = output_tolerances(compiled.program, entry, {**known, **dynamic_dims(entry, inputs)})
    compared = [
        (param.name_hint, tolerances[param.name_hint], got, want)
        for param, direction, got, want in zip(entry.params, entry.param_directions, sim_args, ref_args)
        if direction.name != "In" and isinstance(got, np.ndarray)
    ]
    compared += _created_results(compiled, len(entry.params), got_returned, want_returned)
    status = 0
    for name, (rtol, atol), got, want in compared:
        rtol = rtol if args.rtol is None else args.rtol
        atol = atol if args.atol is None else args.atol
        error = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)), initial=0.0))
        ok = np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
        verdict = "ok" if ok else f"MISMATCH (rtol={rtol:.3g}, atol={atol:.3g})"
        print(f"  {name}: max error {error:.3g} {verdict}")
        if not ok:
            status = 1
    if scratch is not None and status == 0 and not args.swimlane:  # a capture is what the user asked to keep
        shutil.rmtree(scratch.parent)
    return status


def _created_results(
    compiled: Any, given: int, got: Any, want: Any
) -> list[tuple[str, tuple[float, float], Any, Any]]:
    """The tensors the entry creates and a call returns (named by the parameter ExportEntryResults made
    for each, with its dtype's tolerance), as the simulator and the interpreter returned them."""
    from pypto.interp.tolerance import tolerance

    results = compiled.call_results()
    if results is None:
        return []
    params = compiled.final_program.get_function(compiled.entry_function().name).params
    got, want = (list(v) if len(results) > 1 else [v] for v in (got, want))
    return [
        (params[r].name_hint, tolerance(params[r].type.dtype), g, w)
        for r, g, w in zip(results, got, want)
        if r >= given
    ]


def _capture_config(level: int) -> Any:
    """The run's config: a chip swimlane capture of ``level`` with the dependency edges, or none."""
    if not level:
        return None
    from pypto.runtime import RunConfig

    return RunConfig(enable_chip_swimlane=level, enable_dep_gen=True)


def _cmd_timeline(args: argparse.Namespace) -> int:
    from pypto.timeline import load_timeline, render_svg, write_chrome_trace
    from pypto.timeline.records import capture_dir

    timeline = load_timeline(args.dir)
    folder = capture_dir(args.dir)
    svg = Path(args.output) if args.output else folder / "timeline.svg"
    trace = Path(args.trace) if args.trace else svg.with_suffix(".trace.json")
    svg.write_text(render_svg(timeline, width=args.width))
    write_chrome_trace(timeline, trace)
    cores = len(timeline.cores())
    print(f"{len(timeline.tasks)} task runs on {cores} core{'s' * (cores != 1)} over {timeline.span_us:.1f} µs, "
          f"{len(timeline.edges)} dependency edges (swimlane level {timeline.level})")
    if not timeline.has_deps:
        print("  no deps.json beside the records: bars carry no kernel names and no edges are drawn "
              "(capture with enable_dep_gen=True too)")
    print(f"  wrote {svg} and {trace} (open the .json in https://ui.perfetto.dev)")
    return 0


def _cmd_graph(args: argparse.Namespace) -> int:
    from pypto.graph import FOLD_LIMIT, build_task_graph, check_dot, fold, render_svg

    check_dot()  # before compiling: a missing tool is not worth a compile
    svg = Path(args.output) if args.output else Path(f"{Path(args.file).stem}.graph.svg")
    problem = _unwritable_file(svg)
    if problem is not None:
        print(f"pypto graph: error: the output {svg} {problem}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pypto-graph-") as scratch:
        compiled, seconds = _compile(args, Path(scratch) / "tree", dump_passes=False)
    start = time.perf_counter()
    graph = fold(build_task_graph(compiled.final_program), args.fold or FOLD_LIMIT)
    text = render_svg(graph)
    drawn = time.perf_counter() - start
    try:
        svg.write_text(text)
    except OSError as err:
        print(f"pypto graph: error: cannot write {svg}: {err.strerror or err}", file=sys.stderr)
        return 2
    print(f"compiled {compiled.program.name} in {seconds:.2f}s, drew its task graph in {drawn:.2f}s -> {svg}")
    print(f"  {graph.summary()}")
    return 0


def _unwritable_file(path: Path) -> str | None:
    """Why ``path`` cannot take the picture (None when it can); the command then exits with status 2, as for
    a bad argument, before compiling anything."""
    if path.is_dir():
        return "is a folder (hint: give a file name, e.g. -o graph.svg)"
    if not path.parent.is_dir():
        return f"is in a folder that does not exist ({path.parent})"
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return "cannot be written (no permission)"
    return None


@contextlib.contextmanager
def _run_folder(file: str) -> Iterator[Path]:
    """The tree folder for ``pypto run`` without ``-o``: ``<stem>`` inside a new entry of the kernel cache's
    ``runs/`` (a failed compile's ``<stem>.failed-1`` lands beside it, in the same entry). The entry is locked
    while the run lasts; the caller removes it when the run passes. Before the run, the entries of earlier
    runs beyond the newest :data:`KEPT_RUNS` are removed, except those another run still holds."""
    from pypto.runtime.cache import default_cache_dir

    runs = default_cache_dir() / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    entry = Path(tempfile.mkdtemp(prefix=f"{Path(file).stem}-", dir=runs))
    held = os.open(entry, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_SH)
        _prune_runs(runs, entry)
        yield entry / Path(file).stem
    finally:
        os.close(held)


def _prune_runs(runs: Path, new: Path) -> None:
    """Remove the oldest entries of ``runs`` so that :data:`KEPT_RUNS` stay with ``new``; an entry another
    run holds (its lock is taken) is left alone."""
    entries = sorted((p for p in runs.iterdir() if p != new), key=_mtime)
    for stale in entries[: max(0, len(entries) + 1 - KEPT_RUNS)]:
        try:
            fd = os.open(stale, os.O_RDONLY)
        except FileNotFoundError:  # removed by a concurrent run
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # a run in another process is using it
        else:
            shutil.rmtree(stale, ignore_errors=True)
        finally:
            os.close(fd)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:  # removed by a concurrent run
        return 0.0


def _inputs(entry: Any, given: dict[str, Any], args: argparse.Namespace) -> list[Any]:
    """One value per parameter: from ``--inputs`` where given, else seeded random (zeros for outputs)."""
    import numpy as np

    from pypto.ir.errors import PyptoError
    from pypto.compiled import dynamic_dims, parameters
    from pypto.ir.expr import Var
    from pypto.ir.numpy_dtypes import numpy_dtype
    from pypto.runtime import TensorParam
    from pypto.runtime.errors import SimulatorArgumentError

    names = [p.name_hint for p in entry.params]
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise PyptoError(
            f"{args.inputs} holds {', '.join(unknown)}, which '{entry.name}' has no parameter for "
            f"(parameters: {', '.join(names)})"
        )
    # The given arrays fix the dynamic dimensions; the random and zero arrays take their sizes.
    dims = dynamic_dims(entry, [given.get(name) for name in names])
    for p in entry.params:
        for dim in getattr(p.type, "shape", ()):
            if isinstance(dim, Var) and dim.name_hint not in dims:
                raise SimulatorArgumentError(
                    f"'{p.name_hint}' has the dynamic dimension {dim.name_hint}, which no array of --inputs gives",
                    f"give an array for a parameter with that dimension (not an output) in --inputs FILE.npz "
                    f"(np.savez(FILE, {p.name_hint}=...))",
                )
    params = parameters(entry, dims)
    rng = np.random.default_rng(args.seed)
    values: list[Any] = []
    for param, direction in zip(params, entry.param_directions):
        if param.name in given:
            if direction.name == "Out":
                raise PyptoError(f"{args.inputs} gives '{param.name}', an output of '{entry.name}'")
            value = given[param.name]
            values.append(value if isinstance(param, TensorParam) else value.item())
            continue
        dtype = numpy_dtype(param.dtype)
        if isinstance(param, TensorParam):
            if direction.name == "Out":
                values.append(np.zeros(param.shape, dtype))
            elif dtype.kind == "f" or dtype.kind == "V":  # ml_dtypes floats (bf16, fp8) are kind V
                values.append(rng.standard_normal(param.shape).astype(dtype))
            elif dtype.kind == "b":
                values.append(rng.integers(0, 2, param.shape).astype(dtype))
            else:
                values.append(rng.integers(0, 9, param.shape).astype(dtype))
        elif dtype.kind == "f":
            values.append(float(np.round(rng.uniform(0.5, 2.0), 3)))
        else:
            raise PyptoError(
                f"'{param.name}' is an integer scalar of '{entry.name}'; random values could index out of "
                f"bounds, so give it in --inputs FILE.npz (np.savez(FILE, {param.name}=...))"
            )
    return values


def _npz(path: str) -> dict[str, Any]:
    """The named arrays of an ``np.savez`` file."""
    import numpy as np

    from pypto.ir.errors import PyptoError

    file = Path(path)
    if not file.is_file():
        raise PyptoError(f"inputs file '{path}' does not exist")
    try:
        with np.load(file, allow_pickle=False) as data:
            if not hasattr(data, "files"):
                raise PyptoError(f"inputs file '{path}' holds one array; save named arrays with np.savez")
            return {name: data[name] for name in data.files}
    except (ValueError, OSError) as err:
        raise PyptoError(f"inputs file '{path}' is not a .npz file: {err}") from None


def _cmd_parse(args: argparse.Namespace) -> int:
    program = _load(args.file)
    print(program.as_python(concise=args.concise))
    return 0


def _cmd_passes(args: argparse.Namespace) -> int:
    import dataclasses

    from pypto.passes import PassManager
    from pypto.transform.base import describe_option_type, option_type

    for p in PassManager.get_strategy().passes:
        print(p.name)
        for f in dataclasses.fields(p):
            print(f"    {f.name}: {describe_option_type(option_type(type(p), f.name))} = {f.default!r}")
    return 0


def _fold(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 2:
        raise argparse.ArgumentTypeError(f"invalid fold limit {text!r}: expected a number of boxes >= 2")
    return value


def _compile_options(p: argparse.ArgumentParser, output_help: str) -> None:
    p.add_argument("file", help="a DSL source file holding one @pl.program")
    p.add_argument("-o", "--output", help=output_help)
    p.add_argument("--backend", choices=sorted(BACKENDS), default="a2a3", help="target chip (default a2a3)")
    p.add_argument(
        "--verify",
        choices=["none", "basic", "strict", "roundtrip"],
        default=None,
        help="boundary checks between passes (default: PYPTO_VERIFY_LEVEL or basic)",
    )
    p.add_argument(
        "--pass-option",
        type=_pass_option,
        action="append",
        default=[],
        metavar="PASS.OPTION=VALUE",
        help="set an option of a pass (repeatable; `pypto passes` lists them), e.g. MemoryReuse.strategy=best_fit",
    )


def _pass_option(text: str) -> tuple[str, str, Any]:
    """``PASS.OPTION=VALUE`` as (pass, option, value); the value is a Python literal, else the text itself."""
    import ast

    target, sep, value = text.partition("=")
    pass_name, dot, option = target.partition(".")
    if not sep or not dot or not pass_name or not option:
        raise argparse.ArgumentTypeError(f"invalid pass option {text!r}: expected PASS.OPTION=VALUE")
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        parsed = value
    return pass_name, option, parsed


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid seed {text!r}: expected a non-negative integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"invalid seed {text!r}: expected a non-negative integer")
    return value


def _swimlane(text: str) -> int:
    if text not in ("0", "1", "2", "3", "4"):
        raise argparse.ArgumentTypeError(f"invalid swimlane level {text!r}: expected 0 (off) to 4")
    return int(text)


def _width(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 300:
        raise argparse.ArgumentTypeError(f"invalid width {text!r}: expected a number of pixels >= 300")
    return value


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"invalid tolerance {text!r}: expected a non-negative number such as 1e-4")
    return value


class _Version(argparse.Action):
    """``--version``: looks the version up only when asked (importlib.metadata is slow to import)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("pypto")
        except PackageNotFoundError:  # a source tree that is not installed
            text = "(not installed)"
        print(f"pypto {text}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``pypto`` command."""
    parser = argparse.ArgumentParser(prog="pypto", description="The PyPTO tile-language compiler.")
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version of pypto and exit")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("compile", help="compile a DSL file into kernels, orchestration and pass dumps")
    _compile_options(p, "output folder of the artifact tree (default: a new temporary folder)")
    p.add_argument("--graph", action="store_true",
                   help="also draw the task graph into graph.svg of the tree (docs/graph.md; needs Graphviz)")
    p.add_argument("--memmap", action="store_true", help="also draw each kernel's memory map into DIR/memmap/")
    p.set_defaults(run=_cmd_compile)

    p = sub.add_parser("memmap", help="draw each kernel's on-chip memory map as SVG (docs/memmap.md)")
    _compile_options(p, "output folder of the SVGs, one per kernel (default: ./<FILE stem>_memmap)")
    p.set_defaults(run=_cmd_memmap)

    p = sub.add_parser("run", help="compile, run on a2a3sim and compare every output with the interpreter")
    _compile_options(p, "output folder of the artifact tree (default: a folder in the kernel cache's runs/, "
                        "removed when the run passes)")
    p.add_argument("--seed", type=_seed, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--inputs", metavar="FILE.npz", help="arrays by parameter name (np.savez); the rest are random")
    for name in ("rtol", "atol"):
        p.add_argument(f"--{name}", type=_tolerance,
                       help=f"{name} of every output (default: from dtypes and sums, docs/cli.md#tolerances)")
    p.add_argument("--swimlane", type=_swimlane, default=0, metavar="LEVEL",
                   help="capture the chip swimlane at LEVEL 1-4 and the task dependencies into DIR/dfx_outputs "
                        "(docs/timeline.md; default 0: off)")
    p.set_defaults(run=_cmd_run)

    p = sub.add_parser("timeline", help="draw the chip swimlane capture of a run as SVG and Chrome-trace JSON")
    p.add_argument("dir", help="the output folder of `pypto run --swimlane` (or its dfx_outputs)")
    p.add_argument("-o", "--output", help="the SVG file (default: DIR/dfx_outputs/timeline.svg)")
    p.add_argument("--trace", help="the Chrome-trace JSON file for Perfetto (default: the SVG's name, .trace.json)")
    p.add_argument("--width", type=_width, default=1000.0, help="width of the picture in pixels (default 1000)")
    p.set_defaults(run=_cmd_timeline)

    p = sub.add_parser("graph", help="compile a DSL file and draw the task graph of its orchestration as SVG")
    _compile_options(p, "the SVG file (default: FILE's name ending in .graph.svg, in the current folder)")
    p.add_argument("--fold", type=_fold, metavar="N",
                   help="fold a graph of more than N task sites, innermost loops first "
                        "(default: pypto.graph.FOLD_LIMIT, docs/graph.md#folding)")
    p.set_defaults(run=_cmd_graph)

    p = sub.add_parser("parse", help="parse a DSL file and print its IR")
    p.add_argument("file", help="a DSL source file holding one @pl.program")
    p.add_argument("--concise", action="store_true", help="omit the types of intermediate values")
    p.set_defaults(run=_cmd_parse)

    p = sub.add_parser("passes", help="list the passes of the default pipeline")
    p.set_defaults(run=_cmd_passes)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pypto`` command; returns the exit status."""
    started = time.perf_counter()
    args = build_parser().parse_args(argv)
    args.started = started  # the compile's progress line tells loading apart from compiling
    from pypto.ir.errors import PyptoError

    try:
        return args.run(args)
    except PyptoError as err:
        print(err.format_error(), file=sys.stderr)
        return 1
    except OSError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
