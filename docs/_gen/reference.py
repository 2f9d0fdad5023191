"""Reference pages generated at build time from the compiler itself (an MkDocs hook).

A page holding a marker line ``<!-- generate: NAME -->`` gets that line replaced by the text of
``GENERATORS[NAME]()`` when MkDocs renders it, so the published grammar of each dialect is what
``describe()`` prints today, each pass's section is its docstring, and the op tables are the op
registry. Nothing generated is committed: there is nothing to go stale.

``mkdocs.yml`` loads this file with ``hooks:``; the tests import it by path.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable
from typing import Any

MARKER = re.compile(r"^<!-- generate: ([a-z_]+) -->$", re.MULTILINE)
# A citation of a docs page in a docstring or comment: ``docs/passes.md#converttossa``.
CITATION = re.compile(r"docs/([a-z0-9_-]+\.md)(?:#([a-z0-9_-]+))?")


def _inline(text: str) -> str:
    """reST inline markup -> Markdown: ``x`` and :role:`~a.b.c` become code spans, citations links."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", lambda m: f"``{m.group(1).split('.')[-1] if '~' in m.group(0) else m.group(1)}``", text)
    text = re.sub(r"``(.+?)``", r"`\1`", text)
    return CITATION.sub(lambda m: f"[{m.group(0)}]({m.group(1)}{'#' + m.group(2) if m.group(2) else ''})", text)


def docstring_markdown(doc: str) -> str:
    """A reST-flavoured docstring as Markdown.

    Paragraphs are prose (inline markup converted); a paragraph that starts with ``before:``, the
    indented block after a line ending in ``::`` and a simple table (``====`` rules) become code
    blocks, kept exactly as written.
    """
    lines = inspect.cleandoc(doc).splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("before:") or line.startswith("====="):
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            out += ["```text", *block, "```"]
            continue
        if line.rstrip().endswith("::"):
            prose = line.rstrip()[:-1]
            if prose.endswith(" :"):
                prose = prose[:-2]
            if prose.strip():
                out.append(_inline(prose))
            i += 1
            while i < len(lines) and not lines[i].strip():
                i += 1
            block = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            indent = min(len(b) - len(b.lstrip()) for b in block if b.strip()) if block else 0
            out += ["", "```text", *[b[indent:] for b in block], "```", ""]
            continue
        out.append(_inline(line))
        i += 1
    return "\n".join(out).strip() + "\n"


def has_example(doc: str) -> bool:
    """Whether a pass docstring shows its rewrite as a ``before:`` / ``after:`` pair."""
    return bool(re.search(r"^\s*before:", doc, re.MULTILINE)) and "after:" in doc


def anchor(name: str) -> str:
    """The anchor of a generated section, e.g. ``converttossa`` for the pass ConvertToSSA."""
    return re.sub(r"[^a-z0-9_-]", "", name.lower())


def _invariant_names(invs: Any) -> str:
    return ", ".join(sorted(inv.name for inv in invs)) or "-"


def passes_markdown() -> str:
    """One section per pass of the default pipeline (built-in passes, no plugins), in order."""
    from pypto.passes import builtin_passes

    parts = []
    for number, p in enumerate(builtin_passes(), 1):
        cls = type(p)
        module = sys.modules[cls.__module__]
        doc = inspect.getdoc(cls) or ""
        if not has_example(doc):
            raise ValueError(f"pass {cls.__name__}: its docstring has no 'before:' / 'after:' example")
        target = f"`{p.target.name}`" if hasattr(p.target, "name") else "the dialect it is given"
        parts += [
            f"### {number}. {p.name} {{#{anchor(p.name)}}}",
            "",
            f"`{p.source.name}` -> {target} · requires: {_invariant_names(cls.requires)} · "
            f"produces: {_invariant_names(cls.produces)} · invalidates: {_invariant_names(cls.invalidates)} · "
            f"module `{cls.__module__}`",
            "",
            docstring_markdown(inspect.getdoc(module) or ""),
            docstring_markdown(doc),
        ]
    return "\n".join(parts)


def pass_options_markdown() -> str:
    """Every option of the built-in passes: pass, option, accepted values and default."""
    import dataclasses

    from pypto.transform.base import describe_option_type, option_type
    from pypto.pipeline.default import builtin_passes

    rows = ["| pass | option | accepts | default |", "|---|---|---|---|"]
    for p in builtin_passes():
        for f in dataclasses.fields(p):
            accepts = describe_option_type(option_type(type(p), f.name))
            rows.append(f"| [{p.name}](#{anchor(p.name)}) | `{f.name}` | {accepts} | `{f.default!r}` |")
    return "\n".join(rows) + "\n"


def pipeline_markdown() -> str:
    """The default pipeline as a table: position, pass, source and target dialect."""
    from pypto.passes import builtin_passes

    rows = ["| # | pass | source | target |", "|---|---|---|---|"]
    for number, p in enumerate(builtin_passes(), 1):
        target = f"`{p.target.name}`" if hasattr(p.target, "name") else "(same)"
        rows.append(f"| {number} | [{p.name}](#{anchor(p.name)}) | `{p.source.name}` | {target} |")
    return "\n".join(rows) + "\n"


def dialects_markdown() -> str:
    """Each dialect of the chain: its intent, the delta from its parent and its full grammar."""
    from pypto.languages import CHAIN, describe, diff

    parts = []
    for d in CHAIN:
        parts += [f"### {d.name} {{#{anchor(d.name)}}}", "", d.intent[0].upper() + d.intent[1:] + ".", ""]
        if d.parent is not None:
            parts += ["What changes from its parent (`diff`):", "", "```text", diff(d.parent, d).rstrip(), "```", ""]
        parts += ["The full grammar (`describe`):", "", "```text", describe(d).rstrip(), "```", ""]
    return "\n".join(parts)


