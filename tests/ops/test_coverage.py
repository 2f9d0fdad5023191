"""The registry covers the whole catalog: inference, effects, placement, DSL binding and test cases."""

from __future__ import annotations

import keyword

import pytest
from catalog import CATALOG, PROMOTED_NAMES, SYSTEM_ALIASES
from op_cases import BUILDS, REJECTS

import pypto.language.op as pl_op
from pypto.ir import op_registry
from pypto.ir.op_registry import Effect

BUILT = {c.op for c in BUILDS}
REJECTED = {c.op for c in REJECTS}


def _py_name(leaf: str) -> str:
    return leaf + "_" if keyword.iskeyword(leaf) else leaf


@pytest.mark.parametrize("name", CATALOG)
def test_catalog_op_is_complete(name: str) -> None:
    entry = op_registry.lookup(name)
    assert entry is not None, f"{name} is not registered"
    assert callable(entry.deduce) and entry.doc, f"{name} lacks a documented type rule"
    assert all(isinstance(e, Effect) for e in entry.effects().values()), f"{name} lacks effects"
    assert entry.placement, f"{name} has no allowed function kinds"
    family, leaf = name.split(".", 1)
    assert callable(getattr(getattr(pl_op, family), _py_name(leaf), None)), f"{name} has no pl.{family} binding"
    assert name in BUILT, f"{name} has no build case"
    assert name in REJECTED, f"{name} has no rejection case"


def test_registry_holds_only_catalog_ops() -> None:
    assert sorted(e.name for e in op_registry.all_entries()) == sorted(CATALOG)


def test_promoted_names_are_exported() -> None:
    assert sorted(pl_op.PROMOTED) == sorted(set(PROMOTED_NAMES))


@pytest.mark.parametrize(
    ("promoted", "namespace", "name"),
    [("create_tile", "tile", "create"), ("load", "tile", "load"), ("store", "tile", "store"),
     ("create_tensor", "tensor", "create"), ("arange", "tensor", "ci"), ("full", "tensor", "full"),
     ("gather", "tensor", "gather"), ("max", "tile", "max"), ("tpush_to_aiv", "system", "tpush_to_aiv"),
     ("reserve_buffer", "system", "reserve_buffer"), ("AUTO", "system", "AUTO")],
)
def test_promoted_aliases_are_the_namespaced_objects(promoted: str, namespace: str, name: str) -> None:
    assert pl_op.PROMOTED[promoted] is getattr(getattr(pl_op, namespace), name)


@pytest.mark.parametrize("name", SYSTEM_ALIASES)
def test_cross_core_functions_are_in_pl_system_too(name: str) -> None:
    assert getattr(pl_op.system, name) is getattr(pl_op.tile, name)


def test_keyword_named_ops_bind_with_underscore() -> None:
    assert pl_op.tile.and_.__name__ == "and_"
    assert pl_op.tensor.not_.__name__ == "not_"
    assert not hasattr(pl_op.tile, "and")
