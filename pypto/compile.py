"""``ir.compile``: run the implemented pipeline on a program.

It lives above both ``pypto.ir`` and ``pypto.passes`` (the pipeline builds on the IR);
``pypto.ir`` re-exports it lazily, so ``from pypto import ir; ir.compile(...)`` works.

The pipeline currently ends in the ``ssa`` dialect (the front passes, plus installed plugin
passes); later stages extend ``pypto.passes.pipeline`` and this function returns what the last
implemented pass produces.
"""

from __future__ import annotations

from pathlib import Path

from pypto.backend import BackendType
from pypto.ir.function import Program
from pypto.passes import OptimizationStrategy, PassContext, PassManager


def compile(
    program: Program,
    output_dir: str | Path | None = None,
    strategy: object = None,
    dump_passes: bool = True,
    verify: bool | str | None = None,
    backend_type: BackendType | None = None,
) -> Program:
    """Run the default pipeline (``strategy``: a ``passes.OptimizationStrategy``) on ``program``.

    With ``output_dir`` and ``dump_passes``, the printed IR before and after every pass is written
    there (``00_frontend.py``, ``01_after_InlineFunctions.py``, ...). ``verify`` chooses the boundary
    checks (True/"strict", "basic", False/"none"; default from ``PYPTO_VERIFY_LEVEL``).
    ``backend_type`` chooses the target chip, whose :class:`~pypto.backend.Platform` the passes and
    checks read from the pass context (default: the current backend type). Returns the program in
    the pipeline's final dialect.
    """
    chosen = OptimizationStrategy.Default if strategy is None else OptimizationStrategy(strategy)
    manager = PassManager.get_strategy(chosen, verify=verify)
    dump = output_dir is not None and dump_passes
    outer = PassContext.current()
    platform = outer.platform if backend_type is None else backend_type
    with PassContext(outer.instruments, verify=outer.verify, platform=platform):
        return manager.run_passes(program, dump_ir=dump, output_dir=output_dir)
