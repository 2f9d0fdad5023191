"""DSL types and value wrappers.

Annotation classes: ``Tensor``, ``Tile``, ``Scalar``, ``Array``, ``Tuple`` (subscript them to get an
IR type), the directions ``Out`` and ``InOut``, and ``DynVar`` (``pl.dynamic``) for symbolic
dimensions. ``values`` holds the wrappers op functions take and return.
"""

from .annotation import UnresolvedAnnotation
from .direction import DirectedAnnotation, InOut, Out
from .dynamic import DynVar, dynamic
from .scalar import Array, Scalar, Tuple
from .shaped import Tensor, Tile
from .values import ArrayValue, ScalarValue, TensorValue, TileValue, Value, unwrap, wrap

__all__ = [
    "Array",
    "ArrayValue",
    "DirectedAnnotation",
    "DynVar",
    "InOut",
    "Out",
    "Scalar",
    "ScalarValue",
    "Tensor",
    "TensorValue",
    "Tile",
    "TileValue",
    "Tuple",
    "UnresolvedAnnotation",
    "Value",
    "dynamic",
    "unwrap",
    "wrap",
]
