"""The CCE emitter: AIC/AIV kernels of the ``synced`` dialect as C++ on the pto-isa API (docs/codegen.md#cce).

One file per kernel, ``kernels/aiv/<func>.cpp`` or ``kernels/aic/<func>.cpp``: the header, the
kernel as ``static __aicore__ void <func>(...)`` and the ``kernel_entry`` wrapper. Every tile
variable becomes a ``Tile`` object at its MemRef address, declared at the top of the kernel, so
variables sharing a buffer are handles on the same bytes; loads and stores go through a
``GlobalTensor`` over the window they touch; ops print through the CCE op table::

    static __aicore__ void tile_add(__gm__ float* a, __gm__ float* b, __gm__ float* c) {
      using Vec_128x128_fp32 = Tile<TileType::Vec, float, 128, 128, BLayout::RowMajor, -1, -1>;
      using GT_128x128_fp32 = GlobalTensor<float, Shape<1, 1, 1, 128, 128>, Stride<...>, Layout::ND>;
      Vec_128x128_fp32 ta(128, 128);
      TASSIGN(ta, 0x0);
      ...
      GT_128x128_fp32 a_gt(a);
      TLOAD(ta, a_gt);
      set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
      ...

Loop and if carries of tiles are the init's (or the branches') buffer: the iter_arg and the result
print as the init's handle and a yield of a tile prints nothing. Scalar carries are C++ variables
assigned by the yield. The synchronisation calls InsertPipeSync placed print as
``set_flag``/``wait_flag``/``pipe_barrier``.

``generate_cce(program)`` returns ``{"kernels/aiv/tile_add.cpp": text, ...}``.
"""

from __future__ import annotations

import math
from typing import Any

from pypto.analysis import function_index
from pypto.backend import Platform, current_platform
from pypto.analysis import expr_vars
from pypto.analysis.intervals import index_const
from pypto.analysis.lanes import runs_on_both_lanes
from pypto.ir.ops.cross_core_ops import (
    DIRECTION_NAMES, GM_PIPE_BUFFER, PIPE_OP_DIRECTION, default_local_slot_num, direction_flag,
    direction_ring_offset, gm_ring_layout, pipe_slot_num,
)
from pypto.ir.datatype import DataType
from pypto.ir.enums import FunctionType, TensorLayout
from pypto.ir.expr import (
    Abs, BinaryExpr, Call, Cast, ConstBool, ConstFloat, ConstInt, Expr, FloatDiv, FloorDiv, FloorMod, GlobalVar,
    IterArg, MakeTuple, Max, Min, Op, Pow, UnaryExpr, Var, Xor,
)
from pypto.ir.function import Function, Program
from pypto.ir.memref import MemRef
from pypto.ir.span import Span
from pypto.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, ReturnStmt, SeqStmts, Stmt, WhileStmt, YieldStmt
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TensorType, TileType, buffer_dims, effective_valid_shape, element_strides

from .base import Emitter, Rules
from .cce_entry import DimParam, EntryParam, header, kernel_entry
from .cce_ops import (
    CCE_OPS, DST, Buffer, Flag, GlobalElement, Insert, Instr, Intrinsic, Method, Pipe, PipeBuffer, PipeSetup, SpmdIndex,
    SPLIT_AXES, Transfer,
)
from .cce_types import DYNAMIC, GLOBAL_RANK, c_type, global_strides, global_template, static_dims, tile_template
from .doc import Doc
from .errors import CodegenError, no_rule
from .op_table import Accumulate, argument, is_parameter, keyword, parameters, pipe_name
from .cpp_exprs import INFIX, PREFIX, int_floor_div, int_floor_mod, int_pow
from .cpp_names import cpp_identifier
from .groups import group_members, kernel_slots, pipe_setups
from .target import CCE
from .unsupported import ODD_SPLIT_HINT

_KERNEL_DIRS = {FunctionType.AIV: "aiv", FunctionType.AIC: "aic"}
# Names the kernel file itself defines or takes, and the functions its rules call (a local of that
# name would hide them): IR names equal to them get a "_" suffix.
_RESERVED = frozenset({"args", "kernel_entry"}) | {
    rule.mnemonic for rule in CCE_OPS.values() if rule.mnemonic and not isinstance(rule, Method)}
_INFIX: dict[type, str] = {**INFIX, Xor: "!="}
_PREFIX = PREFIX
# Launch-identity parameters follow the others in this order (docs/codegen.md#pto).
_IDENTITY_ORDER = ("__pypto_spmd_block_idx", "__pypto_spmd_block_num", "__pypto_spmd_subblock_idx")


def generate_cce(program: Program, platform: Platform | None = None) -> dict[str, str]:
    """The CCE kernel files of ``program`` (in the ``synced`` dialect): relative path -> C++ text.

    ``platform`` (the compile's; outside a compile the current backend's by default) is the chip
    whose capacities the memory checks of the dialect use; the C++ itself is the same for every chip."""
    return CceEmitter(platform if platform is not None else current_platform())(program)


def _same_address(a: MemRef | None, b: MemRef | None) -> bool:
    """Both MemRefs are the same base Ptr at the same constant byte offset."""
    return (a is not None and b is not None and a.base is b.base
            and isinstance(a.byte_offset, ConstInt) and isinstance(b.byte_offset, ConstInt)
            and a.byte_offset.value == b.byte_offset.value)


