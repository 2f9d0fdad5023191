"""The repository layout promised by DESIGN.md holds."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAPPED = {"languages": "pypto.languages", "passes": "pypto.passes", "codegen": "pypto.codegen"}


def _package_dirs() -> set[str]:
    found = set()
    for init in ROOT.glob("**/__init__.py"):
        rel = init.parent.relative_to(ROOT)
        top = rel.parts[0]
        if top == "pypto":
            found.add(".".join(rel.parts))
        elif top in MAPPED:
            found.add(".".join((MAPPED[top], *rel.parts[1:])))
    return found


def test_every_package_folder_is_installed() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    assert _package_dirs() - listed == set()


@pytest.mark.parametrize(
    "module",
    [
        "pypto",
        "pypto.ir",
        "pypto.language",
        "pypto.language.typing",
        "pypto.language.parser.diagnostics",
        "pypto.languages",
        "pypto.passes",
        "pypto.codegen",
        "pypto.pypto_core",
    ],
)
def test_public_module_imports(module: str) -> None:
    assert importlib.import_module(module).__doc__


def test_core_alias_module_reexports() -> None:
    core = importlib.import_module("pypto.pypto_core")
    import pypto

    assert core.ir is pypto.ir and core.passes is pypto.passes and core.DataType is pypto.DataType
