"""The PTO-ISA MLIR op table (docs/codegen.md#pto-ops): op name -> mnemonic and spelling rule.

One rule class per spelling form; the PTO emitter prints each form once. Operand names in the
rules are the op's registry parameter names (``tile.add`` has ``lhs, rhs``), so a rule reads
against ``docs/ops.md``. The most common form is destination passing::

    pto.tadd ins(%a, %b : T, T) outs(%c : T)                          # Dps("pto.tadd")
    pto.tands ins(%t, %s : T, i32) outs(%d : T)                       # Dps(..., scalar_type="i32")
    pto.tcvt ins(%s {rmode = #pto<round_mode ROUND>} : T) outs(%d : T2)   # an Attr inside ins(...)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from pypto.ir.enums import MaskPattern
from pypto.ir.expr import Call

from .errors import no_rule
from .op_table import Accumulate, OpRule, OpTable, every_parameter, is_set, keyword

TARGET = "pto"


@dataclass(frozen=True)
class Attr:
    """One MLIR attribute ``key = value`` of an op, printed inside ``ins(...)`` (before the colon)
    or after ``outs(...)``.

    ``value`` is the text, with ``{}`` replaced by the spelled value of keyword ``kwarg``
    (``spell`` maps a stored value to its spelling; without it booleans print ``true``/``false``).
    ``when`` names a parameter that must be passed or a keyword that must be true for the
    attribute to print at all (``high_precision``; ``tmp_tile`` of ``tile.col_sum``).
    """

    key: str
    value: str
    kwarg: str | None = None
    spell: Mapping[object, str] | None = None
    inside: bool = True
    when: str | None = None

    def keywords(self) -> frozenset[str]:
        """The keywords this attribute spells."""
        return frozenset(k for k in (self.kwarg, self.when) if k is not None)

    def text(self, call: Call) -> str | None:
        """``key = value`` for ``call``, or None when ``when`` does not hold."""
        if self.when is not None and not is_set(call, self.when):
            return None
        if self.kwarg is None:
            return f"{self.key} = {self.value}"
        raw = keyword(call, self.kwarg)
        if self.spell is not None:
            if raw not in self.spell:
                raise no_rule(f"{call.op.name} with {self.kwarg}={raw!r}", TARGET, call.span)
            word = self.spell[raw]
        else:
            word = str(raw).lower() if isinstance(raw, bool) else str(raw)
        return f"{self.key} = {self.value.format(word)}"


def _attr_keywords(attrs: tuple[Attr, ...]) -> frozenset[str]:
    return frozenset().union(*(a.keywords() for a in attrs))


@dataclass(frozen=True)
class Dps(OpRule):
    """``<mnemonic> ins(<operands>[ {inside attrs}] : <types>) outs(%dst : <T>)[ {outside attrs}]``.

    ``ins`` lists the parameters printed as operands, in order (None: every positional argument in
    IR order; an absent optional parameter is skipped; a keyword name prints its value as a
    constant operand). ``scalar_type`` is the MLIR type scalar operands are cast to (``i32`` for
    bitwise scalars, ``index`` for extract offsets; None: their own type). ``outs`` is the buffer
    of the call's result (for ops that write a parameter in place the result shares its MemRef).
    """

    ins: tuple[str, ...] | None = None
    scalar_type: str | None = None
    attrs: tuple[Attr, ...] = ()

    def spelled(self, op: str) -> frozenset[str]:
        operands = every_parameter(op) if self.ins is None else frozenset(self.ins)
        return self.implied | operands | _attr_keywords(self.attrs)


@dataclass(frozen=True)
class Transfer(OpRule):
    """A copy between a tile and a GM window, through ``pto.partition_view`` of a tensor view::

        %a_pview = pto.partition_view %a_view, offsets = [...], sizes = [...] : TV -> PV
        pto.tload ins(%a_pview : PV) outs(%t : T)              # to_tile (then any ins: a gather's indices)
        pto.tstore ins(%t : T) outs(%c_pview : PV)             # otherwise; ins = tile operands

    ``tensor`` is the parameter holding the GM tensor, ``offsets`` the one holding the window
    offsets (None: the whole tensor, no partition view), ``sizes`` the one holding the window
    sizes when it is passed (otherwise the tile's valid shape).
    """

    tensor: str
    offsets: str | None = None
    sizes: str | None = None
    ins: tuple[str, ...] = ()
    to_tile: bool = False
    attrs: tuple[Attr, ...] = ()

    def spelled(self, op: str) -> frozenset[str]:
        window = frozenset(n for n in (self.tensor, self.offsets, self.sizes) if n is not None)
        return self.implied | window | frozenset(self.ins) | _attr_keywords(self.attrs)


@dataclass(frozen=True)
class Buffer(OpRule):
    """Prints no op: the tile buffer is the ``pto.alloc_tile`` of the result variable
    (``tile.create``), or there is none (``tile.alloc``, whose result is a pointer)."""


@dataclass(frozen=True)
class Subview(OpRule):
    """``%v = pto.subview %src[%r, %c] sizes [R, C][ valid [%vr, %vc]] : T -> Tv`` (zero-copy view).

    ``source``, ``shape``, ``offset`` and ``valid`` name the parameters of the view.
    """

    source: str = "tile"
    shape: str = "shape"
    offset: str = "offset"
    valid: str = "valid_shape"

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {self.source, self.shape, self.offset, self.valid}


@dataclass(frozen=True)
class Assemble(OpRule):
    """``tile.assemble(dst, src, off)``: ``pto.tmov`` of ``dst`` into the result when they are
    different buffers, then ``%v = <view> %res[...]`` and ``<mnemonic> ins(%src : Ts) outs(%v : Tv)``."""

    view: str = "pto.subview"

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"target", "source", "offset"}


@dataclass(frozen=True)
class Reshape(OpRule):
    """``%r = <mnemonic> %src : T1 -> T2`` (the result type carries the new shape; ``operands`` are
    the op's parameters it spells)."""

    operands: frozenset[str] = frozenset({"tile", "shape"})

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | self.operands


@dataclass(frozen=True)
class SetValidShape(OpRule):
    """``<mnemonic> %t, %vr, %vc : T`` (not on views)."""

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"tile", "valid_rows", "valid_cols"}


@dataclass(frozen=True)
class TileElement(OpRule):
    """One element of a tile at its flattened offset in the tile's buffer::

        %v = pto.tgetval ins(%t, %off : T, index) outs : f32          # store=False
        pto.tsetval ins(%off, %v : index, f32) outs(%t : T)           # store=True (the result is %t)
    """

    store: bool = False

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"tile", "indices"} | ({"value"} if self.store else set())


