"""Holding and releasing pthread keys, for the tests of pypto/runtime/thread_keys.py."""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Iterator

libc = ctypes.CDLL(None)


def create_keys(count: int) -> list[int]:
    """``count`` new pthread keys."""
    keys: list[int] = []
    key = ctypes.c_uint()
    for _ in range(count):
        assert libc.pthread_key_create(ctypes.byref(key), None) == 0
        keys.append(key.value)
    return keys


def delete_keys(keys: list[int]) -> None:
    """Delete ``keys``, each of which must be held."""
    for k in keys:
        assert libc.pthread_key_delete(ctypes.c_uint(k)) == 0


@contextlib.contextmanager
def keys_left(count: int) -> Iterator[None]:
    """Hold every free pthread key but ``count`` while the block runs."""
    held: list[int] = []
    key = ctypes.c_uint()
    while libc.pthread_key_create(ctypes.byref(key), None) == 0:
        held.append(key.value)
    delete_keys(held[len(held) - count:])
    try:
        yield
    finally:
        delete_keys(held[:len(held) - count])
