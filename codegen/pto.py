"""PTO-ISA MLIR (``.pto``) from the ``runtime`` dialect (docs/codegen.md#pto): one module per kernel.

Every AIC/AIV function prints as one ``func.func`` in its own module; the orchestration is the
business of the orchestration emitter. The translation is one-to-one: addresses come from the
MemRefs, tile and tensor carries from memory planning (they never appear in ``scf`` signatures),
intra-core synchronisation from the assembler (calls marked ``auto_sync`` are for the C++ kernels
and print nothing here)::

    generate_pto(program, platform)      # {"add_kernel": 'module attributes {pto.target_arch = "a2a3"} {...'}

    # ta: Tile[[64, 64], FP32, MemRef(mem_vec_0, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64])
    %ta = pto.alloc_tile addr = %c0_i64 valid_row = %c64_index valid_col = %c64_index : !pto.tile_buf<...>
    %a_pview = pto.partition_view %a_view, offsets = [%c0_index, %c0_index], sizes = [...] : ... -> ...
    pto.tload ins(%a_pview : !pto.partition_tensor_view<64x64xf32>) outs(%ta : !pto.tile_buf<...>)

Op spellings come from the op table (``pto_ops``): the emitter has one rule per spelling form.
Statements of ops end with `` loc("file.py":line:col)`` unless ``PYPTO_EMIT_PTO_LOC=0``.
"""

from __future__ import annotations

import os
from math import prod
from typing import Any

from pypto.analysis.callgraph import function_named
from pypto.backend import Platform, current_platform
from pypto.ir.datatype import DataType
from pypto.ir.enums import FunctionType
from pypto.ir.expr import (
    Abs, Add, And, BinaryExpr, BitAnd, BitNot, BitOr, BitShiftLeft, BitShiftRight, BitXor, Call, Cast, ConstBool,
    ConstFloat, ConstInt, Eq, Expr, FloatDiv, FloorDiv, FloorMod, Ge, Gt, Le, Lt, MakeTuple, Max, Min, Mul, Ne,
    Neg, Not, Or, Pow, Sub, UnaryExpr, Var, Xor,
)
from pypto.ir.function import Function, Program
from pypto.ir.ops.cross_core_ops import GM_PIPE_BUFFER, gm_ring_layout
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, ReturnStmt, SeqStmts, WhileStmt, YieldStmt
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TensorType, TileType, effective_valid_shape, element_strides

from .base import Emitter, Rules
from .doc import Doc
from .errors import no_rule
from .groups import group_members, pipe_setups
from .op_table import Accumulate, argument, bound_parameters, is_parameter, keyword, pipe_name
from .pto_ops import (
    Assemble, Buffer, CrossCore, Dps, Fixed, Flag, Operands, Reshape, Result, ScalarAccess, SetValidShape, SpmdIndex,
    Subview, Sync, SyncAll, TileElement, Transfer,
)
from .pto_state import ADDRESSES, VIEWS, FunctionState
from .pto_types import LAYOUTS, mlir_dtype, partition_view, physical_dims, signless, static_dim, tensor_view, tile_buf
from .target import PTO

_KERNEL_KINDS = {FunctionType.AIC: "cube", FunctionType.AIV: "vector"}
# Hidden SPMD identity parameters, in signature order; block_idx and block_num come as a pair.
_SPMD_PARAMS = ("__pypto_spmd_block_idx", "__pypto_spmd_block_num", "__pypto_spmd_subblock_idx")

# Scalar arithmetic (§1.7): signed, unsigned and float spellings.
_INT_OPS: dict[type, str] = {
    Add: "addi", Sub: "subi", Mul: "muli", FloorDiv: "divsi", FloorMod: "remsi", Min: "minsi", Max: "maxsi",
    BitAnd: "andi", BitOr: "ori", BitXor: "xori", BitShiftLeft: "shli", BitShiftRight: "shrsi",
    And: "andi", Or: "ori", Xor: "xori",
}
_UNSIGNED = {"divsi": "divui", "remsi": "remui", "minsi": "minui", "maxsi": "maxui", "shrsi": "shrui"}
_FLOAT_OPS: dict[type, str] = {
    Add: "addf", Sub: "subf", Mul: "mulf", FloatDiv: "divf", FloorMod: "remf", Min: "minimumf", Max: "maximumf",
}
_COMPARE: dict[type, tuple[str, str, str]] = {  # signed, unsigned, float predicate
    Eq: ("eq", "eq", "oeq"), Ne: ("ne", "ne", "one"), Lt: ("slt", "ult", "olt"), Le: ("sle", "ule", "ole"),
    Gt: ("sgt", "ugt", "ogt"), Ge: ("sge", "uge", "oge"),
}

# The scalar operand types op rules name (``Dps.scalar_type``).
_SCALAR_TYPES = {"i32": DataType.INT32, "index": DataType.INDEX}


def _locations_default() -> bool:
    return os.environ.get("PYPTO_EMIT_PTO_LOC", "1") != "0"


def scalar_dtype(expr: Expr) -> DataType | None:
    """The element type of a scalar expression (None when ``expr`` is not a scalar)."""
    if isinstance(expr, (ConstInt, ConstFloat, BinaryExpr, UnaryExpr)):
        return expr.dtype
    if isinstance(expr, ConstBool):
        return DataType.BOOL
    return expr.type.dtype if isinstance(expr.type, ScalarType) else None


def _elements(expr: Expr | None, what: str, span: Span) -> list[Expr]:
    if not isinstance(expr, MakeTuple):
        raise no_rule(f"{what} that is not a literal list", PTO.name, span, "PTO prints window offsets and sizes "
                      "element by element")
    return list(expr.elements)


def _signed(dtype: DataType) -> DataType:
    """The signed twin of an unsigned integer type (UINT32 -> INT32)."""
    return DataType.from_name(dtype.name[1:]) if dtype.is_unsigned_int() else dtype


def _attr_text(key: str, value: object) -> str:
    """A cross-core attribute value: names quoted, the peer a symbol, numbers as they are."""
    if key == "peer_func":
        return f"@{value}"
    return f'"{value}"' if isinstance(value, str) else str(value)


def _same_buffer(a: TileType, b: TileType) -> bool:
    """Both tiles sit at the same address of the same allocation (constant offsets compared by value)."""
    if a.memref is None or b.memref is None or a.memref.base is not b.memref.base:
        return False
    x, y = a.memref.byte_offset, b.memref.byte_offset
    return x is y or (isinstance(x, ConstInt) and isinstance(y, ConstInt) and x.value == y.value)