@dataclass(frozen=True)
class ScalarAccess(OpRule):
    """A kernel's element access of a tensor parameter at a flattened index::

        %v = pto.load_scalar %argK[%flat] : !pto.ptr<f32> -> f32        # store=False
        pto.store_scalar %v, %argK[%flat] : !pto.ptr<f32>, f32          # store=True
    """

    store: bool = False

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"tensor", "indices"} | ({"value"} if self.store else set())


@dataclass(frozen=True)
class SpmdIndex(OpRule):
    """A launch index read from the hidden function parameter ``param`` (an ``i32``):
    ``%0 = arith.index_cast %<param> : i32 to index``."""

    param: str


@dataclass(frozen=True)
class Fixed(OpRule):
    """``<mnemonic> <operands>`` with fixed operand text (``pto.barrier <PIPE_V>``); the call passes
    no arguments (a partial ``system.cacheinvalid(tensor, ...)`` has no rule)."""

    operands: str


@dataclass(frozen=True)
class Sync(OpRule):
    """``<mnemonic> <PIPE_P>, E[ {ffts_mode = k : i32}]``: ``pipe`` keyword, the event id from the
    ``event_id`` keyword or a dynamic ``event`` operand (an ``index``); ``ffts`` when the op has
    the ``ffts_mode`` keyword (a set)."""

    ffts: bool = False

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"event", "pipe", "event_id"} | ({"ffts_mode"} if self.ffts else set())


@dataclass(frozen=True)
class Flag(OpRule):
    """A user-written ``sync_src``/``sync_dst``: ``<mnemonic>["PIPE_<set>", "PIPE_<wait>", "EVENT_ID<e>"]``."""

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"set_pipe", "wait_pipe", "event_id"}


@dataclass(frozen=True)
class SyncAll(OpRule):
    """``pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<C>``; the soft
    form passes the workspace window and the used-core count:
    ``pto.syncall(%ws_pview[, %used] : !pto.partition_tensor_view<...xi32>[, i32]) mode = ...``."""

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | {"gm_workspace", "used_cores", "mode", "core_type"}


