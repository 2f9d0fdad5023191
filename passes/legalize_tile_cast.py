"""LegalizeTileCast: a ``tile.cast`` between dtypes the vector unit cannot convert directly becomes
the shortest chain of conversions it can (docs/passes.md#legalizetilecast).

The native pairs are the platform's (``Platform.native_casts``, from pto-isa's TCVT); the chain is
``Platform.cast_chain``. The pass establishes TileCastsNative, which ``placed`` guarantees.
"""

from __future__ import annotations

from pypto.analysis import op_name
from pypto.languages.invariants import TileCastsNative
from pypto.languages.tiled import tiled

from pypto.ir import op_registry
from pypto.ir.enums import is_incore_type
from pypto.ir.expr import Call, Var
from pypto.ir.function import Function
from pypto.ir.stmt import AssignStmt
from pypto.ir.types import TileType

from pypto.transform.context import PassContext
from pypto.transform.rewrite import Result, RewritePass, on
from pypto.transform.util import calls_any, rebuild


class LegalizeTileCast(RewritePass):
    """Split every non-native ``tile.cast`` into native steps, each with the cast's rounding mode.

    before:  y: pl.Tile[[16, 64], pl.INT8] = pl.tile.cast(x, target_type=pl.INT8, mode='round')   # x: FP32
    after:   y_fp16: pl.Tile[[16, 64], pl.FP16] = pl.tile.cast(x, target_type=pl.FP16, mode='round')
             y: pl.Tile[[16, 64], pl.INT8] = pl.tile.cast(y_fp16, target_type=pl.INT8, mode='round')

    The native pairs are the pass context platform's (``Platform.native_casts``); a pair no chain
    connects is a PassError.
    """

    source = tiled
    produces = frozenset({TileCastsNative})

    def applies(self, func: Function) -> bool:
        return is_incore_type(func.func_type) and calls_any(func, ("tile.cast",))

    def function(self, func: Function) -> Function:
        self.platform = PassContext.current().platform
        return super().function(func)

    @on(AssignStmt)
    def _assign(self, node: AssignStmt) -> Result:
        call = node.value
        if not (isinstance(call, Call) and op_name(call) == "tile.cast" and isinstance(call.args[0].type, TileType)):
            return self.children(node)
        src, dst = call.args[0].type.dtype, call.kwargs["target_type"]
        chain = self.platform.cast_chain(src, dst)
        if chain is None:
            raise self.error(
                f"no chain of native conversions casts a {src.name} tile to {dst.name} on {self.platform.name} "
                f"(hint: cast through a dtype both convert to; the native pairs are Platform.native_casts)",
                call.span,
            )
        if len(chain) == 1:
            return self.children(node)
        value = self.expr(call.args[0])
        for step in chain[:-1]:
            kwargs = {**call.kwargs, "target_type": step}
            cast = op_registry.create_op_call("tile.cast", [value], kwargs, call.span)
            base = f"{node.var.name_hint}_{step.name.lower()}"
            value = Var(self.names.name(base, lambda n: base if n == 0 else f"{base}_{n}"), cast.type, call.span)
            self.emit(AssignStmt(value, cast, node.span))
        last = op_registry.create_op_call("tile.cast", [value], dict(call.kwargs), call.span)
        return rebuild(node, var=self.define(node.var), value=last)
