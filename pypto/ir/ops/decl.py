"""Vocabulary for declaring ops: parameter and keyword constructors, placements and ``define``.

A family module reads like a table::

    define("tile.exp", [tile("src")], unary_tile, placement=VECTOR, memory=vec(1))
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..enums import MemorySpace
from ..expr import Call, Expr
from ..op_registry import (
    AIC,
    AIV,
    ARRAY,
    INCORE,
    ORCH,
    REQUIRED,
    SCALAR,
    TENSOR,
    TILE,
    TUPLE,
    CallInfo,
    Deduce,
    Effect,
    Kwarg,
    KwType,
    MemorySpec,
    OpEntry,
    Param,
    register,
)
from .normalize import Normalizer, scalar_for, to_tuple, to_index

# Where an op may appear.
TENSOR_LEVEL = frozenset({ORCH, INCORE})  # tensor ops: orchestration, or InCore before tiling
EVERYWHERE = frozenset({ORCH, INCORE, AIC, AIV})
KERNEL = frozenset({INCORE, AIC, AIV})
VECTOR = frozenset({INCORE, AIV})
CUBE = frozenset({INCORE, AIC})
ORCH_ONLY = frozenset({ORCH})
AIC_ONLY = frozenset({AIC})
AIV_ONLY = frozenset({AIV})

R, W, RW, SCRATCH = Effect.READ, Effect.WRITE, Effect.READ_WRITE, Effect.SCRATCH
Vec, Mat, Left, Right, Acc, Bias = (
    MemorySpace.Vec,
    MemorySpace.Mat,
    MemorySpace.Left,
    MemorySpace.Right,
    MemorySpace.Acc,
    MemorySpace.Bias,
)


def tensor(name: str, **kw: Any) -> Param:
    """A Tensor operand."""
    return Param(name, (TENSOR,), **kw)


def tile(name: str, **kw: Any) -> Param:
    """A Tile operand."""
    return Param(name, (TILE,), **kw)


def scalar(name: str, pair: str | None = None, bitwise: bool = False, **kw: Any) -> Param:
    """A scalar operand, normalised against ``pair``'s element dtype (docs/ops.md#arguments)."""
    kw.setdefault("norm", scalar_for(pair, bitwise))
    return Param(name, (SCALAR,), **kw)


def tensor_or_scalar(name: str, pair: str, bitwise: bool = False, **kw: Any) -> Param:
    return Param(name, (TENSOR, SCALAR), norm=scalar_for(pair, bitwise), **kw)


def index(name: str, norm: Normalizer = to_index, **kw: Any) -> Param:
    """An integer scalar operand; ints become INDEX constants."""
    return Param(name, (SCALAR,), norm=norm, **kw)


def shape(name: str, **kw: Any) -> Param:
    """A list operand (shape, offsets, ...) stored as a MakeTuple."""
    kw.setdefault("norm", to_tuple)
    return Param(name, (TUPLE,), **kw)


def array(name: str, **kw: Any) -> Param:
    return Param(name, (ARRAY,), **kw)


def kw(name: str, kind: KwType, default: Any = REQUIRED, *, always: bool = True, keyword_only: bool = False) -> Kwarg:
    """A keyword attribute; ``always=False`` stores it only when it differs from ``default``."""
    return Kwarg(name, kind, default, always, keyword_only)


def vec(*tile_params: int, n: int | None = None) -> MemorySpec:
    """Vector op: the listed parameter positions must be in Vec; result in Vec."""
    size = (max(tile_params) + 1) if tile_params else 0
    size = max(size, n or 0)
    return MemorySpec(tuple((Vec,) if i in tile_params else () for i in range(size)), Vec)


def mem(*inputs: Sequence[MemorySpace], out: MemorySpace | str | None = None, by_target: bool = False) -> MemorySpec:
    """A memory spec: allowed spaces per parameter position (empty = any) and the result rule
    (``by_target``: a given ``target_memory`` keyword places the result)."""
    return MemorySpec(tuple(tuple(i) for i in inputs), out, by_target)


def define(
    name: str,
    params: Sequence[Param],
    deduce: Deduce,
    *,
    placement: frozenset[str],
    kwargs: Sequence[Kwarg] = (),
    memory: MemorySpec | None = None,
    side_effect: bool = False,
    signature: tuple[str, ...] | None = None,
    doc: str = "",
    view: bool = False,
    lint: Callable[[Call], str | None] | None = None,
    canonical: Callable[[CallInfo], list[Expr] | None] | None = None,
) -> OpEntry:
    """Register one op (``view``: a zero-copy view of argument 0's buffer; ``lint``: a warning about a
    call the user built, see ``OpEntry.lint``; ``canonical``: the arguments' one IR form, see
    ``OpEntry.canonical``)."""
    return register(
        OpEntry(
            name=name,
            params=tuple(params),
            kwargs=tuple(kwargs),
            deduce=deduce,
            placement=placement,
            memory=memory,
            side_effect=side_effect,
            signature=signature,
            doc=doc or deduce.__doc__ or "",
            view=view,
            lint=lint,
            canonical=canonical,
        )
    )