class Operands(enum.Enum):
    """The operand list of a cross-core op."""

    NONE = "none"
    TILE = "tile"  # (%t : T)
    BUFFERS = "buffers"  # (c2v_consumer_buf = %x : i32, v2c_consumer_buf = %y : i32)
    VALID_SHAPE = "valid_shape"  # (%vr, %vc) when the popped tile's valid shape is partial or dynamic
    FREED = "freed"  # none printed: the tile operand names the pop whose split/id the free copies


_OPERAND_PARAMS = {
    Operands.NONE: frozenset(),
    Operands.TILE: frozenset({"tile"}),
    Operands.BUFFERS: frozenset({"c2v_consumer_buf", "v2c_consumer_buf"}),
    Operands.VALID_SHAPE: frozenset(),
    Operands.FREED: frozenset({"tile"}),
}


class Result(enum.Enum):
    """What a cross-core op defines."""

    NONE = "none"
    I32 = "i32"  # %r = ... -> i32 (a buffer handle)
    TILE = "tile"  # %r = ... -> <tile_buf type>


@dataclass(frozen=True)
class CrossCore(OpRule):
    """Cross-core pipe ops (§1.10): ``[%r = ]<mnemonic>[(operands)] {attrs}[ -> T]``.

    ``attrs`` are keywords printed ``key = value`` in this order when set. The emitter adds the
    derived attributes the spec lists (``location`` and ``auto`` of ``reserve_buffer``, the a2a3
    ``gm_slot_buffer`` operand of a pipe setup); a free copies ``split``/``id`` from its pop.
    """

    attrs: tuple[str, ...] = ()
    operands: Operands = Operands.NONE
    result: Result = Result.NONE

    def spelled(self, op: str) -> frozenset[str]:
        return self.implied | frozenset(self.attrs) | _OPERAND_PARAMS[self.operands]


_ROUND_MODES = {0: "NONE", 1: "RINT", 2: "ROUND", 3: "FLOOR", 4: "CEIL", 5: "TRUNC", 6: "ODD"}
_CMP_MODES = {0: "eq", 1: "ne", 2: "lt", 3: "le", 4: "gt", 5: "ge"}
_ATOMIC = Attr("atomicType", "#pto<atomic_type atomic_add>", inside=False, when="atomic")
_RMODE = Attr("rmode", "#pto<round_mode {}>", kwarg="mode", spell=_ROUND_MODES)
_CMP = Attr("cmpMode", "#pto<cmp {}>", kwarg="cmp_type", spell=_CMP_MODES)
_MASK = Attr("maskPattern", "#pto<mask_pattern {}>", kwarg="mask_pattern", spell={int(m): m.name for m in MaskPattern})


def _precision(kind: str) -> Attr:
    return Attr("precisionType", f"#pto<{kind}_precision high_precision>", inside=False, when="high_precision")


