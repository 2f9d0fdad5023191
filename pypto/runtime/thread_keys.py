"""Give back the pthread keys simpler's simulated AICore leaks on every run.

simpler's a2a3sim loads a fresh copy of its AICore executor for every run
(``DeviceRunner::ensure_binaries_loaded``), and each copy's ``aicore_execute_wrapper``
(src/a2a3/platform/sim/aicore/kernel.cpp, ``create_tls_keys``) creates five pthread keys that nothing
deletes. A process has ``PTHREAD_KEYS_MAX`` (1024) keys: after about 200 runs the wrapper's key
creation fails, its keys all alias key 0, the register base it reads back is NULL and the process
dies with SIGSEGV at address 0xa0 (``read_reg(DATA_MAIN_BASE)``). :func:`reclaimed_keys` finds the
keys a run took (glibc hands out the lowest free key first) and, when they are exactly the wrapper's
five, deletes them: its threads have ended and its copy is never run again. Other runs (the first
on a new worker also creates the worker's own keys) keep theirs; when a process is nearly out of
keys, a run stops with ``SimulatorRunError`` instead of crashing.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
from collections.abc import Iterator

from .errors import SimulatorRunError

RUN_KEYS = 16  # keys a run may need: the first run in a process takes 9
WRAPPER_KEYS = 5  # what aicore_execute_wrapper creates per run


@contextlib.contextmanager
def reclaimed_keys() -> Iterator[None]:
    """Run the block (one simulator run) and delete the pthread keys simpler's AICore wrapper took in it.

    Raises ``SimulatorRunError`` before the block when fewer than ``RUN_KEYS`` keys are free.
    """
    libc = _libc()
    if libc is None:  # no pthread keys to run out of
        yield
        return
    before = free_keys(libc, RUN_KEYS)
    if len(before) < RUN_KEYS:
        raise SimulatorRunError(
            f"this process has {len(before)} free pthread keys left and a simulator run may need {RUN_KEYS}",
            "simpler's simulated AICore leaks 5 keys on the first run of each worker (after a failed run, a "
            "new worker); run the rest in a new process",
        )
    try:
        yield
    finally:
        after = set(free_keys(libc, RUN_KEYS))
        taken = [key for key in before if key not in after]
        if taken == before[:WRAPPER_KEYS]:
            for key in taken:
                libc.pthread_key_delete(ctypes.c_uint(key))


def free_keys(libc: ctypes.CDLL, count: int) -> list[int]:
    """The ``count`` pthread keys the next creations would get (fewer if fewer are free), left free."""
    keys: list[int] = []
    key = ctypes.c_uint()
    while len(keys) < count and libc.pthread_key_create(ctypes.byref(key), None) == 0:
        keys.append(key.value)
    for k in keys:
        libc.pthread_key_delete(ctypes.c_uint(k))
    return keys


@functools.cache
def _libc() -> ctypes.CDLL | None:
    libc = ctypes.CDLL(None)
    if not (hasattr(libc, "pthread_key_create") and hasattr(libc, "pthread_key_delete")):
        return None
    return libc
