"""InjectGMPipeBuffer: the global-memory ring of a2a3's cross-core pipes (docs/passes.md#injectgmpipebuffer).

On a2a3 a pipe's slots live in global memory: the producer writes each tile into a slot there and
the consumer reads it back into the local_slot_num slots it reserves on chip (the ``reserve_buffer``
ExpandMixedKernel sizes with ``Platform.pipe_buffer_slots``). Each kernel that initialises a pipe
takes the ring as a last parameter ``__gm_pipe_buffer`` (an ``Out`` FP32 tensor); the Groups and
Spmd wrappers launching it forward theirs, and an orchestration caller allocates one with
``tensor.create`` before the call. One ring holds, per pipe id, ``slot_num * slot_size`` bytes per
direction; an SPMD launch gets one ring per block (``core_num`` rings, a run-time count too), each
kernel using the ``block_idx``-th (docs/codegen.md#groups). A platform whose rings are on chip (a5)
is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto.analysis import function_index, op_name
from pypto.languages.invariants import GMPipeRingPassed, MixedKernelExpanded
from pypto.languages.placed import placed

from pypto.ir import op_registry
from pypto.ir.datatype import DataType
from pypto.ir.enums import FunctionType, ParamDirection
from pypto.ir.expr import Call, ConstInt, Expr, GlobalVar, MakeTuple, Mul, Submit, Var
from pypto.ir.function import Function, Program
from pypto.ir.node import replace
from pypto.ir.ops.cross_core_ops import GM_PIPE_BUFFER, PIPE_SETUPS, gm_ring_layout
from pypto.ir.stmt import AssignStmt
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TensorType

from pypto.transform.base import ProgramPass
from pypto.transform.context import PassContext
from pypto.transform.rewrite import Rewrite, on
from pypto.transform.util import rebuild

_WRAPPERS = (FunctionType.Group, FunctionType.Spmd)


def ring_bytes(func: Function) -> int:
    """The bytes of the GM ring a kernel's pipes use (cross_core_ops.gm_ring_layout)."""
    index = function_index(func)
    if index.op_names.isdisjoint(PIPE_SETUPS):
        return 0  # no pipe (most kernels)
    layout = gm_ring_layout([c for c in index.of(Call) if op_name(c) in PIPE_SETUPS])
    return sum(size for _, size in layout.values())


def _blocks(call: Call | Submit, callee: Function) -> Expr | int:
    """The blocks a call launches: 1 without SPMD, else its (or its Spmd wrapper's) ``core_num``."""
    launch = call.core_num if isinstance(call, Submit) else call.attrs.get("core_num")
    if launch is None:
        launch = callee.attrs.get("core_num")
    return 1 if launch is None else launch.value if isinstance(launch, ConstInt) else launch


class _Callers(Rewrite):
    """Calls of functions that gained the ring pass one: a wrapper its own parameter, an orchestration
    a tensor it creates just before the call."""

    def __init__(self, rings: dict[str, _Ring], own: Var | None) -> None:
        self.rings, self.own = rings, own

    @on(Call, Submit)
    def _call(self, node: Call | Submit) -> Expr:
        name = node.op.name if isinstance(node.op, GlobalVar) else None
        if name not in self.rings:
            return node
        if self.own is not None:
            return rebuild(node, args=[*node.args, self.own])
        assert self.program is not None
        ring = self.rings[name]
        one = ConstInt(ring.elems, DataType.INDEX, node.span)
        blocks = _blocks(node, self.program.get_function(name))
        # As many rings as the parameter takes, or as the launch's run-time count of blocks.
        elems: Expr = (ConstInt(ring.elems * ring.blocks, DataType.INDEX, node.span) if ring.blocks is not None
                       else Mul(one, blocks, DataType.INDEX, node.span) if not isinstance(blocks, int)
                       else ConstInt(ring.elems * blocks, DataType.INDEX, node.span))
        var = Var(self.names.name("gm_ring", lambda n: f"{name}_gm_pipe_buffer_{n}"),
                  TensorType([elems], DataType.FP32), node.span)
        create = op_registry.create_op_call("tensor.create", [MakeTuple([elems], node.span)], {"dtype": DataType.FP32},
                                            node.span)
        self.emit(AssignStmt(var, create, node.span))
        return rebuild(node, args=[*node.args, var])