def _dps_table() -> dict[str, OpRule]:
    t: dict[str, OpRule] = {}
    # The generic form, operands in IR argument order (§1.7).
    generic = {"add": "tadd", "sub": "tsub", "mul": "tmul", "maximum": "tmax", "minimum": "tmin", "and": "tand",
               "or": "tor", "shl": "tshl", "shr": "tshr", "fmod": "tfmod", "part_add": "tpartadd",
               "part_mul": "tpartmul", "part_max": "tpartmax", "part_min": "tpartmin", "rem": "trem",
               "xor": "txor", "addc": "taddc", "subc": "tsubc", "prelu": "tprelu", "concat": "tconcat",
               "gather": "tgather", "sort32": "tsort32",
               "matmul": "tmatmul", "matmul_bias": "tmatmul.bias", "gemv": "tgemv", "gemv_acc": "tgemv.acc",
               "gemv_bias": "tgemv.bias", "sel": "tsel", "sels": "tsels", "addsc": "taddsc", "subsc": "tsubsc",
               "rems": "trems", "xors": "txors", "adds": "tadds", "subs": "tsubs", "muls": "tmuls",
               "divs": "tdivs", "fmods": "tfmods", "maximums": "tmaxs", "minimums": "tmins", "lrelu": "tlrelu",
               "abs": "tabs", "exp": "texp", "sqrt": "tsqrt", "neg": "tneg", "not": "tnot", "relu": "trelu",
               "rsqrt": "trsqrt", "col_max": "tcolmax", "col_min": "tcolmin", "col_prod": "tcolprod"}
    for name, mn in generic.items():
        t[f"tile.{name}"] = Dps(f"pto.{mn}")
    for name in ("ands", "ors", "shls", "shrs"):
        t[f"tile.{name}"] = Dps(f"pto.t{name}", scalar_type="i32")
    t["tile.div"] = Dps("pto.tdiv", attrs=(_precision("div"),))
    t["tile.log"] = Dps("pto.tlog", attrs=(_precision("log"),))
    t["tile.recip"] = Dps("pto.trecip", attrs=(_precision("recip"),))
    for name in ("row_sum", "row_max", "row_min", "row_prod", "row_argmax", "row_argmin", "col_argmax",
                 "col_argmin"):
        t[f"tile.{name}"] = Dps(f"pto.t{name.replace('_', '')}")
    t["tile.col_sum"] = Dps("pto.tcolsum", attrs=(Attr("isBinary", "false", when="tmp_tile"),))
    for kind in ("row", "col"):
        t[f"tile.{kind}_expand"] = Dps(f"pto.t{kind}expand", ins=("vec",), implied=frozenset({"target"}))
        for name in ("add", "sub", "mul", "div", "max", "min", "expdif"):
            t[f"tile.{kind}_expand_{name}"] = Dps(f"pto.t{kind}expand{name}")
    t["tile.cast"] = Dps("pto.tcvt", ins=("tile",), attrs=(_RMODE,), implied=frozenset({"target_type"}))
    t["tile.cmp"] = Dps("pto.tcmp", attrs=(_CMP,))
    t["tile.cmps"] = Dps("pto.tcmps", attrs=(_CMP,))
    t["tile.full"] = Dps("pto.texpands", ins=("value",), implied=frozenset({"shape", "dtype"}))
    t["tile.expands"] = Dps("pto.texpands", ins=("scalar",), implied=frozenset({"target"}))
    for name in ("fillpad", "fillpad_inplace"):
        t[f"tile.{name}"] = Dps("pto.tfillpad", ins=("tile",), implied=frozenset({"pad_value"}))
    t["tile.fillpad_expand"] = Dps("pto.tfillpad_expand", ins=("tile",), implied=frozenset({"shape", "pad_value"}))
    t["tile.move"] = Dps("pto.tmov", ins=("tile",), implied=frozenset({"target_memory", "blayout", "slayout"}))
    t["tile.transpose"] = Dps("pto.ttrans", ins=("tile", "tmp_tile"), implied=frozenset({"axis1", "axis2"}))
    t["tile.extract"] = Dps("pto.textract", ins=("src", "index_row", "index_col"), scalar_type="index",
                            implied=frozenset({"shape", "target_memory"}))
    t["tile.ci"] = Dps("pto.tci", ins=("start",), implied=frozenset({"shape", "dtype"}),
                       attrs=(Attr("descending", "{}", kwarg="descending", inside=False),))
    t["tile.gatherb"] = Dps("pto.tgatherb", implied=frozenset({"output_dtype"}))
    t["tile.scatter"] = Dps("pto.tscatter", ins=("src", "indexes"), implied=frozenset({"dst"}))
    t["tile.gather_mask"] = Dps("pto.tgather", ins=("src",), attrs=(_MASK,), implied=frozenset({"output_dtype"}))
    t["tile.scatter_mask"] = Dps("pto.tscatter", ins=("src",), attrs=(_MASK,), implied=frozenset({"dst"}))
    t["tile.mrgsort_format1"] = Dps("pto.tmrgsort", ins=("src0", "block_len"), scalar_type="i32")
    t["tile.mrgsort_format2"] = Dps("pto.tmrgsort", attrs=(Attr("exhausted", "{}", kwarg="exhausted"),))
    return t


