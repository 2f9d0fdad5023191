"""Small chip swimlane captures in simpler's layout, as a2a3sim writes them (cycles at 50 MHz: 50 per µs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BASE = 1_000_000
R1 = 1 << 32  # ring 1: the task ids of a manual scope


def records(level: int) -> dict[str, Any]:
    """Two tasks of a manual scope: stage1 (r1t0) on AIV 10, then stage2 (r1t1) on AIV 11."""
    doc: dict[str, Any] = {
        "chip_swimlane_level": level,
        "metadata": {"clock_freq_hz": 50_000_000, "num_cores": 12, "core_types": ["aic"] * 4 + ["aiv"] * 8},
        # [core_id, task_token_raw, reg_task_id, start_cycles, end_cycles, receive_to_start_cycles]
        "aicore_tasks": [[10, R1, 1, BASE + 500, BASE + 5500, 20], [11, R1 + 1, 1, BASE + 6000, BASE + 8000, 20]],
        # [core_id, reg_task_id, dispatch_cycles, finish_cycles]
        "aicpu_tasks": [[10, 1, BASE, BASE + 5750], [11, 1, BASE + 5800, BASE + 8100]] if level >= 2 else [],
    }
    if level >= 3:
        doc["aicpu_scheduler_phases"] = [[{"kind": "dispatch", "start_cycles": BASE, "end_cycles": BASE + 10}]]
    return doc


DEPS = {
    "tasks": [
        {"task_id": str(R1), "scope": "manual", "kernel_ids": [-1, 0, -1], "block_num": 1, "args": []},
        {"task_id": str(R1 + 1), "scope": "manual", "kernel_ids": [-1, 1, -1], "block_num": 1, "args": []},
    ],
    "tensors": [],
    "edges": [
        {"pred": str(R1), "succ": str(R1 + 1), "arg": -1, "source": "explicit", "flags": ["wait", "retain"]},
        {"pred": str(R1), "succ": str(R1 + 1), "arg": 0, "source": "tensormap", "flags": []},
    ],
}

KERNEL_CONFIG = '''RUNTIME_CONFIG = {"runtime": "tensormap_and_ringbuffer", "aicpu_thread_num": 0}
ORCHESTRATION = {"source": "orchestration/main.cpp", "function_name": "aicpu_orchestration_entry", "signature": []}
KERNELS = [
    {"func_id": 0, "name": "stage1", "source": "kernels/aiv/stage1.cpp", "core_type": "aiv", "signature": []},
    {"func_id": 1, "name": "stage2", "source": "kernels/aiv/stage2.cpp", "core_type": "aiv", "signature": []},
]
'''


def write_run(root: Path, level: int = 4, deps: bool = True) -> Path:
    """An artifact tree ``root`` with a capture in ``root/dfx_outputs``; returns ``root``."""
    for source in ("orchestration/main.cpp", "kernels/aiv/stage1.cpp", "kernels/aiv/stage2.cpp"):
        (root / source).parent.mkdir(parents=True, exist_ok=True)
        (root / source).write_text("// generated\n")
    (root / "kernel_config.py").write_text(KERNEL_CONFIG)
    dfx = root / "dfx_outputs"
    dfx.mkdir()
    (dfx / "chip_swimlane_records.json").write_text(json.dumps(records(level)))
    if deps:
        (dfx / "deps.json").write_text(json.dumps(DEPS))
    return root
