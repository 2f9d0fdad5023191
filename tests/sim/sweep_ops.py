"""Sweep every op the CCE target prints on a2a3sim against the reference interpreter.

For each op with a recipe (``sweep_recipes.py``), every dtype its type rule accepts, both tile
layouts, a full and a partial valid region, and a plain tile or a view (a column slice of a wider
tile) as operand, a minimal kernel is built, compiled with ``ir.compile``, run on the simulator
with seeded inputs and compared with ``CompiledProgram.interpret`` at the output dtype's tolerance.
Several cases share one kernel (each stores its own output, so a mismatch names one case); a
kernel that fails to compile, build or run is retried case by case to find the one at fault.

    python tests/sim/sweep_ops.py                 # every case (long)
    python tests/sim/sweep_ops.py --sample        # the covering sample CI runs: every op at least once
    python tests/sim/sweep_ops.py --op tile.col_sum --op tile.add --jobs 2

Prints one line per case (op, dtype, layout, valid region, operand form, max error, verdict), then
the ops the CCE target has a rule for that the sweep does not cover, with the reason; exits 1 if any
case mismatches, fails to build or run, or is compiled although the interpreter refuses it
(``interp error``: the op's type rule accepts what its semantics do not). A case pypto's compiler
rejects with a clean error is ``refused``.
"""

from __future__ import annotations

import argparse
import itertools
import re
import shutil
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sweep_recipes import DTYPES, RECIPES, SKIPPED, Case, CaseBody, dsl  # noqa: E402

import pypto.language as pl  # noqa: E402
from pypto import interp, ir  # noqa: E402
from pypto.codegen.coverage import coverage, load_emitter  # noqa: E402
from pypto.codegen.target import CCE  # noqa: E402
from pypto.interp.tolerance import tolerance  # noqa: E402
from pypto.ir.numpy_dtypes import numpy_dtype  # noqa: E402
from pypto.ir.datatype import DataType  # noqa: E402
from pypto.ir.errors import InternalError, PyptoError  # noqa: E402
from pypto.ir.stmt import AssignStmt  # noqa: E402
from pypto.ir.traversal import iter_children  # noqa: E402
from pypto.ir.ops.common import valid_shape  # noqa: E402
from pypto.ir.types import TileType  # noqa: E402
from pypto.runtime.errors import SimulatorBuildError, SimulatorError, SimulatorUnsupportedError  # noqa: E402

BATCH = 12  # cases per kernel
# The full sweep runs every dtype's base case (row-major, full region, plain tile), and the other
# layouts, regions and forms for these dtypes (all of them with --all-variants), where the base ran.
VARIANT_DTYPES = (DataType.FP32, DataType.FP16)
FAILING = ("MISMATCH", "UNWRITTEN", "interp error", "build error", "run error", "crash")


@dataclass(frozen=True)
class Planned:
    """A case whose body type-checks: its lines, inputs and result type (``shape``, ``dtype``)."""

    case: Case
    body: CaseBody
    result: str
    shape: tuple[int, ...]
    dtype: DataType
    valid: tuple[int, ...]  # the result's valid region: the window its store writes


@dataclass(frozen=True)
class Outcome:
    """The verdict of one case: ``ok``, ``MISMATCH``, ``refused`` (a clean pypto error),
    ``build error``/``run error``/``crash``; ``error`` is the max absolute error of a run."""

    case: Case
    verdict: str
    error: float | None = None
    detail: str = ""

    def row(self) -> str:
        c = self.case
        err = "-" if self.error is None else f"{self.error:.3g}"
        line = f"{c.op:24} {c.dtype.name:7} {c.layout:4} {c.valid:8} {c.form:5} {err:>10}  {self.verdict}"
        return line + (f"  ({self.detail})" if self.detail else "")


def swept_ops() -> list[str]:
    """The ops the CCE target has a rule for (codegen coverage), sorted."""
    cov = coverage(CCE, load_emitter(CCE))
    return [name for name in CCE.needed_ops() if name not in cov.missing_ops]


def _tensor(shape: Sequence[int], dtype: DataType) -> str:
    return f"pl.Tensor[{list(shape)}, {dsl(dtype)}]"


