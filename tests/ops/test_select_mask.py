"""A select whose mask TSEL would read as a different bit stream than tile.cmp packs is refused at
the call, with the rule and a hint (pto-isa's TSEL reads the mask as one stream across rows)."""

from __future__ import annotations

import textwrap

import pytest

import pypto.language as pl
from pypto.language.parser.diagnostics import ParserError


def program(valid: str, mask_valid: str) -> str:
    return textwrap.dedent(f"""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[32, 32], pl.FP32], m: pl.Tensor[[32, 32], pl.UINT8],
              y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
            a = pl.load(x, [0, 0], [32, 32], valid_shape={valid})
            mk = pl.load(m, [0, 0], [32, 32], valid_shape={mask_valid})
            s = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            r = pl.tile.sel(mk, a, a, s)
            return pl.store(r, [0, 0], y)
    """)


def test_a_mask_packed_as_tile_cmp_packs_it_is_accepted() -> None:
    pl.parse(program("[19, 24]", "[19, 3]"))


@pytest.mark.parametrize(
    ("valid", "mask_valid", "needs"),
    [
        ("[32, 32]", "[32, 32]", "it needs the mask to have exactly 4 valid columns"),
        ("[19, 21]", "[19, 3]", "it needs 'lhs' to have a multiple of 8 valid columns and the mask an eighth as many"),
    ],
)
def test_a_mask_read_as_another_stream_is_refused_at_the_call(valid: str, mask_valid: str, needs: str) -> None:
    with pytest.raises(ParserError) as info:
        pl.parse(program(valid, mask_valid))
    text = str(info.value)
    assert "Operator 'tile.sel': 'mask' has" in text and needs in text
    assert "hint: select over a valid region whose columns are a multiple of 8" in text
    assert (info.value.location.begin_line, info.value.location.begin_column) == (10, 13)  # the pl.tile.sel call
