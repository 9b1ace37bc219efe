"""Seed one gate_v2 memory profile into a running memoryd over gRPC and map the data set's item ids to stored rows.

Everything goes through public RPCs, as an operator's tools would: UpsertAgent for the agent, the console's Import
(docs/export-format.md) for episodes, pinned facts, identity facts and — by default — transcript rows, Ingest with
`skip_extraction` for transcript rows when asked, AddOverride for overrides, and Export to read back the ids memoryd
gave each row (Import keeps or reassigns ids and does not report them).

Scope to know: identity facts belong to the agent, but memoryd's overrides and narrative are global, so a profile's
overrides reach every agent of that memoryd (seed overrides only when one profile is under test, or not at all).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, Literal

from bench.gate_v2.loader import Profile, TranscriptTurn
from memoryd.client import MemoryClient
from memoryd.retrieval.items import ItemKind, ItemRef
from memoryd.retrieval.tokens import estimate_tokens

FORMAT_NAME: Final = "osaurus-memory-export"
FORMAT_VERSION: Final = 1
#: Midday UTC, so a date stays the same calendar day in every time zone a reader might render it in.
_NOON_MS: Final = 12 * 3600 * 1000
#: Turns of one conversation are spaced a minute apart so their order survives any sort by time.
_TURN_STEP_MS: Final = 60 * 1000
_DEFAULT_SALIENCE: Final = 0.7

SupersededMode = Literal["disabled", "active", "omit"]
TranscriptPath = Literal["import", "ingest"]


@dataclass(frozen=True)
class SeededProfile:
    """What seeding stored: the agent, and for every data-set item id (e.g. "en1.p3") the rows that hold it.

    A pinned fact, episode or identity fact maps to one ItemRef; a transcript turn maps to its user row and, when
    the turn has an answer, its assistant row (memoryd stores one row per role). `override_ids` are the ids of
    the overrides added (global to the memoryd, see the module docstring).
    """

    agent_id: str
    refs: Mapping[str, tuple[ItemRef, ...]]
    override_ids: tuple[str, ...]

    def ref_ids(self, item_ids: Iterable[str]) -> frozenset[ItemRef]:
        """Every stored row behind these data-set ids (unknown ids, such as omitted superseded facts, add none)."""
        return frozenset(ref for item in item_ids for ref in self.refs.get(item, ()))

    def item_of(self) -> dict[ItemRef, str]:
        """Inverse map: stored row → data-set item id (to score which labelled items a block placed)."""
        return {ref: item for item, refs in self.refs.items() for ref in refs}


def date_ms(date: str) -> int:
    """'YYYY-MM-DD' → UTC epoch ms at midday of that day."""
    day = datetime.strptime(date, "%Y-%m-%d").replace(tzinfo=UTC)
    return int(day.timestamp() * 1000) + _NOON_MS


def conversation_id(profile: Profile, conversation: str) -> str:
    """Stored conversation id of one transcript conversation ("c1" of en1 → "en1-c1")."""
    return f"{profile.profile}-{conversation}"


def _episode_conversation(profile: Profile, date: str, episode_id: str) -> str:
    # An episode is the distillation of that day's conversation when there is one; else it stands alone.
    for turn in profile.transcript:
        if turn.date == date:
            return conversation_id(profile, turn.conversation)
    return f"{profile.profile}-{episode_id.rsplit('.', 1)[-1]}"


def _conversations(profile: Profile) -> dict[str, list[TranscriptTurn]]:
    out: dict[str, list[TranscriptTurn]] = {}
    for turn in profile.transcript:
        out.setdefault(conversation_id(profile, turn.conversation), []).append(turn)
    return out


def _first_and_last_ms(profile: Profile) -> tuple[int, int]:
    """The profile's first and last dated items (episodes, turns); now for a profile of facts only."""
    dates = [e.date for e in profile.episodes] + [t.date for t in profile.transcript]
    if not dates:
        now_ms = int(time.time() * 1000)
        return now_ms, now_ms
    return date_ms(min(dates)), date_ms(max(dates))


