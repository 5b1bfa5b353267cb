"""A bounded, thread-safe map that forgets the least recently used entry first.

The card layer's caches use it (``cards/caches.py``): a value is kept by what it is computed
from (a piece's source, a Markdown text, a scenario's key), so copies of a card cost little,
and memory stays bounded however many cards the bank holds; so do a bank's loaded cards and
the card page, for the panel of a card and scenario. A value is never None (``get`` answers
None for a key it does not hold).
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class LRU(Generic[V]):
    """At most ``limit`` entries. ``get_or_make`` computes a missing value outside the lock, so a
    slow computation never holds up another thread; two threads may compute the same value once
    each, and the last one is kept (they are equal: the value depends only on its key)."""

    def __init__(self, limit: int):
        self.limit = limit
        self._entries: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: Hashable, value: V) -> V:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.limit:
                self._entries.popitem(last=False)
        return value

    def get_or_make(self, key: Hashable, make: Callable[[], V]) -> V:
        value = self.get(key)
        return value if value is not None else self.put(key, make())

    def pop(self, key: Hashable) -> V | None:
        with self._lock:
            return self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries


def per_object(limit: int, objects: int = 1, keep: Callable[[object], bool] | None = None):
    """A decorator: ``fn(*args)`` kept by the identity of its first ``objects`` arguments and the
    value of the others (hashable).

    For the calculator's pure functions of a model that many scenarios share (its layout, its
    weights, its work per step): a catalog model is one object per process, so every pool size,
    context or user count of a model reuses them. Identity instead of equality, because a model
    holds its whole config.json and hashing it would cost what the cache saves. An entry holds its
    objects, so no other object can take their ``id`` while the entry is kept, and a hit checks
    they are the same objects. An exception is raised again on every call (nothing is kept).
    ``keep``: whether the first object's values may be kept at all (otherwise ``fn`` just runs)."""
    def wrap(fn):
        kept: LRU[tuple] = LRU(limit)

        @functools.wraps(fn)
        def cached(*args, **kwargs):
            if keep is not None and not keep(args[0]):
                return fn(*args, **kwargs)
            held, rest = args[:objects], args[objects:]
            # Each argument with its type: True == 1 and 1.0 == 1, yet a check may refuse one and not the other.
            key = (tuple(map(id, held)), tuple((type(a), a) for a in rest),
                   tuple(sorted((k, type(v), v) for k, v in kwargs.items())) if kwargs else ())
            entry = kept.get(key)
            if entry is not None and all(a is b for a, b in zip(entry[0], held)):
                return entry[1]
            value = fn(*args, **kwargs)
            kept.put(key, (held, value))
            return value

        cached.kept = kept
        return cached
    return wrap
