"""Type invariants: TypeChecked (codes 101-111), AssignTypeSymmetry, TileTypeCoherence,
TensorViewCanonical and ArrayNotEscaped."""

from __future__ import annotations

import operator

from pypto.analysis import block, function_index

from pypto.ir.datatype import DataType
from pypto.ir.enums import TensorLayout
from pypto.ir.expr import ConstFloat, ConstInt, Expr
from pypto.ir.function import Function, Program
from pypto.ir.node import IRNode
from pypto.ir.stmt import AssignStmt, ForStmt, IfStmt, Stmt, WhileStmt, YieldStmt
from pypto.ir.type_base import ScalarType, TupleType, Type, UnknownType
from pypto.ir.types import ArrayType, ShapedType, TensorType, TileType

from .base import Invariant, Reporter
from .grammar import Field, NoNode
from .walk import checked_defs

_INT_LIKE = {DataType.INDEX, DataType.INT64}


def _kind(t: Type) -> str:
    if isinstance(t, TensorType):
        return "Tensor"
    if isinstance(t, TileType):
        return "Tile"
    if isinstance(t, ScalarType):
        return "Scalar"
    if isinstance(t, TupleType):
        return "Tuple"
    return type(t).__name__


def _same_dtype(expected: DataType, actual: DataType, literal: bool) -> bool:
    if expected == actual or {expected, actual} <= _INT_LIKE:
        return True
    # A bare literal takes the annotated dtype of its category.
    return literal and expected.is_int() == actual.is_int() and expected.is_float() == actual.is_float()


def _static(e: Expr) -> int | None:
    return e.value if isinstance(e, ConstInt) else None


# Whether a type class is a ShapedType, by class (isinstance against a pydantic class of another
# type runs the metaclass's check; an assignment is tested per statement).
_SHAPED: dict[type, bool] = {}


def _agree(expected: Type, actual: Type) -> bool:
    """True when an assignment of a value of type ``actual`` to a variable of type ``expected`` has
    nothing for :meth:`_Compare.types` to report without a closer look: one type object, or shaped
    types of one class and dtype whose dimensions are the same objects or not two different
    constants (a MemRef a pass added to the variable's type is not compared)."""
    if expected is actual:
        return True
    kind = type(expected)
    if kind is not type(actual):
        return False
    shaped = _SHAPED.get(kind)
    if shaped is None:
        shaped = _SHAPED[kind] = issubclass(kind, ShapedType)
    if not shaped or expected.dtype != actual.dtype:
        return False
    a, b = expected.shape, actual.shape
    if a is b:  # a variable's type made from its value's with a MemRef added keeps the shape list
        return True
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is not y and isinstance(x, ConstInt) and isinstance(y, ConstInt) and x.value != y.value:
            return False
    return True


_VAR_TYPE = operator.attrgetter("var.type")
_VALUE_TYPE = operator.attrgetter("value.type")


