"""The timeline picture (SVG) and the Chrome trace of a capture, read back and checked element by element."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from timeline_captures import R1, write_run

from pypto.timeline import chrome_trace, load_timeline, render_svg

NS = {"s": "http://www.w3.org/2000/svg"}


def _svg(tmp_path: Path, level: int = 4) -> ET.Element:
    return ET.fromstring(render_svg(load_timeline(write_run(tmp_path / "run", level=level))))


def test_one_lane_per_core_and_one_labelled_bar_per_task(tmp_path: Path) -> None:
    svg = _svg(tmp_path)
    assert [t.text for t in svg.iterfind("s:text[@class='lane-label']", NS)] == ["AIV 10", "AIV 11"]
    assert [r.get("data-core") for r in svg.iterfind("s:rect[@class='lane']", NS)] == ["10", "11"]
    bars = svg.findall("s:g[@class='task']", NS)
    assert [(g.get("data-task"), g.get("data-kernel"), g.get("data-core")) for g in bars] == [
        (str(R1), "stage1", "10"), (str(R1 + 1), "stage2", "11")
    ]
    assert [g.find("s:text", NS).text for g in bars] == ["stage1", "stage2"]
    assert bars[0].find("s:title", NS).text == (
        "stage1 r1t0 on AIV 10: dispatch 0.000 µs, start 10.000 µs, end 110.000 µs, finish 115.000 µs"
    )
    # 160 µs over an axis to 160 (step 20) on the 880 px between the margins: 5.5 px per µs.
    rect = bars[0].find("s:rect", NS)
    assert (rect.get("x"), rect.get("width")) == ("145", "550")
    assert svg.get("width") == "1000" and svg.find("s:text", NS).text == "2 task runs on 2 cores, swimlane level 4"


def test_a_legend_names_the_kernels(tmp_path: Path) -> None:
    svg = _svg(tmp_path)
    assert [(g.get("data-kernel"), g.find("s:text", NS).text) for g in svg.iterfind("s:g[@class='legend']", NS)] == [
        ("stage1", "stage1"), ("stage2", "stage2")
    ]
    bar_fill = svg.find("s:g[@class='task']/s:rect", NS).get("fill")
    assert svg.find("s:g[@class='legend']/s:rect", NS).get("fill") == bar_fill


def test_the_axis_is_in_microseconds(tmp_path: Path) -> None:
    svg = _svg(tmp_path)
    ticks = [t.text for t in svg.iterfind("s:text[@class='tick-label']", NS)]
    assert ticks == ["0", "20", "40", "60", "80", "100", "120", "140", "160"]
    assert svg.find("s:text[@class='axis-label']", NS).text == "time (µs)"


def test_dependency_edges_are_arrows_from_end_to_start(tmp_path: Path) -> None:
    svg = _svg(tmp_path)
    (edge,) = svg.findall("s:line[@class='dep']", NS)
    assert (edge.get("data-pred"), edge.get("data-succ")) == (str(R1), str(R1 + 1))
    assert (edge.get("x1"), edge.get("x2"), edge.get("marker-end")) == ("695", "750", "url(#arrow)")


def test_the_wait_from_dispatch_to_start_is_drawn_from_level_2(tmp_path: Path) -> None:
    assert len(_svg(tmp_path / "a", level=2).findall(".//s:line[@class='dispatch']", NS)) == 2
    assert _svg(tmp_path / "b", level=1).findall(".//s:line[@class='dispatch']", NS) == []


def test_the_chrome_trace_has_a_thread_per_core_an_event_per_task_and_a_flow_per_edge(tmp_path: Path) -> None:
    trace = chrome_trace(load_timeline(write_run(tmp_path / "run")))
    events = trace["traceEvents"]
    names = [(e["tid"], e["args"]["name"]) for e in events if e["name"] == "thread_name"]
    assert names == [(10, "AIV 10"), (11, "AIV 11")]
    tasks = [e for e in events if e["ph"] == "X"]
    assert [(e["name"], e["tid"], e["ts"], e["dur"]) for e in tasks] == [("stage1", 10, 10.0, 100.0),
                                                                         ("stage2", 11, 120.0, 40.0)]
    assert tasks[1]["args"] == {"task_id": R1 + 1, "task": "r1t1", "dispatch_us": 116.0, "finish_us": 162.0}
    flows = [(e["ph"], e["tid"], e["id"]) for e in events if e.get("cat") == "dep"]
    assert flows == [("s", 10, 0), ("f", 11, 0)]
