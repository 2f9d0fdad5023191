"""Build the simulator's toolchain artifacts once, at install: the precompiled headers of the kernel and
orchestration preludes and the runtime's fixed orchestration objects, into the install's ``prebuilt``.

Every build looks there after the kernel cache (:mod:`pypto.runtime.build`), so the first run with an
empty kernel cache compiles only its own units (docs/simulator.md#pch). Program units are never taken
from it. ``scripts/install-simulator.sh`` runs ``python -m pypto.runtime.prebuild``; run it again after
changing the toolchain by hand. A stale entry is never used: its key names the prelude, the flags, the
compiler and the headers.

The artifacts come from compiling :data:`WARM_UP`, a program with one kernel of each prelude a kernel
can have: vector and cube, each with and without the block index (``intrinsic.h``).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

WARM_UP = """
import pypto.language as pl

@pl.program
class WarmUp:
    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], a: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]], z: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             c: pl.Out[pl.Tensor[[64, 64], pl.FP32]], d: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             ) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32],
                        pl.Tensor[[64, 64], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y[:] = pl.add(x, x)
        for i in pl.spmd(2):
            z[i * 32 : i * 32 + 32, :] = pl.mul(x[i * 32 : i * 32 + 32, :], 2.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            c[:] = pl.matmul(a, a, out_dtype=pl.FP32)
        for j in pl.spmd(2):
            d[j * 32 : j * 32 + 32, :] = pl.matmul(a[j * 32 : j * 32 + 32, :], a, out_dtype=pl.FP32)
        return y, z, c, d
"""


def prebuild() -> Path:
    """Compile :data:`WARM_UP` and build it into the install's ``prebuilt``; returns that folder."""
    from pypto import ir
    from pypto.language import parse

    from .artifacts import load_artifacts
    from .build import build_artifacts
    from .cache import KernelCache
    from .install import find_simulator

    install = find_simulator()
    with tempfile.TemporaryDirectory(prefix="pypto-prebuild-") as tmp:
        compiled = ir.compile(parse(WARM_UP), output_dir=Path(tmp) / "warm_up")
        build_artifacts(load_artifacts(compiled.output_dir), install, KernelCache(install.prebuilt))
    return install.prebuilt


def main() -> None:
    """``python -m pypto.runtime.prebuild``: build, then say where and how long it took."""
    start = time.perf_counter()
    folder = prebuild()
    print(f"prebuilt precompiled headers and runtime objects in {folder} ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    sys.exit(main())
