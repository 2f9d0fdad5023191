"""Bad explicit cross-core programs (issue 30) are refused at the offending call with what to do: a
pipe used without its setup, slots too small for the tile, push and pop counts that differ."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.backend import BackendType
from pypto.ir.errors import VerificationError
from pypto.language.parser.diagnostics.exceptions import ParserError

EXAMPLE = (Path(__file__).resolve().parents[2] / "examples" / "cross_core_pipes.py").read_text()


def _refusal(tmp_path: Path, old: str, new: str, backend: BackendType = BackendType.Ascend910B) -> str:
    assert old in EXAMPLE
    path = tmp_path / "bad.py"
    path.write_text(EXAMPLE.replace(old, new))
    with pytest.raises(VerificationError) as err:
        ir.compile(pl.loads_program(str(path)), output_dir=tmp_path / "out", backend_type=backend)
    return str(err.value)


def _line(text: str) -> int:
    return next(k for k, line in enumerate(EXAMPLE.splitlines(), start=1) if text in line)


def test_a_pipe_without_setup(tmp_path: Path) -> None:
    setup = "".join(f"        pl.aiv_initialize_pipe(pl.const(0, pl.INT32), buf{i}, dir_mask=2, slot_size=8192, "
                    f"slot_num=2, id={2 * i})\n" for i in (0, 1))
    message = _refusal(tmp_path, setup, "")
    assert ("MISSING_PIPE_SETUP in 'prepare': tile.tpush_to_aic on a pipe that 'prepare' never sets up: call "
            "pl.aiv_initialize_pipe (with its id=) before the first push or pop") in message
    assert f"bad.py:{_line('pl.tpush_to_aic(a_sq') - 2}:9" in message


def test_a_pipe_id_without_setup(tmp_path: Path) -> None:
    message = _refusal(tmp_path, "pl.tpush_to_aic(b_vec, split=0, id=2)", "pl.tpush_to_aic(b_vec, split=0, id=1)")
    assert ("PIPE_NOT_INITIALISED in 'prepare': tile.tpush_to_aic on pipe 1, which 'prepare' does not initialise (it "
            "sets up pipe 0, 2): call pl.aiv_initialize_pipe with id=1 first") in message


def test_a_pipe_op_against_its_pipes_direction(tmp_path: Path) -> None:
    # Refused before codegen, so a compile printing only the PTO module (skip_ptoas=True) refuses it too.
    one_way = "dir_mask=1, slot_size=8192, slot_num=2, id=2"
    path = tmp_path / "bad.py"
    path.write_text(EXAMPLE.replace("dir_mask=2, slot_size=8192, slot_num=2, id=2", one_way))
    with pytest.raises(VerificationError) as err:
        ir.compile(pl.loads_program(str(path)), output_dir=tmp_path / "out", skip_ptoas=True)
    message = str(err.value)
    assert ("PIPE_DIRECTION in 'multiply': tile.tpop_from_aiv moves a tile vector to cube on pipe 2, which 'multiply' "
            "sets up for the other direction only (dir_mask=1): initialise pipe 2 with dir_mask=2 (or 3 for both "
            "directions) in both kernels") in message
    assert f"bad.py:{_line('b_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tpop_from_aiv')}:57" in message
    assert ("PIPE_DIRECTION in 'prepare': tile.tpush_to_aic moves a tile vector to cube on pipe 2, which 'prepare' "
            "sets up for the other direction only (dir_mask=1)") in message


def test_a_pipe_id_past_the_cross_core_flags(tmp_path: Path) -> None:
    # A two-way pipe 254 printed TPipe<256, ...> for its V->C half, which g++ refused (FlagID is a uint8_t).
    setup = "buf1, dir_mask=2, slot_size=8192, slot_num=2, id=2)"
    path = tmp_path / "bad.py"
    path.write_text(EXAMPLE.replace(setup, setup.replace("dir_mask=2", "dir_mask=3").replace("id=2", "id=13")))
    with pytest.raises(ParserError) as err:
        pl.loads_program(str(path))
    assert err.value.message == ("Operator 'system.aiv_initialize_pipe': id (13) must be <= 12 for a two-way pipe "
                                 "(dir_mask=3)")
    assert err.value.hint == ("a pipe takes the cross-core flags id to id + 3 and a core has 16 (0 to 15): number "
                              "the pipes of a kernel from 0, one-way pipes 2 apart and two-way pipes 4 apart")
    assert err.value.span["begin_line"] == _line(setup)


def test_one_way_pipes_one_id_apart_share_a_flag(tmp_path: Path) -> None:
    # On a2a3 pipe 0 waits on flags 0 and 1, pipe 1 on 1 and 2: each would take the other's signals.
    message = _refusal(tmp_path, "id=2)", "id=1)")
    assert ("PIPE_FLAGS_OVERLAP in 'multiply': pipes 0 and 1 share cross-core flags: pipe 0 takes flags 0 and 1, "
            "pipe 1 flags 1 and 2 (on a2a3 a pipe signals its filled and freed slots through flags id and id + 1, "
            "and a two-way pipe id + 2 and id + 3 too, so the pipes would take each other's signals): give pipe 1 "
            "id=2 (number one-way pipes 2 apart and two-way pipes 4 apart)") in message
    assert "PIPE_FLAGS_OVERLAP in 'prepare': pipes 0 and 1 share cross-core flags" in message
    assert f"bad.py:{_line('buf1, dir_mask=2, slot_size=8192, slot_num=2, id=2)')}:9" in message


def test_a_pipe_within_the_flags_of_a_two_way_pipe(tmp_path: Path) -> None:
    setup = "buf0, dir_mask=2, slot_size=8192, slot_num=2, id=0)"
    message = _refusal(tmp_path, setup, setup.replace("dir_mask=2", "dir_mask=3"))
    assert ("PIPE_FLAGS_OVERLAP in 'multiply': pipes 0 and 2 share cross-core flags: pipe 0 takes flags 0 to 3, "
            "pipe 2 flags 2 and 3 (on a2a3") in message
    assert "give pipe 2 id=4 (number one-way pipes 2 apart and two-way pipes 4 apart)" in message


def test_more_pipes_than_flags(tmp_path: Path) -> None:
    # Eight one-way pipes take the 16 flags; a ninth has none left, whatever its id.
    setup = "        pl.aiv_initialize_pipe(pl.const(0, pl.INT32), buf1, dir_mask=2, slot_size=8192, slot_num=2, id=2)\n"
    more = "".join(setup.replace("id=2)", f"id={i})") for i in (4, 6, 8, 10, 12, 14, 3))
    message = _refusal(tmp_path, setup, setup + more)
    assert ("PIPE_FLAGS_OVERLAP in 'prepare': pipes 2 and 3 share cross-core flags: pipe 2 takes flags 2 and 3, "
            "pipe 3 flags 3 and 4") in message
    assert "a core has 16 flags: at most 8 one-way or 4 two-way pipes a kernel" in message


def test_slots_too_small_for_the_tile(tmp_path: Path) -> None:
    message = _refusal(tmp_path, "buf1, dir_mask=2, slot_size=8192, slot_num=2, id=2)\n        a_mat",
                       "buf1, dir_mask=2, slot_size=4096, slot_num=2, id=2)\n        a_mat")
    assert ("SLOT_TOO_SMALL in 'multiply': tile.tpop_from_aiv moves a 64x64 FP16 tile (8192 bytes) through pipe 2, "
            "whose slots hold 4096 bytes: set slot_size=8192 or more in its initialize_pipe (and reserve "
            "slot_size * local_slot_num bytes for its slots)") in message
    assert f"bad.py:{_line('b_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tpop_from_aiv')}:9" in message


def test_push_and_pop_counts_that_differ(tmp_path: Path) -> None:
    message = _refusal(tmp_path, "        pl.tpush_to_aic(a_sq, split=0, id=0)\n",
                       "        for i in pl.range(3):\n            pl.tpush_to_aic(a_sq, split=0, id=0)\n")
    assert ("PIPE_COUNT_MISMATCH in 'multiply': 'multiply' pops 1 tile(s) from pipe 0 but 'prepare' pushes 3: a pop "
            "without a push waits forever and an unpopped push fills the ring; make the counts equal") in message
    pop = _line("a_mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tpop_from_aiv")
    assert f"bad.py:{pop + 1}:57" in message  # the pop, one line down past the loop header


def test_a_split_in_a_vector_kernel_on_one_lane(tmp_path: Path) -> None:
    message = _refusal(tmp_path, "pl.tpush_to_aic(b_vec, split=0, id=2)", "pl.tpush_to_aic(b_vec, split=1, id=2)")
    assert ("SPLIT_ON_ONE_LANE in 'prepare': tile.tpush_to_aic with split=1 in 'prepare', which runs on one vector "
            'lane: each lane moves half of the tile, so declare the kernel @pl.function(type=pl.FunctionType.AIV, '
            'attrs={"dual_aiv_dispatch": True}) to run it on both') in message


def test_a_reserved_buffer_smaller_than_the_slots_kept_on_chip(tmp_path: Path) -> None:
    # The consumer keeps local_slot_num slots on chip on a2a3 (slot_num on a5) in the buffer it reserves: a smaller
    # one let the second slot overwrite the tile planned above it.
    reserve = 'buf0 = pl.reserve_buffer(name="a_slots", size=16384, base=pl.AUTO)'
    message = _refusal(tmp_path, reserve, reserve.replace("16384", "8192"))
    assert ("RING_TOO_SMALL in 'multiply': pl.reserve_buffer 'a_slots' holds 8192 bytes, but pipe 0 keeps 2 slot(s) "
            "of 8192 bytes in it on a2a3 (slot_size * local_slot_num): reserve size=16384 or more, or take fewer "
            "slots") in message
    assert f"bad.py:{_line(reserve)}:" in message
    setup = "buf0, dir_mask=2, slot_size=8192, slot_num=2, id=0)\n        pl.aic"
    message = _refusal(tmp_path, setup, setup.replace("slot_num=2", "slot_num=4"), BackendType.Ascend950)
    assert ("RING_TOO_SMALL in 'multiply': pl.reserve_buffer 'a_slots' holds 16384 bytes, but pipe 0 keeps 4 "
            "slot(s) of 8192 bytes in it on a5 (slot_size * slot_num): reserve size=32768 or more") in message


def test_the_two_kernels_of_a_group_setting_a_pipe_up_differently(tmp_path: Path) -> None:
    # Each side computes slot addresses from its own setup: with different ones the run hung on a2a3sim.
    setup = "buf1, dir_mask=2, slot_size=8192, slot_num=2, id=2)\n        a_vec"
    message = _refusal(tmp_path, setup, setup.replace("slot_num=2", "slot_num=4"))
    assert ("PIPE_SETUP_MISMATCH in 'prepare': pipe 2 is set up differently by the two kernels of a Group "
            "(slot_num=4 here, 2 in 'multiply'): both sides must initialise it with the same dir_mask, slot_size, "
            "slot_num and local_slot_num") in message
    assert f"bad.py:{_line('buf1, dir_mask=2, slot_size=8192, slot_num=2, id=2)')}:9" in message


CLUSTER_OF_TWO = """
import pypto.language as pl


