"""Write codegen/cpp_target_names.py: the names the headers of the generated C++ declare.

A PyPTO name (a kernel, a parameter, a variable) printed as a C++ identifier must not be one of
the target headers' macros, types, enumerators, variables or functions: ``half x(16, 64);`` or a
kernel called ``int8_t`` does not build. The headers are those the emitters' output includes:

* pto-isa (``pto/pto-inst.hpp`` with everything it includes under ``include/pto``: common, the
  CPU model a2a3sim builds and the a2a3 NPU implementation), for kernels;
* simpler's runtime headers on the kernel and orchestration include paths (``tensor.h``,
  ``pto_orchestration_api.h`` and what they include);
* the C headers the generated sources include themselves (``<stdint.h>``, ``<stddef.h>``,
  ``<stdio.h>``): their types, macros and enumerators; their functions are not called.

The scan follows ``#include`` lines inside those trees (every branch of a conditional), and keeps
what is declared at namespace scope (outside classes and functions): macros, typedef and using
aliases, class/struct/union/enum names, the enumerators of unscoped enums, variables and
functions. The module is checked in so that compiling needs no simulator; the test
``tests/codegen/test_cpp_names.py`` regenerates it where the simulator is installed and fails when
it is stale. Run::

    python scripts/gen_cpp_target_names.py
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "codegen" / "cpp_target_names.py"

_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.MULTILINE)
_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)", re.MULTILINE)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_DIRECTIVE = re.compile(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", re.MULTILINE)
_IDENT = re.compile(r"[A-Za-z_]\w*")
_NOT_NAMES = frozenset(
    "alignas alignof asm auto bool char const constexpr consteval constinit decltype delete double enum explicit "
    "extern final float friend inline int long mutable noexcept operator override register requires restrict "
    "short signed sizeof static static_assert struct class union template thread_local typedef typename unsigned "
    "using virtual void volatile namespace return if else for while do switch case default __attribute__ "
    "__declspec __restrict __restrict__ __inline __inline__ __extension__ __asm__ __asm __THROW __wur".split()
)


@dataclass(frozen=True)
class Group:
    """Headers scanned from ``roots`` (files and ``#include`` lines resolved in ``include_dirs``)."""

    name: str
    roots: tuple[str, ...]
    include_dirs: tuple[Path, ...]
    functions: bool = True  # keep namespace-scope function names


def _resolve(name: str, dirs: Iterable[Path], here: Path) -> Path | None:
    for d in (here, *dirs):
        path = d / name
        if path.is_file():
            return path.resolve()
    return None


def header_files(group: Group) -> list[Path]:
    """The headers ``group`` reaches: its roots and, transitively, every file they include that is
    found in the group's include directories (system headers outside them are not followed)."""
    seen: dict[Path, None] = {}
    todo = [p for p in (_resolve(r, group.include_dirs, group.include_dirs[0]) for r in group.roots) if p]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen[path] = None
        for name in _INCLUDE.findall(path.read_text(errors="replace")):
            found = _resolve(name, group.include_dirs, path.parent)
            if found is not None and found not in seen:
                todo.append(found)
    return sorted(seen)


def _code(text: str) -> str:
    """``text`` without comments, string literals and preprocessor lines (kept as blanks)."""
    text = _COMMENT.sub(" ", text)
    text = _DIRECTIVE.sub(" ", text)
    return _LITERAL.sub('""', text)


def _statements(code: str) -> Iterator[tuple[str, str | None, str]]:
    """``(text, body, tail)`` of each declaration at namespace scope: ``body`` is the brace block
    after the text (an enum's enumerators; None for a declaration ending in ``;``) and ``tail`` what
    follows it up to the ``;`` (``} name_t;`` of a typedef, ``} x;`` of a variable).

    Namespace and ``extern "C"`` blocks are entered; any other block (a class, a function body,
    an initialiser) is the body of the declaration before it.
    """
    start, i, n = 0, 0, len(code)
    while i < n:
        c = code[i]
        if c == ";":
            yield code[start:i], None, ""
            start = i + 1
        elif c == "}":
            start = i + 1
        elif c == "{":
            head = code[start:i]
            if re.search(r"\bnamespace\b[\w\s:]*$|\bextern\s*\"\"\s*$", head):
                start = i + 1  # enter the namespace: its declarations are at namespace scope
            else:
                depth, j = 1, i + 1
                while j < n and depth:
                    depth += {"{": 1, "}": -1}.get(code[j], 0)
                    j += 1
                k = j
                while k < n and code[k] not in ";{}":
                    k += 1
                tail = code[j:k] if k < n and code[k] == ";" else ""
                yield head, code[i + 1 : j - 1], tail
                start = k + 1 if tail or k < n and code[k] == ";" else j
                i = start - 1
        i += 1


def _strip_templates(text: str) -> str:
    """``text`` without ``<...>`` argument lists and ``(...)`` attribute groups."""
    prev = None
    while prev != text:
        prev = text
        text = re.sub(r"<[^<>]*>", " ", text)
    return re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)|alignas\s*\([^()]*\)", " ", text)


def _declarators(text: str) -> Iterator[str]:
    """The declared names of ``a, *b, c[4]`` (the last identifier of each declarator)."""
    pointer = re.search(r"\(\s*[*&]\s*([A-Za-z_]\w*)\s*\)", text)
    if pointer:
        yield pointer.group(1)
        return
    for part in re.sub(r"\([^()]*\)|\[[^\]]*\]|=[^,]*", " ", text).split(","):
        idents = [w for w in _IDENT.findall(part) if w not in _NOT_NAMES]
        if idents:
            yield idents[-1]