class _Compare:
    def __init__(self, report: Reporter) -> None:
        self.report = report

    def types(self, expected: Type, actual: Type, node: IRNode, what: str, carry: bool, literal: bool = False) -> None:
        """Report the first difference between ``expected`` and ``actual``."""
        if expected is actual:  # one type object (a carry's types mostly are): no difference
            return
        if isinstance(expected, UnknownType) or isinstance(actual, UnknownType):
            return
        if _kind(expected) != _kind(actual):
            self.report.error(101, f"{what}: expected a {_kind(expected)}, got a {_kind(actual)}", node)
        elif isinstance(expected, ScalarType):
            if not _same_dtype(expected.dtype, actual.dtype, literal):
                self.report.error(102, f"{what}: dtype {expected.dtype} vs {actual.dtype}", node)
        elif isinstance(expected, TupleType):
            if len(expected.types) != len(actual.types):
                self.report.error(105, f"{what}: {len(expected.types)} tuple elements vs {len(actual.types)}", node)
            else:
                for e, a in zip(expected.types, actual.types):
                    self.types(e, a, node, what, carry)
        elif isinstance(expected, ShapedType):
            self.shaped(expected, actual, node, what, carry)

    def shaped(self, expected: ShapedType, actual: ShapedType, node: IRNode, what: str, carry: bool) -> None:
        if expected.dtype != actual.dtype:
            self.report.error(102, f"{what}: dtype {expected.dtype} vs {actual.dtype}", node)
        elif len(expected.shape) != len(actual.shape):
            self.report.error(103, f"{what}: rank {len(expected.shape)} vs {len(actual.shape)}", node)
        else:
            for axis, (e, a) in enumerate(zip(expected.shape, actual.shape)):
                ev, av = _static(e), _static(a)
                if ev is not None and av is not None and ev != av:
                    self.report.error(104, f"{what}: dimension {axis} is {ev} vs {av}", node)
                    return
            if carry and isinstance(expected, TileType) and isinstance(actual, TileType):
                self.tile_views(expected, actual, node, what)

    def tile_views(self, expected: TileType, actual: TileType, node: IRNode, what: str) -> None:
        spaces = (expected.memory_space, actual.memory_space)
        if None not in spaces and spaces[0] != spaces[1]:
            self.report.error(111, f"{what}: memory space {spaces[0].name} vs {spaces[1].name}", node)
        elif None not in spaces and expected.get_effective_tile_view() != actual.get_effective_tile_view():
            self.report.error(111, f"{what}: tile views differ", node)

    def condition(self, cond: Expr, node: Stmt) -> None:
        t = cond.type
        if isinstance(t, UnknownType):
            return
        if not isinstance(t, ScalarType):
            self.report.error(106, f"condition must be a scalar, got a {_kind(t)}", node)
        elif t.dtype != DataType.BOOL:
            self.report.error(108, f"condition must be BOOL, got {t.dtype}", node)

    def carries(self, stmt: ForStmt | WhileStmt | IfStmt) -> None:
        targets = list(stmt.return_vars)
        if isinstance(stmt, IfStmt):
            bodies = [stmt.then_body, stmt.else_body]
        else:
            bodies = [stmt.body]
            for ia in stmt.iter_args:
                self.types(ia.type, ia.initValue.type, stmt, f"iter_arg '{ia.name_hint}' vs its init", True)
            if len(stmt.iter_args) == len(targets):
                for ia, rv in zip(stmt.iter_args, targets):
                    self.types(ia.type, rv.type, stmt, f"return var '{rv.name_hint}' vs its iter_arg", True)
            targets = list(stmt.iter_args)
        for body in bodies:
            stmts = block(body)
            last = stmts[-1] if stmts else None
            if not isinstance(last, YieldStmt) or not targets:
                continue
            if len(last.value) != len(targets):
                self.report.error(105, f"yield of {len(last.value)} values for {len(targets)} carried values", last)
                continue
            for var, value in zip(targets, last.value):
                self.types(var.type, value.type, last, f"yield into '{var.name_hint}'", True)


_COMPOUND = (IfStmt, ForStmt, WhileStmt)


def _check_types(func: Function, program: Program, report: Reporter) -> None:
    cmp = _Compare(report)
    same: set[tuple[int, int]] = set()  # (variable type, value type) identities found the same shape
    index = function_index(func)
    assigns = index.of(AssignStmt)
    # Only these statements are checked: asking the index for them skips the rest (mostly
    # evaluations) without an isinstance test, which is slow against another pydantic class. When
    # every assignment agrees (one C-level pass), only the compound statements are left to look at.
    # Most functions before memory planning share one type object per assignment: told in C first.
    agree = all(map(operator.is_, map(_VAR_TYPE, assigns), map(_VALUE_TYPE, assigns))) or all(
        map(_agree, map(_VAR_TYPE, assigns), map(_VALUE_TYPE, assigns)))
    if not index.has(*_COMPOUND):  # most kernels: no list of compound statements to make
        checked = () if agree else assigns
    else:
        checked = index.of(*_COMPOUND) if agree else index.of(AssignStmt, *_COMPOUND)
    for stmt in checked:
        if isinstance(stmt, AssignStmt):
            expected, actual = stmt.var.type, stmt.value.type
            if expected is actual:
                continue  # one type object (the parser and passes share it)
            key = (id(expected), id(actual))  # the types are few: each pair is compared once
            if key in same:
                continue
            if _agree(expected, actual):
                same.add(key)
                continue
            literal = isinstance(stmt.value, (ConstInt, ConstFloat))
            cmp.types(stmt.var.type, stmt.value.type, stmt, f"assignment to '{stmt.var.name_hint}'", False, literal)
        elif isinstance(stmt, IfStmt):
            cmp.condition(stmt.condition, stmt)
            cmp.carries(stmt)
        elif isinstance(stmt, ForStmt):
            for bound in (stmt.start, stmt.stop, stmt.step):
                t = bound.type
                if not isinstance(t, (ScalarType, UnknownType)) or (isinstance(t, ScalarType) and not t.dtype.is_int()):
                    report.error(107, f"for range bound must be an integer scalar, got {t}", stmt)
                    break
            cmp.carries(stmt)
        elif isinstance(stmt, WhileStmt):
            cmp.condition(stmt.condition, stmt)
            cmp.carries(stmt)


