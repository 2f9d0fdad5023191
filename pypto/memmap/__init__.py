"""Memory maps of planned kernels as SVG: where each buffer sits in on-chip memory over time.

    maps = program_maps(compiled.final_program, platform_for(BackendType.Ascend910B))
    Path("softmax.svg").write_text(render_svg(maps["softmax"]))

``pypto memmap FILE.py -o DIR`` and ``pypto compile --memmap`` draw one picture per kernel; a
program that does not fit still draws, from the layouts the planner tried (:func:`plan_maps`).
See docs/memmap.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto.backend import BackendType, Platform, compiling, platform_for
from pypto.ir.function import Program
from pypto.passes import CapacityError, OptimizationStrategy, PassContext, PassManager
from pypto.pipeline.manager import PassOptions
from pypto.transform.memref_util import KERNELS

from .attempt import AttemptRecorder
from .model import Buffer, KernelMap, LoopSpan, MemmapError, kernel_map
from .svg import render_svg

__all__ = [
    "AttemptRecorder",
    "Buffer",
    "KernelMap",
    "LoopSpan",
    "MemmapError",
    "Planned",
    "kernel_map",
    "memmap_files",
    "plan_maps",
    "program_maps",
    "render_svg",
]


def program_maps(program: Program, platform: Platform) -> dict[str, KernelMap]:
    """The memory map of every AIC and AIV kernel of the planned ``program``, by kernel name."""
    return {f.name: kernel_map(f, platform) for f in program.functions.values() if f.func_type in KERNELS}


def memmap_files(maps: dict[str, KernelMap], folder: str = "") -> dict[str, str]:
    """``{<folder>/<kernel>.svg: SVG text}`` for ``maps``."""
    return {f"{folder}{'/' if folder else ''}{name}.svg": render_svg(kmap) for name, kmap in maps.items()}


@dataclass(frozen=True)
class Planned:
    """The maps of a program's kernels after memory planning; ``error`` is the capacity error when one
    does not fit, and then each kernel is drawn at the addresses the planner tried for it."""

    maps: dict[str, KernelMap]
    error: CapacityError | None = None


def plan_maps(
    program: Program,
    backend_type: BackendType = BackendType.Ascend910B,
    pass_options: PassOptions | None = None,
    verify: str | None = None,
) -> Planned:
    """Run the default pipeline on ``program`` for ``backend_type`` (no code generated) and map its kernels.

    A :class:`CapacityError` from memory planning maps every kernel at the addresses tried
    (:class:`AttemptRecorder`); every other error is raised.
    """
    chip = platform_for(backend_type)
    manager = PassManager.get_strategy(OptimizationStrategy.Default, verify=verify, pass_options=pass_options)
    recorder = AttemptRecorder()
    try:
        with compiling(chip), PassContext.for_platform(chip), recorder.recording():
            final = manager.run_passes(program)
    except CapacityError as err:
        with compiling(chip):
            maps = recorder.maps(chip)
        if maps is None:
            raise
        return Planned(maps, err)
    return Planned(program_maps(final, chip))
