"""Third-party passes, registered through the ``pypto.passes`` entry-point group.

A distribution publishes a factory (a Pass subclass or any callable returning a Pass) under the
pass's name::

    [project.entry-points."pypto.passes"]
    MarkVisited = "my_plugin:MarkVisited"

The pass declares its ``source``/``target`` dialects and its place in the default pipeline with
``after = "ConvertToSSA"`` (or ``before = ...``); without either it is appended at the end. The pass
manager still checks adjacency, so a plugin whose source dialect does not match its position is
rejected before anything runs. The entry-point name must equal the pass's ``name``, and a name may
be registered only once (also not reusing a built-in pass name): both are hard errors.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points

from .base import Pass
from .errors import PluginError

GROUP = "pypto.passes"


@dataclass(frozen=True)
class Plugin:
    """A discovered plugin pass: its name, factory, position and the distribution that ships it."""

    name: str
    factory: Callable[[], Pass]
    after: str | None
    before: str | None
    origin: str


def _origin(ep: EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return f"{dist.name} ({ep.value})" if dist is not None else ep.value


_INSTALLED: tuple[tuple, tuple[EntryPoint, ...]] | None = None
# Metadata folder names (matched lowercased, as importlib.metadata does): what an install or
# uninstall adds to or removes from a sys.path folder.
_METADATA = (".dist-info", ".egg-info")
# A folder changed this recently (ns) may change again within its mtime's granularity unseen.
_SETTLING_NS = 2_000_000_000
# sys.path entry -> (its folder's time and identity, its metadata signature) when last listed.
_LISTED: dict[str, tuple[tuple[int, int, int], object]] = {}
# sys.path entries that did not exist when last looked at.
_MISSING: set[str] = set()


def _metadata_signature(entry: str) -> object:
    """What identifies the distributions in one ``sys.path`` entry: its metadata folders with their
    times (a reinstall of the same version makes a new folder), or a zip archive's own time.

    The folder is listed again only when its own time changed (or is too recent to trust), and a
    listing that finds the same metadata gives the same signature: a compile writing its output into
    a folder on ``sys.path`` (a script's folder, ``/tmp``) then costs a listing, not a re-read of
    every distribution's entry points.
    """
    path = entry or "."  # the current folder, told apart from another by its identity, not a getcwd
    # A missing entry (the interpreter's zip of its library, usually) is asked about without the
    # cost of an exception while it stays missing.
    if entry in _MISSING and not os.access(path, os.F_OK):
        return None
    try:
        found = os.stat(path)
    except OSError:
        _MISSING.add(entry)
        return None
    _MISSING.discard(entry)
    mtime = found.st_mtime_ns
    stamp = (mtime, found.st_ino, found.st_dev)
    listed = _LISTED.get(entry)
    if listed is not None and listed[0] == stamp:
        return listed[1]
    try:
        names = os.listdir(path)
    except NotADirectoryError:
        signature: object = mtime
    except OSError:
        return None
    else:
        # Both suffixes have their '-' fifth from the end: a cheap first sieve over a busy folder's names.
        metadata = [name for name in names if name[-5:-4] == "-" and name.lower().endswith(_METADATA)]
        signature = tuple(sorted((name, _mtime(os.path.join(path, name))) for name in metadata))
    if time.time_ns() - mtime >= _SETTLING_NS:
        _LISTED[entry] = (stamp, signature)
    return signature


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:  # removed since the listing
        return None


def _path_state() -> tuple:
    """``sys.path`` with each entry's metadata signature (:func:`_metadata_signature`)."""
    return tuple([(entry, _metadata_signature(entry)) for entry in sys.path])


def installed_entry_points() -> tuple[EntryPoint, ...]:
    """The installed ``pypto.passes`` entry points, read again only when ``sys.path`` or the
    distributions installed in its folders change.

    Reading every distribution's metadata costs more than compiling a small kernel program, and
    each ``ir.compile`` asks for the pipeline.
    """
    global _INSTALLED
    state = _path_state()
    if _INSTALLED is None or _INSTALLED[0] != state:
        _INSTALLED = (state, tuple(entry_points(group=GROUP)))
    return _INSTALLED[1]


def discover(eps: Iterable[EntryPoint] | None = None, builtin: Iterable[str] = ()) -> dict[str, Plugin]:
    """The plugin passes of ``eps`` (default: every installed ``pypto.passes`` entry point).

    Each factory is loaded and called once to read the pass's name and position.
    """
    found: dict[str, Plugin] = {}
    reserved = set(builtin)
    for ep in installed_entry_points() if eps is None else eps:
        try:
            factory = ep.load()
        except Exception as err:  # an uninstallable plugin must say which one it is
            raise PluginError(f"pass plugin '{ep.name}' ({ep.value}) failed to load: {err}") from err
        instance = factory() if callable(factory) else None
        if not isinstance(instance, Pass):
            raise PluginError(f"pass plugin '{ep.name}' ({ep.value}) does not produce a Pass")
        if instance.name != ep.name:
            raise PluginError(
                f"pass plugin entry point '{ep.name}' ({ep.value}) makes a pass named '{instance.name}'; "
                "the names must match"
            )
        if ep.name in reserved:
            raise PluginError(f"pass plugin '{ep.name}' ({_origin(ep)}) reuses the name of a built-in pass")
        if ep.name in found:
            raise PluginError(
                f"pass name '{ep.name}' is registered twice: by {found[ep.name].origin} and by {_origin(ep)}"
            )
        if instance.after is not None and instance.before is not None:
            raise PluginError(f"pass plugin '{ep.name}' gives both after= and before=; choose one")
        found[ep.name] = Plugin(ep.name, factory, instance.after, instance.before, _origin(ep))
    return found


def insert(passes: list[Pass], plugins: Iterable[Plugin]) -> list[Pass]:
    """``passes`` with each plugin's pass placed after/before its anchor (in plugin-name order)."""
    out = list(passes)
    for plugin in sorted(plugins, key=lambda p: p.name):
        anchor = plugin.after or plugin.before
        if anchor is None:
            out.append(plugin.factory())
            continue
        names = [p.name for p in out]
        if anchor not in names:
            raise PluginError(f"pass plugin '{plugin.name}' is placed relative to unknown pass '{anchor}'")
        index = names.index(anchor) + (1 if plugin.after else 0)
        out.insert(index, plugin.factory())
    return out
