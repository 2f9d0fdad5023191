"""AutoTileMatmulL0: a matmul on Mat (L1) operands too big for L0A/L0B becomes a loop over K slabs
(docs/passes.md#autotilematmull0).

Each slab is cut out of the Mat operands by ``tile.extract`` straight into Left/Right; the first slab
is multiplied by ``tile.matmul``, the others are added to the accumulator by ``tile.matmul_acc``
carried through the loop. A matmul that fits, or whose operands are already in Left/Right, is left
as it is (the same objects); InferTileMemorySpace then moves fitting Mat operands into L0.
"""

from __future__ import annotations

from pypto.analysis import op_name
from pypto.languages.invariants import NormalizedStmtStructure, SplitIncoreOrch, SSAForm
from pypto.languages.outlined import outlined

from pypto.backend import BackendType, Platform
from pypto.ir import op_registry
from pypto.ir.datatype import DataType
from pypto.ir.enums import MemorySpace, is_incore_type
from pypto.ir.expr import Call, ConstInt, Expr, IterArg, MakeTuple, Mul, Var
from pypto.ir.function import Function
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, ForStmt, Stmt, YieldStmt
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TileType

from .context import PassContext
from .memref_util import tile_nbytes
from .rewrite import Result, RewritePass, on
from .util import block_of

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
# A slab takes at most 1/_STAGES of L0A/L0B, so the next slab's extract has room beside it.
_STAGES = 2


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


def k_slab(m: int, k: int, n: int, dtype: DataType, platform: Platform) -> int | None:
    """The largest proper divisor of ``k`` (a whole number of fractal rows) whose ``[m, slab]`` and
    ``[slab, n]`` slabs each fit in 1/_STAGES of L0A and L0B; None when there is none."""
    bits = dtype.get_bit()
    granule = max(1, _FRACTAL_BYTES * 8 // bits)
    for parts in range(2, k // granule + 1):
        slab = k // parts
        if k % parts or slab % granule:
            continue
        if m * slab * bits // 8 <= platform.capacity[Left] // _STAGES and slab * n * bits // 8 <= platform.capacity[Right] // _STAGES:
            return slab
    return None


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

    A matmul splits when an operand exceeds its L0 buffer (capacities of the pass context's
    platform); the slab is the largest divisor of K whose slabs fit in half of L0A and of L0B. A
    ``tile.matmul_acc`` (without ``init_cond``) splits the same way, every slab accumulating. Operands
    must be whole static 2-D Mat tiles; a matmul whose result is too big for L0C, or whose K cannot
    be split small enough, is an error naming the sizes. Every cube op of a kernel must have operand
    dtypes the cube unit multiplies (FP16, BF16, FP32, INT8; FP8 and HF8 on a5).
    """

    source = outlined
    requires = frozenset({SSAForm, SplitIncoreOrch, NormalizedStmtStructure})
    produces = requires

    def applies(self, func: Function) -> bool:
        return is_incore_type(func.func_type)

    def function(self, func: Function) -> Function:
        self.platform = PassContext.current().platform
        return super().function(func)

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        new = self.children(node)
        call = new.value
        if not isinstance(call, Call) or op_name(call) not in _CUBE_OPS:
            return new
        self._check_dtype(call)
        name = op_name(call)
        if name == "tile.matmul":
            acc, (lhs, rhs) = None, call.args
        elif name == "tile.matmul_acc" and len(call.args) == 3:
            acc, lhs, rhs = call.args
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
        slab = k_slab(m, k, n, lhs.type.dtype, p)
        if too_big_result or slab is None:
            raise self._too_big(call, m, k, n, too_big_result)
        return self._k_loop(new, acc, lhs, rhs, m, k, n, slab)

    def _check_dtype(self, call: Call) -> None:
        dtypes = CUBE_DTYPES.get(self.platform.backend_type, _A2A3_CUBE)
        lhs = call.args[1] if op_name(call) in ("tile.matmul_acc", "tile.batch_matmul_acc") else call.args[0]
        dtype = lhs.type.dtype
        if dtype not in dtypes:
            listed = ", ".join(sorted(d.name for d in dtypes))
            raise self.error(
                f"{op_name(call)} on {dtype.name} operands has no cube form on {self.platform.name} "
                f"(the cube unit multiplies {listed})\n  hint: cast the operands first, e.g. "
                f"'pl.cast(x, target_type=pl.FP16)', or compute the product with vector ops",
                call.span,
            )

    def _too_big(self, call: Call, m: int, k: int, n: int, result: bool) -> Exception:
        p = self.platform
        if result:
            what = f"its [{m}, {n}] result exceeds L0C ({p.capacity[Acc]} bytes on {p.name})"
        else:
            what = f"K={k} has no slab of whole 32-byte fractal rows small enough for L0A/L0B on {p.name}"
        return self.error(
            f"{op_name(call)} of [{m}, {k}] x [{k}, {n}] does not fit in L0: {what}\n"
            f"  hint: split M or N in the program (a loop over row or column blocks of the output)",
            call.span,
        )

    def _fresh(self, base: str) -> str:
        return self.names.name(base, lambda i: base if i == 0 else f"{base}_{i}")

    def _slabs(self, lhs: Var, rhs: Var, offset: Expr, m: int, n: int, slab: int, suffix: str,
               span: Span) -> tuple[list[Stmt], Var, Var]:
        """The extracts of one K slab of each operand into Left and Right, and the two slabs."""
        zero = ConstInt(0, D.INDEX, span)
        stmts: list[Stmt] = []
        for src, row, col, shape, space in ((lhs, zero, offset, [m, slab], Left), (rhs, offset, zero, [slab, n], Right)):
            dims = MakeTuple([ConstInt(d, D.INDEX, span) for d in shape], span)
            call = op_registry.create_op_call("tile.extract", [src, row, col, dims], {"target_memory": space}, span)
            stmts.append(AssignStmt(Var(self._fresh(f"{src.name_hint}_{suffix}"), call.type, span), call, span))
        return stmts, stmts[0].var, stmts[1].var

    def _k_loop(self, node: AssignStmt, acc: Expr | None, lhs: Var, rhs: Var, m: int, k: int, n: int, slab: int) -> Stmt:
        """``node``'s matmul as a loop over the K slabs (the first one before it when there is no acc)."""
        span, base = node.span, node.var.name_hint
        start = 0
        if acc is None:
            stmts, left, right = self._slabs(lhs, rhs, ConstInt(0, D.INDEX, span), m, n, slab, "k0", span)
            call = op_registry.create_op_call("tile.matmul", [left, right], span)
            acc = Var(self._fresh(f"{base}_k0"), call.type, span)
            self.emit(*stmts, AssignStmt(acc, call, span))
            start = 1
        ko = Var(self._fresh("ko"), ScalarType(D.INDEX), span)
        carry = IterArg(self._fresh(f"{base}_acc"), acc.type, acc, span)
        offset = Mul(ko, ConstInt(slab, D.INDEX, span), D.INDEX, span)
        body, left, right = self._slabs(lhs, rhs, offset, m, n, slab, "k", span)
        call = op_registry.create_op_call("tile.matmul_acc", [carry, left, right], span)
        step = Var(self._fresh(f"{base}_next"), call.type, span)
        body += [AssignStmt(step, call, span), YieldStmt([step], span)]
        bounds = [ConstInt(v, D.INDEX, span) for v in (start, k // slab, 1)]
        return ForStmt(ko, *bounds, [carry], block_of(body, span), [node.var], span)
