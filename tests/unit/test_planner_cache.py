"""Assembly cache: 10 s TTL, 256 entries, per-agent invalidation, stale writes refused; injectable clock."""

from __future__ import annotations

from memoryd.retrieval.cache import AssemblyCache, normalise_query


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_ttl_is_ten_seconds_by_default() -> None:
    clock = Clock()
    cache: AssemblyCache[str] = AssemblyCache(clock=clock)
    cache.put("a", "What did we discuss?", "block")
    clock.t += 9.9
    assert cache.get("a", "  what did   WE discuss? ") == "block"
    clock.t += 0.1
    assert cache.get("a", "What did we discuss?") is None
    assert len(cache) == 0


def test_keys_separate_agents_and_variants() -> None:
    cache: AssemblyCache[str] = AssemblyCache(clock=Clock())
    cache.put("a", "q", "for a", variant=800)
    assert cache.get("b", "q", 800) is None
    assert cache.get("a", "q", 400) is None
    assert cache.get("a", "q", 800) == "for a"


def test_at_most_max_entries_oldest_dropped_first() -> None:
    cache: AssemblyCache[int] = AssemblyCache(clock=Clock())
    for i in range(300):
        cache.put("a", f"query {i}", i)
    assert len(cache) == 256
    assert cache.get("a", "query 43") is None
    assert cache.get("a", "query 44") == 44
    assert cache.get("a", "query 299") == 299


def test_expired_entries_are_dropped_on_write() -> None:
    clock = Clock()
    cache: AssemblyCache[int] = AssemblyCache(clock=clock)
    cache.put("a", "old", 1)
    clock.t += 11
    cache.put("a", "new", 2)
    assert len(cache) == 1


def test_invalidate_one_agent_or_all() -> None:
    cache: AssemblyCache[str] = AssemblyCache(clock=Clock())
    cache.put("a", "q1", "x")
    cache.put("a", "q2", "y")
    cache.put("b", "q1", "z")
    assert cache.invalidate("a") == 2
    assert cache.get("a", "q1") is None
    assert cache.get("b", "q1") == "z"
    assert cache.invalidate() == 1
    assert len(cache) == 0


def test_value_computed_before_an_invalidation_is_not_stored() -> None:
    cache: AssemblyCache[str] = AssemblyCache(clock=Clock())
    stamp = cache.stamp("a")
    other = cache.stamp("b")
    cache.invalidate("a")
    assert cache.put("a", "q", "stale", stamp=stamp) is False
    assert cache.get("a", "q") is None
    assert cache.put("b", "q", "fresh", stamp=other) is True
    global_stamp = cache.stamp("b")
    cache.invalidate()
    assert cache.put("b", "q", "stale", stamp=global_stamp) is False


def test_normalise_query() -> None:
    assert normalise_query("  Hello\n  WORLD ") == "hello world"
    assert len(normalise_query("x" * 5000)) == 512