@pl.program
class ClusterOfTwo:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.cluster():
            with pl.at(level=pl.Level.CORE_GROUP):
                out = pl.assemble(out, pl.exp(pl.matmul(a, b, out_dtype=pl.FP32)), [0, 0])
            with pl.at(level=pl.Level.CORE_GROUP):
                out = pl.assemble(out, pl.exp(pl.matmul(b, a, out_dtype=pl.FP32)), [0, 0])
        return out
"""


def test_a_cluster_of_two_mixed_scopes(tmp_path: Path) -> None:
    # It became one Group of two cube and two vector kernels, refused as pipe count mismatches between the two
    # vector kernels (which never talk to each other); a cluster has one cube core.
    path = tmp_path / "two.py"
    path.write_text(CLUSTER_OF_TWO)
    with pytest.raises(VerificationError) as err:
        ir.compile(pl.loads_program(str(path)), output_dir=tmp_path / "out")
    message = str(err.value)
    assert "PIPE_COUNT_MISMATCH" not in message
    assert ("GROUP_KERNELS in 'main_cluster_0': Group 'main_cluster_0' launches 2 AIC kernels ('main_incore_0_aic', "
            "'main_incore_1_aic'), but a Group (or pl.cluster()) runs as one mixed task of one AIC and one AIV kernel "
            "(the AIV kernel runs on both vector cores when split or dual_aiv_dispatch): merge the AIC work into one "
            "kernel, or launch the other from the orchestration") in message
    assert "two.py:13:13" in message  # the second pl.at


def test_a_group_of_two_vector_kernels(tmp_path: Path) -> None:
    # The orchestration runs a Group as {aic, aiv, aiv} whose second vector slot is the first's lane 1: a second
    # AIV kernel reached orchestration codegen and failed there with "no rule".
    second = EXAMPLE.replace("def prepare(", "def prepare_b(").split("    @pl.function(type=pl.FunctionType.AIC)")[0]
    second = second[second.index("    @pl.function(type=pl.FunctionType.AIV)"):]
    source = EXAMPLE.replace("    @pl.function(type=pl.FunctionType.AIC)", second + "    @pl.function(type=pl.FunctionType.AIC)")
    source = source.replace("        self.prepare(a, b)\n", "        self.prepare(a, b)\n        self.prepare_b(a, b)\n")
    message = _refusal(tmp_path, EXAMPLE, source)
    assert ("GROUP_KERNELS in 'square_matmul': Group 'square_matmul' launches 2 AIV kernels ('prepare', 'prepare_b'), "
            "but a Group (or pl.cluster()) runs as one mixed task of one AIC and one AIV kernel (the AIV kernel runs on "
            "both vector cores when split or dual_aiv_dispatch): merge the AIV work into one kernel, or launch the "
            "other from the orchestration") in message
    line = next(k for k, text in enumerate(source.splitlines(), start=1) if "self.prepare_b(a, b)" in text)
    assert f"bad.py:{line}:9" in message


def test_a_count_mismatch_made_by_changing_only_the_pushing_kernel(tmp_path: Path) -> None:
    # The popping kernel is the same object in both programs: its cached result must not hide that
    # its peer now pushes three tiles (a check reads the peer's body, not only its own).
    from pypto.ir.function import Program
    from pypto.languages.invariants.kernels import MixedKernelExpanded

    good = pl.loads_program(str(Path(__file__).resolve().parents[2] / "examples" / "cross_core_pipes.py"))
    path = tmp_path / "bad.py"
    path.write_text(EXAMPLE.replace("        pl.tpush_to_aic(a_sq, split=0, id=0)\n",
                                    "        for i in pl.range(3):\n            pl.tpush_to_aic(a_sq, split=0, id=0)\n"))
    bad = pl.loads_program(str(path))
    assert MixedKernelExpanded.errors(good) == []
    kept = good.get_function("multiply")
    mixed = Program([bad.get_function("prepare") if f.name == "prepare" else f for f in good.functions.values()],
                    good.name, good.span)
    assert mixed.get_function("multiply") is kept
    assert [(v.code, v.function) for v in MixedKernelExpanded.errors(mixed)] == [("PIPE_COUNT_MISMATCH", "multiply")]
