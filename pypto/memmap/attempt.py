"""The layouts a failed memory plan tried: a capacity error stops the pipeline at the first kernel that
does not fit, so the input of AllocateMemoryAddr is kept and every kernel is laid out again alone."""

from __future__ import annotations

from pypto.backend import Platform
from pypto.ir.function import Function, Program
from pypto.passes import AllocateMemoryAddr, CapacityError
from pypto.transform.base import Pass
from pypto.transform.context import PassContext, PassInstrument
from pypto.transform.memref_util import KERNELS

from .model import KernelMap, kernel_map


class AttemptRecorder(PassInstrument):
    """Keeps the input of AllocateMemoryAddr, from which :meth:`maps` draws every kernel after a capacity error."""

    name = "MemmapAttempts"

    def __init__(self) -> None:
        self.input: tuple[Pass, Program] | None = None

    def before_pass(self, pass_: Pass, program: Program) -> None:
        if isinstance(pass_, AllocateMemoryAddr):
            self.input = (pass_, program)

    def maps(self, platform: Platform) -> dict[str, KernelMap] | None:
        """Each kernel as AllocateMemoryAddr lays it out, past the capacity where it does not fit; None when
        the pass has not run."""
        if self.input is None:
            return None
        allocate, program = self.input
        with PassContext(platform=platform):
            return {f.name: kernel_map(_attempt(allocate, f, program), platform)
                    for f in program.functions.values() if f.func_type in KERNELS}

    def recording(self) -> PassContext:
        """A pass context like the active one that also runs this recorder."""
        ctx = PassContext.current()
        return PassContext([*ctx.instruments, self], verify=ctx.verify, platform=ctx.platform)


def _attempt(allocate: Pass, func: Function, program: Program) -> Function:
    try:
        return allocate.run_function(func, program)
    except CapacityError as err:
        if err.attempt is None:
            raise
        return err.attempt
