"""Reliability rig: a slow fake inferd that records which turns each distillation saw, and an audit of memory.sqlite
(integrity, every acknowledged turn present, no turn distilled into two episodes) for the crash and load tests.

Every turn a test buffers carries a token "[tok:<id>]". The fake answers each distillation with a digest whose
summary names a fresh reply id and records the tokens it found in the prompt's turns, so the episodes in the store
say exactly which turns each committed distillation covered.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from memoryd.write.phrase import TURNS_HEADER
from osaurus.inference.v1 import inference_pb2 as ipb
from osaurus.inference.v1 import inference_pb2_grpc as ipb_grpc
from servicekit.server import RunningServer, ServerOptions, ServiceBinding, build_server
from tests.fakes.fake_writer_inferd import EMBED_MODEL, MODEL, ScriptedInferd, digest

TOKEN = re.compile(r"\[tok:([A-Za-z0-9_-]+)\]")
REPLY = re.compile(r"\breply(\d+)\b")
#: The distillation prompt's turns follow this line (memoryd.write.phrase).
_TURNS_HEADER = f"\n{TURNS_HEADER}\n"
#: The consolidator's identity-narrative prompt (memoryd.consolidate.narrative.build_messages).
_NARRATIVE_MARK = "Facts about the user"
#: The LLM relevance gate's system prompt (memoryd.read.gate_llm.SYSTEM_PROMPT).
_GATE_MARK = "You decide which memory helps"
_WORDS = [
    "amber",
    "basalt",
    "cobalt",
    "dune",
    "ember",
    "fjord",
    "garnet",
    "harbor",
    "indigo",
    "juniper",
    "kelp",
    "lagoon",
    "mesa",
    "nectar",
    "onyx",
    "prairie",
    "quartz",
    "reef",
    "sierra",
    "tundra",
    "umber",
    "vale",
    "willow",
    "xenon",
    "yarrow",
    "zephyr",
]

FTS_TABLES = ("fts_pinned", "fts_episodes", "fts_transcript")


def turn_text(token: str, role: str) -> str:
    """A turn long enough for the novelty gate (80 characters per session), carrying its token."""
    text = f"[tok:{token}] The {role} talks about the migration plan, the schema conversion and the cut-over window."
    # The user also says who they are: every session then supports an identity fact again, so the next
    # consolidation pass regenerates the narrative (a model call inside the pass, where kills are aimed).
    return f"{text} My name is Robin." if role == "user" else text


class RecordingInferd(ScriptedInferd):
    """Distillation replies name a reply id, remember the prompt's turn tokens and add one new identity fact (so the
    next consolidation pass regenerates the narrative: a model call inside the pass). Generate takes `delay_s`."""

    def __init__(self, delay_s: tuple[float, float] = (0.0, 0.0)) -> None:
        super().__init__()
        self.delay_s = delay_s
        self.replies: dict[int, tuple[str, ...]] = {}
        self.embed_delay_s = 0.0
        #: Distillation replies to give, in order, before the generated ones (a test's chosen facts).
        self.scripted: list[str] = []
        self.in_flight = 0
        self.narratives_in_flight = 0
        self._next = 0
        self._state = threading.Lock()
        self._rng = random.Random(7)

    def Generate(self, request: ipb.GenerateRequest, context: grpc.ServicerContext) -> ipb.GenerateResponse:
        prompt = "\n".join(m.content for m in request.messages if m.role == ipb.ROLE_USER)
        system = "\n".join(m.content for m in request.messages if m.role == ipb.ROLE_SYSTEM)
        is_narrative = _NARRATIVE_MARK in prompt
        is_gate = _GATE_MARK in system
        with self._state:
            self._next += 1
            reply_id = self._next
            if not is_narrative and not is_gate:
                self.replies[reply_id] = tuple(TOKEN.findall(prompt.split(_TURNS_HEADER, 1)[-1]))
            self.in_flight += 1
            self.narratives_in_flight += is_narrative
            words = self._rng.sample(_WORDS, 6)
            pause = self._rng.uniform(*self.delay_s)
        with self._lock:
            self.generate_requests.append(request)
        try:
            time.sleep(pause)
            if is_gate:
                text = '{"section": "episodes", "reason": "earlier conversation"}'
            elif is_narrative:
                text = f"The user has talked about {words[0]} and {words[1]}."
            elif self.scripted:
                text = self.scripted.pop(0)
            else:
                text = digest(
                    f"Session reply{reply_id} {' '.join(words)}.",
                    topics=(f"r{reply_id}",),
                    identity=(f"The user mentioned {words[0]} {reply_id}",),
                )
            return ipb.GenerateResponse(
                text=text,
                finish_reason=ipb.FINISH_REASON_STOP,
                usage=ipb.Usage(
                    prompt_tokens=len(prompt) // 4, completion_tokens=len(text) // 4, duration_ms=1
                ),
                model=request.model or MODEL,
            )
        finally:
            with self._state:
                self.in_flight -= 1
                self.narratives_in_flight -= is_narrative

    def Embed(self, request: ipb.EmbedRequest, context: grpc.ServicerContext) -> ipb.EmbedResponse:
        time.sleep(self.embed_delay_s)
        return super().Embed(request, context)


def start_recording_inferd(
    delay_s: tuple[float, float] = (0.0, 0.0), *, servicer: RecordingInferd | None = None, port: int = 0
) -> tuple[RunningServer, RecordingInferd]:
    """Serve a RecordingInferd on 127.0.0.1:`port` (0: any); pass `servicer` to bring the same one back up."""
    servicer = servicer or RecordingInferd(delay_s)
    binding = ServiceBinding(
        "osaurus.inference.v1.InferenceService",
        lambda server: ipb_grpc.add_InferenceServiceServicer_to_server(servicer, server),
    )
    options = ServerOptions(f"127.0.0.1:{port}", domain="inference.osaurus.dev", max_workers=16)
    return build_server(options, [binding]), servicer


def memory_config() -> dict[str, object]:
    """memory.json for memoryd against the fake: its model names, the shortest debounce."""
    return {"coreModel": MODEL, "embeddingModel": EMBED_MODEL, "summaryDebounceSeconds": 10}


def write_memory_config(home: Path) -> None:
    """Write memory_config() as `home`/config/memory.json, for a memoryd started with that home."""
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "memory.json").write_text(json.dumps(memory_config()))


@dataclass(frozen=True)
class InProcessMemoryd:
    """memoryd started in this process against a RecordingInferd on a real port; `db` is its memory.sqlite."""

    channel: grpc.Channel
    inferd: RecordingInferd
    db: Path


@contextmanager
def in_process_memoryd(
    home: Path, agents: Iterable[str] = (), max_send_bytes: int = 0
) -> Iterator[InProcessMemoryd]:
    """Start memoryd under `home` (memory_config) with a recording fake inferd; `agents` get Memory Recall on.

    Everything is stopped on exit. `max_send_bytes` raises the channel's send limit for oversized requests.
    """
    # Imported here: tests that only audit a store do not need memoryd's whole composition root.
    from memoryd.app import start
    from memoryd.config import ServiceSettings
    from osaurus.memory.v1 import memory_pb2 as pb
    from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc

    write_memory_config(home)
    inferd_server, inferd = start_recording_inferd()
    running, app = start(ServiceSettings(listen="127.0.0.1:0", home=home, inferd_addr=inferd_server.target))
    options = [("grpc.max_send_message_length", max_send_bytes)] if max_send_bytes else []
    channel = grpc.insecure_channel(running.target, options=options)
    try:
        stub = pb_grpc.MemoryServiceStub(channel)
        for agent in agents:
            stub.UpsertAgent(pb.UpsertAgentRequest(agent_id=agent, search_memory_enabled=True), timeout=5)
        yield InProcessMemoryd(channel, inferd, home / "memory" / "memory.sqlite")
    finally:
        channel.close()
        running.stop(1)
        app.close()
        inferd_server.stop(0)


def read_rows(db: Path, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Rows of one query on a read-only connection to the store (the service keeps running)."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return list(connection.execute(sql, params).fetchall())
    finally:
        connection.close()


@dataclass(frozen=True)
class Ack:
    """One acknowledged BufferTurn: what the client sent and the ids memoryd returned."""

    agent_id: str
    conversation_id: str
    token: str
    signal_id: int
    transcript_ids: tuple[int, ...]


@dataclass
class Audit:
    """What one look at the database found; `problems` must be empty."""

    problems: list[str] = field(default_factory=list)
    signals: Counter[str] = field(default_factory=Counter)
    episodes: int = 0

    def fail(self, message: str) -> None:
        self.problems.append(message)


def _connect(db: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(db, timeout=30)
    connection.execute("PRAGMA busy_timeout = 30000")
    return connection


def integrity(db: Path, audit: Audit) -> None:
    """PRAGMA integrity_check and FTS5's own integrity-check of every mirror against its content table."""
    with _connect(db) as connection:
        result = [row[0] for row in connection.execute("PRAGMA integrity_check")]
        if result != ["ok"]:
            audit.fail(f"integrity_check: {result[:5]}")
        for table in FTS_TABLES:
            try:
                connection.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
            except sqlite3.DatabaseError as error:
                audit.fail(f"{table} integrity-check: {error}")
    connection.close()


