"""``reclaimed_keys`` gives back exactly the five pthread keys a simulator run's AICore wrapper took
(simpler leaks them; pypto/runtime/thread_keys.py), keeps any other run's keys, and stops a run with a
clear error when the process is nearly out of keys. Blocks creating keys stand in for runs here;
tests/sim/test_long_lived_runs.py has the real ones."""

from __future__ import annotations

import pytest
from held_keys import create_keys, delete_keys, keys_left, libc

from pypto.runtime import SimulatorRunError
from pypto.runtime.thread_keys import RUN_KEYS, WRAPPER_KEYS, free_keys, reclaimed_keys


def test_the_five_keys_of_a_run_are_given_back() -> None:
    before = free_keys(libc, RUN_KEYS)
    with reclaimed_keys():
        taken = create_keys(WRAPPER_KEYS)
    assert taken == before[:WRAPPER_KEYS]
    assert free_keys(libc, RUN_KEYS) == before


@pytest.mark.parametrize("count", [0, 1, 4, 6, 9])
def test_a_run_taking_other_than_five_keys_keeps_them(count: int) -> None:
    before = free_keys(libc, RUN_KEYS)
    with reclaimed_keys():
        taken = create_keys(count)
    assert not set(taken) & set(free_keys(libc, RUN_KEYS))
    delete_keys(taken)  # each is still held: deleting it succeeds
    assert free_keys(libc, RUN_KEYS) == before


def test_keys_of_a_failed_run_are_given_back_too() -> None:
    before = free_keys(libc, RUN_KEYS)
    with pytest.raises(RuntimeError, match="the run failed"), reclaimed_keys():
        create_keys(WRAPPER_KEYS)
        raise RuntimeError("the run failed")
    assert free_keys(libc, RUN_KEYS) == before


def test_a_process_nearly_out_of_keys_gets_an_error_before_the_run() -> None:
    ran = False
    with keys_left(RUN_KEYS - 1), pytest.raises(SimulatorRunError) as caught, reclaimed_keys():
        ran = True
    assert not ran
    assert caught.value.message == (
        f"this process has {RUN_KEYS - 1} free pthread keys left and a simulator run may need {RUN_KEYS}"
    )
    assert caught.value.hint is not None and "run the rest in a new process" in caught.value.hint
    with keys_left(RUN_KEYS), reclaimed_keys():
        ran = True
    assert ran
