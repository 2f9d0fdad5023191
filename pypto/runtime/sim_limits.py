"""What the a2a3sim build cannot compute correctly, refused before a run instead of giving wrong results.

pto-isa's CPU backend defines ``bfloat16_t`` as a ``_Float16`` placeholder unless the compiler has
C++23 ``<stdfloat>`` (``pto/common/type.hpp``); the installed toolchain has not, so a kernel on
bfloat16 data would compute with float16 arithmetic on bfloat16 bits (``-2 + -2`` gives ``-512``).
"""

from __future__ import annotations

import re

from .artifacts import ArtifactTree
from .errors import SimulatorUnsupportedError

_BF16_TYPE = re.compile(r"\bbfloat16_t\b")


def check_simulable(tree: ArtifactTree) -> None:
    """``SimulatorUnsupportedError`` naming the first kernel of ``tree`` that computes on bfloat16
    (``tests/sim/data/bf16_add`` is a hand-written kernel that shows the CPU model's fault)."""
    for kernel in tree.kernels:
        if _BF16_TYPE.search(kernel.source.read_text(errors="replace")):
            raise SimulatorUnsupportedError(
                f"kernel {kernel.label} computes on bfloat16, which a2a3sim cannot: its CPU pto-isa build "
                "treats bfloat16_t as float16 (no C++23 <stdfloat>), so the results would be wrong",
                "check BF16 programs on the interpreter (compiled.interpret(...)), or use FP16/FP32 on the simulator",
            )
