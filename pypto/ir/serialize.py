"""Binary serialization of IR trees with MessagePack (docs/ir.md#serialization).

Layout: a map ``{"format": "pypto.ir", "version": 1, "nodes": [...], "root": <value>}``. ``nodes``
lists every distinct IR object (node, type or view) once, children before parents, as
``{"id": i, "type": <class name>, "fields": {name: <value>}}``; a field that holds an IR object
stores ``{"ref": i}``, so shared objects stay shared after a round trip and deep trees need no
recursion. Other values: msgpack nil/bool/int/float/str/array natively, and the tagged maps
``{"tuple": [...]}``, ``{"dict": [[key, value], ...]}`` (insertion order kept),
``{"dtype": code}``, ``{"enum": [class name, value]}``, ``{"span": [file, l0, c0, l1, c1]}``.

Every constructor field is stored (spans, leading comments, kwargs/attrs with their value types,
MemRef and view fields, memory spaces); fields the constructor derives (``Var.unique_id``, the type
of a constant, ...) are recomputed, so deserialised variables are fresh objects.
"""

from __future__ import annotations

import enum
import os
from typing import Any

import msgpack

from . import enums as _enums
from .datatype import DataType
from .errors import PyptoError
from .node import ModelBase
from .span import Span
from .type_base import _SingletonType

_FORMAT = "pypto.ir"
_VERSION = 1


class SerializationError(PyptoError, ValueError):
    """The IR cannot be encoded, or the bytes are not a valid serialized IR."""


def _stored_fields(cls: type[ModelBase]) -> list[str]:
    skip = set(cls._derived)
    return [name for name in cls.model_fields if name not in skip]


def _model_values(value: Any) -> list[ModelBase]:
    """The IR objects directly inside a field value (through containers, dict keys included)."""
    found: list[ModelBase] = []
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, ModelBase) and not v._mapping:
            found.append(v)
        elif isinstance(v, (list, tuple)):
            todo.extend(reversed(v))
        elif isinstance(v, (dict, ModelBase)):  # a dict or an attrs model
            for k, item in reversed(list(v.items())):
                todo.append(item)
                todo.append(k)
    return found


class _Encoder:
    def __init__(self) -> None:
        self.ids: dict[int, int] = {}
        self.records: list[dict[str, Any]] = []

    def add(self, root: ModelBase) -> None:
        """Encode ``root`` and everything below it, children first (explicit stack)."""
        ids = self.ids
        stack: list[tuple[ModelBase, bool]] = [(root, False)]
        while stack:
            obj, expanded = stack.pop()
            if id(obj) in ids:
                continue
            names = _stored_fields(type(obj))
            if not expanded:
                stack.append((obj, True))
                for name in reversed(names):
                    for child in reversed(_model_values(getattr(obj, name))):
                        if id(child) not in ids:
                            stack.append((child, False))
                continue
            fields = {name: self.value(getattr(obj, name)) for name in names}
            ids[id(obj)] = len(self.records)
            self.records.append({"id": len(self.records), "type": type(obj).__name__, "fields": fields})

    def value(self, v: Any) -> Any:
        if isinstance(v, ModelBase):
            if v._mapping:  # an attrs model: stored as a dict, validated again on load
                return {"dict": [[self.value(k), self.value(x)] for k, x in v.items()]}
            return {"ref": self.ids[id(v)]}
        if v is None or isinstance(v, (bool, str, float)):
            return v
        if isinstance(v, enum.Enum):
            return {"enum": [type(v).__name__, v.value]}
        if isinstance(v, int):
            return v
        if isinstance(v, DataType):
            return {"dtype": v.code()}
        if isinstance(v, Span):
            return {"span": [v.filename, v.begin_line, v.begin_column, v.end_line, v.end_column]}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, tuple):
            return {"tuple": [self.value(x) for x in v]}
        if isinstance(v, dict):
            return {"dict": [[self.value(k), self.value(x)] for k, x in v.items()]}
        raise SerializationError(f"serialize: cannot encode a value of type {type(v).__name__}: {v!r}")


def serialize(node: Any) -> bytes:
    """The MessagePack encoding of an IR node, type or view (and everything it references)."""
    enc = _Encoder()
    for obj in _model_values(node):
        enc.add(obj)
    root = enc.value(node)
    try:
        return msgpack.packb({"format": _FORMAT, "version": _VERSION, "nodes": enc.records, "root": root})
    except (OverflowError, ValueError, TypeError) as err:
        raise SerializationError(f"serialize: cannot encode: {err}") from None


def _all_subclasses(base: type) -> list[type]:
    out, todo = [], [base]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            out.append(sub)
            todo.append(sub)
    return out


def _node_classes() -> dict[str, type[ModelBase]]:
    return {cls.__name__: cls for cls in _all_subclasses(ModelBase) if cls.__module__.startswith("pypto")}


def _enum_classes() -> dict[str, type[enum.Enum]]:
    found = {cls.__name__: cls for cls in _all_subclasses(enum.Enum) if cls.__module__.startswith("pypto")}
    own = {name: cls for name, cls in vars(_enums).items() if isinstance(cls, type) and issubclass(cls, enum.Enum)}
    found.update(own)
    return found


