"""BufferTurn's domain logic: the memory toggles, the one-transaction write, then the writer and indexer seams."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from memoryd.config import ConfigStore
from memoryd.domain import BufferedTurn, TurnInput, now_ms
from memoryd.storage.store import Store
from memoryd.storage.transcript import AgentMemoryDisabledError, RequestIdReusedError
from servicekit.errors import FailedPreconditionError, FieldViolation, InvalidArgumentError

_log = logging.getLogger("memoryd.turns")


class ArmLike(Protocol):
    """What the writer's debouncer reports for a buffered turn (memoryd.write.debounce.ArmResult)."""

    @property
    def scheduled(self) -> bool: ...

    @property
    def delay_s(self) -> float: ...


#: Called after the turn committed: (agent_id, conversation_id) -> what the debouncer did, or None.
TurnHook = Callable[[str, str], "ArmLike | None"]


def no_hook(agent_id: str, conversation_id: str) -> None:
    """The default seam: no writer wired, nothing scheduled."""
    return None


class TurnRecorder:
    """Records turns. Never calls a model: one SQL transaction, then the debounce arm and an indexing nudge."""

    def __init__(
        self,
        store: Store,
        config: ConfigStore,
        on_turn_buffered: TurnHook = no_hook,
        on_rows_written: Callable[[str], None] | None = None,
    ) -> None:
        self._store = store
        self._config = config
        self.on_turn_buffered = on_turn_buffered
        self._on_rows_written = on_rows_written

    def buffer(self, turn: TurnInput) -> BufferedTurn:
        """Store the turn; FAILED_PRECONDITION (MEMORY_DISABLED) when memory is off globally or for the agent."""
        if not self._config.get().enabled:
            raise FailedPreconditionError("MEMORY_DISABLED", "memory is disabled in the configuration")
        # The user text was only an injected [Memory] block (memoryd.api.memory_convert.own_text): nothing to store.
        if not turn.user_message:
            return BufferedTurn(signal_id=0, transcript_ids=())
        try:
            # The agent's toggle is read inside the write transaction: one round trip, and atomic with the write.
            stored = self._store.turns.buffer_if_enabled(turn)
        except AgentMemoryDisabledError:
            raise FailedPreconditionError("MEMORY_DISABLED", "memory is disabled for this agent") from None
        except RequestIdReusedError:
            raise InvalidArgumentError(
                "REQUEST_ID_REUSED",
                "request_id was used within the last 24 hours for a different turn",
                field_violations=[
                    FieldViolation(
                        "request_id", "already names another turn of this agent", "REQUEST_ID_REUSED"
                    )
                ],
            ) from None
        if stored.replayed:  # a retry: the first call already nudged the indexer and armed the debounce
            return stored
        if self._on_rows_written is not None:
            self._on_rows_written(turn.agent_id)
        try:
            armed = self.on_turn_buffered(turn.agent_id, turn.conversation_id)
        except Exception as error:
            _log.error("arming distillation failed (%s); the turn stays pending", type(error).__name__)
            armed = None
        if armed is None or not armed.scheduled:
            return stored
        return replace(stored, distillation_scheduled=True, flush_at_ms=now_ms() + int(armed.delay_s * 1000))
