"""Pass options: each option of a built-in pass changes the output as its docstring says (the
interpreter's results stay equal), bad values and unknown names are PassErrors naming the pass,
and ``pass_options`` reaches the passes from PassManager and ``ir.compile``."""

from __future__ import annotations

import dataclasses
import inspect
import textwrap

import numpy as np
import pytest
from shared_programs import FOUR_TILES
from tile_programs import front, inputs
from typeguard import suppress_type_checks

import pypto.language as pl
from pypto import ir, passes
from pypto.interp.memory import plan_extents
from pypto.interp.testing import assert_pass_preserves
from pypto.passes import PassError
from pypto.pipeline.manager import with_options
from pypto.transform.verifier import RunVerifier

VEC = ir.MemorySpace.Vec

FOUR_TILES_INPUTS = [np.arange(112 * 128, dtype=np.float32).reshape(112, 128), np.zeros((192, 128), np.float32)]


def four_tiles() -> ir.Program:
    return passes.init_memref()(passes.PassManager(passes.front_passes()).run(pl.parse(FOUR_TILES)))


def planned_bytes(strategy: str) -> int:
    reused = assert_pass_preserves(passes.memory_reuse(strategy=strategy), four_tiles(), FOUR_TILES_INPUTS)
    program = passes.allocate_memory_addr()(reused)
    return plan_extents(program.get_function("k"))[VEC]


@pytest.mark.parametrize(("strategy", "kib"), [("first_fit", 72), ("best_fit", 56), ("none", 96)])
def test_memory_reuse_strategies_plan_as_documented(strategy: str, kib: int) -> None:
    assert planned_bytes(strategy) == kib * 1024


def test_memory_reuse_default_is_first_fit() -> None:
    program = four_tiles()
    assert passes.memory_reuse()(program).as_python() == passes.memory_reuse(strategy="first_fit")(program).as_python()


def test_unroll_loops_max_trip_count() -> None:
    src = textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class Unrolled:
            @pl.function
            def main(self, x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
                for i in pl.unroll(0, 8, 2):
                    x = x + i
                return x
    """)
    program = pl.parse(src)
    assert passes.unroll_loops(max_trip_count=4)(program).as_python() == passes.unroll_loops()(program).as_python()
    with pytest.raises(PassError) as err:
        passes.unroll_loops(max_trip_count=3)(program)
    assert str(err.value) == (
        "UnrollLoops: pl.unroll of 4 iterations exceeds the option max_trip_count=3\n"
        "  --> <string>:8:9\n"
        "  |\n"
        "8 |         for i in pl.unroll(0, 8, 2):\n"
        "  |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "  = hint: write pl.range for a long loop, or raise the limit: "
        "pass_options={'UnrollLoops': {'max_trip_count': 4}}"
    )


def k_loop_header(program: ir.Program) -> str:
    (line,) = [s.strip() for s in program.get_function("mm").as_python().splitlines() if "pl.range" in s]
    return line


@pytest.mark.parametrize(("stages", "header"), [(2, "pl.range(1, 3, 2,"), (1, "pl.range(1, 2,"), (4, "pl.range(1, 5, 4,")])
def test_auto_tile_matmul_l0ab_stages_sets_the_k_slab(stages: int, header: str) -> None:
    before = front("big_k")  # [128, 512] x [512, 128] FP16: 128 KiB operands, 64 KiB L0A/L0B
    after = assert_pass_preserves(passes.auto_tile_matmul_l0(l0ab_stages=stages), before, inputs(before), entry="main")
    assert header in k_loop_header(after)


def test_auto_tile_matmul_l0c_stages_sets_the_output_block() -> None:
    src = textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class BigMN:
            @pl.function(type=pl.FunctionType.InCore)
            def mm(self, a: pl.Tensor[[256, 64], pl.FP16], b: pl.Tensor[[64, 256], pl.FP16],
                   c: pl.Out[pl.Tensor[[256, 256], pl.FP32]]) -> pl.Tensor[[256, 256], pl.FP32]:
                x = pl.load(a, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
                y = pl.load(b, [0, 0], [64, 256], target_memory=pl.Mem.Mat)
                z = pl.matmul(x, y)
                out = pl.store(z, [0, 0], c)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[256, 64], pl.FP16], b: pl.Tensor[[64, 256], pl.FP16],
                     c: pl.Out[pl.Tensor[[256, 256], pl.FP32]]) -> pl.Tensor[[256, 256], pl.FP32]:
                c = self.mm(a, b, c)
                return c
    """)
    before = passes.PassManager(passes.front_passes()).run(pl.parse(src))

    def stores(program: ir.Program) -> int:
        return program.get_function("mm").as_python().count("pl.tile.store(")

    # A [256, 256] FP32 product is 256 KiB; half of L0C (64 KiB) takes a [128, 128] block, all of it [128, 256].
    for stages, count in ((2, 4), (1, 2)):
        pass_ = passes.auto_tile_matmul_l0(l0c_stages=stages)
        assert stores(assert_pass_preserves(pass_, before, inputs(before), entry="main")) == count


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: passes.MemoryReuse(strategy="worst_fit"),
         "MemoryReuse: option 'strategy' must be one of 'first_fit', 'best_fit', 'none', got 'worst_fit'"),
        (lambda: passes.UnrollLoops(max_trip_count=0),
         "UnrollLoops: option 'max_trip_count' must be int >= 1 or None, got 0"),
        (lambda: passes.AutoTileMatmulL0(l0ab_stages=1.5),
         "AutoTileMatmulL0: option 'l0ab_stages' must be int >= 1, got 1.5"),
        (lambda: passes.AutoTileMatmulL0(l0c_stage=1),
         "AutoTileMatmulL0: unknown option 'l0c_stage' (options: l0ab_stages, l0c_stages); did you mean 'l0c_stages'?"),
    ],
)
def test_bad_option_values_name_the_pass_option_and_allowed_values(make, message: str) -> None:
    with pytest.raises(PassError) as err:
        make()
    assert str(err.value) == f"{message}"


