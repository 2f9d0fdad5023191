"""The state of the body parser: variables, the statement block being built, loops and yields.

Variables follow Python scoping: a name assigned in a branch or a loop body stays visible after
it, a loop variable and iter_args only inside their loop. The parser's ``ir.Var`` objects are the
only record of which assignments are one source variable (no pass joins variables by name). Each
assignment makes a new ``ir.Var`` (as the established parser does), so straight-line code is in
SSA form as parsed, except where only the parser can tell what a re-assignment means:

* re-assigning a name that another block bound (an enclosing block, or a branch or loop body
  before, whose names stay bound after it) re-defines *that* ``ir.Var`` (pre-SSA form:
  ``ConvertToSSA`` threads it through phis and iter_args), unless ``strict_ssa`` makes each body a
  scope of its own;
* in a function that leaves a block early (``break``, ``continue``, a ``return`` before its last
  statement: :func:`leaves_early`) every re-assignment re-defines the ``ir.Var``: CtrlFlowTransform
  moves the code after such a jump into a branch, and a read after that branch means whichever
  assignment ran last;
* a loop body without a ``pl.yield_`` (pre-SSA) re-defines its iter_args; a body that yields
  re-binds their names as new variables;
* an ``@pl.inline`` helper's variables are its own, whatever their names.

Re-assigning a name with a value of another type is a ``ParserTypeError`` at the assignment: the new
value would be lost in a loop or a branch.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, NoReturn

from pypto import ir
from pypto.ir import DataType, Span
from pypto.ir.types import dims_equal

from ..typing.dynamic import DynVar
from ..typing.values import Value
from .diagnostics import ParserError, ParserSyntaxError, ParserTypeError, SSAViolationError
from .env import Env
from .source import SourceFile
from .type_match import show_type, type_mismatch


@dataclass
class YieldInfo:
    """A yield that ends a block: the names it binds, their annotated types and the values."""

    names: list[str]
    types: list[ir.Type | None]
    values: list[ir.Expr]
    node: ast.AST


@dataclass
class Block:
    """The block being parsed: who owns it (``function``, ``if``, ``for``, ``while``, ``scope``,
    ``inline``), how many values its loop carries (None when it is not a carrying loop), the
    yield (or, in an inline body, the return) that ended it, and the names bound in its strict-SSA
    scope (a ``scope`` block shares its parent's: ``with`` bodies do not open one)."""

    owner: str
    carried: int | None = None
    stmts: list[ir.Stmt] = field(default_factory=list)
    yielded: YieldInfo | None = None
    ended_by: ast.AST | None = None
    returned: list[ir.Expr] | None = None
    defined: set[str] = field(default_factory=set)
    parent: Block | None = None

    def scope(self) -> Block:
        """The block whose variables this block's assignments see as their own (``with`` bodies
        are transparent)."""
        block = self
        while block.owner == "scope" and block.parent is not None:
            block = block.parent
        return block


@dataclass
class FunctionState:
    """Per-function facts the statements need."""

    name: str
    func_type: ir.FunctionType
    strict_ssa: bool
    return_types: list[ir.Type] | None
    memref_bases: dict[str, ir.Var] = field(default_factory=dict)
    auto_scope: bool = True  # False: the function places its runtime scopes (pl.scope()) itself
    submit_tmps: int = 0  # pl.submit tuple temporaries so far: _submit_tmp, _submit_tmp_1, ...
    leaves_early: bool = False  # the body jumps (see leaves_early): re-assignments re-define their Var


def leaves_early(body: list[ast.stmt]) -> bool:
    """Whether a function body leaves a block early: a ``break`` or ``continue``, or a ``return``
    that is not the body's last statement (pypto.transform.reassign.leaves_early on the IR)."""
    last = body[-1] if body else None
    return any(
        type(n) in (ast.Break, ast.Continue) or (type(n) is ast.Return and n is not last)
        for stmt in body
        for n in ast.walk(stmt)
    )


def describe(value: Any) -> str:
    """A short description of a Python or IR value for messages."""
    if isinstance(value, ir.Expr):
        return f"a value of type {value.type}" if not isinstance(value.type, ir.UnknownType) else "an expression"
    if isinstance(value, (bool, int, float, str)):
        return f"{type(value).__name__} {value!r}"
    if value is None:
        return "None"
    name = getattr(value, "__name__", None)
    return f"{type(value).__name__} {name}" if name else type(value).__name__


class ParserCore:
    """Shared state and helpers of the body parser (see the module docstring for scoping)."""

    def __init__(self, src: SourceFile, env: Env, state: FunctionState, program: Any) -> None:
        self.src = src
        self.env = env
        self.state = state
        self.program = program  # ProgramContext or None
        self.vars: dict[str, ir.Var] = {}
        # id(var) -> the block binding it: a re-assignment re-defines a Var of an enclosing block.
        self.homes: dict[int, Block] = {}
        self.block = Block("function")
        self.loops: list[ir.ForKind | None] = []  # None = while loop
        # Loop variables of the enclosing pl.unroll loops: constants once UnrollLoops expands them.
        self.unroll_vars: set[ir.Var] = set()
        self.inline_depth = 0

    # ----- locations and errors -------------------------------------------------------------
    def span(self, node: ast.AST) -> Span:
        """The span of ``node`` in the current source."""
        return self.src.span(node)

    def fail(self, cls: type[ParserError], message: str, node: ast.AST, hint: str) -> NoReturn:
        """Raise ``cls`` at ``node``; ``hint`` says what to write instead (every parser error has one)."""
        raise cls(message, self.span(node), hint, source_lines=self.src.lines)

    # ----- statements and blocks -------------------------------------------------------------
    def emit(self, stmt: ir.Stmt) -> None:
        """Append ``stmt`` to the current block."""
        self.block.stmts.append(stmt)

    def parse_block(
        self,
        body: list[ast.stmt],
        owner: str,
        carried: int | None = None,
        bound: tuple[str, ...] = (),
        own: tuple[ir.Var, ...] = (),
    ) -> tuple[ir.Stmt, Block]:
        """Parse a nested block; returns the IR body (a single statement is not wrapped) and the block.

        ``bound`` names the block's own bindings made before its statements (loop variables), ``own``
        the variables bound in it (re-assigning them in it makes new variables). In a
        strict-SSA function a branch or loop body is a scope of its own, as in the established API:
        it may rebind an outer name (a new variable, as printed pass output does), and its names are
        out of scope after it (values leave it through ``pl.yield_``).
        """
        outer = self.block
        scoped = self.state.strict_ssa and owner != "scope"
        block = Block(owner, carried, defined=outer.defined if owner == "scope" else set(bound), parent=outer)
        for var in own:
            self.homes[id(var)] = block
        self.block = block
        before = dict(self.vars) if scoped else None
        try:
            self.parse_stmts(body)
        finally:
            self.block = outer
            if before is not None:
                for name in block.defined - set(bound):
                    if name in before:
                        self.vars[name] = before[name]
                    else:
                        self.vars.pop(name, None)
        span = self.span(body[0]) if body else Span.unknown()
        return make_body(block.stmts, span), block

    def parse_stmts(self, body: list[ast.stmt]) -> None:
        """Parse statements into the current block, attaching ``#`` comments to what they produce."""
        lower = 0  # the first statement's comments stop at the line that opens the block
        dispatch = self._stmt_dispatch
        block = self.block
        pending: list[str] = []
        for node in body:
            if block.ended_by is not None:
                what = "return" if type(block.ended_by) is ast.Return else "pl.yield_"
                self.fail(
                    ParserSyntaxError,
                    f"{what} must be the last statement of its block",
                    block.ended_by,
                    hint=f"move the statements after it before the {what}",
                )
            comments = self.src.leading_comments(node.lineno, lower)
            start = len(block.stmts)
            handler = dispatch.get(type(node))
            if handler is None:
                self.unsupported_stmt(node)
            docstring = handler(self, node)
            if docstring is not None:
                pending.extend(docstring)
            elif len(block.stmts) > start:
                stmt = block.stmts[start]
                if pending or comments:
                    ir.attach_leading_comments(stmt, pending + comments)
                    pending = []
            lower = node.end_lineno or node.lineno

    # ----- variables -------------------------------------------------------------------------
    def lookup_var(self, name: str) -> ir.Var | None:
        """The DSL variable bound to ``name``, if any."""
        return self.vars.get(name)

    def bind(self, name: str, var: ir.Var) -> None:
        """Bind ``name`` to ``var``, a variable of the current block."""
        self.vars[name] = var
        self.homes[id(var)] = self.block.scope()

    def redefines(self, name: str) -> bool:
        """Whether assigning ``name`` here re-defines its variable (pre-SSA form) instead of making
        a new one: outside ``strict_ssa``, a variable that the current block did not bind (an
        enclosing block's, or one left bound by an earlier body), or any variable of a function that
        leaves a block early (see the module docstring)."""
        var = self.vars.get(name)
        if var is None or self.state.strict_ssa:
            return False
        return self.state.leaves_early or self.homes.get(id(var)) is not self.block.scope()

    def assign(self, name: str, value: ir.Expr, declared: ir.Type | None, node: ast.AST) -> ir.Var:
        """Emit ``name = value`` (typed ``declared`` when annotated) and bind the name."""
        var_type = self.var_type(declared, value, node)
        span = self.span(node)
        existing = self.vars.get(name)
        if self.state.strict_ssa:
            if name in self.block.defined:
                self.fail(
                    SSAViolationError,
                    f"variable '{name}' is assigned more than once in strict SSA function '{self.state.name}'",
                    node,
                    hint="use a new name, or carry the value with pl.yield_ / init_values",
                )
            self.block.defined.add(name)
            existing = None  # a binding of an enclosing scope is shadowed by a new variable
        if existing is None:
            var = ir.Var(name, var_type, span)
        elif existing.type is var_type or existing.type == var_type or _adds_placement(existing.type, var_type):
            var = existing if self.redefines(name) else ir.Var(name, var_type, span)
        else:
            self.fail(
                ParserTypeError,
                f"Cannot reassign '{name}' with a different type: "
                f"was {show_type(existing.type)}, got {show_type(var_type)}",
                node,
                _reassign_hint(name, existing.type, var_type),
            )
        # An explicit empty list: pydantic deep-copies a mutable field default for every node.
        self.emit(ir.AssignStmt(var, value, span, leading_comments=[]))
        if var is existing:
            self.vars[name] = var
        else:
            self.bind(name, var)
        return var

    def var_type(self, declared: ir.Type | None, value: ir.Expr, node: ast.AST) -> ir.Type:
        """The type of a variable annotated ``declared`` (or not) that is assigned ``value``.

        The annotation must agree with the value in kind, dtype, rank and static dims (see
        :mod:`.type_match`); it wins otherwise, except that a tile annotation without memory
        space, view or MemRef takes the deduced type of a tile of the same shape and dtype (it
        only adds placement).
        """
        actual = value.type
        if declared is None:
            return actual
        if isinstance(actual, ir.UnknownType):
            return declared
        self.check_annotation(declared, value, node)
        if (
            isinstance(declared, ir.TileType)
            and isinstance(actual, ir.TileType)
            and declared.memory_space is None
            and declared.tile_view is None
            and declared.memref is None
            and declared.dtype == actual.dtype
            and dims_equal(declared.shape, actual.shape)
        ):
            return actual
        return declared

    def check_annotation(self, declared: ir.Type, value: ir.Expr, node: ast.AST) -> None:
        """A ParserTypeError at ``node`` when ``value`` disagrees with the annotation ``declared``."""
        reason = type_mismatch(declared, value.type, isinstance(value, (ir.ConstInt, ir.ConstFloat)))
        if reason is not None:
            self.fail(
                ParserTypeError,
                f"the annotation declares {show_type(declared)} but the value has type "
                f"{show_type(value.type)} ({reason})",
                node,
                f"annotate it as {show_type(value.type)} (or drop the annotation), "
                "or compute a value of the declared type",
            )

    # ----- values ----------------------------------------------------------------------------
    def to_expr(self, value: Any, node: ast.AST) -> ir.Expr:
        """An IR expression for a parsed value (Python numbers become INDEX / FP32 constants)."""
        if isinstance(value, ir.Expr):
            return value
        if isinstance(value, bool):
            return ir.ConstBool(value, self.span(node))
        if isinstance(value, int):
            return ir.ConstInt(value, DataType.INDEX, self.span(node))
        if isinstance(value, float):
            return ir.ConstFloat(value, DataType.FP32, self.span(node))
        if isinstance(value, Value):
            return value.unwrap()
        if isinstance(value, DynVar):
            return value.var
        if value is None:  # the DSL literal None is the "no producer task" TaskId
            return ir.create_op_call("system.task_invalid", [], self.span(node))
        if isinstance(value, (list, tuple)):
            return ir.MakeTuple([self.to_expr(v, node) for v in value], self.span(node))
        self.fail(
            ParserTypeError,
            f"{describe(value)} cannot be used as a DSL value",
            node,
            "DSL values are variables, op results, numbers, booleans, None (no TaskId) and lists / tuples of them",
        )


def _adds_placement(a: ir.Type, b: ir.Type) -> bool:
    """True when ``a`` and ``b`` are tiles of one shape and dtype, both with the implicit view (valid
    region = shape; TileType stores that as no view), and one of them has no memory space or MemRef
    (an ``-> pl.Tile[[16, 64], pl.FP32]`` helper result beside an op's Vec tile): the other only adds
    placement, as an annotation without one does (``var_type``). A smaller valid region is more than
    placement: a loop or branch could not carry both."""
    if not (isinstance(a, ir.TileType) and isinstance(b, ir.TileType) and a.dtype == b.dtype):
        return False
    if a.tile_view is not None or b.tile_view is not None:
        return False
    bare = [t for t in (a, b) if t.memory_space is None and t.memref is None]
    return bool(bare) and dims_equal(a.shape, b.shape)


def _reassign_hint(name: str, was: ir.Type, got: ir.Type) -> str:
    """Cast when only the dtype differs (``3 * n`` is INDEX: a bare int literal is), unpack a launch's
    (results, TaskId) tuple, else rename."""
    new_name = f"bind the new value to a new name ({name}_2 = ...)"
    last = got.types[-1] if isinstance(got, ir.TupleType) and got.types else None
    if isinstance(last, ir.ScalarType) and last.dtype.is_task_id():
        return f"a launch gives the kernel's results and its TaskId: unpack them, {name}, tid = pl.submit(...)"
    was_dtype, got_dtype = getattr(was, "dtype", None), getattr(got, "dtype", None)
    if (
        type(was) is type(got)
        and isinstance(was_dtype, DataType)
        and was_dtype != got_dtype
        and type_mismatch(was, got) in (None, f"dtype {got_dtype.name}, expected {was_dtype.name}")
    ):
        return f"cast the value to {name}'s dtype, pl.cast(value, pl.{was_dtype.name}), or {new_name}"
    return new_name


def make_body(stmts: list[ir.Stmt], span: Span) -> ir.Stmt:
    """A block body: the statement itself when there is one, else a ``SeqStmts``."""
    if len(stmts) == 1 and not isinstance(stmts[0], ir.SeqStmts):
        return stmts[0]
    return ir.SeqStmts(stmts, span)


def retype_literal(value: ir.Expr, dtype: DataType, span: Span) -> ir.Expr:
    """A bare literal (INDEX int / FP32 float constant) re-typed to ``dtype`` where that is exact."""
    if isinstance(value, ir.ConstInt) and value.dtype == DataType.INDEX and dtype != DataType.INDEX:
        if dtype.is_int():
            return ir.ConstInt(value.value, dtype, span)
        if dtype.is_float():
            return ir.ConstFloat(float(value.value), dtype, span)
    if isinstance(value, ir.ConstFloat) and value.dtype == DataType.FP32 and dtype.is_float() and dtype != value.dtype:
        return ir.ConstFloat(value.value, dtype, span)
    return value

