"""CanonicalizeTileSlice: a ``tile.slice`` that cannot be a zero-copy subview becomes a
``tile.extract`` (docs/passes.md#canonicalizetileslice).

A subview (pto-isa TSUBVIEW) stays in its source's buffer: same memory space, same layout. A slice
of a Mat tile that only feeds cube operands (Left / Right, as the op registry's input constraints
say) cannot be one: the cube reads L0, so the window has to be copied there, which is what
TEXTRACT does (Mat -> Left/Right on a2a3, docs/isa/TEXTRACT.md). Slices on the vector side, and
slices with a narrowed valid region, dropped axes or a pad value, stay subviews.
"""

from __future__ import annotations

from pypto.languages.invariants import IncoreTileOps, NormalizedStmtStructure, SplitIncoreOrch, SSAForm, TileOps2D
from pypto.languages.outlined import outlined

from pypto.analysis import op_name
from pypto.analysis.memory_spaces import call_statements, operand_spaces
from pypto.ir import op_registry
from pypto.ir.enums import MemorySpace, is_incore_type
from pypto.ir.expr import Call, MakeTuple, Var
from pypto.ir.function import Function
from pypto.ir.stmt import AssignStmt
from pypto.ir.transforms import flatten_to_stmts
from pypto.ir.types import TileType

from .rewrite import Result, RewritePass, on
from .util import calls_any, rebuild

_CUBE_INPUTS = (MemorySpace.Left, MemorySpace.Right)


def cube_operands(func: Function) -> dict[Var, MemorySpace]:
    """Variables whose every use is a cube operand constrained to one L0 space, with that space."""
    wanted: dict[Var, set[MemorySpace | None]] = {}
    for _, call in call_statements(flatten_to_stmts(func.body)):
        bound = {id(a): allowed for a, allowed in operand_spaces(call)}
        for arg in call.args:
            if isinstance(arg, Var):
                allowed = bound.get(id(arg)) or []
                first = allowed[0] if allowed and allowed[0] in _CUBE_INPUTS else None
                wanted.setdefault(arg, set()).add(first)
    return {v: next(iter(s)) for v, s in wanted.items() if len(s) == 1 and None not in s}


class CanonicalizeTileSlice(RewritePass):
    """Turn slices of Mat tiles that feed only cube operands into extracts into Left / Right.

    before:  a_k: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.slice(a, [64, 64], [0, k])
             c = pl.tile.matmul(a_k, b_k)
    after:   a_k: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.extract(a, 0, k, [64, 64],
                                                                          target_memory=pl.Mem.Left)
             c = pl.tile.matmul(a_k, b_k)
    """

    source = outlined
    requires = frozenset({SSAForm, SplitIncoreOrch, IncoreTileOps, TileOps2D, NormalizedStmtStructure})
    produces = requires

    def applies(self, func: Function) -> bool:
        return is_incore_type(func.func_type) and calls_any(func, ("tile.slice",))

    def function(self, func: Function) -> Function:
        self.cube = cube_operands(func)
        return super().function(func)

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        call = node.value
        target = self.cube.get(node.var)
        if not (isinstance(call, Call) and op_name(call) == "tile.slice" and target is not None):
            return self.children(node)
        src = call.args[0].type
        shape, offset = call.args[1], call.args[2]
        plain = len(call.args) == 3 or (isinstance(call.args[3], MakeTuple) and not call.args[3].elements)
        if not (
            isinstance(src, TileType)
            and src.memory_space is MemorySpace.Mat
            and len(src.shape) == 2
            and isinstance(shape, MakeTuple)
            and isinstance(offset, MakeTuple)
            and len(call.args) <= 4
            and plain
            and "pad_value" not in call.kwargs
        ):
            return self.children(node)
        row, col = self.expr(list(offset.elements))
        extract = op_registry.create_op_call(
            "tile.extract", [self.expr(call.args[0]), row, col, shape], {"target_memory": target}, call.span
        )
        var = Var(node.var.name_hint, extract.type, node.var.span)
        self.bind(node.var, var)
        return rebuild(node, var=var, value=extract)
