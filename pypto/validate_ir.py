"""``CompiledProgram.validate_ir``: interpret every pass dump of a compile on the same inputs and compare
the outputs with the expected ones, so that the first pass that changed a result shows.

Each ``passes_dump/NN_*.py`` file is a program that parses again; pypto's interpreter runs any
dialect, so each stage runs as it was printed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pypto.ir.errors import PyptoError


@dataclass(frozen=True)
class StageCheck:
    """One dump's outcome: ``passed``, the largest absolute error over the outputs (None when the
    stage did not run) and the first line of its error."""

    dump: str
    passed: bool
    max_abs_error: float | None
    error: str | None = None


def validate_dumps(
    dump_dir: Path,
    entry: str,
    inputs: Sequence[Any],
    expected: Mapping[str, np.ndarray],
    *,
    rtol: float,
    atol: float,
) -> list[StageCheck]:
    """Run ``entry`` of every dump in ``dump_dir`` (in file order) on ``inputs``; compare ``expected`` by name."""
    import pypto.language as pl
    from pypto import interp

    dumps = sorted(dump_dir.glob("*.py"))
    if not dumps:
        raise FileNotFoundError(f"{dump_dir} holds no pass dumps (compile with dump_passes=True)")
    checks = []
    for path in dumps:
        try:
            result = interp.run(pl.loads_program(str(path)), *inputs, entry=entry)
        except PyptoError as err:
            checks.append(StageCheck(path.name, False, None, str(err).splitlines()[0]))
            continue
        worst, passed = 0.0, True
        for name, want in expected.items():
            got = np.asarray(result.outputs[name], dtype=np.float64)
            want64 = np.asarray(want, dtype=np.float64)
            passed = passed and bool(np.allclose(got, want64, rtol=rtol, atol=atol, equal_nan=True))
            worst = max(worst, float(np.nanmax(np.abs(got - want64), initial=0.0)))
        checks.append(StageCheck(path.name, passed, worst))
    return checks
