"""surface: what the parser produces.

Pre-SSA code: variables may be re-assigned, loops may ``break``/``continue``, Inline functions
and ``pl.unroll`` loops are still present, and scopes (``pl.at``, ``pl.cluster``, ``pl.spmd``,
``pl.scope``, ``pl.split_aiv``) stand in the code. Every single-chip node kind belongs to it; the
invariants are the structural set that holds in every dialect (docs/passes.md#contract).
"""

from __future__ import annotations

from pypto.ir import expr as _expr
from pypto.ir import stmt as _stmt
from pypto.ir.function import Function, Program
from pypto.ir.memref import MemRef

from .dialect import Dialect
from .invariants import STRUCTURAL, InputsNotWritten, OutParamsWritten

_BINARY = [
    getattr(_expr, n)
    for n in (
        "Add",
        "Sub",
        "Mul",
        "FloatDiv",
        "FloorDiv",
        "FloorMod",
        "Pow",
        "Min",
        "Max",
        "Eq",
        "Ne",
        "Lt",
        "Le",
        "Gt",
        "Ge",
        "And",
        "Or",
        "Xor",
        "BitAnd",
        "BitOr",
        "BitXor",
        "BitShiftLeft",
        "BitShiftRight",
    )
]
_UNARY = [_expr.Neg, _expr.BitNot, _expr.Not, _expr.Abs, _expr.Cast]
_EXPRESSIONS = [
    _expr.Var,
    _expr.IterArg,
    MemRef,
    _expr.ConstInt,
    _expr.ConstFloat,
    _expr.ConstBool,
    _expr.Call,
    _expr.Submit,
    _expr.MakeTuple,
    _expr.TupleGetItemExpr,
    *_BINARY,
    *_UNARY,
]
_STATEMENTS = [
    _stmt.AssignStmt,
    _stmt.EvalStmt,
    _stmt.SeqStmts,
    _stmt.IfStmt,
    _stmt.ForStmt,
    _stmt.WhileStmt,
    _stmt.YieldStmt,
    _stmt.ReturnStmt,
    _stmt.BreakStmt,
    _stmt.ContinueStmt,
    _stmt.InlineStmt,
    _stmt.InCoreScopeStmt,
    _stmt.ClusterScopeStmt,
    _stmt.HierarchyScopeStmt,
    _stmt.SpmdScopeStmt,
    _stmt.RuntimeScopeStmt,
    _stmt.SplitAivScopeStmt,
]
_DEFINITIONS = [_expr.Op, _expr.GlobalVar, Function, Program]

surface = Dialect(
    "surface",
    "parser output: re-assignment, break/continue, inline functions, unroll loops and scopes",
    kinds=[*_EXPRESSIONS, *_STATEMENTS, *_DEFINITIONS],
    # The directions a user declares are checked on the way in; outlining derives later ones.
    invariants=STRUCTURAL | {InputsNotWritten, OutParamsWritten},
)
