"""What the a2a3sim build cannot compute correctly, refused before a run instead of giving wrong results.

Each limit is a fault of pto-isa's CPU model (what a2a3sim runs), shown by a hand-written kernel
under ``tests/sim/data``, and recognised in the generated kernel source:

* bfloat16: the CPU backend defines ``bfloat16_t`` as a ``_Float16`` placeholder unless the compiler
  has C++23 ``<stdfloat>`` (``pto/common/type.hpp``); the installed toolchain has not, so a kernel on
  bfloat16 data computes with float16 arithmetic on bfloat16 bits (``-2 + -2`` gives ``-512``;
  ``bf16_add``).
* TSORT32 on half rows longer than one 32-element block: ``cpu/TSort32.hpp`` starts block ``j``'s
  structs at element ``2 * j``, the FP32 pitch, though an FP16 struct takes 4 elements, so each block
  overwrites half of the one before (``sort32_fp16``).
"""

from __future__ import annotations

import re

from pypto.ir.ops.tensor_view_ops import SORT_BLOCK

from .artifacts import ArtifactTree
from .errors import SimulatorUnsupportedError

_BF16_TYPE = re.compile(r"\bbfloat16_t\b")
_SORT32 = re.compile(r"\bTSORT32\(\s*\w+\s*,\s*(\w+)\s*,")


def _tile_of(source: str, var: str) -> tuple[str, int] | None:
    """The element type and column count of the tile variable ``var`` declared in ``source``."""
    decl = re.search(rf"^\s*(\w+)\s+{var}\(", source, re.M)
    if decl is None:
        return None
    alias = re.search(rf"using\s+{decl.group(1)}\s*=\s*Tile<\s*[\w:]+\s*,\s*(\w+)\s*,\s*\d+\s*,\s*(\d+)", source)
    return None if alias is None else (alias.group(1), int(alias.group(2)))


def _long_half_sort(source: str) -> bool:
    """Whether ``source`` sorts a half tile of more than one 32-element block with TSORT32."""
    for match in _SORT32.finditer(source):
        tile = _tile_of(source, match.group(1))
        if tile is not None and tile[0] == "half" and tile[1] > SORT_BLOCK:
            return True
    return False


def check_simulable(tree: ArtifactTree) -> None:
    """``SimulatorUnsupportedError`` naming the first kernel of ``tree`` that a2a3sim would compute
    wrong: one on bfloat16, or one sorting FP16 rows of more than 32 elements."""
    for kernel in tree.kernels:
        source = kernel.source.read_text(errors="replace")
        if _BF16_TYPE.search(source):
            raise SimulatorUnsupportedError(
                f"kernel {kernel.label} computes on bfloat16, which a2a3sim cannot: its CPU pto-isa build "
                "treats bfloat16_t as float16 (no C++23 <stdfloat>), so the results would be wrong",
                "check BF16 programs on the interpreter (compiled.interpret(...)), or use FP16/FP32 on the simulator",
            )
        if _long_half_sort(source):
            raise SimulatorUnsupportedError(
                f"kernel {kernel.label} sorts FP16 rows of more than {SORT_BLOCK} elements (tile.sort32), which "
                "a2a3sim cannot: its CPU model places each block's FP16 (score, index) structs at the FP32 pitch, "
                "so the blocks overwrite each other",
                "sort FP16 rows of 32 elements, or FP32 rows, on the simulator; check longer FP16 sorts on the "
                "interpreter (compiled.interpret(...))",
            )
