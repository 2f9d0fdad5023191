"""``pypto.language.op.tensor_ops``: the established module name of ``pl.tensor`` (same functions)."""

from . import tensor as _tensor

globals().update({name: getattr(_tensor, name) for name in _tensor.__all__})

__all__ = list(_tensor.__all__)  # noqa: PLE0605 - the tensor op names
