"""AutoTileMatmulL0: a matmul on Mat (L1) operands too big for L0A/L0B becomes a loop over K slabs,
and one whose result is too big for L0C becomes output blocks (docs/passes.md#autotilematmull0).

Each slab is cut out of the Mat operands by ``tile.extract`` straight into Left/Right; the first slab
is multiplied by ``tile.matmul``, the others are added to the accumulator by ``tile.matmul_acc``
carried through the loop. An M/N block multiplies a row block of the left operand by a column block
of the right one (K-split again when needed) and is stored into its place of the output tensor. A
matmul that fits, or whose operands are already in Left/Right, is left as it is (the same objects);
InferTileMemorySpace then moves fitting Mat operands into L0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from annotated_types import Ge

from pypto.analysis import function_index, op_name, use_counts, walk
from pypto.languages.invariants import TileOps2D
from pypto.languages.tiled import tiled

from pypto.backend import BackendType, Platform
from pypto.ir import op_registry
from pypto.ir.datatype import DataType
from pypto.ir.enums import MemorySpace, is_incore_type
from pypto.ir.expr import Add, Call, ConstInt, Expr, IterArg, MakeTuple, Mul, Var
from pypto.ir.function import Function
from pypto.ir.parts import copy_parts
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, ForStmt, Stmt, WhileStmt, YieldStmt
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TileType

from pypto.transform.context import PassContext
from pypto.transform.memref_util import tile_nbytes
from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import block_of, calls_any

from .accumulator import AccWeb, BlockCopy, acc_web

D = DataType
Mat, Left, Right, Acc = MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc
# Operand dtypes the cube unit multiplies (pto-isa TMatmul); the two operands have one dtype.
_A2A3_CUBE = frozenset({D.FP16, D.BF16, D.FP32, D.INT8})
CUBE_DTYPES = {
    BackendType.Ascend910B: _A2A3_CUBE,
    BackendType.Ascend950: _A2A3_CUBE | {D.FP8E4M3FN, D.FP8E5M2, D.HF8},
}
_CUBE_OPS = ("tile.matmul", "tile.matmul_acc", "tile.matmul_bias", "tile.batch_matmul", "tile.batch_matmul_acc")
# A K slab is a whole number of 32-byte fractal rows (16 FP16, 8 FP32, 32 INT8 elements).
_FRACTAL_BYTES = 32
# M/N blocks are whole 16-row (16-column) fractals.
_BLOCK_GRANULE = 16
# Ops computing each element of their one tile operand from that element alone (other operands are
# scalars): between a blocked product and its store they run block by block.
BLOCKWISE = frozenset({
    "tile.abs", "tile.cast", "tile.exp", "tile.log", "tile.neg", "tile.recip", "tile.relu", "tile.rsqrt",
    "tile.sqrt", "tile.adds", "tile.subs", "tile.muls", "tile.divs", "tile.maximums", "tile.minimums",
})


def _static(dims: list[Expr]) -> list[int] | None:
    values = [d.value if isinstance(d, ConstInt) else None for d in dims]
    return None if None in values else values


def _whole_mat(e: Expr) -> list[int] | None:
    """The static ``[rows, cols]`` of a Mat tile that is valid everywhere, else None."""
    t = e.type
    if not isinstance(t, TileType) or t.memory_space != Mat or len(t.shape) != 2:
        return None
    dims = _static(list(t.shape))
    if dims is None or t.tile_view is not None and _static(list(t.tile_view.valid_shape or t.shape)) != dims:
        return None
    return dims


def k_slab(m: int, k: int, n: int, dtype: DataType, platform: Platform, stages: int = 2) -> int | None:
    """The largest proper divisor of ``k`` (a whole number of fractal rows) whose ``[m, slab]`` and
    ``[slab, n]`` slabs each fit in 1/``stages`` of L0A and L0B; None when there is none."""
    bits = dtype.get_bit()
    granule = max(1, _FRACTAL_BYTES * 8 // bits)
    for parts in range(2, k // granule + 1):
        slab = k // parts
        if k % parts or slab % granule:
            continue
        left, right = platform.capacity[Left] // stages, platform.capacity[Right] // stages
        if m * slab * bits // 8 <= left and slab * n * bits // 8 <= right:
            return slab
    return None


def _nbytes(rows: int, cols: int, dtype: DataType) -> int:
    return rows * cols * dtype.get_bit() // 8


def mn_blocks(m: int, k: int, n: int, dtype: DataType, acc_dtype: DataType, platform: Platform,
              ab_stages: int = 2, c_stages: int = 2) -> tuple[int, int, int | None] | None:
    """The ``(bm, bn, slab)`` of the largest output block: ``bm`` and ``bn`` proper divisors of ``m``
    and ``n`` (whole 16-row fractals, or the whole dimension) whose ``[bm, bn]`` accumulator fits in
    1/``c_stages`` of L0C and whose operand blocks fit in L0A/L0B, whole (``slab`` None) or in K slabs
    of 1/``ab_stages``;
    None when there is none. Larger blocks come first, then squarer ones (fewer bytes extracted per
    block), then taller ones."""

    def sides(d: int) -> list[int]:
        return [b for b in range(d, 0, -1) if d % b == 0 and (b % _BLOCK_GRANULE == 0 or b == d)]

    acc_limit = platform.capacity[Acc] // c_stages
    for bm, bn in sorted(((bm, bn) for bm in sides(m) for bn in sides(n) if (bm, bn) != (m, n)),
                         key=lambda b: (-b[0] * b[1], b[0] + b[1], -b[0])):
        if _nbytes(-(-bm // 16) * 16, bn, acc_dtype) > acc_limit:
            continue
        if _nbytes(bm, k, dtype) <= platform.capacity[Left] and _nbytes(k, bn, dtype) <= platform.capacity[Right]:
            return bm, bn, None
        slab = k_slab(bm, k, bn, dtype, platform, ab_stages)
        if slab is not None:
            return bm, bn, slab
    return None


@dataclass(frozen=True)
class _Blocked:
    """A product split into output blocks: its ``[m, n]`` shape, block sides, the blockwise ops
    between it and its store (by result), and ``block(i, row, col)`` emitting block ``i``'s product."""

    product: Var
    m: int
    n: int
    bm: int
    bn: int
    chain: list[Var]
    block: Callable[[int, int, int], Var]


