"""``ir.compile``: run the implemented pipeline on a program.

It lives above both ``pypto.ir`` and ``pypto.passes`` (the pipeline builds on the IR);
``pypto.ir`` re-exports it lazily, so ``from pypto import ir; ir.compile(...)`` works.

The pipeline currently ends in the ``ssa`` dialect (the front passes, plus installed plugin
passes); later stages extend ``pypto.passes.pipeline`` and this function returns what the last
implemented pass produces.
"""

from __future__ import annotations

from pathlib import Path

from pypto.ir.function import Program
from pypto.passes import OptimizationStrategy, PassManager


def compile(
    program: Program,
    output_dir: str | Path | None = None,
    strategy: object = None,
    dump_passes: bool = True,
    verify: bool | str | None = None,
) -> Program:
    """Run the default pipeline (``strategy``: a ``passes.OptimizationStrategy``) on ``program``.

    With ``output_dir`` and ``dump_passes``, the printed IR before and after every pass is written
    there (``00_frontend.py``, ``01_after_InlineFunctions.py``, ...). ``verify`` chooses the boundary
    checks (True/"strict", "basic", False/"none"; default from ``PYPTO_VERIFY_LEVEL``). Returns the
    program in the pipeline's final dialect.
    """
    chosen = OptimizationStrategy.Default if strategy is None else OptimizationStrategy(strategy)
    manager = PassManager.get_strategy(chosen, verify=verify)
    dump = output_dir is not None and dump_passes
    return manager.run_passes(program, dump_ir=dump, output_dir=output_dir)
