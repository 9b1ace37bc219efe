"""daily-brief: an example plugin that streams a short brief built from the agent's recent episodes.

Command
  brief {"focus": str?, "max_items": int?} -> {"brief", "episodes_used", "memory_search", "memory"}

It needs `inference`; with `memory_search` (and the agent's Memory Recall on) it also reads recent episodes.
Without them it still writes a brief, from whatever memory the host injects.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from plugin_host.sdk import (
    Context,
    GenerationOptions,
    MemoryHit,
    Message,
    Payload,
    Permission,
    PermissionDeniedError,
    Plugin,
    Scope,
    UnavailableError,
    command,
)


class DailyBrief(Plugin):
    """Asks memory for recent episodes, then streams a brief from the model."""

    name = "daily-brief"
    version = "0.1.0"
    description = "A short morning brief from what the agent discussed recently"
    permissions = (Permission.INFERENCE, Permission.MEMORY_SEARCH)
    agents = ("*",)

    @command(
        payload_schema={
            "type": "object",
            "properties": {"focus": {"type": "string", "maxLength": 200}, "max_items": {"type": "integer"}},
        }
    )
    def brief(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Write today's brief."""
        focus = payload.get("focus") or "open tasks, decisions and follow-ups"
        episodes, search_status = self._recent_episodes(ctx, focus, int(payload.get("max_items", 5)))
        today = datetime.now(UTC).strftime("%A %d %B %Y")
        context = "\n".join(f"- {_when(h)}{h.text}" for h in episodes) or "(no recent episodes available)"
        stream = ctx.stream(
            [
                Message.system("You write a brief, friendly morning summary in at most five bullet points."),
                Message.user(f"Today is {today}. Focus on {focus}.\nRecent conversations:\n{context}"),
            ],
            options=GenerationOptions(max_tokens=300, temperature=0.3),
        )
        text = "".join(stream)
        memory = stream.memory
        return {
            "brief": text,
            "episodes_used": len(episodes),
            "memory_search": search_status,
            "memory": {"injected": memory.injected, "reason": memory.reason} if memory else None,
        }

    def _recent_episodes(self, ctx: Context, focus: str, limit: int) -> tuple[list[MemoryHit], str]:
        try:
            hits = ctx.search_memory(Scope.EPISODES, focus, limit=max(1, min(limit, 20)))
        except PermissionDeniedError as error:
            return [], f"denied:{error.reason}"
        except UnavailableError as error:
            return [], f"unavailable:{error.reason}"
        hits.sort(key=lambda h: h.occurred_at or datetime.min.replace(tzinfo=UTC), reverse=True)
        return hits, "ok"


def _when(hit: MemoryHit) -> str:
    return f"[{hit.occurred_at:%Y-%m-%d}] " if hit.occurred_at else ""
