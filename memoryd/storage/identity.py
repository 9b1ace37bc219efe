"""The identity row (overrides JSON with ids, imported narrative), per-agent narratives and identity_facts."""

from __future__ import annotations

import json
import uuid
from typing import Any

from memoryd.domain import IdentityFactRecord, IdentityRecord, OverrideRecord, now_ms
from memoryd.storage.handle import Database
from memoryd.storage.tables import Tables


def parse_overrides(raw: str) -> list[dict[str, Any]]:
    """The overrides JSON as a list of {id, text, created_at_ms} (a plain string array tolerated, junk dropped)."""
    try:
        items = json.loads(raw or "[]")
    except ValueError:
        return []
    result: list[dict[str, Any]] = []
    for position, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, str):  # tolerate the reference app's plain string array
            item = {"id": f"legacy-{position}", "text": item, "created_at_ms": 0}
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            result.append(item)
    return result


class IdentityStore:
    """Reads and edits identity; overrides are user-authored and never mixed with derived facts."""

    def __init__(self, db: Database, tables: Tables) -> None:
        self._db = db
        self._t = tables

    def _row(self) -> Any:
        row = self._t.Identity.get_or_none(self._t.Identity.id == 1)
        if row is None:
            self._t.Identity.insert(id=1).on_conflict_ignore().execute()
            row = self._t.Identity.get(self._t.Identity.id == 1)
        return row

    def get(self, agent_id: str | None = None) -> IdentityRecord:
        """Overrides, a narrative and active identity facts: the global row and every agent's facts, or (with
        `agent_id`) that agent's narrative and facts, the global narrative in shared_content. One read snapshot."""
        fact = self._t.IdentityFact
        with self._db.read():
            row = self._t.Identity.get_or_none(self._t.Identity.id == 1)
            query = fact.select().where(fact.status == "active")
            if agent_id is not None:
                query = query.where(fact.agent_id == agent_id)
            facts = list(query.order_by(fact.id))
            own = (
                self._t.AgentNarrative.get_or_none(self._t.AgentNarrative.agent_id == agent_id)
                if agent_id is not None
                else None
            )
        overrides = tuple(
            OverrideRecord(str(o.get("id", "")), o["text"], int(o.get("created_at_ms", 0) or 0))
            for o in parse_overrides(row.overrides if row is not None else "[]")
        )
        records = tuple(
            IdentityFactRecord(
                id=str(f.id),
                text=f.content,
                source_agent_id=f.agent_id,
                source_episode_id=int(f.source_episode_id or 0),
                source_count=f.source_count,
                created_at_ms=f.created_at_ms,
            )
            for f in facts
        )
        shared = row.content if row is not None else ""
        if agent_id is not None:
            return IdentityRecord(
                overrides=overrides,
                content=own.content if own is not None else "",
                facts=records,
                model=own.model if own is not None else "",
                generated_at_ms=own.generated_at_ms if own is not None else 0,
                version=own.version if own is not None else 0,
                agent_id=agent_id,
                shared_content=shared,
            )
        if row is None:
            return IdentityRecord(facts=records)
        return IdentityRecord(
            overrides=overrides,
            content=shared,
            facts=records,
            model=row.model,
            generated_at_ms=row.generated_at_ms,
            version=row.version,
        )

    def add_override(self, text: str) -> OverrideRecord:
        """Append one override with a new id."""
        record = OverrideRecord(id=str(uuid.uuid4()), text=text, created_at_ms=now_ms())
        with self._db.write():
            row = self._row()
            items = parse_overrides(row.overrides)
            items.append({"id": record.id, "text": record.text, "created_at_ms": record.created_at_ms})
            self._t.Identity.update(overrides=json.dumps(items, ensure_ascii=False)).where(
                self._t.Identity.id == 1
            ).execute()
        return record

    def remove_override(self, override_id: str) -> bool:
        """Remove one override by id; False when no override has that id."""
        with self._db.write():
            row = self._row()
            items = parse_overrides(row.overrides)
            kept = [o for o in items if str(o.get("id")) != override_id]
            if len(kept) == len(items):
                return False
            self._t.Identity.update(overrides=json.dumps(kept, ensure_ascii=False)).where(
                self._t.Identity.id == 1
            ).execute()
        return True
