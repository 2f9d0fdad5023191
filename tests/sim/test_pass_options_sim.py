"""Programs compiled with non-default pass options run on a2a3sim and equal the interpreter: the
options change the plan (slabs, output blocks, buffer sharing), never the result."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from shared_programs import FOUR_TILES

import pypto.language as pl
from pypto import ir
from pypto.compiled import parameters
from pypto.ir.numpy_dtypes import numpy_dtype
from pypto.interp.tolerance import output_tolerances
from pypto.ir.enums import ParamDirection
from pypto.runtime import simulator_missing_reason

if (_missing := simulator_missing_reason()) is not None:
    pytest.skip(f"simulator tier: {_missing} (scripts/install-simulator.sh installs it)", allow_module_level=True)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# Program (an example's name, or source text) -> pass options -> peak bytes per memory space with
# those options and with the defaults.
CASES = {
    # One 64 KiB slab at a time, or (the default) two 32 KiB slabs in flight: all of L0A/L0B either way.
    "matmul_big_k-l0ab": ("matmul_big_k", {"AutoTileMatmulL0": {"l0ab_stages": 1}},
                          {"Left": (65536, 65536), "Right": (65536, 65536)}),
    "big_mn-l0ab-l0c": ("tensor_matmul_big_mn", {"AutoTileMatmulL0": {"l0ab_stages": 1, "l0c_stages": 1}},
                        {"Acc": (131072, 65536)}),
    "four_tiles-best_fit": (FOUR_TILES, {"MemoryReuse": {"strategy": "best_fit"}}, {"Vec": (57344, 73728)}),
    "row_softmax-none": ("row_softmax", {"MemoryReuse": {"strategy": "none"}}, {"Vec": (82432, 33024)}),
}


def _program(source: str) -> ir.Program:
    return pl.parse(source) if "\n" in source else pl.loads_program(str(EXAMPLES / f"{source}.py"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_options_keep_the_simulator_equal_to_the_interpreter(
    case: str, tmp_path: Path, kernel_cache: Path, record_timing
) -> None:
    source, options, peaks = CASES[case]
    program = _program(source)
    compiled = ir.compile(program, output_dir=tmp_path / "options", dump_passes=False, pass_options=options)
    default = ir.compile(program, output_dir=tmp_path / "default", dump_passes=False, skip_ptoas=True)
    for chosen, which in ((compiled, 0), (default, 1)):
        peak = {space.name: size for space, size in chosen.peak_memory().items()}
        assert {space: peak[space] for space in peaks} == {space: sizes[which] for space, sizes in peaks.items()}
    entry = compiled.entry_function()
    rng = np.random.default_rng(5)
    inputs = [
        rng.standard_normal(p.shape).astype(numpy_dtype(p.dtype))
        for p, d in zip(parameters(entry), entry.param_directions)
        if d != ParamDirection.Out
    ]
    got = compiled.run(*inputs, cache_dir=kernel_cache)
    want = compiled.interpret(*inputs)
    rtol, atol = output_tolerances(compiled.program, entry, {})[entry.params[-1].name_hint]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    record_timing(f"{case}: {options}", compiled.last_run)
