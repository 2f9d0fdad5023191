"""Every operator of spec/ops.md, by namespace (the checklist the coverage test walks).

Written from the catalog document, independently of the registry.
"""

from __future__ import annotations

_EXPAND = ("add", "sub", "mul", "div", "max", "min", "expdif")

TENSOR = [
    # §4.1 creation and access
    "create", "full", "ci", "random", "create_l1", "read", "write", "dim",
    "get_block_idx", "get_subblock_idx", "get_block_num",
    # §4.2 elementwise
    "add", "sub", "mul", "div", "adds", "subs", "muls", "divs", "fmod", "fmods", "maximum", "minimum",
    "part_add", "part_mul", "part_max", "part_min", "cmp",
    "and", "or", "xor", "shl", "shr", "ands", "ors", "xors", "shls", "shrs", "not",
    "exp", "sin", "cos", "neg", "abs", "sqrt", "log", "recip", "rsqrt", "cast", "expands", "expand_clone",
    # §4.3 reductions and broadcasts
    "row_sum", "row_max", "row_min", "row_prod", "col_sum", "col_max", "col_min", "col_prod",
    "row_argmax", "row_argmin", "col_argmax", "col_argmin",
    "row_expand", *(f"row_expand_{f}" for f in _EXPAND), "col_expand", *(f"col_expand_{f}" for f in _EXPAND),
    # §4.4 matmul
    "matmul", "matmul_acc",
    # §4.5 shape, view, movement
    "slice", "reshape", "transpose", "view", "reinterpret_view", "concat", "assemble", "fillpad",
    "fillpad_expand", "set_validshape",
    # §4.6 gather, scatter, sort
    "gather", "gather_mask", "gather_compare", "scatter", "scatter_mask", "scatter_update", "gather_row",
    "paged_gather", "sort32", "mrgsort_format1", "mrgsort_format2",
    # §7 tensor forms of the cross-core helpers, §9 allocation
    "aiv_shard", "aic_gather", "alloc",
]

TILE = [
    # §5.1 creation, movement, access
    "create", "full", "ci", "tri", "random", "load", "store", "move", "extract", "read", "write",
    "get_block_idx", "get_subblock_idx", "get_block_num", "alloc",
    # §5.2 elementwise
    "add", "sub", "mul", "div", "adds", "subs", "muls", "divs", "maximum", "minimum", "maximums", "minimums",
    "fmod", "fmods", "rem", "rems", "part_add", "part_mul", "part_max", "part_min", "cmp", "cmps",
    "and", "or", "shl", "shr", "ands", "ors", "shls", "shrs", "xor", "xors", "not",
    "addc", "subc", "addsc", "subsc", "prelu", "lrelu", "relu", "sel", "sels",
    "exp", "sin", "cos", "neg", "abs", "sqrt", "log", "recip", "rsqrt", "cast", "expands",
    # §5.3 reductions and broadcasts
    "row_sum", "row_max", "row_min", "row_prod", "row_argmax", "row_argmin",
    "col_sum", "col_max", "col_min", "col_prod", "col_argmax", "col_argmin",
    "row_expand", *(f"row_expand_{f}" for f in _EXPAND), "col_expand", *(f"col_expand_{f}" for f in _EXPAND),
    # §5.4 matmul family
    "matmul", "matmul_acc", "matmul_bias", "batch_matmul", "batch_matmul_acc", "gemv", "gemv_acc", "gemv_bias",
    "matmul_mx", "matmul_mx_acc", "matmul_mx_bias", "transpose_view",
    # §5.5 shape, view, gather/scatter/sort
    "slice", "reshape", "reinterpret_view", "transpose", "assemble", "concat", "set_validshape",
    "fillpad", "fillpad_inplace", "fillpad_expand", "gather", "gatherb", "gather_mask", "gather_compare",
    "mgather", "scatter", "scatter_mask", "mscatter", "scatter_update", "gather_row", "sort32",
    "mrgsort_format1", "mrgsort_format2",
    # §7 cross-core (IR namespace tile)
    "tpush_to_aiv", "tpush_to_aic", "tpop_from_aic", "tpop_from_aiv", "aiv_shard", "aic_gather",
]

SYSTEM = [
    # §6
    "sync_src", "sync_dst", "bar_v", "bar_m", "bar_all", "fence", "cacheinvalid", "syncall", "sync_set",
    "sync_wait", "set_ffts", "task_invalid", "task_dummy", "task_is_valid", "available_cluster_count",
    "available_aiv_count",
    # §7 cross-core (IR namespace system)
    "tfree_to_aic", "tfree_to_aiv", "aic_initialize_pipe", "aiv_initialize_pipe", "reserve_buffer",
    "import_peer_buffer",
]

ARRAY = ["create", "get_element", "update_element"]

CATALOG: list[str] = (
    [f"tensor.{n}" for n in TENSOR] + [f"tile.{n}" for n in TILE] + [f"system.{n}" for n in SYSTEM]
    + [f"array.{n}" for n in ARRAY]
)

# Cross-core ops that the DSL also exposes in pl.system (ops.md §3 promoted list).
SYSTEM_ALIASES = ["tpush_to_aiv", "tpush_to_aic", "tpop_from_aic", "tpop_from_aiv"]

# Top-level pl.* names of ops.md §3.
PROMOTED_NAMES = [
    "add", "sub", "mul", "div", "fmod", "maximum", "minimum", "cmp", "and_", "or_", "shl", "shr", "xor",
    "ands", "ors", "xors", "shls", "shrs", "fmods",
    "exp", "log", "sin", "cos", "neg", "abs", "recip", "sqrt", "rsqrt", "not_", "cast", "reshape",
    "reinterpret_view", "transpose", "slice", "concat", "fillpad", "fillpad_expand", "expands", "set_validshape",
    "read", "write", "assemble", "gather_row", "scatter_update", "sort32", "mrgsort", "matmul", "matmul_acc",
    "part_add", "part_mul", "part_max", "part_min",
    "row_sum", "row_max", "row_min", "row_prod", "row_argmax", "row_argmin",
    "col_sum", "col_max", "col_min", "col_prod", "col_argmax", "col_argmin",
    "row_expand", *(f"row_expand_{f}" for f in _EXPAND), "col_expand", *(f"col_expand_{f}" for f in _EXPAND),
    "batch_matmul",
    "create_tile", "load", "store", "move", "gatherb", "mgather", "mscatter", "relu", "matmul_bias", "matmul_mx",
    "matmul_mx_acc", "matmul_mx_bias", "gemv", "gemv_acc", "gemv_bias", "min", "max", "cmps", "maximums",
    "minimums", "rem", "rems", "prelu", "lrelu", "addc", "subc", "addsc", "subsc", "sel", "sels", "tri",
    "aiv_shard", "aic_gather",
    "create_tensor", "full", "dim", "arange", "random", "expand_clone", "gather", "scatter", "paged_gather",
    "create_l1", "no_dep", "dump_tag", "get_block_idx", "get_block_num", "get_subblock_idx",
    "AUTO", "tpush_to_aiv", "tpush_to_aic", "tpop_from_aic", "tpop_from_aiv", "tfree_to_aic", "tfree_to_aiv",
    "aic_initialize_pipe", "aiv_initialize_pipe", "reserve_buffer", "import_peer_buffer",
]
