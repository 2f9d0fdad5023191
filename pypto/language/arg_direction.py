"""Call-site argument directions by name: ``pl.adir`` and the established name tables.

``pl.adir.input`` ... are the :class:`~pypto.ir.ArgDirection` members as printed in
``attrs={"arg_directions": [...]}``. ``DIRECTION_TO_NAME`` / ``NAME_TO_DIRECTION`` (the established
module ``pypto.language.arg_direction``) map a member to that name and back.
"""

from __future__ import annotations

from pypto.ir import ArgDirection


class adir:  # noqa: N801 - printed as pl.adir.<name>
    """Call-site argument directions as printed in ``attrs={"arg_directions": [...]}``."""

    input = ArgDirection.Input
    output = ArgDirection.Output
    inout = ArgDirection.InOut
    output_existing = ArgDirection.OutputExisting
    no_dep = ArgDirection.NoDep
    scalar = ArgDirection.Scalar


NAME_TO_DIRECTION: dict[str, ArgDirection] = {
    name: value for name, value in vars(adir).items() if isinstance(value, ArgDirection)
}
DIRECTION_TO_NAME: dict[ArgDirection, str] = {value: name for name, value in NAME_TO_DIRECTION.items()}

__all__ = ["DIRECTION_TO_NAME", "NAME_TO_DIRECTION", "adir"]
