"""``pypto.language.op.unified_ops``: the established module of the unified ``pl.<op>`` dispatchers.

Each name is the same dispatcher object as ``pl.<name>`` (``pl.add`` picks ``tensor.add`` or
``tile.add`` by its operands, docs/ops.md#dispatch); see :mod:`.dispatch`.
"""

from .dispatch import DISPATCHERS

globals().update(DISPATCHERS)

__all__ = sorted(DISPATCHERS)  # noqa: PLE0605 - the dispatcher names
