"""How the op sweep (``sweep_ops.py``) builds a minimal kernel for each op the CCE target prints.

A :class:`Recipe` writes the DSL lines of one case into a :class:`CaseBody`: ``body.x()`` is the
case's operand (loaded, then made col-major, a column slice of a wider tile, or partially valid as
the case says), ``body.aux(...)`` a plain row-major operand (index tiles, broadcast rows and
columns), ``body.scratch(...)`` a scratch tile, ``body.let(expr)`` a result. Every recipe states the
operand domain its op needs (positive for log/sqrt, non-zero divisors, in-range indices).

``SKIPPED`` lists, with the reason, every op the CCE target has a rule for that the sweep does not
build a kernel for; ``tests/sim/test_op_sweep.py`` checks that the two together cover the target.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from pypto.ir.numpy_dtypes import numpy_dtype
from pypto.ir.datatype import DataType

D = DataType
R, C = 32, 32  # the case operand's shape
VALID = (19, 21)  # its valid region in the "partial" cases
FLOATS = (D.FP32, D.FP16, D.BF16)
INTS = (D.INT32, D.INT16, D.INT8, D.UINT32, D.UINT16, D.UINT8)
DTYPES = FLOATS + INTS
LAYOUTS = ("row", "col")
VALIDS = ("full", "partial")
FORMS = ("tile", "view")


@dataclass(frozen=True)
class Domain:
    """Input values: uniform in ``[lo, hi)`` (integers: ``[lo, hi]``, multiples of ``step``), clipped
    to the dtype's range; ``nonzero`` flips values of magnitude below ``0.5`` away from zero."""

    lo: float = -4.0
    hi: float = 4.0
    nonzero: bool = False
    step: int = 1

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...], dtype: DataType) -> np.ndarray:
        nd = numpy_dtype(dtype)
        if dtype.is_float():
            values = rng.uniform(self.lo, self.hi, size=shape)
            if self.nonzero:
                values = np.where(np.abs(values) < 0.5, np.copysign(0.5, values) + values, values)
            return values.astype(nd)
        info = np.iinfo(nd)
        lo, hi = max(int(self.lo), int(info.min)), min(int(self.hi), int(info.max))
        values = rng.integers(-(-lo // self.step), hi // self.step + 1, size=shape) * self.step
        if self.nonzero:
            values = np.where(values == 0, 1, values)
        return values.astype(nd)


ANY = Domain()
POSITIVE = Domain(0.5, 4.0)
NONZERO = Domain(-4.0, 4.0, nonzero=True)
SMALL = Domain(-2.0, 2.0)
SHIFT = Domain(0, 7)
BITS = Domain(0, 127)


def dsl(dtype: DataType) -> str:
    """``pl.FP32`` for DataType.FP32."""
    return f"pl.{dtype.name}"


def scalar_text(dtype: DataType, value: float) -> str:
    """A literal of ``dtype``: ``1.5`` for floats, ``int(value)`` for integers."""
    return repr(float(value)) if dtype.is_float() else str(int(value))


@dataclass(frozen=True)
class Case:
    """One kernel of the sweep: ``op`` on ``dtype`` operands in ``layout``, with a ``valid`` region,
    the operand a plain tile or a ``view`` (a column slice of a wider tile)."""

    op: str
    dtype: DataType
    layout: str = "row"
    valid: str = "full"
    form: str = "tile"

    def label(self) -> str:
        return f"{self.op}[{self.dtype.name},{self.layout},{self.valid},{self.form}]"


class CaseBody:
    """The DSL lines of one case in a kernel; names are prefixed so several cases share a kernel."""

    def __init__(self, case: Case, prefix: str) -> None:
        self.case = case
        self.prefix = prefix
        self.lines: list[str] = []
        self.inputs: list[tuple[str, tuple[int, ...], DataType, Domain]] = []
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"{self.prefix}{stem}{self.count}"

    def let(self, expr: str, stem: str = "t") -> str:
        """``<fresh> = <expr>``; returns the fresh name."""
        name = self.fresh(stem)
        self.lines.append(f"{name} = {expr}")
        return name

    def param(self, shape: tuple[int, ...], dtype: DataType, domain: Domain) -> str:
        name = self.fresh("in")
        self.inputs.append((name, shape, dtype, domain))
        return name

    def aux(self, shape: tuple[int, ...], dtype: DataType | None = None, domain: Domain = ANY) -> str:
        """A full, row-major tile loaded from a fresh input tensor."""
        tensor = self.param(shape, dtype or self.case.dtype, domain)
        return self.let(f"pl.load({tensor}, [0, 0], {list(shape)})", "a")

    def x(self, domain: Domain = ANY, dtype: DataType | None = None, shape: tuple[int, ...] = (R, C)) -> str:
        """The case operand: a ``shape`` tile (a column slice of a ``[rows, 2 * cols]`` one for a
        view), valid in ``VALID`` when partial, moved to col-major for the col layout."""
        case, dtype = self.case, dtype or self.case.dtype
        rows, cols = shape
        valid = [min(VALID[0], rows), min(VALID[1], cols)] if case.valid == "partial" else [rows, cols]
        if case.form == "view":
            tensor = self.param((rows, 2 * cols), dtype, domain)
            whole = self.let(f"pl.load({tensor}, [0, 0], [{rows}, {2 * cols}])", "w")
            tile = self.let(f"pl.tile.slice({whole}, [{rows}, {cols}], [0, {cols}], valid_shape={valid})", "v")
        else:
            tensor = self.param((rows, cols), dtype, domain)
            tile = self.let(f"pl.load({tensor}, [0, 0], [{rows}, {cols}], valid_shape={valid})", "x")
        if case.layout == "col":
            tile = self.let(f"pl.tile.move({tile}, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.col_major)", "c")
        return tile

    def scratch(self, shape: tuple[int, ...] = (R, C), dtype: DataType | None = None) -> str:
        dt = dsl(dtype or self.case.dtype)
        return self.let(f"pl.tile.create({list(shape)}, dtype={dt}, target_memory=pl.Mem.Vec)", "s")


Build = Callable[[CaseBody], str]


@dataclass(frozen=True)
class Recipe:
    """How to build ``op``: ``build`` writes the case into a body and returns the result tile's
    name; the sweep runs it for every dtype, layout, valid region and operand form listed here
    that the op's type rule accepts. ``core`` is ``cube`` for ops that run on the cube unit."""

    build: Build
    dtypes: tuple[DataType, ...] = DTYPES
    layouts: tuple[str, ...] = LAYOUTS
    valids: tuple[str, ...] = VALIDS
    forms: tuple[str, ...] = FORMS
    core: str = "vector"
    note: str = field(default="", compare=False)


def call(op: str, *args: str) -> str:
    """``pl.tile.<op>(args)``; ``and``/``or``/``not`` are spelled ``and_``/``or_``/``not_``."""
    name = op + "_" if op in ("and", "or", "not") else op
    return f"pl.tile.{name}({', '.join(args)})"


def _binary(op: str, rhs: Domain = ANY, lhs: Domain = ANY) -> Recipe:
    return Recipe(lambda b: b.let(call(op, b.x(lhs), b.x(rhs))))


def _binary_tmp(op: str, rhs: Domain = ANY) -> Recipe:
    return Recipe(lambda b: b.let(call(op, b.x(), b.x(rhs), b.scratch())))


def _scalar(op: str, value: float, lhs: Domain = ANY) -> Recipe:
    return Recipe(lambda b: b.let(call(op, b.x(lhs), scalar_text(b.case.dtype, value))))


def _scalar_tmp(op: str, value: float) -> Recipe:
    return Recipe(lambda b: b.let(call(op, b.x(), scalar_text(b.case.dtype, value), b.scratch())))


def _unary(op: str, domain: Domain = ANY) -> Recipe:
    return Recipe(lambda b: b.let(call(op, b.x(domain))))


def _row_reduce(op: str) -> Recipe:
    return Recipe(lambda b: b.let(call(op, b.x(SMALL), b.scratch())))


def _col_reduce(op: str, tmp: bool) -> Recipe:
    return Recipe(lambda b: b.let(call(op, b.x(SMALL), *([b.scratch()] if tmp else []))))


def _row_expand(op: str, vec: Domain = ANY, tmp: bool = False) -> Recipe:
    return Recipe(lambda b: b.let(call(op, b.x(SMALL), b.aux((R, 1), domain=vec), *([b.scratch()] if tmp else []))))


def _col_expand(op: str, vec: Domain = ANY) -> Recipe:
    return Recipe(lambda b: b.let(call(op, b.x(SMALL), b.aux((1, C), domain=vec))))


def _cast(b: CaseBody) -> str:
    target = D.FP32 if b.case.dtype != D.FP32 else D.FP16
    return b.let(f"pl.tile.cast({b.x()}, target_type={dsl(target)}, mode=1)")


def _mask(b: CaseBody) -> str:
    """A packed mask laid out as ``tile.cmp`` makes one: ``C / 8`` valid bytes per row of a 32-byte row
    (TSEL reads the mask as one bit stream, so the select's type rule wants exactly that many)."""
    tensor = b.param((R, 32), D.UINT8, Domain(0, 255))
    return b.let(f"pl.load({tensor}, [0, 0], [{R}, 32], valid_shape=[{R}, {C // 8}])", "m")


def _sel(b: CaseBody) -> str:
    return b.let(call("sel", _mask(b), b.x(), b.x(), b.scratch()))


def _sels(b: CaseBody) -> str:
    return b.let(call("sels", _mask(b), b.x(), b.scratch(), scalar_text(b.case.dtype, 3)))


def _expands(b: CaseBody) -> str:
    return b.let(call("expands", b.x(), scalar_text(b.case.dtype, 3)))


def _full(b: CaseBody) -> str:
    return b.let(f"pl.tile.full([{R}, {C}], dtype={dsl(b.case.dtype)}, value={scalar_text(b.case.dtype, 3)})")


def _ci(b: CaseBody) -> str:
    return b.let(f"pl.tile.ci({scalar_text(b.case.dtype, 5)}, [1, {C}], dtype={dsl(b.case.dtype)})")


def _transpose(b: CaseBody) -> str:
    return b.let(call("transpose", b.x(), "0", "1", b.scratch((C, R))))


def _reshape(b: CaseBody) -> str:
    """Twice the rows, half the columns; 1-byte types the other way, as a row must stay 32 bytes."""
    shape = [R // 2, 2 * C] if b.case.dtype.get_bit() == 8 else [2 * R, C // 2]
    return b.let(call("reshape", b.x(), str(shape)))


def _concat(b: CaseBody) -> str:
    return b.let(call("concat", b.x(), b.x()))


def _move(b: CaseBody) -> str:
    return b.let(f"pl.tile.move({b.x()}, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.row_major)")


def _slice(b: CaseBody) -> str:
    return b.let(f"pl.tile.slice({b.x()}, [8, 16], [8, 8])")


def _fillpad(op: str, pad: str) -> Recipe:
    """``op`` padding with ``pad``; the three fillpad ops take the three pad values between them."""
    return Recipe(lambda b: b.let(call(op, b.x(), f"pad_value=pl.PadValue.{pad}")))


def _fillpad_expand(b: CaseBody) -> str:
    return b.let(call("fillpad_expand", b.x(), f"[{R}, {C}]", "pad_value=pl.PadValue.zero"))


def _assemble(b: CaseBody) -> str:
    """The operand written into the right half of a wider row-major tile (TINSERT)."""
    return b.let(call("assemble", b.aux((R, 2 * C)), b.x(), f"[0, {C}]"))


def _prelu(b: CaseBody) -> str:
    return b.let(call("prelu", b.x(), b.x(), b.scratch()))


def _three(op: str) -> Recipe:
    return Recipe(lambda b: b.let(call(op, b.x(), b.x(), b.x())))


def _three_scalar(op: str) -> Recipe:
    return Recipe(lambda b: b.let(call(op, b.x(), scalar_text(b.case.dtype, 3), b.x())))


def _cmp(b: CaseBody) -> str:
    return b.let(f"pl.tile.cmp({b.x()}, {b.x()}, cmp_type=2)")


def _cmps(b: CaseBody) -> str:
    return b.let(f"pl.tile.cmps({b.x()}, {scalar_text(b.case.dtype, 0)}, cmp_type=4)")


def _rsqrt(b: CaseBody) -> str:
    return b.let(call("rsqrt", b.x(POSITIVE), b.scratch()))


def _cube(build: Build) -> Recipe:
    return Recipe(build, dtypes=(D.FP16, D.BF16, D.FP32, D.INT8), layouts=("row",), valids=("full",), forms=("tile",),
                  core="cube")


def _operand(b: CaseBody, shape: tuple[int, int], memory: str, dtype: DataType | None = None) -> str:
    """A ``shape`` operand of the case dtype, loaded to Mat and moved to ``memory`` (Left, Right, Bias)."""
    tensor = b.param(shape, dtype or b.case.dtype, SMALL)
    mat = b.let(f"pl.load({tensor}, [0, 0], {list(shape)}, target_memory=pl.Mem.Mat)", "m")
    return b.let(f"pl.tile.move({mat}, target_memory=pl.Mem.{memory})", memory[0].lower())


def _bias(b: CaseBody, cols: int) -> str:
    return _operand(b, (1, cols), "Bias", D.INT32 if b.case.dtype == D.INT8 else D.FP32)


def _n(b: CaseBody) -> int:
    """Output columns: a [K, N] Mat tile is NZ, whose boxes are 32 bytes wide (pto/common/pto_tile.hpp
    InnerCols), so 1-byte types need N a multiple of 32."""
    return 32 if b.case.dtype.get_bit() == 8 else 16


def _matmul(b: CaseBody) -> str:
    return b.let(call("matmul", _operand(b, (16, 32), "Left"), _operand(b, (32, _n(b)), "Right")))


def _matmul_acc(b: CaseBody) -> str:
    acc = b.let(call("matmul", _operand(b, (16, 32), "Left"), _operand(b, (32, _n(b)), "Right")))
    return b.let(call("matmul_acc", acc, _operand(b, (16, 32), "Left"), _operand(b, (32, _n(b)), "Right")))


def _matmul_bias(b: CaseBody) -> str:
    return b.let(call("matmul_bias", _operand(b, (16, 32), "Left"), _operand(b, (32, _n(b)), "Right"),
                      _bias(b, _n(b))))


def _gemv(b: CaseBody) -> str:
    return b.let(call("gemv", _operand(b, (1, 32), "Left"), _operand(b, (32, _n(b)), "Right")))


def _gemv_acc(b: CaseBody) -> str:
    acc = b.let(call("gemv", _operand(b, (1, 32), "Left"), _operand(b, (32, _n(b)), "Right")))
    return b.let(call("gemv_acc", acc, _operand(b, (1, 32), "Left"), _operand(b, (32, _n(b)), "Right")))


def _gemv_bias(b: CaseBody) -> str:
    return b.let(call("gemv_bias", _operand(b, (1, 32), "Left"), _operand(b, (32, _n(b)), "Right"),
                      _bias(b, _n(b))))


def _extract(b: CaseBody) -> str:
    mat = b.let(f"pl.load({b.param((32, 32), b.case.dtype, SMALL)}, [0, 0], [32, 32], target_memory=pl.Mem.Mat)", "m")
    lhs = b.let(f"pl.tile.extract({mat}, 16, 0, [16, 32], target_memory=pl.Mem.Left)", "l")
    return b.let(call("matmul", lhs, _operand(b, (32, _n(b)), "Right")))


def _sort32(b: CaseBody) -> str:
    """Two 32-element blocks per row, indices a permutation-free range (ties broken by index)."""
    idx = b.aux((R, 2 * C), D.UINT32, Domain(0, 1000))
    return b.let(call("sort32", b.x(shape=(R, 2 * C)), idx))


def _mrgsort(b: CaseBody) -> str:
    """One row of 256 elements read as (score, index) structs: a group of four 64-element blocks."""
    return b.let(f"pl.tile.mrgsort({b.x(shape=(1, 256))}, block_len=64)")


def _gather(b: CaseBody) -> str:
    """Flat indices over the whole source tile; the scratch tile (loaded, for it has no other way to
    get a valid region) takes the indices' valid region, as a2a3 TGATHER asserts."""
    idx = b.x(Domain(0, R * C - 1), D.INT32)
    valid = list(VALID) if b.case.valid == "partial" else [R, C]
    tmp = b.let(f"pl.load({b.param((R, C), D.INT32, ANY)}, [0, 0], [{R}, {C}], valid_shape={valid})", "s")
    return b.let(call("gather", b.aux((R, C)), idx, tmp))


def _scatter(b: CaseBody) -> str:
    """Indices of the data's width (two bytes for 8-bit data) into the whole destination tile; the
    destination starts as non-zero data, which TSCATTER zeroes."""
    width = D.INT32 if b.case.dtype.get_bit() == 32 else D.INT16
    idx = b.x(Domain(0, R * C - 1), width)
    return b.let(call("scatter", b.aux((R, C)), b.x(), idx))


def _gatherb(b: CaseBody) -> str:
    """Block-aligned byte offsets into the whole source tile, 8 per row: one 256-byte repeat."""
    src_bytes = R * C * b.case.dtype.get_bit() // 8
    offsets = b.x(Domain(0, src_bytes - 32, step=32), D.UINT32, shape=(R, 8))
    return b.let(call("gatherb", b.aux((R, C)), offsets))


def _gather_mask(b: CaseBody) -> str:
    """Every fourth column from the third (P0100) of a whole-width case operand four times as wide, so the
    result rows are whole 32-byte blocks for every dtype."""
    return b.let(call("gather_mask", b.x(shape=(R, 4 * C)), "pl.MaskPattern.P0100"))


def _scatter_mask(b: CaseBody) -> str:
    """The case operand's columns spread to the odd columns (P1010) of a zeroed destination."""
    return b.let(call("scatter_mask", b.aux((R, 2 * C)), b.x(), "pl.MaskPattern.P1010"))


RECIPES: dict[str, Recipe] = {
    **{f"tile.{n}": _binary(n) for n in ("add", "sub", "mul", "maximum", "minimum")},
    "tile.div": _binary("div", NONZERO),
    "tile.fmod": _binary("fmod", NONZERO),
    **{f"tile.{n}": _binary(n, BITS, BITS) for n in ("and", "or")},
    **{f"tile.{n}": _binary(n, SHIFT, BITS) for n in ("shl", "shr")},
    **{f"tile.part_{n}": _binary(f"part_{n}") for n in ("add", "mul", "max", "min")},
    "tile.xor": _binary_tmp("xor", BITS),
    "tile.rem": _binary_tmp("rem", NONZERO),
    **{f"tile.{n}": _scalar(n, 1.5) for n in ("adds", "subs", "muls", "maximums", "minimums")},
    "tile.divs": _scalar("divs", 2.5),
    "tile.fmods": _scalar("fmods", 2.5),
    "tile.lrelu": _scalar("lrelu", 0.25),
    **{f"tile.{n}": _scalar(n, 5, BITS) for n in ("ands", "ors")},
    **{f"tile.{n}": _scalar(n, 2, BITS) for n in ("shls", "shrs")},
    "tile.xors": _scalar_tmp("xors", 5),
    "tile.rems": _scalar_tmp("rems", 2.5),
    "tile.addc": _three("addc"),
    "tile.subc": _three("subc"),
    "tile.addsc": _three_scalar("addsc"),
    "tile.subsc": _three_scalar("subsc"),
    **{f"tile.{n}": _unary(n) for n in ("neg", "abs", "relu")},
    "tile.exp": _unary("exp", SMALL),
    "tile.not": _unary("not", BITS),
    "tile.sqrt": _unary("sqrt", POSITIVE),
    "tile.log": _unary("log", POSITIVE),
    "tile.recip": _unary("recip", NONZERO),
    "tile.rsqrt": Recipe(_rsqrt),
    "tile.prelu": Recipe(_prelu),
    "tile.cast": Recipe(_cast),
    "tile.cmp": Recipe(_cmp),
    "tile.cmps": Recipe(_cmps),
    "tile.sel": Recipe(_sel),
    "tile.sels": Recipe(_sels),
    "tile.expands": Recipe(_expands),
    "tile.full": Recipe(_full, layouts=("row",), valids=("full",), forms=("tile",)),
    "tile.ci": Recipe(_ci, layouts=("row",), valids=("full",), forms=("tile",)),
    **{f"tile.row_{n}": _row_reduce(f"row_{n}") for n in ("sum", "max", "min", "prod", "argmax", "argmin")},
    **{f"tile.col_{n}": _col_reduce(f"col_{n}", False) for n in ("max", "min", "prod")},
    **{f"tile.col_{n}": _col_reduce(f"col_{n}", True) for n in ("sum", "argmax", "argmin")},
    "tile.row_expand": _row_expand("row_expand"),
    "tile.row_expand_add": _row_expand("row_expand_add", tmp=True),
    "tile.row_expand_div": _row_expand("row_expand_div", NONZERO),
    **{f"tile.row_expand_{n}": _row_expand(f"row_expand_{n}") for n in ("sub", "mul", "max", "min", "expdif")},
    "tile.col_expand": _col_expand("col_expand"),
    "tile.col_expand_div": _col_expand("col_expand_div", NONZERO),
    **{f"tile.col_expand_{n}": _col_expand(f"col_expand_{n}") for n in ("add", "sub", "mul", "max", "min", "expdif")},
    "tile.transpose": Recipe(_transpose),
    "tile.reshape": Recipe(_reshape),
    "tile.concat": Recipe(_concat),
    "tile.move": Recipe(_move),
    "tile.slice": Recipe(_slice),
    "tile.fillpad": _fillpad("fillpad", "max"),
    "tile.fillpad_inplace": _fillpad("fillpad_inplace", "min"),
    "tile.fillpad_expand": Recipe(_fillpad_expand),
    "tile.assemble": Recipe(_assemble, dtypes=tuple(d for d in DTYPES if d.get_bit() > 8), layouts=("row",),
                            note="a2a3 TINSERT copies row-major 2- and 4-byte elements"),
    "tile.matmul": _cube(_matmul),
    "tile.matmul_acc": _cube(_matmul_acc),
    "tile.matmul_bias": _cube(_matmul_bias),
    "tile.gemv": _cube(_gemv),
    "tile.gemv_acc": _cube(_gemv_acc),
    "tile.gemv_bias": _cube(_gemv_bias),
    "tile.extract": _cube(_extract),
    "tile.sort32": Recipe(_sort32),
    "tile.mrgsort_format1": Recipe(_mrgsort),
    "tile.gather": Recipe(_gather),
    "tile.scatter": Recipe(_scatter),
    "tile.gatherb": Recipe(_gatherb),
    "tile.gather_mask": Recipe(_gather_mask, layouts=("row",), valids=("full",)),
    "tile.scatter_mask": Recipe(_scatter_mask, dtypes=tuple(d for d in DTYPES if d.get_bit() > 8), layouts=("row",),
                                valids=("full",)),
}

_SYNC = "a synchronisation intrinsic InsertPipeSync places in every kernel; it computes no value to compare"
_SPMD = "a launch-identity read, only meaningful in a pl.spmd launch (tests/sim/test_spmd_launch.py runs it)"
_ELEMENT = "single-element access, no tile result to sweep"
_PIPE = ("a cross-core pipe op: needs an AIC and an AIV kernel in a Group (tests/sim/test_cross_core_sim.py and the "
         "mixed_* / cross_core_* examples run them)")
SKIPPED: dict[str, str] = {
    "system.bar_all": _SYNC,
    "system.bar_m": _SYNC,
    "system.bar_v": _SYNC,
    "system.sync_src": _SYNC,
    "system.sync_dst": _SYNC,
    "system.syncall": "a cross-core barrier over a GM workspace: needs a multi-core launch, no value to compare",
    "tile.get_block_idx": _SPMD,
    "tile.get_block_num": _SPMD,
    "tile.get_subblock_idx": _SPMD,
    "tile.load": "every case loads its operands with it",
    "tile.store": "every case stores its result with it",
    "tile.create": "every case with a scratch tile creates it",
    "tile.alloc": "emitted by memory planning for pinned buffers, not written by programs",
    "tile.transpose_view": "reinterprets an NZ Mat tile as ZN for the cube unit; no Vec path stores its result",
    # One element, not a tile: tests/sim/test_kernel_control_flow.py runs each against the interpreter.
    "tile.read": _ELEMENT,
    "tile.write": _ELEMENT,
    "tensor.read": _ELEMENT,
    "tensor.write": _ELEMENT,
    "system.aic_initialize_pipe": _PIPE,
    "system.aiv_initialize_pipe": _PIPE,
    "system.reserve_buffer": _PIPE,
    "system.import_peer_buffer": _PIPE,
    "system.tfree_to_aic": _PIPE,
    "system.tfree_to_aiv": _PIPE,
    "tile.tpush_to_aic": _PIPE,
    "tile.tpush_to_aiv": _PIPE,
    "tile.tpop_from_aic": _PIPE,
    "tile.tpop_from_aiv": _PIPE,
    "tile.mgather": "needs an index tile of in-range rows or elements: tests/sim/test_mgather_sim.py runs its forms",
    "tile.reinterpret_view": "a view of another dtype over the same bytes: tests/sim/test_reinterpret_view_sim.py runs it",
    "tile.set_validshape": "changes a tile's valid region only: tests/sim/test_kernel_control_flow.py runs it",
}
