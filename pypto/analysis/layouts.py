"""Which operand layouts each vector op needs (what ResolveBackendOpLayouts reads).

pto-isa computes many vector instructions only on row-major (ND) tiles: their implementations
``static_assert(TileData::isRowMajor)`` on some operands and the destination. The facts come from
two places, and a program must satisfy both: the a2a3 NPU implementation
(``include/pto/npu/a2a3``) and the CPU model a2a3sim builds (``include/pto/cpu``).

Each printed vector op (every tile op the vector pipe runs that an emitter has a rule for) is in
exactly one table; a test checks it against the registry and the emitters' op tables.

* :data:`ROW_MAJOR_OPERANDS`: the tile operands that must be row-major. Per element ops compute an
  ``[N, 1]`` column as its ``[1, N]`` row (the same bytes); other ops get a row-major copy of a
  col-major operand, which a column cannot have (its row-major rows would not fill 32-byte blocks).
* :data:`ANY_LAYOUT`: ops whose implementations handle both layouts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pypto.ir import op_registry
from pypto.ir.enums import MemorySpace, TileLayout
from pypto.ir.expr import Call, GlobalVar
from pypto.ir.types import TileType, effective_layout


@dataclass(frozen=True)
class RowMajorNeed:
    """The operands (parameter names) of an op that must be row-major.

    ``per_element``: the op computes element by element, so an ``[N, 1]`` column operand may be
    reshaped to its ``[1, N]`` row (and the result reshaped back); otherwise a col-major operand is
    moved into a row-major tile of its own shape, which a column cannot be.
    """

    operands: frozenset[str]
    per_element: bool = True


def _need(*operands: str, per_element: bool = True) -> RowMajorNeed:
    return RowMajorNeed(frozenset(operands), per_element)


def _table() -> dict[str, RowMajorNeed]:
    t: dict[str, RowMajorNeed] = {}
    # npu TAdd/TSub/TMul/TDiv/TMax/TMin/TAnd/TOr/TShl/TShr/TFmod: dst, src0 and src1.
    for name in ("add", "sub", "mul", "div", "maximum", "minimum", "and", "or", "shl", "shr", "fmod"):
        t[f"tile.{name}"] = _need("lhs", "rhs")
    # npu TRem, TXor: their scratch tile too.
    for name in ("rem", "xor"):
        t[f"tile.{name}"] = _need("lhs", "rhs", "tmp")
    # npu TPartAdd/Mul/Max/Min: dst, src0, src1 (a column pair is the same partial op on rows).
    for name in ("add", "mul", "max", "min"):
        t[f"tile.part_{name}"] = _need("lhs", "rhs")
    # npu TUnaryOp (TunaryCheck): dst and src.
    for name in ("exp", "log", "sqrt", "recip", "abs", "neg", "relu", "not"):
        t[f"tile.{name}"] = _need("tile")
    t["tile.rsqrt"] = _need("tile", "tmp")
    # cpu TBinSOps (CONSTRAINT_VEC_ROWMAJOR: OP_ADDS, OP_MULS, OP_DIVS, OP_MAXS, OP_LRELU): dst and src.
    for name in ("adds", "muls", "divs", "maximums"):
        t[f"tile.{name}"] = _need("lhs")
    t["tile.lrelu"] = _need("tile")
    # npu TSubS, TMins, TBitwiseSOp (TANDS/TORS/TSHLS/TSHRS) and TCvt assert nothing but step from row
    # to row by RowStride: a col-major tile would be read as if it were row-major.
    for name in ("subs", "minimums", "ands", "ors", "shls", "shrs"):
        t[f"tile.{name}"] = _need("lhs")
    t["tile.cast"] = _need("tile")
    # npu TFillPad on Vec tiles steps by RowStride too (the pad region follows the valid one).
    t["tile.fillpad"] = _need("tile")
    t["tile.fillpad_inplace"] = _need("tile")
    t["tile.fillpad_expand"] = _need("tile", per_element=False)
    # npu TConcat: rows of both sources by RowStride; npu TCmp: row i at i * Cols.
    t["tile.concat"] = _need("lhs", "rhs", per_element=False)
    t["tile.cmp"] = _need("lhs", "rhs")
    # npu TFmodS; TRemS; TXorS (TORS/TANDS then TNOT, a TUnaryOp) with its scratch tile.
    t["tile.fmods"] = _need("lhs")
    t["tile.rems"] = _need("lhs", "tmp")
    t["tile.xors"] = _need("lhs", "tmp")
    # npu TCmps: dst (the mask follows the source's layout).
    t["tile.cmps"] = _need("lhs")
    # npu TSel, TSels (and cpu OP_SELS): dst and sources; the mask and scratch alike.
    t["tile.sel"] = _need("mask", "lhs", "rhs", "tmp")
    t["tile.sels"] = _need("mask", "src", "tmp")
    # npu TPrelu: dst, src0, src1 and tmp.
    t["tile.prelu"] = _need("tile", "slope", "tmp")
    # cpu TColExpandOp, npu TColExpandBinOp: dst, src0 and src1.
    for name in ("add", "sub", "mul", "div", "max", "min", "expdif"):
        t[f"tile.col_expand_{name}"] = _need("tile", "vec", per_element=False)
        # cpu TRowExpandOp, npu TRowExpand<Op>: dst (the full-width source); the column may be DN.
        t[f"tile.row_expand_{name}"] = _need("tile", per_element=False)
    # npu TColExpand: input and output.
    t["tile.col_expand"] = _need("vec", per_element=False)
    # npu TColReduceOps: input and output; TColSum: src, dst and tmp.
    for name in ("max", "min", "prod"):
        t[f"tile.col_{name}"] = _need("tile", per_element=False)
    t["tile.col_sum"] = _need("tile", "tmp_tile", per_element=False)
    # npu TRowReduceOps: the input (the output may be an [N, 1] column).
    for name in ("sum", "max", "min", "prod"):
        t[f"tile.row_{name}"] = _need("tile", per_element=False)
    # cpu TReduceIdx (TRowArgMin/Max): the source.
    for name in ("argmax", "argmin"):
        t[f"tile.row_{name}"] = _need("tile", per_element=False)
    # npu TTrans: the source.
    t["tile.transpose"] = _need("tile", per_element=False)
    # npu TRowExpand: dst (the shape of ``target``; the column may be DN).
    t["tile.row_expand"] = _need("target", per_element=False)
    # npu and cpu TGather, cpu TScatter: dst and src; a2a3 addresses the index tiles as row-major rows,
    # and TGatherB's dst follows the offsets. The registry refuses col-major operands of these three.
    t["tile.gather"] = _need("src", "indices", "tmp", per_element=False)
    t["tile.gatherb"] = _need("src", "offset", per_element=False)
    t["tile.scatter"] = _need("dst", "src", "indexes", per_element=False)
    # npu MGATHER: "index tile must be BLayout::RowMajor" (a row gather reads one index per result row).
    t["tile.mgather"] = _need("idx", per_element=False)
    # npu and cpu TGATHER / cpu TSCATTER with a MaskPattern: dst and src ("expect row major").
    t["tile.gather_mask"] = _need("src", per_element=False)
    t["tile.scatter_mask"] = _need("dst", "src", per_element=False)
    # cpu and npu TSort32: dst, src and idx; cpu TMrgSort: the tile; npu TMrgSort: every list and tmp.
    t["tile.sort32"] = _need("src", "idx", per_element=False)
    t["tile.mrgsort_format1"] = _need("src0", per_element=False)
    t["tile.mrgsort_format2"] = _need("src0", "src1", "src2", "src3", "tmp", per_element=False)
    return t


ROW_MAJOR_OPERANDS: Final[dict[str, RowMajorNeed]] = _table()

# Implementations that handle either layout: TExpandS (tile.full, tile.expands) and TMOV
# (tile.assemble) branch on ``isRowMajor``; TColArgMax/Min (npu, cpu TReduceIdx) take an ND or DN
# source and need a row-major dst, which their [1, N] result always is; npu TCI static_asserts a
# single row (Rows == 1), which a row-major and a col-major tile store alike; TADDC/TSUBC/TADDSC/TSUBSC
# have only the CPU model, cpu ElementTileOp, which follows each tile's layout.
ANY_LAYOUT: Final = frozenset(
    {f"tile.{n}" for n in ("addc", "subc", "addsc", "subsc", "ci", "full", "expands", "assemble",
                           "col_argmax", "col_argmin")}
)


def row_major_need(name: str) -> RowMajorNeed | None:
    """What op ``name`` needs row-major, or None when it takes any layout (or is not a vector op)."""
    return ROW_MAJOR_OPERANDS.get(name)


_VEC, _COL_MAJOR = MemorySpace.Vec, TileLayout.col_major  # read once (see pypto.ir.types.implicit_layout)


def col_major(t: object) -> bool:
    """A col-major vector tile."""
    return isinstance(t, TileType) and t.memory_space is _VEC and effective_layout(t)[0] is _COL_MAJOR


def misplaced_operands(call: Call) -> tuple[RowMajorNeed, list[bool]] | None:
    """The need of ``call``'s op and, per argument, whether it is a col-major operand the op needs
    row-major; None when no argument is."""
    need = None if isinstance(call.op, GlobalVar) else row_major_need(call.op.name)
    if need is None:
        return None
    params = op_registry.get_entry(call.op.name).params
    misplaced = [col_major(a.type) and i < len(params) and params[i].name in need.operands
                 for i, a in enumerate(call.args)]
    return (need, misplaced) if any(misplaced) else None
