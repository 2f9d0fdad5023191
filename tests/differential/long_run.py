"""The differential properties at scale, outside CI; prints counts.

    python tests/differential/long_run.py --programs 2000 --mutants 20000 --simulator 20

Generates ``--programs`` programs (seeds from ``--seed``) and checks each through every pass
(interpreter agreement) and, for every ``--roundtrip-every``-th, the print/parse round trip of every
stage; compiles ``--mutants`` mutants; runs ``--simulator`` programs on a2a3sim. Every failure is
printed with the seed that reproduces it (``kernel_gen.generate(seed)``, ``mutate`` with
``random.Random(seed)``); the exit status is 1 if anything failed.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sim"))

from kernel_gen import generate  # noqa: E402
from mutate import mutate  # noqa: E402
from test_generated_programs import base_programs, check_every_pass_preserves, check_round_trips, compile_mutant  # noqa: E402


def _failure(kind: str, seed: int, err: BaseException, failures: Counter) -> None:
    where = traceback.extract_tb(err.__traceback__)[-1] if err.__traceback__ else None
    key = f"{kind}: {type(err).__name__}: {str(err).splitlines()[0][:160] if str(err) else ''}"
    if where is not None:
        key += f" ({Path(where.filename).name}:{where.lineno})"
    if failures[key] == 0:
        print(f"FAIL seed {seed}: {key}", flush=True)
    failures[key] += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=500)
    parser.add_argument("--mutants", type=int, default=5000)
    parser.add_argument("--simulator", type=int, default=0, help="programs to run on a2a3sim")
    parser.add_argument("--roundtrip-every", type=int, default=5)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args(argv)
    failures: Counter = Counter()
    counts: Counter = Counter()
    start = time.perf_counter()
    for i in range(args.programs):
        seed = args.seed + i
        generated = generate(seed)
        try:
            counts["stages checked"] += check_every_pass_preserves(generated)
            counts["programs"] += 1
            if i % args.roundtrip_every == 0:
                check_round_trips(generated.text)
                counts["round trips (all stages)"] += 1
        except Exception as err:  # noqa: BLE001 - every failure is counted and reported
            _failure("program", seed, err, failures)
    bases = base_programs()
    with tempfile.TemporaryDirectory() as tmp:
        outcomes: Counter = Counter()
        for i in range(args.mutants):
            seed = args.seed + i
            rng = random.Random(seed)
            text = bases[rng.randrange(len(bases))]
            try:
                for _ in range(rng.randint(1, 2)):
                    text = mutate(text, rng)
                outcomes[compile_mutant(text, Path(tmp) / f"m{i}")] += 1
                counts["mutants"] += 1
            except Exception as err:  # noqa: BLE001
                _failure("mutant", seed, err, failures)
        if args.simulator:
            from test_generated import run_and_compare

            cache = Path(tmp) / "kernel-cache"
            for i in range(args.simulator):
                seed = args.seed + i
                try:
                    run_and_compare(seed, Path(tmp) / f"sim{i}", cache)
                    counts["simulator runs"] += 1
                except Exception as err:  # noqa: BLE001
                    _failure("simulator", seed, err, failures)
    print(f"\nseed {args.seed}, {time.perf_counter() - start:.0f} s")
    for name, n in counts.items():
        print(f"  {name}: {n}")
    print("  mutant outcomes: " + ", ".join(f"{k} {v}" for k, v in outcomes.most_common()))
    print(f"  failures: {sum(failures.values())} ({len(failures)} distinct)")
    for key, n in failures.most_common():
        print(f"    {n} x {key}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