class _Decoder:
    def __init__(self) -> None:
        self.objects: list[ModelBase] = []
        self.classes = _node_classes()
        self.enums = _enum_classes()

    def node(self, index: int, rec: Any) -> None:
        if not isinstance(rec, dict) or set(rec) != {"id", "type", "fields"}:
            raise SerializationError(f"deserialize: node #{index} is not an {{id, type, fields}} map")
        if rec["id"] != index:
            raise SerializationError(f"deserialize: node #{index} has id {rec['id']!r}")
        name, fields = rec["type"], rec["fields"]
        cls = self.classes.get(name) if isinstance(name, str) else None
        if cls is None:
            raise SerializationError(f"deserialize: node #{index} has unknown type {name!r}")
        if not isinstance(fields, dict) or not all(isinstance(k, str) for k in fields):
            raise SerializationError(f"deserialize: node #{index} ({name}) has malformed fields")
        kwargs = {k: self.value(v) for k, v in fields.items()}
        if issubclass(cls, _SingletonType) and not kwargs:
            obj = cls.get()
        else:
            try:
                obj = cls(**kwargs)
            except Exception as err:  # untrusted data may break a constructor in any way
                raise SerializationError(f"deserialize: node #{index} ({name}) is invalid: {err}") from None
        self.objects.append(obj)

    def value(self, v: Any) -> Any:
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if not isinstance(v, dict):
            if isinstance(v, bytes):
                raise SerializationError("deserialize: unexpected binary value")
            return v
        if len(v) != 1:
            raise SerializationError(f"deserialize: malformed tagged value {v!r}")
        (tag, payload), = v.items()
        if tag == "ref":
            if not isinstance(payload, int) or isinstance(payload, bool) or not 0 <= payload < len(self.objects):
                raise SerializationError(f"deserialize: dangling reference {payload!r}")
            return self.objects[payload]
        if tag == "tuple" and isinstance(payload, list):
            return tuple(self.value(x) for x in payload)
        if tag == "dict" and isinstance(payload, list) and all(isinstance(p, list) and len(p) == 2 for p in payload):
            try:
                return {self.value(k): self.value(x) for k, x in payload}
            except TypeError:
                raise SerializationError("deserialize: a dict key is not hashable") from None
        if tag == "dtype":
            if not isinstance(payload, int) or isinstance(payload, bool):
                raise SerializationError(f"deserialize: a dtype code must be an int, got {payload!r}")
            try:
                return DataType(payload)
            except ValueError as err:
                raise SerializationError(f"deserialize: {err}") from None
        if tag == "enum" and isinstance(payload, list) and len(payload) == 2:
            cls = self.enums.get(payload[0]) if isinstance(payload[0], str) else None
            if cls is None:
                raise SerializationError(f"deserialize: unknown enum {payload[0]!r}")
            try:
                return cls(payload[1])
            except ValueError as err:
                raise SerializationError(f"deserialize: {err}") from None
        if tag == "span" and isinstance(payload, list) and len(payload) == 5:
            if not isinstance(payload[0], str) or not all(type(x) is int for x in payload[1:]):
                raise SerializationError(f"deserialize: malformed span {payload!r}")
            span = Span(*payload)
            unknown = Span.unknown()
            same = all(getattr(span, a) == getattr(unknown, a) for a in Span.__slots__)
            return unknown if same else span
        raise SerializationError(f"deserialize: malformed tagged value {v!r}")


def deserialize(data: bytes | bytearray | memoryview) -> Any:
    """Rebuild the IR encoded by :func:`serialize`; corrupt input raises ``SerializationError`` (a ValueError)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise SerializationError(f"deserialize: expected bytes, got {type(data).__name__}")
    try:
        doc = msgpack.unpackb(bytes(data), raw=False, strict_map_key=False)
    except Exception as err:  # msgpack reports corrupt data with several exception classes
        raise SerializationError(f"deserialize: not valid MessagePack data ({type(err).__name__}: {err})") from None
    if not isinstance(doc, dict) or doc.get("format") != _FORMAT or set(doc) != {"format", "version", "nodes", "root"}:
        raise SerializationError("deserialize: not a serialized pypto IR (missing format header)")
    if doc["version"] != _VERSION:
        raise SerializationError(f"deserialize: unsupported version {doc['version']!r} (expected {_VERSION})")
    if not isinstance(doc["nodes"], list):
        raise SerializationError("deserialize: 'nodes' must be a list")
    dec = _Decoder()
    for index, rec in enumerate(doc["nodes"]):
        dec.node(index, rec)
    return dec.value(doc["root"])


def serialize_to_file(node: Any, path: str | os.PathLike[str]) -> None:
    """Write :func:`serialize` of ``node`` to ``path``."""
    with open(path, "wb") as f:
        f.write(serialize(node))


def deserialize_from_file(path: str | os.PathLike[str]) -> Any:
    """Read a file written by :func:`serialize_to_file`."""
    with open(path, "rb") as f:
        return deserialize(f.read())


__all__ = ["SerializationError", "deserialize", "deserialize_from_file", "serialize", "serialize_to_file"]
