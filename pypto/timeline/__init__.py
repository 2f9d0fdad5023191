"""Chip swimlane timelines of a2a3sim runs: read the capture, draw it (SVG, Chrome trace), check a schedule.

    compiled(*args, config=RunConfig(enable_chip_swimlane=4, enable_dep_gen=True))
    timeline = load_timeline(compiled.output_dir)
    Path("run.svg").write_text(render_svg(timeline))

See docs/timeline.md.
"""

from .records import DEPS_FILE, DFX_DIR, RECORDS_FILE, TaskRun, Timeline, TimelineError, load_timeline, task_label
from .schedule import edge_runs, edge_violations, fence_violations, overlapping_pairs
from .svg import render_svg
from .trace import chrome_trace, write_chrome_trace

__all__ = [
    "DEPS_FILE",
    "DFX_DIR",
    "RECORDS_FILE",
    "TaskRun",
    "Timeline",
    "TimelineError",
    "chrome_trace",
    "edge_runs",
    "edge_violations",
    "fence_violations",
    "load_timeline",
    "overlapping_pairs",
    "render_svg",
    "task_label",
    "write_chrome_trace",
]
