"""Run-time bounds guards in the orchestration (docs/simulator.md#bounds): each task's windows, bounded in
the kernel's parameters (pypto.analysis.windows), are checked against the tensors with the values passed;
a window that is outside for every run is a compile error, one that cannot be bounded too."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto.analysis.windows import kernel_windows
from pypto.ir.enums import FunctionType
from pypto.ir.errors import PyptoError

KERNEL = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def block_copy(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
        row: pl.Scalar[pl.INDEX],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [row, 0], [16, 64])
        out = pl.store(t, [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
{body}
        return out
"""


def orchestration(source: str, tmp_path: Path) -> str:
    compiled = ir.compile(pl.parse(textwrap.dedent(source), filename="prog.py"), output_dir=tmp_path / "out")
    return (compiled.output_dir / "orchestration" / "main.cpp").read_text()


def guards(text: str) -> list[str]:
    lines = text.splitlines()
    return [line.strip() for k, line in enumerate(lines)
            if "rt_report_fatal" in line or (k + 1 < len(lines) and "rt_report_fatal" in lines[k + 1])]


def test_a_loop_of_tasks_checks_each_window_with_the_values_passed(tmp_path: Path) -> None:
    body = """\
        for i in pl.range(n):
            out = self.block_copy(x, out, i * 16)"""
    assert guards(orchestration(KERNEL.format(body=body), tmp_path)) == [
        "if ((i * 16) < 0 || ((i * 16) + 16) > 64) {",
        'rt_report_fatal(PTO2_ERROR_INVALID_ARGS, "pypto bounds: task \'block_copy\' (prog.py:25) reads '
        'x[%lld:%lld, 0:64] outside its shape [64, 64]", (long long)(i * 16), (long long)((i * 16) + 16));',
    ]


def test_a_window_that_is_inside_for_every_run_prints_no_guard(tmp_path: Path) -> None:
    body = """\
        for i in pl.range(4):
            out = self.block_copy(x, out, 48)"""
    assert guards(orchestration(KERNEL.format(body=body), tmp_path)) == []


def test_a_window_outside_for_every_run_is_a_compile_error(tmp_path: Path) -> None:
    body = """\
        out = self.block_copy(x, out, 56)"""
    with pytest.raises(PyptoError, match=r"task 'block_copy' \(prog.py:24\) reads x\[56:72, 0:64\] outside its shape "
                                         r"\[64, 64\]"):
        orchestration(KERNEL.format(body=body), tmp_path)


def test_a_loop_inside_the_kernel_is_bounded_by_its_first_and_last_value(tmp_path: Path) -> None:
    source = """
    import pypto.language as pl

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def blocks(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                   m: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.FP32]:
            zero: pl.Tile[[16, 64], pl.FP32] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
            for j, (acc,) in pl.range(1, m, init_values=(zero,)):
                block: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [j * 16, 0], [16, 64])
                total = pl.yield_(pl.add(acc, block))
            out = pl.store(total, [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 64], pl.FP32], m: pl.Scalar[pl.INDEX],
                 out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            out = self.blocks(x, out, m)
            return out
    """
    assert guards(orchestration(source, tmp_path)) == [
        "if ((1 < m) && ((((m - 1) * 16) + 16) > 64)) {",
        'rt_report_fatal(PTO2_ERROR_INVALID_ARGS, "pypto bounds: task \'blocks\' (prog.py:19) reads '
        'x[16:%lld, 0:64] outside its shape [64, 64]", (long long)(((m - 1) * 16) + 16));',
    ]


def test_a_window_clipped_against_its_own_offset_is_bounded_by_the_dimension() -> None:
    source = """
    import pypto.language as pl

    N = pl.dynamic("N")

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def tail(self, x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]
                 ) -> pl.Tensor[[32, 64], pl.FP32]:
            for i in pl.range(0, N, 32):
                t: pl.Tile[[32, 64], pl.FP32] = pl.load(x, [i, 0], [32, 64], valid_shape=[pl.min(32, N - i), 64])
                out = pl.store(t, [0, 0], out)
            return out
    """
    kernel = pl.parse(textwrap.dedent(source)).get_function("tail")
    (load, _store) = kernel_windows(kernel)
    assert [ir.python_print(e) for e in load.hi] == ["pl.min((N - 1) // 32 * 32 + 32, N)", "64"]


