"""Array operators (docs/ops.md#array-ops): small on-core arrays of integers, BOOL or TASK_ID values.

Arrays are values: ``update_element`` returns a new array (the DSL rebinds ``arr[i] = v``).
"""

from __future__ import annotations

from typing import Any

from ..datatype import DataType
from ..expr import ConstBool, ConstInt, Expr
from ..op_registry import CallInfo
from ..type_base import ScalarType, Type
from ..types import ArrayType
from . import kwtypes as K
from .common import const_value
from .decl import EVERYWHERE, RW, array, define, index, kw, scalar

D = DataType


def _create(ci: CallInfo) -> Type:
    """``Array[extent, dtype]``: extent a static constant > 0; dtype integer, BOOL or TASK_ID."""
    extent = const_value(ci["extent"])
    if extent is None or extent <= 0:
        ci.fail("extent must be a static integer > 0")
    dtype = ci.kw("dtype")
    if not (dtype.is_int() or dtype.is_bool() or dtype.is_task_id()):
        ci.fail(f"dtype must be an integer, BOOL or TASK_ID, got {dtype.name}")
    return ArrayType(dtype, extent)


def check_index(ci: CallInfo) -> None:
    """An integer index; a constant one inside the array's static extent."""
    if not ci["index"].type.dtype.is_int():
        ci.fail(f"argument 'index' must be an integer scalar, got {ci['index'].type.dtype.name}")
    index, arr = const_value(ci["index"]), ci["array"].type
    if index is not None and isinstance(arr, ArrayType) and not 0 <= index < arr.extent.value:
        n = arr.extent.value
        ci.fail(f"index {index} is out of range for an array of {n} elements", f"use an index in 0 .. {n - 1}")


def _get_element(ci: CallInfo) -> Type:
    """``Scalar[arr.dtype]``."""
    check_index(ci)
    return ScalarType(ci["array"].type.dtype)


def _update_element(ci: CallInfo) -> Type:
    """A new array of the same type with one element replaced."""
    check_index(ci)
    arr: ArrayType = ci["array"].type
    value = ci["value"].type.dtype
    if value != arr.dtype and not (value == D.INDEX and arr.dtype.is_int()):
        ci.fail(f"value dtype {value.name} must equal the array dtype {arr.dtype.name}")
    return ArrayType(arr.dtype, arr.extent.value)


def array_value(value: Any, bound: dict[str, Any]) -> Any:
    """Array element values: Python ints and INDEX constants take the array's dtype."""
    arr = bound.get("array")
    if not (isinstance(arr, Expr) and isinstance(arr.type, ArrayType)):
        return value
    if isinstance(value, ConstInt) and value.dtype == D.INDEX:
        value = value.value
    if isinstance(value, bool) and arr.type.dtype.is_bool():
        return ConstBool(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return ConstInt(value, arr.type.dtype)
    return value


define("array.create", [index("extent")], _create, placement=EVERYWHERE, kwargs=[kw("dtype", K.DTYPE)])
define("array.get_element", [array("array"), index("index")], _get_element, placement=EVERYWHERE)
define("array.update_element", [array("array", effect=RW), index("index"), scalar("value", norm=array_value)],
       _update_element, placement=EVERYWHERE)
