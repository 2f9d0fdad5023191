"""Small helpers with no IR knowledge (standard library only), usable from every layer."""

from .identity_cache import IdentityCache

__all__ = ["IdentityCache"]
