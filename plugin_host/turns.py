"""The composed model call (RunAgent, ctx.complete, ctx.stream): inject memory → inferd → record the turn.

Both memoryd calls act on the turn's tenant (TurnRequest.tenant, x-osaurus-tenant); the model call names none.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

from memoryd.client import MemoryClient
from plugin_host.chat import MemoryTrace, TurnEvent, TurnRequest, TurnResult, latest_user_index
from plugin_host.context_window import ContextWindows
from plugin_host.injection import Injected, MemoryInjector
from plugin_host.peers import InferencePeer
from servicekit.errors import ServiceError
from servicekit.tenancy import calls_for_tenant

_log = logging.getLogger("plugin_host.turns")


class TurnRunner:
    """Runs one agent turn. Memory failures degrade to "no memory"; model failures are the caller's errors."""

    def __init__(
        self,
        memory: MemoryClient,
        inference: InferencePeer,
        windows: ContextWindows,
        *,
        memory_timeout_s: float = 3.0,
    ) -> None:
        self._memory = memory
        self._inference = inference
        self._windows = windows
        self._injector = MemoryInjector(memory, memory_timeout_s)
        self._memory_timeout_s = memory_timeout_s

    def complete(self, turn: TurnRequest, *, timeout_s: float | None) -> TurnResult:
        """Inject, generate, record; raises the inference service's typed errors."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        injected = self._inject(turn, deadline)
        reply = self._inference.generate(
            injected.messages, turn.options, turn.json_schema, timeout_s=_remaining(deadline)
        )
        recorded = self._record(turn, reply.text, deadline)
        return TurnResult(
            reply.text, _trace(injected, recorded), reply.prompt_tokens, reply.completion_tokens
        )

    def stream(self, turn: TurnRequest, *, timeout_s: float | None) -> Iterator[TurnEvent]:
        """As complete(), yielding deltas and then one final event carrying the trace."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        injected = self._inject(turn, deadline)
        parts: list[str] = []
        prompt_tokens = completion_tokens = 0
        for piece in self._inference.stream(injected.messages, turn.options, timeout_s=_remaining(deadline)):
            if piece.delta:
                parts.append(piece.delta)
                yield TurnEvent(delta=piece.delta)
            if piece.done:
                prompt_tokens, completion_tokens = piece.prompt_tokens, piece.completion_tokens
        recorded = self._record(turn, "".join(parts), deadline)
        yield TurnEvent(
            done=True,
            memory=_trace(injected, recorded),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )

    def _inject(self, turn: TurnRequest, deadline: float | None) -> Injected:
        context_tokens = self._windows.resolve(turn.options.model, turn.options.model_context_tokens)
        with calls_for_tenant(turn.tenant):
            return self._injector.inject(
                turn.agent_id, turn.conversation_id, turn.messages, context_tokens, _remaining(deadline)
            )

    def _record(self, turn: TurnRequest, reply: str, deadline: float | None) -> bool:
        """BufferTurn with the user's own words (never the injected block) and the reply, unless the call asked
        not to be recorded (a plugin's internal call: requests.should_record)."""
        if not turn.record:
            return False
        index = latest_user_index(turn.messages)
        if index is None:
            return False
        remaining = _remaining(deadline)
        timeout_s = (
            self._memory_timeout_s if remaining is None else max(0.05, min(self._memory_timeout_s, remaining))
        )
        try:
            with calls_for_tenant(turn.tenant):
                self._memory.buffer_turn(
                    turn.agent_id,
                    turn.conversation_id,
                    turn.messages[index].content,
                    reply,
                    timeout_s=timeout_s,
                )
        except ServiceError as error:
            _log.warning("turn not recorded: %s %s", type(error).__name__, error.reason)
            return False
        return True


def _trace(injected: Injected, recorded: bool) -> MemoryTrace:
    return MemoryTrace(
        injected=injected.injected,
        section=injected.section,
        reason=injected.reason,
        block_tokens=injected.block_tokens,
        recorded=recorded,
    )


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())
