"""Third-party dialects, registered through the ``pypto.dialects`` entry-point group.

A distribution publishes a dialect object (or a callable returning one) under the dialect's name::

    [project.entry-points."pypto.dialects"]
    visited = "my_plugin:visited"

The dialect is built with ``extend`` on a dialect of the chain (or on another plugin's), so it
descends from ``surface``; passes name it as their source or target like any other, and
:func:`pypto.languages.by_name` finds it. The entry-point name must equal the dialect's name and
may not reuse a built-in or another plugin's name: each is a hard error.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from importlib.metadata import EntryPoint, entry_points

from pypto.ir.errors import PyptoError

from .dialect import Dialect

GROUP = "pypto.dialects"


class PluginError(PyptoError):
    """A pass or dialect plugin is malformed, misplaced or registered twice."""


def discover_dialects(eps: Iterable[EntryPoint] | None = None, builtin: Iterable[Dialect] = ()) -> dict[str, Dialect]:
    """The plugin dialects of ``eps`` (default: every installed ``pypto.dialects`` entry point).

    ``builtin`` lists the dialects whose names a plugin may not reuse; every plugin dialect must
    descend from the first of them (the root of the chain).
    """
    builtin = list(builtin)
    reserved = {d.name for d in builtin}
    found: dict[str, Dialect] = {}
    for ep in entry_points(group=GROUP) if eps is None else eps:
        try:
            value = ep.load()
        except Exception as err:  # an uninstallable plugin must say which one it is
            raise PluginError(f"dialect plugin '{ep.name}' ({ep.value}) failed to load: {err}") from err
        dialect = value() if callable(value) and not isinstance(value, Dialect) else value
        if not isinstance(dialect, Dialect):
            raise PluginError(f"dialect plugin '{ep.name}' ({ep.value}) does not produce a Dialect")
        if dialect.name != ep.name:
            raise PluginError(
                f"dialect plugin entry point '{ep.name}' ({ep.value}) makes a dialect named '{dialect.name}'; "
                "the names must match"
            )
        if ep.name in reserved or ep.name in found:
            raise PluginError(f"dialect name '{ep.name}' ({ep.value}) is already taken")
        if builtin and not dialect.refines(builtin[0]):
            raise PluginError(
                f"dialect plugin '{ep.name}' ({ep.value}) does not extend a dialect of the chain "
                f"(build it with {builtin[0].name}.extend or a descendant's extend)"
            )
        found[ep.name] = dialect
    return found


@functools.cache
def installed_dialects(builtin: tuple[Dialect, ...]) -> dict[str, Dialect]:
    """The installed plugin dialects (discovered once per process)."""
    return discover_dialects(builtin=builtin)