def test_the_counter_of_a_loop_with_a_break_is_bounded_by_the_loop() -> None:
    # CtrlFlowTransform makes the loop a while loop whose carried counter only grows below 4.
    source = """
    import pypto.language as pl

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
              out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            for i in pl.range(4):
                if i >= n:
                    break
                t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [i * 16, 0], [16, 64])
                out = pl.store(t, [i * 16, 0], out)
            return out
    """
    program = passes.PassManager(passes.front_passes()).run(pl.parse(textwrap.dedent(source)))
    (load, store) = kernel_windows(program.get_function("k"))
    bounds = [(ir.python_print(lo), ir.python_print(hi)) for lo, hi in zip(load.lo, load.hi)]
    assert bounds == [("0", "64"), ("0", "64")]
    assert store.bounded


def test_a_window_at_a_loop_carried_offset_cannot_be_guarded(tmp_path: Path) -> None:
    source = """
    import pypto.language as pl

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def walk(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
                 ) -> pl.Tensor[[16, 64], pl.FP32]:
            zero: pl.Tile[[16, 64], pl.FP32] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
            for j, (row, acc) in pl.range(4, init_values=(0, zero)):
                t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [row, 0], [16, 64])
                nrow, total = pl.yield_(row + 16, pl.add(acc, t))
            out = pl.store(total, [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
                 ) -> pl.Tensor[[16, 64], pl.FP32]:
            out = self.walk(x, out)
            return out
    """
    with pytest.raises(PyptoError, match=r"no rule for a tile.load of 'x' in kernel 'walk' whose window the "
                                         r"orchestration cannot bound\n   --> prog.py:11:"):
        orchestration(source, tmp_path)


def test_spmd_blocks_are_bounded_by_the_launch(tmp_path: Path) -> None:
    source = (Path(__file__).resolve().parents[2] / "examples" / "tensor_spmd.py").read_text()
    assert guards(orchestration(source, tmp_path)) == []
    with pytest.raises(PyptoError, match=r"reads x\[0:160, 0:64\] outside its shape \[128, 64\]"):
        orchestration(source.replace("pl.spmd(4)", "pl.spmd(5)"), tmp_path)


EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))


@pytest.fixture(scope="module")
def example_kernels() -> list[tuple[str, ir.Function]]:
    """``(example, kernel)`` for every AIV/AIC kernel of every example's final program (the pipeline
    alone, once for the tests below). examples/jit holds @pl.jit functions, which specialise on sample
    tensors: tests/jit runs them."""
    manager = passes.PassManager.get_strategy()
    out = []
    for path in EXAMPLES:
        final = manager.run(pl.loads_program(str(path)))
        out += [(path.name, f) for f in final.functions.values() if f.func_type in (FunctionType.AIV, FunctionType.AIC)]
    return out


def test_every_example_kernel_window_is_bounded(example_kernels: list[tuple[str, ir.Function]]) -> None:
    windows = 0
    for name, f in example_kernels:
        found = kernel_windows(f)
        assert all(w.bounded for w in found), (name, f.name)
        windows += len(found)
    assert len(example_kernels) >= len(EXAMPLES) and windows >= 2 * len(EXAMPLES)  # most load and store


def test_a_run_that_may_submit_no_task_ends_with_an_empty_one(tmp_path: Path) -> None:
    loop = """\
        for i in pl.range(n):
            out = self.block_copy(x, out, i * 16)"""
    text = orchestration(KERNEL.format(body=loop), tmp_path)
    assert text.endswith("    {\n        CoreTaskArgs no_args;\n        rt_submit_dummy_task(no_args);\n    }\n}\n\n"
                         '}  // extern "C"\n')
    fixed = """\
        for i in pl.range(4):
            out = self.block_copy(x, out, i * 16)"""
    assert "rt_submit_dummy_task" not in orchestration(KERNEL.format(body=fixed), tmp_path)


def test_every_kernel_op_on_a_tensor_has_a_window_rule_or_accesses_no_window() -> None:
    from pypto.analysis.windows import _WINDOWS, NO_WINDOW
    from pypto.ir import op_registry

    on_tensors = {e.name for e in op_registry.all_entries() if e.placement & {"aic", "aiv"}
                  and any(op_registry.TENSOR in p.accepts for p in e.params)}
    assert on_tensors == set(_WINDOWS) | set(NO_WINDOW) and not set(_WINDOWS) & set(NO_WINDOW)


def test_an_element_read_is_a_window_of_one_element(tmp_path: Path) -> None:
    source = """
    import pypto.language as pl

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def pick(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                 row: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.FP32]:
            v: pl.Scalar[pl.FP32] = pl.tensor.read(x, [row, 3])
            out = pl.tensor.write(out, [0, row], v)
            return out
    """
    kernel = pl.parse(textwrap.dedent(source), filename="prog.py").get_function("pick")
    shown = [(w.op, [str(e) for e in w.lo], [str(e) for e in w.hi]) for w in kernel_windows(kernel)]
    assert shown == [("tensor.read", ["row", "3"], ["row + 1", "4"]), ("tensor.write", ["0", "row"], ["1", "row + 1"])]


