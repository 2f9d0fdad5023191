"""Plain attribute reads on IR node classes, which pydantic's ``__getattr__`` would slow threefold.

``pydantic.BaseModel`` defines ``__getattr__`` (for private attributes and ``extra`` fields), so
CPython gives every model class the hooked attribute slot. An attribute read then cannot be
specialised by the interpreter: about 68 ns against 24 ns for a plain class (CPython 3.11), and
the compiler reads node fields everywhere. Nodes have neither private attributes nor extra
fields, so for them the hook only ever re-raises the ``AttributeError`` that the generic lookup
raises anyway; :func:`use_plain_getattr` puts CPython's generic lookup back into the class's
``tp_getattro`` slot.

The slot is found at import by comparison, not by a hard-coded layout: the one offset in a type
object where ``object`` holds ``PyObject_GenericGetAttr`` and a class with ``__getattr__`` holds
the hook. Where it cannot be found (another interpreter or layout) nothing is changed.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from pydantic import BaseModel


def _word(cls: type, offset: int) -> int | None:
    return ctypes.c_void_p.from_address(id(cls) + offset).value


def _find_slot() -> tuple[int, int, int] | None:
    """(offset of ``tp_getattro``, the generic lookup's address, the hook's address), or None."""
    if sys.implementation.name != "cpython":
        return None
    generic = ctypes.cast(ctypes.pythonapi.PyObject_GenericGetAttr, ctypes.c_void_p).value

    class Plain:
        pass

    class Hooked:
        def __getattr__(self, name: str) -> Any:
            raise AttributeError(name)

    step = ctypes.sizeof(ctypes.c_void_p)
    found = [
        offset
        for offset in range(0, type.__basicsize__, step)
        if _word(object, offset) == generic == _word(Plain, offset) and _word(Hooked, offset) != generic
    ]
    if len(found) != 1 or _word(BaseModel, found[0]) != _word(Hooked, found[0]):
        return None
    return found[0], generic, _word(Hooked, found[0])  # type: ignore[return-value]


_SLOT = _find_slot()


def use_plain_getattr(cls: type[BaseModel]) -> bool:
    """Give ``cls`` the generic attribute lookup if its only hook is pydantic's; report if it did.

    A class that defines its own ``__getattr__`` or ``__getattribute__``, or has private
    attributes (which pydantic's hook serves), keeps the hook.
    """
    if _SLOT is None or cls.__private_attributes__ or cls.model_config.get("extra") == "allow":
        return False
    if cls.__getattr__ is not BaseModel.__getattr__ or cls.__getattribute__ is not object.__getattribute__:  # type: ignore[attr-defined]
        return False
    offset, generic, hook = _SLOT
    if _word(cls, offset) != hook:
        return False
    ctypes.c_void_p.from_address(id(cls) + offset).value = generic
    return True


def has_plain_getattr(cls: type) -> bool:
    """True if attribute reads on ``cls`` take CPython's generic (specialisable) lookup."""
    return _SLOT is not None and _word(cls, _SLOT[0]) == _SLOT[1]