def _find_type(node: object, name: str) -> TileType | None:
    if isinstance(node, AssignStmt) and node.var.name_hint == name:
        return node.var.type
    for child in iter_children(node):
        found = _find_type(child, name)
        if found is not None:
            return found
    return None


def plan(case: Case) -> Planned | str:
    """The case's body and result type, or the type rule's message when it rejects the case."""
    body = CaseBody(case, "c0_")
    result = RECIPES[case.op].build(body)
    params = ", ".join(f"{n}: {_tensor(s, d)}" for n, s, d, _ in body.inputs)
    lines = "\n".join(f"        {line}" for line in body.lines)
    text = (f"import pypto.language as pl\n\n\n@pl.program\nclass Probe:\n"
            f"    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, {params}):\n{lines}\n")
    try:
        program = pl.parse(text)
    except (PyptoError, ValueError, TypeError) as err:
        return str(err).splitlines()[0]
    t = _find_type(program, result)
    if not isinstance(t, TileType):
        return f"result {result} is not a tile"
    shape = tuple(int(d.value) for d in t.shape)
    valid = tuple(int(getattr(v, "value", d)) for v, d in zip(valid_shape(t), shape))
    return Planned(case, body, result, shape, t.dtype, valid)


def program_text(cases: Sequence[Planned]) -> tuple[str, list[tuple[str, tuple[int, ...], DataType]]]:
    """A program with one InCore kernel computing every case (each into its own Out tensor) and
    an orchestration calling it; returns the text and the (name, shape, dtype) of every parameter."""
    params: list[tuple[str, tuple[int, ...], DataType]] = []
    outs: list[str] = []
    lines: list[str] = []
    for i, p in enumerate(cases):
        body = CaseBody(p.case, f"c{i}_")
        result = RECIPES[p.case.op].build(body)
        params += [(n, s, d) for n, s, d, _ in body.inputs]
        out = f"c{i}_out"
        outs.append(out)
        lines += body.lines
        lines.append(f"{out} = pl.store({result}, [0, 0], {out})")
    out_params = [(f"c{i}_out", p.shape, p.dtype) for i, p in enumerate(cases)]
    sig = ", ".join([f"{n}: {_tensor(s, d)}" for n, s, d in params]
                    + [f"{n}: pl.Out[{_tensor(s, d)}]" for n, s, d in out_params])
    rtypes = [_tensor(s, d) for _, s, d in out_params]
    ret = rtypes[0] if len(rtypes) == 1 else f"tuple[{', '.join(rtypes)}]"
    names = ", ".join(n for n, _, _ in params + out_params)
    body_text = "\n".join(f"        {line}" for line in lines)
    text = (
        "import pypto.language as pl\n\n\n@pl.program\nclass Sweep:\n"
        f"    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, {sig}) -> {ret}:\n{body_text}\n"
        f"        return {', '.join(outs)}\n\n"
        f"    @pl.function(type=pl.FunctionType.Orchestration)\n    def main(self, {sig}) -> {ret}:\n"
        f"        {', '.join(outs)} = self.k({names})\n        return {', '.join(outs)}\n"
    )
    return text, params + out_params


def _inputs(cases: Sequence[Planned]) -> list[np.ndarray]:
    """Seeded inputs of every case (its label seeds it), then zeroed outputs."""
    arrays: list[np.ndarray] = []
    for p in cases:
        rng = np.random.default_rng(zlib.crc32(p.case.label().encode()))
        arrays += [domain.sample(rng, shape, dtype) for _, shape, dtype, domain in p.body.inputs]
    return arrays + [np.zeros(p.shape, dtype=numpy_dtype(p.dtype)) for p in cases]


def _max_error(got: np.ndarray, want: np.ndarray) -> float:
    """The largest absolute difference (NaN or an infinity in both counts as equal, NaN in one as infinite)."""
    g, w = got.astype(np.float64), want.astype(np.float64)
    with np.errstate(invalid="ignore"):
        diff = np.where((np.isnan(g) & np.isnan(w)) | (g == w), 0.0, np.abs(g - w))
    return float(np.nan_to_num(diff, nan=np.inf).max()) if diff.size else 0.0


