"""``ir.compile``: run the pipeline on a program and write its artifact tree (docs/cli.md#artifacts).

It lives above ``pypto.ir``, ``pypto.passes`` and ``pypto.codegen``; ``pypto.ir`` re-exports it
lazily, so ``from pypto import ir; ir.compile(...)`` works. The tree::

    passes_dump/00_frontend.py, 01_after_<Pass>.py, ...   printed IR before and after every pass
    ptoas/<unit>.pto                                      PTO-ISA MLIR, one module per kernel unit
    kernels/aiv|aic/<func>.cpp                            CCE C++ kernels with kernel_entry
    orchestration/<name>.cpp                              PTO2 orchestration C++
    kernel_config.py                                      runtime, orchestration and kernel table
    compiled_meta.json                                    the call signature (``CompiledProgram.from_dir``)
    debug/run.py                                          reruns the tree alone (``pypto.runtime.debug_runner``)
    graph.svg                                             the task graph, with ``graph=True`` (docs/graph.md)
    memmap/<kernel>.svg                                   memory maps (``memmap=True``, :mod:`pypto.memmap`)

Each code generator is a function ``(program, platform) -> {relative path: text}`` of the final
(``synced``) program; a pipeline that ends before ``runtime`` (a strategy or plugin that stops
early) writes the pass dumps only, and one that reaches ``runtime`` without InsertPipeSync is
refused by the CCE emitter (its kernels need the placed pipe synchronisation). Everything is
written into a fresh folder beside the destination and moved into place when the compile
succeeds; on a failure the folder is kept under a name ending in ``.failed-<n>`` and its path is
printed (the newest three such folders of a destination are kept, older ones removed).
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from pypto.backend import BackendType, Platform, compiling, platform_for
from pypto.compile_options import MemoryPlanner
from pypto.compile_options import memory_planner as check_memory_planner
from pypto.compiled import RUN_PLATFORMS, CompiledProgram
from pypto.ir.errors import PyptoError
from pypto.ir.function import Program
from pypto.languages.runtime import runtime
from pypto.passes import CapacityError, OptimizationStrategy, PassContext, PassManager, VerifyLevel
from pypto.pipeline.manager import PassDumpLevel, PassOptions, dumps
from pypto.transform.plugins import installed_entry_points
from pypto.util.files import write_text
from pypto.runtime.debug_runner import runner_files
from pypto.runtime.meta import META_FILE, meta_text

Generator = Callable[[Program, Platform], Mapping[str, str]]

# Lists the files a compile wrote, so a later compile into the same folder removes exactly those.
MANIFEST = ".pypto_artifacts"
DUMP_DIR = "passes_dump"
MEMMAP_DIR = "memmap"
# where a compile without an output folder writes: the variable when set, else this folder of the current one
BUILD_DIR_VARIABLE = "PYPTO_PROG_BUILD_DIR"
DEFAULT_BUILD_DIR = "build_output"


class OutputDirError(PyptoError):
    """The output folder cannot take the artifact tree (it holds files pypto did not write)."""


def code_generators(skip_ptoas: bool = False) -> list[Generator]:
    """The generators of the artifact tree, in writing order, each ``(program, platform) -> {path: text}``.

    ``skip_ptoas`` leaves out the kernel C++ (the established flow's assembler step, which we print
    directly) and the kernel table that names it: the tree then holds the ``.pto`` modules and the
    orchestration only. The generator functions are bound on the first call (to replace one, patch
    this function).
    """
    return list(_generators(skip_ptoas))


@functools.cache  # made once per skip_ptoas: the imports and closures were per compile
def _generators(skip_ptoas: bool) -> tuple[Generator, ...]:
    from pypto.codegen.cce import generate_cce
    from pypto.codegen.kernel_config import generate_kernel_config
    from pypto.codegen.orchestration import generate_orchestration, orchestration_function
    from pypto.codegen.pto import generate_pto

    def pto(program: Program, chip: Platform) -> dict[str, str]:
        return {f"ptoas/{unit}.pto": text for unit, text in generate_pto(program, chip).items()}

    def kernel_config(program: Program, chip: Platform) -> dict[str, str]:
        # A program without orchestration compiles its kernels, but there is nothing for a runtime to run.
        if orchestration_function(program) is None:
            return {}
        return {"kernel_config.py": generate_kernel_config(program)}

    if skip_ptoas:
        return (pto, generate_orchestration)
    return (pto, generate_cce, generate_orchestration, kernel_config)


def compile(
    program: Program,
    output_dir: str | Path | None = None,
    strategy: OptimizationStrategy | str | None = None,
    dump_passes: bool | PassDumpLevel = True,
    backend_type: BackendType = BackendType.Ascend910B,
    skip_ptoas: bool = False,
    verification_level: VerifyLevel | bool | str | None = None,
    platform: str | None = None,
    *,
    verify: VerifyLevel | bool | str | None = None,
    memory_planner: MemoryPlanner | str | None = None,
    pass_options: PassOptions | None = None,
    graph: bool = False,
    memmap: bool = False,
    analyze_auto_scopes_for_deps: bool = False,
) -> CompiledProgram:
    """Compile ``program`` into the artifact tree in ``output_dir`` and return a :class:`CompiledProgram`.

    ``strategy``: a ``passes.OptimizationStrategy`` (default ``Default``). ``dump_passes`` (True or
    ``PassDumpLevel.ALL``): write the printed IR before and after every pass into ``passes_dump/``.
    ``backend_type``: the chip whose :class:`~pypto.backend.Platform` (capacities, alignment) the passes and
    generators read.
    ``skip_ptoas``: write no kernel C++ (see :func:`code_generators`). ``verification_level`` (alias
    ``verify``): the boundary checks, "basic", True/"strict", "roundtrip" or False/"none" (default
    ``PYPTO_VERIFY_LEVEL``, else basic). ``platform``: where calling the result runs the program,
    ``"a2a3sim"`` (default for Ascend910B) or ``"a2a3"``, ``"a5sim"``, ``"a5"`` (default for
    Ascend950); only a2a3sim runs here. ``memory_planner``: None or ``MemoryPlanner.PYPTO`` (pypto's
    own passes); ``DSA_RP``/``PTOAS`` (planning by ptoas) raise :class:`UnsupportedOptionError`.
    ``pass_options``: ``{pass name: {option: value}}``, the options of the pipeline's passes
    (docs/passes.md#options), e.g. ``{"MemoryReuse": {"strategy": "best_fit"}}``.
    ``graph``: also draw the orchestration's task graph into ``graph.svg`` (docs/graph.md; needs Graphviz's
    ``dot``); a program without orchestration has no graph.
    ``memmap``: also draw each kernel's memory map into ``memmap/<kernel>.svg`` (docs/memmap.md); a
    capacity error draws the kernels as the planner tried them into the failed tree before it is raised.
    ``analyze_auto_scopes_for_deps``: derive the task dependencies of an orchestration at compile
    time (AutoDeriveTaskDependencies, docs/tasks.md#auto-derive) instead of leaving them to
    the runtime; the same as ``pass_options={"AutoDeriveTaskDependencies": {"enabled": True}}``.
    ``output_dir`` None writes into a new folder ``<$PYPTO_PROG_BUILD_DIR or build_output>/<name>_<YYYYmmdd_HHMMSS>``
    (:func:`new_build_folder`); an existing folder must be empty or hold an earlier compile's tree, whose
    files are replaced.
    """
    if verify is not None and verification_level is not None and verify != verification_level:
        raise PyptoError("compile(): verification_level and its alias verify disagree; pass one of them")
    level = verification_level if verification_level is not None else verify
    check_memory_planner(memory_planner)
    chip = platform_for(BackendType(backend_type))
    if graph:
        from pypto.graph import check_dot

        check_dot()  # before the passes run: a missing tool is not worth a compile
    run_platform = _run_platform(platform, chip)
    try:
        chosen = OptimizationStrategy.Default if strategy is None else OptimizationStrategy(strategy)
    except ValueError:
        names = ", ".join(s.value for s in OptimizationStrategy)
        raise PyptoError(f"unknown strategy {strategy!r} (use {names})") from None
    if analyze_auto_scopes_for_deps:
        given = dict(pass_options or {})
        given["AutoDeriveTaskDependencies"] = {**given.get("AutoDeriveTaskDependencies", {}), "enabled": True}
        pass_options = given
    manager = _manager(chosen, level, pass_options)
    made = output_dir is None
    if output_dir is None:
        output_dir = new_build_folder(program.name or "program")
    # realpath is Path.resolve without its second stat (for a symlink loop, which the folder checks meet anyway)
    destination = Path(os.path.realpath(output_dir))
    # The tree is what write_files writes, unless the pass dumps add files of their own: then it is scanned.
    written: list[str] | None = None if dumps(dump_passes) else []
    try:
        with artifact_folder(destination, lambda: written) as folder:
            # The pass context is the compile's one platform channel; the generators take it as an argument.
            with compiling(chip), PassContext.for_platform(chip):
                dump = folder / DUMP_DIR if dumps(dump_passes) else None
                generated = manager.final_dialect.refines(runtime)
                if generated:
                    from pypto.codegen.orchestration_refused import check_orchestration_ops
                    from pypto.codegen.unsupported import check_printable

                    check_printable(program, frozenset({"pto"} if skip_ptoas else {"pto", "cce"}))
                    check_orchestration_ops(program)
                final = _run_pipeline(manager, program, dump, folder if memmap else None)
                if generated and manager.validates_result():
                    from pypto.codegen.base import note_validated

                    # the pipeline has just validated this very program: the generators need not again
                    note_validated(manager.final_dialect, final, chip)
                files = generate_files(final, chip, skip_ptoas) if generated else {}
                if graph and generated:
                    files.update(_graph_file(final))
                if memmap:
                    from pypto.memmap import memmap_files, program_maps

                    files.update(memmap_files(program_maps(final, chip), MEMMAP_DIR))
                if generated:
                    files.update(_meta_file(program, final, run_platform, chip))
                    if META_FILE in files:
                        files.update(runner_files())
            names = write_files(folder, files)
            if written is not None:
                written.extend(names)
    except BaseException:
        if made:
            destination.rmdir()  # the empty build folder claimed above; the failed tree is beside it
        raise
    return CompiledProgram(
        program=program,
        final_program=final,
        output_dir=destination,
        backend_type=chip.backend_type,
        platform=run_platform,
        files=tuple(sorted(files)),
        final_dialect=manager.final_dialect.name,
        generated=generated,
        skip_ptoas=skip_ptoas,
    )


def _manager(
    strategy: OptimizationStrategy, level: VerifyLevel | bool | str | None, options: PassOptions | None
) -> PassManager:
    """The pass manager of a compile; without pass options, shared by the compiles asking for the same
    strategy and checks (building and order-checking the pipeline was 3% of a small compile).
    Passes are immutable; another set of installed plugin entry points gives a new one."""
    if options:
        return PassManager.get_strategy(strategy, verify=level, pass_options=options)
    return _default_manager(strategy, level, installed_entry_points())


@functools.lru_cache(maxsize=16)
def _default_manager(
    strategy: OptimizationStrategy, level: VerifyLevel | bool | str | None, plugins: tuple[object, ...]
) -> PassManager:
    return PassManager.get_strategy(strategy, verify=level)


def _run_pipeline(manager: PassManager, program: Program, dump: Path | None, memmaps: Path | None) -> Program:
    """The pipeline's result; with ``memmaps`` (a tree folder), a capacity error first draws the kernels there."""
    if memmaps is None:
        return manager.run_passes(program, dump_ir=dump is not None, output_dir=dump)
    from pypto.memmap import AttemptRecorder, memmap_files  # only for a compile that draws memory maps

    recorder = AttemptRecorder()
    try:
        with recorder.recording():
            return manager.run_passes(program, dump_ir=dump is not None, output_dir=dump)
    except CapacityError:
        maps = recorder.maps(PassContext.current().platform)
        if maps is not None:
            write_files(memmaps, memmap_files(maps, MEMMAP_DIR))
        raise


def _run_platform(platform: str | None, chip: Platform) -> str:
    default = "a2a3sim" if chip.backend_type is BackendType.Ascend910B else "a5sim"
    if platform is None:
        return default
    if platform not in RUN_PLATFORMS:
        raise PyptoError(f"unknown platform {platform!r} (use {', '.join(RUN_PLATFORMS)})")
    if not platform.startswith(chip.name):
        raise PyptoError(f"platform {platform!r} does not run {chip.backend_type.value} programs (use {default!r})")
    return platform


def _graph_file(program: Program) -> dict[str, str]:
    """``graph.svg``, the task graph of the final program, when it has an orchestration to draw."""
    from pypto.codegen.orchestration import orchestration_function
    from pypto.graph import GRAPH_FILE, draw

    return {GRAPH_FILE: draw(program)} if orchestration_function(program) is not None else {}


def _meta_file(program: Program, final: Program, platform: str, chip: Platform) -> dict[str, str]:
    """``compiled_meta.json`` (the call signature, for ``CompiledProgram.from_dir``), when there is one."""
    try:
        text = meta_text(program, platform, chip.backend_type.value, final)
    except ValueError:  # no orchestration function: nothing a runtime calls
        return {}
    return {META_FILE: text}


def generate_files(program: Program, chip: Platform, skip_ptoas: bool = False) -> dict[str, str]:
    """Every generated file of ``program`` by relative path; a path two generators produce is an error."""
    files: dict[str, str] = {}
    for generate in code_generators(skip_ptoas):
        for path, text in generate(program, chip).items():
            if path in files:
                raise PyptoError(f"two code generators both write {path}")
            files[path] = text
    return files


def write_files(root: Path, files: Mapping[str, str]) -> list[str]:
    """Write ``files`` (relative POSIX paths) under ``root``; a path leaving ``root`` is an error.
    Returns the relative paths written, normalised (``a//b`` is ``a/b``)."""
    # Plain os calls, each folder made once: pathlib objects per file were most of the CPU time here.
    made: set[tuple[str, ...]] = {()}
    base = os.fspath(root)
    names: list[str] = []
    for name, text in files.items():
        parts, relative = _relative_parts(name)
        _make_folders(base, parts[:-1], made)
        # joined by hand (os.path.join was a third of this loop's bytecodes): the parts are plain names
        write_text(f"{base}/{relative}", text if text.endswith("\n") else text + "\n")
        names.append(relative)
    return names


def _make_folders(base: str, parts: tuple[str, ...], made: set[tuple[str, ...]]) -> None:
    """Make the folder ``base/parts...`` and those above it not in ``made`` (each one mkdir: os.makedirs
    stats every parent first)."""
    if parts in made:
        return
    _make_folders(base, parts[:-1], made)
    path = f"{base}/{'/'.join(parts)}"
    try:
        os.mkdir(path)
    except FileExistsError:
        if not os.path.isdir(path):
            raise
    made.add(parts)


@functools.lru_cache(maxsize=1024)
def _relative_parts(name: str) -> tuple[tuple[str, ...], str]:
    """The parts of a generated file's relative POSIX path and the path they make, normalised (the
    same names recur in every compile)."""
    rel = PurePosixPath(name)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts or rel.parts[0] == MANIFEST:
        raise PyptoError(f"a code generator produced the path {name!r}, which is not inside the artifact tree")
    return rel.parts, "/".join(rel.parts)


def new_build_folder(name: str) -> Path:
    """A new folder ``<$PYPTO_PROG_BUILD_DIR or build_output>/<name>_<YYYYmmdd_HHMMSS>``, the established
    default of a compile without an output folder (relative to the current folder). It is created here, so
    compiles in the same second, in one process or several, each get their own: ``_1``, ``_2``, ... follow."""
    root = Path(os.environ.get(BUILD_DIR_VARIABLE) or DEFAULT_BUILD_DIR)
    root.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d_%H%M%S")
    return _claim_folder(lambda n: root / (f"{name}_{stamp}_{n}" if n else f"{name}_{stamp}"))


@contextmanager
def artifact_folder(destination: Path, listing: Callable[[], list[str] | None] | None = None) -> Iterator[Path]:
    """A fresh folder beside ``destination`` to write into, moved into place when the block succeeds.

    The destination must be missing, empty, or an earlier tree (it has a manifest): then exactly the
    files that manifest lists are replaced, and files anyone else put there stay. On an error the
    fresh folder is renamed ``<destination>.failed-<n>`` and its path printed to stderr (older failures
    beyond the newest :data:`KEPT_FAILURES` are removed).

    ``listing``, called when the block succeeds, names every file the block wrote (relative paths), or
    returns None: then the folder is scanned for them.
    """
    try:
        previous = _previous_tree(destination)
        try:
            folder = _fresh_folder(destination)
        except FileNotFoundError:  # the parent is made only when missing (it mostly exists: no stat for it)
            os.makedirs(destination.parent, exist_ok=True)
            folder = _fresh_folder(destination)
    except OSError as err:  # a symlink loop, no permission, a file where a folder should be, ...
        raise OutputDirError(
            f"cannot write the artifact tree to {destination}: {err.strerror or err} "
            "(hint: choose a folder you can create and write)"
        ) from None
    try:
        yield folder
        listed = listing() if listing is not None else None
        new = _tree_files(folder) if listed is None else sorted(set(listed))
        write_text(os.path.join(folder, MANIFEST), "".join(f"{p}\n" for p in new))
        _move_into_place(folder, destination, previous, [MANIFEST, *new])
    except BaseException as err:
        kept = _keep_failed(folder, destination)
        note = f"pypto: the compile failed; what it wrote is kept in {kept}"
        print(note, file=sys.stderr)
        err.add_note(note)
        raise


def _fresh_folder(destination: Path) -> Path:
    """A new hidden folder beside ``destination`` (created with the usual permissions, unlike mkdtemp)."""
    return _claim_folder(lambda n: destination.with_name(f".{destination.name}.partial-{os.getpid()}-{n}"))


def _claim_folder(named: Callable[[int], Path]) -> Path:
    """The first of ``named(0)``, ``named(1)``, ... that ``mkdir`` creates: creating it is what claims it,
    so two compiles (in one process or several) never get the same folder."""
    n = 0
    while True:
        folder = named(n)
        try:
            folder.mkdir()
        except FileExistsError:
            n += 1
            continue
        return folder


def _previous_tree(destination: Path) -> set[str] | None:
    """The files of an earlier compile in ``destination`` (None when it is missing or empty)."""
    try:  # one stat and one listing (pathlib's exists, is_dir and iterdir stat it twice more)
        mode = os.stat(destination).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISDIR(mode):
        raise OutputDirError(f"the output path {destination} exists and is not a folder")
    with os.scandir(destination) as entries:
        if next(entries, None) is None:
            return None
    manifest = destination / MANIFEST
    if not manifest.is_file():
        raise OutputDirError(
            f"the output folder {destination} is not empty and was not written by pypto compile "
            "(hint: choose a new or empty folder; pypto never deletes files it did not write)"
        )
    return {line for line in manifest.read_text().splitlines() if line} | {MANIFEST}


def _tree_files(root: Path) -> list[str]:
    """The relative paths of the files below ``root``, sorted (folders are entered, as ``os.walk``
    does, unless they are symbolic links; those are not listed)."""
    out: list[str] = []
    _scan(os.fspath(root), "", out)
    return sorted(out)


def _scan(folder: str, prefix: str, out: list[str]) -> None:
    # scandir directly: os.walk's generators and relpath per folder cost more than reading the folders
    with os.scandir(folder) as entries:
        for entry in entries:
            if not entry.is_dir():
                out.append(prefix + entry.name)
            elif not entry.is_symlink():
                _scan(entry.path, f"{prefix}{entry.name}/", out)


KEPT_FAILURES = 3


def _keep_failed(folder: Path, destination: Path) -> Path:
    """Rename ``folder`` to the next ``<destination>.failed-<n>``; only the newest :data:`KEPT_FAILURES` stay."""
    prefix = f"{destination.name}.failed-"
    numbers = sorted(
        int(p.name[len(prefix) :]) for p in destination.parent.glob(f"{prefix}*") if p.name[len(prefix) :].isdigit()
    )
    kept = destination.with_name(f"{prefix}{(numbers[-1] if numbers else 0) + 1}")
    folder.rename(kept)
    for n in numbers[: max(0, len(numbers) + 1 - KEPT_FAILURES)]:
        shutil.rmtree(destination.with_name(f"{prefix}{n}"), ignore_errors=True)
    return kept


def _move_into_place(folder: Path, destination: Path, previous: set[str] | None, new: list[str]) -> None:
    """Move the files ``new`` of ``folder`` (its manifest too) into ``destination``, replacing the
    ``previous`` tree there."""
    if previous is None:
        os.replace(folder, destination)  # rename(2) replaces a missing or empty folder (checked empty before)
        return
    clash = [name for name in new if name not in previous and (destination / name).exists()]
    if clash:
        raise OutputDirError(
            f"{destination} holds files pypto did not write where the new tree has files: {', '.join(clash)} "
            "(hint: move them away or compile into another folder)"
        )
    for name in sorted(previous - set(new)):
        _remove_ours(destination, name)
    for name in new:
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(folder / name, target)
    shutil.rmtree(folder)  # only empty folders are left in it


def _remove_ours(root: Path, name: str) -> None:
    """Remove a file of the earlier tree and the folders it leaves empty (up to ``root``)."""
    path = root / name
    if not path.is_file():
        return
    path.unlink()
    parent = path.parent
    while parent != root and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent
