"""Op facts kept outside the registry entries: each per-concern table covers every tile op the
registry does not decide, holds nothing the registry decides, and agrees with the registry."""

from __future__ import annotations

import importlib

import pytest

from pypto import ir
from pypto.analysis.pipes import PIPE_EXCEPTIONS, cube_ops, derived_pipe, pipe_rule
from pypto.ir.op_registry import all_entries, get_entry, is_op_registered, is_view_op
from pypto.languages.invariants.affinity import AFFINITY_EXCEPTIONS, UNDECIDED, Affinity, affinity, derived_affinity

TILE_OPS = [e for e in all_entries() if e.namespace == "tile"]
CUBE_OPS = {"tile." + n for n in ("matmul", "matmul_acc", "matmul_bias", "gemv", "gemv_acc", "gemv_bias",
                                  "batch_matmul", "batch_matmul_acc", "matmul_mx", "matmul_mx_acc", "matmul_mx_bias")}


def test_every_tile_op_has_a_pipe_from_its_entry_or_the_table() -> None:
    assert [e.name for e in TILE_OPS if derived_pipe(e) == "undecided" and e.name not in PIPE_EXCEPTIONS] == []


def test_every_tile_op_has_an_affinity_from_its_entry_or_the_table() -> None:
    assert [e.name for e in TILE_OPS if derived_affinity(e) == UNDECIDED and e.name not in AFFINITY_EXCEPTIONS] == []


@pytest.mark.parametrize(("table", "derive"),
                         [(PIPE_EXCEPTIONS, derived_pipe), (AFFINITY_EXCEPTIONS, derived_affinity)])
def test_tables_name_registered_tile_ops_the_registry_does_not_decide(table: dict, derive) -> None:
    assert [n for n in table if not n.startswith("tile.") or derive(get_entry(n)) == table[n]] == []


def test_the_cube_pipe_runs_exactly_the_matmul_family() -> None:
    """batch_matmul, batch_matmul_acc and matmul_mx* were V ops (issue 28)."""
    assert {e.name for e in TILE_OPS if pipe_rule(e.name) is ir.PipeType.M} == cube_ops() == CUBE_OPS


VIEWS = {"tile.reshape", "tile.slice", "tile.reinterpret_view", "tile.transpose_view", "tile.set_validshape"}


def test_views_are_the_zero_copy_ops_and_issue_nothing() -> None:
    assert {e.name for e in TILE_OPS if is_view_op(e.name)} == VIEWS
    assert {n: pipe_rule(n) for n in VIEWS} == dict.fromkeys(VIEWS)


@pytest.mark.parametrize(("space", "side"),
                         [(ir.MemorySpace.Mat, Affinity.CUBE), (ir.MemorySpace.Vec, Affinity.VECTOR)])
def test_a_slice_runs_on_the_side_of_its_source(space: ir.MemorySpace, side: Affinity) -> None:
    """A slice of a Mat tile was a vector op (issue 28): ExpandMixedKernel put it in the AIV kernel."""
    t = ir.Var("t", ir.TileType([ir.ConstInt(32, ir.DataType.INDEX, ir.Span.unknown())] * 2, ir.DataType.FP16,
                                memory_space=space), ir.Span.unknown())
    assert affinity(ir.op.tile.slice(t, [16, 16], [0, 0])) is side
    assert affinity(ir.op.tile.reshape(t, [16, 64])) is side


def _op_keyed_tables() -> dict[str, set[str]]:
    from pypto.analysis import layouts, reductions, windows
    from pypto.ir.printer import op_shapes

    flatten_tile_nd_to_2d = importlib.import_module("pypto.passes.flatten_tile_nd_to_2d")
    resolve_backend_op_layouts = importlib.import_module("pypto.passes.resolve_backend_op_layouts")

    return {
        "ROW_MAJOR_OPERANDS": set(layouts.ROW_MAJOR_OPERANDS),
        "ANY_LAYOUT": set(layouts.ANY_LAYOUT),
        "_EXPAND_FORM": set(resolve_backend_op_layouts._EXPAND_FORM)
        | {"tile." + v for v in resolve_backend_op_layouts._EXPAND_FORM.values()},
        "flatten _RULES": set(flatten_tile_nd_to_2d._RULES),
        "SHAPES": set(op_shapes.SHAPES) | set(op_shapes.SHAPE_ATTRS) | set(op_shapes.RENAMED_BY_ARGS),
        "_WINDOWS": set(windows._WINDOWS) | set(windows.NO_WINDOW) | set(windows._BLOCK_CALLS),
        "reductions": set(reductions.REDUCED_TERMS) | reductions.SUMS | reductions.SCALES,
    }


@pytest.mark.parametrize("table", sorted(_op_keyed_tables()))
def test_op_keyed_tables_name_registered_ops(table: str) -> None:
    """A misspelled or removed op in a per-concern table is a fact that silently applies to nothing."""
    assert sorted(n for n in _op_keyed_tables()[table] if not is_op_registered(n)) == []


def _printed_vector_ops() -> set[str]:
    from codegen.cce_ops import CCE_OPS
    from codegen.pto_ops import PTO_OPS

    return {e.name for e in TILE_OPS if pipe_rule(e.name) is ir.PipeType.V and (e.name in CCE_OPS or e.name in PTO_OPS)}


def test_every_printed_vector_op_has_its_layout_need_once() -> None:
    """A vector op an emitter prints says which operands pto-isa needs row-major, or that it takes any layout."""
    from pypto.analysis.layouts import ANY_LAYOUT, ROW_MAJOR_OPERANDS

    assert sorted(_printed_vector_ops() - set(ROW_MAJOR_OPERANDS) - ANY_LAYOUT) == []
    assert sorted(set(ROW_MAJOR_OPERANDS) & ANY_LAYOUT) == []
    assert sorted((set(ROW_MAJOR_OPERANDS) | ANY_LAYOUT) - _printed_vector_ops()) == []


def test_row_major_operands_are_tile_parameters_of_their_ops() -> None:
    from pypto.analysis.layouts import ROW_MAJOR_OPERANDS

    def not_tiles(op: str, names: frozenset[str]) -> set[str]:
        return set(names) - {p.name for p in get_entry(op).params if "tile" in p.accepts}

    assert {op: not_tiles(op, need.operands) for op, need in ROW_MAJOR_OPERANDS.items()
            if not need.operands or not_tiles(op, need.operands)} == {}


def test_flatten_other_axis_prefixes_each_name_a_registered_op() -> None:
    from pypto.passes.flatten_tile_nd_to_2d import _OTHER_AXIS

    assert [p for p in _OTHER_AXIS if not any(e.name.startswith(p) for e in TILE_OPS)] == []
