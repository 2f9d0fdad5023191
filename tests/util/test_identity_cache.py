"""IdentityCache: values by object identity, dropped with their object, emptied when full."""

from __future__ import annotations

import gc

from pypto.util import IdentityCache


class Key:
    """An object with no value equality (like an IR node) and a reference cycle slot."""

    other: object = None


def test_a_value_is_found_by_its_object_only() -> None:
    cache: IdentityCache[Key, str] = IdentityCache(10)
    a, b = Key(), Key()
    assert cache.put(a, "a") == "a"
    assert cache.get(a) == "a"
    assert cache.get(b) is None
    assert cache.put(a, "again") == "again"
    assert (cache.get(a), len(cache)) == ("again", 1)


def test_an_entry_goes_when_its_object_is_freed() -> None:
    cache: IdentityCache[Key, list[int]] = IdentityCache(10)
    a, b = Key(), Key()
    cache.put(a, [1])
    cache.put(b, [2])
    del a
    assert len(cache) == 1
    assert cache.get(b) == [2]
    cyclic = Key()
    cyclic.other = cyclic  # freed by the cycle collector, not by its reference count
    cache.put(cyclic, [3])
    del cyclic
    gc.collect()
    assert len(cache) == 1


def test_a_new_object_at_a_freed_objects_address_misses() -> None:
    cache: IdentityCache[Key, str] = IdentityCache(10)
    seen = set()
    for _ in range(50):  # CPython reuses the freed block: ids repeat
        key = Key()
        assert cache.get(key) is None
        cache.put(key, "old")
        seen.add(id(key))
        del key
    assert len(seen) < 50
    assert len(cache) == 0


def test_the_cache_is_emptied_when_full() -> None:
    cache: IdentityCache[Key, int] = IdentityCache(3)
    keys = [Key() for _ in range(4)]
    for i, key in enumerate(keys[:3]):
        cache.put(key, i)
    assert len(cache) == 3
    cache.put(keys[3], 3)
    assert [cache.get(k) for k in keys] == [None, None, None, 3]
    cache.clear()
    assert len(cache) == 0
    del keys  # the dropped entries' weak references are gone: freeing their objects is harmless
