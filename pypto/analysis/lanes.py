"""Which kernels the runtime launches on both vector lanes of a cluster (docs/codegen.md#groups).

A mixed task of a2a3 and a5 has one cube core and two vector cores (lanes, ``get_subblock_idx()`` 0
and 1). An AIV kernel runs on both when it splits its tiles between them (``split``) or is marked
``dual_aiv_dispatch`` (by hand, or by ExpandMixedKernel for an unsplit mixed kernel on a2a3, whose
lane 1 then replays the pipe traffic: SplitVectorKernel); otherwise only lane 0 runs it.
"""

from __future__ import annotations

from pypto.ir.enums import FunctionType
from pypto.ir.expr import Call
from pypto.ir.function import Function

from .callgraph import op_name
from .index import function_index

# Ops of a vector kernel's pipe traffic, which both lanes take part in.
LANE_PIPE_OPS = ("tile.tpop_from_aic", "system.tfree_to_aic", "tile.tpush_to_aic")
LANE_INDEX = "tile.get_subblock_idx"


def runs_on_both_lanes(func: Function) -> bool:
    """Whether the runtime launches ``func`` on both vector lanes of its cluster."""
    return func.func_type is FunctionType.AIV and bool(func.attrs.get("dual_aiv_dispatch") or func.attrs.get("split"))


def needs_lane_replay(func: Function) -> bool:
    """Whether ``func`` runs unsplit on both lanes with pipe traffic and does not read its lane: lane 1
    must then replay the pipe traffic alone (SplitVectorKernel). A pipe op with a ``split`` moves
    each lane's own half, so a kernel with one is the user's two-lane program."""
    if not runs_on_both_lanes(func) or func.attrs.get("split"):
        return False
    calls = function_index(func).of(Call)
    pipe_ops = [c for c in calls if op_name(c) in LANE_PIPE_OPS]
    return (bool(pipe_ops) and not any(c.kwargs.get("split") for c in pipe_ops)
            and not any(op_name(c) == LANE_INDEX for c in calls))
