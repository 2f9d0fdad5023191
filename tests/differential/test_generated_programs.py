"""Differential properties of the whole pipeline on generated programs (``kernel_gen``).

(a) every stage's printed IR parses back structurally equal (the pass manager's ``roundtrip``
verification after every pass, surface to runtime); (b) the interpreter gives the same outputs
before the pipeline and after every pass, memory-planned tiles at their addresses included;
(d) AST mutations of generated and example programs through ``ir.compile`` either compile or raise a
pypto error that points into the source, never an internal exception and never a hang. The simulator
property (c) is in ``tests/sim/test_generated.py``. The example counts here fit the CI budget and are
derandomized (a given tree always runs the same programs); ``long_run.py`` runs many more.
"""

from __future__ import annotations

import random
import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from kernel_gen import Generated, generate
from mutate import mutate
from typeguard import suppress_type_checks

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.testing import assert_pass_preserves
from pypto.ir.errors import PyptoError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SEEDS = st.integers(0, 2**32 - 1)
# A location in the source: "<string>:8:9" / "file.py:8:9" in a message, or a rendered caret block.
_LOCATION = re.compile(r"(:\d+:\d+|-->)")
_CI = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def check_every_pass_preserves(generated: Generated) -> int:
    """Run a generated program through every built-in pass, checking the interpreter agrees after
    each on the same seeded inputs; returns the number of passes checked."""
    program: ir.Program = pl.parse(generated.text)
    inputs = generated.arrays(seed=generated.seed)
    checked = 0
    for p in passes.builtin_passes():
        program = assert_pass_preserves(p, program, inputs)
        checked += 1
    return checked


def check_round_trips(text: str) -> None:
    """Every stage's printed IR re-parses structurally equal (raises if not)."""
    passes.PassManager(passes.builtin_passes(), verify="roundtrip").run_passes(pl.parse(text))


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def expired(signum: int, frame: object) -> None:
        raise Hang(f"no result after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def compile_mutant(text: str, output_dir: Path) -> str:
    """``"compiled"`` or the class name of the pypto error the mutant ``text`` raises; anything else
    (an internal exception, an error without a source location, a hang) fails the calling test.

    Run-time type checks are off: a mutant hands user-facing DSL functions values their annotations
    exclude (``pl.div(t, [0, 0], c)``), which those functions check themselves; typeguard would
    report the user's mistake instead of what pypto does with it."""
    try:
        with time_limit(60), suppress_type_checks():
            ir.compile(pl.parse(text), output_dir=output_dir, dump_passes=False)
        return "compiled"
    except PyptoError as err:
        message = str(err)
        assert _LOCATION.search(message), f"{type(err).__name__} without a source location:\n{message}"
        return type(err).__name__


def base_programs() -> list[str]:
    """The texts mutants start from: every example and a few generated programs."""
    return [p.read_text() for p in sorted(EXAMPLES.glob("*.py"))] + [generate(s).text for s in range(8)]


@_CI
@given(SEEDS)
def test_the_interpreter_agrees_after_every_pass(seed: int) -> None:
    generated = generate(seed)
    note(generated.text)
    assert check_every_pass_preserves(generated) == len(passes.builtin_passes())


@_CI
@given(SEEDS)
def test_every_stage_prints_and_parses_back(seed: int) -> None:
    text = generate(seed).text
    note(text)
    check_round_trips(text)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_mutant_compiles_or_is_a_pypto_error_with_a_location(data: st.DataObject, tmp_path: Path) -> None:
    bases = base_programs()
    text = bases[data.draw(st.integers(0, len(bases) - 1))]
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1)))
    for _ in range(data.draw(st.integers(1, 2))):
        text = mutate(text, rng)
    note(text)
    out = tmp_path / f"m{rng.randrange(1 << 30)}"
    compile_mutant(text, out)


def test_the_generator_covers_every_feature() -> None:
    """The first 60 programs hold every kind of construct the generator knows (so a generator change
    cannot silently stop testing one)."""
    texts = "\n".join(generate(s).text for s in range(60))
    for construct in (
        "pl.matmul(", "pl.matmul_acc(", "target_memory=pl.Mem.Mat", "pl.row_sum(", "pl.row_max(", "pl.row_expand_",
        "pl.exp(", "for j in pl.range(", "if flag > ", "pl.submit(", "deps=[t0]", "pl.create_tensor(", "pl.maximum(",
        "with pl.at(level=pl.Level.CORE_GROUP):", "for i in pl.spmd(", "pl.row_max(x0_s)",
    ):
        assert construct in texts, construct


@pytest.mark.parametrize("seed", range(3))
def test_generated_programs_are_deterministic(seed: int) -> None:
    assert generate(seed).text == generate(seed).text
    assert all((a == b).all() for a, b in zip(generate(seed).arrays(), generate(seed).arrays()) if hasattr(a, "shape"))
