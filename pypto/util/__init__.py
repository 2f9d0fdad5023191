"""Small helpers with no IR knowledge (standard library only), usable from every layer."""

from .files import write_text
from .identity_cache import IdentityCache

__all__ = ["IdentityCache", "write_text"]
