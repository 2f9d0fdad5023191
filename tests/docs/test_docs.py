"""The documentation site: its examples run and print what the pages say, its generated reference
is complete, and every docs citation in the sources points at a page and section that exist.

Pages are run block by block in one namespace per page: a ```` ```python ```` block is executed
(written to a file first, so ``@pl.program`` can read its source), a ```` ```pycon ```` block is a
doctest whose expected output is the text on the page.
"""

from __future__ import annotations

import doctest
import importlib.util
import re
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p.name for p in DOCS.glob("*.md"))
BLOCK = re.compile(r"^```(python|pycon)[^\n]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)
# A ```` ```py ```` block is shown, not run (it needs the simulator, or is a fragment).
RUN = [p for p in PAGES if BLOCK.search((DOCS / p).read_text())]


def _reference():
    spec = importlib.util.spec_from_file_location("docs_reference", DOCS / "_gen" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _reference()


def _rendered(page: str) -> str:
    return reference.expand((DOCS / page).read_text())


def _anchors(markdown: str) -> set[str]:
    """Anchors of a page's headings: an explicit ``{#id}``, else the toc extension's slug."""
    found = set()
    for m in re.finditer(r"^#{1,6} (.*)$", markdown, re.MULTILINE):
        title = m.group(1).strip()
        explicit = re.search(r"\{#([A-Za-z0-9_-]+)\}\s*$", title)
        if explicit:
            found.add(explicit.group(1))
        else:
            slug = re.sub(r"[^\w\s-]", "", title.replace("`", "")).strip().lower()
            found.add(re.sub(r"[-\s]+", "-", slug))
    return found


def test_the_tutorial_pages_have_checked_examples() -> None:
    assert {"getting-started.md", "tour.md", "tasks.md", "plugins.md", "passes.md"} <= set(RUN)


@pytest.mark.parametrize("page", RUN)
def test_page_examples_run_and_print_what_the_page_says(page: str, tmp_path: Path, monkeypatch) -> None:
    text = (DOCS / page).read_text()
    blocks = list(BLOCK.finditer(text))
    assert any(m.group(1) == "pycon" for m in blocks), f"{page} has no checked example"
    module = types.ModuleType(f"docs_{page[:-3].replace('-', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)  # dataclasses (passes) look their module up
    namespace = module.__dict__
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    parser = doctest.DocTestParser()
    for m in blocks:
        kind, code, line = m.group(1), m.group(2), text.count("\n", 0, m.start(2))
        if kind == "python":
            path = tmp_path / f"line{line + 1}.py"
            path.write_text(code)
            exec(compile(code, str(path), "exec"), namespace)
        else:
            test = parser.get_doctest(code, namespace, f"{page}:{line + 1}", str(DOCS / page), line)
            runner.run(test, clear_globs=False)
            namespace.update(test.globs)  # a doctest runs in a copy: later blocks see its names
    summary = runner.summarize(verbose=False)
    assert summary.failed == 0, f"{summary.failed} example(s) of {page} print something else (see the output above)"


def test_every_page_is_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    assert [p for p in PAGES if f": {p}" not in nav] == []


def test_generate_markers_expand() -> None:
    text = _rendered("passes.md") + _rendered("dialects.md") + _rendered("ops.md")
    assert "<!-- generate:" not in text
    with pytest.raises(ValueError, match="unknown generate marker 'nope'"):
        reference.expand("<!-- generate: nope -->\n")


def test_every_pass_of_the_pipeline_has_a_section_with_its_example() -> None:
    from pypto.passes import builtin_passes

    text = _rendered("passes.md")
    for p in builtin_passes():
        section = text.split(f"{{#{reference.anchor(p.name)}}}", 1)[1].split("\n### ", 1)[0]
        assert "```text\nbefore:" in section or "\nbefore:" in section, p.name
        assert "after:" in section, p.name


def test_a_pass_without_an_example_is_refused() -> None:
    assert not reference.has_example("Does something.")
    assert reference.has_example("Rewrites.\n\nbefore:  x = 1      after:  y = 1\n")


def test_every_dialect_grammar_is_describe_output() -> None:
    from pypto.languages import CHAIN, describe

    text = _rendered("dialects.md")
    for d in CHAIN:
        assert describe(d).rstrip() in text, d.name


def test_every_registered_op_is_in_the_op_reference() -> None:
    import pypto.ir.ops  # noqa: F401
    from pypto.ir.op_registry import all_entries

    text = _rendered("ops.md")
    assert [e.name for e in all_entries() if f"| `{e.name}` |" not in text] == []


def test_docstring_markdown_converts_rest_forms() -> None:
    doc = "Uses ``x`` and :class:`~pypto.ir.Var` (docs/ir.md#nodes)::\n\n    a = 1\n\nbefore:  a   after:  b\n"
    assert reference.docstring_markdown(doc) == (
        "Uses `x` and `Var` ([docs/ir.md#nodes](ir.md#nodes)):\n\n```text\na = 1\n```\n\n"
        "```text\nbefore:  a   after:  b\n```\n"
    )


SOURCES = [p for d in ("pypto", "passes", "languages", "codegen") for p in sorted((ROOT / d).rglob("*.py"))]


def test_sources_cite_docs_pages_not_unshipped_specs() -> None:
    stale = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in SOURCES
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if re.search(r"spec/|\bops\.md|DESIGN\.md", line.replace("docs/ops.md", ""))
    ]
    # A pass is cited as docs/passes.md#<its name, lower case>; other sections by their {#anchor}.
    assert stale == [], "cite the docs pages (docs/<page>.md#<section>), not spec files users do not have"


def test_every_docs_citation_resolves() -> None:
    anchors = {page: _anchors(_rendered(page)) for page in PAGES}
    broken = []
    for p in SOURCES:
        for m in reference.CITATION.finditer(p.read_text()):
            page, anchor = m.group(1), m.group(2)
            if page not in anchors or (anchor is not None and anchor not in anchors[page]):
                broken.append(f"{p.relative_to(ROOT)}: {m.group(0)}")
    assert broken == []
