import threading

from quizapp.lru import LRU


def test_a_value_is_made_once_and_kept():
    cache, made = LRU(4), []
    assert cache.get_or_make("a", lambda: made.append("a") or 1) == 1
    assert cache.get_or_make("a", lambda: made.append("again") or 2) == 1
    assert made == ["a"]


def test_the_least_recently_used_entry_goes_first():
    cache = LRU(2)
    cache.get_or_make("a", lambda: 1)
    cache.get_or_make("b", lambda: 2)
    cache.get_or_make("a", lambda: 99)  # a is used again: b is now the oldest
    cache.get_or_make("c", lambda: 3)
    assert len(cache) == 2
    assert cache.get_or_make("a", lambda: "made again") == 1
    assert cache.get_or_make("c", lambda: "made again") == 3
    assert cache.get_or_make("b", lambda: "made again") == "made again"


def test_threads_share_it_and_it_never_holds_more_than_its_size():
    cache = LRU(50)

    def fill(offset):
        for i in range(500):
            assert cache.get_or_make((offset + i) % 120, lambda i=i: (offset + i) % 120) == (offset + i) % 120

    threads = [threading.Thread(target=fill, args=(n * 7,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 50


def test_clear_forgets_every_entry_and_the_next_get_makes_it_again():
    cache, made = LRU(4), []
    cache.get_or_make("a", lambda: made.append("a") or 1)
    cache.clear()
    assert len(cache) == 0 and "a" not in cache
    assert cache.get_or_make("a", lambda: made.append("again") or 2) == 2
    assert made == ["a", "again"]


# --- per_object: kept by identity ---------------------------------------------------------------

from quizapp.lru import per_object  # noqa: E402


class Box:
    """Equal boxes are still two objects, and a dict inside makes them unhashable, as a model is."""

    def __init__(self, n):
        self.n, self.raw = n, {}

    def __eq__(self, other):
        return isinstance(other, Box) and other.n == self.n

    __hash__ = None


def test_per_object_keeps_a_value_by_the_objects_identity_and_the_other_arguments():
    calls = []

    @per_object(8)
    def scaled(box, k):
        calls.append((box.n, k))
        return box.n * k

    one, also_one = Box(1), Box(1)
    assert scaled(one, 3) == 3 and scaled(one, 3) == 3
    assert scaled(one, 4) == 4  # another argument: computed
    assert scaled(also_one, 3) == 3  # an equal but different object: computed too
    assert calls == [(1, 3), (1, 4), (1, 3)]


def test_per_object_never_answers_for_an_object_it_does_not_hold():
    @per_object(2)
    def n(box):
        return box.n

    boxes = [Box(i) for i in range(50)]
    assert [n(b) for b in boxes] == list(range(50))  # entries pushed out hold their boxes until then
    fresh = [Box(100 + i) for i in range(50)]  # may reuse ids of boxes no entry holds any more
    assert [n(b) for b in fresh] == [100 + i for i in range(50)]


def test_per_object_checks_every_held_object_and_keeps_no_error():
    tries = []

    @per_object(8, objects=2)
    def pair(a, b):
        tries.append(1)
        if a.n < 0:
            raise ValueError("negative")
        return a.n + b.n

    a, b, c = Box(1), Box(2), Box(2)
    assert pair(a, b) == 3 and pair(a, b) == 3 and pair(a, c) == 3
    assert len(tries) == 2  # (a, c) is another pair of objects
    bad = Box(-1)
    for _ in range(2):
        try:
            pair(bad, b)
        except ValueError:
            pass
    assert len(tries) == 4


def test_per_object_keeps_nothing_for_an_object_keep_refuses():
    calls = []

    @per_object(8, keep=lambda box: box.n >= 0)
    def n(box):
        calls.append(box.n)
        return box.n

    kept, passing = Box(1), Box(-1)
    assert [n(kept), n(kept), n(passing), n(passing)] == [1, 1, -1, -1]
    assert calls == [1, -1, -1] and len(n.kept) == 1
