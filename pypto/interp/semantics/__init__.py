"""Op semantics: one table keyed by op name, filled by the family modules imported here."""

from . import elementwise, gather, matmul, movement, reduce, shape, sort, system  # noqa: F401  (they register)
from .table import INVALID_TASK_ID, SEMANTICS, OpContext, RunState, lookup, register

__all__ = ["INVALID_TASK_ID", "SEMANTICS", "OpContext", "RunState", "lookup", "register"]
