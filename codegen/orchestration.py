"""PTO2 orchestration C++ (docs/codegen.md#orchestration), printed one-to-one from the ``runtime`` dialect.

Each Orchestration function becomes ``orchestration/<name>.cpp``: ``aicpu_orchestration_config``
(the argument count) and ``aicpu_orchestration_entry`` (external tensors and scalars unpacked from
``orch_args``, then the body). The IR already says everything the C++ needs::

    with pl.scope():                                  PTO2_SCOPE() {
        tmp = pl.create_tensor([64, 64], ...)             ... TensorCreateInfo tmp_ci(...); alloc_tensors(tmp_ci);
        tmp = self.k(a, tmp, attrs={"arg_directions":     // Task 0: k
              [pl.adir.input, pl.adir.output_existing]})  CoreTaskArgs params_t0; add_input(ext_a); add_output(tmp);
                                                          rt_submit_aiv_task(0, params_t0);
        for i in pl.range(2):                             for (int64_t i = 0; i < 2; i += 1) {
            with pl.scope(): ...                              PTO2_SCOPE() { ... }

Runtime scopes come from ``RuntimeScopeStmt``; argument methods from ``attrs["arg_directions"]``; the
submit form from the callee's type (AIV / AIC) and its kernel id (first-use order, :func:`kernel_ids`);
loop carries from ``attrs["iter_arg_rebind_<i>"]``. A call result that the callee returns as one of
its parameters takes the argument's C++ name (§2.4), so no copy of a tensor handle is printed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from pypto.analysis.callgraph import function_named
from pypto.analysis.defuse import base_name, expr_calls, use_counts
from pypto.analysis.index import function_index, walk
from pypto.analysis.intervals import const_truth, index_const, instantiate
from pypto.analysis.lanes import runs_on_both_lanes
from pypto.analysis.roots import Roots, returned_params
from pypto.analysis.windows import BLOCK_NUM, INDEX_DRIVEN, Window, describe_window, kernel_windows
from pypto.backend import Platform, current_platform
from pypto.ir.enums import ArgDirection, FunctionType
from pypto.ir.expr import (
    Abs,
    BinaryExpr,
    BitNot,
    Call,
    Cast,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    FloatDiv,
    FloorDiv,
    FloorMod,
    GlobalVar,
    MakeTuple,
    Max,
    Min,
    Neg,
    Not,
    Pow,
    Submit,
    TupleGetItemExpr,
    Var,
    Xor,
)
from pypto.ir.datatype import DataType
from pypto.ir.function import Function, Program
from pypto.ir.span import Span
from pypto.ir.stmt import (
    AssignStmt,
    BreakStmt,
    ContinueStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    RuntimeScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from pypto.ir.type_base import ScalarType, TupleType, Type
from pypto.ir.types import ArrayType, TensorType
from pypto.runtime.dtypes import SIMPLER_DTYPES
from pypto.runtime.errors import BoundsGuard

from .base import Emitter, Rules
from .cpp_exprs import INFIX, PREFIX, int_floor_div, int_floor_mod, int_pow
from .cpp_names import cpp_identifier
from .doc import Doc
from .errors import CodegenError
from .groups import group_calls
from .op_table import argument, is_parameter, keyword
from . import orchestration_taskids as taskids
from .orchestration_ops import (
    Array, CreateTensor, Dim, DummyTask, ElementAccess, Expression, MethodCall, Reshape, View,
)
from .orchestration_predicate import dispatch_predicate
from .target import ORCHESTRATION

_KERNEL_TYPES = (FunctionType.AIV, FunctionType.AIC)

# C scalar types an orchestration variable can hold (half-precision floats live only in tensors).
_C_TYPES: dict[DataType, str] = {
    DataType.BOOL: "bool",
    DataType.INT8: "int8_t",
    DataType.INT16: "int16_t",
    DataType.INT32: "int32_t",
    DataType.INT64: "int64_t",
    DataType.INDEX: "int64_t",
    DataType.UINT8: "uint8_t",
    DataType.UINT16: "uint16_t",
    DataType.UINT32: "uint32_t",
    DataType.UINT64: "uint64_t",
    DataType.FP32: "float",
    DataType.TASK_ID: "PTO2TaskId",
}

_INFIX: dict[type, str] = {**INFIX, FloatDiv: "/"}
_PREFIX = PREFIX

_ARG_METHODS: dict[ArgDirection, str] = {
    ArgDirection.Input: "add_input",
    ArgDirection.Output: "add_output",
    ArgDirection.OutputExisting: "add_output",
    ArgDirection.InOut: "add_inout",
    ArgDirection.NoDep: "add_no_dep",
}

# The entry's own parameter: an IR name equal to it gets a "_" suffix.
_RESERVED = frozenset({"orch_args"})


def orchestration_function(program: Program) -> Function | None:
    """The program's Orchestration function (None when it has none); more than one is an error."""
    found = [f for f in program.functions.values() if f.func_type is FunctionType.Orchestration]
    if len(found) > 1:
        names = ", ".join(f.name for f in found)
        raise CodegenError(f"no rule for a program with several Orchestration functions ({names}) in orchestration",
                           found[1].span, "the PTO2 runtime runs one orchestration entry per program")
    return found[0] if found else None


def kernel_ids(program: Program) -> dict[str, int]:
    """Kernel name -> func_id: the AIV/AIC functions the orchestration calls, numbered 0, 1, ... in
    first-use order (the ids ``rt_submit_*_task`` passes and ``kernel_config.py`` lists)."""
    orch = orchestration_function(program)
    ids: dict[str, int] = {}
    if orch is None:
        return ids
    for call in function_index(orch).of(Call, Submit):
        if not isinstance(call.op, GlobalVar):
            continue
        target = function_named(program, call.op.name)
        if target is not None and target.func_type is FunctionType.Spmd:
            target = spmd_kernel(program, target)[0]
        kernels = [target] if target is not None and target.func_type in _KERNEL_TYPES else []
        if target is not None and target.func_type is FunctionType.Group:
            kernels = [k for k, _ in group_calls(program, target)]
        for kernel in kernels:
            if kernel.name not in ids:
                ids[kernel.name] = len(ids)
    return ids


def spmd_kernel(program: Program, wrapper: Function) -> tuple[Function, Call, Var | None]:
    """The kernel a Spmd wrapper launches: its body is one call of an AIV/AIC kernel (and the return).

    Returns the kernel, the call, and the variable the call defines (None for a bare call)."""
    found: list[tuple[Call, Var | None]] = []
    for stmt in _block(wrapper.body):
        if isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call):
            found.append((stmt.value, stmt.var))
        elif isinstance(stmt, EvalStmt) and isinstance(stmt.expr, Call):
            found.append((stmt.expr, None))
        elif not isinstance(stmt, ReturnStmt):
            found.clear()
            break
    kernel = None
    if len(found) == 1 and isinstance(found[0][0].op, GlobalVar):
        kernel = function_named(program, found[0][0].op.name)
    if kernel is None or kernel.func_type not in (*_KERNEL_TYPES, FunctionType.Group):
        raise CodegenError(f"no rule for a Spmd function '{wrapper.name}' whose body is not one kernel call in "
                           "orchestration", wrapper.span,
                           "a Spmd wrapper launches one AIV, AIC or Group kernel on core_num blocks")
    return kernel, found[0][0], found[0][1]


def c_type(t: Type, span: Span | None = None) -> str:
    """The C++ type of an orchestration value of IR type ``t``."""
    if isinstance(t, TensorType):
        return "ChipTensor"
    if isinstance(t, ScalarType) and t.dtype in _C_TYPES:
        return _C_TYPES[t.dtype]
    raise CodegenError(f"no rule for a value of type {t} in orchestration", span,
                       "orchestration variables are tensors, integer, BOOL, FP32 or TaskId scalars")


