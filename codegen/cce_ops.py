"""The CCE C++ op table (docs/codegen.md#cce): op name -> pto-isa C++ instruction and spelling rule.

Kernels are printed directly on the pto-isa C++ API (``include/pto/common/pto_instr.hpp``). Most
ops are an instruction call with the destination tile first, then the operands in IR order::

    TADD(tc, ta, tb);                                  # Instr("TADD")
    TCVT(dst, src, RoundMode::CAST_ROUND);             # a trailing Choice from the mode keyword
    TDIV<DivAlgorithm::HIGH_PRECISION>(c, a, b);       # a template Choice, when high_precision
    TLOAD(ta, ga);  TSTORE(gc, tc);                    # Transfer through a GlobalTensor
    pipe_barrier(PIPE_V);  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);

Every identifier a rule prints is declared by pto-isa, except the launch-identity reads of
:class:`SpmdIndex`, which come from the runtime's ``intrinsic.h`` (tests check both).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pypto.ir.enums import MaskPattern
from pypto.ir.expr import Call

from .errors import no_rule
from .op_table import Accumulate, OpRule, OpTable, every_parameter, is_set, keyword

TARGET = "cce"

# Stands for the result tile in an argument list.
DST = "$dst"


@dataclass(frozen=True)
class Choice:
    """A C++ enumerator chosen by keyword ``kwarg`` (``spell`` maps the stored value to it); printed
    only when ``when`` (a keyword or parameter name) is set, if given."""

    kwarg: str
    spell: Mapping[object, str]
    when: str | None = None

    def keywords(self) -> frozenset[str]:
        return frozenset(k for k in (self.kwarg, self.when) if k is not None)

    def text(self, call: Call) -> str | None:
        """The enumerator for ``call``, or None when ``when`` does not hold."""
        if self.when is not None and not is_set(call, self.when):
            return None
        raw = keyword(call, self.kwarg)
        if raw not in self.spell:
            raise no_rule(f"{call.op.name} with {self.kwarg}={raw!r}", TARGET, call.span)
        return self.spell[raw]


@dataclass(frozen=True)
class Const:
    """A fixed argument ``text``, printed only when ``when`` (a keyword or parameter name) is set."""

    literal: str
    when: str

    def keywords(self) -> frozenset[str]:
        return frozenset({self.when})

    def text(self, call: Call) -> str | None:
        return self.literal if is_set(call, self.when) else None


def _choice_keywords(choices: tuple[Choice | Const, ...]) -> frozenset[str]:
    return frozenset().union(*(c.keywords() for c in choices))


@dataclass(frozen=True)
class Instr(OpRule):
    """``<mnemonic>[<template>](<args>[, <trailing>]);``.

    ``args`` lists the C++ arguments: :data:`DST` (the result tile), parameter names (a tuple
    parameter expands to its elements; an absent optional one is skipped) or keyword names (their
    value as a constant). None: ``DST`` then every positional argument in IR order. ``template``
    and ``trailing`` are enumerators from keywords, as template arguments or after the arguments;
    ``types`` are template type arguments printed before them: :data:`DST` (the result tile's type),
    a tile parameter (its tile type) or a scalar parameter (its C++ element type), as in
    ``TCI<Tile, int32_t, 0>(dst, start)``.
    ``zero_dst``: print ``TEXPANDS(dst, 0);`` first, where a2a3 zeroes the destination and the CPU
    model does not.
    """

    args: tuple[str, ...] | None = None
    template: tuple[Choice, ...] = ()
    types: tuple[str, ...] = ()
    trailing: tuple[Choice | Const, ...] = ()
    zero_dst: bool = False

    def spelled(self, op: str) -> frozenset[str]:
        args = (every_parameter(op) if self.args is None else frozenset(self.args)) - {DST}
        return self.implied | args | _choice_keywords(self.template + self.trailing)


@dataclass(frozen=True)
class Transfer(OpRule):
    """A copy between a tile and GM through a ``GlobalTensor`` over a window of ``tensor``::

        GlobalTensor<float, Shape<...>, Stride<...>, Layout::ND> ga(v1 + offset);
        TLOAD(ta, ga);                 # to_tile
        TSTORE(gc, tc);                # otherwise: the GlobalTensor, then the ``ins`` operands

    ``offsets`` / ``sizes`` name the window parameters as in the PTO rule (None offsets: the whole
    tensor; sizes absent: the tile's valid shape); ``template`` holds keyword enumerators
    (``AtomicType::AtomicAdd``). ``clamp`` names a keyword which, when set, sizes the window by the
    tile's valid shape instead (a clamped load's, cut at the source's edge by its type rule); so does a
    source with a valid region (``pl.TensorView(valid_shape=...)``), which the type rule cuts it to.
    ``whole``: the window is the whole (static) tensor, a gather's table: ``MGATHER<...>(dst, g, idx)``
    passes the ``ins`` after the GlobalTensor.
    """

    tensor: str
    offsets: str | None = None
    sizes: str | None = None
    ins: tuple[str, ...] = ()
    to_tile: bool = False
    template: tuple[Choice, ...] = ()
    clamp: str | None = None
    whole: bool = False

    def spelled(self, op: str) -> frozenset[str]:
        window = frozenset(n for n in (self.tensor, self.offsets, self.sizes, self.clamp) if n is not None)
        return self.implied | window | frozenset(self.ins) | _choice_keywords(self.template)


@dataclass(frozen=True)
class Method(OpRule):
    """``<receiver>.<mnemonic>(<args>)`` on a tile object; ``indices`` arguments are flattened to
    one element offset (``t.GetValue(off)``)."""

    receiver: str = "tile"
    args: tuple[str, ...] = ()

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {self.receiver} | frozenset(self.args)


@dataclass(frozen=True)
class GlobalElement(OpRule):
    """One element of a kernel's GM tensor parameter, at its flattened offset: ``x[off]`` read as a
    value, or ``x[off] = v;`` (``store``)."""

    store: bool = False

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"tensor", "indices"} | ({"value"} if self.store else set())


@dataclass(frozen=True)
class Insert(OpRule):
    """``tile.assemble``: ``TMOV(dst, target);`` when the result has a buffer of its own, then
    ``<mnemonic>(dst, source, row, col);`` writing the source's valid region at the offset."""

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"target", "source", "offset"}


@dataclass(frozen=True)
class Intrinsic(OpRule):
    """``<mnemonic>(<operands>);`` with fixed operand text (``pipe_barrier(PIPE_V)``)."""

    operands: str


@dataclass(frozen=True)
class Flag(OpRule):
    """``<mnemonic>(PIPE_<set_pipe>, PIPE_<wait_pipe>, EVENT_ID<event_id>);`` (set_flag / wait_flag)."""

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"set_pipe", "wait_pipe", "event_id"}