def _encode(record: Mapping[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def import_records(
    profile: Profile,
    agent_id: str,
    *,
    superseded: SupersededMode = "disabled",
    transcript_via: TranscriptPath = "import",
) -> Iterator[dict[str, Any]]:
    """The export-format records (header first) that put this profile's rows under `agent_id`; no ids, no vectors.

    Ids are left to memoryd and vectors to Import's re-embedding, so the records are valid for any store and any
    embedding model. Superseded pinned facts are stored disabled (they never count), active (to test that a gate
    ignores them on its own), or not at all.
    """
    first_ms, last_ms = _first_and_last_ms(profile)
    yield {
        "type": "header",
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "exported_at": datetime.now(tz=UTC).isoformat().replace("+00:00", "Z"),
        "agent_id": agent_id,
        "embedding_model": None,
    }
    for episode in profile.episodes:
        when_ms = date_ms(episode.date)
        text = " ".join((episode.summary, *episode.decisions, *episode.action_items))
        yield {
            "type": "episode",
            "agent_id": agent_id,
            "conversation_id": _episode_conversation(profile, episode.date, episode.id),
            "summary": episode.summary,
            "topics_csv": "",
            "entities_csv": ",".join(episode.entities),
            "decisions": "\n".join(episode.decisions),
            "action_items": "\n".join(episode.action_items),
            "salience": _DEFAULT_SALIENCE,
            "token_count": estimate_tokens(text),
            "conversation_at_ms": when_ms,
            "status": "active",
            "created_at_ms": when_ms,
        }
    replacing = {p.superseded_by for p in profile.pinned if p.superseded_by is not None}
    for fact in profile.pinned:
        if fact.superseded_by is not None and superseded == "omit":
            continue
        # A replaced fact is older than the fact that replaced it; everything else dates from the first day.
        stamp_ms = last_ms if fact.id in replacing else first_ms
        yield {
            "type": "pinned_fact",
            "agent_id": agent_id,
            "content": fact.text,
            "salience": _DEFAULT_SALIENCE,
            "status": "disabled" if fact.superseded_by is not None and superseded == "disabled" else "active",
            "created_at_ms": stamp_ms,
            "updated_at_ms": stamp_ms,
        }
    for identity_fact in profile.identity:
        yield {
            "type": "identity_fact",
            "agent_id": agent_id,
            "content": identity_fact.text,
            "status": "active",
            "created_at_ms": first_ms,
            "updated_at_ms": first_ms,
        }
    if transcript_via != "import":
        return
    for conversation, turns in _conversations(profile).items():
        for index, turn in enumerate(turns):
            stamp_ms = date_ms(turn.date) + index * _TURN_STEP_MS
            for chunk, role, text in (
                (2 * index, "user", turn.user),
                (2 * index + 1, "assistant", turn.assistant),
            ):
                if not text:
                    continue
                yield {
                    "type": "transcript",
                    "agent_id": agent_id,
                    "conversation_id": conversation,
                    "chunk_index": chunk,
                    "role": role,
                    "content": text,
                    "token_count": estimate_tokens(text),
                    "created_at_ms": stamp_ms,
                }


def _stored_ids(client: MemoryClient, agent_id: str) -> dict[str, dict[tuple[Any, ...], int]]:
    """Export the agent and index its rows by the same keys Import uses to spot identical rows."""
    keys: dict[str, dict[tuple[Any, ...], int]] = {
        "episode": {},
        "pinned_fact": {},
        "identity_fact": {},
        "transcript": {},
    }
    for line in client.export(agent_id):
        record = json.loads(line)
        kind = record.get("type")
        if kind == "episode":
            keys[kind][(record["conversation_id"], record["summary"])] = int(record["id"])
        elif kind in ("pinned_fact", "identity_fact"):
            keys[kind][(record["content"],)] = int(record["id"])
        elif kind == "transcript":
            keys[kind][(record["conversation_id"], record["chunk_index"])] = int(record["id"])
    return keys


class SeedError(RuntimeError):
    """A seeded item could not be found again in the agent's export (names the data-set id, never content)."""


def _map_refs(
    profile: Profile, stored: Mapping[str, Mapping[tuple[Any, ...], int]], superseded: SupersededMode
) -> dict[str, tuple[ItemRef, ...]]:
    wanted: list[tuple[str, ItemKind, str, tuple[Any, ...]]] = []
    for episode in profile.episodes:
        conv = _episode_conversation(profile, episode.date, episode.id)
        wanted.append((episode.id, ItemKind.EPISODE, "episode", (conv, episode.summary)))
    for fact in profile.pinned:
        if fact.superseded_by is None or superseded != "omit":
            wanted.append((fact.id, ItemKind.PINNED_FACT, "pinned_fact", (fact.text,)))
    wanted.extend((f.id, ItemKind.IDENTITY_FACT, "identity_fact", (f.text,)) for f in profile.identity)
    refs: dict[str, tuple[ItemRef, ...]] = {}
    for item_id, kind, table, key in wanted:
        row_id = stored[table].get(key)
        if row_id is None:
            raise SeedError(f"seeded item {item_id} is missing from the export")
        refs[item_id] = (ItemRef(kind, str(row_id)),)
    for conversation, turns in _conversations(profile).items():
        for index, turn in enumerate(turns):
            chunks = [2 * index] + ([2 * index + 1] if turn.assistant else [])
            found = [stored["transcript"].get((conversation, chunk)) for chunk in chunks]
            if any(row_id is None for row_id in found):
                raise SeedError(f"seeded item {turn.id} is missing from the export")
            refs[turn.id] = tuple(ItemRef(ItemKind.TRANSCRIPT_TURN, str(r)) for r in found)
    return refs


def _ingest_transcript(client: MemoryClient, profile: Profile, agent_id: str) -> None:
    for conversation, turns in _conversations(profile).items():
        client.ingest(
            agent_id,
            conversation,
            [(t.user, t.assistant) for t in turns],
            session_time_ms=date_ms(turns[0].date),
            skip_extraction=True,
        )


def _add_overrides(client: MemoryClient, texts: Sequence[str]) -> tuple[str, ...]:
    present = {o.text: o.id for o in client.identity().overrides}
    ids = []
    for text in texts:
        ids.append(present[text] if text in present else client.add_override(text).id)
    return tuple(ids)


def seed_profile(
    client: MemoryClient,
    profile: Profile,
    *,
    agent_id: str | None = None,
    superseded: SupersededMode = "disabled",
    transcript_via: TranscriptPath = "import",
    with_overrides: bool = False,
) -> SeededProfile:
    """Store one profile under `agent_id` (default: the profile id) and return where each item landed.

    Idempotent: seeding the same profile twice stores nothing new (Import skips identical rows and the map is the
    same; Ingest replaces each conversation, so with `"ingest"` the transcript rows get new ids). `transcript_via="import"` stores turns with their vectors embedded
    during the import; `"ingest"` sends each conversation through Ingest without distillation, as a client would,
    leaving embedding to memoryd's background indexer.
    """
    agent = agent_id or profile.profile
    client.upsert_agent(agent, display_name=f"gate_v2 {profile.profile}", memory_enabled=True)
    lines = (
        _encode(r)
        for r in import_records(profile, agent, superseded=superseded, transcript_via=transcript_via)
    )
    client.import_lines(lines)
    if transcript_via == "ingest":
        _ingest_transcript(client, profile, agent)
    refs = _map_refs(profile, _stored_ids(client, agent), superseded)
    override_ids = _add_overrides(client, profile.overrides) if with_overrides else ()
    return SeededProfile(agent_id=agent, refs=refs, override_ids=override_ids)


__all__ = [
    "SeedError",
    "SeededProfile",
    "conversation_id",
    "date_ms",
    "import_records",
    "seed_profile",
]