@dataclass
class _Carry:
    """Where the YieldStmt of a loop or an if sends its values: one C++ name per slot, and for each
    slot whether the yield assigns it (a rebind carry, an if result) or must already be it."""

    names: list[str]
    assigned: list[bool]
    types: list[str] | None = None  # a loop's carry C++ types (None for an if)
    # For an if: the yielded texts of each branch, and the lines assigning them as (document, line
    # index, slot), dropped for a slot both branches yield under the same name.
    texts: list[list[str]] = field(default_factory=list)
    lines: list[tuple[Doc, int, int]] = field(default_factory=list)
    # A loop's TaskId array carries: slot -> how the yield writes it (orchestration_taskids.array_carry).
    arrays: dict[int, str] = field(default_factory=dict)
    loop: ForStmt | None = None
    loop_var: str = ""


class OrchestrationEmitter(Emitter):
    """Prints each Orchestration function of a ``runtime`` program as PTO2 runtime C++.

    ``OrchestrationEmitter(platform)(program)`` returns ``{"orchestration/<name>.cpp": text}``.
    """

    target = ORCHESTRATION
    rules = Rules("orchestration")
    indent_unit = "    "

    def __init__(self, platform: Platform) -> None:
        super().__init__(platform)
        self.program: Program | None = None
        self.names: dict[Var, str] = {}
        self.taken: set[str] = set()
        self.tuples: dict[Var, list[str]] = {}
        self.task_outs: dict[Var, str] = {}  # a Submit's tuple -> its TaskOutputTensors variable
        self.fresh_ids: set[str] = set()  # TaskIds straight from a submit: valid, never guarded
        self.tensor_params: dict[Var, int] = {}
        self.ids: dict[str, int] = {}
        self.tasks = 0
        self.allocs = 0
        self.carries: list[_Carry] = []
        self.hoisted: set[int] = set()  # ids of tensor.create statements printed at their scope's start
        self.defining: Var | None = None  # the variable an op rule defines (set by the AssignStmt rule)
        self.strided: set[Var] = set()  # views whose elements are not one contiguous block of the parent
        self.task_arrays: dict[str, int] = {}  # C arrays of TaskIds -> their extent
        self.dummies = 0  # dependency-only tasks printed so far
        self.body: Stmt | None = None  # the body of the function being printed
        self._reads: Counter[Var] | None = None
        self.predeclared: set[Var] = set()  # scalars and views a manual scope defines for the code after it
        self._roots: Roots | None = None

    @property
    def roots(self) -> Roots:
        """The buffer roots of the function being printed (walked when a manual scope first asks: most
        functions have none, and the walk was a tenth of the emitter's work)."""
        if self._roots is None:
            assert self.body is not None and self.program is not None  # set by the Function and Program rules
            self._roots = Roots(self.body, self.program)
        return self._roots

    @property
    def reads(self) -> Counter[Var]:
        """How often the function body reads each variable (counted when a manual scope first asks)."""
        if self._reads is None:
            self._reads = use_counts(self.body) if self.body is not None else Counter()
        return self._reads

    # ---- names ---------------------------------------------------------------------------------

    def declare(self, var: Var, name: str | None = None) -> str:
        """A fresh C++ name for ``var`` (its name hint, suffixed when taken) and record it."""
        base = cpp_identifier(name if name is not None else var.name_hint, _RESERVED)
        candidate, n = base, 1
        while candidate in self.taken:
            candidate, n = f"{base}_{n}", n + 1
        self.taken.add(candidate)
        self.names[var] = candidate
        return candidate

    def fresh(self, base: str) -> str:
        """A fresh C++ name not bound to any variable (``alloc_0``, ``row_idx``)."""
        base = cpp_identifier(base, _RESERVED)
        candidate, n = base, 1
        while candidate in self.taken:
            candidate, n = f"{base}_{n}", n + 1
        self.taken.add(candidate)
        return candidate

    def name_of(self, var: Var) -> str:
        found = self.names.get(var)
        if found is None:
            raise CodegenError(f"no rule for a use of '{var.name_hint}' before its definition in orchestration",
                               var.span, "the orchestration C++ declares each variable where the IR defines it")
        return found

    def alias(self, var: Var, name: str) -> None:
        """``var`` is printed as the existing C++ variable ``name`` (no new declaration)."""
        self.names[var] = name

    # ---- program and function --------------------------------------------------------------------

    @rules.register(Program)
    def _program(self, program: Program) -> dict[str, str]:
        self.program = program
        self.ids = kernel_ids(program)
        orch = orchestration_function(program)
        if orch is None:
            return {}
        return {f"orchestration/{orch.name}.cpp": self.emit(orch)}

    @rules.register(Function)
    def _function(self, func: Function) -> str:
        doc = self.doc
        tensors = [p for p in func.params if isinstance(p.type, TensorType)]
        scalars = [p for p in func.params if not isinstance(p.type, TensorType)]
        doc.line(f"// Orchestration Function: {func.name}")
        doc.line("// Generated by PyPTO IR Compiler")
        doc.line()
        for header in ("stddef.h", "stdint.h", "stdio.h"):
            doc.line(f"#include <{header}>")
        doc.line()
        doc.line('#include "pto_orchestration_api.h"')
        doc.line()
        doc.line('extern "C" {')
        doc.line()
        doc.line('__attribute__((visibility("default")))')
        with doc.block("PTO2OrchestrationConfig aicpu_orchestration_config(const ChipTaskArgs& orch_args) {"):
            doc.line("(void)orch_args;")
            with doc.block("return PTO2OrchestrationConfig{", "};"):
                doc.line(f".expected_arg_count = {len(tensors) + len(scalars)},")
        doc.line()
        doc.line('__attribute__((visibility("default")))')
        with doc.block("void aicpu_orchestration_entry(const ChipTaskArgs& orch_args) {"):
            self._entry_prologue(func, tensors, scalars)
            self.body, self._reads, self._roots = func.body, None, None
            self.emit(func.body)
            if not _always_submits(func.body):
                # simpler's scheduler ends a run once total_tasks > 0 tasks completed: a run that submits
                # none (a loop of zero trips) would never end. The empty task is skipped after a fatal error.
                doc.line()
                with doc.block("{"):
                    doc.line("CoreTaskArgs no_args;")
                    doc.line("rt_submit_dummy_task(no_args);")
        doc.line()
        doc.line('}  // extern "C"')
        return doc.render()

    def _entry_prologue(self, func: Function, tensors: list[Var], scalars: list[Var]) -> None:
        doc = self.doc
        doc.line("// External tensors")
        for i, p in enumerate(tensors):
            self.tensor_params[p] = i
            doc.line(f"const ChipTensor& {self.declare(p, 'ext_' + p.name_hint)} = orch_args.tensor({i}).ref();")
        if scalars:
            doc.line()
            doc.line("// Scalar params")
            for j, p in enumerate(scalars):
                ct = c_type(p.type, p.span)
                doc.line(f"{ct} {self.declare(p)} = from_u64<{ct}>(orch_args.scalar({j}));")
        dims = [(p, axis, dim) for p in tensors for axis, dim in enumerate(p.type.shape) if isinstance(dim, Var)]
        # the variables the body reads, walked for only a function with dynamic dimensions
        used = {id(n) for n in walk(func.body) if isinstance(n, Var)} if dims else set()
        symbols: list[tuple[Var, int, int]] = []
        for p, axis, dim in dims:
            if id(dim) in used and dim not in self.names:
                self.declare(dim)
                symbols.append((dim, self.tensor_params[p], axis))
        if symbols:
            doc.line()
            doc.line("// Dynamic-dim symbols")
            for dim, i, axis in symbols:
                doc.line(f"int64_t {self.names[dim]} = (int64_t)orch_args.tensor({i}).ref().shapes[{axis}];")
        doc.line()

    # ---- statements ------------------------------------------------------------------------------

    @rules.register(SeqStmts)
    def _seq(self, node: SeqStmts) -> None:
        stmts = list(node.stmts)
        if len(stmts) >= 2 and isinstance(stmts[-1], YieldStmt) and isinstance(stmts[-2], RuntimeScopeStmt):
            # The yield after a body's scope is printed at the end of the scope's C++ block, where the
            # values it copies into the carries are still visible.
            *stmts, scope, tail = stmts
            self.emit_all(stmts)
            self._scope(scope, tail)
            return
        self.emit_all(stmts)

    @rules.register(RuntimeScopeStmt)
    def _scope(self, node: RuntimeScopeStmt, tail: YieldStmt | None = None) -> None:
        creates = [s for s in _block(node.body) if _is_create(s)]
        if node.manual:
            # Hoisted in front of the manual scope so later readers outside it see the tensors.
            self._allocate(creates)
        leaving = self._predeclare(node) if node.manual else {}
        with self.doc.block("PTO2_SCOPE(PTO2ScopeMode::MANUAL) {" if node.manual else "PTO2_SCOPE() {"):
            if not node.manual:
                self._allocate(creates)
            self.emit(node.body)
            if tail is not None:
                self.emit(tail)
            for var, outside in leaving.items():  # a loop's or an if's result: copied out
                inside = self.name_of(var)
                if inside in self.task_arrays:
                    name = base_name(var.name_hint)
                    raise CodegenError(f"no rule for the TaskId array '{name}' leaving a manual scope in orchestration",
                                       var.span, "submit the tasks that wait for it inside the scope")
                self.doc.line(f"{outside} = {inside};")
                self.alias(var, outside)

    def _predeclare(self, node: RuntimeScopeStmt) -> dict[Var, str]:
        """Declare in front of a manual scope the scalars (TaskIds above all), tensor views and arrays its
        body defines and the code after it reads: the scope is a C++ block, the IR scope is transparent.
        An assignment then assigns the declared variable (an ``array.create`` is printed there whole); a
        loop's or an if's result is copied into it at the scope's end (returned: result -> the declared
        name)."""
        inside = use_counts(node.body)
        copied: dict[Var, str] = {}
        for create in self._arrays_leaving(node.body, inside):
            self.emit(create)  # its extent and dtype are constants: nothing of the scope is needed
            self.hoisted.add(id(create))
        named_after = self._buffers_named_after(node.body, inside)
        for stmt in _block(node.body):
            assigned = isinstance(stmt, AssignStmt)
            if (
                assigned
                and isinstance(stmt.var.type, TensorType)
                and (self.reads[stmt.var] > inside[stmt.var] or stmt.var in named_after)
            ):
                if id(stmt) not in self.hoisted and not isinstance(stmt.value, (Var, TupleGetItemExpr)):
                    self.doc.line(f"ChipTensor {self.declare(stmt.var)};")  # a view: assigned in the scope
                    self.predeclared.add(stmt.var)
                continue
            results = [stmt.var] if assigned else list(getattr(stmt, "return_vars", []))
            for var in results:
                if not (isinstance(var.type, ScalarType | TensorType) and self.reads[var] > inside[var]):
                    continue
                if isinstance(var.type, TensorType):  # a loop's or an if's tensor (a view): copied out
                    if self._declared_by(stmt, var):
                        copied[var] = self.fresh(var.name_hint)
                        self.doc.line(f"ChipTensor {copied[var]};")
                    continue
                ct = c_type(var.type, var.span)
                initial = "PTO2TaskId::invalid()" if var.type.dtype.is_task_id() else f"{ct}{{}}"
                name = self.declare(var) if assigned else self.fresh(var.name_hint)
                self.doc.line(f"{ct} {name} = {initial};")
                if assigned:
                    self.predeclared.add(var)
                else:
                    copied[var] = name
        return copied

    def _buffers_named_after(self, body: Stmt, inside: Counter[Var]) -> set[Var]:
        """The tensors whose C++ name the code after the scope uses for a loop's or an if's result read
        there that declares no variable of its own (the buffer it carries, e.g. a view made in the scope)."""
        return {
            self.roots.root(var)
            for stmt in _block(body)
            if not isinstance(stmt, AssignStmt)
            for var in getattr(stmt, "return_vars", [])
            if isinstance(var.type, TensorType) and self.reads[var] > inside[var] and not self._declared_by(stmt, var)
        }

    def _declared_by(self, stmt: Stmt, result: Var) -> bool:
        """Whether a loop or an if declares a C++ variable of its own for the tensor ``result``: a
        rebind carry, a while carry, an if whose branches yield different buffers (otherwise the result
        is the buffer's name, visible after the scope)."""
        if isinstance(stmt, ForStmt):
            return bool(stmt.attrs.get(f"iter_arg_rebind_{stmt.return_vars.index(result)}", True))
        if isinstance(stmt, IfStmt):
            return self.roots.root(result) is result
        return True

    def _arrays_leaving(self, body: Stmt, inside: Counter[Var]) -> list[AssignStmt]:
        """The ``array.create`` statements of a scope body whose array (the created variable, an
        ``array.update_element`` result or a loop's array result, which all name the same C array: a
        loop updates an array carry in place) the code after the scope reads."""
        creates: dict[Var, AssignStmt] = {}
        for stmt in _block(body):
            if isinstance(stmt, ForStmt | WhileStmt):
                for ia, rv in zip(stmt.iter_args, stmt.return_vars):
                    if isinstance(ia.initValue, Var) and ia.initValue in creates:
                        creates[rv] = creates[ia.initValue]
                continue
            if not (isinstance(stmt, AssignStmt) and isinstance(stmt.var.type, ArrayType)):
                continue
            source = argument(stmt.value, "array") if isinstance(stmt.value, Call) else None
            if isinstance(source, Var) and source in creates:
                creates[stmt.var] = creates[source]  # an update: the same array
            elif isinstance(stmt.value, Call) and stmt.value.op.name == "array.create":
                creates[stmt.var] = stmt
        leaving = {id(c): c for var, c in creates.items() if self.reads[var] > inside[var]}
        return list(leaving.values())

    def define(self, var: Var, text: str, span: Span) -> str:
        """The statement giving ``var`` the value ``text``: a declaration, or an assignment of a variable
        declared in front of its manual scope."""
        name, declared = self.defined_name(var, c_type(var.type, span))
        return f"{declared}{name} = {text};"

    def defined_name(self, var: Var, ctype: str) -> tuple[str, str]:
        """The C++ name of ``var`` where a statement defines it, and the type to print in front of it:
        none when it was declared in front of its manual scope (the scope is a C++ block)."""
        if var in self.predeclared:
            return self.name_of(var), ""
        return self.declare(var), f"{ctype} "

    @rules.register(ReturnStmt)
    def _return(self, node: ReturnStmt) -> None:
        # Results are written into the output tensors the host passed in: nothing to return.
        return None

    @rules.register(BreakStmt)
    def _break(self, node: BreakStmt) -> None:
        self.doc.line("break;")

    @rules.register(ContinueStmt)
    def _continue(self, node: ContinueStmt) -> None:
        self.doc.line("continue;")

    @rules.register(EvalStmt)
    def _eval(self, node: EvalStmt) -> None:
        self.defining = None
        text = self.emit(node.expr)
        if text is not None:
            self.doc.line(f"{text};")

    @rules.register(AssignStmt)
    def _assign(self, node: AssignStmt) -> None:
        value, var = node.value, node.var
        if id(node) in self.hoisted:
            return
        if isinstance(var.type, TensorType) and isinstance(value, (Var, TupleGetItemExpr)):
            self.alias(var, self.expr(value))  # the same tensor handle under another IR name
            return
        self.defining = var
        text = self.emit(value)
        self.defining = None
        if text is None:  # the rule declared the variable itself (a task, a view, a tensor creation)
            return
        self.doc.line(self.define(var, text, node.span))
        if isinstance(value, TupleGetItemExpr) and value.tuple in self.task_outs:
            self.fresh_ids.add(self.name_of(var))

    @rules.register(ForStmt)
    def _for(self, node: ForStmt) -> None:
        carry = _Carry([], [], [], loop=node)
        for i, (ia, rv) in enumerate(zip(node.iter_args, node.return_vars, strict=True)):
            init = self.expr(ia.initValue)
            array = taskids.array_carry(self, node, i, init)
            if array is not None:
                name, how = array
                carry.names.append(name)
                carry.assigned.append(how is not None)
                carry.types.append("PTO2TaskId")
                if how is not None:
                    carry.arrays[i] = how
                continue
            if node.attrs.get(f"iter_arg_rebind_{i}", True):
                name = self.declare(ia)
                self.doc.line(f"{c_type(ia.type, ia.span)} {name} = {init};")
                carry.assigned.append(True)
            else:
                name = init
                self.alias(ia, init)
                carry.assigned.append(False)
            carry.names.append(name)
            carry.types.append(c_type(ia.type, ia.span))
            self.alias(rv, name)
        i = carry.loop_var = self.declare(node.loop_var)
        start, stop, step = self.expr(node.start), self.expr(node.stop), self.expr(node.step)
        cmp = ">" if _negative(node.step) else "<"
        ct = c_type(node.loop_var.type, node.span)
        self.carries.append(carry)
        with self.doc.block(f"for ({ct} {i} = {start}; {i} {cmp} {stop}; {i} += {step}) {{"):
            self.emit(node.body)
        self.carries.pop()

    @rules.register(WhileStmt)
    def _while(self, node: WhileStmt) -> None:
        if expr_calls(node.condition):
            raise CodegenError("no rule for a while condition that calls an op in orchestration", node.condition.span,
                               "compute the condition into a carried scalar at the end of the body")
        carry = _Carry([], [], [])
        for ia, rv in zip(node.iter_args, node.return_vars, strict=True):
            init = self.expr(ia.initValue)
            if taskids.in_place_array(self, ia, rv, init):
                carry.names.append(init)
                carry.assigned.append(False)
                carry.types.append("PTO2TaskId")
                continue
            ct = c_type(ia.type, ia.span)
            name = self.declare(ia)
            self.doc.line(f"{ct} {name} = {init};")
            carry.names.append(name)
            carry.assigned.append(True)
            carry.types.append(ct)
            self.alias(rv, name)
        self.carries.append(carry)
        with self.doc.block(f"while ({self.expr(node.condition)}) {{"):
            self.emit(node.body)
        self.carries.pop()

    @rules.register(IfStmt)
    def _if(self, node: IfStmt) -> None:
        carry = _Carry([self.declare(rv) for rv in node.return_vars], [True] * len(node.return_vars))
        cond = self.expr(node.condition)
        self.carries.append(carry)
        with self.capture() as then_doc:
            self.emit(node.then_body)
        else_doc = None
        if node.else_body is not None:
            with self.capture() as else_doc:
                self.emit(node.else_body)
        self.carries.pop()
        # A result both branches yield under one name is that variable: no declaration, no copies.
        same = [len({texts[k] for texts in carry.texts}) == 1 and len(carry.texts) == 2
                for k in range(len(node.return_vars))]
        for doc, index, slot in sorted(carry.lines, key=lambda x: -x[1]):
            if same[slot]:
                del doc.lines[index]
        for k, rv in enumerate(node.return_vars):
            if same[k]:
                self.taken.discard(carry.names[k])
                self.alias(rv, carry.texts[0][k])
            else:
                self.doc.line(f"{c_type(rv.type, node.span)} {carry.names[k]};")
        if else_doc is not None and not else_doc.lines:
            else_doc = None  # every line of the else branch was a yield of the name the result took
        with self.doc.block(f"if ({cond}) {{", "}" if else_doc is None else "} else {"):
            self.doc.extend(then_doc)
        if else_doc is not None:
            with self.doc.indent():
                self.doc.extend(else_doc)
            self.doc.line("}")

    @rules.register(YieldStmt)
    def _yield(self, node: YieldStmt) -> None:
        if not self.carries:
            raise CodegenError("no rule for a yield outside a loop or an if in orchestration", node.span)
        carry = self.carries[-1]
        texts = [self.expr(v) for v in node.value]
        carry.texts.append(texts)
        copies: list[tuple[int, str]] = []
        for k, (name, text) in enumerate(zip(carry.names, texts, strict=True)):
            if k in carry.arrays:
                assert carry.loop is not None
                taskids.yield_array(self, carry.loop, carry.loop_var, name, carry.arrays[k], text)
            elif not carry.assigned[k]:
                if text != name:
                    raise CodegenError(
                        f"no rule for a trivial loop carry '{name}' that yields '{text}' in orchestration",
                        node.span, f"iter_arg_rebind_{k}=False says the yielded value is the carried buffer")
            elif text != name:
                copies.append((k, text))
        if carry.types is not None and len(copies) > 1:
            # Loop carries update together (a swap yields each other's old value): copy through
            # temporaries first.
            staged = []
            for k, text in copies:
                tmp = self.fresh(f"{carry.names[k]}_next")
                self.doc.line(f"{carry.types[k]} {tmp} = {text};")
                staged.append((k, tmp))
            copies = staged
        for k, text in copies:
            self.doc.line(f"{carry.names[k]} = {text};")
            carry.lines.append((self.doc, len(self.doc.lines) - 1, k))

    # ---- tasks -----------------------------------------------------------------------------------

    @rules.register(Call)
    def _call(self, node: Call) -> str | None:
        if isinstance(node.op, GlobalVar):
            return self._task(node)
        return self.op_call(node)

    @rules.register(Submit)
    def _submit(self, node: Submit) -> None:
        return self._task(node)

    def _task(self, call: Call | Submit) -> None:
        """One task block (§2.3); the defined variable (if any) takes the names of the arguments the
        callee returns (§2.4)."""
        assert self.program is not None
        var, self.defining = self.defining, None
        target = function_named(self.program, call.op.name)
        wrapper = None
        if target is not None and target.func_type is FunctionType.Spmd:
            wrapper = target
            target = spmd_kernel(self.program, wrapper)[0]
        if target is None or target.func_type not in (*_KERNEL_TYPES, FunctionType.Group):
            kind = "a missing" if target is None else f"a {target.func_type.name}"
            raise CodegenError(f"no rule for a call of {kind} function '{call.op.name}' in orchestration",
                               call.span, "orchestration submits AIV and AIC kernels, Groups of them and Spmd "
                               "launches of those")
        directions = list(call.attrs.get("arg_directions") or [])
        if len(directions) != len(call.args):
            raise CodegenError(f"no rule for a call of '{call.op.name}' without one arg direction per argument "
                               "in orchestration", call.span, "DeriveCallDirections sets attrs['arg_directions']")
        args = list(call.args)
        if wrapper is not None:
            args, directions = self._kernel_args(call, wrapper, directions)
        n = self.tasks
        self.tasks += 1
        params = f"params_t{n}"
        self.taken.add(params)
        doc = self.doc
        doc.line()
        doc.line(f"// Task {n}: {target.name}" if wrapper is None else f"// Spmd {wrapper.name}: {target.name}")
        if target.func_type is FunctionType.Group:
            for kernel, inner in group_calls(self.program, target):
                self._guards(call, kernel, self._through(target, inner, args), wrapper)
        else:
            self._guards(call, target, args, wrapper)
        doc.line(f"CoreTaskArgs {params};")
        tensors = [(a, d) for a, d in zip(args, directions, strict=True) if d is not ArgDirection.Scalar]
        scalars = [a for a, d in zip(args, directions, strict=True) if d is ArgDirection.Scalar]
        for arg, direction in tensors:
            if not (isinstance(arg, Var) and isinstance(arg.type, TensorType)):
                raise CodegenError(f"no rule for a {direction.name} argument that is not a tensor variable in "
                                   "orchestration", arg.span)
            if arg in self.strided:
                raise CodegenError(
                    f"no rule for passing the strided view '{arg.name_hint}' to kernel '{target.name}' in "
                    "orchestration", call.span,
                    "a kernel tensor is packed row-major from the view's start: pass a block of whole rows, or the "
                    "whole tensor and the window's offsets as scalars")
            doc.line(f"{params}.{_ARG_METHODS[direction]}({self.name_of(arg)});")
        for arg in scalars:
            doc.line(f"{params}.add_scalar({self._scalar_arg(arg)});")
        taskids.dump_markers(self, call, params, [a for a, _ in tensors])
        if wrapper is None:
            self._deps(call, params)
            self._launch(call, params)
        else:
            self._launch(call, params, wrapper)
            self._deps(call, params)
        if isinstance(call, Submit) and call.predicate is not None:
            self._predicate(call.predicate, params)
        if target.func_type is FunctionType.Group:
            submit = f"rt_submit_task({self._mixed(target, n)}, {params})"
        else:
            kind = "aiv" if target.func_type is FunctionType.AIV else "aic"
            submit = f"rt_submit_{kind}_task({self.ids[target.name]}, {params})"
        outs = None
        if isinstance(call, Submit):
            outs = self.fresh(f"task_{n}_outs")
            doc.line(f"TaskOutputTensors {outs} = {submit};")
        else:
            doc.line(f"{submit};")
        if var is not None:
            results = self._results(call, target) if wrapper is None else self._wrapper_results(call, wrapper)
            if isinstance(var.type, TupleType):
                self.tuples[var] = results
                if outs is not None:
                    self.task_outs[var] = outs
            elif len(results) == 1:
                self.alias(var, results[0])
            else:
                raise CodegenError(f"no rule for binding '{var.name_hint}' to {len(results)} results in orchestration",
                                   call.span)
        return None

    def _mixed(self, group: Function, n: int) -> str:
        """``MixedKernels mixed_N = {aic, aiv, INVALID_KERNEL_ID};``: the Group's kernels as one task."""
        assert self.program is not None
        lanes = {FunctionType.AIC: "INVALID_KERNEL_ID", FunctionType.AIV: "INVALID_KERNEL_ID"}
        for kernel, _ in group_calls(self.program, group):
            # MixedKernelExpanded's GROUP_KERNELS refuses a second kernel of a side.
            assert lanes[kernel.func_type] == "INVALID_KERNEL_ID", f"Group '{group.name}': two {kernel.func_type}"
            lanes[kernel.func_type] = str(self.ids[kernel.name])
        # An AIV kernel dispatched on both vector lanes (dual_aiv_dispatch, or a split) fills the third slot.
        aiv = next((k for k, _ in group_calls(self.program, group) if k.func_type is FunctionType.AIV), None)
        dual = aiv is not None and runs_on_both_lanes(aiv)
        name = self.fresh(f"mixed_{n}")
        second = lanes[FunctionType.AIV] if dual else "INVALID_KERNEL_ID"
        self.doc.line(f"MixedKernels {name} = {{{lanes[FunctionType.AIC]}, {lanes[FunctionType.AIV]}, {second}}};")
        return name

    @staticmethod
    def _through(group: Function, inner: Call, args: list[Expr]) -> list[Expr]:
        """A Group kernel's arguments in terms of the Group call's ``args``."""
        index = {p: k for k, p in enumerate(group.params)}
        return [args[index[a]] if isinstance(a, Var) and a in index else a for a in inner.args]

    def _guards(self, call: Call | Submit, kernel: Function, args: list[Expr], wrapper: Function | None) -> None:
        """Before a task: check each window the kernel reads or writes against its tensor, with the
        values passed (docs/simulator.md#bounds); a window outside is a fatal error of the run."""
        core_num = call.core_num if isinstance(call, Submit) else call.attrs.get("core_num")
        if core_num is None and wrapper is not None:
            core_num = wrapper.attrs.get("core_num")
        if core_num is None or isinstance(core_num, int):
            core_num = index_const(1 if core_num is None else core_num)
        values: dict[Var, Expr] = {BLOCK_NUM: core_num}
        saved = dict(self.names)
        for p, arg in zip(kernel.params, args, strict=True):
            if not isinstance(p.type, TensorType):
                values[p] = arg
                continue
            for axis, dim in enumerate(p.type.shape):
                if isinstance(dim, Var):
                    self.names[dim] = f"(int64_t){self.expr(arg)}.shapes[{axis}]"
        printed: set[str] = set()
        for window in kernel_windows(kernel):
            self._guard(call, kernel, args, window, values, printed)
        self.names = saved

    def _guard(self, call: Call | Submit, kernel: Function, args: list[Expr], window: Window,
               values: dict[Var, Expr], printed: set[str]) -> None:
        param, arg = kernel.params[window.param], args[window.param]
        if window.op in INDEX_DRIVEN and not window.bounded:
            raise CodegenError(
                f"no rule for a {window.op} of '{param.name_hint}' in kernel '{kernel.name}': it accesses the tensor "
                "at indices held in a tile, which the orchestration cannot check before the task runs", window.span,
                "a kernel may access its tensors only through windows checked against them (docs/simulator.md#bounds)"
                "; load and store windows bounded by the kernel's scalar parameters instead")
        if not window.bounded:
            raise CodegenError(
                f"no rule for a {window.op} of '{param.name_hint}' in kernel '{kernel.name}' whose window the "
                "orchestration cannot bound", window.span,
                "offsets and extents must be computed from the kernel's scalar parameters, loop variables and "
                "constants, so the run can check them before the task starts")
        when = [instantiate(c, values) for c in window.when]
        if any(const_truth(c) is False for c in when):
            return
        when = [c for c in when if const_truth(c) is None]
        los = [instantiate(e, values) for e in window.lo]
        his = [instantiate(e, values) for e in window.hi]
        dims: list[int | str] = [d.value if isinstance(d, ConstInt) else f"(int64_t){self.expr(arg)}.shapes[{a}]"
                                 for a, d in enumerate(param.type.shape)]
        outside = []
        for lo, hi, dim in zip(los, his, dims, strict=True):
            if not (isinstance(lo, ConstInt) and lo.value >= 0):
                outside.append(f"{self._operand(lo)} < 0")
            if not (isinstance(hi, ConstInt) and isinstance(dim, int) and hi.value <= dim):
                outside.append(f"{self._operand(hi)} > {dim}")
        if not outside:
            return
        tensor = base_name(arg.name_hint) if isinstance(arg, Var) else param.name_hint
        where = f" ({call.span.file_name}:{call.span.begin_line})" if call.span.begin_line > 0 else ""
        axes = [f"{self._shown(lo)}:{self._shown(hi)}" for lo, hi in zip(los, his, strict=True)]
        shape = [str(d) if isinstance(d, int) else "%lld" for d in dims]

        def message(escape: Callable[[str], str]) -> str:
            return describe_window(escape(kernel.name), escape(where), window.op, escape(tensor), axes, shape)

        # printf arguments in the order of the placeholders: each axis's bounds, then the dimensions.
        shown = [f"(long long)({self.expr(b)})" for lo, hi in zip(los, his, strict=True) for b in (lo, hi)
                 if not isinstance(b, ConstInt)]
        shown += [f"(long long){d}" for d in dims if not isinstance(d, int)]
        if not shown and not when:
            raise CodegenError(message(str), call.span, "every run of this task accesses memory outside the tensor")
        cond = " || ".join(outside)
        if when:
            cond = " && ".join([*(f"({self.expr(c)})" for c in when), f"({cond})"])
        if cond in printed:
            return
        printed.add(cond)
        with self.doc.block(f"if ({cond}) {{"):
            text = f'"{BoundsGuard.WINDOW.marker} {message(_c_format)}"'
            self.doc.line(f"rt_report_fatal(PTO2_ERROR_INVALID_ARGS, {', '.join([text, *shown])});")
            self.doc.line("return;")

    @staticmethod
    def _shown(bound: Expr) -> str:
        """A window bound in the guard's message: a constant as is, else a printf placeholder."""
        return str(bound.value) if isinstance(bound, ConstInt) else "%lld"

    def _results(self, call: Call | Submit, target: Function) -> list[str]:
        """The C++ names of the callee's results: each is the argument passed for the parameter the
        callee returns (ReturnParamsExplicit); a Group's result may be one of its kernel's."""
        if target.func_type is not FunctionType.Group:
            return [self.expr(call.args[k]) for k in _returned_params(call, target)]
        assert self.program is not None
        results: dict[Var, Expr] = {}
        for stmt in function_index(target).of(AssignStmt):
            kernel = function_named(self.program, stmt.value.op.name) if (
                isinstance(stmt.value, Call) and isinstance(stmt.value.op, GlobalVar)) else None
            if kernel is not None and kernel.func_type in _KERNEL_TYPES:
                returned = _returned_params(stmt.value, kernel)
                if len(returned) == 1 and isinstance(stmt.value.args[returned[0]], Var):
                    results[stmt.var] = stmt.value.args[returned[0]]
        names = []
        for k in returned_params(target, lambda v: results.get(v, v)):
            if k is None:
                raise CodegenError(f"no rule for a result of Group '{target.name}' that is not one of its parameters "
                                   "in orchestration", call.span, "a Group returns the Out/InOut tensors its kernels "
                                   "write")
            names.append(self.expr(call.args[k]))
        return names

    def _kernel_args(self, call: Call | Submit, wrapper: Function,
                     directions: list[ArgDirection]) -> tuple[list[Expr], list[ArgDirection]]:
        """The kernel's arguments and directions for a Spmd launch: each wrapper parameter the inner
        call passes is replaced by the dispatch's argument for it; constants pass through."""
        assert self.program is not None
        _, inner, _ = spmd_kernel(self.program, wrapper)
        inner_directions = list(inner.attrs.get("arg_directions") or [])
        if len(inner_directions) != len(inner.args):
            raise CodegenError(f"no rule for a call of '{inner.op.name}' without one arg direction per argument "
                               "in orchestration", inner.span, "DeriveCallDirections sets attrs['arg_directions']")
        args: list[Expr] = []
        dirs: list[ArgDirection] = []
        for arg, direction in zip(inner.args, inner_directions, strict=True):
            k = next((k for k, p in enumerate(wrapper.params) if p is arg), None)
            if k is not None:
                args.append(call.args[k])
                dirs.append(directions[k])
            elif isinstance(arg, (ConstInt, ConstFloat, ConstBool)):
                args.append(arg)
                dirs.append(direction)
            else:
                raise CodegenError(f"no rule for a Spmd function '{wrapper.name}' passing the computed value "
                                   f"'{getattr(arg, 'name_hint', type(arg).__name__)}' to its kernel in orchestration", inner.span,
                                   "a Spmd wrapper passes its own parameters (or constants) to the kernel")
        return args, dirs

    def _wrapper_results(self, call: Call | Submit, wrapper: Function) -> list[str]:
        """A Spmd launch's results: a wrapper parameter it returns is the dispatch's argument; the
        inner call's result is the kernel's returned parameter, mapped back through the wrapper."""
        assert self.program is not None
        kernel, inner, inner_var = spmd_kernel(self.program, wrapper)

        def through_kernel(value: Var) -> Var:
            if value is not inner_var:
                return value
            kernel_returns = _returned_params(inner, kernel)
            arg = inner.args[kernel_returns[0]] if len(kernel_returns) == 1 else None
            return arg if isinstance(arg, Var) else value

        names = []
        for k in returned_params(wrapper, through_kernel):
            if k is None:
                raise CodegenError(f"no rule for a result of Spmd function '{wrapper.name}' that is not one of its "
                                   "parameters in orchestration", call.span,
                                   "a Spmd wrapper returns the Out/InOut tensors its kernel writes")
            names.append(self.expr(call.args[k]))
        return names

    def _scalar_arg(self, arg: Expr) -> str:
        if isinstance(arg, ConstFloat):
            return f"to_u64({_float_literal(arg.value)})"
        if isinstance(arg, (ConstInt, ConstBool)):
            return f"(uint64_t){self.expr(arg)}"
        text = self.expr(arg)
        dtype = getattr(arg.type, "dtype", None)
        return f"to_u64({text})" if isinstance(dtype, DataType) and dtype.is_float() else text

    def _deps(self, call: Call | Submit, params: str) -> None:
        """Explicit TaskId dependencies (§2.7): the submit's deps, then the compiler's edges."""
        deps: list[str] = []
        sources = list(call.deps) if isinstance(call, Submit) else []
        sources += list(call.attrs.get("compiler_manual_dep_edges") or [])
        for dep in sources:
            text = self.expr(dep)
            if text not in deps:
                deps.append(text)
        if not deps:
            return
        doc = self.doc
        array, count = f"{params}_deps", f"{params}_deps_count"
        for line in taskids.dep_lines(self, deps, array, count):
            doc.line(line)
        doc.line(f"{params}.set_dependencies({array}, {count});")

    def _launch(self, call: Call | Submit, params: str, wrapper: Function | None = None) -> None:
        """The launch spec: from the dispatch, else (core_num None) from the Spmd wrapper's attrs."""
        core_num = call.core_num if isinstance(call, Submit) else call.attrs.get("core_num")
        sync_start = call.sync_start if isinstance(call, Submit) else bool(call.attrs.get("sync_start"))
        if wrapper is not None and core_num is None:
            core_num = wrapper.attrs.get("core_num")
            sync_start = sync_start or bool(wrapper.attrs.get("sync_start"))
        if core_num is not None:
            n = core_num if isinstance(core_num, int) else self.expr(core_num)
            self.doc.line(f"{params}.launch_spec.{self.platform.launch}({n});")
        if sync_start:
            self.doc.line(f"{params}.launch_spec.set_require_sync_start(true);")
        if isinstance(call, Submit) and call.allow_early_resolve:
            self.doc.line(f"{params}.set_allow_early_resolve(true);")

    def _predicate(self, predicate: Expr, params: str) -> None:
        """The dispatch predicate the scheduler evaluates when the task is ready (orchestration_predicate)."""
        found = dispatch_predicate(predicate)
        pred = f"{params}_pred"
        doc = self.doc
        self._index_guard(found.tensor, found.indices, predicate.span, "the dispatch predicate", BoundsGuard.GATE)
        doc.line(f"CoreTaskPredicate {pred};")
        doc.line(f"{pred}.operand.tensor = &{self.name_of(found.tensor)};")
        doc.line(f"{pred}.operand.ndims = {len(found.indices)};")
        for k, index in enumerate(found.indices):
            text = self.expr(index)
            doc.line(f"{pred}.operand.indices[{k}] = {text if isinstance(index, ConstInt) else f'(uint32_t)({text})'};")
        doc.line(f"{pred}.op = PredicateOp::{found.op};")
        doc.line(f"{pred}.target = {found.target};")
        doc.line(f"{params}.set_predicate({pred});")

    def _index_guard(self, tensor: Var, indices: list[Expr], span: Span, what: str, guard: BoundsGuard) -> None:
        """Stop the run, as a kernel window out of bounds does, when a computed index of an element (a
        predicate's gate element, a ``tensor.read`` / ``tensor.write``) falls outside its tensor: the
        access would touch whatever lies there (constant indices are checked when the program is parsed)."""
        dims = [d.value if isinstance(d, ConstInt) else f"(int64_t){self.name_of(tensor)}.shapes[{a}]"
                for a, d in enumerate(tensor.type.shape)]
        where = f" ({span.file_name}:{span.begin_line})" if span.begin_line > 0 else ""
        verb = "writes" if guard is BoundsGuard.WRITE else "reads"
        for axis, (index, dim) in enumerate(zip(indices, dims, strict=True)):
            if isinstance(index, ConstInt):
                continue
            i = f"(int64_t)({self.expr(index)})"
            with self.doc.block(f"if ({i} < 0 || {i} >= {dim}) {{"):
                text = (f'"{guard.marker} {what}{_c_format(where)} {verb} element %lld of axis {axis} '
                        f'of \'{_c_format(base_name(tensor.name_hint))}\', whose extent is %lld"')
                self.doc.line(f"rt_report_fatal(PTO2_ERROR_INVALID_ARGS, {text}, (long long){i}, (long long){dim});")
                self.doc.line("return;")

    # ---- internal tensors ------------------------------------------------------------------------

    def _allocate(self, creates: list[AssignStmt]) -> None:
        """The tensor.create statements of one scope, batched into one alloc_tensors (§2.2)."""
        if not creates:
            return
        for stmt in creates:
            self._check_spelled(stmt.value)
            self.hoisted.add(id(stmt))
        self._alloc([(s.var, s.value) for s in creates])

    def _check_spelled(self, call: Call) -> None:
        rule = self.target.ops[call.op.name]
        dropped = rule.unspelled(call)
        if dropped:
            raise CodegenError(f"no rule for {call.op.name} with {', '.join(dropped)} in orchestration", call.span,
                               f"the orchestration spelling of '{call.op.name}' cannot print {', '.join(dropped)}")

    def _alloc(self, creates: list[tuple[Var, Call]]) -> None:
        doc = self.doc
        infos, names = [], []
        for var, call in creates:
            name = self.declare(var)
            shape = self._list(argument(call, "shape"), call.span)
            dtype = keyword(call, "dtype")
            if dtype not in SIMPLER_DTYPES:
                raise CodegenError(f"no rule for a {dtype.name} tensor in orchestration", call.span)
            ci = self.fresh(f"{name}_ci")
            doc.line(f"uint32_t {ci}_shapes[{len(shape)}] = {{{', '.join(shape)}}};")
            manual = ", true" if keyword(call, "manual_dep") else ""  # creator-only dependency tracking
            doc.line(f"TensorCreateInfo {ci}({ci}_shapes, {len(shape)}, DataType::{SIMPLER_DTYPES[dtype]}{manual});")
            rule = self.target.ops[call.op.name]
            positional = is_parameter(call.op.name, rule.value)
            init = argument(call, rule.value) if positional else keyword(call, rule.value)
            if init is not None:
                value = init.value if isinstance(init, (ConstInt, ConstFloat)) else init  # tensor.full's operand
                doc.line(f"{ci}.{rule.initial}({_typed_literal(value, dtype, call.span)});")
            infos.append(ci)
            names.append(name)
        alloc = self.fresh(f"alloc_{self.allocs}")
        self.allocs += 1
        doc.line(f"TaskOutputTensors {alloc} = alloc_tensors({', '.join(infos)});")
        for k, name in enumerate(names):
            doc.line(f"const ChipTensor& {name} = {alloc}.get_ref({k});")

    # ---- op calls --------------------------------------------------------------------------------

    @rules.op(CreateTensor)
    def _create(self, call: Call, rule: CreateTensor) -> None:
        var = self._defined(call)
        self._alloc([(var, call)])

    @rules.op(View)
    def _view(self, call: Call, rule: View) -> None:
        var = self._defined(call)
        source = argument(call, "tensor")
        valid = argument(call, "valid_shape")
        # A view covers its valid region: its kernels are passed the extents (MaterializeValidShapeSymbols).
        given = isinstance(valid, MakeTuple) and valid.elements
        shape = self._list(valid if given else argument(call, "shape"), call.span)
        offset = self._list(argument(call, "offset"), call.span)
        if keyword(call, "clamp"):
            extents = [self.expr(d) for d in source.type.shape]
            shape = [f"(uint32_t)(({o}) >= ({e}) ? 0 : (({s}) < ({e}) - ({o}) ? ({s}) : ({e}) - ({o})))"
                     for s, o, e in zip(shape, offset, extents, strict=True)]
        if source in self.strided or not _full_rows(argument(call, "shape"), source.type.shape):
            self.strided.add(var)
        drop = argument(call, "drop_dims")
        dropped = {e.value % len(shape) for e in drop.elements} if isinstance(drop, MakeTuple) else set()
        if dropped and var in self.strided:  # the runtime reshapes only a contiguous view
            raise CodegenError(
                f"no rule for {call.op.name} dropping axes of a window that is not a block of whole rows in "
                "orchestration", call.span,
                "pass the full-rank window to the kernel and slice it there, or take whole trailing axes")
        name, declared = self.defined_name(var, "ChipTensor")
        n = len(shape)
        self.doc.line(f"uint32_t {name}_offsets[{n}] = {{{', '.join(offset)}}};")
        self.doc.line(f"uint32_t {name}_shapes[{n}] = {{{', '.join(shape)}}};")
        view = f"{self.expr(source)}.{rule.mnemonic}({name}_shapes, {name}_offsets)"
        if not dropped:
            self.doc.line(f"{declared}{name} = {view};")
            return
        kept = [s for axis, s in enumerate(shape) if axis not in dropped]
        self.doc.line(f"ChipTensor {name}_window = {view};")
        self.doc.line(f"uint32_t {name}_kept[{len(kept)}] = {{{', '.join(kept)}}};")
        self.doc.line(f"{declared}{name} = {name}_window.{rule.drop}({name}_kept, {len(kept)});")

    @rules.op(Reshape)
    def _reshape(self, call: Call, rule: Reshape) -> None:
        var = self._defined(call)
        source, shape = argument(call, "tensor"), argument(call, "shape")
        if shape is None:  # tensor.view without a shape: the same handle
            self.alias(var, self.expr(source))
            return
        if source in self.strided:
            raise CodegenError(f"no rule for {call.op.name} of the strided view '{source.name_hint}' in orchestration",
                               call.span, "reshape the whole tensor, or a view of whole rows of it")
        dims = self._list(shape, call.span)
        name, declared = self.defined_name(var, "ChipTensor")
        self.doc.line(f"uint32_t {name}_shapes[{len(dims)}] = {{{', '.join(dims)}}};")
        self.doc.line(f"{declared}{name} = {self.expr(source)}.{rule.mnemonic}({name}_shapes, {len(dims)});")

    @rules.op(MethodCall)
    def _method(self, call: Call, rule: MethodCall) -> str:
        receiver = self.expr(argument(call, rule.receiver))
        args = ", ".join(self.expr(argument(call, a)) for a in rule.args)
        return f"{receiver}.{rule.mnemonic}({args})"

    @rules.op(Dim)
    def _dim(self, call: Call, rule: Dim) -> str:
        tensor, axis = argument(call, "tensor"), argument(call, "axis")
        if not isinstance(axis, ConstInt):
            raise CodegenError("no rule for tensor.dim of a non-constant axis in orchestration", call.span)
        extent = tensor.type.shape[axis.value]
        if isinstance(extent, ConstInt):
            return str(extent.value)
        if tensor in self.tensor_params:
            return f"(int64_t)orch_args.tensor({self.tensor_params[tensor]}).ref().{rule.mnemonic}[{axis.value}]"
        return f"(int64_t){self.expr(tensor)}.{rule.mnemonic}[{axis.value}]"

    @rules.op(ElementAccess)
    def _element(self, call: Call, rule: ElementAccess) -> str | None:
        tensor = argument(call, "tensor")
        exprs = argument(call, "indices")
        if isinstance(tensor, Var) and isinstance(exprs, MakeTuple):
            guard = BoundsGuard.WRITE if rule.store else BoundsGuard.READ
            self._index_guard(tensor, list(exprs.elements), call.span, call.op.name, guard)
        indices = self._list(exprs, call.span)
        base = self.defining.name_hint if self.defining is not None else "elem"
        idx = self.fresh(f"{base}_idx")
        self.doc.line(f"uint32_t {idx}[{len(indices)}] = {{{', '.join(indices)}}};")
        t = self.expr(tensor)
        if not rule.store:
            return f"{rule.mnemonic}<{c_type(ScalarType(tensor.type.dtype), call.span)}>({t}, {len(indices)}, {idx})"
        value = argument(call, "value")
        text = self.expr(value)
        ct = c_type(ScalarType(tensor.type.dtype), call.span)
        if getattr(value.type, "dtype", None) != tensor.type.dtype:
            text = f"({ct})({text})"
        self.doc.line(f"{rule.mnemonic}({t}, {len(indices)}, {idx}, {text});")
        if self.defining is not None:
            self.alias(self.defining, t)  # the written tensor is the same handle
        return None

    rules.op(Array)(taskids.array_op)
    rules.op(DummyTask)(taskids.dummy_task)

    @rules.op(Expression)
    def _expression(self, call: Call, rule: Expression) -> str:
        return f"{rule.mnemonic}()"

    def _defined(self, call: Call) -> Var:
        if self.defining is None:
            raise CodegenError(f"no rule for an unused {call.op.name} in orchestration", call.span)
        return self.defining

    def _list(self, value: Expr | None, span: Span) -> list[str]:
        if not isinstance(value, MakeTuple):
            raise CodegenError("no rule for a shape or index list that is not a literal list in orchestration", span)
        return [self.expr(e) for e in value.elements]

    # ---- expressions -----------------------------------------------------------------------------

    def expr(self, node: Expr) -> str:
        """The C++ text of a scalar or tensor-handle expression."""
        saved, self.defining = self.defining, None
        text = self.emit(node)
        self.defining = saved
        if text is None:
            raise CodegenError(f"no rule for {type(node).__name__} as a value in orchestration", node.span)
        return text

    @rules.register(Var)
    def _var(self, node: Var) -> str:
        return self.name_of(node)

    @rules.register(ConstInt)
    def _const_int(self, node: ConstInt) -> str:
        return str(node.value)

    @rules.register(ConstFloat)
    def _const_float(self, node: ConstFloat) -> str:
        return _float_literal(node.value) if node.dtype == DataType.FP32 else repr(float(node.value))

    @rules.register(ConstBool)
    def _const_bool(self, node: ConstBool) -> str:
        return "true" if node.value else "false"

    @rules.register(*_INFIX)
    def _infix(self, node: BinaryExpr) -> str:
        return f"{self._operand(node.left)} {_INFIX[type(node)]} {self._operand(node.right)}"

    @rules.register(FloorDiv, FloorMod)
    def _floor(self, node: FloorDiv | FloorMod) -> str:
        a, b = self._operand(node.left), self._operand(node.right)
        dtype = node.type.dtype
        if dtype.is_float():
            raise CodegenError(f"no rule for {type(node).__name__} of {dtype.to_string()} values in orchestration",
                               node.span, "floor division in orchestration code is on integers")
        div = isinstance(node, FloorDiv)
        if dtype.is_unsigned_int():
            return f"{a} {'/' if div else '%'} {b}"
        return int_floor_div(a, b) if div else int_floor_mod(a, b)

    @rules.register(*_PREFIX)
    def _prefix(self, node: Neg | BitNot | Not) -> str:
        return f"{_PREFIX[type(node)]}{self._operand(node.operand)}"

    @rules.register(Min, Max)
    def _min_max(self, node: Min | Max) -> str:
        a, b = self._operand(node.left), self._operand(node.right)
        return f"({a} {'<' if isinstance(node, Min) else '>'} {b} ? {a} : {b})"

    @rules.register(Xor)
    def _xor(self, node: Xor) -> str:
        return f"(bool){self._operand(node.left)} != (bool){self._operand(node.right)}"

    @rules.register(Pow)
    def _pow(self, node: Pow) -> str:
        a, b = self._operand(node.left), self._operand(node.right)
        c = c_type(ScalarType(node.dtype), node.span)
        if node.dtype.is_float():
            return f"({c})__builtin_pow({a}, {b})"
        return int_pow(a, b, c)

    @rules.register(Abs)
    def _abs(self, node: Abs) -> str:
        x = self._operand(node.operand)
        return f"({x} < 0 ? -{x} : {x})"

    @rules.register(Cast)
    def _cast(self, node: Cast) -> str:
        return f"({c_type(ScalarType(node.dtype), node.span)}){self._operand(node.operand)}"

    @rules.register(MakeTuple)
    def _make_tuple(self, node: MakeTuple) -> str:
        return "{" + ", ".join(self.expr(e) for e in node.elements) + "}"

    @rules.register(TupleGetItemExpr)
    def _get_item(self, node: TupleGetItemExpr) -> str:
        source = node.tuple
        parts = self.tuples.get(source) if isinstance(source, Var) else None
        if parts is not None and node.index < len(parts):
            return parts[node.index]
        if parts is not None and node.index == len(parts) and source in self.task_outs:
            return f"{self.task_outs[source]}.task_id()"
        raise CodegenError(f"no rule for element {node.index} of this value in orchestration", node.span,
                           "elements are taken from call and submit results")

    def _operand(self, node: Expr) -> str:
        text = self.expr(node)
        simple = isinstance(node, (Var, ConstBool, ConstFloat)) or (isinstance(node, ConstInt) and node.value >= 0)
        return text if simple else f"({text})"


