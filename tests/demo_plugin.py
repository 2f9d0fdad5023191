"""The demo plugin of ``tests/plugin_pkg`` as a distribution on a temporary path, for one test.

The plugin adds a pass to every pipeline and a stamp to every compiled function, so it must not
be installed into the environment the compiler is used from. Instead a test that needs it gets
the package and a ``.dist-info`` folder (its metadata and entry points, taken from the plugin's
``pyproject.toml``) written under a temporary folder that is on ``sys.path`` only while the test
runs: ``importlib.metadata`` finds its entry points exactly as it would for an installed one.
"""

from __future__ import annotations

import contextlib
import importlib
import shutil
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent / "plugin_pkg"


def write_distribution(root: Path) -> Path:
    """Write the demo plugin's package and ``.dist-info`` under ``root``; return the dist-info folder."""
    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text())["project"]
    name, version = project["name"], project["version"]
    shutil.copytree(PACKAGE / "pypto_demo_plugin", root / "pypto_demo_plugin")
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    groups = [
        "\n".join([f"[{group}]", *(f"{k} = {v}" for k, v in entry_points.items())])
        for group, entry_points in project["entry-points"].items()
    ]
    (info / "entry_points.txt").write_text("\n\n".join(groups) + "\n")
    return info


@contextlib.contextmanager
def demo_plugin_on_path(root: Path) -> Iterator[None]:
    """The demo plugin is discoverable inside the ``with`` block only."""
    write_distribution(root)
    sys.path.insert(0, str(root))
    forget()
    try:
        yield
    finally:
        sys.path.remove(str(root))
        forget()


def forget() -> None:
    """Drop what earlier look-ups cached: path finders, the dialect registry, the plugin module."""
    # Imported here: conftest loads this module before typeguard instruments pypto.
    from pypto.languages.plugins import installed_dialects

    importlib.invalidate_caches()
    installed_dialects.cache_clear()
    for module in [m for m in sys.modules if m == "pypto_demo_plugin" or m.startswith("pypto_demo_plugin.")]:
        del sys.modules[module]
