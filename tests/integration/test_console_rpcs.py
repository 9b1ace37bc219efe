"""MemoryConsoleService over gRPC on a real memoryd: inspect, search, disable/enable, forget, clear, preview, errors."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import grpc
import numpy as np
import pytest

from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.read.assemble import ReadPath, ReadPathSettings
from memoryd.retrieval.gate import GateMode
from memoryd.retrieval.items import IdentitySnapshot, Section
from memoryd.vectors.agent_index import AgentIndex
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb
from servicekit.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError
from tests.fakes.fake_inferd import fake_vector
from tests.fakes.memory_reader import InMemoryReader
from tests.support.console_rig import ConsoleRig, console_rig
from tests.support.memoryd_server import enable_recall, rpc_error, search
from tests.support.secret_corpus import ORDINARY, SECRETS


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[ConsoleRig]:
    with console_rig(tmp_path) as r:
        yield r


def _leaks(text: str) -> list[str]:
    return [shape for shape, _, secret in SECRETS if secret in text]


def _seed_secrets(rig: ConsoleRig) -> list[tuple[str, int]]:
    """Every secret sentence once as a pinned fact, an episode (summary and topics) and a transcript turn."""
    refs: list[tuple[str, int]] = []
    for shape, text, _secret in SECRETS:
        refs.append((KIND_PINNED, rig.pinned("vault", f"ledger note: {text}", tags=text[:200])))
        refs.append(
            (KIND_EPISODE, rig.episode("vault", f"ledger summary {text}", topics=text, entities=shape))
        )
        refs.extend(
            (KIND_TRANSCRIPT, i) for i in rig.turn("vault", f"ledger turn {text}", conversation=shape)
        )
    return refs


# ----------------------------------------------------------------------------------------------- redaction
def test_inspect_never_leaks_a_secret_in_preview_or_metadata(rig: ConsoleRig) -> None:
    refs = _seed_secrets(rig)
    assert len(refs) >= 3 * 40
    for kind, row_id in refs:
        found = rig.client.inspect(kind, row_id)
        shown = found.preview + "\n" + "\n".join(found.metadata.values())
        assert _leaks(shown) == [], (kind, row_id)
        assert found.redactions, (kind, row_id)
        assert found.agent_id == "vault"


def test_ordinary_text_is_shown_unredacted(rig: ConsoleRig) -> None:
    for text in ORDINARY:
        found = rig.client.inspect(KIND_PINNED, rig.pinned("plain", text))
        assert (found.preview, found.redactions) == (text, ())
    hits = rig.client.search("2024", agent_id="plain", limit=50)
    assert hits and all(h.preview in ORDINARY for h in hits)


def test_search_previews_never_leak_a_secret(rig: ConsoleRig) -> None:
    refs = _seed_secrets(rig)
    hits = rig.client.search("ledger", limit=200)
    assert len(hits) == min(200, len(refs))
    assert all(_leaks(h.preview) == [] for h in hits)
    for scope in ("pinned", "episodes", "transcript"):
        scoped = rig.client.search("ledger", scope=scope, limit=200)
        assert scoped and all(_leaks(h.preview) == [] for h in scoped)


def test_preview_context_is_redacted_and_capped(rig: ConsoleRig) -> None:
    reader = InMemoryReader(
        identity_snapshot=IdentitySnapshot(overrides=("My backup email is ops@example.org",))
    )
    for _shape, text, _secret in SECRETS:
        reader.add("vault", Section.EPISODES, f"ledger {text}")
    read_path = ReadPath(
        reader, lambda: ReadPathSettings(is_enabled=True, gate_mode=GateMode.OFF, budget_tokens=800)
    )
    rig.memoryd.app.console.attach_read_path(read_path, read_path.invalidate)
    preview = rig.client.preview_context("vault", "what is in the ledger", 4000)
    assert preview.section == "episodes"
    assert preview.block and preview.block_tokens > 0
    assert _leaks(preview.block) == [] and "ops@example.org" not in preview.block
    assert "[redacted" in preview.block
    small = rig.client.preview_context("vault", "what is in the ledger", 20)
    assert len(small.block) <= 20 * 4


# ---------------------------------------------------------------------------------------------- search
def test_search_scopes_agent_filter_and_disabled_rows(rig: ConsoleRig) -> None:
    fact = rig.pinned("alpha", "Alpha prefers green tea in the morning")
    episode = rig.episode("alpha", "Talked about green tea varieties", topics="tea")
    (turn,) = rig.turn("beta", "I brewed green tea yesterday")
    everything = {(h.kind, h.id) for h in rig.client.search("green tea")}
    assert everything == {(KIND_PINNED, fact), (KIND_EPISODE, episode), (KIND_TRANSCRIPT, turn)}
    assert [(h.kind, h.id) for h in rig.client.search("green tea", scope="pinned")] == [(KIND_PINNED, fact)]
    assert {h.agent_id for h in rig.client.search("green tea", agent_id="beta")} == {"beta"}
    assert rig.client.disable(KIND_PINNED, fact)
    assert (KIND_PINNED, fact) not in {(h.kind, h.id) for h in rig.client.search("green tea")}
    shown = {(h.kind, h.id): h for h in rig.client.search("green tea", include_disabled=True)}
    assert shown[(KIND_PINNED, fact)].is_disabled


def test_search_without_terms_falls_back_to_literal_text(rig: ConsoleRig) -> None:
    (turn,) = rig.turn("alpha", "the ratio was 3:2 ;-)")
    assert [(h.kind, h.id) for h in rig.client.search(";-)")] == [(KIND_TRANSCRIPT, turn)]


# --------------------------------------------------------------------------------------- disable / enable
def test_disable_takes_rows_out_of_recall_and_enable_restores_them(rig: ConsoleRig) -> None:
    enable_recall(rig.memoryd.memory, "alpha")
    fact = rig.pinned("alpha", "Alpha keeps a sourdough starter named Bubbles")
    episode = rig.episode("alpha", "Discussed the sourdough starter feeding schedule")
    rig.index()

    def found(scope: int) -> list[str]:
        return [h.item.id for h in search(rig.memoryd.memory, "alpha", "sourdough starter", scope=scope).hits]

    assert found(mpb.SCOPE_PINNED) == [str(fact)] and found(mpb.SCOPE_EPISODES) == [str(episode)]
    assert rig.client.disable(KIND_PINNED, fact) is True
    assert rig.client.disable(KIND_PINNED, fact) is False
    assert rig.client.disable(KIND_EPISODE, episode) is True
    assert found(mpb.SCOPE_PINNED) == [] and found(mpb.SCOPE_EPISODES) == []
    inspected = rig.client.inspect(KIND_PINNED, fact)
    assert inspected.is_disabled and inspected.has_vector  # row and vector kept
    assert rig.client.enable(KIND_PINNED, fact) is True
    assert rig.client.enable(KIND_PINNED, fact) is False
    assert rig.client.enable(KIND_EPISODE, episode) is True
    assert found(mpb.SCOPE_PINNED) == [str(fact)] and found(mpb.SCOPE_EPISODES) == [str(episode)]


def test_transcript_and_identity_facts_are_not_disableable(rig: ConsoleRig) -> None:
    (turn,) = rig.turn("alpha", "hello there")
    fact = rig.identity_fact("alpha", "The user lives in Lisbon")
    for kind, row_id in ((KIND_TRANSCRIPT, turn), ("identity_fact", fact)):
        with pytest.raises(FailedPreconditionError) as caught:
            rig.client.disable(kind, row_id)
        assert caught.value.reason == "NOT_DISABLEABLE"
        assert "Forget" in caught.value.message


# ------------------------------------------------------------------------------------------------ forget
def test_forget_leaves_no_trace_in_fts_embeddings_or_faiss(rig: ConsoleRig, tmp_path: Path) -> None:
    enable_recall(rig.memoryd.memory, "alpha")
    secret_fact = rig.pinned("alpha", "The spare key hides under the blue flowerpot")
    rig.pinned("alpha", "Alpha drives an old red car")
    (turn,) = rig.turn("alpha", "Remember: the spare key hides under the blue flowerpot")
    assert rig.index() == 3
    app = rig.memoryd.app
    app.vectors.flush()
    model = app.config.get().embedding_model
    query = fake_vector("spare key blue flowerpot").reshape(1, -1)
    assert secret_fact in [i for i, _ in app.vectors.search("alpha", KIND_PINNED, model, query, 10)]

    assert rig.client.forget(KIND_PINNED, secret_fact) is True
    assert rig.client.forget(KIND_TRANSCRIPT, turn) is True

    assert rig.q("SELECT count(*) FROM fts_pinned WHERE fts_pinned MATCH 'flowerpot'") == [(0,)]
    assert rig.q("SELECT count(*) FROM fts_transcript WHERE fts_transcript MATCH 'flowerpot'") == [(0,)]
    assert rig.q(
        "SELECT count(*) FROM embeddings WHERE (kind, row_id) IN (VALUES ('pinned_fact', ?), ('transcript', ?))",
        (secret_fact, turn),
    ) == [(0,)]
    assert secret_fact not in [i for i, _ in app.vectors.search("alpha", KIND_PINNED, model, query, 10)]
    on_disk = AgentIndex.load(app.vectors.directory("alpha"))
    assert on_disk is not None
    assert secret_fact not in [i for i, _ in on_disk.search(KIND_PINNED, query, 10)]
    assert turn not in [i for i, _ in on_disk.search(KIND_TRANSCRIPT, query, 10)]
    for scope in (mpb.SCOPE_PINNED, mpb.SCOPE_TRANSCRIPT):
        texts = [h.text for h in search(rig.memoryd.memory, "alpha", "spare key flowerpot", scope=scope).hits]
        assert not any("flowerpot" in t for t in texts)
    assert rig.client.search("flowerpot") == []
    with pytest.raises(NotFoundError):
        rig.client.inspect(KIND_PINNED, secret_fact)
    diagnosis = rig.client.diagnose()
    assert all(f.is_healthy for f in diagnosis.fts)
    assert not any(v.is_stale for v in diagnosis.vector_indexes)


def test_forget_a_row_whose_index_is_only_on_disk(rig: ConsoleRig) -> None:
    fact = rig.pinned("alpha", "A fact indexed then unloaded")
    rig.index()
    app = rig.memoryd.app
    app.vectors.flush()
    with app.vectors._lock:  # simulate a restart: the index is on disk only
        app.vectors._indexes.clear()
    assert rig.client.forget(KIND_PINNED, fact) is True
    on_disk = AgentIndex.load(app.vectors.directory("alpha"))
    assert on_disk is not None and on_disk.count == 0


# -------------------------------------------------------------------------------------------- clear all
def test_clear_all_needs_confirmation_then_removes_everything(rig: ConsoleRig) -> None:
    rig.pinned("alpha", "fact one")
    rig.episode("alpha", "episode one")
    rig.turn("alpha", "turn one", "reply one")
    rig.memoryd.memory.AddOverride(mpb.AddOverrideRequest(text="Always answer briefly"), timeout=10)
    rig.index()
    rig.memoryd.app.vectors.flush()
    with pytest.raises(FailedPreconditionError) as caught:
        rig.client.clear_all(confirm=False)
    assert caught.value.reason == "CONFIRMATION_REQUIRED"
    assert rig.q("SELECT count(*) FROM pinned_facts") == [(1,)]
    deleted = rig.client.clear_all(confirm=True)
    assert deleted >= 1 + 1 + 2 + 1 + 4 + 1  # fact, episode, 2 turns, signal, 4 vectors, identity
    for table in (
        "pinned_facts",
        "episodes",
        "transcript",
        "pending_signals",
        "embeddings",
        "identity_facts",
    ):
        assert rig.q(f"SELECT count(*) FROM {table}") == [(0,)], table
    assert rig.client.identity().overrides == ()
    assert not rig.memoryd.app.vectors.directory("alpha").exists()
    assert [a.agent_id for a in rig.client.list_agents()] == ["alpha"]  # settings survive
    assert all(f.is_healthy for f in rig.client.diagnose().fts)


# --------------------------------------------------------------------------------------------- bad input
def test_bad_requests_are_invalid_argument_and_missing_rows_not_found(rig: ConsoleRig) -> None:
    console = rig.memoryd.console
    unknown_kind: Any = 99
    inspects = [
        cpb.InspectRequest(),
        cpb.InspectRequest(item=mpb.ItemRef(kind=mpb.ITEM_KIND_PINNED_FACT, id="abc")),
        cpb.InspectRequest(item=mpb.ItemRef(kind=mpb.ITEM_KIND_PINNED_FACT, id="-3")),
        cpb.InspectRequest(item=mpb.ItemRef(kind=unknown_kind, id="3")),
    ]
    searches = [
        cpb.SearchRequest(),
        cpb.SearchRequest(query="x", limit=500),
        cpb.SearchRequest(query="x", agent_id="a b"),
    ]
    previews = [
        cpb.PreviewContextRequest(agent_id="a", query="q"),
        cpb.PreviewContextRequest(query="q", max_tokens=5),
    ]
    calls: list[Callable[[], Any]] = [
        *(partial(console.Inspect, r, timeout=10) for r in inspects),
        *(partial(console.Search, r, timeout=10) for r in searches),
        *(partial(console.PreviewContext, r, timeout=10) for r in previews),
    ]
    for call in calls:
        assert isinstance(rpc_error(call), InvalidArgumentError), call
    missing = mpb.ItemRef(kind=mpb.ITEM_KIND_EPISODE, id="424242")
    for call in (
        lambda: console.Inspect(cpb.InspectRequest(item=missing), timeout=10),
        lambda: console.Disable(cpb.DisableRequest(item=missing), timeout=10),
        lambda: console.Enable(cpb.EnableRequest(item=missing), timeout=10),
        lambda: console.Forget(cpb.ForgetRequest(item=missing), timeout=10),
    ):
        error = rpc_error(call)
        assert isinstance(error, NotFoundError) and error.reason == "ITEM_NOT_FOUND"
    with pytest.raises(grpc.RpcError) as caught:
        console.Reindex(cpb.ReindexRequest(agent_id="nobody"), timeout=10)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def test_security_rpcs_reject_unset_enums_and_a_healthy_reset(rig: ConsoleRig) -> None:
    console = rig.memoryd.console
    for call in (
        lambda: console.RecoverStore(cpb.RecoverStoreRequest(), timeout=10),
        lambda: console.SetEncryption(cpb.SetEncryptionRequest(), timeout=10),
    ):
        error = rpc_error(call)
        assert isinstance(error, InvalidArgumentError) and error.reason == "MISSING_FIELD"
    error = rpc_error(lambda: console.RotateKey(cpb.RotateKeyRequest(), timeout=10))
    assert isinstance(error, FailedPreconditionError) and error.reason == "NOT_ENCRYPTED"
    reset = cpb.RecoverStoreRequest(action=cpb.RECOVERY_ACTION_RESET, confirm=True)
    error = rpc_error(lambda: console.RecoverStore(reset, timeout=10))
    assert isinstance(error, FailedPreconditionError) and error.reason == "STORE_NOT_DEGRADED"


def test_inspect_shows_metadata_and_vector_state(rig: ConsoleRig) -> None:
    episode = rig.episode("alpha", "Planned the trip to Kyoto", topics="travel,japan", entities="Kyoto")
    before = rig.client.inspect(KIND_EPISODE, episode)
    assert before.has_vector is False
    assert before.metadata["topics"] == "travel,japan" and before.metadata["conversation_id"] == "c1"
    assert before.metadata["status"] == "active"
    assert before.metadata["conversation_at"].endswith("Z")
    rig.index()
    after = rig.client.inspect(KIND_EPISODE, episode)
    assert after.has_vector and after.metadata["vector_model"] == rig.inferd.model
    assert np.isfinite(after.created_at_ms)


def test_inspect_shows_the_source_turns_of_a_derived_row_redacted(rig: ConsoleRig) -> None:
    secret = next(s for shape, _, s in SECRETS)
    turns = rig.turn("prov", f"I moved to Porto last month, my key is {secret}", conversation="c1")
    fact = rig.pinned("prov", "The user lives in Porto.")
    with rig.memoryd.app.store.db.write():
        rig.memoryd.app.store.db.execute(
            "UPDATE pinned_facts SET source_turn_ids = ? WHERE id = ?", (",".join(map(str, turns)), fact)
        )
    found = rig.client.inspect(KIND_PINNED, fact)
    assert [t.id for t in found.source_turns] == list(turns)
    assert found.source_turns[0].role == "user" and "Porto" in found.source_turns[0].preview
    assert all(secret not in t.preview for t in found.source_turns)
    # A transcript row has no provenance of its own.
    assert rig.client.inspect(KIND_TRANSCRIPT, turns[0]).source_turns == ()
