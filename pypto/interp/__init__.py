"""The reference interpreter: run a program of any dialect on numpy arrays.

``run(program_or_function, *inputs, entry=None)`` executes and returns a :class:`RunResult`;
:func:`pypto.interp.testing.assert_pass_preserves` runs a program before and after a pass and
compares the results. Op meanings live in one table keyed by op name
(:mod:`pypto.interp.semantics`); control flow in :mod:`pypto.interp.machine`; tile storage after
memory planning in :mod:`pypto.interp.memory`.
"""

from .errors import InterpreterError
from .run import RunResult, run

__all__ = ["InterpreterError", "RunResult", "run"]
