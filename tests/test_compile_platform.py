"""One platform per compile (issue 28 item 2): ``ir.compile``'s backend type reaches every pass, check
and code generator through the pass context, and the process-wide default is never read inside it."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import backend, ir
from pypto.backend import A2A3, A5, BackendType, compiling, current_platform, target_platform
from pypto.interp.semantics.elementwise import cast_steps
from pypto.ir.datatype import DataType
from pypto.ir.errors import InternalError
from pypto.passes import PassContext
from pypto.passes.allocate_memory_addr import CapacityError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

# 128x384 FP32 is 192 KiB of Vec: more than a2a3's 184 KiB, within a5's 240 KiB.
EXP_128x384 = """
import pypto.language as pl

@pl.program
class Exp:
    @pl.function(type=pl.FunctionType.InCore)
    def kexp(self, x: pl.Tensor[[128, 384], pl.FP32],
             out: pl.Out[pl.Tensor[[128, 384], pl.FP32]]) -> pl.Tensor[[128, 384], pl.FP32]:
        t: pl.Tile[[128, 384], pl.FP32] = pl.load(x, [0, 0], [128, 384])
        e: pl.Tile[[128, 384], pl.FP32] = pl.exp(t)
        r: pl.Tensor[[128, 384], pl.FP32] = pl.store(e, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[128, 384], pl.FP32],
             out: pl.Out[pl.Tensor[[128, 384], pl.FP32]]) -> pl.Tensor[[128, 384], pl.FP32]:
        out = self.kexp(x, out)
        return out
"""


def test_a5_compiles_through_codegen_what_only_fits_a5(tmp_path: Path) -> None:
    compiled = ir.compile(pl.parse(EXP_128x384), output_dir=tmp_path / "a5", backend_type=BackendType.Ascend950)
    assert compiled.files == (
        "compiled_meta.json", "debug/run.py", "kernel_config.py", "kernels/aiv/kexp.cpp", "orchestration/main.cpp",
        "ptoas/kexp.pto",
    )
    assert (tmp_path / "a5" / "ptoas/kexp.pto").read_text().startswith('module attributes {pto.target_arch = "a5"} {')
    kernel = (tmp_path / "a5" / "kernels/aiv/kexp.cpp").read_text()
    assert "using Vec_128x384_fp32 = Tile<TileType::Vec, float, 128, 384," in kernel


def test_the_same_kernel_is_refused_on_a2a3_with_the_capacity_message(tmp_path: Path) -> None:
    with pytest.raises(CapacityError, match=(
        r"^AllocateMemoryAddr: Function 'kexp': Vec buffer usage \(196608 bytes\) exceeds platform limit "
        r"\(188416 bytes\)"
    )):
        ir.compile(pl.parse(EXP_128x384), output_dir=tmp_path / "a2a3")


def test_the_default_platform_does_not_change_a_compile(tmp_path: Path) -> None:
    # The process default says a5, the compile says a2a3: the compile's platform wins everywhere.
    with target_platform(A5), pytest.raises(CapacityError, match="exceeds platform limit"):
        ir.compile(pl.parse(EXP_128x384), output_dir=tmp_path / "out", backend_type=BackendType.Ascend910B)


def test_an_example_tiled_for_a5_compiles_for_a5(tmp_path: Path) -> None:
    # AutoTileMatmulL0 fills a5's 256 KiB L0C with a 256x256 FP32 product (a2a3: 128x128 blocks).
    program = pl.parse((EXAMPLES / "tensor_matmul_big_mn.py").read_text())
    ir.compile(program, output_dir=tmp_path / "a5", backend_type=BackendType.Ascend950)
    kernel = (tmp_path / "a5" / "kernels/aic/main_incore_0.cpp").read_text()
    assert "using Acc_256x256_fp32 = Tile<TileType::Acc, float, 256, 256," in kernel


@pytest.mark.parametrize("example", sorted(p.stem for p in EXAMPLES.glob("*.py")))
def test_every_example_compiles_for_a5(example: str, tmp_path: Path) -> None:
    # ir.compile runs inside backend.compiling: a read of the process default there raises.
    compiled = ir.compile(pl.parse((EXAMPLES / f"{example}.py").read_text()), output_dir=tmp_path / example,
                          backend_type=BackendType.Ascend950)
    assert compiled.generated and "compiled_meta.json" in compiled.files


def test_reading_the_default_platform_inside_a_compile_is_an_internal_error() -> None:
    with compiling(A5), pytest.raises(InternalError, match=(
        r"^the process-wide default platform was read during a compile for a5; code that runs inside a compile "
        r"reads PassContext.current\(\).platform or takes the platform as an argument$"
    )):
        backend.get_mem_size(backend.MemorySpace.Vec)
    assert current_platform() is A2A3


def test_a_nested_pass_context_keeps_the_enclosing_platform() -> None:
    with PassContext(platform=A5):
        assert PassContext(verify=False).platform is A5
    assert PassContext().platform is A2A3


def test_the_interpreter_casts_in_the_steps_of_the_pass_context_platform() -> None:
    # A2A3 converts INT32 -> FP16 directly; A5 goes through FP32, as LegalizeTileCast chains it there.
    assert cast_steps(DataType.INT32, DataType.FP16) == [DataType.FP16]
    with PassContext(platform=A5):
        assert cast_steps(DataType.INT32, DataType.FP16) == [DataType.FP32, DataType.FP16]
