"""Analyses of IR shared by passes and invariant checkers (imports ``pypto.ir`` and ``pypto.util`` only).

* :mod:`.index`: ``walk`` and the per-function node index (cached weakly per Function object);
* :mod:`.defuse`: what a statement reads, evaluates and defines, blocks, free variables, expression summaries;
* :mod:`.liveness`: gen/kill summaries and live-after sets for pre-SSA code;
* :mod:`.callgraph`: callees, the call graph of a program and its cycles;
* :mod:`.names`: the supply of fresh compiler names;
* :mod:`.memory_spaces`: call statements of a body and the memory spaces tile operands allow;
* :mod:`.flow`: ``ForwardWalk``, the one forward statement walk (loop fixpoint, branch join) the
  flow analyses are written on;
* :mod:`.roots`, :mod:`.gm_alias`: which buffer a variable names (orchestration roots, the
  parameter a function returns; GM tensors inside a kernel);
* :mod:`.loops`: a loop's constant trip count;
* :mod:`.kernel_code`: which calls run on a core (kernel functions and the scopes outlined into kernels);
* :mod:`.call_args`: the argument an op call passes for each parameter, bound once per call.
"""

from .callgraph import call_graph, callee, calls_functions, find_cycle, op_name
from .defuse import (
    base_name,
    block,
    clear_expr_vars,
    deep_summary,
    defined_vars,
    expr_calls,
    expr_summary,
    expr_vars,
    free_vars,
    scope_attr_reads,
    scope_task_id,
    stmt_defs,
    stmt_evaluated,
    stmt_exprs,
    stmt_reads,
    sub_blocks,
    type_vars,
    use_counts,
    view_vars,
    walk_values,
)
from .index import FunctionIndex, clear_function_indexes, function_index, walk
from .liveness import Liveness, Summary
from .names import NameSupply

__all__ = [
    "FunctionIndex",
    "Liveness",
    "NameSupply",
    "Summary",
    "base_name",
    "block",
    "call_graph",
    "clear_expr_vars",
    "clear_function_indexes",
    "deep_summary",
    "callee",
    "calls_functions",
    "defined_vars",
    "expr_calls",
    "expr_summary",
    "expr_vars",
    "find_cycle",
    "free_vars",
    "scope_attr_reads",
    "scope_task_id",
    "function_index",
    "op_name",
    "stmt_defs",
    "stmt_evaluated",
    "stmt_exprs",
    "stmt_reads",
    "sub_blocks",
    "type_vars",
    "use_counts",
    "view_vars",
    "walk",
    "walk_values",
]
