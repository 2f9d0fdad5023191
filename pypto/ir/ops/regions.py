"""The valid region a write leaves: the rule shared by the type rules of ``assemble`` / ``store`` and
the interpreter (docs/ops.md#valid-regions).

A valid region is a box from the origin. Writing a box at an offset makes the new valid region the
union of the two, which must again be a box from the origin: a write that leaves a gap after the
valid region, or that would make it L-shaped, is an error.
"""

from __future__ import annotations

from collections.abc import Sequence


class RegionError(ValueError):
    """A write whose union with the valid region is not a box from the origin."""


def written_union(valid: Sequence[int], offsets: Sequence[int], sizes: Sequence[int]) -> tuple[int, ...]:
    """The valid region after writing ``sizes`` elements at ``offsets`` into a target valid in ``valid``.

    >>> written_union([8, 16], [8, 0], [8, 16])
    (16, 16)
    """
    valid, offsets, sizes = tuple(valid), tuple(offsets), tuple(sizes)
    if 0 in sizes or all(o + s <= v for o, s, v in zip(offsets, sizes, valid)):
        return valid  # nothing written, or only inside the valid region
    if 0 in valid:
        if any(offsets):
            raise RegionError(f"the target's valid region {list(valid)} is empty, so a write at offsets "
                              f"{list(offsets)} leaves a gap before it: the first write must start at the origin")
        return sizes
    if not any(offsets) and all(s >= v for s, v in zip(sizes, valid)):
        return sizes  # the write covers the valid region
    differing = [a for a, (o, s, v) in enumerate(zip(offsets, sizes, valid)) if (o, s) != (0, v)]
    if len(differing) > 1:
        raise RegionError(f"writing {list(sizes)} at offsets {list(offsets)} into a target valid in {list(valid)} "
                          "would make the valid region L-shaped: a write must span the valid region on every axis "
                          "but the one it extends")
    axis = differing[0]
    if offsets[axis] > valid[axis]:
        raise RegionError(f"writing at offset {offsets[axis]} on axis {axis} leaves a gap after the target's valid "
                          f"region {list(valid)}: axis {axis} is valid up to {valid[axis]}")
    out = list(valid)
    out[axis] = max(valid[axis], offsets[axis] + sizes[axis])
    return tuple(out)
