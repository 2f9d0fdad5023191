"""compiled_meta.json is written by meta's own indenting writer: the same text as ``json.dumps(indent=2)``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import pypto.language as pl
from pypto.runtime.meta import _indented, meta_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

VALUES: list[Any] = [
    {"name": 'a\u00e9"x\n\t\\', "shape": [64, -1], "none": None, "empty": [], "nested": [[], [1, [2, {}]]]},
    {"flags": [True, False], "n": -5, "half": 0.5, "wide": "\u65e5\u672c", "obj": {}},
    {"pair": (1, (2, "b")), "none": ()},
    {},
    [],
    "text",
    7,
    None,
]


@pytest.mark.parametrize("value", VALUES)
def test_the_indented_writer_prints_what_json_prints(value: Any) -> None:
    assert _indented(value, "\n") == json.dumps(value, indent=2)


def test_a_value_json_refuses_is_refused_alike() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        _indented({"x": [object()]}, "\n")


@pytest.mark.parametrize("name", ["tile_add", "tensor_dyn_rows", "deps_task_array"])
def test_an_example_signature_is_the_json_of_its_fields(name: str) -> None:
    program = pl.loads_program(str(EXAMPLES / f"{name}.py"))
    text = meta_text(program, "a2a3sim", "Ascend910B")
    assert text == json.dumps(json.loads(text), indent=2)
