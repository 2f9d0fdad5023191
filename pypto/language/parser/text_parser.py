"""Parsing DSL text: ``parse``, ``parse_program``, ``loads``, ``loads_program``.

The text is never executed. Its syntax tree is read: imports of ``pypto.language`` bind the
prefix (``pl``, ``ir``, any alias; ``pl`` when there is no import), module-level constants go
through the safe :class:`ConstantEvaluator`, and every function is parsed from its syntax tree.
So loading an IR dump from an untrusted source runs no code of that source.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path
from typing import Any, NoReturn

from pypto import ir
from pypto.ir import Span

from .calls import ProgramFunctionRef
from .diagnostics import ParserDefinitionError, ParserError, ParserFileError, ParserSyntaxError, ParserTypeError
from .env import Env
from .functions import FUNCTION_OPTIONS_HINT, FunctionOptions, function_options, parse_function, parse_signature
from pypto.ir.gcpause import gc_paused
from .inline import InlineFunction
from .program import ProgramContext
from .safe_eval import ConstantEvaluator
from .source import SourceFile

_HEADER = re.compile(r"#\s*pypto\.program(?::\s*(\S+))?")


class _TextModule:
    """The module-level content of a text: namespace, functions, program classes."""

    def __init__(self, src: SourceFile) -> None:
        import pypto.language as pl

        self.src = src
        self.namespace: dict[str, Any] = {}
        self.functions: list[tuple[ast.FunctionDef, FunctionOptions]] = []
        self.classes: list[ast.ClassDef] = []
        self.header_name = ""
        self.consts = ConstantEvaluator(src, self.namespace)
        self._language = pl
        for line in src.lines:
            match = _HEADER.match(line.strip())
            if match:
                self.header_name = match.group(1) or ""
                break
            if line.strip() and not line.strip().startswith("#"):
                break
        has_import = any(type(s) in (ast.Import, ast.ImportFrom) for s in src.tree.body)
        if not has_import:  # a printed function has no import line: its decorators name the prefix
            self.namespace["pl"] = pl
            for prefix in _decorator_prefixes(src.tree):
                self.namespace[prefix] = pl
        for stmt in src.tree.body:
            self._statement(stmt)

    def fail(self, cls: type, message: str, node: ast.AST, hint: str) -> NoReturn:
        """Raise ``cls`` at ``node``; ``hint`` says what to write instead."""
        raise cls(message, self.src.span(node), hint, source_lines=self.src.lines)

    def _statement(self, stmt: ast.stmt) -> None:
        kind = type(stmt)
        if kind is ast.Import:
            for alias in stmt.names:
                self._bind_import(alias.name, alias.asname, stmt)
        elif kind is ast.ImportFrom:
            if stmt.module == "__future__":
                return
            for alias in stmt.names:
                self._bind_import(f"{stmt.module}.{alias.name}", alias.asname or alias.name, stmt)
        elif kind is ast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is ast.Name:
            self.namespace[stmt.targets[0].id] = self.consts.eval(stmt.value)
        elif kind is ast.AnnAssign and type(stmt.target) is ast.Name and stmt.value is not None:
            self.namespace[stmt.target.id] = self.consts.eval(stmt.value)
        elif kind is ast.FunctionDef:
            self._function(stmt)
        elif kind is ast.ClassDef:
            self._check_decorators(stmt, "program")
            self.classes.append(stmt)
        elif kind is ast.Pass or (kind is ast.Expr and type(stmt.value) is ast.Constant):
            return
        else:
            self.fail(
                ParserSyntaxError,
                f"unsupported module-level statement ({kind.__name__})",
                stmt,
                "DSL text holds imports of pypto.language, constants, functions and @pl.program classes",
            )

    def _bind_import(self, module: str, asname: str | None, stmt: ast.stmt) -> None:
        if module != "pypto.language" and not module.startswith("pypto.language."):
            self.fail(
                ParserSyntaxError,
                f"only pypto.language can be imported in DSL text, not '{module}'",
                stmt,
                "import pypto.language as pl",
            )
        if asname is None:
            self.fail(
                ParserSyntaxError,
                "import pypto.language with an alias: import pypto.language as pl",
                stmt,
                "the alias is the prefix the text uses (pl.Tensor, pl.function ...): import pypto.language as pl",
            )
        try:
            value = importlib.import_module(module)
        except ImportError:
            parent, _, attr = module.rpartition(".")
            value = getattr(importlib.import_module(parent), attr, None)
            if value is None:
                self.fail(
                    ParserSyntaxError,
                    f"cannot import '{module}'",
                    stmt,
                    "import pypto.language itself (import pypto.language as pl) or one of its submodules",
                )
        self.namespace[asname] = value

    def _decorator(self, node: ast.expr) -> tuple[Any, dict[str, Any]]:
        """The decorator object and its keyword options."""
        if type(node) is ast.Call:
            if node.args:
                self.fail(
                    ParserSyntaxError,
                    "decorator options are keyword arguments",
                    node,
                    "name each option: @pl.function(type=pl.FunctionType.InCore)",
                )
            obj = self.consts.eval(node.func)
            return obj, {k.arg: self.consts.eval(k.value) for k in node.keywords}
        return self.consts.eval(node), {}

    def _check_decorators(self, node: ast.ClassDef, expected: str) -> None:
        # An undecorated class is no definition of the DSL: the wrong kind, as in the established API.
        for deco in node.decorator_list or [node]:
            obj, kwargs = self._decorator(deco) if deco is not node else (None, {})
            if obj is not getattr(self._language, expected, None) or kwargs:
                self.fail(
                    ParserDefinitionError,
                    f"a class in DSL text must be decorated with @pl.{expected}",
                    deco,
                    f"write @pl.{expected} (without options) above the class",
                )

    def function_options(self, node: ast.FunctionDef) -> FunctionOptions | None:
        """The options of ``@pl.function`` (None for ``@pl.inline``)."""
        options = function_options()
        for deco in node.decorator_list:
            obj, kwargs = self._decorator(deco)
            if obj is self._language.inline and not kwargs:
                return None
            if obj is not self._language.function:
                self.fail(
                    ParserDefinitionError,
                    "functions in DSL text are decorated with @pl.function or @pl.inline",
                    deco,
                    "use @pl.function, @pl.function(type=pl.FunctionType.InCore, ...) or @pl.inline",
                )
            try:
                options = function_options(**kwargs)
            except TypeError as err:
                # Python names the helper in an unknown-keyword error; the user wrote @pl.function.
                self.fail(ParserTypeError, str(err).replace("function_options()", "@pl.function"), deco,
                          FUNCTION_OPTIONS_HINT)
        return options

    def _function(self, node: ast.FunctionDef) -> None:
        options = self.function_options(node)
        if options is None:
            self.namespace[node.name] = InlineFunction(node.name, self.src, node, Env.of_namespace(self.namespace))
            return
        self.functions.append((node, options))
        self.namespace[node.name] = ProgramFunctionRef(node.name)

    def parse_functions(self, name: str) -> tuple[ProgramContext, list[ir.Function]]:
        """Parse the top-level functions as one group (they may call each other by name)."""
        ctx = ProgramContext(name)
        env = Env.of_namespace(self.namespace)
        for node, options in self.functions:
            ctx.add_signature(parse_signature(self.src, env, node, options, ctx), self.src.span(node))
        functions = [parse_function(sig) for sig in ctx.signatures.values()]
        return ctx, functions

    def parse_class(self, node: ast.ClassDef) -> ir.Program:
        ctx = ProgramContext(node.name)
        env = Env.of_namespace(self.namespace)
        for stmt in node.body:
            if type(stmt) is ast.FunctionDef:
                options = self.function_options(stmt)
                if options is None:
                    self.fail(
                        ParserDefinitionError,
                        "@pl.inline functions cannot be program members",
                        stmt,
                        "define the @pl.inline helper at module level, above the class, or make it "
                        "@pl.function(type=pl.FunctionType.Inline)",
                    )
                ctx.add_signature(parse_signature(self.src, env, stmt, options, ctx), self.src.span(stmt))
            elif not (type(stmt) is ast.Pass or (type(stmt) is ast.Expr and type(stmt.value) is ast.Constant)):
                self.fail(
                    ParserDefinitionError,
                    "a @pl.program class contains only @pl.function definitions",
                    stmt,
                    "move constants to module level (above the class) and decorate each method with @pl.function",
                )
        return ctx.build(self.src.span(node))


def _decorator_prefixes(tree: ast.Module) -> set[str]:
    """The root names of top-level decorators (``ir`` in ``@ir.function``)."""
    roots = set()
    for stmt in tree.body:
        for deco in getattr(stmt, "decorator_list", []):
            node = deco.func if type(deco) is ast.Call else deco
            if type(node) is ast.Attribute and type(node.value) is ast.Name:
                roots.add(node.value.id)
    return roots


def _parse_text(code: str, filename: str, want_program: bool) -> ir.Function | ir.Program:
    if not isinstance(code, str):
        raise ParserTypeError(
            f"pl.parse expects a string of DSL code, got {type(code).__name__}",
            hint="pass the source text (str); to read a file use pl.loads(path)",
        )
    with gc_paused():
        return _parse_source(code, filename, want_program)


def _parse_source(code: str, filename: str, want_program: bool) -> ir.Function | ir.Program:
    src = SourceFile.from_text(code, filename)
    try:
        module = _TextModule(src)
        if len(module.classes) > 1:
            module.fail(
                ParserDefinitionError,
                "the text defines more than one @pl.program class",
                module.classes[1],
                "parse one program per text: split the text, or merge the classes into one program",
            )
        if module.classes:
            if module.functions:
                _, functions = module.parse_functions(module.header_name)
                for func in functions:
                    module.namespace[func.name] = func
            return module.parse_class(module.classes[0])
        if not module.functions:
            raise ParserDefinitionError(
                f"{filename}: no @pl.function or @pl.program found",
                ir.Span(filename, 1, 1),
                "the text must define at least one @pl.function or one @pl.program class",
            )
        ctx, functions = module.parse_functions(module.header_name)
        if len(functions) == 1 and not want_program:
            return functions[0]
        functions.extend(ctx.externals.values())
        return ir.Program(functions, module.header_name, ir.Span(filename, 1, 1))
    except ParserError as err:
        err.attach_source(src.lines)
        raise


def parse(code: str, filename: str = "<string>") -> ir.Function | ir.Program:
    """Parse DSL text: a ``@pl.program`` class gives a Program, a single function a Function,
    several top-level functions a Program. The text is not executed."""
    return _parse_text(code, filename, want_program=False)


def parse_program(code: str, filename: str = "<string>") -> ir.Program:
    """Parse DSL text into a Program (top-level functions are wrapped in one)."""
    result = _parse_text(code, filename, want_program=True)
    assert isinstance(result, ir.Program)
    return result


def read_source(path: object, caller: str) -> tuple[str, str]:
    """The UTF-8 text of the DSL file at ``path`` and its name; ParserFileError when it cannot be
    read (``path`` is whatever the caller of ``caller`` passed, hence ``object``)."""
    if not isinstance(path, (str, Path)):
        raise ParserTypeError(
            f"{caller} expects a file path (str or pathlib.Path), got {type(path).__name__}",
            hint=f"for DSL source held in a string use pl.parse(code); {caller}(path) reads a file",
        )
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except IsADirectoryError:
        raise ParserFileError(
            f"cannot read DSL file '{name}': it is a directory",
            Span(name, -1, -1),
            f"pass the path of a .py / .pyir file holding the printed program to {caller}",
        ) from None
    except FileNotFoundError:
        where = "" if Path(path).is_absolute() else f" (relative paths start at {Path.cwd()})"
        raise ParserFileError(
            f"cannot read DSL file '{name}': no such file",
            Span(name, -1, -1),
            f"check the path{where}",
        ) from None
    except (OSError, ValueError) as err:  # ValueError: a NUL byte in the path
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise ParserFileError(
            f"cannot read DSL file '{name}': {reason}",
            Span(name, -1, -1),
            "check that the path names an existing file this process may read",
        ) from None
    try:
        return data.decode("utf-8-sig"), name
    except UnicodeDecodeError as err:
        start = err.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        line = data.count(b"\n", 0, start) + 1
        column = start - (data.rfind(b"\n", 0, start) + 1) + 1
        raise ParserFileError(
            f"cannot read DSL file '{name}': it is not UTF-8 text (byte 0x{data[start]:02x} at offset {start})",
            Span(name, line, column, line, column + 1),
            "DSL text is UTF-8: save the file as UTF-8, or check that it is a printed pypto program",
            source_lines=data.decode("utf-8", errors="replace").splitlines(keepends=True),
        ) from None


def loads(path: str | Path) -> ir.Function | ir.Program:
    """``parse`` of the file at ``path`` (UTF-8 text; ParserFileError when it cannot be read)."""
    code, name = read_source(path, "pl.loads")
    return parse(code, filename=name)


def loads_program(path: str | Path) -> ir.Program:
    """``parse_program`` of the file at ``path`` (UTF-8 text; ParserFileError when it cannot be read)."""
    code, name = read_source(path, "pl.loads_program")
    return parse_program(code, filename=name)