class AutoTileMatmulL0(RewritePass):
    """Split the K dimension of Mat-resident matmuls that do not fit in L0.

    before:  a_mat: pl.Tile[[128, 512], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, ..., target_memory=pl.Mem.Mat)
             b_mat: pl.Tile[[512, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, ..., target_memory=pl.Mem.Mat)
             c = pl.tile.matmul(a_mat, b_mat)
    after:   a_mat_k0 = pl.tile.extract(a_mat, 0, 0, [128, 128], target_memory=pl.Mem.Left)
             b_mat_k0 = pl.tile.extract(b_mat, 0, 0, [128, 128], target_memory=pl.Mem.Right)
             c_k0 = pl.tile.matmul(a_mat_k0, b_mat_k0)
             for ko, (c_acc,) in pl.range(1, 4, init_values=(c_k0,)):
                 a_mat_k = pl.tile.extract(a_mat, 0, ko * 128, [128, 128], target_memory=pl.Mem.Left)
                 b_mat_k = pl.tile.extract(b_mat, ko * 128, 0, [128, 128], target_memory=pl.Mem.Right)
                 c_next = pl.tile.matmul_acc(c_acc, a_mat_k, b_mat_k)
                 c = pl.yield_(c_next)

    A result too big for L0C (or a K with no slab small enough) splits M and N instead; the one
    store of the product becomes a store per output block:

    before:  c = pl.tile.matmul(a_mat, b_mat)              # [256, 384] x [384, 256] -> FP32 [256, 256]
             out = pl.tile.store(c, [0, 0], t)
    after:   (the K-loop above on a_mat rows 0..127 and b_mat columns 0..127, into c_b0)
             out_b0 = pl.tile.store(c_b0, [0, 0], t)
             (the same for blocks c_b1 at [0, 128], c_b2 at [128, 0], c_b3 at [128, 128])
             out = pl.tile.store(c_b3, [128, 128], out_b2)

    Elementwise ops of one tile operand (``BLOCKWISE``: ``exp``, ``muls``, ``cast``, ...) between the
    product and its store run block by block, on each block before its store. Any other reader (a row
    reduction needs whole rows, a second reader the whole product) is an error naming it.

    An accumulator too big for L0C (a ``tile.create`` in Acc) that ``tile.matmul_acc`` adds to, with or
    without ``init_cond``, directly or in a loop (the K loop of ``pl.matmul_acc(acc, a_k, b_k,
    init_cond=k == 0)``, or an if/else choosing ``pl.matmul`` for the first block), splits the same
    way: the statement computing it (the loop, with its loads) is copied per output block, on a
    block-sized accumulator, each ``tile.matmul_acc`` multiplying the block's rows and columns of its
    operands (K-split again when they exceed L0A/L0B, the first slab with the ``init_cond``):

    before:  acc = pl.tile.create([256, 256], dtype=pl.FP32, target_memory=pl.Mem.Acc)
             for k, (acc_it,) in pl.range(4, init_values=(acc,)):
                 x = pl.tile.load(a, [0, k * 64], [256, 64], target_memory=pl.Mem.Mat)  # and y
                 acc_k = pl.tile.matmul_acc(acc_it, x, y, k == 0)
                 acc_out = pl.yield_(acc_k)
             out = pl.tile.store(acc_out, [0, 0], t)
    after:   acc_b0 = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
             for k_b0, (acc_it_b0,) in pl.range(4, init_values=(acc_b0,)):
                 x_b0 = pl.tile.load(a, [0, k_b0 * 64], [256, 64], target_memory=pl.Mem.Mat)  # and y_b0
                 x_b0_l0 = pl.tile.extract(x_b0, 0, 0, [128, 64], target_memory=pl.Mem.Left)  # and y_b0_l0
                 acc_k_b0 = pl.tile.matmul_acc(acc_it_b0, x_b0_l0, y_b0_l0, k_b0 == 0)
                 acc_out_b0 = pl.yield_(acc_k_b0)
             out_b0 = pl.tile.store(acc_out_b0, [0, 0], t)
             (the same for blocks b1 at [0, 128], b2 at [128, 0], b3 at [128, 128])

    The copied statement runs once per block, so it may only load, compute and add to the accumulator
    (errors: a tensor written in it, the accumulator read there other than by ``tile.matmul_acc``,
    another loop carry read after it); the operands are loaded again for each block.

    A matmul splits K when an operand exceeds its L0 buffer (capacities of the pass context's platform);
    the slab is the largest divisor of K whose slabs fit in half of L0A and of L0B (by default, see the
    options). A ``tile.matmul_acc`` splits the same way, every slab accumulating; one with an
    ``init_cond`` multiplies its first slab into the accumulator with it. The output block is the
    largest (then squarest) one of whole 16-row fractals whose
    accumulator fits in half of L0C and whose operand blocks fit L0A/L0B whole or in K slabs. Operands
    must be whole static 2-D Mat tiles. Errors naming the sizes: a K that cannot be split small enough,
    a blocked product read other than by one store (through blockwise ops), or operands of a blocked
    product exceeding Mat together, a ``tile.matmul_acc`` result too big for L0C whose accumulator is
    not a ``tile.create`` used by it alone. Every cube op of a
    kernel must have operand dtypes the cube unit multiplies (FP16, BF16, FP32, INT8; FP8 and HF8 on
    a5).

    Options ``l0ab_stages`` and ``l0c_stages`` (``int >= 1``, default 2): a K slab takes at most
    1/``l0ab_stages`` of L0A and of L0B, an output block at most 1/``l0c_stages`` of L0C. Each K-loop
    iteration extracts ``l0ab_stages`` slabs and then multiplies them (``pl.range(1, 3, 2)`` with two
    slabs each for ``big_k``; slabs left over follow the loop), so they sit in distinct buffers and
    the extract of one (MTE1) runs while the cube multiplies the one before (M): a 2-stage pipeline.
    The trade-off: ``l0ab_stages=2`` uses twice the slabs, each half as deep (twice the TEXTRACT and
    TMATMUL_ACC instructions, the loop body twice as long) and fills L0A/L0B with two slabs in flight;
    1 gives the fewest, largest slabs, each extract waiting for the product before it. The default 2
    keeps the overlap; the a2a3sim simulator does not time the pipes, so it shows the same results
    either way (the slabs are added in the same order). ``l0c_stages`` only bounds the block size: the
    blocks of a product take turns in one Acc buffer, so a block's product waits for the previous
    block's store.
    """

    source = tiled
    requires = frozenset({TileOps2D})

    l0ab_stages: Annotated[int, Ge(1)] = 2
    l0c_stages: Annotated[int, Ge(1)] = 2

    def applies(self, func: Function) -> bool:
        return is_incore_type(func.func_type) and calls_any(func, _CUBE_OPS)

    def function(self, func: Function) -> Function:
        self.platform = PassContext.current().platform
        if self._fits(func):
            return func
        self.uses = use_counts(func.body)
        self._extracts: dict[tuple[object, ...], Call] = {}  # the first extract per operand, space and shape
        # The first operand of every tile.store: a blocked matmul result must be read by one store.
        self.readers: dict[Var, list[AssignStmt]] = {}
        for n in walk(func.body):
            if isinstance(n, AssignStmt) and isinstance(n.value, Call):
                for a in n.value.args:
                    if isinstance(a, Var):
                        self.readers.setdefault(a, []).append(n)
        # The value each blocked matmul's store stores (deleted) -> the product's operands, plan and
        # the blockwise ops between them, all emitted block by block at the store.
        self.blocked: dict[Var, _Blocked] = {}
        self.acc_inits = self._acc_inits(func)
        # The blockwise ops after blocked products (deleted), as rewritten, by result.
        self.chained: dict[Var, Call | None] = {}
        return super().function(func)

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        new = self.children(node)
        call = new.value
        if node.var in self.chained:
            self.chained[node.var] = call
            return None
        if node.var in self.acc_inits:
            return None  # created per block, with the statement computing it
        if not isinstance(call, Call):
            return new
        if op_name(call) == "tile.store" and call.args[0] in self.blocked:
            return self._store_blocks(new)
        if op_name(call) not in _CUBE_OPS:
            return new
        self._check_dtype(call)
        name, init = op_name(call), None
        if name == "tile.matmul":
            acc, (lhs, rhs) = None, call.args
        elif name == "tile.matmul_acc":
            acc, lhs, rhs, *rest = call.args
            init = rest[0] if rest else None
            if acc in self.acc_inits:
                self._block_acc(node, acc, node.var)
                return None
        else:
            return new
        a, b = _whole_mat(lhs), _whole_mat(rhs)
        if a is None or b is None:
            return new
        (m, k), (_, n) = a, b
        p = self.platform
        result = tile_nbytes(new.var.type, p) if isinstance(new.var.type, TileType) else None
        too_big_result = result is not None and result > p.capacity[Acc]
        if not too_big_result and tile_nbytes(lhs.type, p) <= p.capacity[Left] and tile_nbytes(rhs.type, p) <= p.capacity[Right]:
            return new
        slab = None if too_big_result else k_slab(m, k, n, lhs.type.dtype, p, self.l0ab_stages)
        if slab is not None:
            (*before, last), _ = self._k_loop(new.var, acc, lhs, rhs, m, k, n, slab, new.span, init=init)
            self.emit(*before)
            return last
        plan = None if acc is not None else mn_blocks(
            m, k, n, lhs.type.dtype, new.var.type.dtype, p, self.l0ab_stages, self.l0c_stages
        )
        if plan is None:
            raise self._too_big(call, m, k, n, too_big_result)
        self._check_mat(call, m, k, n)
        self._add_blocked(new.var, op_name(call), m, k, n, plan[:2],
                          lambda i, r, c: self._matmul_block(new.var, lhs, rhs, k, plan, i, r, c))
        return None

    @on(ForStmt, WhileStmt)
    def _loop(self, node: ForStmt | WhileStmt) -> Result:
        inits = [(ia.initValue, rv) for ia, rv in zip(node.iter_args, node.return_vars)
                 if ia.initValue in self.acc_inits]
        if not inits:
            return self.children(node)
        (init, result), = inits
        others = [rv.name_hint for rv in node.return_vars if rv is not result and self.uses[rv]]
        if others:
            raise self.error(
                f"the loop carrying the accumulator '{init.name_hint}', which exceeds L0C, runs once per output "
                f"block, but it also carries {', '.join(others)}, read after it", node.span,
                f"compute {', '.join(others)} in a loop of its own")
        self._block_acc(node, init, result)
        return None

    def _fits(self, func: Function) -> bool:
        """True when the rewrite would leave ``func`` as it is: no ``tile.create`` accumulator too big
        for L0C, and no cube op assignment that ``_assign`` splits (a matmul or matmul_acc of whole
        Mat operands whose result exceeds L0C or an operand its L0 buffer). The operand dtypes of
        its cube ops are checked as the rewrite checks them, in statement order."""
        p = self.platform
        cubes: list[Call] = []
        for s in function_index(func).of(AssignStmt):
            call = s.value
            name = op_name(call) if isinstance(call, Call) else None
            if name == "tile.create":
                t = s.var.type
                if isinstance(t, TileType) and t.memory_space == Acc and tile_nbytes(t, p) > p.capacity[Acc]:
                    return False  # a possible accumulator to split into blocks
            elif name in _CUBE_OPS:
                cubes.append(call)
                if name not in ("tile.matmul", "tile.matmul_acc"):
                    continue
                lhs, rhs = call.args[:2] if name == "tile.matmul" else call.args[1:3]
                if _whole_mat(lhs) is None or _whole_mat(rhs) is None:
                    continue
                t = s.var.type
                if (isinstance(t, TileType) and tile_nbytes(t, p) > p.capacity[Acc]
                        or tile_nbytes(lhs.type, p) > p.capacity[Left] or tile_nbytes(rhs.type, p) > p.capacity[Right]):
                    return False
        for call in cubes:
            self._check_dtype(call)
        return True

    def _acc_inits(self, func: Function) -> dict[Var, AssignStmt]:
        """The ``tile.create`` accumulators too big for L0C whose one use is the accumulator of a
        ``tile.matmul_acc`` or a loop's initial value: split into output blocks with the statement
        using them."""
        cap = self.platform.capacity[Acc]
        made = {n.var: n for n in walk(func.body)
                if isinstance(n, AssignStmt) and isinstance(n.value, Call) and op_name(n.value) == "tile.create"
                and isinstance(n.var.type, TileType) and n.var.type.memory_space == Acc
                and tile_nbytes(n.var.type, self.platform) > cap and self.uses[n.var] == 1}
        used: dict[Var, AssignStmt] = {}
        for n in walk(func.body) if made else []:
            if isinstance(n, (ForStmt, WhileStmt)):
                used.update((ia.initValue, made[ia.initValue]) for ia in n.iter_args if ia.initValue in made)
            elif isinstance(n, AssignStmt) and isinstance(n.value, Call) and op_name(n.value) == "tile.matmul_acc":
                if n.value.args[0] in made:
                    used[n.value.args[0]] = made[n.value.args[0]]
        return used

    def _add_blocked(self, product: Var, op: str, m: int, k: int, n: int, sides: tuple[int, int],
                     block: Callable[[int, int, int], Var]) -> None:
        chain = self._check_blockable(product, op, m, k, n)
        self.chained.update((v, None) for v in chain)
        self.blocked[chain[-1] if chain else product] = _Blocked(product, m, n, *sides, chain, block)

    def _block_acc(self, root: Stmt, init: Var, result: Var) -> None:
        """Split the accumulator ``init`` (a ``tile.create`` too big for L0C) that ``root`` computes
        into ``result`` into output blocks: ``root`` is copied per block at the store."""
        create = self.acc_inits[init]
        m, n = _static(list(init.type.shape))
        web = acc_web(root, init, lambda message, span: self.error(
            message, span, "keep the loop to loads and tile.matmul_acc into the accumulator, or split M or N "
            "in the program (a loop over row or column blocks of the output)"))
        if not web.products:
            raise self.error(f"the [{m}, {n}] accumulator '{init.name_hint}' exceeds L0C and no tile.matmul_acc "
                             f"adds to it", create.span)
        ks = []
        for stmt in web.products:
            _, lhs, rhs, *_ = stmt.value.args
            a, b = _whole_mat(lhs), _whole_mat(rhs)
            if a is None or b is None:
                raise self.error(
                    f"tile.matmul_acc into the [{m}, {n}] accumulator '{init.name_hint}', which exceeds L0C, needs "
                    f"whole static 2-D Mat operands to split into output blocks", stmt.span,
                    "load the operands with target_memory=pl.Mem.Mat")
            self._check_dtype(stmt.value)
            ks.append(a[1])
        dtype = web.products[0].value.args[1].type.dtype
        plan = mn_blocks(m, max(ks), n, dtype, init.type.dtype, self.platform, self.l0ab_stages, self.l0c_stages)
        if plan is None:
            raise self._too_big(web.products[0].value, m, max(ks), n, True)
        self._add_blocked(result, "tile.matmul_acc", m, max(ks), n, plan[:2],
                          lambda i, r, c: self._acc_block(root, web, create, result, plan[:2], i, r, c))

    def _check_dtype(self, call: Call) -> None:
        dtypes = CUBE_DTYPES.get(self.platform.backend_type, _A2A3_CUBE)
        lhs = call.args[1] if op_name(call) in ("tile.matmul_acc", "tile.batch_matmul_acc") else call.args[0]
        dtype = lhs.type.dtype
        if dtype not in dtypes:
            listed = ", ".join(sorted(d.name for d in dtypes))
            raise self.error(
                f"{op_name(call)} on {dtype.name} operands has no cube form on {self.platform.name} "
                f"(the cube unit multiplies {listed})", call.span,
                "cast the operands first, e.g. 'pl.cast(x, target_type=pl.FP16)', or compute the product with "
                "vector ops",
            )

    def _too_big(self, call: Call, m: int, k: int, n: int, result: bool) -> Exception:
        p = self.platform
        if result:
            what = f"its [{m}, {n}] result exceeds L0C ({p.capacity[Acc]} bytes on {p.name})"
            if op_name(call) == "tile.matmul":
                what += " and has no output block of whole 16-row fractals that fits"
        else:
            what = f"K={k} has no slab of whole 32-byte fractal rows small enough for L0A/L0B on {p.name}"
        return self.error(
            f"{op_name(call)} of [{m}, {k}] x [{k}, {n}] does not fit in L0: {what}", call.span,
            "split M or N in the program (a loop over row or column blocks of the output)",
        )

    def _check_mat(self, call: Call, m: int, k: int, n: int) -> None:
        """Both operands of a blocked matmul must fit in Mat together."""
        p = self.platform
        mat = tile_nbytes(call.args[0].type, p) + tile_nbytes(call.args[1].type, p)
        if mat > p.capacity[Mat]:
            raise self.error(
                f"{op_name(call)} of [{m}, {k}] x [{k}, {n}]: the operands take {mat} bytes of Mat, more than its "
                f"{p.capacity[Mat]} bytes on {p.name}", call.span,
                "split M or N in the program (a loop over row or column blocks of the output)",
            )

    def _check_blockable(self, product: Var, op: str, m: int, k: int, n: int) -> list[Var]:
        """A blocked product is never whole in L0C: it must reach one store through blockwise ops
        (returned, by result)."""
        p, shape = self.platform, f"[{m}, {k}] x [{k}, {n}]"
        chain: list[Var] = []
        value = product
        while True:
            readers = self.readers.get(value, [])
            reader = readers[0].value if len(readers) == 1 and self.uses[value] == 1 else None
            name = op_name(reader) if reader is not None else None
            if name == "tile.store" and reader.args[0] is value:
                return chain
            if name in BLOCKWISE and reader.args[0] is value:
                chain.append(readers[0].var)
                value = readers[0].var
                continue
            what = (f"{name} reads it whole" if reader is not None
                    else f"'{value.name_hint}' is read {self.uses[value]} times")
            raise self.error(
                f"{op} of {shape} is split into output blocks (its [{m}, {n}] result exceeds "
                f"L0C, {p.capacity[Acc]} bytes on {p.name}), so its result can only go to one store, through "
                f"elementwise ops ({', '.join(sorted(o.split('.')[1] for o in BLOCKWISE))}) at most; {what}",
                product.span if reader is None else readers[0].span,
                f"split M or N in the program (e.g. a loop over row blocks of the output, each multiplied and "
                f"consumed whole), or store '{value.name_hint}' into a tensor with pl.store and read the blocks "
                "you need from there",
            )

    def _fresh(self, base: str) -> str:
        return self.names.name(base, lambda i: base if i == 0 else f"{base}_{i}")

    def _index(self, e: Expr, add: int, span: Span) -> Expr:
        if add == 0:
            return e
        if isinstance(e, ConstInt):
            return ConstInt(e.value + add, D.INDEX, span)
        return Add(e, ConstInt(add, D.INDEX, span), D.INDEX, span)

    def _slabs(self, lhs: Var, rhs: Var, offset: Expr, row: int, col: int, m: int, n: int, slab: int,
               suffix: str, span: Span) -> tuple[list[Stmt], Var, Var]:
        """The extracts of one K slab of each operand (the left one from ``row``, the right one from
        ``col``) into Left and Right, and the two slabs."""
        stmts: list[Stmt] = []
        for src, r, c, shape, space in ((lhs, ConstInt(row, D.INDEX, span), offset, [m, slab], Left),
                                        (rhs, offset, ConstInt(col, D.INDEX, span), [slab, n], Right)):
            call = self._extract(src, r, c, shape, space, span)
            stmts.append(AssignStmt(Var(self._fresh(f"{src.name_hint}_{suffix}"), call.type, span), call, span))
        return stmts, stmts[0].var, stmts[1].var

    def _extract(self, src: Var, row: Expr, col: Expr, shape: list[int], space: MemorySpace, span: Span) -> Call:
        """``tile.extract`` of the ``shape`` window of ``src`` at ``(row, col)`` into ``space``. The type
        depends on the source, shape and space alone, and the slabs of one operand differ only in their
        offsets: the first extract of each is built and checked by the registry, the others are copies
        of it with their own offsets, unchecked. The registry's checks of those hold by construction:
        each offset is an INDEX expression (a constant, or the K loop's variable times the slab, plus a
        constant), and the offsets are those of the ``k // slab`` whole slabs of K, so every window
        lies inside the source."""
        dims = MakeTuple([ConstInt(d, D.INDEX, span) for d in shape], span)
        key = (src, space, *shape)
        first = self._extracts.get(key)
        if first is None:
            first = self._extracts[key] = op_registry.create_op_call(
                "tile.extract", [src, row, col, dims], {"target_memory": space}, span)
            return first
        return copy_parts(first, {"args": [src, row, col, dims], "span": span})

    def _k_loop(self, var: Var | str, acc: Expr | None, lhs: Var, rhs: Var, m: int, k: int, n: int, slab: int,
                span: Span, row: int = 0, col: int = 0, init: Expr | None = None) -> tuple[list[Stmt], Var]:
        """The statements computing ``var`` (or a fresh variable of that name, returned), the matmul of
        the ``[m, n]`` output block at ``(row, col)`` over its K slabs. The first slab is multiplied
        before the loop when there is no acc, or into ``acc`` with the ``init`` condition when one is
        given. Each loop iteration extracts ``l0ab_stages`` slabs, then multiplies them: the slabs sit
        in distinct L0A/L0B buffers, so the next extract overlaps the current product; the slabs left
        over (fewer than a group) follow the loop."""
        base = var if isinstance(var, str) else var.name_hint
        start, out = 0, []
        if acc is None or init is not None:
            out, left, right = self._slabs(lhs, rhs, ConstInt(0, D.INDEX, span), row, col, m, n, slab, "k0", span)
            if acc is None:
                call = op_registry.create_op_call("tile.matmul", [left, right], span)
            else:
                call = op_registry.create_op_call("tile.matmul_acc", [acc, left, right, init], span)
            acc = Var(self._fresh(f"{base}_k0"), call.type, span)
            out.append(AssignStmt(acc, call, span))
            start = 1
        group, slabs = self.l0ab_stages, k // slab
        stop = start + (slabs - start) // group * group
        result = var if isinstance(var, Var) else Var(self._fresh(var), acc.type, span)
        if stop > start:
            ko = Var(self._fresh("ko"), ScalarType(D.INDEX), span)
            carry = IterArg(self._fresh(f"{base}_acc"), acc.type, acc, span)
            offset = Mul(ko, ConstInt(slab, D.INDEX, span), D.INDEX, span)
            body, step = self._slab_group(carry, lhs, rhs, [self._index(offset, j * slab, span) for j in range(group)],
                                          row, col, m, n, slab, base, span)
            loop_result = result if stop == slabs else Var(self._fresh(f"{base}_grouped"), acc.type, span)
            bounds = [ConstInt(v, D.INDEX, span) for v in (start, stop, group)]
            body.append(YieldStmt([step], span))
            out.append(ForStmt(ko, *bounds, [carry], block_of(body, span), [loop_result], span))
            acc = loop_result
        if stop < slabs:
            offsets = [ConstInt(s * slab, D.INDEX, span) for s in range(stop, slabs)]
            rest, step = self._slab_group(acc, lhs, rhs, offsets, row, col, m, n, slab, base, span)
            last = rest.pop()
            out += [*rest, AssignStmt(result, last.value, span)]
        return out, result

    def _slab_group(self, acc: Expr, lhs: Var, rhs: Var, offsets: list[Expr], row: int, col: int, m: int, n: int,
                    slab: int, base: str, span: Span) -> tuple[list[Stmt], Var]:
        """The slabs at ``offsets`` extracted, then multiplied into ``acc`` in order; the statements and
        the last product."""
        extracts, products = [], []
        for offset in offsets:
            stmts, left, right = self._slabs(lhs, rhs, offset, row, col, m, n, slab, "k", span)
            extracts += stmts
            call = op_registry.create_op_call("tile.matmul_acc", [acc, left, right], span)
            acc = Var(self._fresh(f"{base}_next"), call.type, span)
            products.append(AssignStmt(acc, call, span))
        return [*extracts, *products], acc

    def _matmul_block(self, product: Var, lhs: Var, rhs: Var, k: int, plan: tuple[int, int, int | None], i: int,
                      r: int, c: int) -> Var:
        """Emit block ``i`` (at ``(r, c)``) of the blocked ``tile.matmul`` ``product``; its tile."""
        (bm, bn, slab), span, name = plan, product.span, f"{product.name_hint}_b{i}"
        if slab is not None:
            stmts, tile = self._k_loop(name, None, lhs, rhs, bm, k, bn, slab, span, r, c)
            self.emit(*stmts)
            return tile
        stmts, left, right = self._slabs(lhs, rhs, ConstInt(0, D.INDEX, span), r, c, bm, bn, k, f"b{i}", span)
        call = op_registry.create_op_call("tile.matmul", [left, right], span)
        tile = Var(self._fresh(name), call.type, span)
        self.emit(*stmts, AssignStmt(tile, call, span))
        return tile

    def _acc_block(self, root: Stmt, web: AccWeb, create: AssignStmt, result: Var, sides: tuple[int, int], i: int,
                   r: int, c: int) -> Var:
        """Emit block ``i`` (at ``(r, c)``) of the accumulator ``root`` computes: its ``tile.create``
        and a copy of ``root`` on the block; the block's tile."""
        (bm, bn), span = sides, create.span
        shape = MakeTuple([ConstInt(bm, D.INDEX, span), ConstInt(bn, D.INDEX, span)], span)
        call = op_registry.create_op_call("tile.create", [shape], dict(create.value.kwargs), span)
        init = Var(self._fresh(f"{create.var.name_hint}_b{i}"), call.type, span)
        self.emit(AssignStmt(init, call, span))
        copy = BlockCopy(web, call.type, lambda name: self._fresh(f"{name}_b{i}"),
                         lambda stmt, args: self._acc_product(stmt, args, sides, i, r, c))
        copy.bind(web.init, init)
        self.emit(*copy.block([root]))
        return copy.use(result)

    def _acc_product(self, stmt: AssignStmt, args: list[Expr], sides: tuple[int, int], i: int, r: int,
                     c: int) -> tuple[list[Stmt], Var]:
        """Block ``i`` of one ``tile.matmul_acc`` into a blocked accumulator (``args`` as copied):
        its statements and result."""
        (bm, bn), span, name = sides, stmt.span, f"{stmt.var.name_hint}_b{i}"
        acc, lhs, rhs, *init = args
        k, p, dtype = _whole_mat(lhs)[1], self.platform, lhs.type.dtype
        if _nbytes(bm, k, dtype) <= p.capacity[Left] and _nbytes(k, bn, dtype) <= p.capacity[Right]:
            stmts, left, right = self._slabs(lhs, rhs, ConstInt(0, D.INDEX, span), r, c, bm, bn, k, "l0", span)
            call = op_registry.create_op_call("tile.matmul_acc", [acc, left, right, *init], span)
            var = Var(self._fresh(name), call.type, span)
            return [*stmts, AssignStmt(var, call, span)], var
        slab = k_slab(bm, k, bn, dtype, p, self.l0ab_stages)
        if slab is None:
            raise self._too_big(stmt.value, bm, k, bn, False)
        return self._k_loop(name, acc, lhs, rhs, bm, k, bn, slab, span, r, c, init=init[0] if init else None)

    def _store_blocks(self, node: AssignStmt) -> Stmt:
        """The store of a blocked matmul result as one product and store per output block, each
        block stored into the tensor the previous block's store returned."""
        store = node.value
        entry = self.blocked[store.args[0]]
        m, n, bm, bn = entry.m, entry.n, entry.bm, entry.bn
        span, offsets, out = node.span, list(store.args[1].elements), store.args[2]
        window = store.args[3] if len(store.args) > 3 else None
        if window is not None and (_static(list(window.elements)) or [])[-2:] != [m, n]:
            raise self.error(
                f"tile.store of a blocked [{m}, {n}] matmul result stores a window other than the whole result",
                span, "store the whole product, then slice the tensor it was stored into",
            )
        count = (m // bm) * (n // bn)
        for i, (r, c) in enumerate((r, c) for r in range(0, m, bm) for c in range(0, n, bn)):
            tile = entry.block(i, r, c)
            for step in entry.chain:
                op = self.chained[step]
                call = op_registry.create_op_call(op_name(op), [tile, *op.args[1:]], dict(op.kwargs), span)
                tile = Var(self._fresh(f"{step.name_hint}_b{i}"), call.type, span)
                self.emit(AssignStmt(tile, call, span))
            at = MakeTuple([*offsets[:-2], self._index(offsets[-2], r, span), self._index(offsets[-1], c, span)], span)
            args = [tile, at, out]
            if window is not None:
                args.append(MakeTuple([*window.elements[:-2], ConstInt(bm, D.INDEX, span), ConstInt(bn, D.INDEX, span)], span))
            call = op_registry.create_op_call("tile.store", args, dict(store.kwargs), span)
            if i == count - 1:
                return AssignStmt(node.var, call, span)
            out = Var(self._fresh(f"{node.var.name_hint}_b{i}"), call.type, span)
            self.emit(AssignStmt(out, call, span))
        raise AssertionError("unreachable: a blocked matmul has at least two blocks")
