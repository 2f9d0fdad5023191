"""Memory-map SVGs read back: every box is a planned buffer at the IR's address and size, over the planner's
lifetimes, drawn at the coordinates its lane's scales give; the capacity and the peak are marked; a program
that does not fit is drawn with its overflow in red."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pypto.passes import CapacityError
from pypto.passes.memory_lifetimes import lifetimes

import pypto.language as pl
from pypto import ir, passes
from pypto.analysis import function_index, op_name
from pypto.backend import BackendType, platform_for
from pypto.ir.enums import MemorySpace
from pypto.ir.expr import Call
from pypto.ir.function import Function
from pypto.memmap import MemmapError, kernel_map, plan_maps, render_svg
from pypto.memmap.svg import MIN_HEIGHT
from pypto.transform.memref_util import KERNELS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SVG = "{http://www.w3.org/2000/svg}"
A2A3 = platform_for(BackendType.Ascend910B)
BIG_ADD = (EXAMPLES / "tile_add.py").read_text().replace("128, 128", "256, 128")


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 0.011  # coordinates are written with two decimals


def _boxes(root: ET.Element) -> list[tuple[ET.Element, ET.Element]]:
    """(lane, box group) for every buffer and ring of the picture."""
    return [(lane, g) for lane in root.iter(f"{SVG}g") if lane.get("class") == "lane"
            for g in lane.iter(f"{SVG}g") if g.get("class", "").split()[0] in ("buffer", "ring")]


def _check_geometry(lane: ET.Element, box: ET.Element) -> None:
    """The box's rectangle is its address range and statement range under the lane's scales."""
    rect = box.find(f"{SVG}rect")
    extent, bottom, top = int(lane.get("data-extent")), float(lane.get("data-bottom")), float(lane.get("data-top"))
    left, column = float(lane.get("data-left")), float(lane.get("data-column"))
    address, size = int(box.get("data-address")), int(box.get("data-size"))
    first, last = int(box.get("data-first")), int(box.get("data-last"))
    per_byte = (bottom - top) / extent
    assert _close(float(rect.get("y")), bottom - (address + size) * per_byte)
    assert _close(float(rect.get("height")), max(size * per_byte, MIN_HEIGHT))
    assert _close(float(rect.get("x")), left + (first - 1) * column)
    assert _close(float(rect.get("width")), (last - first + 1) * column)


def _check_kernel(func: Function, root: ET.Element) -> None:
    """Every on-chip tile of ``func`` is named by exactly one box, which has its MemRef's address and size
    and spans its lifetime; every ring is a box at its reserved range; the lanes mark capacity and peak."""
    life = lifetimes(func)
    tiles = {v.name_hint: v for v in life.defs}
    rings = {c.kwargs["name"]: c for c in function_index(func).of(Call) if op_name(c) == "system.reserve_buffer"}
    named: list[str] = []
    for lane, box in _boxes(root):
        _check_geometry(lane, box)
        names = box.get("data-names").split(",")
        assert box.get("data-space") == lane.get("data-space")
        if "ring" in box.get("class").split():
            call = rings.pop(names[0])
            placed = (int(box.get("data-address")), int(box.get("data-size")))
            assert placed == (call.kwargs["base"], call.kwargs["size"])
            assert (box.get("data-first"), box.get("data-last")) == ("1", str(life.statements))
            continue
        named += names
        for name in names:
            ref = tiles[name].type.memref
            assert (int(box.get("data-address")), int(box.get("data-size"))) == (ref.byte_offset_.value, ref.size_)
            assert box.get("data-space") == tiles[name].type.memory_space.name
        assert int(box.get("data-first")) == min(life.interval(tiles[n])[0] for n in names)
        assert int(box.get("data-last")) == max(life.interval(tiles[n])[1] for n in names)
    assert sorted(named) == sorted(tiles) and not rings
    for lane in (g for g in root.iter(f"{SVG}g") if g.get("class") == "lane"):
        bands = [(int(g.get("data-first")), int(g.get("data-last"))) for g in lane.iter(f"{SVG}g")
                 if g.get("class") == "loop"]
        assert sorted(bands) == sorted((lp.start, lp.end) for lp in life.loops)
    for lane in (g for g in root.iter(f"{SVG}g") if g.get("class") == "lane"):
        ends = [int(b.get("data-address")) + int(b.get("data-size")) for lane_of, b in _boxes(root) if lane_of is lane]
        assert int(lane.get("data-peak")) == max(ends)
        assert int(lane.get("data-capacity")) == A2A3.capacity[MemorySpace[lane.get("data-space")]]
        for kind in ("capacity", "peak"):
            line = next(e for e in lane.iter(f"{SVG}line") if e.get("class") == kind)
            bottom, per_byte = float(lane.get("data-bottom")), (
                float(lane.get("data-bottom")) - float(lane.get("data-top"))) / int(lane.get("data-extent"))
            assert _close(float(line.get("y1")), bottom - int(line.get("data-bytes")) * per_byte)
            assert int(line.get("data-bytes")) == int(lane.get(f"data-{kind}"))


@pytest.mark.parametrize("example, spaces", [
    ("row_softmax", {"softmax": ["Vec"]}),
    ("tile_add", {"tile_add": ["Vec"]}),
    ("matmul", {"matmul": ["Mat", "Left", "Right", "Acc"]}),
    ("matmul_big_k", {"matmul": ["Mat", "Left", "Right", "Acc"]}),
    ("cross_core_pipes", {"multiply": ["Mat", "Left", "Right", "Acc"], "prepare": ["Vec"]}),
    ("mixed_matmul_softmax", {"main_incore_0_aic": ["Mat", "Left", "Right", "Acc"], "main_incore_0_aiv": ["Vec"]}),
])
def test_boxes_are_the_planned_buffers(example: str, spaces: dict[str, list[str]], tmp_path: Path) -> None:
    compiled = ir.compile(pl.loads_program(str(EXAMPLES / f"{example}.py")), output_dir=tmp_path / "out", memmap=True)
    kernels = {f.name: f for f in compiled.final_program.functions.values() if f.func_type in KERNELS}
    assert sorted(p.name for p in (tmp_path / "out" / "memmap").iterdir()) == sorted(f"{k}.svg" for k in kernels)
    assert set(spaces) == set(kernels)
    for name, func in kernels.items():
        root = ET.parse(tmp_path / "out" / "memmap" / f"{name}.svg").getroot()
        assert (root.get("data-kernel"), root.get("data-platform")) == (name, "a2a3")
        assert [g.get("data-space") for g in root.iter(f"{SVG}g") if g.get("class") == "lane"] == spaces[name]
        _check_kernel(func, root)


def test_the_softmax_map_shows_reuse_and_labels(tmp_path: Path) -> None:
    planned = plan_maps(pl.loads_program(str(EXAMPLES / "row_softmax.py")))
    root = ET.fromstring(render_svg(planned.maps["softmax"]))
    boxes = {g.get("data-name"): g for _, g in _boxes(root)}
    assert boxes["t"].get("data-names") == "t,shifted,e,result"  # in-place updates continue one lifetime
    assert [e.text for e in boxes["t"].iter(f"{SVG}text")] == ["t +3 16 KiB @0"]
    assert boxes["t"].find(f"{SVG}title").text == (
        "t, shifted, e, result: Vec [0, 16384) = 16384 bytes, statements 4-19")
    # row_max and row_sum take turns in one buffer: same address, disjoint statement ranges.
    row_max, row_sum = boxes["row_max"], boxes["row_sum"]
    assert row_max.get("data-address") == row_sum.get("data-address") == "32768"
    assert int(row_max.get("data-last")) < int(row_sum.get("data-first"))
    status = next(e for e in root.iter(f"{SVG}text") if e.get("class") == "status")
    assert status.text == "fits: every space stays under its capacity"


def test_a_program_that_does_not_fit_is_drawn_with_the_overflow_in_red(tmp_path: Path) -> None:
    planned = plan_maps(pl.parse(BIG_ADD))
    assert isinstance(planned.error, CapacityError)
    assert str(planned.error).startswith(
        "AllocateMemoryAddr: Function 'tile_add': Vec buffer usage (262144 bytes) exceeds platform limit "
        "(188416 bytes)")
    root = ET.fromstring(render_svg(planned.maps["tile_add"]))
    _check_kernel(planned.error.attempt, root)
    over = [g for _, g in _boxes(root) if "overflow" in g.get("class").split()]
    assert [(g.get("data-name"), g.get("data-address")) for g in over] == [("tile_b", "131072")]
    # The part of tile_b past the capacity (from 188416 to its end, 262144) is red.
    lane = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "lane")
    bottom, per_byte = float(lane.get("data-bottom")), 240 / 262144
    part = next(r for r in over[0].iter(f"{SVG}rect") if r.get("class") == "overflow-part")
    assert part.get("fill") == "#e0301e" and _close(float(part.get("y")), bottom - 262144 * per_byte)
    assert _close(float(part.get("height")), (262144 - 188416) * per_byte)
    assert any(e.get("class") == "over-capacity" for e in root.iter(f"{SVG}rect"))
    status = next(e for e in root.iter(f"{SVG}text") if e.get("class") == "status")
    assert status.text == "does not fit: Vec needs 262144 of 188416 bytes"


def test_compile_with_memmap_keeps_the_overflow_maps_in_the_failed_tree(tmp_path: Path) -> None:
    with pytest.raises(CapacityError, match="Function 'big': Vec buffer usage"):
        ir.compile(pl.parse(TWO_KERNELS), output_dir=tmp_path / "out", memmap=True)
    failed = tmp_path / "out.failed-1" / "memmap"
    assert sorted(p.name for p in failed.iterdir()) == ["big.svg", "small.svg"]
    assert "overflow" in ET.parse(failed / "big.svg").getroot().find(f".//{SVG}g[@data-name='tb']").get("class")


def test_a_kernel_without_planned_addresses_is_refused() -> None:
    pipeline = passes.PassManager.get_strategy().passes
    before = pipeline[: [p.name for p in pipeline].index("AllocateMemoryAddr")]
    with passes.PassContext(platform=A2A3):
        unplanned = passes.PassManager(before).run(pl.loads_program(str(EXAMPLES / "tile_add.py")))
    kernel = next(f for f in unplanned.functions.values() if f.func_type in KERNELS)
    with pytest.raises(MemmapError, match="'tile_add' has no planned address for 'tile_a': a memory map needs"):
        kernel_map(kernel, A2A3)


TWO_KERNELS = """
import pypto.language as pl