def _names(head: str, body: str | None, tail: str, functions: bool) -> Iterator[str]:
    """The names one namespace-scope declaration introduces."""
    text = _strip_templates(" ".join(head.split()))
    text = re.sub(r"^\s*template\s*", "", text)
    if not text or re.match(r"\s*(?:static_assert|using\s+namespace|namespace|friend)\b", text):
        return
    alias = re.match(r"\s*using\s+([A-Za-z_]\w*)\s*=", text)
    if alias:
        yield alias.group(1)
        return
    if re.match(r"\s*using\b", text):
        return  # a using-declaration names something declared elsewhere
    record = re.search(r"\b(?:struct|class|union|enum(?:\s+class|\s+struct)?)\s+(?:[A-Z_][A-Z_0-9]*\s+)*"
                       r"([A-Za-z_]\w*)\s*(?:final\s*)?(?::[^:]|$)", text)
    scoped = re.search(r"\benum\s+(?:class|struct)\b", text) is not None
    if record:
        yield record.group(1)
    if body is not None and re.search(r"\benum\b", text) and not scoped:
        for item in _code(body).split(","):
            m = re.match(r"\s*([A-Za-z_]\w*)", item)
            if m:
                yield m.group(1)
    if body is not None and re.search(r"\b(?:struct|class|union|enum)\b", text):
        yield from _declarators(tail)  # typedef names or variables after the body
        return
    if record:
        return
    typedef = re.match(r"\s*(?:__extension__\s+)?typedef\b(.*)", text, re.DOTALL)
    if typedef:
        yield from _declarators(typedef.group(1))
        return
    call = re.search(r"([A-Za-z_]\w*)\s*\(", text)
    if call and call.group(1) not in _NOT_NAMES:
        if functions and body is not None or functions and "=" not in text[: call.start()]:
            before = text[: call.start()].strip()
            if before and not before.endswith(("=", ",", "(")):
                yield call.group(1)
        return
    if body is None:
        for part in re.sub(r"=[^,]*", " ", text).split(","):
            idents = [w for w in _IDENT.findall(re.sub(r"\[[^\]]*\]", " ", part)) if w not in _NOT_NAMES]
            if len(idents) >= 2 or len(idents) == 1 and part.strip() != idents[0]:
                yield idents[-1]


def scan(path: Path, functions: bool = True) -> set[str]:
    """The macros and namespace-scope names declared in one header."""
    text = path.read_text(errors="replace")
    names = set(_DEFINE.findall(_COMMENT.sub(" ", text)))
    for head, body, tail in _statements(_code(text)):
        names.update(_names(head, body, tail, functions))
    return {n for n in names if n not in _NOT_NAMES}


def groups(simpler_root: Path, c_include_dirs: tuple[Path, ...]) -> list[Group]:
    """The header groups of the installed simulator at ``simpler_root``."""
    pto = simpler_root / "build" / "pto-isa" / "include"
    src = simpler_root / "src"
    runtime = src / "a2a3" / "runtime" / "tensormap_and_ringbuffer"
    runtime_dirs = (runtime / "orchestration", runtime / "runtime", runtime / "common", src / "a2a3" / "runtime",
                    src / "common" / "task_interface", src / "common", src / "a2a3" / "platform" / "include",
                    src / "common" / "platform" / "include", src / "common" / "log" / "include")
    return [
        Group("pto-isa", ("pto/pto-inst.hpp",), (pto, pto / "pto"), functions=False),
        Group("runtime", ("tensor.h", "pto_orchestration_api.h"), runtime_dirs),
        Group("c", ("stdint.h", "stddef.h", "stdio.h"), c_include_dirs, functions=False),
    ]


def c_include_dirs() -> tuple[Path, ...]:
    """The C compiler's system include directories, in search order."""
    out = subprocess.run(["cc", "-E", "-Wp,-v", "-xc", "-"], input="", capture_output=True, text=True).stderr
    return tuple(Path(line.strip()) for line in out.splitlines() if line.startswith(" /"))


def target_names(simpler_root: Path, c_dirs: tuple[Path, ...]) -> dict[str, frozenset[str]]:
    """Per group, the names its headers declare."""
    found: dict[str, frozenset[str]] = {}
    for group in groups(simpler_root, c_dirs):
        names: set[str] = set()
        for path in header_files(group):
            names |= scan(path, group.functions)
        found[group.name] = frozenset(names)
    return found


def render(found: dict[str, frozenset[str]]) -> str:
    """The text of codegen/cpp_target_names.py."""
    lines = [
        '"""Names the headers of the generated C++ declare (generated by scripts/gen_cpp_target_names.py;',
        'do not edit: rerun the script when simpler or pto-isa changes)."""',
        "",
        "from __future__ import annotations",
        "",
        "# group -> the macros and namespace-scope names of its headers",
        "TARGET_NAMES: dict[str, frozenset[str]] = {",
    ]
    for group, names in found.items():
        lines.append(f'    "{group}": frozenset(')
        lines.append('        """')
        words = sorted(names)
        row: list[str] = []
        for w in words:
            if row and len(" ".join([*row, w])) > 110:
                lines.append("        " + " ".join(row))
                row = []
            row.append(w)
        if row:
            lines.append("        " + " ".join(row))
        lines.append('        """.split()')
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    from pypto.runtime.install import find_simulator

    OUTPUT.write_text(render(target_names(find_simulator().simpler_root, c_include_dirs())))
    print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
