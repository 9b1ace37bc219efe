"""RecordingContext: an in-memory Context for unit-testing plugin commands without a host, memory or a model.

    from plugin_host.sdk.testing import RecordingContext, run_command

    def test_summarise() -> None:
        ctx = RecordingContext(replies=["a short summary"], permissions={Permission.INFERENCE})
        result = run_command(MyPlugin(), ctx, "summarise", {"text": "..."})
        assert result == {"summary": "a short summary"}
        assert ctx.completions[0][-1].content.endswith("...")

It enforces the same rules as the host: inference needs Permission.INFERENCE, search_memory needs
Permission.MEMORY_SEARCH and `memory_recall=True`, and only `allowed_agents` may be acted for.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from plugin_host.sdk._context import Chat, Context, as_messages
from plugin_host.sdk._errors import PermissionDeniedError
from plugin_host.sdk._plugin import Payload, Plugin, decode_payload, encode_result
from plugin_host.sdk._types import (
    Completion,
    CompletionStream,
    GenerationOptions,
    MemoryHit,
    MemoryTrace,
    Message,
    Permission,
    Scope,
)

#: A scripted model: a list of replies used in order, or a function of the messages.
Replies = Sequence[str] | Callable[[list[Message]], str]


def _no_memory(recorded: bool) -> MemoryTrace:
    return MemoryTrace(injected=False, section="none", reason="testing", block_tokens=0, recorded=recorded)


class RecordingContext(Context):
    """A Context whose model is scripted and whose calls are recorded in `completions` and `searches`."""

    def __init__(
        self,
        *,
        agent_id: str = "test-agent",
        conversation_id: str = "test-conversation",
        plugin_name: str = "test-plugin",
        replies: Replies = (),
        hits: Mapping[Scope, Sequence[MemoryHit]] | None = None,
        permissions: Collection[Permission] = (Permission.INFERENCE,),
        allowed_agents: Collection[str] | None = None,
        memory_recall: bool = False,
        data_dir: Path | None = None,
    ) -> None:
        super().__init__(
            agent_id=agent_id,
            conversation_id=conversation_id,
            plugin_name=plugin_name,
            data_dir=data_dir or Path(tempfile.mkdtemp(prefix="plugin-test-")),
        )
        self._replies = replies
        self._reply_index = 0
        self._hits = dict(hits or {})
        self._permissions = frozenset(Permission(p) for p in permissions)
        self._allowed = frozenset(allowed_agents) if allowed_agents is not None else frozenset({agent_id})
        self._memory_recall = memory_recall
        self.completions: list[list[Message]] = []
        """The messages of every complete()/stream() call, in order."""
        self.searches: list[tuple[Scope, str]] = []
        """(scope, query) of every search_memory() call."""
        self.recorded: list[bool] = []
        """Per complete()/stream() call, whether the host would have recorded it as a turn."""

    def complete(
        self,
        messages: Chat,
        *,
        options: GenerationOptions | None = None,
        json_schema: Mapping[str, Any] | str | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        timeout_s: float | None = None,
        record: bool | None = None,
    ) -> Completion:
        self._check(Permission.INFERENCE, agent_id)
        chat = as_messages(messages)
        self.completions.append(chat)
        # The host's rule (plugin_host.requests.should_record): as asked, else plain chat calls only.
        recorded = record if record is not None else not json_schema
        self.recorded.append(recorded)
        return Completion(self._next_reply(chat), _no_memory(recorded))

    def stream(
        self,
        messages: Chat,
        *,
        options: GenerationOptions | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        timeout_s: float | None = None,
        record: bool | None = None,
    ) -> CompletionStream:
        completion = self.complete(messages, options=options, agent_id=agent_id, record=record)

        def events() -> Iterator[tuple[str, MemoryTrace | None]]:
            words = completion.text.split(" ")
            for index, word in enumerate(words):
                yield (word if index == 0 else " " + word), None
            yield "", completion.memory

        return CompletionStream(events(), lambda: None)

    def search_memory(
        self,
        scope: Scope | str,
        query: str,
        *,
        limit: int = 10,
        agent_id: str | None = None,
        timeout_s: float | None = None,
    ) -> list[MemoryHit]:
        self._check(Permission.MEMORY_SEARCH, agent_id)
        if not self._memory_recall:
            raise PermissionDeniedError(
                "the agent has not enabled Memory Recall", reason="MEMORY_RECALL_DISABLED"
            )
        layer = Scope(scope)
        self.searches.append((layer, query))
        return list(self._hits.get(layer, ()))[:limit]

    def _check(self, permission: Permission, agent_id: str | None) -> None:
        if permission not in self._permissions:
            raise PermissionDeniedError(f"permission {permission.value!r} is not granted")
        if (agent_id or self._agent_id) not in self._allowed:
            raise PermissionDeniedError("the plugin may not act for that agent", reason="AGENT_NOT_ALLOWED")

    def _next_reply(self, chat: list[Message]) -> str:
        if callable(self._replies):
            return self._replies(chat)
        if self._reply_index >= len(self._replies):
            raise AssertionError("RecordingContext ran out of scripted replies")
        reply = self._replies[self._reply_index]
        self._reply_index += 1
        return reply


def run_command(plugin: Plugin, ctx: Context, command_name: str, payload: Payload | None = None) -> Any:
    """Invoke a command the way the host does: payload and result both make a JSON round trip."""
    decoded = decode_payload(json.dumps(payload or {}))
    return json.loads(encode_result(plugin.invoke(ctx, command_name, decoded)))


__all__ = ["RecordingContext", "Replies", "run_command"]
