"""DSL types and value wrappers (``Tensor``, ``Tile``, ``Scalar``, ``Array``, ``DynVar``, ``Out``, ``InOut``).

The annotation classes arrive with the DSL issue; ``values`` holds the wrappers op functions use.
"""

from .values import ArrayValue, ScalarValue, TensorValue, TileValue, Value, unwrap, wrap

__all__ = ["ArrayValue", "ScalarValue", "TensorValue", "TileValue", "Value", "unwrap", "wrap"]
