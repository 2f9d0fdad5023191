"""Byte-identity check of the printer on a large corpus: write its texts once, compare later.

The corpus: the 1k bench program (default, concise, ``prefix="pp"``); every program of
``examples/``, the texts of ``tests/shared_programs.py`` that parse, ``--seeds`` generated programs
of ``tests/differential/kernel_gen.py`` and ``--seeds`` random functions of the DSL round-trip
property test; each of those programs after every pass of the default pipeline (as far as it
gets); every function of each printed alone. Each program prints in both modes. Not collected by
pytest. Run once with the reference printer (say main's checkout and its venv), then with the
changed one::

    (cd ../main && .venv/bin/python ../wt/tests/benchmarks/print_corpus.py --write /tmp/ref.json)
    python tests/benchmarks/print_corpus.py --check /tmp/ref.json

``--check`` prints the first differing text (a unified diff) and exits 1 when any text differs.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pypto.language as pl
from pypto.passes import OptimizationStrategy, PassContext, PassManager
from pypto.transform.context import CallbackInstrument
from pypto import ir
from pypto.ir.printer import python_print

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "benchmarks"), str(ROOT / "tests" / "differential"), str(ROOT / "tests" / "language"), str(ROOT / "tests")]

from bench_parse_print import program_text  # noqa: E402


def sources(seeds: int) -> Iterator[tuple[str, str]]:
    """``(key, DSL text)`` of every corpus program."""
    for path in sorted((ROOT / "examples").glob("*.py")):
        yield f"examples/{path.name}", path.read_text()
    import shared_programs

    for name in sorted(vars(shared_programs)):
        value = getattr(shared_programs, name)
        if name.isupper() and isinstance(value, str):
            yield f"shared/{name}", value
    from kernel_gen import generate

    for seed in range(seeds):
        yield f"kernel_gen/{seed}", generate(seed).text
    from test_dsl_roundtrip_property import ProgramGen

    for seed in range(seeds):
        yield f"roundtrip/{seed}", ProgramGen(seed).program()


def stages(program: ir.Program) -> Iterator[tuple[str, ir.Program]]:
    """``program`` after each pass of the default pipeline, until one fails."""
    got: list[tuple[str, ir.Program]] = []
    manager = PassManager.get_strategy(OptimizationStrategy.Default)
    instrument = CallbackInstrument(after_pass=lambda p, prog: got.append((p.name, prog)))
    try:
        with PassContext([instrument]):
            manager.run(program)
    except Exception:  # the corpus keeps the stages reached; some programs do not lower
        pass
    for i, (name, prog) in enumerate(got):
        yield f"{i:02d}_{name}", prog


def texts(seeds: int) -> Iterator[tuple[str, str]]:
    """``(key, printed text)`` of the whole corpus."""
    bench = pl.parse(program_text(1000))
    yield "bench", python_print(bench)
    yield "bench/concise", python_print(bench, concise=True)
    yield "bench/pp", python_print(bench, prefix="pp")
    for key, text in sources(seeds):
        try:
            node = pl.parse(text)
        except Exception:
            continue
        yield from node_texts(key, node)
        if isinstance(node, ir.Program):
            for stage, prog in stages(node):
                yield from node_texts(f"{key}/{stage}", prog, functions=False)


def node_texts(key: str, node: object, functions: bool = True) -> Iterator[tuple[str, str]]:
    yield key, python_print(node)
    yield f"{key}/concise", python_print(node, concise=True)
    if functions and isinstance(node, ir.Program):
        for gv, func in node.functions.items():
            yield f"{key}/{gv.name}", python_print(func)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", type=Path)
    group.add_argument("--check", type=Path)
    parser.add_argument("--seeds", type=int, default=300)
    args = parser.parse_args()
    got = dict(texts(args.seeds))
    digest = hashlib.md5("\0".join(f"{k}\0{v}" for k, v in got.items()).encode()).hexdigest()
    size = sum(len(v) for v in got.values())
    print(f"{len(got)} texts, {size / 1e6:.2f} MB, md5 {digest}")
    if args.write:
        args.write.write_text(json.dumps(got))
        return
    ref = json.loads(args.check.read_text())
    differ = [k for k in ref if got.get(k) != ref[k]] + [k for k in got if k not in ref]
    if differ:
        first = differ[0]
        diff = difflib.unified_diff(ref.get(first, "").splitlines(), got.get(first, "").splitlines(), lineterm="")
        print(f"{len(differ)} texts differ; first: {first}")
        print("\n".join(list(diff)[:60]))
        sys.exit(1)
    print("all texts identical to", args.check)


if __name__ == "__main__":
    main()