def _full_rows(window: Expr | None, extents: list[Expr]) -> bool:
    """The window spans every axis but the first in full (a contiguous block of rows); an extent
    not provably equal (a different expression) counts as narrower."""
    sizes = window.elements if isinstance(window, MakeTuple) else None
    if sizes is None or len(sizes) != len(extents):
        return False
    return all(_same_extent(s, e) for s, e in zip(sizes[1:], extents[1:], strict=True))


def _same_extent(a: Expr, b: Expr) -> bool:
    if isinstance(a, ConstInt) and isinstance(b, ConstInt):
        return a.value == b.value
    return a is b


def _always_submits(body: Stmt) -> bool:
    """True when every run of ``body`` submits a task: a call outside ifs and whiles, in loops of
    constant positive trip count only."""
    for stmt in _block(body):
        if isinstance(stmt, RuntimeScopeStmt) and _always_submits(stmt.body):
            return True
        if isinstance(stmt, ForStmt) and _trips(stmt) > 0 and _always_submits(stmt.body):
            return True
        value = stmt.value if isinstance(stmt, AssignStmt) else stmt.expr if isinstance(stmt, EvalStmt) else None
        if isinstance(value, (Call, Submit)) and isinstance(value.op, GlobalVar):
            return True
    return False


def _trips(loop: ForStmt) -> int:
    """The trip count of a loop with constant bounds (0 when they are not constant)."""
    bounds = [b.value if isinstance(b, ConstInt) else None for b in (loop.start, loop.stop, loop.step)]
    start, stop, step = bounds
    if start is None or stop is None or not step:
        return 0
    return len(range(start, stop, step))