def test_run_verifier_names_are_checked_when_it_is_built() -> None:
    with pytest.raises(PassError) as err:
        RunVerifier(properties=("SSAForm", "SsaFrom"))
    assert str(err.value) == (
        "RunVerifier: option 'properties': 'SsaFrom' is no IR property; did you mean 'SSAForm'? "
        "(the properties are the members of passes.IRProperty)"
    )
    assert RunVerifier(disabled_rules=("SSAForm",)).disabled_rules == ("SSAForm",)


def test_pass_options_reach_the_passes_of_a_pass_manager() -> None:
    pm = passes.PassManager.get_strategy(
        pass_options={"MemoryReuse": {"strategy": "none"}, "UnrollLoops": {"max_trip_count": 64}}
    )
    chosen = {p.name: p for p in pm.passes}
    assert chosen["MemoryReuse"] == passes.MemoryReuse(strategy="none")
    assert chosen["UnrollLoops"] == passes.UnrollLoops(max_trip_count=64)
    assert chosen["AutoTileMatmulL0"] == passes.AutoTileMatmulL0()
    assert passes.PassManager.get_strategy().passes == passes.default_passes()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"memory_reuse": {"strategy": "none"}},
         "memory_reuse: no pass of this name in the pipeline; did you mean 'MemoryReuse'?"),
        ({"MemoryReuse": {"stratgy": "none"}},
         "MemoryReuse: unknown option 'stratgy' (options: strategy); did you mean 'strategy'?"),
        ({"MemoryReuse": "none"}, "MemoryReuse: options must map option names to values, got 'none'"),
    ],
)
def test_unknown_pass_or_option_names_suggest_the_closest(options: dict, message: str) -> None:
    # Unchecked by typeguard, as for a user: a value of the wrong type is a PassError too.
    with suppress_type_checks(), pytest.raises(PassError) as err:
        passes.PassManager.get_strategy(pass_options=options)
    assert str(err.value) == f"{message}"


class Stamp(passes.FunctionPass):
    """A pass of one's own (as a plugin's) with an option ``tag``."""

    tag: str = "default"

    def run_function(self, func: ir.Function, program: ir.Program) -> ir.Function:
        return ir.replace(func, attrs={**func.attrs, "stamp": self.tag})


def test_pass_options_reach_a_pass_of_ones_own() -> None:
    pm = passes.PassManager([Stamp()], pass_options={"Stamp": {"tag": "release"}})
    result = pm.run(pl.parse(textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class One:
            @pl.function
            def main(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
                return n
    """)))
    assert result.get_function("main").attrs == {"stamp": "release"}


def test_a_name_like_no_pass_lists_the_pipeline() -> None:
    with pytest.raises(PassError) as err:
        with_options([passes.simplify(), passes.unroll_loops()], {"Zzz": {}})
    assert str(err.value) == "Zzz: no pass of this name in the pipeline (the passes: Simplify, UnrollLoops)"


def test_ir_compile_takes_pass_options(tmp_path) -> None:
    program = pl.parse(FOUR_TILES)
    default = ir.compile(program, output_dir=tmp_path / "default", dump_passes=False)
    best = ir.compile(
        program, output_dir=tmp_path / "best", dump_passes=False, pass_options={"MemoryReuse": {"strategy": "best_fit"}}
    )
    assert (default.peak_memory()[VEC], best.peak_memory()[VEC]) == (72 * 1024, 56 * 1024)
    with pytest.raises(PassError, match="did you mean 'MemoryReuse'"):
        ir.compile(program, output_dir=tmp_path / "bad", pass_options={"MemoryReuse_": {}})


@pytest.mark.parametrize("pass_", passes.builtin_passes(), ids=lambda p: p.name)
def test_every_option_is_documented_in_its_pass_docstring(pass_: passes.Pass) -> None:
    doc = inspect.getdoc(type(pass_)) or ""
    for field in dataclasses.fields(pass_):
        assert f"``{field.name}``" in doc, f"{pass_.name}: option {field.name} is not in its docstring"