def acknowledged_present(db: Path, acks: Iterable[Ack], audit: Audit) -> None:
    """Every acknowledged turn's signal and transcript rows exist, with the content that was sent."""
    with _connect(db) as connection:
        signals = {
            int(row[0]): (row[1], row[2], row[3])
            for row in connection.execute(
                "SELECT id, agent_id, conversation_id, user_message FROM pending_signals"
            )
        }
        transcript = {
            int(row[0]): (row[1], row[2])
            for row in connection.execute("SELECT id, agent_id, content FROM transcript")
        }
    connection.close()
    for ack in acks:
        found = signals.get(ack.signal_id)
        if found is None or found[0] != ack.agent_id or f"[tok:{ack.token}]" not in found[2]:
            audit.fail(
                f"acknowledged signal {ack.signal_id} ({ack.token}) missing or different: {found!r:.80}"
            )
        for row_id in ack.transcript_ids:
            row = transcript.get(row_id)
            if row is None or row[0] != ack.agent_id or f"[tok:{ack.token}]" not in row[1]:
                audit.fail(f"acknowledged transcript row {row_id} ({ack.token}) missing or different")


def distilled_once(db: Path, replies: dict[int, tuple[str, ...]], audit: Audit) -> None:
    """Each turn is in at most one committed episode; processed turns are in exactly one, pending ones in none.

    An episode's turns are read from its provenance (source_turn_ids: the transcript rows it was distilled from);
    `replies` (the tokens each model call saw) is kept for the callers that count calls."""
    with _connect(db) as connection:
        episodes = [str(row[0] or "") for row in connection.execute("SELECT source_turn_ids FROM episodes")]
        transcript = {
            int(row[0]): str(row[1]) for row in connection.execute("SELECT id, content FROM transcript")
        }
        signals = list(connection.execute("SELECT status, user_message FROM pending_signals"))
    connection.close()
    covered: Counter[str] = Counter()
    for ids in episodes:
        rows = [int(part) for part in ids.split(",") if part.strip().isdigit()]
        if not rows:
            audit.fail("episode without provenance")
            continue
        covered.update({token for row in rows for token in TOKEN.findall(transcript.get(row, ""))})
    audit.episodes = len(episodes)
    for token, count in covered.items():
        if count > 1:
            audit.fail(f"turn {token} distilled into {count} episodes")
    for status, user_message in signals:
        audit.signals[str(status)] += 1
        for token in TOKEN.findall(str(user_message)):
            if status == "processed" and covered[token] != 1:
                audit.fail(f"processed turn {token} is in {covered[token]} episodes")
            if status == "pending" and covered[token]:
                audit.fail(f"pending turn {token} is already in an episode (would be distilled again)")
            if status == "dead_letter":
                audit.fail(f"turn {token} dead-lettered")


def audit_store(db: Path, acks: Iterable[Ack], replies: dict[int, tuple[str, ...]]) -> Audit:
    """All three checks on a database no process is writing."""
    audit = Audit()
    integrity(db, audit)
    acknowledged_present(db, acks, audit)
    distilled_once(db, dict(replies), audit)
    return audit


__all__ = [
    "EMBED_MODEL",
    "MODEL",
    "Ack",
    "Audit",
    "RecordingInferd",
    "acknowledged_present",
    "audit_store",
    "distilled_once",
    "integrity",
    "memory_config",
    "start_recording_inferd",
    "turn_text",
]