def _float_literal(value: float, c: str) -> str:
    if math.isnan(value):
        return f"static_cast<{c}>(NAN)"
    if math.isinf(value):
        return f"static_cast<{c}>({'-' if value < 0 else ''}INFINITY)"
    text = repr(float(value))
    if "e" not in text and "." not in text:
        text += ".0"
    return text + "f" if c == "float" else f"static_cast<{c}>({text})"


class CceEmitter(Emitter):
    """Prints every AIC/AIV function of a ``runtime`` program as a CCE kernel file; the call
    returns ``{relative path: text}``."""

    target = CCE
    rules = Rules("cce")

    def __init__(self, platform: Platform) -> None:
        super().__init__(platform)
        self._begin_function()

    # -- per-function state -------------------------------------------------------------------------------

    def _begin_function(self) -> None:
        self._names: dict[Var, str] = {}
        self._taken: set[str] = set()
        self._aliases: dict[str, str] = {}  # template text -> alias name
        # id of a TileType -> (the type, kept alive so the id stays its own; its alias): asked at a
        # tile's definition and at every op whose template names it
        self._tile_aliases: dict[int, tuple[TileType, str]] = {}
        self._tiles: list[Var] = []  # tile variables declared at the top, in definition order
        self._params: set[Var] = set()
        self._setups: list[Call] = []  # the kernel's *_initialize_pipe calls (its GM ring layout)
        self._dst: Var | None = None
        self._carries: list[list[Var]] = []  # innermost loop's iter_args / if's return vars
        self._declared_scalars: set[Var] = set()
        self._identity: dict[str, str] = {}  # launch-identity parameter -> its reader in kernel_entry
        self._dim_sources: dict[Var, tuple[str, int]] = {}  # dynamic dim -> (tensor parameter, axis) giving it
        self._dims: list[DimParam] = []  # the dynamic dims the kernel reads, in first-use order
        # pipe id -> {direction (dir_mask bit) -> (TPipe alias, pipe object)}
        self._pipes: dict[int, dict[int, tuple[str, str]]] = {}
        self._pops: dict[Var, Call] = {}  # tile a TPOP defines -> the pop (its free reuses the split)
        # id of a TileType -> (the type, kept alive so the id stays its own; its Tile template): a tile's
        # template is asked for at its definition, its declaration and its copies
        self._templates: dict[int, tuple[TileType, str]] = {}

    def _template(self, t: TileType, span: Span | None) -> str:
        known = self._templates.get(id(t))
        if known is None:
            known = self._templates[id(t)] = (t, tile_template(t, span))
        return known[1]

    def _fresh(self, base: str) -> str:
        name = cpp_identifier(base, _RESERVED)
        candidate, n = name, 0
        while candidate in self._taken:
            n += 1
            candidate = f"{name}_{n}"
        self._taken.add(candidate)
        return candidate

    def _bind(self, var: Var, name: str | None = None) -> str:
        """Give ``var`` a C++ name (``name``: an existing handle it stands for)."""
        self._names[var] = name if name is not None else self._fresh(var.name_hint)
        return self._names[var]

    def name_of(self, var: Var) -> str:
        """The C++ name of ``var``; a variable with none is an error, not a KeyError."""
        name = self._names.get(var)
        if name is None and var in self._dim_sources:
            name = self._bind(var)
            self._dims.append(DimParam(name, *self._dim_sources[var]))
        if name is None:
            raise CodegenError(f"cce: variable '{var.name_hint}' is used before the kernel defines it", var.span,
                               "the cce emitter prints kernel parameters, tiles, scalars and loop variables")
        return name

    def _alias(self, template: str, base: str) -> str:
        """The ``using`` alias of a Tile/GlobalTensor template, made once per kernel."""
        alias = self._aliases.get(template)
        if alias is None:
            alias = self._aliases[template] = self._fresh(base)
        return alias

    def _declare_tile(self, var: Var) -> None:
        if var not in self._names:
            self._bind(var)
            self._tiles.append(var)

    # -- program and function -----------------------------------------------------------------------------

    @rules.register(Program)
    def _program(self, node: Program) -> dict[str, str]:
        self._program_node = node
        self._groups = group_members(node)
        files: dict[str, str] = {}
        for func in node.functions.values():
            kind = _KERNEL_DIRS.get(func.func_type)
            if kind is not None:
                files[f"kernels/{kind}/{func.name}.cpp"] = self.emit(func)
        return files

    @rules.register(Function)
    def _function(self, func: Function) -> str:
        self._begin_function()
        name = cpp_identifier(func.name, _RESERVED)
        self._taken.add(name)
        tensors: list[EntryParam] = []
        scalars: list[EntryParam] = []
        for p in func.params:
            if isinstance(p.type, TensorType):
                tensors.append(EntryParam(self._bind(p), c_type(p.type.dtype, p.span)))
            elif isinstance(p.type, ScalarType):
                scalars.append(EntryParam(self._bind(p), c_type(p.type.dtype, p.span)))
            else:
                raise no_rule(f"a kernel parameter of type {type(p.type).__name__}", self.target.name, p.span)
            self._params.add(p)
        self._setups = pipe_setups(func)
        for p in func.params:
            if isinstance(p.type, TensorType):
                for axis, dim in enumerate(p.type.shape):
                    if isinstance(dim, Var) and dim not in self._params:
                        self._dim_sources.setdefault(dim, (self._names[p], axis))
        with self.capture(1) as body:  # written at its depth in the function block below
            self._kernel_body(func.body)
        declarations = Doc(self.indent_unit, 1)
        for var in self._tiles:  # before the signature: a valid extent may read a dynamic dimension
            self._tile_declaration(declarations, var)
        identity = [(p, self._identity[p]) for p in _IDENTITY_ORDER if p in self._identity]
        signature = ([f"__gm__ {t.c_type}* {t.name}" for t in tensors] + [f"{s.c_type} {s.name}" for s in scalars]
                     + [f"int64_t {d.name}" for d in self._dims] + [f"int32_t {p}" for p, _ in identity])
        doc = Doc(self.indent_unit)
        with doc.block(f"static __aicore__ void {name}({', '.join(signature)}) {{"):
            for template, alias in self._aliases.items():
                doc.line(f"using {alias} = {template};")
            doc.extend(declarations)
            doc.extend(body)
        group = self._groups.get(func.name)
        slots = kernel_slots(self._program_node, group, func) if group is not None else None
        both = runs_on_both_lanes(func)
        launch = both or bool(identity) or any(t.name == GM_PIPE_BUFFER for t in tensors)  # the entry reads the block
        return (header(func.name, launch) + "\n// --- Kernel function ---\n" + doc.render()
                + "\n// --- Kernel entry point ---\n" + kernel_entry(name, tensors, scalars, self._dims, identity,
                                                                      self._entry_slots(func, slots), both))

    def _entry_slots(self, func: Function, slots: list[int | Expr] | None) -> list[str] | None:
        """Where the entry reads each parameter: ``args[<slot>]`` of the Group's task, or a constant."""
        if slots is None:
            return None
        order = [p for p in func.params if isinstance(p.type, TensorType)] + [
            p for p in func.params if not isinstance(p.type, TensorType)]
        by_param = dict(zip(func.params, slots, strict=True))
        return [f"args[{s}]" if isinstance(s, int) else f"(int64_t)({self.emit(s)})" for s in map(by_param.get, order)]

    def _kernel_body(self, body: Stmt) -> None:
        # The kernel's final return has nothing to print: outputs are written through the pointers.
        stmts = body.stmts if isinstance(body, SeqStmts) else [body]
        if stmts and isinstance(stmts[-1], ReturnStmt):
            stmts = stmts[:-1]
        self.emit_all(stmts)

    def _tile_declaration(self, doc: Doc, var: Var) -> None:
        t: TileType = var.type
        alias = self._aliases[self._template(t, var.span)]  # made where the body defines the tile
        valid = effective_valid_shape(t)
        for d in valid:
            if not isinstance(d, ConstInt) and not all(v in self._params or v in self._dim_sources
                                                       for v in expr_vars(d)):
                raise no_rule(f"tile '{var.name_hint}' with a valid shape computed in the kernel body",
                              self.target.name, var.span,
                              "tiles are declared at the top of the kernel, where only parameters are known: compute "
                              "the valid extent outside the pl.at block, e.g. rows = pl.min(32, N - i), and use it "
                              "inside; in a pl.spmd launch (an extent from the block index), launch the whole blocks "
                              "and run the tail block in a pl.at scope of its own")
        name = self._names[var]
        extents = [self.emit(d) for d in valid]
        if len(extents) == 1:  # a 1-D tile is one row
            extents.insert(0, "1")
        doc.line(f"{alias} {name}({', '.join(extents)});")
        if t.memref is None and var in self._pops:  # a popped tile's bytes are the pipe slot's
            return
        offset = t.memref.byte_offset if t.memref is not None else None
        if not isinstance(offset, ConstInt):
            raise no_rule(f"tile '{var.name_hint}' without a constant address", self.target.name, var.span,
                          "AllocateMemoryAddr gives every tile a constant byte offset")
        doc.line(f"TASSIGN({name}, 0x{offset.value:x});")

    def _tile_alias(self, t: TileType, span: Span | None) -> str:
        known = self._tile_aliases.get(id(t))
        if known is None:
            dims = "x".join(str(d) for d in static_dims(buffer_dims(t), "a tile shape", span))
            space = t.memory_space.name if t.memory_space is not None else "NoSpace"
            alias = self._alias(self._template(t, span), f"{space}_{dims}_{t.dtype.to_string()}")
            known = self._tile_aliases[id(t)] = (t, alias)
        return known[1]

    # -- statements ---------------------------------------------------------------------------------------

    @rules.register(SeqStmts)
    def _seq(self, node: SeqStmts) -> None:
        self.emit_all(node.stmts)

    @rules.register(AssignStmt)
    def _assign(self, node: AssignStmt) -> None:
        var, value = node.var, node.value
        if isinstance(var.type, TileType) and isinstance(value, Var) and isinstance(value.type, TileType):
            self._tile_copy(var, value)
            return
        if isinstance(var.type, TileType):
            self._tile_alias(var.type, var.span)
            self._declare_tile(var)
        if isinstance(value, Call) and not isinstance(value.op, GlobalVar):
            self._dst = var
            try:
                text = self.op_call(value)  # the rule emit would pick (Call has no subclasses)
            finally:
                self._dst = None
            if text is not None:
                self._scalar_assign(var, text)
            return
        if isinstance(var.type, TensorType) and isinstance(value, Var):
            self._bind(var, self.name_of(value))
            return
        if not isinstance(var.type, ScalarType):
            raise no_rule(f"assigning a {type(value).__name__} to a {type(var.type).__name__} variable",
                          self.target.name, node.span)
        self._scalar_assign(var, self.emit(value))

    def _tile_copy(self, var: Var, value: Var) -> None:
        """``r = acc``: on the same buffer with the same tile type, ``r`` names ``acc``'s handle (no
        copy); otherwise ``r`` is its own tile filled by TMOV."""
        if _same_address(var.type.memref, value.type.memref) and (
                self._template(var.type, var.span) == self._template(value.type, value.span)):
            self._bind(var, self.name_of(value))
            return
        self._tile_alias(var.type, var.span)
        self._declare_tile(var)
        self.doc.line(f"TMOV({self.name_of(var)}, {self.name_of(value)});")

    def _scalar_assign(self, var: Var, text: str) -> None:
        if not isinstance(var.type, ScalarType):
            raise no_rule(f"an expression value for {type(var.type).__name__} variable '{var.name_hint}'",
                          self.target.name, var.span)
        if var in self._declared_scalars:
            self.doc.line(f"{self._names[var]} = {text};")
            return
        self._declared_scalars.add(var)
        self.doc.line(f"{c_type(var.type.dtype, var.span)} {self._bind(var)} = {text};")

    @rules.register(EvalStmt)
    def _eval(self, node: EvalStmt) -> None:
        text = self.emit(node.expr)
        if text is not None:
            self.doc.line(f"{text};")

    @rules.register(ReturnStmt)
    def _return(self, node: ReturnStmt) -> None:
        self.doc.line("return;")

    @rules.register(ForStmt)
    def _for(self, node: ForStmt) -> None:
        step = node.step
        if isinstance(step, ConstInt) and step.value <= 0:
            raise no_rule("a kernel loop with a non-positive step", self.target.name, node.span,
                          "rewrite the loop to count upwards")
        self._open_carries(node.iter_args, node.span)
        loop_type = c_type(node.loop_var.type.dtype, node.loop_var.span)
        i = self._bind(node.loop_var)
        head = (f"for ({loop_type} {i} = {self.emit(node.start)}; {i} < {self.emit(node.stop)}; "
                f"{i} += {self.emit(step)}) {{")
        self._carries.append(list(node.iter_args))
        with self.doc.block(head):
            self.emit(node.body)
        self._carries.pop()
        self._close_carries(node.iter_args, node.return_vars)

    @rules.register(WhileStmt)
    def _while(self, node: WhileStmt) -> None:
        self._open_carries(node.iter_args, node.span)
        self._carries.append(list(node.iter_args))
        with self.doc.block(f"while ({self.emit(node.condition)}) {{"):
            self.emit(node.body)
        self._carries.pop()
        self._close_carries(node.iter_args, node.return_vars)

    def _open_carries(self, iter_args: list[IterArg], span: Span) -> None:
        """Tile carries are the init's handle; scalar carries are C++ variables set to the init."""
        for ia in iter_args:
            init = ia.init_value
            if isinstance(ia.type, TileType):
                if not isinstance(init, Var):
                    raise no_rule("a tile carry initialised by an expression", self.target.name, span)
                self._bind(ia, self.name_of(init))
            elif isinstance(ia.type, ScalarType):
                text = self.emit(init)
                self._declared_scalars.add(ia)
                self.doc.line(f"{c_type(ia.type.dtype, ia.span)} {self._bind(ia)} = {text};")
            else:
                raise no_rule(f"a {type(ia.type).__name__} loop carry", self.target.name, ia.span)

    def _close_carries(self, iter_args: list[Var], return_vars: list[Var]) -> None:
        for ia, rv in zip(iter_args, return_vars):
            self._bind(rv, self._names[ia])
            if ia in self._declared_scalars:
                self._declared_scalars.add(rv)

    @rules.register(IfStmt)
    def _if(self, node: IfStmt) -> None:
        for rv in node.return_vars:
            if isinstance(rv.type, TileType):
                self._tile_alias(rv.type, rv.span)
                self._declare_tile(rv)
            elif isinstance(rv.type, ScalarType):
                self._declared_scalars.add(rv)
                self.doc.line(f"{c_type(rv.type.dtype, rv.span)} {self._bind(rv)};")
            else:
                raise no_rule(f"a {type(rv.type).__name__} if result", self.target.name, rv.span)
        self._carries.append(list(node.return_vars))
        self.doc.line(f"if ({self.emit(node.condition)}) {{")
        with self.doc.indent():
            self.emit(node.then_body)
        if node.else_body is not None:
            self.doc.line("} else {")
            with self.doc.indent():
                self.emit(node.else_body)
        self.doc.line("}")
        self._carries.pop()

    @rules.register(YieldStmt)
    def _yield(self, node: YieldStmt) -> None:
        targets = self._carries[-1] if self._carries else []
        if len(targets) != len(node.value):
            raise no_rule(f"a yield of {len(node.value)} values for {len(targets)} carries", self.target.name,
                          node.span)
        scalars: list[tuple[Var, str]] = []
        for target, value in zip(targets, node.value):
            if isinstance(target.type, TileType):
                self._check_same_buffer(target, value, node.span)
            else:
                scalars.append((target, self.emit(value)))
        if len(scalars) == 1:
            target, text = scalars[0]
            self.doc.line(f"{self._names[target]} = {text};")
        elif scalars:
            # Every new value is computed from the old ones before any carry changes.
            temps = []
            for target, text in scalars:
                temp = self._fresh(f"{target.name_hint}_next")
                temps.append(temp)
                self.doc.line(f"{c_type(target.type.dtype, target.span)} {temp} = {text};")
            for (target, _), temp in zip(scalars, temps):
                self.doc.line(f"{self._names[target]} = {temp};")

    def _check_same_buffer(self, target: Var, value: Expr, span: Span) -> None:
        """A tile carry prints no copy: the yielded tile must be the carry's buffer."""
        if not _same_address(target.type.memref, value.type.memref if isinstance(value.type, TileType) else None):
            raise no_rule("a tile carry whose yielded value is in another buffer", self.target.name, span,
                          "memory planning puts a tile carry's init, iter_arg, yielded value and result on one MemRef")

    # -- expressions --------------------------------------------------------------------------------------

    @rules.register(Var)
    def _var(self, node: Var) -> str:
        return self.name_of(node)

    @rules.register(ConstInt)
    def _const_int(self, node: ConstInt) -> str:
        v = node.value
        return f"{v}LL" if not -(2**31) <= v < 2**31 else str(v)

    @rules.register(ConstFloat)
    def _const_float(self, node: ConstFloat) -> str:
        return _float_literal(node.value, c_type(node.dtype, node.span))

    @rules.register(ConstBool)
    def _const_bool(self, node: ConstBool) -> str:
        return "true" if node.value else "false"

    def _operand(self, e: Expr) -> str:
        text = self.emit(e)
        return f"({text})" if isinstance(e, BinaryExpr) else text

    @rules.register(*_INFIX)
    def _infix(self, node: BinaryExpr) -> str:
        return f"{self._operand(node.left)} {_INFIX[type(node)]} {self._operand(node.right)}"

    @rules.register(FloatDiv)
    def _float_div(self, node: FloatDiv) -> str:
        c = c_type(node.type.dtype, node.span)
        return f"static_cast<{c}>({self.emit(node.left)}) / {self._operand(node.right)}"

    @rules.register(FloorDiv)
    def _floor_div(self, node: FloorDiv) -> str:
        a, b = self._operand(node.left), self._operand(node.right)
        if node.type.dtype.is_float():
            return f"std::floor({a} / {b})"
        if node.type.dtype.is_unsigned_int():
            return f"{a} / {b}"
        return int_floor_div(a, b)

    @rules.register(FloorMod)
    def _floor_mod(self, node: FloorMod) -> str:
        a, b = self._operand(node.left), self._operand(node.right)
        if node.type.dtype.is_float():
            return f"({a} - std::floor({a} / {b}) * {b})"
        if node.type.dtype.is_unsigned_int():
            return f"{a} % {b}"
        return int_floor_mod(a, b)

    @rules.register(Pow)
    def _pow(self, node: Pow) -> str:
        c = c_type(node.type.dtype, node.span)
        if node.type.dtype.is_float():
            return f"static_cast<{c}>(std::pow({self.emit(node.left)}, {self.emit(node.right)}))"
        return int_pow(self.emit(node.left), self.emit(node.right), c)

    @rules.register(Min, Max)
    def _min_max(self, node: BinaryExpr) -> str:
        a, b = self._operand(node.left), self._operand(node.right)
        op = "<" if isinstance(node, Min) else ">"
        return f"({a} {op} {b} ? {a} : {b})"

    @rules.register(*_PREFIX)
    def _prefix(self, node: UnaryExpr) -> str:
        return f"{_PREFIX[type(node)]}{self._operand(node.operand)}"

    @rules.register(Abs)
    def _abs(self, node: Abs) -> str:
        return f"std::abs({self.emit(node.operand)})"

    @rules.register(Cast)
    def _cast(self, node: Cast) -> str:
        return f"static_cast<{c_type(node.type.dtype, node.span)}>({self.emit(node.operand)})"

    # -- op forms -----------------------------------------------------------------------------------------

    def _dst_name(self, call: Call) -> str:
        if self._dst is None:
            raise no_rule(f"{call.op.name} without a result variable", self.target.name, call.span)
        return self.name_of(self._dst)

    def _values(self, call: Call, name: str) -> list[str]:
        """The C++ operands of parameter ``name`` (a tuple expands; an absent optional one is none)."""
        arg = argument(call, name)
        if arg is None:
            return []
        if isinstance(arg, MakeTuple):
            return [self.emit(e) for e in arg.elements]
        return [self.emit(arg)]

    @rules.op(Instr)
    def _instr(self, call: Call, rule: Instr) -> None:
        op = call.op.name
        names = rule.args if rule.args is not None else (DST, *parameters(op))
        operands: list[str] = []
        for n in names:
            if n == DST:
                operands.append(self._dst_name(call))
            elif is_parameter(op, n):
                operands += self._values(call, n)
            else:
                operands.append(_literal(keyword(call, n), call.span))
        operands += [t for t in (c.text(call) for c in rule.trailing) if t is not None]
        template = [self._template_type(call, n) for n in rule.types]
        template += [t for t in (c.text(call) for c in rule.template) if t is not None]
        targs = f"<{', '.join(template)}>" if template else ""
        if rule.zero_dst:
            self.doc.line(f"TEXPANDS({self._dst_name(call)}, 0);")
        self.doc.line(f"{rule.mnemonic}{targs}({', '.join(operands)});")

    def _template_type(self, call: Call, name: str) -> str:
        """A template type argument: the result's or a tile parameter's tile type, a scalar's C type."""
        t = call.type if name == DST else argument(call, name).type
        return self._tile_alias(t, call.span) if isinstance(t, TileType) else c_type(t.dtype, call.span)

    @rules.op(Accumulate)
    def _accumulate(self, call: Call, rule: Accumulate) -> None:
        acc, lhs, rhs = (self._values(call, n)[0] for n in rule.operands)
        dst = self._dst_name(call)
        fresh = f"{rule.fresh}({dst}, {lhs}, {rhs});"
        accumulate = f"{rule.mnemonic}({dst}, {acc}, {lhs}, {rhs});"
        cond = argument(call, rule.cond)
        if cond is None or (isinstance(cond, ConstBool) and not cond.value):
            self.doc.line(accumulate)
        elif isinstance(cond, ConstBool):
            self.doc.line(fresh)
        else:
            with self.doc.block(f"if ({self.emit(cond)}) {{", "} else {"):
                self.doc.line(fresh)
            with self.doc.indent():
                self.doc.line(accumulate)
            self.doc.line("}")

    @rules.op(Transfer)
    def _transfer(self, call: Call, rule: Transfer) -> None:
        tensor = argument(call, rule.tensor)
        ttype = tensor.type
        if not isinstance(tensor, Var) or not isinstance(ttype, TensorType):
            raise no_rule(f"{call.op.name} on a {type(ttype).__name__}", self.target.name, call.span)
        rank = len(ttype.shape)
        view = ttype.tensor_view
        if view is not None and view.layout != TensorLayout.ND:
            raise no_rule(f"{call.op.name} on a {view.layout.name} tensor", self.target.name, call.span)
        strides = self._tensor_strides(ttype)
        tile = self._dst if rule.to_tile else (argument(call, rule.ins[0]) if rule.ins else None)
        window = argument(call, rule.sizes) if rule.sizes is not None else None
        if rule.whole:
            window = self._whole_table(call, ttype)
        if rule.clamp is not None and (keyword(call, rule.clamp) or (view is not None and view.valid_shape)):
            window = None  # the tile's valid shape: the window cut at the source's edge or valid region
        if isinstance(window, MakeTuple):
            dims = list(window.elements)
        else:
            if tile is None or not isinstance(tile.type, TileType):
                raise no_rule(f"{call.op.name} without a tile to size its window", self.target.name, call.span)
            dims = list(effective_valid_shape(tile.type))
        dims = [index_const(1)] * (rank - len(dims)) + dims
        sizes, volume = self._window_sizes(dims, tile, call)
        fixed = [s if isinstance(s, int) else DYNAMIC for s in strides]
        template = global_template(ttype.dtype, sizes, fixed, call.span, volume)
        size_names = "x".join("d" if s == DYNAMIC else str(s) for s in sizes)
        alias = self._alias(template, f"GT_{size_names}_{ttype.dtype.to_string()}")
        offsets = argument(call, rule.offsets) if rule.offsets is not None else None
        pointer = self.name_of(tensor) + self._element_offset(offsets, strides)
        g = self._fresh(f"{self.name_of(tensor)}_gt")
        if volume is None and fixed == strides:
            self.doc.line(f"{alias} {g}({pointer});")
        else:
            # A dynamic window extent (a tail block's valid rows) is a Shape constructor argument, a
            # dynamic stride (a row pitch given by a dynamic inner dimension) a Stride one.
            pad = ["1"] * (GLOBAL_RANK - len(dims))
            extents = [*pad, *(self._operand(d) for d in dims)]
            operands = f"{pointer}, {alias}::Shape({', '.join(extents)})"
            if fixed != strides:
                operands += f", {alias}::Stride({', '.join(map(str, global_strides(sizes, strides, volume)))})"
            self.doc.line(f"{alias} {g}({operands});")
        if rule.to_tile:
            operands = [self._dst_name(call), g, *(v for n in rule.ins for v in self._values(call, n))]
            template_args = [t for t in (c.text(call) for c in rule.template) if t is not None]
            targs = f"<{', '.join(template_args)}>" if template_args else ""
            self.doc.line(f"{rule.mnemonic}{targs}({', '.join(operands)});")
            return
        ins = [v for n in rule.ins for v in self._values(call, n)]
        template_args = [t for t in (c.text(call) for c in rule.template) if t is not None]
        if template_args:
            tile = argument(call, rule.ins[0])
            tile_alias = self._tile_alias(tile.type, call.span)
            template_args = [tile_alias, alias, *template_args]
        targs = f"<{', '.join(template_args)}>" if template_args else ""
        self.doc.line(f"{rule.mnemonic}{targs}({g}, {', '.join(ins)});")
        if self._dst is not None:
            self._bind(self._dst, self.name_of(tensor))

    def _whole_table(self, call: Call, ttype: TensorType) -> MakeTuple:
        """A gather table's window: the whole tensor. Its shape must be static; a row gather reads the
        table's rows as the GlobalTensor's second-last axis, so the table has at most two axes."""
        if not all(isinstance(d, ConstInt) for d in ttype.shape):
            raise no_rule(f"{call.op.name} from a table of dynamic shape", self.target.name, call.span,
                          "give the gathered tensor a static shape")
        if keyword(call, "coalesce") == "row" and len(ttype.shape) > 2:
            raise no_rule(f"{call.op.name} of rows of a rank-{len(ttype.shape)} table", self.target.name, call.span,
                          "reshape the table to [rows, cols] first")
        if argument(call, "scratch") is not None or not isinstance(argument(call, "idx").type, TileType):
            raise no_rule(f"{call.op.name} with GM indices and a scratch tensor", self.target.name, call.span,
                          "load the indices into a Vec tile")
        return MakeTuple(list(ttype.shape), call.span)

    def _window_sizes(self, dims: list[Expr], tile: Expr | None, call: Call) -> tuple[list[int], int | None]:
        """The window's template sizes (``DYNAMIC`` for a run-time extent) and, when one is dynamic, a
        static bound of its element count: the tile's shape in that place."""
        if all(isinstance(d, ConstInt) for d in dims):
            return [d.value for d in dims], None
        bound = list(tile.type.shape) if tile is not None and isinstance(tile.type, TileType) else []
        bound = [index_const(1)] * (len(dims) - len(bound)) + bound
        sizes, volume = [], 1
        for d, b in zip(dims, bound):
            if isinstance(d, ConstInt):
                sizes.append(d.value)
                volume *= d.value
            elif isinstance(b, ConstInt):
                sizes.append(DYNAMIC)
                volume *= b.value
            else:
                raise no_rule(f"{call.op.name} with a dynamic window extent and no static tile bound",
                              self.target.name, call.span, "give the tile a static shape; only its valid shape may vary")
        return sizes, volume

    def _tensor_strides(self, t: TensorType) -> list[int | str]:
        """Element strides of a tensor parameter: its view's, else row-major over its shape. A stride
        over a dynamic inner dimension is a C++ product of the dimension read off the argument."""
        view = t.tensor_view
        if view is not None and view.stride:
            return [d.value if isinstance(d, ConstInt) else self._operand(d) for d in view.stride]
        strides: list[int | str] = [1] if t.shape else []
        static, dynamic = 1, []
        for d in reversed(t.shape[1:]):
            if isinstance(d, ConstInt):
                static *= d.value
            else:
                dynamic.append(self._operand(d))
            strides.insert(0, " * ".join([*dynamic, str(static)] if static != 1 else dynamic) if dynamic else static)
        return strides

    def _element_offset(self, offsets: Expr | None, strides: list[int | str]) -> str:
        """`` + <sum of offset_i * stride_i>`` with constants folded; empty for the origin."""
        if offsets is None:
            return ""
        elements = offsets.elements if isinstance(offsets, MakeTuple) else [offsets]
        constant, terms = 0, []
        for e, s in zip(elements, strides):
            if isinstance(e, ConstInt) and isinstance(s, int):
                constant += e.value * s
            elif not (isinstance(e, ConstInt) and e.value == 0):
                text = self._operand(e)
                terms.append(text if s == 1 else f"{text} * {s}")
        if constant:
            terms.append(str(constant))
        return f" + {' + '.join(terms)}" if len(terms) == 1 else (f" + ({' + '.join(terms)})" if terms else "")

    @rules.op(Method)
    def _method(self, call: Call, rule: Method) -> str | None:
        """``t.GetValue(off)`` is a value; ``t.SetValue(off, v);`` a statement, whose result (if bound)
        is a handle on ``t``'s buffer."""
        tile = argument(call, rule.receiver)
        operands = [self._tile_offset(tile, argument(call, n)) if n == "indices" else self.emit(argument(call, n))
                    for n in rule.args]
        text = f"{self.name_of(tile)}.{rule.mnemonic}({', '.join(operands)})"
        if isinstance(call.type, ScalarType):
            return text
        self.doc.line(f"{text};")
        return None

    def _tile_offset(self, tile: Expr, indices: Expr) -> str:
        """The flat element offset of ``indices`` in ``tile``'s buffer."""
        elements = indices.elements if isinstance(indices, MakeTuple) else [indices]
        strides = static_dims(element_strides(tile.type), "a tile buffer extent", tile.span)
        offset = self._element_offset(MakeTuple(list(elements), indices.span), strides).removeprefix(" + ")
        return offset or "0"

    @rules.op(GlobalElement)
    def _global_element(self, call: Call, rule: GlobalElement) -> str | None:
        """``x[off]`` of a kernel's GM tensor parameter: read as a value, or assigned."""
        tensor = argument(call, "tensor")
        ttype = tensor.type
        strides = self._tensor_strides(ttype)
        offset = self._element_offset(argument(call, "indices"), strides).removeprefix(" + ") or "0"
        element = f"{self.name_of(tensor)}[{offset}]"
        if not rule.store:
            return element
        value = argument(call, "value")
        self.doc.line(f"{element} = {self._cast_to(value, ttype.dtype, call.span)};")
        if self._dst is not None:
            self._bind(self._dst, self.name_of(tensor))
        return None

    def _cast_to(self, value: Expr, dtype: DataType, span: Span | None) -> str:
        text = self.emit(value)
        if isinstance(value.type, ScalarType) and value.type.dtype == dtype:
            return text
        return f"static_cast<{c_type(dtype, span)}>({text})"

    @rules.op(Insert)
    def _insert(self, call: Call, rule: Insert) -> None:
        target, source = argument(call, "target"), argument(call, "source")
        dst = self._dst_name(call)
        if not (isinstance(target, Var) and _same_address(self._dst.type.memref, target.type.memref)):
            self.doc.line(f"TMOV({dst}, {self.emit(target)});")
        offsets = self._values(call, "offset")
        self.doc.line(f"{rule.mnemonic}({dst}, {self.emit(source)}, {', '.join(offsets)});")

    @rules.op(Buffer)
    def _buffer(self, call: Call, rule: Buffer) -> None:
        """``tile.create``'s tile is declared with the others (Tile object + TASSIGN); ``tile.alloc``'s
        pointer is the base the MemRefs of those declarations already resolve."""

    @rules.op(Intrinsic)
    def _intrinsic(self, call: Call, rule: Intrinsic) -> None:
        self.doc.line(f"{rule.mnemonic}({rule.operands});")

    @rules.op(SpmdIndex)
    def _spmd_index(self, call: Call, rule: SpmdIndex) -> str:
        """The launch identity is a kernel parameter, read once in ``kernel_entry``."""
        self._identity[rule.param] = rule.mnemonic
        self._taken.add(rule.param)
        return rule.param

    @rules.op(PipeBuffer)
    def _pipe_buffer(self, call: Call, rule: PipeBuffer) -> str:
        """The buffer's planned base (a peer's: the base its ``reserve_buffer`` of that name got)."""
        reserve = call
        if call.op.name == "system.import_peer_buffer":
            peer = self._program_node.get_function(call.kwargs["peer_func"])
            found = [c for c in (function_index(peer).of(Call) if peer is not None else [])
                     if isinstance(c.op, Op) and c.op.name == "system.reserve_buffer"
                     and c.kwargs["name"] == call.kwargs["name"]]
            if not found:
                raise CodegenError(f"no buffer '{call.kwargs['name']}' reserved by '{call.kwargs['peer_func']}' for "
                                   "system.import_peer_buffer", call.span,
                                   "the peer function reserves the buffer with pl.reserve_buffer(name=...)")
            reserve = found[0]
        base = reserve.kwargs["base"]
        if base < 0:
            raise no_rule("a reserve_buffer whose base memory planning has not resolved", self.target.name, call.span)
        return str(base)

    @rules.op(PipeSetup)
    def _pipe_setup(self, call: Call, rule: PipeSetup) -> None:
        pipe_id = keyword(call, "id") or 0
        if pipe_id in self._pipes:
            raise CodegenError(f"pipe {pipe_id} is initialised twice", call.span,
                               "initialise each pipe once, at the top of the kernel; give other pipes another id=")
        mask, size = keyword(call, "dir_mask"), keyword(call, "slot_size")
        slots = pipe_slot_num(call)
        local = keyword(call, "local_slot_num") or default_local_slot_num(slots)
        ring = next((p for p in self._params if p.name_hint == GM_PIPE_BUFFER), None)
        bufs = ", ".join(f"static_cast<uint32_t>({self.emit(argument(call, k))})"
                         for k in ("c2v_consumer_buf", "v2c_consumer_buf"))
        self._pipes[pipe_id] = {}
        # A two-way pipe prints as two one-way pipes: pto-isa's CPU model shares a two-way TPipe's slots
        # between the directions and, once the ring wraps, pops a later C->V tile before an earlier one
        # (docs/codegen.md#cross-core-ops). Each half keeps the flags and the GM slots (V->C after C->V)
        # that a2a3's two-way TPipe gives that direction; MixedKernelExpanded keeps pipes' flags apart.
        for direction in DIRECTION_NAMES if mask == 3 else (mask,):
            template = f"TPipe<{direction_flag(mask, pipe_id, direction)}, {direction}, {size}, {slots}, {local}>"
            half = "" if mask != 3 else f"_{DIRECTION_NAMES[direction]}"
            alias = self._alias(template, f"Pipe{pipe_id}{half}")
            obj = self._fresh(f"pipe_{pipe_id}{half}")
            self._pipes[pipe_id][direction] = (alias, obj)
            gm = "nullptr"
            if ring is not None:  # this direction's part of the kernel's GM ring
                offset = (gm_ring_layout(self._setups)[pipe_id][0] + direction_ring_offset(call, direction)) // 4
                gm = self.name_of(ring) if offset == 0 else f"({self.name_of(ring)} + {offset})"
            self.doc.line(f"{alias} {obj}((__gm__ void*){gm}, {bufs});")

    @rules.op(Pipe)
    def _pipe_op(self, call: Call, rule: Pipe) -> None:
        """TPUSH/TPOP/TFREE on the pipe object of the op's ``id``; a free reuses its pop's split."""
        source = self._pops.get(argument(call, "tile"), call) if not rule.tile else call
        pipe_id = keyword(source, "id") or 0
        if pipe_id not in self._pipes:
            raise CodegenError(f"{call.op.name} on pipe {pipe_id}, which this kernel does not initialise", call.span,
                               "call pl.aic_initialize_pipe / pl.aiv_initialize_pipe (with the same id=) first")
        direction = PIPE_OP_DIRECTION[call.op.name]
        assert direction in self._pipes[pipe_id], "MixedKernelExpanded refuses a pipe op against its pipe's direction"
        alias, obj = self._pipes[pipe_id][direction]
        code = keyword(source, "split") or 0
        if code not in SPLIT_AXES:  # ir.compile refuses it before the first pass; generate_cce may be called alone
            raise no_rule(f"{call.op.name} with split={code} (an odd-extent split)", "cce", call.span, ODD_SPLIT_HINT)
        split = SPLIT_AXES[code]
        if not rule.tile:
            self.doc.line(f"{rule.mnemonic}<{alias}, {split}>({obj});")
            return
        if call.op.name.startswith("tile.tpop"):
            tile = self._dst
            assert tile is not None
            self._pops[tile] = call
        else:
            tile = argument(call, "tile")
        tile_type = self._tile_alias(tile.type, call.span)
        self.doc.line(f"{rule.mnemonic}<{alias}, {tile_type}, {split}>({obj}, {self.name_of(tile)});")

    @rules.op(Flag)
    def _flag(self, call: Call, rule: Flag) -> None:
        set_pipe, wait_pipe = pipe_name(keyword(call, "set_pipe")), pipe_name(keyword(call, "wait_pipe"))
        self.doc.line(f"{rule.mnemonic}(PIPE_{set_pipe}, PIPE_{wait_pipe}, EVENT_ID{keyword(call, 'event_id')});")


def _literal(value: Any, span: Span | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float_literal(value, "float")
    raise no_rule(f"a keyword value {value!r}", "cce", span)