@dataclass(frozen=True)
class Buffer(OpRule):
    """``Tile<...> t(rows, cols); <mnemonic>(t, addr);``: a tile object placed at its MemRef address."""


@dataclass(frozen=True)
class Pipe(OpRule):
    """``<mnemonic>(pipe[, tile]);`` on the cross-core pipe object of the op's ``id``/``split``:
    TPUSH passes the pushed tile, TPOP the result tile, TFREE no tile (its operand names the pop)."""

    tile: bool = True
    attrs: tuple[str, ...] = ("id", "split")

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | frozenset(self.attrs) | every_parameter(op)


@dataclass(frozen=True)
class PipeBuffer(OpRule):
    """A cross-core buffer's base address as an ``int32_t`` (``reserve_buffer``: its planned base;
    ``import_peer_buffer``: the base the peer function reserved under that name)."""

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | ({"name", "size", "base"} if op == "system.reserve_buffer" else {"name", "peer_func"})


@dataclass(frozen=True)
class PipeSetup(OpRule):
    """``using P = TPipe<id, dir_mask, slot_size, slot_num, local_slot_num>; P pipe((__gm__ void*)gm, c2v, v2c);``:
    the pipe object later TPUSH/TPOP/TFREE of that ``id`` use (``gm``: the ``__gm_pipe_buffer``
    parameter, else nullptr, which keeps the ring in the consumer's local memory). A two-way pipe
    (``dir_mask`` 3) is two one-way pipes, ``PipeI_c2v`` and ``PipeI_v2c`` (flag ``id + 2``)."""

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | every_parameter(op) | {"id", "dir_mask", "slot_size", "slot_num", "local_slot_num"}


