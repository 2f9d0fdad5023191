"""Helpers for the front-pass tests: the program as it reaches a pass, snapshot text, inputs."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves

# Scalar arguments the semantic checks try (loop counts, thresholds).
SCALAR_INPUTS = (0, 3, 7, 12)


def upto(name: str, program: ir.Program) -> ir.Program:
    """``program`` after the front passes that run before the pass called ``name``."""
    before = []
    for p in passes.front_passes():
        if p.name == name:
            return passes.PassManager(before).run(program) if before else program
        before.append(p)
    raise KeyError(name)


def before_after(name: str, before: ir.Program, after: ir.Program) -> str:
    """The snapshot text of one pass application: the printed input, then the printed output."""
    return f"# ---- before {name} ----\n{before.as_python()}\n\n# ---- after {name} ----\n{after.as_python()}\n"


def outline(program: ir.Program) -> str:
    """The statement tree of each function, one node kind per line (blocks show their size)."""
    lines: list[str] = []

    def visit(stmt: ir.Stmt, depth: int) -> None:
        size = f"[{len(stmt.stmts)}]" if isinstance(stmt, ir.SeqStmts) else ""
        lines.append("  " * depth + type(stmt).__name__ + size)
        children: list[ir.Stmt | None] = []
        if isinstance(stmt, ir.SeqStmts):
            children = list(stmt.stmts)
        elif isinstance(stmt, ir.IfStmt):
            children = [stmt.then_body, stmt.else_body]
        elif isinstance(stmt, (ir.ForStmt, ir.WhileStmt)):
            children = [stmt.body]
        for child in children:
            if child is not None:
                visit(child, depth + 1)

    for func in program.functions.values():
        lines.append(f"def {func.name}:")
        visit(func.body, 1)
    return "\n".join(lines)


def wrap_bodies(program: ir.Program) -> ir.Program:
    """``program`` with every one-statement body wrapped in its own SeqStmts (as IR builders often leave it).

    Such blocks print exactly like the bare statement, so only NormalizeStmtStructure's tests build them.
    """

    def wrap(body: ir.Stmt | None) -> ir.Stmt | None:
        if body is None:
            return None
        inner = visit(body)
        return inner if isinstance(inner, ir.SeqStmts) else ir.SeqStmts([inner], inner.span)

    def visit(stmt: ir.Stmt) -> ir.Stmt:
        if isinstance(stmt, ir.SeqStmts):
            return ir.SeqStmts([visit(s) for s in stmt.stmts], stmt.span)
        if isinstance(stmt, ir.IfStmt):
            return ir.replace(stmt, then_body=wrap(stmt.then_body), else_body=wrap(stmt.else_body))
        if isinstance(stmt, (ir.ForStmt, ir.WhileStmt, ir.ScopeStmt)):
            return ir.replace(stmt, body=wrap(stmt.body))
        return stmt

    funcs = [ir.replace(f, body=wrap(f.body)) for f in program.functions.values()]
    return ir.Program(funcs, program.name, program.span)


def inputs_for(program: ir.Program, scalar: int) -> list[Any]:
    """Arguments for ``main``: ``scalar`` for each scalar parameter, fixed random data for tensors."""
    rng = np.random.default_rng(7)
    args: list[Any] = []
    for p in program.get_function("main").params:
        t = p.type
        if isinstance(t, ir.ScalarType):
            args.append(scalar)
        else:
            args.append(rng.standard_normal([d.value for d in t.shape]).astype(np.float32))
    return args


def check_preserves(pass_or_pipeline: Any, program: ir.Program) -> ir.Program:
    """Run ``program`` before and after on every scalar input; return the transformed program."""
    result = program
    for n in SCALAR_INPUTS:
        result = assert_pass_preserves(pass_or_pipeline, program, inputs_for(program, n))
    return result
