"""The dialects of the compiler (installed as ``pypto.languages``).

One module per dialect, each declared as a delta on its parent (node kinds or forms removed and
added, invariants guaranteed or dropped), plus the invariant checkers in ``invariants/``::

    surface -> ssa -> outlined -> tiled -> placed -> split_core -> memref -> runtime -> synced

Why these cuts. docs/dialects.md#the-chain suggests eight groups (D0-D7). Two refinements:

* Its D1 ("core": no inline functions, no unroll loops, no kernel break/continue) is not a
  dialect of its own here. The three passes that produce it are independent of each other, and
  each produces one property; giving each its own language would add three languages that differ
  by one rule. Instead, passes carry the property contract of docs/passes.md#contract (required / produced /
  invalidated): inside a dialect the pass manager tracks which properties hold and checks each
  one a pass produces, and ``ssa`` removes the forms D1 removes (``Function[func_type=Inline]``,
  ``ForStmt[kind=Unroll]``) and guarantees StructuredCtrlFlow. So ConvertToSSA cannot run before
  the three passes: the manager sees, before running it, that the ``ssa`` boundary needs
  properties nobody produced yet.
* A dialect is entered where its guarantees are complete, not where the first pass of a group
  runs: ``ssa`` is entered by ConvertToSSA; Simplify, NormalizeStmtStructure and FlattenCallExpr
  stay in ``ssa`` and produce NormalizedStmtStructure and NoNestedCalls, which ``outlined``
  requires. D6 and D7 keep the names of the design picture (``memref``, ``runtime``).
* Synchronisation placement ends in ``synced``, the dialect the emitters require: a pipeline
  without InsertPipeSync stops at ``runtime`` and codegen refuses it (a kernel without
  set_flag/wait_flag races on hardware).

Entering a dialect validates node kinds and every invariant; a failure is a
:class:`~pypto.ir.errors.VerificationError` listing each violation with dialect, rule, printed
node and span. ``describe(d)`` prints a dialect's grammar, ``diff(a, b)`` the delta between two.
Third-party dialects register through the ``pypto.dialects`` entry-point group (``plugins``).
"""

from pypto.ir.errors import IRValueError

from .dialect import Dialect, Variant, describe, diff
from .memref import memref
from .outlined import outlined
from .placed import placed
from .plugins import PluginError, discover_dialects, installed_dialects
from .runtime import runtime
from .split_core import split_core
from .ssa import ssa
from .surface import surface
from .synced import synced
from .tiled import tiled

CHAIN: tuple[Dialect, ...] = (surface, ssa, outlined, tiled, placed, split_core, memref, runtime, synced)


def by_name(name: str) -> Dialect:
    """The dialect called ``name`` (``"ssa"``, or an installed plugin's); unknown names raise ``ValueError``."""
    for d in CHAIN:
        if d.name == name:
            return d
    plugin = installed_dialects(CHAIN).get(name)
    if plugin is not None:
        return plugin
    raise IRValueError(f"unknown dialect '{name}' (known: {', '.join(d.name for d in CHAIN)})")


__all__ = [
    "CHAIN",
    "Dialect",
    "PluginError",
    "Variant",
    "by_name",
    "describe",
    "diff",
    "discover_dialects",
    "installed_dialects",
    "memref",
    "outlined",
    "placed",
    "runtime",
    "split_core",
    "ssa",
    "surface",
    "synced",
    "tiled",
]
