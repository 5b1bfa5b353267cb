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