def _c_format(text: str) -> str:
    """``text`` inside a C printf format string literal."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")


def _block(stmt: Stmt) -> list[Stmt]:
    return list(stmt.stmts) if isinstance(stmt, SeqStmts) else [stmt]


def _returned_params(call: Call | Submit, target: Function) -> list[int]:
    """The parameter index of each value ``target`` returns (ReturnParamsExplicit)."""
    indices = returned_params(target)
    if None in indices:
        raise CodegenError(f"no rule for a result of '{target.name}' that is not one of its parameters in "
                           "orchestration", call.span, "a kernel returns the Out/InOut tensors it writes")
    return [k for k in indices if k is not None]


def _is_create(stmt: Stmt) -> bool:
    return isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call) and stmt.value.op.name == "tensor.create"


def _negative(step: Expr) -> bool:
    return (isinstance(step, ConstInt) and step.value < 0) or (isinstance(step, Neg) and isinstance(step.operand, ConstInt))


def _float_literal(value: float) -> str:
    return f"{value:f}f"


def _typed_literal(value: float, dtype: DataType, span: Span) -> str:
    """An initial value as a literal of the tensor's element type (the runtime stores its bits)."""
    if dtype == DataType.FP32:
        return _float_literal(value)
    if dtype.is_int() and float(value).is_integer():
        return f"({_C_TYPES[dtype]}){int(value)}"
    raise CodegenError(f"no rule for an initial value {value} of a {dtype.name} tensor in orchestration", span,
                       "initial values print for FP32 and integer tensors")


def generate_orchestration(program: Program, platform: Platform | None = None) -> dict[str, str]:
    """The orchestration C++ of ``program``: ``{"orchestration/<name>.cpp": text}`` (empty when the
    program has no Orchestration function). ``platform`` (the compile's; outside a compile the current
    backend's by default) selects the launch-spec spelling."""
    return OrchestrationEmitter(platform if platform is not None else current_platform())(program)
