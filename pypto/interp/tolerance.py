"""How closely two correct runs of a program agree: the tolerance of each output (docs/cli.md#tolerances).

The simulator and the interpreter compute the same program but may round differently: an
elementwise result by a few units in the last place of its dtype, a sum by the rounding of its
partial sums, which grows with the number of terms summed one after another. The rule, for an
output of dtype ``D`` fed by a sum of ``N`` terms and, before a scaling op, by sums of up to ``R``
terms (a :class:`~pypto.analysis.reductions.Chain`), rounded to dtypes whose coarsest machine
epsilon is ``e``::

    rtol = max(rtol_D, sqrt(max(N, R)) * e) + X * e        atol = max(atol_D, N * e)

``(rtol_D, atol_D)`` is ``D``'s own tolerance (:func:`tolerance`). ``sqrt(N) * e``
bounds the relative error of a sum whose terms share a sign; ``N * e`` the absolute error of a sum
of terms of unit magnitude and either sign (partial sums of ``N`` such terms reach ``sqrt(N)``, and
each of the ``N`` additions rounds one). Only the last sum's error is absolute: past a scaling op
(``x / row_sum(x)``) the result's magnitude, not the terms', sets the error, so the earlier sums
count as a relative ``sqrt(R) * e``. Past an exponential, a sum of ``X`` terms keeps its absolute
error ``X * e`` as a relative one (``exp(c + d) = exp(c) * (1 + d)``), added to the result's own
rounding: the exp of a K = 128 FP32 matmul gets ``rtol`` 2.5e-5 (``X = 1`` adds nothing). A K = 512 FP32 matmul of FP16 inputs gets ``atol`` 6.1e-5;
inputs far from unit magnitude need ``pypto run --atol``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from pypto.analysis.reductions import Chain, output_chains
from pypto.ir.datatype import DataType
from pypto.ir.function import Function, Program
from pypto.ir.numpy_dtypes import numpy_dtype

# (relative, absolute) tolerance used when comparing results of two runs, by element type: a few
# units in the last place, so a pass may reorder a reduction but not change a constant.
_TOLERANCE: dict[DataType, tuple[float, float]] = {
    DataType.FP32: (1e-5, 1e-5),
    DataType.FP16: (4e-3, 1e-3),
    DataType.BF16: (3e-2, 1e-2),
    DataType.FP8E4M3FN: (0.125, 0.125),
    DataType.FP8E5M2: (0.25, 0.25),
    DataType.FP8E8M0: (0.5, 0.0),
    DataType.FP4: (0.5, 0.5),
}


def tolerance(dtype: DataType) -> tuple[float, float]:
    """``(rtol, atol)`` for comparing float results of ``dtype``; ``(0, 0)`` for exact types."""
    return _TOLERANCE.get(dtype, (0.0, 0.0))


def epsilon(dtype: DataType) -> float:
    """The machine epsilon of a float dtype (the gap between 1 and the next value); 0 for exact types."""
    if not dtype.is_float():
        return 0.0
    held = numpy_dtype(dtype)
    if held.kind == "f":  # numpy's own floats: no need to import ml_dtypes (half a second) for them
        return float(np.finfo(held).eps)
    import ml_dtypes

    return float(ml_dtypes.finfo(held).eps)


def chain_tolerance(dtype: DataType, chain: Chain) -> tuple[float, float]:
    """``(rtol, atol)`` for an output of ``dtype`` fed by ``chain`` (the rule of the module docstring)."""
    rtol, atol = tolerance(dtype)
    if not dtype.is_float() or chain.length <= 1:
        return rtol, atol
    e = max((epsilon(d) for d in chain.dtypes), default=epsilon(dtype))
    rtol = max(rtol, math.sqrt(chain.length) * e) + (chain.amplified * e if chain.amplified > 1 else 0.0)
    return rtol, max(atol, chain.terms * e) if chain.terms > 1 else atol


def output_tolerances(
    program: Program, entry: Function, values: Mapping[str, int] | None = None
) -> dict[str, tuple[float, float]]:
    """``(rtol, atol)`` of every Out/InOut tensor parameter of ``entry``, by parameter name.

    ``values`` gives scalar parameters and dynamic dimensions by name (loop trip counts).
    """
    chains = output_chains(program, entry, values)
    return {p.name_hint: chain_tolerance(p.type.dtype, chains[p.name_hint])
            for p in entry.params if p.name_hint in chains}