TypeChecked = Invariant.per_function(
    "TypeChecked",
    "assignments, loop carries and branch yields agree in kind, dtype, rank and static dims; conditions are BOOL",
    _check_types,
    auto_verified=True,
)


def _check_symmetry(func: Function, program: Program, report: Reporter) -> None:
    for stmt in function_index(func).of(AssignStmt):
        lhs, rhs = stmt.var.type, stmt.value.type
        if isinstance(lhs, UnknownType) or isinstance(rhs, UnknownType):
            continue
        if lhs != rhs:
            report.error("ASSIGN_TYPE", f"'{stmt.var.name_hint}' is {lhs} but its value is {rhs}", stmt)


AssignTypeSymmetry = Invariant.per_function(
    "AssignTypeSymmetry",
    "an assignment's variable has exactly its value's type (MemRefs ignored)",
    _check_symmetry,
)


def _check_tile_coherence(func: Function, program: Program, report: Reporter) -> None:
    for var in checked_defs(func):
        t = var.type
        if isinstance(t, TileType) and t.tile_view is not None:
            canonical = TileType(t.shape, t.dtype, t.memref, t.tile_view, t.memory_space).tile_view
            if canonical != t.tile_view:
                report.error("IMPLICIT_VIEW_STORED", f"'{var.name_hint}' stores a tile view the type implies", var)


TileTypeCoherence = Invariant.per_function(
    "TileTypeCoherence",
    "a tile view equal to the implicit view of its shape and memory space is stored as absent",
    _check_tile_coherence,
)


def _canonical_strides(t: TensorType) -> list[int] | None:
    dims = [_static(d) for d in t.shape]
    if None in dims or t.tensor_view is None:
        return None
    strides = [1] * len(dims)
    for i in range(len(dims) - 2, -1, -1):
        strides[i] = strides[i + 1] * dims[i + 1]
    if t.tensor_view.layout is TensorLayout.DN and len(dims) >= 2:
        strides[-2], strides[-1] = 1, dims[-2]
    return strides


def _check_tensor_views(func: Function, program: Program, report: Reporter) -> None:
    # The defined variables' types are among the node types, which are few: most kernels have no view.
    if not any(t.tensor_view is not None for t in function_index(func).types_of(TensorType)):
        return
    for var in checked_defs(func):
        t = var.type
        if not isinstance(t, TensorType) or t.tensor_view is None:
            continue
        view = t.tensor_view
        if view.layout is TensorLayout.NZ:
            report.error("NZ_TENSOR", f"'{var.name_hint}' is an NZ tensor", var)
        elif not view.stride:
            report.error("IMPLICIT_STRIDE", f"'{var.name_hint}' has a tensor view without strides", var)
        else:
            want = _canonical_strides(t)
            have = [_static(s) for s in view.stride]
            if want is not None and None not in have and have != want:
                report.error("NON_CANONICAL_STRIDE", f"'{var.name_hint}' strides {have}, expected {want}", var)


TensorViewCanonical = Invariant.per_function(
    "TensorViewCanonical",
    "no NZ tensor; every tensor view has explicit packed canonical strides",
    _check_tensor_views,
)


_NO_ARRAY = NoNode(ArrayType, through=(TupleType,), at_node=True)


def _has_array(t: Type) -> bool:
    kind = type(t)
    if kind is TensorType or kind is ScalarType:  # the common kinds first: isinstance is slow (pydantic)
        return False
    return isinstance(t, ArrayType) or (isinstance(t, TupleType) and any(_has_array(e) for e in t.types))


def _no_array_escapes(func: Function) -> bool:
    """No parameter or return type is (or holds in a tuple) an array: the rules below find nothing."""
    return not any(_has_array(p.type) for p in func.params) and not any(_has_array(t) for t in func.return_types)


ArrayNotEscaped = Invariant.declared(
    "ArrayNotEscaped",
    "no array type (also inside tuples) among parameters or return types",
    Field(
        of=Function,
        field="params",
        refinement=_NO_ARRAY,
        code="ARRAY_PARAM",
        message="parameter '{item.name_hint}' is an array",
    ),
    Field(
        of=Function,
        field="return_types",
        refinement=_NO_ARRAY,
        code="ARRAY_RETURN",
        message="return value {index} is an array",
    ),
    holds_if=_no_array_escapes,
)
