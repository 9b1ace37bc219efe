"""bench.seed_gate_memory against a real in-process memoryd: every gate_v2 item lands once, where the map says."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.gate_v2.loader import Profile, load_profiles
from bench.seed_gate_memory import SeededProfile, date_ms, seed_profile
from memoryd.retrieval.items import ItemKind
from tests.support.console_rig import ConsoleRig, console_rig

_KIND_NAME = {
    ItemKind.PINNED_FACT: "pinned_fact",
    ItemKind.EPISODE: "episode",
    ItemKind.TRANSCRIPT_TURN: "transcript",
    ItemKind.IDENTITY_FACT: "identity_fact",
}


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[ConsoleRig]:
    with console_rig(tmp_path) as r:
        yield r


@pytest.fixture(scope="module")
def profiles() -> dict[str, Profile]:
    return load_profiles()


def _rows(rig: ConsoleRig, table: str, agent: str) -> list[tuple[object, ...]]:
    return rig.q(f"SELECT id, content, status FROM {table} WHERE agent_id = ? ORDER BY id", (agent,))


def _texts_by_ref(rig: ConsoleRig, seeded: SeededProfile) -> dict[str, list[str]]:
    """Data-set id → stored text of each of its rows, read straight from the store (not through the seeder)."""
    sql = {
        ItemKind.PINNED_FACT: "SELECT content, agent_id FROM pinned_facts WHERE id = ?",
        ItemKind.EPISODE: "SELECT summary, agent_id FROM episodes WHERE id = ?",
        ItemKind.TRANSCRIPT_TURN: "SELECT content, agent_id FROM transcript WHERE id = ?",
        ItemKind.IDENTITY_FACT: "SELECT content, agent_id FROM identity_facts WHERE id = ?",
    }
    out: dict[str, list[str]] = {}
    for item, refs in seeded.refs.items():
        for ref in refs:
            ((text, agent),) = rig.q(sql[ref.kind], (int(ref.id),))
            assert agent == seeded.agent_id
            out.setdefault(item, []).append(str(text))
    return out


def test_every_item_is_stored_once_where_the_map_says(rig: ConsoleRig, profiles: dict[str, Profile]) -> None:
    profile = profiles["en2"]
    seeded = seed_profile(rig.client, profile)
    texts = _texts_by_ref(rig, seeded)
    assert texts == {
        **{f.id: [f.text] for f in profile.identity},
        **{f.id: [f.text] for f in profile.pinned},
        **{e.id: [e.summary] for e in profile.episodes},
        **{t.id: [t.user, t.assistant] for t in profile.transcript},
    }
    assert len(_rows(rig, "pinned_facts", "en2")) == len(profile.pinned)
    assert len(rig.q("SELECT id FROM transcript WHERE agent_id = 'en2'")) == 2 * len(profile.transcript)
    assert rig.client.get_agent("en2").memory_enabled


def test_superseded_fact_is_disabled_and_its_replacement_newer(
    rig: ConsoleRig, profiles: dict[str, Profile]
) -> None:
    profile = profiles["en2"]
    seeded = seed_profile(rig.client, profile)
    old = rig.client.inspect("pinned_fact", int(seeded.refs["en2.p2"][0].id))
    new = rig.client.inspect("pinned_fact", int(seeded.refs["en2.p8"][0].id))
    assert old.is_disabled and not new.is_disabled
    assert new.created_at_ms > old.created_at_ms


def test_superseded_omit_and_active(tmp_path: Path, profiles: dict[str, Profile]) -> None:
    profile = profiles["en2"]
    with console_rig(tmp_path / "a") as rig:
        seeded = seed_profile(rig.client, profile, superseded="omit")
        assert "en2.p2" not in seeded.refs
        assert len(_rows(rig, "pinned_facts", "en2")) == len(profile.pinned) - 1
    with console_rig(tmp_path / "b") as rig:
        seeded = seed_profile(rig.client, profile, superseded="active")
        assert not rig.client.inspect("pinned_fact", int(seeded.refs["en2.p2"][0].id)).is_disabled


def test_times_follow_the_data_set_dates(rig: ConsoleRig, profiles: dict[str, Profile]) -> None:
    profile = profiles["fr1"]
    seeded = seed_profile(rig.client, profile)
    episode = profile.episodes[1]
    ((at_ms,),) = rig.q(
        "SELECT conversation_at_ms FROM episodes WHERE id = ?", (int(seeded.refs[episode.id][0].id),)
    )
    assert at_ms == date_ms(episode.date)
    turn = profile.transcript[0]
    ((created_ms,),) = rig.q(
        "SELECT created_at_ms FROM transcript WHERE id = ?", (int(seeded.refs[turn.id][0].id),)
    )
    assert created_ms == date_ms(turn.date)


def test_seeding_twice_stores_nothing_new(rig: ConsoleRig, profiles: dict[str, Profile]) -> None:
    profile = profiles["es1"]
    first = seed_profile(rig.client, profile)
    count = rig.q("SELECT COUNT(*) FROM transcript")[0][0]
    second = seed_profile(rig.client, profile)
    assert second.refs == first.refs
    assert rig.q("SELECT COUNT(*) FROM transcript")[0][0] == count


def test_two_profiles_stay_in_their_agents(rig: ConsoleRig, profiles: dict[str, Profile]) -> None:
    a = seed_profile(rig.client, profiles["de1"])
    b = seed_profile(rig.client, profiles["pt1"], agent_id="agent-pt1")
    assert not set(a.item_of()) & set(b.item_of())
    hits = rig.client.search("Snowflake", agent_id="agent-pt1")
    assert hits == []
    own = rig.client.search("Snowflake", agent_id="de1")
    assert own and {(h.kind, str(h.id)) for h in own} <= {(_KIND_NAME[r.kind], r.id) for r in a.item_of()}


def test_seeded_rows_get_vectors_on_import(rig: ConsoleRig, profiles: dict[str, Profile]) -> None:
    seeded = seed_profile(rig.client, profiles["en3"])
    for item in ("en3.p1", "en3.e1", "en3.t1"):
        ref = seeded.refs[item][0]
        assert rig.client.inspect(_KIND_NAME[ref.kind], int(ref.id)).has_vector, item


def test_transcript_through_ingest(rig: ConsoleRig, profiles: dict[str, Profile]) -> None:
    profile = profiles["de2"]
    seeded = seed_profile(rig.client, profile, transcript_via="ingest")
    texts = _texts_by_ref(rig, seeded)
    assert all(texts[t.id] == [t.user, t.assistant] for t in profile.transcript)
    # No distillation: no signals were queued and no episode beyond the seeded ones exists.
    assert rig.q("SELECT COUNT(*) FROM pending_signals")[0][0] == 0
    assert rig.q("SELECT COUNT(*) FROM episodes WHERE agent_id = 'de2'")[0][0] == len(profile.episodes)


def test_overrides_are_added_once(rig: ConsoleRig, profiles: dict[str, Profile]) -> None:
    profile = profiles["en1"]
    first = seed_profile(rig.client, profile, with_overrides=True)
    second = seed_profile(rig.client, profile, with_overrides=True)
    assert first.override_ids == second.override_ids and len(first.override_ids) == len(profile.overrides)
    assert [o.text for o in rig.client.identity().overrides] == list(profile.overrides)


def test_every_profile_seeds(rig: ConsoleRig, profiles: dict[str, Profile]) -> None:
    for profile in profiles.values():
        seeded = seed_profile(rig.client, profile)
        n_items = (
            len(profile.identity) + len(profile.pinned) + len(profile.episodes) + len(profile.transcript)
        )
        assert len(seeded.refs) == n_items, profile.profile
