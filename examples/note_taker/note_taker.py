"""note-taker: an example plugin that files notes with a model-written title and answers questions about them.

Commands
  add     {"text": str, "tags": [str]?}   -> {"id", "title", "tags"}
  list    {"tag": str?}                   -> {"notes": [...]}
  ask     {"question": str}               -> {"answer", "memory"}   (the agent's memory is injected by the host)
  recall  {"query": str}                  -> {"hits": [...]} or {"hits": [], "note": why}
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from plugin_host.sdk import (
    Context,
    GenerationOptions,
    InvalidPayloadError,
    Message,
    Payload,
    Permission,
    PermissionDeniedError,
    Plugin,
    Scope,
    command,
)

TITLE_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "maxLength": 80},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["title", "tags"],
}
MAX_NOTES_IN_PROMPT = 50


class NoteTaker(Plugin):
    """Notes live in the plugin's data dir, one JSON line each, with the agent that wrote them."""

    name = "note-taker"
    version = "0.1.0"
    description = "Keeps titled, tagged notes per agent and answers questions about them"
    permissions = (Permission.INFERENCE, Permission.MEMORY_SEARCH)
    agents = ("*",)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._path: Path | None = None

    def setup(self, data_dir: Path) -> None:
        self._path = data_dir / "notes.jsonl"
        self._path.touch(exist_ok=True)

    @command(
        payload_schema={
            "type": "object",
            "required": ["text"],
            "properties": {"text": {"type": "string", "maxLength": 10000}, "tags": {"type": "array"}},
        }
    )
    def add(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """File a note; the model writes its title and tags."""
        text = payload["text"].strip()
        if not text:
            raise InvalidPayloadError("text must not be empty")
        title, tags = self._title(ctx, text)
        tags = sorted({*tags, *(str(t) for t in payload.get("tags", []))})
        with self._lock:
            notes = self._read()
            note = {"id": len(notes) + 1, "agent": ctx.agent_id, "title": title, "tags": tags, "text": text,
                    "created_at": time.time()}  # fmt: skip
            with self._notes_path().open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(note) + "\n")
        return {"id": note["id"], "title": title, "tags": tags}

    @command(name="list", payload_schema={"type": "object", "properties": {"tag": {"type": "string"}}})
    def list_notes(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """This agent's notes, newest first, optionally with one tag."""
        tag = payload.get("tag")
        notes = [n for n in self._read() if n["agent"] == ctx.agent_id and (tag is None or tag in n["tags"])]
        return {"notes": [{k: n[k] for k in ("id", "title", "tags", "text")} for n in reversed(notes)]}

    @command(
        payload_schema={
            "type": "object",
            "required": ["question"],
            "properties": {"question": {"type": "string"}},
        }
    )
    def ask(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Answer a question from this agent's notes (and, through the host, the agent's memory)."""
        notes = [n for n in self._read() if n["agent"] == ctx.agent_id][-MAX_NOTES_IN_PROMPT:]
        listing = "\n".join(f"- {n['title']}: {n['text']}" for n in notes) or "(no notes yet)"
        reply = ctx.complete(
            [
                Message.system("Answer from the user's notes. Say so when the notes do not cover it."),
                Message.user(f"My notes:\n{listing}\n\nQuestion: {payload['question']}"),
            ],
            options=GenerationOptions(max_tokens=256),
        )
        return {
            "answer": reply.text,
            "memory": {"injected": reply.memory.injected, "reason": reply.memory.reason},
        }

    @command(
        payload_schema={"type": "object", "required": ["query"], "properties": {"query": {"type": "string"}}}
    )
    def recall(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Search the agent's pinned facts; explains instead of failing when recall is not allowed."""
        try:
            hits = ctx.search_memory(Scope.PINNED, payload["query"], limit=5)
        except PermissionDeniedError as error:
            return {"hits": [], "note": f"memory search unavailable ({error.reason})"}
        return {"hits": [{"text": h.text, "score": round(h.score, 3)} for h in hits]}

    def _title(self, ctx: Context, text: str) -> tuple[str, list[str]]:
        """Ask the model for a title and tags as JSON; fall back to the first line if it answers otherwise."""
        reply = ctx.complete(
            [Message.user(f"Give this note a short title and up to three tags.\n\nNote: {text}")],
            json_schema=TITLE_SCHEMA,
            options=GenerationOptions(max_tokens=96, temperature=0.0),
        )
        try:
            parsed = json.loads(reply.text)
            title = str(parsed["title"]).strip()[:80]
            tags = [str(t).lower() for t in parsed.get("tags", [])][:3]
            if title:
                return title, tags
        except (ValueError, KeyError, TypeError, AttributeError):
            ctx.logger.info("model did not return a JSON title; using the note's first line")
        return text.splitlines()[0][:60], []

    def _notes_path(self) -> Path:
        if self._path is None:
            raise RuntimeError("setup() has not run")
        return self._path

    def _read(self) -> list[dict[str, Any]]:
        lines = self._notes_path().read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]