def _other_table() -> dict[str, OpRule]:
    target_memory = frozenset({"target_memory"})
    t: dict[str, OpRule] = {
        "tile.matmul_acc": Accumulate("pto.tmatmul.acc", fresh="pto.tmatmul"),
        "tile.load": Transfer("pto.tload", tensor="tensor", offsets="offsets", sizes="valid_shape", to_tile=True,
                              implied=target_memory | {"shapes", "clamp", "flatten"}),
        "tile.store": Transfer("pto.tstore", tensor="output_tensor", offsets="offsets", sizes="shapes", ins=("tile",),
                               attrs=(_ATOMIC,)),
        "tile.mscatter": Transfer("pto.mscatter", tensor="output_tensor", ins=("src", "idx")),
        # The table's whole view, then the index tile (mscatter's operands in the other direction).
        "tile.mgather": Transfer("pto.mgather", tensor="mem", ins=("idx",), to_tile=True,
                                 attrs=(Attr("coalesce", "#pto<coalesce {}>", kwarg="coalesce"),
                                        Attr("gatherOob", "#pto<gather_oob {}>", kwarg="gather_oob")),
                                 implied=frozenset({"target_memory", "valid_shape", "scratch"})),
        "tile.create": Buffer("", implied=frozenset({"shape", "dtype", "target_memory", "transpose", "flat_layout"})),
        # A view: the result's pto.alloc_tile at the source's address, with the new dtype.
        "tile.reinterpret_view": Buffer("", implied=frozenset({"tile", "dtype", "shape"})),
        "tile.alloc": Buffer("", implied=frozenset({"memory_space", "size", "pinned"})),
        "tile.slice": Subview("pto.subview", implied=frozenset({"drop_dims", "pad_value"})),
        "tile.assemble": Assemble("pto.tmov"),
        "tile.reshape": Reshape("pto.treshape"),
        # NZ <-> ZN: the same bytes under the swapped shape and layouts (the result type says which).
        "tile.transpose_view": Reshape("pto.treshape", operands=frozenset({"tile"})),
        "tile.set_validshape": SetValidShape("pto.set_validshape"),
        "tile.read": TileElement("pto.tgetval"),
        "tile.write": TileElement("pto.tsetval", store=True),
        "tensor.read": ScalarAccess("pto.load_scalar"),
        "tensor.write": ScalarAccess("pto.store_scalar", store=True),
        "system.bar_v": Fixed("pto.barrier", "<PIPE_V>"),
        "system.bar_m": Fixed("pto.barrier", "<PIPE_M>"),
        "system.bar_all": Fixed("pto.barrier", "<PIPE_ALL>"),
        "system.fence": Fixed("pto.fence.barrier_all", "#pto.fence_scope<gm>"),
        "system.cacheinvalid": Fixed("pto.cmo.cacheinvalid", "all #pto.address_space<gm>"),
        "system.sync_set": Sync("pto.sync.set", ffts=True),
        "system.sync_wait": Sync("pto.sync.wait"),
        "system.syncall": SyncAll("pto.syncall"),
        "system.sync_src": Flag("pto.set_flag"),
        "system.sync_dst": Flag("pto.wait_flag"),
        "system.reserve_buffer": CrossCore("pto.reserve_buffer", attrs=("name", "size", "base"), result=Result.I32),
        "system.import_peer_buffer": CrossCore("pto.import_reserved_buffer", attrs=("name", "peer_func"),
                                               result=Result.I32),
        "tile.tpush_to_aiv": CrossCore("pto.tpush_to_aiv", attrs=("id", "split"), operands=Operands.TILE),
        "tile.tpush_to_aic": CrossCore("pto.tpush_to_aic", attrs=("id", "split"), operands=Operands.TILE),
        "tile.tpop_from_aic": CrossCore("pto.tpop_from_aic", attrs=("id", "split"), operands=Operands.VALID_SHAPE,
                                        result=Result.TILE),
        "tile.tpop_from_aiv": CrossCore("pto.tpop_from_aiv", attrs=("id", "split"), operands=Operands.VALID_SHAPE,
                                        result=Result.TILE),
        "system.tfree_to_aic": CrossCore("pto.tfree_from_aic", attrs=("id", "split"), operands=Operands.FREED),
        "system.tfree_to_aiv": CrossCore("pto.tfree_from_aiv", attrs=("id", "split"), operands=Operands.FREED),
    }
    for side in ("aic", "aiv"):
        t[f"system.{side}_initialize_pipe"] = CrossCore(
            f"pto.{side}_initialize_pipe", attrs=("id", "dir_mask", "slot_size", "slot_num", "local_slot_num"),
            operands=Operands.BUFFERS)
    for ns in ("tile", "tensor"):
        t[f"{ns}.get_block_idx"] = SpmdIndex("arith.index_cast", param="__pypto_spmd_block_idx")
        t[f"{ns}.get_block_num"] = SpmdIndex("arith.index_cast", param="__pypto_spmd_block_num")
        t[f"{ns}.get_subblock_idx"] = SpmdIndex("arith.index_cast", param="__pypto_spmd_subblock_idx")
    return t


PTO_OPS = OpTable(TARGET, {**_dps_table(), **_other_table()})
