"""Enumerations used by IR types, statements, functions and op keyword arguments."""

from __future__ import annotations

from enum import IntEnum


class MemorySpace(IntEnum):
    """Where a buffer lives: GM (``DDR``) or one of the on-chip buffers."""

    DDR = 0
    Vec = 1
    Mat = 2
    Left = 3
    Right = 4
    Acc = 5
    Bias = 6
    ScalarLocal = 7
    LeftScale = 8
    RightScale = 9


Mem = MemorySpace


class TensorLayout(IntEnum):
    ND = 0
    DN = 1
    NZ = 2
    MX_A_ZZ = 3
    MX_B_NN = 4


class TileLayout(IntEnum):
    none_box = 0
    row_major = 1
    col_major = 2


class PadValue(IntEnum):
    null = 0
    zero = 1
    max = 2
    min = 3


class CompactMode(IntEnum):
    null = 0
    normal = 1


class FunctionType(IntEnum):
    Opaque = 0
    Orchestration = 1
    InCore = 2
    AIC = 3
    AIV = 4
    Group = 5
    Spmd = 6
    Inline = 7
    Graph = 8


class Level(IntEnum):
    """Hierarchy level of a function or scope; aliases print as their primary name."""

    AIV = 0
    AIC = 1
    CORE_GROUP = 2
    CHIP_DIE = 3
    CHIP = 4
    HOST = 5
    CLUSTER_0 = 6
    CLUSTER_1 = 7
    CLUSTER_2 = 8
    GLOBAL = 9
    L2CACHE = 3
    PROCESSOR = 4
    UMA = 4
    NODE = 5
    POD = 6
    CLOS1 = 7
    CLOS2 = 8


class Role(IntEnum):
    Orchestrator = 0
    SubWorker = 1


class ForKind(IntEnum):
    Sequential = 0
    Parallel = 1
    Unroll = 2
    Pipeline = 3


class SplitMode(IntEnum):
    NONE = 0
    UP_DOWN = 1
    LEFT_RIGHT = 2


class PipeType(IntEnum):
    MTE1 = 0
    MTE2 = 1
    MTE3 = 2
    M = 3
    V = 4
    S = 5
    FIX = 6
    ALL = 7


class AtomicType(IntEnum):
    None_ = 0
    Add = 1


class CoreType(IntEnum):
    CUBE = 0
    VECTOR = 1


class ParamDirection(IntEnum):
    """Direction of a function parameter; ordered ``In < Out < InOut`` (a wrapper's are raised, never lowered)."""

    In = 0
    Out = 1
    InOut = 2


class ArgDirection(IntEnum):
    """Direction of an argument at a call site (``Call.attrs["arg_directions"]``)."""

    Input = 0
    Output = 1
    InOut = 2
    OutputExisting = 3
    NoDep = 4
    Scalar = 5

    @property
    def reads(self) -> bool:
        """Whether the task reads the tensor's contents (Input, InOut)."""
        return self in (ArgDirection.Input, ArgDirection.InOut)

    @property
    def writes(self) -> bool:
        """Whether the task writes the tensor (Output, InOut, OutputExisting)."""
        return self in (ArgDirection.Output, ArgDirection.InOut, ArgDirection.OutputExisting)


class ScopeKind(IntEnum):
    InCore = 0
    Cluster = 2
    Hierarchy = 3
    Spmd = 4
    Runtime = 5
    CommDomain = 6
    SplitAiv = 7


class ScopeMode(IntEnum):
    """Dependency mode of a runtime scope (``pl.scope(mode=...)``)."""

    AUTO = 0
    MANUAL = 1


class InlineLanguage(IntEnum):
    Python = 0


class MaskPattern(IntEnum):
    P0101 = 1
    P1010 = 2
    P0001 = 3
    P0010 = 4
    P0100 = 5
    P1000 = 6
    P1111 = 7


# The kernel function types. Made once: a member read off its Enum class is a slow attribute lookup
# on Python 3.11, and is_incore_type is asked some 2.7k times per compile of the examples.
KERNEL_FUNCTION_TYPES = frozenset({FunctionType.InCore, FunctionType.AIC, FunctionType.AIV})


def is_incore_type(func_type: FunctionType) -> bool:
    """True for the kernel function types InCore, AIC and AIV."""
    return func_type in KERNEL_FUNCTION_TYPES
