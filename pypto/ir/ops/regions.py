"""The valid region a write leaves: the rule shared by the type rules of ``assemble`` / ``store`` and
the interpreter (docs/ops.md#valid-regions).

A valid region is a box from the origin. Writing a box at an offset makes the new valid region the
union of the two, which must again be a box from the origin: a write that leaves a gap after the
valid region, or that would make it L-shaped, is an error.
"""

from __future__ import annotations

import math
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


def reshaped_box(valid: Sequence[int], shape: Sequence[int], dims: Sequence[int]) -> tuple[int, ...] | None:
    """The valid region of a ``shape`` tensor valid in ``valid`` reshaped to ``dims``; None when its
    elements do not form a box from the origin there.

    Unit axes hold nothing; the other axes fall into groups of equal element count on both sides,
    and a group's region maps to a box when it is a prefix of the group's elements in row-major order.

    >>> reshaped_box([8, 16], [16, 16], [1, 16, 16])
    (1, 8, 16)
    """
    if math.prod(shape) != math.prod(dims):
        return None
    if 0 in valid:
        return (0,) * len(dims)
    old = [(v, d) for v, d in zip(valid, shape) if d != 1]
    new = [k for k, d in enumerate(dims) if d != 1]
    out = [1] * len(dims)
    i = j = 0
    while i < len(old) and j < len(new):
        group_old, group_new = [old[i]], [new[j]]
        p, q = old[i][1], dims[new[j]]
        i, j = i + 1, j + 1
        while p != q:
            if p < q:
                group_old.append(old[i])
                p, i = p * old[i][1], i + 1
            else:
                group_new.append(new[j])
                q, j = q * dims[new[j]], j + 1
        count = _prefix_count(group_old)
        if count is None:
            return None
        extents = [dims[k] for k in group_new]
        for at in range(len(extents) - 1, -1, -1):
            suffix = math.prod(extents[at + 1:])
            if count % suffix == 0 and count // suffix <= extents[at]:
                out[group_new[at]] = count // suffix
                for k in group_new[at + 1:]:
                    out[k] = dims[k]
                break
        else:
            return None
    return tuple(out)


def _prefix_count(axes: list[tuple[int, int]]) -> int | None:
    """How many elements the box ``[(valid, extent), ...]`` holds when they are the first ones in
    row-major order, else None: the axes before the last narrowed one hold one index each."""
    narrowed = [k for k, (v, d) in enumerate(axes) if v != d]
    if not narrowed:
        return math.prod(d for _, d in axes)
    last = narrowed[-1]
    if any(v != 1 for v, _ in axes[:last]):
        return None
    return axes[last][0] * math.prod(d for _, d in axes[last + 1:])