def test_a_constant_window_ends_where_the_bounds_of_its_sum_fold_to() -> None:
    from pypto.analysis.intervals import distribute, instantiate
    from pypto.analysis.windows import _Walker
    from pypto.ir import scalar_ops

    source = """
    import pypto.language as pl

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]
              ) -> pl.Tensor[[16, 32], pl.FP32]:
            t: pl.Tile[[16, 32], pl.FP32] = pl.load(x, [16, 32], [16, 32])
            out = pl.store(t, [0, 0], out)
            return out
    """
    kernel = pl.parse(textwrap.dedent(source)).get_function("k")
    load = kernel_windows(kernel)[0]
    offsets = [ir.ConstInt(16, ir.INDEX), ir.ConstInt(32, ir.INDEX)]
    general = [_Walker(kernel).bounds(distribute(scalar_ops.add(o, ir.ConstInt(e, ir.INDEX))))[1]
               for o, e in zip(offsets, (16, 32))]
    for hi, expected in zip(load.hi, general, strict=True):
        ir.assert_structural_equal(hi, expected)
    assert [str(e) for e in load.hi] == ["32", "64"]
    assert instantiate(load.hi[0], {}) is load.hi[0]  # a constant is its own instance


def test_an_index_driven_scatter_is_refused(tmp_path: Path) -> None:
    source = """
    import pypto.language as pl

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def scatter(self, x: pl.Tensor[[16, 16], pl.FP32], idx: pl.Tensor[[16, 16], pl.INT32],
                    out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
            t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
            i: pl.Tile[[16, 16], pl.INT32] = pl.load(idx, [0, 0], [16, 16])
            out = pl.tile.mscatter(t, i, out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 16], pl.FP32], idx: pl.Tensor[[16, 16], pl.INT32],
                 out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
            out = self.scatter(x, idx, out)
            return out
    """
    with pytest.raises(PyptoError, match=r"no rule for a tile.mscatter of 'out' in kernel 'scatter': it accesses the "
                                         r"tensor at indices held in a tile, which the orchestration cannot check "
                                         r"before the task runs\n   --> prog.py:11:"):
        # Without the kernel C++: the CCE target has no tile.mscatter rule (a2a3's MSCATTER scatters rows).
        ir.compile(pl.parse(textwrap.dedent(source), filename="prog.py"), output_dir=tmp_path / "out",
                   skip_ptoas=True)


