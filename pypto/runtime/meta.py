"""``compiled_meta.json``: the call signature of a compiled program, so that ``CompiledProgram.from_dir``
can call an artifact tree without the program that made it.

Schema 1 (the established one): ``params`` [{``name``, ``direction`` (``In``/``Out``/``InOut``),
``shape`` (-1 for a dynamic dim; ``null`` for a scalar), ``dtype``}], ``num_return_types``,
``platform``, ``backend_type``; pypto adds ``created_results`` and ``results`` when the entry
returns tensors it creates (docs/passes.md#exportentryresults).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pypto.ir import expr as E
from pypto.ir.datatype import DataType
from pypto.ir.enums import FunctionType, ParamDirection
from pypto.ir.function import Function, Program
from pypto.ir.node import replace
from pypto.ir.span import Span
from pypto.ir.stmt import SeqStmts
from pypto.ir.type_base import ScalarType
from pypto.ir.types import TensorType

META_FILE = "compiled_meta.json"
SCHEMA = 1


def signature_function(program: Program) -> Function:
    """The function whose signature a call follows: the Orchestration function, else the only one."""
    found = [f for f in program.functions.values() if f.func_type == FunctionType.Orchestration]
    if not found and len(program.functions) == 1:
        found = list(program.functions.values())
    if len(found) != 1:
        raise ValueError(f"Program has no Orchestration function (or several): {program.name!r}")
    return found[0]


def meta_text(program: Program, platform: str, backend_type: str, final: Program | None = None) -> str:
    """The ``compiled_meta.json`` text of ``program`` (its signature function's parameters); the
    ``final`` program's entry instead when it returns tensors it creates (it has their parameters)."""
    func = signature_function(program)
    if final is not None and signature_function(final).attrs.created_results:
        func = signature_function(final)
    params = []
    for p, direction in zip(func.params, func.param_directions):
        t = p.type
        if isinstance(t, TensorType):
            shape: list[int] | None = [d.value if isinstance(d, E.ConstInt) else -1 for d in t.shape]
        else:
            shape = None
        params.append({"name": p.name_hint, "direction": direction.name, "shape": shape, "dtype": t.dtype.name})
    meta = {
        "schema": SCHEMA,
        "function": func.name,
        "params": params,
        "num_return_types": len(func.return_types),
        **_results(func),
        "platform": platform,
        "backend_type": backend_type,
    }
    return _indented(meta, "\n")


def _indented(value: Any, newline: str) -> str:
    """``json.dumps(value, indent=2)`` of a signature's values (dicts with string keys, lists or tuples,
    strings, numbers, bools, None), lines after the first starting with ``newline``: the json module's indenting
    encoder is its pure-Python one, which cost more than the rest of the file; strings go through its
    C escaping."""
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    inner = newline + "  "
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = (f"{_string(k)}: {_indented(v, inner)}" for k, v in value.items())
        return "{" + inner + ("," + inner).join(items) + newline + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        return "[" + inner + ("," + inner).join(_indented(v, inner) for v in value) + newline + "]"
    return json.dumps(value)  # a float (or what json refuses, with its error)


_string = json.encoder.encode_basestring_ascii  # what json.dumps escapes strings with (ensure_ascii)


def _results(func: Function) -> dict[str, Any]:
    """The pypto keys of a function that returns tensors it creates (ExportEntryResults): how many
    trailing parameters a call allocates, and the parameter behind each returned value."""
    if not func.attrs.created_results:
        return {}
    return {"created_results": func.attrs.created_results, "results": list(func.attrs.results or [])}


def read_meta(output_dir: Path) -> tuple[Program, dict[str, Any]]:
    """The signature of the tree in ``output_dir`` as a program holding one bodiless Orchestration
    function, and the raw metadata. ``FileNotFoundError`` without the file, ``ValueError`` if malformed."""
    path = output_dir / META_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist (compile into {output_dir} with ir.compile first)")
    try:
        meta = json.loads(path.read_text())
        if meta.get("schema", SCHEMA) != SCHEMA:
            raise ValueError(f"schema {meta['schema']} (this pypto reads {SCHEMA})")
        func = _function(meta.get("function", "main"), meta["params"], int(meta["num_return_types"]))
        if "created_results" in meta:
            attrs = {"created_results": int(meta["created_results"]), "results": [int(i) for i in meta["results"]]}
            func = replace(func, attrs=attrs)
        str(meta["platform"]), str(meta["backend_type"])
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise ValueError(f"{path} is malformed: {err}") from None
    return Program([func], func.name, Span.unknown()), meta


def _function(name: str, params: list[dict[str, Any]], returns: int) -> Function:
    span = Span.unknown()
    variables, directions = [], []
    for p in params:
        dtype = DataType.from_name(p["dtype"])
        if p["shape"] is None:
            t: Any = ScalarType(dtype)
        else:
            index = ScalarType(DataType.INDEX)
            dims = [
                E.ConstInt(d, DataType.INDEX, span) if d >= 0 else E.Var(f"{p['name']}_dim{i}", index, span)
                for i, d in enumerate(p["shape"])
            ]
            t = TensorType(dims, dtype)
        variables.append(E.Var(p["name"], t, span))
        directions.append(ParamDirection[p["direction"]])
    out_types = [v.type for v, d in zip(variables, directions) if d != ParamDirection.In][:returns]
    return Function(
        name=name,
        params=variables,
        param_directions=directions,
        return_types=out_types,
        body=SeqStmts([], span),
        func_type=FunctionType.Orchestration,
        span=span,
    )
