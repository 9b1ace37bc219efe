"""Writer wiring helpers: memory.json → WriterSettings, per-kind vector removal, fan-out hooks."""

from __future__ import annotations

import dataclasses

from memoryd.config import MemoryConfig
from memoryd.vectors.codec import vector_id
from memoryd.wiring.writer import CallbackHooks, rows_remover, writer_settings
from memoryd.write.dedup import FactPlan
from memoryd.write.store_protocol import CommitResult, DerivedRow


def test_writer_settings_follow_memory_json() -> None:
    config = dataclasses.replace(
        MemoryConfig(),
        extraction_mode="manual",
        summary_debounce_seconds=15,
        embedding_backend="none",
        core_model="",
    )
    settings = writer_settings(config)
    assert not settings.is_automatic and settings.summary_debounce_s == 15.0
    assert not settings.embeddings_enabled and settings.core_model == ""
    assert writer_settings(MemoryConfig()).is_automatic


def test_rows_remover_groups_by_kind() -> None:
    calls: list[tuple[str, str, list[int]]] = []

    def remove(agent: str, kind: str, ids: object) -> int:
        calls.append((agent, kind, list(ids)))  # type: ignore[call-overload]
        return 0

    rows_remover(remove)(
        "a", [DerivedRow("episode", "1"), DerivedRow("pinned_fact", "2"), DerivedRow("episode", "3")]
    )
    assert sorted(calls) == [("a", "episode", [1, 3]), ("a", "pinned_fact", [2])]


def test_a_failing_callback_does_not_stop_the_others() -> None:
    seen: list[str] = []

    def broken(agent: str) -> None:
        raise RuntimeError("boom")

    hooks = CallbackHooks([broken, seen.append])
    hooks.distilled("a", None, CommitResult(1, (), ()), FactPlan((), (), 0))  # type: ignore[arg-type]
    hooks.transcript_written("b", "c", [1])
    hooks.rows_removed("c", [])
    assert seen == ["a", "b", "c"]


def test_rows_remover_skips_kinds_without_vectors() -> None:
    """Identity facts have no vectors; the real removal (VectorRegistry.remove) raised KeyError for them."""
    calls: list[tuple[str, list[int]]] = []

    def remove(agent: str, kind: str, ids: object) -> int:
        vector_id(kind, 0)  # the codec raises KeyError for a kind it has no code for, as the registry did
        calls.append((kind, list(ids)))  # type: ignore[call-overload]
        return 0

    rows_remover(remove)("a", [DerivedRow("identity_fact", "7"), DerivedRow("pinned_fact", "2")])
    assert calls == [("pinned_fact", [2])]


def test_a_failing_vector_removal_still_notifies() -> None:
    seen: list[str] = []

    def broken(agent: str, rows: object) -> None:
        raise RuntimeError("index file gone")

    CallbackHooks([seen.append], broken).rows_removed("a", [DerivedRow("episode", "1")])
    assert seen == ["a"]
