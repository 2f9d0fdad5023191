"""The PyPTO DSL: ``import pypto.language as pl``.

Decorators (``pl.function``, ``pl.program``, ``pl.inline``), type annotations (``pl.Tensor``,
``pl.Tile``, ``pl.Scalar``, ``pl.Array``, ``pl.Tuple``, ``pl.Out``, ``pl.InOut``), dtypes
(``pl.FP32`` ...), enums (``pl.Mem``, ``pl.FunctionType`` ...), parse-time constructs
(``pl.range``, ``pl.yield_``, ``pl.const`` ...), and text parsing (``pl.parse``, ``pl.loads``).
"""

from pypto import ir
from pypto.ir import (
    ArgDirection,
    AtomicType,
    CompactMode,
    ConstBool,
    ConstFloat,
    ConstInt,
    CoreType,
    DataType,
    ForKind,
    FunctionType,
    Level,
    MaskPattern,
    Mem,
    MemorySpace,
    MemRef,
    PadValue,
    ParamDirection,
    PipeType,
    Role,
    ScopeMode,
    Span,
    SplitMode,
    TensorLayout,
    TensorView,
    TileLayout,
    TileView,
)

from . import arg_direction, optimizations
from .arg_direction import adir
from .constructs import (
    cond,
    const,
    func_attr,
    parallel,
    pipeline,
    range,
    static_assert,
    static_print,
    unroll,
    while_,
    yield_,
)
from .decorators import function, inline, program
from .op import PROMOTED, array, system, tensor, tile
from .parser.text_parser import loads, loads_program, parse, parse_program

# The established name of parse_program (DSL text to a Program).
program_from_string = parse_program
from .scopes import at, cluster, cross_core_slot, manual_scope, scope, split, split_aiv, spmd, spmd_submit, submit
from .typing import Array, DynVar, InOut, Out, Scalar, Tensor, Tile, Tuple, dynamic
from .typing.scalar import RUNTIME

# dtypes (the seed's FP8 is FP8E4M3FN)
BOOL = DataType.BOOL
INT4 = DataType.INT4
INT8 = DataType.INT8
INT16 = DataType.INT16
INT32 = DataType.INT32
INT64 = DataType.INT64
INDEX = DataType.INDEX
UINT4 = DataType.UINT4
UINT8 = DataType.UINT8
UINT16 = DataType.UINT16
UINT32 = DataType.UINT32
UINT64 = DataType.UINT64
FP4 = DataType.FP4
FP8 = DataType.FP8E4M3FN
FP8E4M3FN = DataType.FP8E4M3FN
FP8E5M2 = DataType.FP8E5M2
FP8E8M0 = DataType.FP8E8M0
FP16 = DataType.FP16
FP32 = DataType.FP32
BF16 = DataType.BF16
HF4 = DataType.HF4
HF8 = DataType.HF8
TASK_ID = DataType.TASK_ID

# tensor layout shorthands: pl.Tensor[[64, 128], pl.FP16, pl.NZ]
ND = TensorLayout.ND
DN = TensorLayout.DN
NZ = TensorLayout.NZ
MX_A_ZZ = TensorLayout.MX_A_ZZ
MX_B_NN = TensorLayout.MX_B_NN

# types without items
Ptr = ir.PtrType
MemRefType = ir.MemRefType
UnknownType = ir.UnknownType
PrefetchAsyncContext = ir.PrefetchAsyncContextType
AsyncEvent = ir.AsyncEventType
AsyncSession = ir.AsyncSessionType


globals().update(PROMOTED)

# A task id annotation: pl.TaskId is pl.Scalar[pl.TASK_ID].
TaskId = Scalar[TASK_ID]


__all__ = [  # noqa: PLE0604 - *PROMOTED unpacks the promoted op names (strings)
    "Array", "ArgDirection", "AsyncEvent", "AsyncSession", "AtomicType", "BF16", "BOOL", "CompactMode",
    "ConstBool", "ConstFloat", "ConstInt", "CoreType", "DN", "DataType", "DynVar", "FP16", "FP32", "FP4", "FP8",
    "FP8E4M3FN", "FP8E5M2", "FP8E8M0", "ForKind", "FunctionType", "HF4", "HF8", "INDEX", "INT16", "INT32",
    "INT4", "INT64", "INT8", "InOut", "Level", "MX_A_ZZ", "MX_B_NN", "MaskPattern", "Mem", "MemRef",
    "MemRefType", "MemorySpace", "ND", "NZ", "Out", "PadValue", "ParamDirection", "PipeType",
    "PrefetchAsyncContext", "Ptr", "Role", "Scalar", "ScopeMode", "Span", "SplitMode", "TASK_ID", "TaskId", "Tensor",
    "TensorLayout", "TensorView", "Tile", "TileLayout", "TileView", "Tuple", "UINT16", "UINT32", "UINT4",
    "UINT64", "UINT8", "UnknownType", "adir", "cond", "const", "dynamic", "func_attr", "function", "inline",
    "arg_direction", "loads", "loads_program", "optimizations", "parallel", "parse", "parse_program",
    "program_from_string", "pipeline", "program", "range",
    "static_assert", "static_print", "unroll", "while_", "yield_", "array", "system", "tensor", "tile",
    "at", "cluster", "cross_core_slot", "manual_scope", "scope", "split", "split_aiv", "spmd", "spmd_submit", "submit",
    "RUNTIME", "jit", "JITFunction",
    *PROMOTED,
]


def __getattr__(name: str) -> object:
    """``pl.jit`` and ``pl.JITFunction`` load the JIT package on first use (it imports this one)."""
    if name in ("jit", "JITFunction"):
        import pypto.jit

        return getattr(pypto.jit, name)
    raise AttributeError(f"module 'pypto.language' has no attribute '{name}'")