def invariants_markdown() -> str:
    """Every invariant of any dialect of the chain, with its one-line summary and where it holds."""
    from pypto.languages import CHAIN

    seen: dict[str, tuple[str, list[str]]] = {}
    for d in CHAIN:
        for inv in d.invariants:
            seen.setdefault(inv.name, (inv.summary, []))[1].append(d.name)
    rows = ["| invariant | holds in | what it says |", "|---|---|---|"]
    for name in sorted(seen):
        summary, where = seen[name]
        rows.append(f"| `{name}` | {', '.join(where)} | {summary.replace('|', '/')} |")
    return "\n".join(rows) + "\n"


def _ops_table(family: str) -> str:
    import pypto.ir.ops  # noqa: F401  (registers every op)
    from pypto.ir.op_registry import all_entries

    rows = ["| op | arguments | keywords | in | what it computes |", "|---|---|---|---|---|"]
    for e in sorted(all_entries(), key=lambda e: e.name):
        if e.name.split(".")[0] != family:
            continue
        args = ", ".join(p.name + ("?" if p.optional else "") + ("" if p.effect.value == "read" else f" ({p.effect.value})") for p in e.params)
        kws = ", ".join(k.name for k in e.kwargs)
        doc = _inline(e.doc).replace("|", "\\|").replace("\n", " ")
        rows.append(f"| `{e.name}` | {args} | {kws} | {', '.join(sorted(e.placement))} | {doc} |")
    return "\n".join(rows) + "\n"


def kernel_tensor_ops_markdown() -> str:
    """The tensor ops ConvertTensorToTileOps lowers to tile ops inside kernels (its LOWERINGS table)."""
    from pypto.passes.convert_tensor_to_tile_ops.lowerings import LOWERINGS

    return ", ".join(f"`{name}`" for name in sorted(LOWERINGS) if name.startswith("tensor.")) + ".\n"


def unsupported_ops_markdown() -> str:
    """The ops a compile refuses (:data:`pypto.codegen.unsupported.REFUSED`): targets lacking a rule, and why."""
    from pypto.codegen.unsupported import REFUSED, lacking_targets

    rows = ["| op | targets without a rule | why |", "|---|---|---|"]
    rows += [f"| `{op}` | {', '.join(lacking_targets(op))} | {why or '-'} |" for op, why in sorted(REFUSED.items())]
    return "\n".join(rows) + "\n"


def platforms_markdown() -> str:
    """The per-chip facts of every backend (:class:`pypto.backend.Platform`): capacities and alignments."""
    from pypto.backend import BackendType, platform_for

    rows = ["| backend | memory space | capacity (bytes) | alignment (bytes) |", "|---|---|---|---|"]
    for backend in BackendType:
        p = platform_for(backend)
        for space, size in p.capacity.items():
            rows.append(f"| `{p.name}` ({backend.value}) | `{space.name}` | {size} | {p.alignment.get(space, '-')} |")
    cores = [
        f"`{platform_for(b).name}`: {platform_for(b).dies} die(s), {platform_for(b).aic_per_die} AIC and "
        f"{platform_for(b).aiv_per_die} AIV cores per die"
        for b in BackendType
    ]
    return "\n".join(rows) + "\n\n" + "; ".join(cores) + ".\n"


def task_graph_markdown() -> str:
    """The task graph of ``examples/deps_phase_fence.py`` (:func:`pypto.graph.draw`), as inline SVG."""
    import tempfile
    from pathlib import Path

    import pypto.language as pl
    from pypto import ir
    from pypto.graph import draw

    example = Path(__file__).resolve().parents[2] / "examples" / "deps_phase_fence.py"
    with tempfile.TemporaryDirectory() as scratch:
        compiled = ir.compile(pl.loads_program(str(example)), output_dir=Path(scratch) / "tree", dump_passes=False)
    svg = draw(compiled.final_program).replace("<svg ", '<svg style="max-width: 100%; height: auto" ', 1)
    return "<figure>\n" + "\n".join(line for line in svg.splitlines() if line.strip()) + "\n</figure>\n"


def softmax_memmap_markdown() -> str:
    """The memory map of examples/row_softmax.py (:mod:`pypto.memmap`), inlined as SVG."""
    from pathlib import Path

    import pypto.language as pl
    from pypto.memmap import plan_maps, render_svg

    example = Path(__file__).resolve().parents[2] / "examples" / "row_softmax.py"
    svg = render_svg(plan_maps(pl.loads_program(str(example))).maps["softmax"]).split("?>", 1)[1].strip()
    return f'<div class="memmap" style="overflow-x: auto">\n{svg}\n</div>\n'


GENERATORS: dict[str, Callable[[], str]] = {
    "passes": passes_markdown,
    "pipeline": pipeline_markdown,
    "pass_options": pass_options_markdown,
    "dialects": dialects_markdown,
    "invariants": invariants_markdown,
    "tensor_ops": lambda: _ops_table("tensor"),
    "kernel_tensor_ops": kernel_tensor_ops_markdown,
    "unsupported_ops": unsupported_ops_markdown,
    "tile_ops": lambda: _ops_table("tile"),
    "system_ops": lambda: _ops_table("system"),
    "array_ops": lambda: _ops_table("array"),
    "platforms": platforms_markdown,
    "task_graph": task_graph_markdown,
    "softmax_memmap": softmax_memmap_markdown,
}


def expand(markdown: str) -> str:
    """``markdown`` with every generate marker replaced by its generated text."""

    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in GENERATORS:
            raise ValueError(f"unknown generate marker '{name}' (known: {', '.join(GENERATORS)})")
        return GENERATORS[name]()

    return MARKER.sub(one, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs hook: expand the generate markers of every page."""
    return expand(markdown)