def _compare(p: Planned, got: np.ndarray, want: np.ndarray) -> Outcome:
    """``MISMATCH`` when the window the store writes differs beyond the dtype's tolerance;
    ``UNWRITTEN`` when only the rest of the output (which both runs start as zeros) differs."""
    rtol, atol = tolerance(p.dtype)
    close = np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    window = tuple(slice(0, v) for v in p.valid)
    err = _max_error(got[window], want[window])
    if not close[window].all():
        bad = int((~close[window]).sum())
        return Outcome(p.case, "MISMATCH", err, f"{bad}/{close[window].size} elements off")
    if not close.all():
        return Outcome(p.case, "UNWRITTEN", err, f"{int((~close).sum())} elements outside the stored window differ")
    return Outcome(p.case, "ok", err)


def run_batch(cases: Sequence[Planned], cache: Path) -> list[Outcome]:
    """Run ``cases`` on the interpreter, then those it accepts in one kernel on the simulator, and
    compare; a kernel that fails to compile, build or run is retried case by case."""
    refused: list[Outcome] = []
    runnable: list[tuple[Planned, list[np.ndarray]]] = []
    for p in cases:
        try:
            runnable.append((p, _interpret(p)))
        except Exception as err:  # noqa: BLE001 - reported as the case's verdict
            refused.append(Outcome(p.case, "interp error", None, _message(err)))
    return refused + _simulate(runnable, cache) if runnable else refused


def _interpret(p: Planned) -> list[np.ndarray]:
    """The interpreter's result of one case (its inputs, then its output)."""
    text, params = program_text([p])
    arrays = _inputs([p])
    result = interp.run(pl.parse(text), *arrays, entry="main")
    return arrays[:-1] + [np.asarray(result.outputs[params[-1][0]])]


def _simulate(runnable: Sequence[tuple[Planned, list[np.ndarray]]], cache: Path) -> list[Outcome]:
    cases = [p for p, _ in runnable]
    text, _ = program_text(cases)
    with tempfile.TemporaryDirectory(prefix="pypto-sweep-") as out:
        try:
            compiled = ir.compile(pl.parse(text), output_dir=out, dump_passes=False)
            arrays = [a for p in cases for a in _inputs([p])[:len(p.body.inputs)]]
            arrays += [np.zeros(p.shape, dtype=numpy_dtype(p.dtype)) for p in cases]
            compiled.run(*arrays, cache_dir=cache)
        except Exception as err:  # noqa: BLE001 - an internal traceback is itself a finding
            for kept in Path(out).parent.glob(f"{Path(out).name}.failed*"):
                shutil.rmtree(kept)
            if len(runnable) == 1:
                return [Outcome(cases[0].case, _verdict(err), None, _message(err))]
            blamed = _blamed(err, Path(out)) if isinstance(err, SimulatorBuildError) else set()
            if not blamed:
                return [o for one in runnable for o in _simulate([one], cache)]
            rest = [one for i, one in enumerate(runnable) if i not in blamed]
            failed = [Outcome(cases[i].case, "build error", None, _message(err)) for i in sorted(blamed)]
            return failed + (_simulate(rest, cache) if rest else [])
    n = len(cases)
    return [_compare(p, got, want[-1]) for (p, want), got in zip(runnable, arrays[-n:], strict=True)]


def _blamed(err: BaseException, out: Path) -> set[int]:
    """The cases whose lines of the generated kernel the C++ compiler's messages point at."""
    blamed: set[int] = set()
    for path, line in re.findall(r"(\S+/kernels/\w+/\w+\.cpp):(\d+):", str(err)):
        source = Path(path)
        if source.is_file() and out in source.parents:
            text = source.read_text().splitlines()[int(line) - 1]
            blamed |= {int(i) for i in re.findall(r"\bc(\d+)_", text)}
    return blamed


def _verdict(err: BaseException) -> str:
    if isinstance(err, SimulatorUnsupportedError):
        return "refused"
    if isinstance(err, SimulatorBuildError):
        return "build error"
    if isinstance(err, SimulatorError):
        return "run error"
    if isinstance(err, PyptoError) and not isinstance(err, InternalError):
        return "refused"
    return "crash"


def _message(err: BaseException) -> str:
    """The first compiler ``error:`` line of a build error, else the first line of the message."""
    lines = str(err).splitlines() or [""]
    first = next((line for line in lines if "error:" in line), lines[0])
    return f"{type(err).__name__}: {' '.join(first.split())[:160]}"


