"""The PyPTO IR: nodes, types, DataType, structural equality and the Python printer.

``from pypto import ir`` exposes every node class with the constructors of docs/ir.md, the scalar
expression factories (``ir.add``, ``ir.eq``, ...), the op registry entry points, structural
equality/hashing, ``ir.python_print`` and ``ir.compile`` (the pass pipeline: defined in
:mod:`pypto.compile` above this package and loaded on first use).
"""

from typing import Any

# The IR core: nodes, types and the scalar expression factories; it imports nothing above it.
from .attrs import (
    AttrsBase,
    CallAttrs,
    ForAttrs,
    FunctionAttrs,
    InCoreScopeAttrs,
    ScopeAttrs,
    SpmdScopeAttrs,
    SubmitAttrs,
    TaskDummyAttrs,
)
from .datatype import DataType
from .enums import (
    ArgDirection,
    AtomicType,
    CompactMode,
    CoreType,
    ForKind,
    FunctionType,
    InlineLanguage,
    Level,
    MaskPattern,
    Mem,
    MemorySpace,
    PadValue,
    ParamDirection,
    PipeType,
    Role,
    ScopeKind,
    ScopeMode,
    SplitMode,
    TensorLayout,
    TileLayout,
    is_incore_type,
)
from .errors import InternalError, IRTypeError, IRValueError, PyptoError
from .expr import (
    DYNAMIC_DIM,
    Abs,
    Add,
    And,
    BinaryExpr,
    BitAnd,
    BitNot,
    BitOr,
    BitShiftLeft,
    BitShiftRight,
    BitXor,
    Call,
    Cast,
    ConstBool,
    ConstFloat,
    ConstInt,
    Eq,
    Expr,
    FloatDiv,
    FloorDiv,
    FloorMod,
    Ge,
    GlobalVar,
    Gt,
    IterArg,
    Le,
    Lt,
    MakeTuple,
    Max,
    Min,
    Mul,
    Ne,
    Neg,
    Not,
    Op,
    Or,
    Pow,
    Sub,
    Submit,
    TupleGetItemExpr,
    UnaryExpr,
    Var,
    Xor,
)
from .function import Function, Program
from .memref import MemRef
from .node import IRNode, replace
from .scalar_ops import (
    abs_,
    add,
    and_,
    bit_and,
    bit_not,
    bit_or,
    bit_shift_left,
    bit_shift_right,
    bit_xor,
    cast,
    eq,
    floordiv,
    ge,
    gt,
    le,
    lt,
    max_,
    min_,
    mod,
    mul,
    ne,
    neg,
    not_,
    or_,
    pow,
    sub,
    truediv,
)
from .span import Span
from .stmt import (
    AssignStmt,
    BreakStmt,
    ClusterScopeStmt,
    CommDomainScopeStmt,
    ContinueStmt,
    EvalStmt,
    ForStmt,
    HierarchyScopeStmt,
    IfStmt,
    InCoreScopeStmt,
    InlineStmt,
    ReturnStmt,
    RuntimeScopeStmt,
    ScopeStmt,
    SeqStmts,
    SpmdScopeStmt,
    SplitAivScopeStmt,
    Stmt,
    WhileStmt,
    YieldStmt,
    attach_leading_comments,
)
from .type_base import (
    AsyncEventType,
    AsyncSessionType,
    CommCtxType,
    MemRefType,
    PrefetchAsyncContextType,
    PtrType,
    ScalarType,
    TupleType,
    Type,
    UnknownType,
    WindowBufferType,
)
from .types import (
    ArrayType,
    DistributedTensorType,
    ShapedType,
    TensorType,
    TensorView,
    TileType,
    TileView,
    implicit_tile_view,
)

# What the core calls through pypto.ir.hooks (printing, structural equality, op schemas): imported
# right after the core, so the hooks are set before any other module runs.
from .structural import assert_structural_equal, structural_equal, structural_hash
from .printer import python_print, python_print_type, register_format_callback
from .op_registry import (
    ArgEffect,
    WriteChannel,
    create_op_call,
    deduce_call_return_type,
    get_op,
    get_op_arg_effect,
    get_op_memory_spec,
    get_op_write_channel,
    is_op_registered,
    op_has_declared_arg_effects,
    set_call_attrs,
)
from . import ops  # noqa: F401  (registers every op)

# Built on the above.
from .builder import IRBuilder
from .serialize import deserialize, deserialize_from_file, serialize, serialize_to_file
from .transforms import (
    ParentStmtAnalysis,
    collect_def_vars,
    deep_clone,
    find_yield_stmt,
    flatten_to_stmts,
    get_last_yield_stmt,
    substitute_expr,
    substitute_stmt,
)
from .visitor import IRMutator, IRVisitor
from . import op

# dtype aliases: ir.FP16, ir.INT64, ... (all but TASK_ID)
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
FP8E4M3FN = DataType.FP8E4M3FN
FP8E5M2 = DataType.FP8E5M2
FP8E8M0 = DataType.FP8E8M0
FP16 = DataType.FP16
FP32 = DataType.FP32
BF16 = DataType.BF16
HF4 = DataType.HF4
HF8 = DataType.HF8


# The pass-manager names the established API offers on pypto.ir (defined in pypto.passes).
_PASS_NAMES = frozenset({"PassManager", "OptimizationStrategy", "VerificationLevel", "PassDumpLevel"})


def __getattr__(name: str) -> Any:
    # ir.compile runs the pass pipeline, which builds on this package: loaded on first use.
    if name == "compile":
        from pypto.compile import compile

        return compile
    if name == "CompiledProgram":
        from pypto.compiled import CompiledProgram

        return CompiledProgram
    if name in _PASS_NAMES:
        from pypto.ir import pass_manager

        return getattr(pass_manager, name)
    raise AttributeError(f"module 'pypto.ir' has no attribute '{name}'")