@pl.program
class TwoKernels:
    @pl.function(type=pl.FunctionType.InCore)
    def big(self, a: pl.Tensor[[256, 128], pl.FP32], b: pl.Tensor[[256, 128], pl.FP32],
            c: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        ta: pl.Tile[[256, 128], pl.FP32] = pl.load(a, [0, 0], [256, 128])
        tb: pl.Tile[[256, 128], pl.FP32] = pl.load(b, [0, 0], [256, 128])
        c = pl.store(pl.add(ta, tb), [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.InCore)
    def small(self, a: pl.Tensor[[64, 64], pl.FP32],
              c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        ta: pl.Tile[[64, 64], pl.FP32] = pl.load(a, [0, 0], [64, 64])
        c = pl.store(pl.exp(ta), [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 128], pl.FP32], b: pl.Tensor[[256, 128], pl.FP32],
             c: pl.Out[pl.Tensor[[256, 128], pl.FP32]], x: pl.Tensor[[64, 64], pl.FP32],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             ) -> tuple[pl.Tensor[[256, 128], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        c = self.big(a, b, c)
        y = self.small(x, y)
        return c, y
"""


def test_a_capacity_error_maps_every_kernel_not_only_the_one_that_failed() -> None:
    planned = plan_maps(pl.parse(TWO_KERNELS))
    assert "Function 'big': Vec buffer usage (262144 bytes)" in str(planned.error)
    assert sorted(planned.maps) == ["big", "small"]
    big, small = (ET.fromstring(render_svg(planned.maps[k])) for k in ("big", "small"))
    assert [g.get("data-name") for _, g in _boxes(big) if "overflow" in g.get("class")] == ["tb"]
    assert [(g.get("data-name"), g.get("class"), g.get("data-address")) for _, g in _boxes(small)] == [
        ("ta", "buffer", "0")]