def all_cases(ops: Iterable[str]) -> tuple[list[Planned], list[tuple[Case, str]]]:
    """Every case of ``ops`` the type rules accept (per op and dtype, the base case first: the
    first layout, region and form of its recipe), and the rejected ones with the rule's message."""
    planned: list[Planned] = []
    rejected: list[tuple[Case, str]] = []
    for op in ops:
        recipe = RECIPES[op]
        for dtype in recipe.dtypes:
            for layout, valid, form in itertools.product(recipe.layouts, recipe.valids, recipe.forms):
                case = Case(op, dtype, layout, valid, form)
                got = plan(case)
                if isinstance(got, Planned):
                    planned.append(got)
                else:
                    rejected.append((case, got))
    return planned, rejected


def is_base(p: Planned) -> bool:
    """The case of its op and dtype with the recipe's first layout, region and form."""
    r, c = RECIPES[p.case.op], p.case
    return (c.layout, c.valid, c.form) == (r.layouts[0], r.valids[0], r.forms[0])


# Cases of issue 26 (item 1) the sample always runs.
ISSUE_CASES = (
    Case("tile.col_argmax", DataType.FP16, "row", "partial", "tile"),
    Case("tile.col_argmin", DataType.FP16, "row", "full", "tile"),
    Case("tile.col_expand_mul", DataType.FP32, "row", "full", "view"),
    Case("tile.col_sum", DataType.FP16, "row", "full", "tile"),
)


def sample(ops: Sequence[str]) -> list[Planned]:
    """The covering sample of ``ops``: one case per op (FP32 where the op takes it; layout, region
    and form rotating from op to op), the cases of issue 26, and one base case of each dtype no case
    has yet. Cases are planned lazily: the sample type-checks few programs."""
    chosen: dict[Case, Planned] = {}
    for i, op in enumerate(sorted(ops)):
        recipe = RECIPES[op]
        combos = list(itertools.product(recipe.layouts, recipe.valids, recipe.forms))
        combos = combos[i % len(combos):] + combos[:i % len(combos)]
        dtypes = sorted(recipe.dtypes, key=lambda d: d != DataType.FP32)
        pick = _first(Case(op, d, *combo) for d in dtypes for combo in combos)
        if pick is not None:
            chosen[pick.case] = pick
    for case in ISSUE_CASES:
        if case.op in ops and (got := plan(case)) and isinstance(got, Planned):
            chosen[case] = got
    for dtype in DTYPES:
        if not any(c.dtype == dtype for c in chosen):
            pick = _first(Case(op, dtype, RECIPES[op].layouts[0], RECIPES[op].valids[0], RECIPES[op].forms[0])
                          for op in sorted(ops) if dtype in RECIPES[op].dtypes)
            if pick is not None:
                chosen[pick.case] = pick
    return list(chosen.values())


def _first(cases: Iterable[Case]) -> Planned | None:
    """The first of ``cases`` the type rules accept."""
    for case in cases:
        got = plan(case)
        if isinstance(got, Planned):
            return got
    return None


def batches(planned: Sequence[Planned]) -> list[list[Planned]]:
    """Cases grouped ``BATCH`` to a kernel, cube and vector apart, BF16 apart (a2a3sim refuses a BF16
    kernel whole, before building it)."""
    groups: dict[tuple[str, bool], list[Planned]] = {}
    for p in planned:
        groups.setdefault((RECIPES[p.case.op].core, p.case.dtype == DataType.BF16), []).append(p)
    return [same[i:i + BATCH] for same in groups.values() for i in range(0, len(same), BATCH)]


def sweep(planned: Sequence[Planned], cache: Path, jobs: int = 1, report: Callable[[Outcome], None] | None = None
          ) -> list[Outcome]:
    """Run every case, ``jobs`` (at most 2) kernels at a time; ``report`` sees each outcome as it comes."""
    groups = batches(planned)
    outcomes: list[Outcome] = []
    with ProcessPoolExecutor(max_workers=min(jobs, 2)) if jobs > 1 else _Inline() as pool:
        for outs in pool.map(run_batch, groups, [cache] * len(groups)):
            for o in outs:
                outcomes.append(o)
                if report is not None:
                    report(o)
    return outcomes


