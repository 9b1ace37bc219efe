"""EndSession, Ingest and SyncNow servicer methods (a mixin over `self.writer`), and the BufferTurn seam."""

from __future__ import annotations

import grpc

from memoryd.api import memory_convert as convert
from memoryd.domain import MAX_CONTENT_CHARS
from memoryd.vectors.indexer import INGEST_INDEX_ROWS, Indexer
from memoryd.write import Writer
from memoryd.write.buffer_turn import TurnHook
from memoryd.write.outcome import DISTILLED, NO_SIGNALS
from memoryd.write.store_protocol import IngestTurn
from osaurus.memory.v1 import memory_pb2 as pb
from servicekit.validate import Violations

#: Most turns one Ingest may carry (proto contract).
MAX_INGEST_TURNS = 10_000


def turn_hook(writer: Writer) -> TurnHook:
    """The callable TurnRecorder calls after a BufferTurn committed: arms the writer's debounce."""
    return writer.on_turn_buffered


def parse_ingest(request: pb.IngestRequest) -> tuple[str, str, list[IngestTurn], int | None]:
    """(agent_id, conversation_id, turns, session time in ms or None) of a valid Ingest request; turns may be empty
    when every turn was only an injected memory block."""
    with Violations() as v:
        agent = convert.agent_id(v, request.agent_id)
        conversation = convert.conversation_id(v, request.conversation_id)
        if not request.turns:
            v.add("turns", "at least one turn is required", "MISSING_FIELD")
        elif len(request.turns) > MAX_INGEST_TURNS:
            v.add("turns", f"has {len(request.turns)} turns; at most {MAX_INGEST_TURNS}", "TOO_MANY_TURNS")
        else:
            for i, turn in enumerate(request.turns):
                v.require_text(turn.user, f"turns[{i}].user", max_chars=MAX_CONTENT_CHARS)
                v.require_text(
                    turn.assistant, f"turns[{i}].assistant", max_chars=MAX_CONTENT_CHARS, required=False
                )
                if len(v.items) >= 20:  # enough to fix the request; keep the error small
                    break
    # Injected memory blocks are removed; a turn whose user text was only a block is dropped (nothing the user said).
    cleaned = [IngestTurn(convert.own_text(t.user), convert.own_text(t.assistant)) for t in request.turns]
    turns = [turn for turn in cleaned if turn.user]
    session_ms = convert.millis(request.session_time, 0, "session_time") or None
    return agent, conversation, turns, session_ms


def _session_ids(request: pb.EndSessionRequest) -> tuple[str, str]:
    with Violations() as v:
        agent = convert.agent_id(v, request.agent_id)
        conversation = convert.conversation_id(v, request.conversation_id)
    return agent, conversation


class WriterRpcs:
    """Mixin for the MemoryService servicer; the servicer sets `self.writer` in its constructor."""

    writer: Writer
    indexer: Indexer

    def EndSession(
        self, request: pb.EndSessionRequest, context: grpc.ServicerContext
    ) -> pb.EndSessionResponse:
        """Flush a conversation now; with `wait`, distil in this call and report the outcome token."""
        agent, conversation = _session_ids(request)
        result = self.writer.end_session(agent, conversation, wait=request.wait)
        return pb.EndSessionResponse(
            signals_flushed=result.signals_flushed, outcome=result.outcome, episode_id=result.episode_id
        )

    def Ingest(self, request: pb.IngestRequest, context: grpc.ServicerContext) -> pb.IngestResponse:
        """Idempotent bulk load of one conversation; distils synchronously unless skip_extraction."""
        agent, conversation, turns, session_ms = parse_ingest(request)
        if not turns:  # only fed-back memory blocks: the stored conversation is left as it was
            return pb.IngestResponse(
                turns_ingested=0, distillation="" if request.skip_extraction else NO_SIGNALS
            )
        result = self.writer.ingest(
            agent, conversation, turns, session_time_ms=session_ms, skip_extraction=request.skip_extraction
        )
        if result.distillation == DISTILLED:
            # What the session taught is searchable by meaning when Ingest answers: a request sharing no word with
            # the new facts ("suggest a dinner recipe" after "I am vegetarian") found nothing until the indexer's
            # next pass. A bulk load (skip_extraction) is left to the background indexer.
            self.indexer.run_once(INGEST_INDEX_ROWS)
        return pb.IngestResponse(
            turns_ingested=result.turns_ingested,
            distillation=result.distillation,
            episode_id=result.episode_id,
        )

    def SyncNow(self, request: pb.SyncNowRequest, context: grpc.ServicerContext) -> pb.SyncNowResponse:
        """Drain every pending conversation (or one agent's) now; one outcome per conversation."""
        agent: str | None = None
        if request.agent_id:
            with Violations() as v:
                agent = convert.agent_id(v, request.agent_id)
        outcomes = self.writer.sync_now(agent)
        return pb.SyncNowResponse(
            outcomes=[
                pb.SessionOutcome(
                    agent_id=o.agent_id,
                    conversation_id=o.conversation_id,
                    outcome=o.token,
                    episode_id=o.episode_id,
                )
                for o in outcomes
            ]
        )


__all__ = ["MAX_INGEST_TURNS", "WriterRpcs", "parse_ingest", "turn_hook"]