@dataclass(frozen=True)
class SpmdIndex(OpRule):
    """The launch identity ``param`` (a kernel function parameter), read once in ``kernel_entry``
    as ``int32_t <param> = <mnemonic>(args);``."""

    param: str


_ROUND = {i: f"RoundMode::CAST_{m}" for i, m in enumerate(("NONE", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD"))}
_CMP = {i: f"CmpMode::{m}" for i, m in enumerate(("EQ", "NE", "LT", "LE", "GT", "GE"))}
_MASK = {int(m): f"MaskPattern::{m.name}" for m in MaskPattern}
# The pipe split codes pto-isa's CPU TPUSH/TPOP implement; 3/4 (TILE_UP_DOWN_ODD, TILE_LEFT_RIGHT_ODD) only the
# NPU ones (a compile printing CCE refuses them at the call: pypto.codegen.unsupported).
SPLIT_AXES = {k: f"TileSplitAxis::{n}" for k, n in enumerate(("TILE_NO_SPLIT", "TILE_UP_DOWN", "TILE_LEFT_RIGHT"))}
_CORE = {"aiv_only": "SyncCoreType::AIVOnly", "aic_only": "SyncCoreType::AICOnly", "mix": "SyncCoreType::Mix"}


def _precise(algorithm: str) -> Choice:
    return Choice("high_precision", {True: f"{algorithm}::HIGH_PRECISION"}, when="high_precision")


def _instr_table() -> dict[str, OpRule]:
    t: dict[str, OpRule] = {}
    plain = {"add": "TADD", "sub": "TSUB", "mul": "TMUL", "maximum": "TMAX", "minimum": "TMIN", "and": "TAND",
             "or": "TOR", "shl": "TSHL", "shr": "TSHR", "fmod": "TFMOD", "part_add": "TPARTADD",
             "part_mul": "TPARTMUL", "part_max": "TPARTMAX", "part_min": "TPARTMIN", "rem": "TREM", "xor": "TXOR",
             "addc": "TADDC", "subc": "TSUBC", "prelu": "TPRELU", "concat": "TCONCAT", "gather": "TGATHER",
             "sort32": "TSORT32", "sel": "TSEL", "sels": "TSELS", "addsc": "TADDSC", "subsc": "TSUBSC",
             "rems": "TREMS", "xors": "TXORS", "adds": "TADDS", "subs": "TSUBS", "muls": "TMULS", "divs": "TDIVS",
             "fmods": "TFMODS", "maximums": "TMAXS", "minimums": "TMINS", "lrelu": "TLRELU", "ands": "TANDS",
             "ors": "TORS", "shls": "TSHLS", "shrs": "TSHRS", "abs": "TABS", "exp": "TEXP", "sqrt": "TSQRT",
             "neg": "TNEG", "not": "TNOT", "relu": "TRELU", "rsqrt": "TRSQRT", "col_max": "TCOLMAX",
             "col_min": "TCOLMIN", "col_prod": "TCOLPROD", "row_sum": "TROWSUM", "row_max": "TROWMAX",
             "row_min": "TROWMIN", "row_prod": "TROWPROD", "row_argmax": "TROWARGMAX", "row_argmin": "TROWARGMIN",
             "col_argmax": "TCOLARGMAX", "col_argmin": "TCOLARGMIN", "matmul": "TMATMUL",
             "matmul_bias": "TMATMUL_BIAS", "gemv": "TGEMV", "gemv_acc": "TGEMV_ACC", "gemv_bias": "TGEMV_BIAS"}
    for name, instr in plain.items():
        t[f"tile.{name}"] = Instr(instr)
    t["tile.matmul_acc"] = Accumulate("TMATMUL_ACC", fresh="TMATMUL")
    # a2a3 TSCATTER zeroes the whole destination tile before scattering (TScatter.hpp InitUBBuffer).
    t["tile.scatter"] = Instr("TSCATTER", args=(DST, "src", "indexes"), implied=frozenset({"dst"}), zero_dst=True)
    # TGATHER<Dst, Src, MaskPattern>(dst, src); TSCATTER<MaskPattern>(dst, src) zeroes the unmasked columns.
    t["tile.gather_mask"] = Instr("TGATHER", args=(DST, "src"), template=(Choice("mask_pattern", _MASK),),
                                  types=(DST, "src"), implied=frozenset({"output_dtype"}))
    t["tile.scatter_mask"] = Instr("TSCATTER", args=(DST, "src"), template=(Choice("mask_pattern", _MASK),),
                                   implied=frozenset({"dst"}))
    t["tile.div"] = Instr("TDIV", template=(_precise("DivAlgorithm"),))
    t["tile.log"] = Instr("TLOG", template=(_precise("LogAlgorithm"),))
    t["tile.recip"] = Instr("TRECIP", template=(_precise("RecipAlgorithm"),))
    # TCOLSUM(dst, src, tmp, isBinary) with the scratch tile; TCOLSUM(dst, src) without.
    t["tile.col_sum"] = Instr("TCOLSUM", trailing=(Const("false", when="tmp_tile"),))
    for kind in ("row", "col"):
        t[f"tile.{kind}_expand"] = Instr(f"T{kind.upper()}EXPAND", args=(DST, "vec"), implied=frozenset({"target"}))
        for name in ("add", "sub", "mul", "div", "max", "min", "expdif"):
            t[f"tile.{kind}_expand_{name}"] = Instr(f"T{kind.upper()}EXPAND{name.upper()}")
    t["tile.cast"] = Instr("TCVT", args=(DST, "tile"), trailing=(Choice("mode", _ROUND),),
                           implied=frozenset({"target_type"}))
    t["tile.cmp"] = Instr("TCMP", trailing=(Choice("cmp_type", _CMP),))
    t["tile.cmps"] = Instr("TCMPS", trailing=(Choice("cmp_type", _CMP),))
    t["tile.full"] = Instr("TEXPANDS", args=(DST, "value"), implied=frozenset({"shape", "dtype"}))
    t["tile.expands"] = Instr("TEXPANDS", args=(DST, "scalar"), implied=frozenset({"target"}))
    for name, instr in (("fillpad", "TFILLPAD"), ("fillpad_inplace", "TFILLPAD_INPLACE")):
        t[f"tile.{name}"] = Instr(instr, args=(DST, "tile"), implied=frozenset({"pad_value"}))
    t["tile.fillpad_expand"] = Instr("TFILLPAD_EXPAND", args=(DST, "tile"), implied=frozenset({"shape", "pad_value"}))
    t["tile.move"] = Instr("TMOV", args=(DST, "tile"), implied=frozenset({"target_memory", "blayout", "slayout"}))
    t["tile.transpose"] = Instr("TTRANS", args=(DST, "tile", "tmp_tile"), implied=frozenset({"axis1", "axis2"}))
    t["tile.extract"] = Instr("TEXTRACT", args=(DST, "src", "index_row", "index_col"),
                              implied=frozenset({"shape", "target_memory"}))
    t["tile.slice"] = Instr("TSUBVIEW", args=(DST, "tile", "offset"),
                            implied=frozenset({"shape", "valid_shape", "drop_dims", "pad_value"}))
    t["tile.reshape"] = Instr("TRESHAPE", args=(DST, "tile"), implied=frozenset({"shape"}))
    # NZ <-> ZN: the same bytes under the swapped shape and layouts of the destination's type.
    t["tile.transpose_view"] = Instr("TRESHAPE", args=(DST, "tile"))
    # pto-isa: template <typename TileData, typename T, int descending> TCI(TileData&, T start).
    t["tile.ci"] = Instr("TCI", args=(DST, "start"), template=(Choice("descending", {False: "0", True: "1"}),),
                         types=(DST, "start"), implied=frozenset({"shape", "dtype"}))
    t["tile.gatherb"] = Instr("TGATHERB", implied=frozenset({"output_dtype"}))
    t["tile.mrgsort_format1"] = Instr("TMRGSORT", args=(DST, "src0", "block_len"))
    t["system.syncall"] = Instr("SYNCALL", args=("gm_workspace", "used_cores"), template=(Choice("core_type", _CORE),),
                                implied=frozenset({"mode"}))
    return t


_CREATE_IMPLIED = frozenset({"shape", "dtype", "target_memory", "transpose", "flat_layout"})


def _other_table() -> dict[str, OpRule]:
    t: dict[str, OpRule] = {
        "tile.load": Transfer("TLOAD", tensor="tensor", offsets="offsets", sizes="valid_shape", to_tile=True,
                              clamp="clamp", implied=frozenset({"shapes", "target_memory", "flatten"})),
        "tile.store": Transfer("TSTORE", tensor="output_tensor", offsets="offsets", sizes="shapes", ins=("tile",),
                               template=(Choice("atomic", {1: "AtomicType::AtomicAdd"}, when="atomic"),)),
        # The CPU model's MGATHER (cpu/MGather.hpp); the GlobalTensor spans the whole table, whose rows
        # (Coalesce::Row) or flat elements (Coalesce::Elem) the index tile picks.
        "tile.mgather": Transfer("MGATHER", tensor="mem", ins=("idx",), to_tile=True, whole=True,
                                 template=(Choice("coalesce", {"row": "Coalesce::Row", "elem": "Coalesce::Elem"}),
                                           Choice("gather_oob", {m: f"GatherOOB::{m.capitalize()}"
                                                                 for m in ("undefined", "clamp", "wrap", "zero")})),
                                 implied=frozenset({"target_memory", "valid_shape", "scratch"})),
        "tile.create": Buffer("TASSIGN", implied=_CREATE_IMPLIED),
        # The same bytes as another dtype: the result is declared on the source's MemRef (a view), so
        # its Tile object over that address is the whole reinterpretation.
        "tile.reinterpret_view": Buffer("TASSIGN", implied=frozenset({"tile", "dtype", "shape"})),
        # The allocation's pointer prints nothing: the tiles placed in it are TASSIGNed to their addresses.
        "tile.alloc": Buffer("", implied=frozenset({"memory_space", "size", "pinned"})),
        # a2a3 TINSERT copies Vec -> Vec (ND, 32-byte aligned columns) and Acc -> Mat (TInsert.hpp).
        "tile.assemble": Insert("TINSERT"),
        "tile.set_validshape": Method("SetValidShape", args=("valid_rows", "valid_cols")),
        "tile.read": Method("GetValue", args=("indices",)),
        "tile.write": Method("SetValue", args=("indices", "value")),
        "tensor.read": GlobalElement(""),
        "tensor.write": GlobalElement("", store=True),
        "system.bar_v": Intrinsic("pipe_barrier", "PIPE_V"),
        "system.bar_m": Intrinsic("pipe_barrier", "PIPE_M"),
        "system.bar_all": Intrinsic("pipe_barrier", "PIPE_ALL"),
        "system.sync_src": Flag("set_flag"),
        "system.sync_dst": Flag("wait_flag"),
        "system.reserve_buffer": PipeBuffer(""),
        "system.import_peer_buffer": PipeBuffer(""),
        "system.aic_initialize_pipe": PipeSetup("TPipe"),
        "system.aiv_initialize_pipe": PipeSetup("TPipe"),
        "tile.tpush_to_aiv": Pipe("TPUSH"),
        "tile.tpush_to_aic": Pipe("TPUSH"),
        "tile.tpop_from_aic": Pipe("TPOP"),
        "tile.tpop_from_aiv": Pipe("TPOP"),
        "system.tfree_to_aic": Pipe("TFREE", tile=False),
        "system.tfree_to_aiv": Pipe("TFREE", tile=False),
    }
    for ns in ("tile", "tensor"):
        t[f"{ns}.get_block_idx"] = SpmdIndex("get_block_idx", param="__pypto_spmd_block_idx")
        t[f"{ns}.get_block_num"] = SpmdIndex("get_block_num", param="__pypto_spmd_block_num")
        t[f"{ns}.get_subblock_idx"] = SpmdIndex("get_sub_block_id", param="__pypto_spmd_subblock_idx")
    return t


# No rule for tile.mscatter: a2a3's MSCATTER(table, src, idx) scatters whole rows (MSCATTER_IMPL's
# default Coalesce::Row; pto_instr.hpp has the Coalesce template for A5 and the CPU model only), while
# tile.mscatter scatters elements as the CPU model does, so an a2a3 kernel would differ from a2a3sim.
CCE_OPS = OpTable(TARGET, {**_instr_table(), **_other_table()})