class _Inline:
    """A one-worker stand-in for ProcessPoolExecutor: runs in this process."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, fn: Callable[..., list[Outcome]], *iterables: Iterable[object]) -> Iterable[list[Outcome]]:
        return map(fn, *iterables)


def uncovered() -> dict[str, str]:
    """The ops the CCE target has a rule for that the sweep builds no kernel for, with the reason."""
    return {op: SKIPPED.get(op, "no recipe") for op in swept_ops() if op not in RECIPES}


def summary(outcomes: Sequence[Outcome]) -> list[str]:
    """One line per op: its case count and, per non-ok verdict, the dtypes and the largest error."""
    lines = []
    for op in sorted({o.case.op for o in outcomes}):
        mine = [o for o in outcomes if o.case.op == op]
        parts = []
        for verdict in ("refused", *FAILING):
            hit = [o for o in mine if o.verdict == verdict]
            if hit:
                dtypes = "/".join(dict.fromkeys(o.case.dtype.name for o in hit))
                errors = [o.error for o in hit if o.error is not None]
                worst = f" max {max(errors):.3g}" if errors else ""
                parts.append(f"{verdict} {len(hit)} ({dtypes}{worst})")
        lines.append(f"  {op:24} {len(mine):3} cases  " + ("; ".join(parts) or "all ok"))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--op", action="append", help="sweep only this op (repeatable)")
    parser.add_argument("--sample", action="store_true", help="only the covering sample CI runs")
    parser.add_argument("--all-variants", action="store_true",
                        help="layouts, regions and forms for every dtype, not only "
                        + ", ".join(d.name for d in VARIANT_DTYPES))
    parser.add_argument("--jobs", type=int, default=1, choices=(1, 2), help="kernels built at a time")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "pypto-sweep-cache",
                        help="kernel cache folder")
    args = parser.parse_args(argv)
    ops = [op for op in swept_ops() if op in RECIPES]
    if args.op:
        unknown = sorted(set(args.op) - set(ops))
        if unknown:
            parser.error(f"no recipe for {', '.join(unknown)}")
        ops = [op for op in ops if op in args.op]
    start = time.time()
    planned, rejected = ([], []) if args.sample else all_cases(ops)
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    print(f"{'op':24} {'dtype':7} {'lay':4} {'valid':8} {'form':5} {'max error':>10}  verdict", flush=True)

    def report(o: Outcome) -> None:
        print(o.row(), flush=True)

    if args.sample:
        outcomes = sweep(sample(ops), args.cache_dir, args.jobs, report)
    else:
        outcomes = sweep([p for p in planned if is_base(p)], args.cache_dir, args.jobs, report)
        ran = {(o.case.op, o.case.dtype) for o in outcomes if o.verdict in ("ok", "MISMATCH", "UNWRITTEN")}
        wanted = DTYPES if args.all_variants else VARIANT_DTYPES
        variants = [p for p in planned
                    if not is_base(p) and p.case.dtype in wanted and (p.case.op, p.case.dtype) in ran]
        outcomes += sweep(variants, args.cache_dir, args.jobs, report)
    print("\nper op: cases run, then each failing verdict with its dtypes")
    for line in summary(outcomes):
        print(line)
    failed = [o for o in outcomes if o.verdict in FAILING]
    counts = {v: sum(o.verdict == v for o in outcomes) for v in ("ok", "refused", *FAILING)}
    print(f"\n{len(outcomes)} cases over {len({o.case.op for o in outcomes})} ops in {time.time() - start:.0f}s: "
          + ", ".join(f"{n} {v}" for v, n in counts.items() if n))
    skipped = uncovered()
    if not args.sample:
        print(f"{len(rejected)} dtype/layout/region/form combinations rejected by the ops' type rules (not run)")
        planned_ops = {p.case.op for p in planned}
        skipped.update({op: f"every case rejected: {next(m for c, m in rejected if c.op == op)}"
                        for op in ops if op not in planned_ops})
    print(f"\nops with a CCE rule the sweep does not cover ({len(skipped)}):")
    for op, reason in skipped.items():
        print(f"  {op}: {reason}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
