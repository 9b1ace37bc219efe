"""memoryd end to end on PostgreSQL (OSAURUS_MEMORYD_DATABASE_URL), beside the same run on SQLite: the real gRPC
server, a scripted core model and embedder on a real port; BufferTurn, Ingest with distillation, indexing,
AssembleContext, SearchMemory, Forget and Export give the same answers on both backends. On PostgreSQL the SQLite
file's protection RPCs answer FAILED_PRECONDITION, and an unreachable server stops memoryd with one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from memoryd.app import start
from memoryd.config import ServiceSettings
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from tests.fakes.fake_writer_inferd import EMBED_MODEL, MODEL, digest, start_fake_inferd
from tests.support.memoryd_server import rpc_error
from tests.support.pg_stores import fresh_schema, pg_url
from tests.support.writer_memoryd import write_config

AGENT = "alice-agent"
CHAT = [
    ("I am repainting the kitchen a pale green this weekend.", "Pale green will brighten it."),
    ("My sister Clara visits from Porto next month.", "How nice, enjoy the visit."),
    ("Remind me that the boiler service is on Friday.", "Noted: boiler service on Friday."),
]
SESSION = [
    ("Hi, I'm Alice and I run the billing team at Acme.", "Hello Alice!"),
    ("For new services I always pick Postgres over MySQL.", "Postgres it is."),
]
DIGEST = digest(
    "Alice, who runs billing at Acme, prefers Postgres over MySQL for new services.",
    topics=("databases",),
    entities=("Acme",),
    pinned=[("The user prefers Postgres over MySQL for new services.", 0.8)],
    identity=["The user's name is Alice."],
)


def _without_times(record: dict[str, Any]) -> dict[str, Any]:
    """An export record without the values a run stamps with its own clock."""
    return {k: v for k, v in record.items() if not k.endswith("_ms") and k != "exported_at"}


def _scenario(home: Path, database_url: str = "", schema: str = "public") -> dict[str, Any]:
    server, inferd = start_fake_inferd()
    write_config(home, coreModel=MODEL, embeddingModel=EMBED_MODEL, summaryDebounceSeconds=3600)
    settings = ServiceSettings(
        listen="127.0.0.1:0",
        home=home,
        inferd_addr=server.target,
        background_indexing=False,
        database_url=database_url,
        database_schema=schema,
        # Both runs must rank with the query vector: under CI load the 150 ms budget was missed on one backend only,
        # and a block ranked on full text alone then differed from the other backend's.
        query_embed_timeout_s=10.0,
    )
    running, app = start(settings)
    channel = grpc.insecure_channel(running.target)
    memory, console = mpb_grpc.MemoryServiceStub(channel), cpb_grpc.MemoryConsoleServiceStub(channel)
    out: dict[str, Any] = {"dialect": app.store.dialect}
    try:
        memory.UpsertAgent(mpb.UpsertAgentRequest(agent_id=AGENT, search_memory_enabled=True), timeout=10)
        out["buffered"] = [
            list(
                memory.BufferTurn(
                    mpb.BufferTurnRequest(
                        agent_id=AGENT, conversation_id="chat", user_message=u, assistant_message=a
                    ),
                    timeout=10,
                ).transcript_ids
            )
            for u, a in CHAT
        ]
        inferd.set_default(DIGEST)
        ingest = memory.Ingest(
            mpb.IngestRequest(
                agent_id=AGENT,
                conversation_id="session-1",
                turns=[mpb.Turn(user=u, assistant=a) for u, a in SESSION],
            ),
            timeout=30,
        )
        out["ingest"] = (ingest.turns_ingested, ingest.distillation, ingest.episode_id)
        out["indexed"] = app.indexer.run_once()
        question = "Which database does Alice prefer for new services?"
        out["block"] = memory.AssembleContext(
            mpb.AssembleContextRequest(agent_id=AGENT, query=question), timeout=10
        ).block
        out["search"] = {
            scope: [
                (h.text, round(h.score, 4))
                for h in memory.SearchMemory(
                    mpb.SearchMemoryRequest(agent_id=AGENT, scope=scope, query=query, limit=5), timeout=10
                ).hits
            ]
            for scope, query in (
                (mpb.SCOPE_TRANSCRIPT, "kitchen green paint"),
                (mpb.SCOPE_PINNED, "Postgres MySQL"),
                (mpb.SCOPE_EPISODES, "billing Acme"),
            )
        }
        fact_id = app.store.db.scalar("SELECT id FROM pinned_facts WHERE agent_id = ?", (AGENT,))
        console.Forget(
            cpb.ForgetRequest(item=mpb.ItemRef(kind=mpb.ITEM_KIND_PINNED_FACT, id=str(fact_id))), timeout=10
        )
        out["block_after_forget"] = memory.AssembleContext(
            mpb.AssembleContextRequest(agent_id=AGENT, query=question), timeout=10
        ).block
        out["pinned_after_forget"] = [
            h.text
            for h in memory.SearchMemory(
                mpb.SearchMemoryRequest(agent_id=AGENT, scope=mpb.SCOPE_PINNED, query="Postgres", limit=5),
                timeout=10,
            ).hits
        ]
        out["export"] = [
            _without_times(json.loads(r.line)) for r in console.Export(cpb.ExportRequest(), timeout=30)
        ]
        out["stats"] = [
            (c.table, c.agent_id, c.rows)
            for c in console.Diagnose(cpb.DiagnoseRequest(), timeout=10).table_counts
        ]
        if app.store.dialect == "postgres":
            out["set_encryption"] = rpc_error(
                lambda: console.SetEncryption(
                    cpb.SetEncryptionRequest(mode=cpb.ENCRYPTION_MODE_KEY_FILE), timeout=10
                )
            )
    finally:
        channel.close()
        running.stop(grace_s=2)
        app.close()
        server.stop(grace_s=1)
    return out


def test_memoryd_on_postgres_answers_as_on_sqlite(tmp_path: Path) -> None:
    on_sqlite = _scenario(tmp_path / "sqlite")
    on_postgres = _scenario(tmp_path / "postgres", pg_url(), fresh_schema())
    assert (on_sqlite["dialect"], on_postgres["dialect"]) == ("sqlite", "postgres")
    assert not (tmp_path / "postgres" / "memory" / "memory.sqlite").exists()  # nothing went to a SQLite file
    # The scenario did what it says, on SQLite …
    assert on_sqlite["ingest"][:2] == (2, "distilled")
    fact = "The user prefers Postgres over MySQL for new services."
    assert on_sqlite["search"][mpb.SCOPE_PINNED][0][0] == fact
    assert "Postgres over MySQL" in on_sqlite["block"]
    assert on_sqlite["search"][mpb.SCOPE_TRANSCRIPT][0][0] == CHAT[0][0]
    assert on_sqlite["pinned_after_forget"] == []
    # … and PostgreSQL answers the same, call by call.
    for key in (
        "buffered",
        "ingest",
        "indexed",
        "block",
        "search",
        "block_after_forget",
        "pinned_after_forget",
    ):
        assert on_postgres[key] == on_sqlite[key], key
    assert on_postgres["export"] == on_sqlite["export"]
    assert on_postgres["stats"] == on_sqlite["stats"]
    refused = on_postgres["set_encryption"]
    assert (refused.code, refused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_SQLITE_STORE")


def test_an_unreachable_database_stops_memoryd_with_one_line(tmp_path: Path) -> None:
    bad = "postgresql://memoryd:secret-password@127.0.0.1:1/nowhere?connect_timeout=2"
    env = {"OSAURUS_MEMORYD_DATABASE_URL": bad, "OSAURUS_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "memoryd", "--listen", "127.0.0.1:0"],
        env={**env, "PYTHONPATH": ":".join(sys.path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.startswith("memoryd:")]
    assert len(lines) == 1 and "cannot open the memory store on PostgreSQL" in lines[0], done.stderr
    assert "Traceback" not in done.stderr and "secret-password" not in done.stderr


@pytest.mark.parametrize("url", ["mysql://x/y", "memory.sqlite"])
def test_a_database_url_must_be_postgresql(tmp_path: Path, url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memoryd", "--database-url", url, "--home", str(tmp_path)],
        env={"PYTHONPATH": ":".join(sys.path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "must be a postgresql:// URL" in done.stderr
