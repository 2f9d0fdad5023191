"""The op catalog: one module per family, each a table of ``define(...)`` declarations.

Importing this package registers every op; ``pypto.ir`` imports it right after the registry, so
the registry is complete on every import path.
"""

from . import (  # noqa: F401  (importing registers the ops)
    array_ops,
    cross_core_ops,
    system_ops,
    tensor_ops,
    tensor_view_ops,
    tile_elementwise_ops,
    tile_matmul_ops,
    tile_ops,
    tile_view_ops,
)