@dataclass
class _Ring:
    """A function's GM ring: FP32 elements per block, and the blocks (None: known at run time)."""

    elems: int
    blocks: int | None


class InjectGMPipeBuffer(ProgramPass):
    """Give each kernel with a cross-core pipe, and each wrapper launching one, the a2a3 GM ring.

    before:  def k_aiv(self, a, out):            after:  def k_aiv(self, a, out, __gm_pipe_buffer: Out[[N], FP32]):
                 pl.aiv_initialize_pipe(...)                 pl.aiv_initialize_pipe(...)
             def k(self, a, out):  (Group)               def k(self, a, out, __gm_pipe_buffer):
                 self.k_aic(a, out)                          self.k_aic(a, out, __gm_pipe_buffer)
                 self.k_aiv(a, out)                          self.k_aiv(a, out, __gm_pipe_buffer)
             out = self.k(a, out)  (Orchestration)       ring = pl.create_tensor([N], dtype=pl.FP32)
                                                         out = self.k(a, out, ring)

    ``N`` is the largest ring of the Group's kernels (:func:`ring_bytes`) in FP32 elements, times the
    blocks of an SPMD launch; launched on a run-time number of blocks, the parameter's extent is a
    symbol and the orchestration allocates that many rings.
    """

    source = placed
    requires = frozenset({MixedKernelExpanded})
    produces = frozenset({GMPipeRingPassed})

    def run(self, program: Program) -> Program:
        if not PassContext.current().platform.pipe_ring_in_gm:
            return program
        sizes = {f.name: ring_bytes(f) for f in program.functions.values()
                 if f.func_type in (FunctionType.AIC, FunctionType.AIV)
                 and not any(p.name_hint == GM_PIPE_BUFFER for p in f.params)}
        sizes = {name: size for name, size in sizes.items() if size}
        if not sizes:
            return program
        blocks: dict[str, int | None] = {}
        for func in program.functions.values():  # the launches from outside the kernels and wrappers
            if func.func_type in (*_WRAPPERS, FunctionType.AIC, FunctionType.AIV):
                continue
            index = function_index(func)
            for node in [*index.of(Call), *index.of(Submit)]:
                callee = program.get_function(node.op.name) if isinstance(node.op, GlobalVar) else None
                if callee is not None:
                    n = _blocks(node, callee)
                    old = blocks.get(callee.name, 1)
                    blocks[callee.name] = max(old, n) if isinstance(n, int) and old is not None else None
        # A wrapper and the kernels it launches share one ring: the largest, for the most blocks.
        changed = True
        while changed:
            changed = False
            for func in program.functions.values():
                if func.func_type not in _WRAPPERS:
                    continue
                group = [func.name] + [c.op.name for c in function_index(func).of(Call)
                                       if isinstance(c.op, GlobalVar) and c.op.name in sizes]
                top = max(sizes.get(n, 0) for n in group)
                counts = [blocks.get(n, 1) for n in group]
                most = None if None in counts else max(counts)
                for n in group:
                    if top and (sizes.get(n), blocks.get(n, 1)) != (top, most):
                        sizes[n], blocks[n] = top, most
                        changed = True
        rings = {name: _Ring(size // 4, blocks.get(name, 1)) for name, size in sizes.items()}
        return Program([self._inject(f, program, rings) for f in program.functions.values()], program.name,
                       program.span)

    def _inject(self, func: Function, program: Program, rings: dict[str, _Ring]) -> Function:
        if func.name not in rings and func.func_type in (*_WRAPPERS, FunctionType.AIC, FunctionType.AIV):
            return func
        calls = any(isinstance(c.op, GlobalVar) and c.op.name in rings for c in function_index(func).of(Call, Submit))
        own = None
        if func.name in rings:
            ring = rings[func.name]
            extent: Expr = (ConstInt(ring.elems * ring.blocks, DataType.INDEX, func.span) if ring.blocks is not None
                            else Var(f"{GM_PIPE_BUFFER}_elems", ScalarType(DataType.INDEX), func.span))
            own = Var(GM_PIPE_BUFFER, TensorType([extent], DataType.FP32), func.span)
            func = replace(func, params=[*func.params, own],
                           param_directions=[*func.param_directions, ParamDirection.Out])
        if not calls:
            return func  # no call to pass a ring to (a kernel, most often)
        callers = _Callers(rings, own)
        callers.start(func, program)
        return callers.function(func)