MGATHER = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def pick(self, table: pl.Tensor[[32, 16], pl.FP32], idx: pl.Tensor[[1, 8], pl.INT32],
             out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        i: pl.Tile[[1, 8], pl.INT32] = pl.load(idx, [0, 0], [1, 8])
        t: pl.Tile[[8, 16], pl.FP32] = pl.tile.mgather(table, i, gather_oob={oob!r})
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, table: pl.Tensor[[32, 16], pl.FP32], idx: pl.Tensor[[1, 8], pl.INT32],
             out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        out = self.pick(table, idx, out)
        return out
"""


def test_an_unbounded_gather_is_refused_and_a_bounded_one_reads_the_whole_table(tmp_path: Path) -> None:
    with pytest.raises(PyptoError, match=r"no rule for a tile.mgather of 'table' in kernel 'pick': it accesses the "
                                         r"tensor at indices held in a tile.*\n   --> prog.py:10:40\n   \|\n10 \| "):
        ir.compile(pl.parse(MGATHER.format(oob="undefined"), filename="prog.py"), output_dir=tmp_path / "u")
    for oob in ("clamp", "wrap", "zero"):
        kernel = pl.parse(MGATHER.format(oob=oob)).get_function("pick")
        shown = [(w.op, [str(e) for e in w.lo], [str(e) for e in w.hi]) for w in kernel_windows(kernel)]
        assert shown[1] == ("tile.mgather", ["0", "0"], ["32", "16"])
        ir.compile(pl.parse(MGATHER.format(oob=oob)), output_dir=tmp_path / oob)


def test_a_gather_of_gm_indices_has_no_kernel_rule(tmp_path: Path) -> None:
    # The CPU model's MGATHER takes an index tile only; its GM-index form ignores the scratch.
    source = MGATHER.format(oob="clamp").replace(
        "i: pl.Tile[[1, 8], pl.INT32] = pl.load(idx, [0, 0], [1, 8])", "i: pl.Tensor[[1, 8], pl.INT32] = idx"
    ).replace("gather_oob='clamp')", "gather_oob='clamp', scratch=idx)")
    with pytest.raises(PyptoError, match=r"no rule for tile.mgather with GM indices and a scratch tensor in cce\n"
                                         r"   --> prog.py:10:40\n(.*\n){3}   = hint: load the indices into a Vec tile"):
        ir.compile(pl.parse(source, filename="prog.py"), output_dir=tmp_path / "out")


def test_an_element_the_orchestration_reads_or_writes_at_a_computed_index_is_guarded(tmp_path: Path) -> None:
    body = """
        v = x[n, 0]
        out = self.block_copy(x, out, 0)
        out = pl.tensor.write(out, [0, n], v)
        with pl.manual_scope():
            tids = pl.array.create(4, pl.TASK_ID)
            out, t = pl.submit(self.block_copy, x, out, 16)
            tids[n] = t"""
    assert guards(orchestration(KERNEL.format(body=body), tmp_path)) == [
        "if ((int64_t)(n) < 0 || (int64_t)(n) >= 64) {",
        'rt_report_fatal(PTO2_ERROR_INVALID_ARGS, "pypto bounds (read): tensor.read (prog.py:25) reads element %lld '
        'of axis 0 of \'x\', whose extent is %lld", (long long)(int64_t)(n), (long long)64);',
        "if ((int64_t)(n) < 0 || (int64_t)(n) >= 64) {",
        'rt_report_fatal(PTO2_ERROR_INVALID_ARGS, "pypto bounds (write): tensor.write (prog.py:27) writes element '
        '%lld of axis 1 of \'out\', whose extent is %lld", (long long)(int64_t)(n), (long long)64);',
        "if ((int64_t)(n) < 0 || (int64_t)(n) >= 4) {",
        'rt_report_fatal(PTO2_ERROR_INVALID_ARGS, "pypto bounds (array): the array \'tids\' (prog.py:31) is indexed '
        'at %lld, outside its 4 slots", (long long)(int64_t)(n));',
    ]


def test_statements_passed_over_leave_every_example_kernels_windows_as_the_full_walk_finds_them(
    monkeypatch: pytest.MonkeyPatch, example_kernels: list[tuple[str, ir.Function]]
) -> None:
    import pypto.analysis.windows as windows

    def found(kernel: ir.Function) -> list[tuple[object, ...]]:
        walker = windows._Walker(kernel)
        walker.stmt(kernel.body, ())
        return [(w.param, w.op, [str(e) for e in (*w.lo, *w.hi, *w.when)], w.span) for w in walker.windows]

    kernels = [f for _, f in example_kernels]
    quick = [found(k) for k in kernels]
    assert any(windows._passed_over(s) for k in kernels for s in k.body.stmts)
    monkeypatch.setattr(windows, "_passed_over", lambda s: False)
    assert quick == [found(k) for k in kernels]


def test_a_window_end_without_min_or_max_equals_the_bounds_of_the_built_sum() -> None:
    from pypto.analysis.index import function_index
    from pypto.analysis.intervals import distribute
    from pypto.analysis.windows import _WINDOWS, _Walker
    from pypto.ir import scalar_ops

    source = """
    import pypto.language as pl

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]],
              row: pl.Scalar[pl.INDEX], r32: pl.Scalar[pl.INT32], n: pl.Scalar[pl.INDEX]
              ) -> pl.Tensor[[256, 64], pl.FP32]:
            for i in pl.range(0, 4):
                a: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [i * 16 + row, 0], [16, 64])
                b: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [r32, i], [16, 64])
                c: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [i * 16, 0], [16, 64], valid_shape=[pl.min(16, n - i * 16), 64])
                out = pl.store(a, [i * 16 - row, 0], out)
                out = pl.store(b, [pl.max(i, row), 0], out)
                out = pl.store(c, [i * 16, 0], out)
            return out
    """
    kernel = pl.parse(textwrap.dedent(source)).get_function("k")
    walker = _Walker(kernel)
    walker.stmt(kernel.body, ())  # the loop variable's bounds stay in the walker's env
    ends = 0
    for call in function_index(kernel).of(ir.Call):
        if call.op.name not in _WINDOWS:
            continue
        _, offsets, extents = _WINDOWS[call.op.name][1](call)
        for off, ext in zip(offsets, extents, strict=True):
            general = walker.bounds(distribute(scalar_ops.add(off, ext)))
            found = walker.end(off, ext, walker.bounds(off))
            assert (found is None) == (general is None)
            if general is not None:
                ir.assert_structural_equal(found, general[1])
                ends += 1
    assert ends == 12
