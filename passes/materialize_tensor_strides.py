"""MaterializeTensorStrides: tensor views get explicit packed strides; the program enters
split_core (docs/passes.md#materializetensorstrides)."""

from __future__ import annotations

from pypto.analysis import function_index
from pypto.languages.invariants import (
    PipelineResolved,
    TensorViewCanonical,
)
from pypto.languages.split_core import split_core
from pypto.languages.placed import placed

from pypto.ir.datatype import DataType
from pypto.ir.enums import ForKind, TensorLayout
from pypto.ir.expr import ConstInt, Expr, Mul
from pypto.ir.function import Function, Program
from pypto.ir.node import replace
from pypto.ir.stmt import ForStmt
from pypto.ir.types import TensorType, TensorView

from pypto.transform.rewrite import RewritePass, on
from pypto.transform.util import mentions_type



def _times(a: Expr, b: Expr) -> Expr:
    if isinstance(a, ConstInt) and isinstance(b, ConstInt):
        return ConstInt(a.value * b.value, DataType.INDEX)
    return Mul(a, b, DataType.INDEX)


def _unstrided(t: object) -> bool:
    return isinstance(t, TensorType) and t.tensor_view is not None and not t.tensor_view.stride


def packed_strides(shape: list[Expr], layout: TensorLayout) -> list[Expr]:
    """Row-major strides of ``shape``; DN swaps the last two (``stride[-2] = 1, stride[-1] = shape[-2]``)."""
    strides: list[Expr] = [ConstInt(1, DataType.INDEX)] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = _times(strides[i + 1], shape[i + 1])
    if layout is TensorLayout.DN and len(shape) >= 2:
        strides[-2], strides[-1] = ConstInt(1, DataType.INDEX), shape[-2]
    return strides


class MaterializeTensorStrides(RewritePass):
    """Fill every tensor view without strides with its packed canonical strides.

    before:  x: pl.Tensor[[64, 32], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)]
    after:   x: pl.Tensor[[64, 32], pl.FP32, pl.TensorView(stride=[1, 64], layout=pl.TensorLayout.DN)]

    The pass enters split_core. Pipeline loops would have been lowered by passes 27-30, which do
    not exist yet: a ``pl.pipeline`` loop is an error here, which is how the pass establishes
    PipelineResolved.
    """

    source = placed
    target = split_core
    types = True
    produces = frozenset({TensorViewCanonical, PipelineResolved})

    def run(self, program: Program) -> Program:
        for func in program.functions.values():
            for loop in function_index(func).of(ForStmt):
                if loop.kind is ForKind.Pipeline:
                    raise self.error(
                        f"pl.pipeline loop in '{func.name}': software pipelining is not implemented yet "
                        "(write the loop with pl.range)",
                        loop.span,
                    )
        return super().run(program)

    def applies(self, func: Function) -> bool:
        return mentions_type(func, _unstrided)

    @on(TensorType)
    def _tensor(self, t: TensorType) -> TensorType:
        view = t.tensor_view
        if not _unstrided(t):
            return t
        strides = packed_strides(list(t.shape), view.layout)
        filled = TensorView(stride=strides, layout=view.layout, valid_shape=view.valid_shape, pad=view.pad)
        return replace(t, tensor_view=filled)
