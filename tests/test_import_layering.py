"""The import graph of pypto is layered: no import cycle longer than 3 modules, an IR core below all.

The graph is built statically from the sources (``ast``), so an import that only runs on some
code path still counts. Counted as edges: module-level imports, imports inside functions and
classes (also under ``if TYPE_CHECKING:``), and ``importlib.import_module("literal")``. Package
``__init__`` facades are modules of their own. Not counted: imports inside a module-level
``def __getattr__``, the lazy re-export hook of a facade (it runs only when a user asks for the
name, after every module has loaded).
"""

from __future__ import annotations

import ast
import functools
from collections import Counter, deque
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# source folder -> installed package name (pyproject.toml package-dir)
FOLDERS = {"pypto": "pypto", "languages": "pypto.languages", "passes": "pypto.passes", "codegen": "pypto.codegen"}

MAX_CYCLE = 3

# The IR core: the node classes, what they are built from, the scalar expression factories behind
# Expr's Python operators, and the hooks through which it calls the printer, structural equality
# and the op registry. Everything else (those three, builders, passes, ...) sits above and may
# import the core, not the other way round.
IR_CORE = frozenset(
    {
        "pypto.ir.hooks",
        "pypto.ir.span",
        "pypto.ir.datatype",
        "pypto.ir.enums",
        "pypto.ir.errors",
        "pypto.ir.node",
        "pypto.ir.plain_getattr",
        "pypto.ir.attrs",
        "pypto.ir.type_base",
        "pypto.ir.memref",
        "pypto.ir.types",
        "pypto.ir.expr",
        "pypto.ir.scalar_ops",
        "pypto.ir.stmt",
        "pypto.ir.function",
    }
)


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` at ``file:line``."""

    source: str
    target: str
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.source} -> {self.target}  ({self.file}:{self.line})"


@functools.cache
def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Installed module name -> source file, for every module of the four source folders."""
    found = {}
    for folder, package in FOLDERS.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = path.relative_to(root / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def _lazy_getattr_nodes(tree: ast.Module) -> set[int]:
    """ids of the nodes inside a module-level ``def __getattr__`` (a facade's lazy re-exports)."""
    inside: set[int] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "__getattr__":
            inside.update(id(n) for n in ast.walk(stmt))
    return inside


def _imported_names(node: ast.AST, package: str) -> list[str]:
    """The absolute module names an import statement (or import_module call) in ``package`` asks for.

    For ``from X import a, b`` the first name is X, the others X.a and X.b.
    """
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        parts = package.split(".")
        parts = parts[: len(parts) - node.level + 1] if node.level else []
        base = ".".join([*parts, node.module] if node.module else parts)
        return [base] + [f"{base}.{alias.name}" for alias in node.names if alias.name != "*"]
    return [node.args[0].value]  # type: ignore[attr-defined]


def _is_import_module_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or len(node.args) < 1:
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    arg = node.args[0]
    return name == "import_module" and isinstance(arg, ast.Constant) and isinstance(arg.value, str)


@functools.cache
def import_edges(root: Path = ROOT) -> list[Edge]:
    """Every import edge between the modules of the four source folders."""
    files = module_files(root)
    edges = []
    for module, path in files.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        lazy = _lazy_getattr_nodes(tree)
        # the package relative imports start from: a facade's own name, a module's parent
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        rel = str(path.relative_to(root))
        for node in ast.walk(tree):
            if id(node) in lazy:
                continue
            if not isinstance(node, (ast.Import, ast.ImportFrom)) and not _is_import_module_call(node):
                continue
            names = _imported_names(node, package)
            if isinstance(node, ast.ImportFrom):
                # ``from pkg import name``: an edge to the submodule pkg.name if there is one,
                # otherwise to pkg itself
                source_package, subs = names[0], names[1:]
                targets = {s for s in subs if s in files}
                if len(targets) < len(subs) or not subs:
                    targets.add(source_package)
            else:
                targets = set(names)
            for target in sorted(t for t in targets if t in files and t != module):
                edges.append(Edge(module, target, rel, node.lineno))  # type: ignore[attr-defined]
    return edges


def strongly_connected_components(nodes: list[str], edges: list[Edge]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (no recursion limit, however long the import chains)."""
    succ: dict[str, list[str]] = {n: [] for n in nodes}
    for e in edges:
        succ[e.source].append(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(succ[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return components


def shortest_cycle(start: str, members: set[str], edges: list[Edge]) -> list[Edge]:
    """A shortest cycle through ``start`` inside a strongly connected component (breadth first)."""
    out: dict[str, list[Edge]] = {}
    for e in edges:
        if e.source in members and e.target in members:
            out.setdefault(e.source, []).append(e)
    came: dict[str, Edge] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for e in sorted(out.get(node, []), key=lambda e: (e.target, e.line)):
            if e.target == start:
                path = [e]
                while path[0].source != start:
                    path.insert(0, came[path[0].source])
                return path
            if e.target not in came:
                came[e.target] = e
                queue.append(e.target)
    raise AssertionError(f"{start} is on no cycle inside {sorted(members)}")


def describe_component(component: list[str], edges: list[Edge]) -> str:
    """The members of a cycle, shortest cycles through each of them with their import lines, and
    the import lines most of those cycles share (the likely one to cut)."""
    members = set(component)
    lines = [f"import cycle of {len(component)} modules: {', '.join(component)}"]
    cycles: list[list[Edge]] = []
    covered: set[str] = set()
    for start in component:
        if start not in covered:
            cycles.append(shortest_cycle(start, members, edges))
            covered.update(e.source for e in cycles[-1])
    for cycle in cycles:
        lines.append(f"  {cycle[0].source}" + "".join(f"\n      -> {e.target}  ({e.file}:{e.line})" for e in cycle))
    shared = Counter(e for cycle in cycles for e in cycle).most_common(3)
    if len(cycles) > 1:
        lines.append("  on most of these cycles:")
        lines.extend(f"    {e}  (on {n} of {len(cycles)})" for e, n in shared if n > 1)
    return "\n".join(lines)


SAMPLE_TREE = {
    "pypto/__init__.py": "from . import ir\nfrom . import passes\n",
    "pypto/ir/__init__.py": (
        "from .expr import Var\n\n\ndef __getattr__(name):\n    from pypto.compile import compile\n    return compile\n"
    ),
    "pypto/ir/expr.py": "def f():\n    from ..ir import printer\n    from . import hooks\n",
    "pypto/ir/hooks.py": "",
    "pypto/ir/printer/__init__.py": "from pypto.ir.expr import Var\n",
    "pypto/compile.py": (
        "import importlib\nfrom pypto.passes import PassManager\nimportlib.import_module('pypto.ir.hooks')\n"
    ),
    "passes/__init__.py": "from .manager import PassManager\n",
    "passes/manager.py": "from pypto.ir import Var\nfrom pypto.languages import dialect\nimport numpy\n",
    "languages/__init__.py": "",
    "languages/dialect.py": "import pypto.ir.expr\n",
    "codegen/__init__.py": "",
}


def test_graph_resolves_every_import_form(tmp_path: Path) -> None:
    for name, text in SAMPLE_TREE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    edges = {(e.source, e.target, e.line) for e in import_edges(tmp_path)}
    assert edges == {
        ("pypto", "pypto.ir", 1),
        ("pypto", "pypto.passes", 2),  # the installed name of passes/
        ("pypto.ir", "pypto.ir.expr", 1),  # not pypto.compile: a lazy __getattr__ re-export
        ("pypto.ir.expr", "pypto.ir.printer", 2),  # relative, two levels, inside a function
        ("pypto.ir.expr", "pypto.ir.hooks", 3),
        ("pypto.ir.printer", "pypto.ir.expr", 1),
        ("pypto.compile", "pypto.passes", 2),  # a name that is no submodule: the facade
        ("pypto.compile", "pypto.ir.hooks", 3),  # importlib.import_module("literal")
        ("pypto.passes", "pypto.passes.manager", 1),
        ("pypto.passes.manager", "pypto.ir", 1),
        ("pypto.passes.manager", "pypto.languages.dialect", 2),  # a submodule: the submodule
        ("pypto.languages.dialect", "pypto.ir.expr", 1),
    }
    components = strongly_connected_components(sorted(module_files(tmp_path)), import_edges(tmp_path))
    assert [c for c in components if len(c) > 1] == [["pypto.ir.expr", "pypto.ir.printer"]]
    assert describe_component(["pypto.ir.expr", "pypto.ir.printer"], import_edges(tmp_path)) == (
        "import cycle of 2 modules: pypto.ir.expr, pypto.ir.printer\n"
        "  pypto.ir.expr\n"
        "      -> pypto.ir.printer  (pypto/ir/expr.py:2)\n"
        "      -> pypto.ir.expr  (pypto/ir/printer/__init__.py:1)"
    )


def test_no_import_cycle_longer_than_three_modules() -> None:
    edges = import_edges()
    components = strongly_connected_components(sorted(module_files()), edges)
    too_long = [c for c in components if len(c) > MAX_CYCLE]
    assert not too_long, "\n\n".join(describe_component(c, edges) for c in too_long)


def test_ir_core_imports_only_the_core() -> None:
    files = module_files()
    assert IR_CORE <= files.keys(), f"IR core modules missing: {sorted(IR_CORE - files.keys())}"
    upward = [e for e in import_edges() if e.source in IR_CORE and e.target not in IR_CORE]
    assert not upward, "the IR core imports modules above it:\n" + "\n".join(f"  {e}" for e in upward)


def test_ir_package_imports_nothing_above_it() -> None:
    # ir.compile runs the passes: pypto.ir re-exports it from pypto.compile lazily (a __getattr__)
    upward = [e for e in import_edges() if _in_package(e.source, "pypto.ir") and not _in_package(e.target, "pypto.ir")]
    assert not upward, "pypto.ir imports modules above it:\n" + "\n".join(f"  {e}" for e in upward)


def _in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _reachable(package: str) -> set[str]:
    """Every module an import of a module of ``package`` may load (the static graph, transitively)."""
    succ: dict[str, set[str]] = {}
    for e in import_edges():
        succ.setdefault(e.source, set()).add(e.target)
    seen: set[str] = set()
    todo = [m for m in module_files() if _in_package(m, package)]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(succ.get(module, ()))
    return seen


def test_passes_never_load_the_interpreter() -> None:
    # Simplify folds constants with pypto.ir.scalar_eval; the interpreter's op semantics stay out
    # of every compile.
    for package in ("pypto.passes", "pypto.transform", "pypto.pipeline"):
        loaded = sorted(m for m in _reachable(package) if _in_package(m, "pypto.interp"))
        assert not loaded, f"{package} reaches the interpreter: {loaded}"


def test_the_pass_framework_imports_no_pass() -> None:
    upward = [
        e
        for e in import_edges()
        if _in_package(e.source, "pypto.transform")
        and (_in_package(e.target, "pypto.passes") or _in_package(e.target, "pypto.pipeline"))
    ]
    assert not upward, "pypto.transform imports passes:\n" + "\n".join(f"  {e}" for e in upward)


def test_the_interpreter_imports_no_pass() -> None:
    upward = [
        e for e in import_edges() if _in_package(e.source, "pypto.interp") and _in_package(e.target, "pypto.passes")
    ]
    assert not upward, "pypto.interp imports passes:\n" + "\n".join(f"  {e}" for e in upward)