class PtoEmitter(Emitter):
    """Prints the kernels of a ``runtime`` program as PTO-ISA MLIR modules, one per kernel.

    ``PtoEmitter(platform)(program)`` returns ``{kernel name: module text}``; ``platform`` picks
    the ``pto.target_arch`` string, ``locations`` the trailing ``loc(...)`` of op lines.
    """

    target = PTO
    rules = Rules("pto")

    def __init__(self, platform: Platform, locations: bool | None = None) -> None:
        super().__init__(platform)
        self.locations = _locations_default() if locations is None else locations
        self.fn = FunctionState(self.indent_unit)
        # id of a TileType -> (the type, kept alive so the id stays its own; its tile_buf type): a tile's
        # type is printed at its alloc_tile and at every op that reads or writes it
        self._tile_bufs: dict[int, tuple[TileType, str]] = {}
        # id of a Span -> (the span, kept alive; its loc(...) suffix): a call's lines share its span
        self._locs: dict[int, tuple[Span, str]] = {}

    def _tile_buf(self, tile: TileType, span: Span) -> str:
        """``tile_buf(tile, span)``, made once per tile type."""
        known = self._tile_bufs.get(id(tile))
        if known is None:
            known = self._tile_bufs[id(tile)] = (tile, tile_buf(tile, span))
        return known[1]

    # --- program and function -------------------------------------------------------------------

    @rules.register(Program)
    def _program(self, node: Program) -> dict[str, str]:
        grouped = group_members(node)
        units: dict[str, str] = {}
        for func in node.functions.values():
            if func.func_type is FunctionType.Group:
                members = [m for m, g in grouped.items() if g is func]
                if members:  # one module holds the AIC and AIV kernels of a mixed group
                    units[func.name] = self._module([function_named(node, m) for m in members])
            elif func.func_type in _KERNEL_KINDS and func.name not in grouped:
                units[func.name] = self._module([func])
        return units

    def _module(self, funcs: list[Function]) -> str:
        self.doc = Doc(self.indent_unit)
        with self.doc.block(f'module attributes {{pto.target_arch = "{self.platform.target_arch}"}} {{'):
            for func in funcs:
                self.emit(func)
        return self.doc.render()

    @rules.register(Function)
    def _function(self, node: Function) -> None:
        fn = self.fn = FunctionState(self.indent_unit)
        fn.kind = node.func_type
        setups = pipe_setups(node)
        fn.ring_offsets = {pipe: offset // 4 for pipe, (offset, _) in gm_ring_layout(setups).items()}
        tensors = [p for p in node.params if isinstance(p.type, TensorType)]
        scalars = [p for p in node.params if isinstance(p.type, ScalarType)]
        for p in node.params:
            if not isinstance(p.type, (TensorType, ScalarType)):
                raise no_rule(f"a {type(p.type).__name__} parameter '{p.name_hint}'", PTO.name, p.span,
                              "kernel parameters are tensors (GM pointers) and scalars")
        signature: list[str] = []
        for p in tensors + scalars:
            arg = f"%arg{len(signature)}"
            if isinstance(p.type, TensorType):
                fn.roots[id(p)] = p
                fn.bind(p, fn.fresh(f"{p.name_hint}_view"))
                signature.append(f"{arg}: !pto.ptr<{mlir_dtype(p.type.dtype, p.span)}>")
            else:
                fn.bind(p, arg)
                signature.append(f"{arg}: {mlir_dtype(p.type.dtype, p.span)}")
        fn.pointers = {id(p): f"%arg{k}" for k, p in enumerate(tensors)}
        for p in tensors:  # one index parameter per distinct dynamic dimension symbol
            for dim in p.type.shape:
                if isinstance(dim, Var) and id(dim) not in fn.names:
                    signature.append(f"{fn.bind(dim, f'%arg{len(signature)}')}: index")
        inner = self.doc.depth + 1  # the body's lines are written at their depth in the module
        with self.capture(inner) as body:
            self.emit(node.body)
        fn.group = VIEWS
        with self.capture(inner) as views:
            for p in tensors:
                if id(p) in fn.used_views:
                    self._tensor_view(p, fn.pointers[id(p)])
        signature += [f"%{param}: i32" for param in _SPMD_PARAMS if param in fn.spmd]
        kind = _KERNEL_KINDS[node.func_type]
        head = f"func.func @{node.name}({', '.join(signature)}) attributes {{pto.kernel_kind = #pto.kernel_kind<{kind}>}} {{"
        with self.doc.block(head):
            for line in fn.constant_lines():
                self.doc.line(line)
            self.doc.extend(views)
            self.doc.extend(fn.head)
            self.doc.extend(body)
            if not body.lines or body.lines[-1] != self.indent_unit * inner + "return":
                self.doc.line("return")

    def _tensor_view(self, param: Var, pointer: str) -> None:
        ttype = param.type
        assert isinstance(ttype, TensorType)
        shape = list(ttype.shape)
        view = ttype.tensor_view
        layout = LAYOUTS[view.layout] if view is not None else "nd"
        dims = [self._index(d, param.span) for d in shape]
        if len(shape) == 2 and static_dim(shape[-1]) == 1:  # a column vector is DN
            layout, strides = "dn", [self._index_const(1), self._index(shape[0], param.span)]
        elif view is not None:  # the runtime dialect's tensor views carry their strides (TensorViewCanonical)
            strides = [self._index(e, param.span) for e in view.stride]
        else:
            strides = self._packed(shape, param.span)
        self.doc.line(f"{self.fn.names[id(param)]} = pto.make_tensor_view {pointer}, shape = [{', '.join(dims)}], "
                      f"strides = [{', '.join(strides)}] {{layout = #pto.layout<{layout}>}} : "
                      f"{tensor_view(len(shape), ttype.dtype, param.span)}")

    def _packed(self, shape: list[Expr], span: Span) -> list[str]:
        """Row-major strides of ``shape`` (``[d1, 1]`` for 2-D); outer strides are products of the
        inner dims (folded when static, ``arith.muli`` otherwise)."""
        strides: list[str] = []
        static: int | None = 1
        text = self._index_const(1)
        for dim in reversed(shape[1:]):
            strides.append(text)
            value = static_dim(dim)
            if static is not None and value is not None:
                static *= value
                text = self._index_const(static)
            elif static == 1:  # the first dynamic factor is the stride itself
                static, text = None, self._index(dim, span)
            else:
                static = None
                text = self._line_value(f"arith.muli {text}, {self._index(dim, span)} : index", span)
        strides.append(text)
        return list(reversed(strides))

    # --- statements -----------------------------------------------------------------------------

    @rules.register(SeqStmts)
    def _seq(self, node: SeqStmts) -> None:
        self.emit_all(node.stmts)

    @rules.register(AssignStmt)
    def _assign(self, node: AssignStmt) -> None:
        var, value = node.var, node.value
        if isinstance(value, Call):
            self._call_stmt(value, var)
        elif isinstance(value, Var):  # a copy names the same buffer, view or value
            self._alias(var, value)
        else:
            self.fn.bind(var, self.emit(value))

    @rules.register(EvalStmt)
    def _eval(self, node: EvalStmt) -> None:
        if isinstance(node.expr, Call):
            self._call_stmt(node.expr, None)
        else:
            self.emit(node.expr)

    def _call_stmt(self, call: Call, var: Var | None) -> None:
        if getattr(call.attrs, "auto_sync", None) is True:  # InsertPipeSync's, for the C++ kernels only
            return
        self.fn.target = var
        try:
            result = self.op_call(call)  # the rule emit would pick (Call has no subclasses)
        finally:
            self.fn.target = None
        if var is not None and id(var) not in self.fn.names and isinstance(result, str):
            self.fn.bind(var, result)

    def _alias(self, var: Var, source: Expr) -> None:
        fn = self.fn
        if id(source) in fn.roots:
            fn.roots[id(var)] = fn.roots[id(source)]
        fn.bind(var, self._name(source))

    @rules.register(ReturnStmt)
    def _return(self, node: ReturnStmt) -> None:
        # Kernel results are written through their Out tensors: the return carries no operands.
        self.doc.line("return")

    @rules.register(YieldStmt)
    def _yield(self, node: YieldStmt) -> None:
        # Only scalar carries are scf values; tiles are buffers bound to their init's (kernels carry no tensors).
        values = [v for v in node.value if scalar_dtype(v) is not None]
        if values:
            names = [self.emit(v) for v in values]
            types = [self._scalar_type(v) for v in values]
            self._line(f"scf.yield {', '.join(names)} : {', '.join(types)}", node.span)

    @rules.register(ForStmt)
    def _for(self, node: ForStmt) -> None:
        fn = self.fn
        step = static_dim(node.step)
        if step is not None and step <= 0:
            raise no_rule(f"a loop with step {step}", PTO.name, node.span,
                          "device loops ascend: rewrite the loop with a positive step")
        lb, ub, st = (self._index(e, node.span) for e in (node.start, node.stop, node.step))
        inits: list[str] = []
        types: list[str] = []
        scalar_rvs: list[Var] = []
        for ia, rv in zip(node.iter_args, node.return_vars):
            if isinstance(ia.type, ScalarType):
                init = self._scalar(ia.init_value, ia.type.dtype, node.span)
                inits.append(f"{fn.bind(ia, fn.fresh(ia.name_hint))} = {init}")
                types.append(mlir_dtype(ia.type.dtype, node.span))
                scalar_rvs.append(rv)
            else:
                self._alias(ia, ia.init_value)
                self._alias(rv, ia.init_value)
        loop = f"scf.for {fn.bind(node.loop_var, fn.fresh(node.loop_var.name_hint))} = {lb} to {ub} step {st}"
        if inits:
            loop = f"{self._results(scalar_rvs)} = {loop} iter_args({', '.join(inits)}) -> ({', '.join(types)})"
        with self.doc.block(loop + " {"):
            self.emit(node.body)

    def _results(self, rvs: list[Var]) -> str:
        """The result name(s) of an ``scf`` op: ``%r``, or ``%r:2`` read as ``%r#0``, ``%r#1``."""
        name = self.fn.fresh(rvs[0].name_hint)
        if len(rvs) == 1:
            return self.fn.bind(rvs[0], name)
        for k, rv in enumerate(rvs):
            self.fn.bind(rv, f"{name}#{k}")
        return f"{name}:{len(rvs)}"

    @rules.register(IfStmt)
    def _if(self, node: IfStmt) -> None:
        fn = self.fn
        cond = self._scalar(node.condition, DataType.BOOL, node.span)
        scalar_rvs = [rv for rv in node.return_vars if isinstance(rv.type, ScalarType)]
        for rv in node.return_vars:
            if isinstance(rv.type, TileType):  # one handle for both branches, declared at the head
                saved, self.doc = self.doc, fn.head
                try:
                    self._alloc(rv, node.span)
                finally:
                    self.doc = saved
        head = f"scf.if {cond}"
        if scalar_rvs:
            types = ", ".join(mlir_dtype(rv.type.dtype, node.span) for rv in scalar_rvs)
            head = f"{self._results(scalar_rvs)} = {head} -> ({types})"
        self.doc.line(head + " {")
        with self.doc.indent():
            self.emit(node.then_body)
        if node.else_body is not None:
            self.doc.line("} else {")
            with self.doc.indent():
                self.emit(node.else_body)
        self.doc.line("}")

    @rules.register(WhileStmt)
    def _while(self, node: WhileStmt) -> None:
        fn = self.fn
        before: list[str] = []
        types: list[str] = []
        inits: list[str] = []
        scalar_rvs: list[Var] = []
        for ia, rv in zip(node.iter_args, node.return_vars):
            if isinstance(ia.type, ScalarType):
                inits.append(self._scalar(ia.init_value, ia.type.dtype, node.span))
                types.append(mlir_dtype(ia.type.dtype, node.span))
                before.append(fn.bind(ia, fn.fresh(ia.name_hint)))
                scalar_rvs.append(rv)
            else:
                self._alias(ia, ia.init_value)
                self._alias(rv, ia.init_value)
        signature = f"({', '.join(types)}) -> ({', '.join(types)})"
        if scalar_rvs:
            carried = ", ".join(f"{b} = {i}" for b, i in zip(before, inits))
            head = f"{self._results(scalar_rvs)} = scf.while ({carried}) : {signature} {{"
        else:
            head = f"scf.while : {signature} {{"
        self.doc.line(head)
        with self.doc.indent():
            cond = self._scalar(node.condition, DataType.BOOL, node.span)
            passed = f" {', '.join(before)} : {', '.join(types)}" if before else ""
            self._line(f"scf.condition({cond}){passed}", node.span)
        self.doc.line("} do {")
        with self.doc.indent():
            scalar_args = [ia for ia in node.iter_args if isinstance(ia.type, ScalarType)]
            after = [fn.bind(ia, fn.fresh(ia.name_hint)) for ia in scalar_args]
            if after:  # the block label sits at the region's own depth
                with self.doc.indent(-1):
                    self.doc.line(f"^bb0({', '.join(f'{a} : {t}' for a, t in zip(after, types))}):")
            self.emit(node.body)
            if not after:  # the do region needs its terminator even without carries
                self._line("scf.yield", node.span)
        self.doc.line("}")

    # --- scalar expressions ---------------------------------------------------------------------

    @rules.register(Var)
    def _var(self, node: Var) -> str:
        return self._name(node)

    @rules.register(ConstInt)
    def _const_int(self, node: ConstInt) -> str:
        return self._int_const(node.value, node.dtype, node.span)

    @rules.register(ConstFloat)
    def _const_float(self, node: ConstFloat) -> str:
        return self.fn.float_constant(f"{node.value:.17e}", mlir_dtype(node.dtype, node.span))

    @rules.register(ConstBool)
    def _const_bool(self, node: ConstBool) -> str:
        return self._bool_const(node.value)

    @rules.register(*_INT_OPS.keys() | _FLOAT_OPS.keys())
    def _arith(self, node: BinaryExpr) -> str:
        dtype = node.dtype
        if dtype.is_float():
            op = _FLOAT_OPS.get(type(node))
        else:
            op = _INT_OPS.get(type(node))
            op = _UNSIGNED.get(op, op) if dtype.is_unsigned_int() and op is not None else op
        if op is None:
            raise no_rule(f"{type(node).__name__} on {dtype.name}", PTO.name, node.span)
        lhs = self._signless(node.left, dtype, node.span)
        rhs = self._signless(node.right, dtype, node.span)
        result = self._line_value(f"arith.{op} {lhs}, {rhs} : {signless(dtype, node.span)}", node.span)
        return self._unsign(result, dtype, node.span)

    @rules.register(*_COMPARE.keys())
    def _compare(self, node: BinaryExpr) -> str:
        dtype = scalar_dtype(node.left)
        assert dtype is not None
        signed, unsigned, ordered = _COMPARE[type(node)]
        if dtype.is_float():
            op, pred = "cmpf", ordered
        else:
            op, pred = "cmpi", unsigned if dtype.is_unsigned_int() else signed
        lhs = self._signless(node.left, dtype, node.span)
        rhs = self._signless(node.right, dtype, node.span)
        return self._line_value(f"arith.{op} {pred}, {lhs}, {rhs} : {signless(dtype, node.span)}", node.span)

    @rules.register(Neg)
    def _neg(self, node: Neg) -> str:
        value = self._signless(node.operand, node.dtype, node.span)
        ty = signless(node.dtype, node.span)
        if node.dtype.is_float():
            return self._line_value(f"arith.negf {value} : {ty}", node.span)
        zero = self._int_const(0, _signed(node.dtype), node.span)
        return self._unsign(self._line_value(f"arith.subi {zero}, {value} : {ty}", node.span), node.dtype, node.span)

    @rules.register(Abs)
    def _abs(self, node: Abs) -> str:
        # max(x, -x), from the arith ops the other scalar rules print.
        value = self._signless(node.operand, node.dtype, node.span)
        ty = signless(node.dtype, node.span)
        if node.dtype.is_unsigned_int():
            return self._scalar(node.operand, node.dtype, node.span)
        if node.dtype.is_float():
            negated = self._line_value(f"arith.negf {value} : {ty}", node.span)
            return self._line_value(f"arith.maximumf {value}, {negated} : {ty}", node.span)
        zero = self._int_const(0, node.dtype, node.span)
        negated = self._line_value(f"arith.subi {zero}, {value} : {ty}", node.span)
        return self._line_value(f"arith.maxsi {value}, {negated} : {ty}", node.span)

    @rules.register(Pow)
    def _pow(self, node: Pow) -> str:
        dtype = node.dtype
        if dtype.is_unsigned_int():
            raise no_rule(f"Pow on {dtype.name}", PTO.name, node.span, "compute the power on a signed integer")
        lhs = self._signless(node.left, dtype, node.span)
        rhs = self._signless(node.right, dtype, node.span)
        op = "math.powf" if dtype.is_float() else "math.ipowi"
        return self._line_value(f"{op} {lhs}, {rhs} : {signless(dtype, node.span)}", node.span)

    @rules.register(Not, BitNot)
    def _not(self, node: Not | BitNot) -> str:
        value = self._signless(node.operand, node.dtype, node.span)
        ones = self._bool_const(True) if node.dtype.is_bool() else self._int_const(-1, _signed(node.dtype), node.span)
        result = self._line_value(f"arith.xori {value}, {ones} : {signless(node.dtype, node.span)}", node.span)
        return self._unsign(result, node.dtype, node.span)

    @rules.register(Cast)
    def _cast_expr(self, node: Cast) -> str:
        return self._scalar(node.operand, node.dtype, node.span)

    # --- op forms -------------------------------------------------------------------------------

    @rules.op(Dps)
    def _dps(self, call: Call, rule: Dps) -> str:
        op = call.op.name
        names = rule.ins if rule.ins is not None else bound_parameters(call)
        dst, dst_type = self._dst(call)  # the buffer first, as for loads; then operand casts
        operands: list[tuple[str, str]] = []
        for name in names:
            if not is_parameter(op, name):  # a keyword printed as a constant operand
                operands.append(self._keyword_operand(call, name, rule.scalar_type))
                continue
            arg = argument(call, name)
            if arg is not None:
                operands.append(self._operand(arg, call.span, rule.scalar_type))
        self._line(f"{rule.mnemonic} ins({self._ins(operands, call, rule.attrs)}) outs({dst} : {dst_type})"
                   f"{self._outside(call, rule.attrs)}", call.span)
        return dst

    @rules.op(Accumulate)
    def _accumulate(self, call: Call, rule: Accumulate) -> str:
        acc, lhs, rhs = (self._operand(argument(call, n), call.span) for n in rule.operands)
        cond = argument(call, rule.cond)
        fresh = f"{rule.fresh} ins({self._ins([lhs, rhs], call, ())}) outs({acc[0]} : {acc[1]})"
        update = f"{rule.mnemonic} ins({self._ins([acc, lhs, rhs], call, ())}) outs({acc[0]} : {acc[1]})"
        if isinstance(cond, ConstBool):
            self._line(fresh if cond.value else update, call.span)
        elif cond is None:
            self._line(update, call.span)
        else:
            self.doc.line(f"scf.if {self._scalar(cond, DataType.BOOL, call.span)} {{")
            with self.doc.indent():
                self._line(fresh, call.span)
            self.doc.line("} else {")
            with self.doc.indent():
                self._line(update, call.span)
            self.doc.line("}")
        if self.fn.target is not None:  # the result is the accumulator buffer
            self.fn.bind(self.fn.target, acc[0])
        return acc[0]

    @rules.op(Transfer)
    def _transfer(self, call: Call, rule: Transfer) -> str | None:
        fn = self.fn
        target = fn.target
        tensor = argument(call, rule.tensor)
        assert isinstance(tensor, Var) and isinstance(tensor.type, TensorType)
        view = self._name(tensor)
        view_type = tensor_view(len(tensor.type.shape), tensor.type.dtype, call.span)
        tiles = [self._operand(argument(call, n), call.span) for n in rule.ins]
        if rule.to_tile:
            tile = self._dst(call)
            tile_type = self._tile_target(call).type
        else:
            tile_var = argument(call, rule.ins[0]) if rule.ins else None
            tile_type = tile_var.type if tile_var is not None else None
        window, window_type = view, view_type
        if rule.offsets is not None:
            offsets = [self._offset(e, call.span)
                       for e in _elements(argument(call, rule.offsets), "window offsets", call.span)]
            given = argument(call, rule.sizes) if rule.sizes is not None else None
            if given is not None:
                size_exprs = _elements(given, "window sizes", call.span)
            else:
                assert isinstance(tile_type, TileType)
                size_exprs = list(effective_valid_shape(tile_type))
            sizes = [self._index(e, call.span) for e in size_exprs]
            window_type = partition_view([static_dim(e) for e in size_exprs], tensor.type.dtype, call.span)
            window = fn.fresh(view.removeprefix("%").removesuffix("_view") + "_pview")
            self._line(f"{window} = pto.partition_view {view}, offsets = [{', '.join(offsets)}], "
                       f"sizes = [{', '.join(sizes)}] : {view_type} -> {window_type}", call.span)
        outside = self._outside(call, rule.attrs)
        if rule.to_tile:
            self._line(f"{rule.mnemonic} ins({self._ins([(window, window_type), *tiles], call, rule.attrs)}) "
                       f"outs({tile[0]} : {tile[1]}){outside}", call.span)
            return tile[0]
        self._line(f"{rule.mnemonic} ins({self._ins(tiles, call, rule.attrs)}) outs({window} : {window_type}){outside}",
                   call.span)
        if target is not None:  # the store's result names the destination tensor
            self._alias(target, tensor)
        return None

    @rules.op(Buffer)
    def _buffer(self, call: Call, rule: Buffer) -> str | None:
        target = self.fn.target
        if target is not None and isinstance(target.type, TileType):  # tile.create: the alloc_tile only
            return self._dst(call)[0]
        return None  # tile.alloc: its result is the base pointer of MemRefs, which addresses already carry

    @rules.op(Fixed)
    def _fixed(self, call: Call, rule: Fixed) -> None:
        self._line(f"{rule.mnemonic} {rule.operands}", call.span)

    @rules.op(Sync)
    def _sync(self, call: Call, rule: Sync) -> None:
        pipe = pipe_name(int(keyword(call, "pipe")))
        event = argument(call, "event")
        event_text = self._index(event, call.span) if event is not None else str(keyword(call, "event_id"))
        ffts = keyword(call, "ffts_mode") if rule.ffts else None
        suffix = f" {{ffts_mode = {ffts} : i32}}" if ffts is not None else ""
        self._line(f"{rule.mnemonic} <PIPE_{pipe}>, {event_text}{suffix}", call.span)

    @rules.op(Flag)
    def _flag(self, call: Call, rule: Flag) -> None:
        """A user-written ``sync_src``/``sync_dst``: ``pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]``."""
        pipes = (pipe_name(int(keyword(call, k))) for k in ("set_pipe", "wait_pipe"))
        operands = ", ".join([*(f'"PIPE_{p}"' for p in pipes), f'"EVENT_ID{keyword(call, "event_id")}"'])
        self._line(f"{rule.mnemonic}[{operands}]", call.span)

    def _ring_part(self, ring: Var, setup: Call) -> str:
        """The pointer to the part of the GM ring the pipe ``setup`` initialises (gm_ring_layout), one
        ``pto.addptr`` past the start for every pipe but the first."""
        offset = self.fn.ring_offsets[keyword(setup, "id") or 0]
        pointer = self.fn.pointers[id(ring)]
        if offset == 0:
            return pointer
        part = self.fn.fresh(f"gm_pipe_{keyword(setup, 'id')}")
        self._line(f"{part} = pto.addptr {pointer}, {self._index_const(offset)} : !pto.ptr<f32> -> !pto.ptr<f32>",
                   setup.span)
        return part

    @rules.op(CrossCore)
    def _cross_core(self, call: Call, rule: CrossCore) -> str | None:
        """Cross-core pipe ops (docs/codegen.md#cross-core-ops); a free copies split/id from its pop."""
        source = call
        if rule.operands is Operands.FREED:
            source = self.fn.pops.get(id(argument(call, "tile")), call)
        attrs = [f"{k} = {_attr_text(k, v)}" for k in rule.attrs if (v := keyword(source, k)) is not None]
        if call.op.name == "system.reserve_buffer":
            space = "mat" if self.fn.kind is FunctionType.AIC else "vec"
            attrs[2:2] = [f"location = #pto.address_space<{space}>", "auto = false"]
        text = f"{rule.mnemonic} {{{', '.join(attrs)}}}"
        if rule.operands is Operands.TILE:
            name, ty = self._operand(argument(call, "tile"), call.span)
            text = f"{rule.mnemonic}({name} : {ty}) {{{', '.join(attrs)}}}"
        elif rule.operands is Operands.VALID_SHAPE and (valid := self._partial_valid(self.fn.target, call.span)):
            text = f"{rule.mnemonic}({valid[0]}, {valid[1]}) {{{', '.join(attrs)}}}"
        elif rule.operands is Operands.BUFFERS:
            bufs = [f"{k} = {self._scalar(argument(call, k), DataType.INT32, call.span)} : i32"
                    for k in ("c2v_consumer_buf", "v2c_consumer_buf")]
            ring = next((p for p in self.fn.roots.values() if p.name_hint == GM_PIPE_BUFFER), None)
            if ring is not None:  # a2a3: this pipe's part of the GM ring, first
                bufs.insert(0, f"gm_slot_buffer = {self._ring_part(ring, call)} : !pto.ptr<f32>")
            text += f" ({', '.join(bufs)})"
        if rule.result is Result.NONE:
            self._line(text, call.span)
            return None
        target = self.fn.target
        assert target is not None
        name = self.fn.bind(target, self.fn.fresh(target.name_hint))
        if rule.result is Result.TILE:
            self.fn.pops[id(target)] = call
            text += f" -> {self._tile_buf(target.type, call.span)}"
        else:
            text += " -> i32"
        self._line(f"{name} = {text}", call.span)
        return name

    def _partial_valid(self, target: Var | None, span: Span) -> tuple[str, str] | None:
        """The valid rows and columns of a popped tile whose valid shape is partial or dynamic (the pop
        sets them on the tile it takes from the slot), else None."""
        assert target is not None and isinstance(target.type, TileType)
        tile = target.type
        valid = list(effective_valid_shape(tile))
        if all(isinstance(v, ConstInt) and isinstance(d, ConstInt) and v.value == d.value
               for v, d in zip(valid, tile.shape, strict=True)):
            return None
        return self._valid_operands(tile, span)

    def _valid_operands(self, tile: TileType, span: Span) -> tuple[str, str]:
        """The ``index`` values of a tile's valid rows and columns (a 1-D tile is one row)."""
        valid = effective_valid_shape(tile)
        if len(valid) == 1:
            return self._index_const(1), self._index(valid[0], span)
        rows, cols = valid
        return self._index(rows, span), self._index(cols, span)

    @rules.op(SyncAll)
    def _syncall(self, call: Call, rule: SyncAll) -> None:
        mode = keyword(call, "mode")
        operands = ""
        if mode == "soft":  # through a GM workspace, the whole tensor as one window
            workspace = argument(call, "gm_workspace")
            assert isinstance(workspace, Var) and isinstance(workspace.type, TensorType)
            window, window_type = self._whole_window(workspace, call.span)
            used = self._scalar(argument(call, "used_cores"), DataType.INT32, call.span)
            operands = f"{window}, {used} : {window_type}, i32"
        self._line(f"{rule.mnemonic}({operands}) mode = #pto.sync_all_mode<{mode}>, "
                   f"core_type = #pto.sync_core_type<{keyword(call, 'core_type')}>", call.span)

    def _whole_window(self, tensor: Var, span: Span) -> tuple[str, str]:
        """A partition view covering all of a tensor parameter."""
        ttype = tensor.type
        assert isinstance(ttype, TensorType)
        view = self._name(tensor)
        window_type = partition_view([static_dim(d) for d in ttype.shape], ttype.dtype, span)
        window = self.fn.fresh(view.removeprefix("%").removesuffix("_view") + "_pview")
        zeros = ", ".join(self._index_const(0) for _ in ttype.shape)
        sizes = ", ".join(self._index(d, span) for d in ttype.shape)
        self._line(f"{window} = pto.partition_view {view}, offsets = [{zeros}], sizes = [{sizes}] : "
                   f"{tensor_view(len(ttype.shape), ttype.dtype, span)} -> {window_type}", span)
        return window, window_type

    @rules.op(Reshape)
    def _reshape(self, call: Call, rule: Reshape) -> str:
        src, src_type = self._operand(argument(call, "tile"), call.span)
        name, result_type = self._view_result(call)
        self._line(f"{name} = {rule.mnemonic} {src} : {src_type} -> {result_type}", call.span)
        return name

    @rules.op(Subview)
    def _subview(self, call: Call, rule: Subview) -> str:
        src, src_type = self._operand(argument(call, rule.source), call.span)
        sizes = _elements(argument(call, rule.shape), "subview sizes", call.span)
        if any(static_dim(d) is None for d in sizes):
            raise no_rule(f"{call.op.name} with a dynamic shape", PTO.name, call.span, "subview sizes are static")
        offsets = [self._index(e, call.span) for e in _elements(argument(call, rule.offset), "offsets", call.span)]
        valid_arg = argument(call, rule.valid)
        valid_text = ""
        static_valid: tuple[int | None, int | None] = (static_dim(sizes[-2]), static_dim(sizes[-1]))
        valid = _elements(valid_arg, "valid shape", call.span) if valid_arg is not None else []
        if valid:  # an empty tuple stands in for a missing valid shape when drop_dims follows
            valid_text = f" valid [{', '.join(self._index(e, call.span) for e in valid)}]"
            dims = (static_dim(valid[-2]), static_dim(valid[-1]))
            static_valid = dims if None not in dims else (None, None)
        name, result_type = self._view_result(call, static_valid)
        self._line(f"{name} = {rule.mnemonic} {src}[{', '.join(offsets)}] sizes [{', '.join(str(static_dim(d)) for d in sizes)}]"
                   f"{valid_text} : {src_type} -> {result_type}", call.span)
        return name

    @rules.op(Assemble)
    def _assemble(self, call: Call, rule: Assemble) -> str:
        dst, source = argument(call, "target"), argument(call, "source")
        assert isinstance(dst, Var) and isinstance(dst.type, TileType) and isinstance(source.type, TileType)
        target = self._tile_target(call)
        dst_name, dst_type = self._operand(dst, call.span)
        if _same_buffer(target.type, dst.type):  # assembling in place: the result is the target's buffer
            result, result_type = self.fn.bind(target, dst_name), dst_type
        else:
            result, result_type = self._dst(call)
            self._line(f"pto.tmov ins({dst_name} : {dst_type}) outs({result} : {result_type})", call.span)
        src_name, src_type = self._operand(source, call.span)
        rows, cols = physical_dims(source.type, call.span)
        valid = list(effective_valid_shape(source.type))
        if len(valid) == 1:
            valid = [ConstInt(1, DataType.INDEX), valid[0]]
        statics = (static_dim(valid[0]), static_dim(valid[1]))
        offsets = [self._index(e, call.span) for e in _elements(argument(call, "offset"), "offsets", call.span)]
        window = self.fn.temp()
        window_type = tile_buf(target.type, call.span, statics if None not in statics else (None, None), (rows, cols))
        self._line(f"{window} = {rule.view} {result}[{', '.join(offsets)}] sizes [{rows}, {cols}] "
                   f"valid [{', '.join(self._index(e, call.span) for e in valid)}] : {result_type} -> {window_type}",
                   call.span)
        self._line(f"{rule.mnemonic} ins({src_name} : {src_type}) outs({window} : {window_type})", call.span)
        return result

    @rules.op(SetValidShape)
    def _set_validshape(self, call: Call, rule: SetValidShape) -> str:
        tile, tile_type = self._operand(argument(call, "tile"), call.span)
        rows, cols = (self._index(argument(call, n), call.span) for n in ("valid_rows", "valid_cols"))
        self._line(f"{rule.mnemonic} {tile}, {rows}, {cols} : {tile_type}", call.span)
        return tile  # the same buffer, its valid extent changed

    @rules.op(ScalarAccess)
    def _scalar_access(self, call: Call, rule: ScalarAccess) -> str | None:
        tensor = argument(call, "tensor")
        assert isinstance(tensor, Var) and isinstance(tensor.type, TensorType)
        root = self.fn.roots.get(id(tensor))
        if root is None:
            raise no_rule(f"{call.op.name} of a local tensor", PTO.name, call.span, "kernels read tensor parameters")
        pointer = self.fn.pointers[id(root)]
        ptr_type = f"!pto.ptr<{mlir_dtype(tensor.type.dtype, call.span)}>"
        elem = mlir_dtype(tensor.type.dtype, call.span)
        flat = self._flat_index(tensor.type, _elements(argument(call, "indices"), "indices", call.span), call.span)
        if rule.store:
            value = self._scalar(argument(call, "value"), tensor.type.dtype, call.span)
            self._line(f"{rule.mnemonic} {value}, {pointer}[{flat}] : {ptr_type}, {elem}", call.span)
            if self.fn.target is not None:
                self._alias(self.fn.target, tensor)
            return None
        name = self._result_name()
        self._line(f"{name} = {rule.mnemonic} {pointer}[{flat}] : {ptr_type} -> {elem}", call.span)
        return name

    @rules.op(TileElement)
    def _tile_element(self, call: Call, rule: TileElement) -> str | None:
        tile = argument(call, "tile")
        name, tile_type = self._operand(tile, call.span)
        strides = [static_dim(e) for e in element_strides(tile.type)]
        indices = _elements(argument(call, "indices"), "indices", call.span)
        offset = self._offset_sum(indices, strides, call.span)
        elem = mlir_dtype(tile.type.dtype, call.span)
        if rule.store:
            value = self._scalar(argument(call, "value"), tile.type.dtype, call.span)
            self._line(f"{rule.mnemonic} ins({offset}, {value} : index, {elem}) outs({name} : {tile_type})",
                       call.span)
            if self.fn.target is not None:
                self._alias(self.fn.target, tile)
            return None
        result = self._result_name()
        self._line(f"{result} = {rule.mnemonic} ins({name}, {offset} : {tile_type}, index) outs : {elem}", call.span)
        return result

    @rules.op(SpmdIndex)
    def _spmd_index(self, call: Call, rule: SpmdIndex) -> str:
        self.fn.spmd.add(rule.param)
        if rule.param != "__pypto_spmd_subblock_idx":
            self.fn.spmd.update(_SPMD_PARAMS[:2])
        name = self._result_name()
        self._line(f"{name} = {rule.mnemonic} %{rule.param} : i32 to index", call.span)
        return name

    def _tile_target(self, call: Call) -> Var:
        """The tile variable the call defines (an op writing a tile needs one)."""
        target = self.fn.target
        if target is None or not isinstance(target.type, TileType):
            raise no_rule(f"{call.op.name} without a tile result variable", PTO.name, call.span)
        return target

    def _view_result(self, call: Call, valid: tuple[int | None, int | None] | None = None) -> tuple[str, str]:
        """Name and type of a view's result: a new SSA value on its source's buffer (no alloc)."""
        target = self._tile_target(call)
        return self.fn.bind(target, self.fn.fresh(target.name_hint)), tile_buf(target.type, call.span, valid)

    def _result_name(self) -> str:
        target = self.fn.target
        return self.fn.bind(target, self.fn.fresh(target.name_hint)) if target is not None else self.fn.temp()

    def _flat_index(self, ttype: TensorType, indices: list[Expr], span: Span) -> str:
        """``sum(index_k * stride_k)`` as an ``index`` (explicit strides, else packed row-major);
        constant terms fold."""
        view = ttype.tensor_view
        strides: list[int | str]
        if view is not None and view.stride:
            strides = [v if (v := static_dim(e)) is not None else self._index(e, span) for e in view.stride]
        elif all(static_dim(d) is not None for d in ttype.shape):
            dims = [static_dim(d) or 0 for d in ttype.shape]
            strides = [prod(dims[k + 1:]) for k in range(len(dims))]
        else:
            strides = list(self._packed(list(ttype.shape), span))
        return self._offset_sum(indices, strides, span)

    def _offset_sum(self, indices: list[Expr], strides: list[int | str], span: Span) -> str:
        """``sum(index_k * stride_k)`` as an ``index``, constant terms folded."""
        static, terms = 0, []
        for index, stride in zip(indices, strides):
            value = static_dim(index)
            if value is not None and isinstance(stride, int):
                static += value * stride
                continue
            term = self._index(index, span)
            if stride != 1 and stride != "%c1_index":
                factor = self._index_const(stride) if isinstance(stride, int) else stride
                term = self._line_value(f"arith.muli {term}, {factor} : index", span)
            terms.append(term)
        if static or not terms:
            terms.append(self._index_const(static))
        flat = terms[0]
        for term in terms[1:]:
            flat = self._line_value(f"arith.addi {flat}, {term} : index", span)
        return flat

    # --- helpers --------------------------------------------------------------------------------

    def _line(self, text: str, span: Span | None) -> None:
        """An op line, with its source location when locations are on."""
        if self.locations and span is not None:
            known = self._locs.get(id(span))
            if known is None:
                loc = f' loc("{span.file_name}":{span.begin_line}:{span.begin_column})' if span.is_valid() else ""
                known = self._locs[id(span)] = (span, loc)
            text += known[1]
        self.doc.line(text)

    def _line_value(self, text: str, span: Span | None) -> str:
        """``%N = <text>``; returns the temp."""
        name = self.fn.temp()
        self._line(f"{name} = {text}", span)
        return name

    def _name(self, var: Expr) -> str:
        fn = self.fn
        name = fn.names.get(id(var))  # only variables have names
        if name is None:
            what = f"'{var.name_hint}'" if isinstance(var, Var) else type(var).__name__
            raise no_rule(f"a use of {what} before its definition", PTO.name, var.span)
        root = fn.roots.get(id(var))
        if root is not None:
            fn.used_views.add(id(root))
        return name

    def _int_const(self, value: int, dtype: DataType, span: Span | None) -> str:
        fn = self.fn
        # the name of a constant asked for again (most are), registered as used by the current group;
        # DataType members are singletons, so their id is the key (their __hash__ is Python code)
        name = fn.ints.get((value, id(dtype)))
        if name is not None:
            fn.groups[fn.group].setdefault(name)
            return name
        body = f"c{value}" if value >= 0 else f"cn{-value}"
        if dtype.is_unsigned_int():
            # arith constants are signless: bridge to the unsigned type
            raw = self._int_const(value, _signed(dtype), span)
            ty = mlir_dtype(dtype, span)
            return fn.constant(f"%{body}_{ty}",
                               f"%{body}_{ty} = builtin.unrealized_conversion_cast {raw} : {ty[1:]} to {ty}")
        ty = mlir_dtype(dtype, span)
        name = fn.ints[(value, id(dtype))] = fn.constant(f"%{body}_{ty}", f"%{body}_{ty} = arith.constant {value} : {ty}")
        return name

    def _bool_const(self, value: bool) -> str:
        word = "true" if value else "false"
        return self.fn.constant(f"%{word}", f"%{word} = arith.constant {word}")

    def _index_const(self, value: int) -> str:
        return self._int_const(value, DataType.INDEX, None)

    def _scalar_type(self, expr: Expr) -> str:
        dtype = scalar_dtype(expr)
        assert dtype is not None
        return mlir_dtype(dtype, expr.span)

    def _scalar(self, expr: Expr, dtype: DataType, span: Span) -> str:
        """``expr`` as a value of ``dtype`` (constants are made in that type; others are cast)."""
        if isinstance(expr, ConstInt) and not dtype.is_float() and not dtype.is_bool():
            return self._int_const(expr.value, dtype, expr.span)
        if isinstance(expr, ConstFloat) and dtype.is_float():
            return self.fn.float_constant(f"{expr.value:.17e}", mlir_dtype(dtype, span))
        source = scalar_dtype(expr)
        if source is None:
            raise no_rule(f"a {type(expr.type).__name__} operand where a scalar is expected", PTO.name, span)
        return self._convert(self.emit(expr), source, dtype, span)

    def _convert(self, value: str, source: DataType, dest: DataType, span: Span) -> str:
        """Cast ``value`` from ``source`` to ``dest`` (§1.7 casts)."""
        if source == dest:
            return value
        src, dst = signless(source, span), signless(dest, span)
        value = self._bridge(value, source, src, span)
        if src == dst:
            return self._unsign(value, dest, span)
        if source.is_float() and dest.is_float():
            op = "extf" if source.get_bit() < dest.get_bit() else "truncf"
        elif source.is_float():
            op = "fptoui" if dest.is_unsigned_int() else "fptosi"
        elif dest.is_float():
            op = "uitofp" if source.is_unsigned_int() else "sitofp"
        elif DataType.INDEX in (source, dest):
            op = "index_cast"
        elif source.get_bit() < dest.get_bit():
            op = "extui" if source.is_unsigned_int() or source.is_bool() else "extsi"
        else:
            op = "trunci"
        return self._unsign(self._line_value(f"arith.{op} {value} : {src} to {dst}", span), dest, span)

    def _signless(self, expr: Expr, dtype: DataType, span: Span) -> str:
        """An arith operand of ``dtype``: unsigned values are bridged to their signless type."""
        if dtype.is_unsigned_int() and isinstance(expr, ConstInt):
            return self._int_const(expr.value, _signed(dtype), span)
        return self._bridge(self._scalar(expr, dtype, span), dtype, signless(dtype, span), span)

    def _bridge(self, value: str, dtype: DataType, to: str, span: Span) -> str:
        """``builtin.unrealized_conversion_cast`` between an unsigned type and its signless twin."""
        if not dtype.is_unsigned_int():
            return value
        return self._line_value(f"builtin.unrealized_conversion_cast {value} : {mlir_dtype(dtype, span)} to {to}", span)

    def _unsign(self, value: str, dtype: DataType, span: Span) -> str:
        """An arith result of signless type as a value of unsigned ``dtype``."""
        if not dtype.is_unsigned_int():
            return value
        return self._line_value(f"builtin.unrealized_conversion_cast {value} : {signless(dtype, span)} to "
                                f"{mlir_dtype(dtype, span)}", span)

    def _index(self, expr: Expr, span: Span) -> str:
        if isinstance(expr, ConstInt):  # _scalar's first case, taken by most indices
            return self._int_const(expr.value, DataType.INDEX, expr.span)
        return self._scalar(expr, DataType.INDEX, span)

    def _offset(self, expr: Expr, span: Span) -> str:
        """A window offset as an ``index``, clamped to >= 0 (constants at emit time)."""
        if isinstance(expr, ConstInt):
            return self._index_const(max(0, expr.value))
        value = self._index(expr, span)
        return self._line_value(f"arith.maxsi {value}, {self._index_const(0)} : index", span)

    def _operand(self, expr: Expr | None, span: Span, scalar_type: str | None = None) -> tuple[str, str]:
        """``(SSA name, MLIR type)`` of an op operand: a tile buffer, a tensor view or a scalar
        (cast to ``scalar_type`` when the op wants one)."""
        assert expr is not None
        if isinstance(expr.type, TileType):
            return self._name(expr), self._tile_buf(expr.type, span)
        if isinstance(expr.type, TensorType):
            return self._name(expr), tensor_view(len(expr.type.shape), expr.type.dtype, span)
        dtype = scalar_dtype(expr)
        if dtype is None:
            raise no_rule(f"a {type(expr).__name__} operand", PTO.name, span)
        if scalar_type is not None:
            dtype = _SCALAR_TYPES[scalar_type]
        return self._scalar(expr, dtype, span), mlir_dtype(dtype, span)

    def _keyword_operand(self, call: Call, name: str, scalar_type: str | None) -> tuple[str, str]:
        value = keyword(call, name)
        ty = scalar_type or "i32"
        return self._int_const(int(value), _SCALAR_TYPES[ty], call.span), ty

    def _ins(self, operands: list[tuple[str, str]], call: Call, attrs: tuple[Any, ...]) -> str:
        inside = [text for a in attrs if a.inside and (text := a.text(call)) is not None]
        text = ", ".join(name for name, _ in operands)
        if inside:
            text += " {" + ", ".join(inside) + "}"
        types = [ty for _, ty in operands]
        return f"{text} : {', '.join(types)}" if types else text

    def _outside(self, call: Call, attrs: tuple[Any, ...]) -> str:
        outside = [text for a in attrs if not a.inside and (text := a.text(call)) is not None]
        return " {" + ", ".join(outside) + "}" if outside else ""

    def _dst(self, call: Call) -> tuple[str, str]:
        """The buffer the call writes: the ``pto.alloc_tile`` of the variable it defines."""
        target = self._tile_target(call)
        return self._alloc(target, call.span), self._tile_buf(target.type, call.span)

    def _alloc(self, var: Var, span: Span) -> str:
        """``%v = pto.alloc_tile addr = ... valid_row = ... valid_col = ... : T`` for tile ``var``."""
        tile = var.type
        assert isinstance(tile, TileType)
        memref = tile.memref
        if memref is None:
            raise no_rule(f"tile '{var.name_hint}' without a MemRef", PTO.name, span,
                          "memory planning (InitMemRef ... AllocateMemoryAddr) gives every kernel tile an address")
        offset = memref.byte_offset
        if isinstance(offset, ConstInt):
            addr = f"%c{offset.value}_i64"
            self.fn.constant(addr, f"{addr} = arith.constant {offset.value} : i64", ADDRESSES)
        else:
            addr = self._scalar(memref.byte_offset, DataType.INT64, span)
        rows, cols = self._valid_operands(tile, span)
        name = self.fn.bind(var, self.fn.fresh(var.name_hint))
        self._line(f"{name} = pto.alloc_tile addr = {addr} valid_row = {rows} valid_col = {cols} : "
                   f"{self._tile_buf(tile, span)}", span)
        return name


def generate_pto(program: Program, platform: Platform | None = None, locations: bool | None = None) -> dict[str, str]:
    """The ``.pto`` text of every kernel of a ``runtime`` program: ``{unit name: module}``.

    ``platform`` (its ``target_arch`` is ``a2a3`` or ``a5``) is the compile's; called outside a
    compile it defaults to the current backend's. ``locations`` defaults to ``PYPTO_EMIT_PTO_LOC``
    (on unless ``0``).
    """
    chip = platform if platform is not None else current_platform()
    result: dict[str, str] = PtoEmitter(chip, locations)(program)
    return result


__all__ = ["PtoEmitter", "generate_pto"]
