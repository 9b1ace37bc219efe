"""Every memoryctl command against a real memoryd: tables, --json, exit codes, --help, ingest with a progress bar."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from memoryd.api.memory_service import planned
from memoryd.app import App
from memoryd.config import ServiceSettings
from memoryd.ctl.cli import build_parser, main
from memoryd.read.assemble import ReadPath, ReadPathSettings
from memoryd.retrieval.gate import GateMode
from memoryd.retrieval.items import Section
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from tests.fakes.fake_writer_inferd import MODEL, digest, start_fake_inferd
from tests.fakes.memory_reader import InMemoryReader
from tests.support.console_rig import ConsoleRig, console_rig
from tests.support.writer_memoryd import start_wired, write_config

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Run:
    """One memoryctl invocation's exit code and output."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def ctl(target: str, *args: str, stdin: str = "") -> Run:
    out, err = io.StringIO(), io.StringIO()
    code = main(["--addr", target, *args], stdout=out, stderr=err, stdin=io.StringIO(stdin))
    return Run(code, out.getvalue(), err.getvalue())


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[ConsoleRig]:
    with console_rig(tmp_path) as r:
        yield r


# ------------------------------------------------------------------------------------------------------ help
def _command_paths() -> list[list[str]]:
    paths: list[list[str]] = [[]]

    def walk(parser: Any, prefix: list[str]) -> None:
        for action in parser._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                for name, child in action.choices.items():
                    if name in action._name_parser_map and child.prog.endswith(name):
                        paths.append([*prefix, name])
                        walk(child, [*prefix, name])

    walk(build_parser(), [])
    return paths


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    paths = _command_paths()
    assert len(paths) >= 25
    for path in paths:
        assert main([*path, "--help"]) == 0, path
        assert "usage: memoryctl" in capsys.readouterr().out, path
    assert main([]) == 2  # no command: usage on stderr
    assert main(["no-such-command"]) == 2


# ------------------------------------------------------------------------------------------------ agents
def test_agents_commands(rig: ConsoleRig) -> None:
    t = rig.memoryd.target
    assert ctl(t, "agents").out.strip() == "(no agents)"
    created = ctl(t, "agents", "set", "alpha", "--name", "Alpha", "--recall", "on")
    assert created.code == 0 and created.out.strip() == "created alpha"
    assert ctl(t, "agents", "set", "alpha", "--memory", "off").out.strip() == "updated alpha"
    listed = ctl(t, "agents", "ls")
    assert listed.out.splitlines()[0].split() == [
        "AGENT",
        "NAME",
        "MEMORY",
        "RECALL",
        "ENTRIES",
        "TURNS",
        "PENDING",
        "CREATED",
    ]
    assert listed.out.splitlines()[1].split()[:4] == ["alpha", "Alpha", "off", "on"]
    shown = ctl(t, "--json", "agents", "show", "alpha").json()
    assert shown["display_name"] == "Alpha" and shown["search_memory_enabled"] is True
    refused = ctl(t, "agents", "rm", "alpha")
    assert refused.code == 5 and "--yes" in refused.err
    removed = ctl(t, "--json", "agents", "rm", "alpha", "--yes")
    assert removed.code == 0 and removed.json()["rows_deleted"] >= 1
    missing = ctl(t, "agents", "show", "alpha")
    assert missing.code == 3 and "AGENT_NOT_FOUND" in missing.err


def test_overrides_and_identity_commands(rig: ConsoleRig) -> None:
    t = rig.memoryd.target
    added = ctl(t, "--json", "overrides", "add", "I prefer tabs over spaces").json()
    assert ctl(t, "overrides").out.splitlines()[1].endswith("I prefer tabs over spaces")
    assert ctl(t, "--json", "overrides", "ls").json()[0]["id"] == added["id"]
    assert "overrides: 1" in ctl(t, "identity").out
    assert ctl(t, "overrides", "rm", added["id"]).code == 0
    assert ctl(t, "--json", "overrides", "list").json() == []
    assert ctl(t, "overrides", "rm", "nope").code == 3


def test_identity_command_shows_one_agents_narrative(rig: ConsoleRig) -> None:
    t = rig.memoryd.target
    db = rig.memoryd.app.store.db
    with db.write():
        for agent, fact in (("home", "User likes to be called Bibi"), ("work", "User's name is Ana")):
            db.execute(
                "INSERT INTO identity_facts (agent_id, content, created_at_ms, updated_at_ms) VALUES (?, ?, 1, 1)",
                (agent, fact),
            )
        db.execute(
            "INSERT INTO agent_narratives (agent_id, content, model, generated_at_ms, version) "
            "VALUES ('work', 'User''s name is Ana.', 'extractive', 5, 1)"
        )
    work = ctl(t, "--json", "identity", "--agent", "work").json()
    assert (work["content"], work["model"]) == ("User's name is Ana.", "extractive")
    assert [f[2] for f in work["facts"]] == ["work"]
    assert "Bibi" not in ctl(t, "identity", "--agent", "work").out
    everyone = ctl(t, "--json", "identity").json()
    assert everyone["content"] == "" and {f[2] for f in everyone["facts"]} == {"home", "work"}


# ----------------------------------------------------------------------------------------------- console
def test_console_commands(rig: ConsoleRig) -> None:
    t = rig.memoryd.target
    fact = rig.pinned("alpha", "Alpha's locker code is 4821 and email alpha@example.com")
    (turn,) = rig.turn("alpha", "call me at 415-555-0199 about the locker")
    rig.index()
    found = ctl(t, "search", "locker")
    assert found.code == 0 and "alpha@example.com" not in found.out and "415-555-0199" not in found.out
    assert f"pinned:{fact}" in found.out and f"transcript:{turn}" in found.out
    hits = ctl(
        t, "--json", "search", "locker", "--scope", "pinned", "--agent", "alpha", "--limit", "5"
    ).json()
    assert [(h["kind"], h["id"]) for h in hits] == [("pinned_fact", fact)]
    inspected = ctl(t, "inspect", f"pinned:{fact}")
    assert "[redacted email]" in inspected.out and "alpha@example.com" not in inspected.out
    assert "vector:   yes" in inspected.out
    assert ctl(t, "--json", "inspect", f"pinned:{fact}").json()["redactions"] == ["email"]
    # Provenance: the turns a derived row was learned from, redacted like the preview.
    with rig.memoryd.app.store.db.write():
        rig.memoryd.app.store.db.execute(
            "UPDATE pinned_facts SET source_turn_ids = ? WHERE id = ?", (str(turn), fact)
        )
    sourced = ctl(t, "inspect", f"pinned:{fact}").out
    assert "source turns:" in sourced and f"transcript:{turn}" in sourced and "415-555-0199" not in sourced
    assert ctl(t, "disable", f"pinned:{fact}").out.strip() == "disabled"
    assert ctl(t, "disable", f"pinned:{fact}").out.strip() == "already disabled"
    assert ctl(t, "--json", "search", "locker", "--include-disabled").json()[0]["is_disabled"] in (
        True,
        False,
    )
    assert ctl(t, "enable", f"pinned:{fact}").out.strip() == "enabled"
    not_disableable = ctl(t, "disable", f"transcript:{turn}")
    assert not_disableable.code == 5 and "NOT_DISABLEABLE" in not_disableable.err
    assert ctl(t, "forget", f"transcript:{turn}").code == 5  # no --yes, not a terminal
    forgotten = ctl(t, "--json", "forget", f"transcript:{turn}", "--yes")
    assert forgotten.code == 0 and forgotten.json()["vector_removed"] is True
    assert ctl(t, "inspect", f"transcript:{turn}").code == 3
    stats = ctl(t, "stats")
    assert stats.code == 0 and stats.out.splitlines()[1].split()[:2] == ["alpha", "1"]
    assert ctl(t, "--json", "stats").json()["agents"][0]["agent_id"] == "alpha"


def test_diagnose_exit_code_says_whether_the_store_is_healthy(rig: ConsoleRig) -> None:
    t = rig.memoryd.target
    rig.pinned("alpha", "fact")
    unhealthy = ctl(t, "diagnose")  # the row has no vector yet
    assert unhealthy.code == 10 and "STALE" in unhealthy.out and "PROBLEMS FOUND" in unhealthy.out
    rig.index()
    healthy = ctl(t, "diagnose")
    assert healthy.code == 0 and healthy.out.rstrip().endswith("healthy")
    report = ctl(t, "--json", "diagnose").json()
    assert report["healthy"] is True and report["fts"][0]["is_healthy"] is True


def test_preview_command(rig: ConsoleRig) -> None:
    t = rig.memoryd.target
    nothing = ctl(t, "preview", "alpha", "anything")  # the real read path: no trigger, no memory
    assert nothing.code == 0 and "no memory context" in nothing.out
    reader = InMemoryReader()
    reader.add("alpha", Section.EPISODES, "We planned the Lisbon trip; tickets sent to alpha@example.com")
    read_path = ReadPath(reader, lambda: ReadPathSettings(gate_mode=GateMode.OFF))
    rig.memoryd.app.console.attach_read_path(read_path, read_path.invalidate)
    shown = ctl(t, "preview", "alpha", "what about the Lisbon trip", "--max-tokens", "200")
    assert shown.code == 0 and "Lisbon" in shown.out and "alpha@example.com" not in shown.out
    assert ctl(t, "--json", "preview", "alpha", "Lisbon trip").json()["section"] == "episodes"
    assert ctl(t, "preview", "alpha", "x", "--max-tokens", "0").code == 4


def test_config_commands(rig: ConsoleRig) -> None:
    t = rig.memoryd.target
    assert "memory_budget_tokens:" in ctl(t, "config").out
    assert ctl(t, "config", "get", "memory_budget_tokens").out.strip() == "800"
    changed = ctl(t, "--json", "config", "set", "memory_budget_tokens=1200", "relevance_gate_mode=off")
    assert changed.code == 0 and changed.json()["memory_budget_tokens"] == 1200
    assert rig.client.get_config().relevance_gate_mode == "off"
    assert ctl(t, "config", "set", "memory_budget_tokens=99999").code == 4  # out of range, server says so
    assert ctl(t, "config", "set", "relevance_gate_mode=sometimes").code == 2
    assert ctl(t, "config", "set", "nonsense=1").code == 2
    assert ctl(t, "config", "set", "enabled=maybe").code == 2
    assert ctl(t, "config", "get", "nonsense").code == 2


def test_export_clear_import_reindex_commands(rig: ConsoleRig, tmp_path: Path) -> None:
    t = rig.memoryd.target
    rig.pinned("alpha", "Alpha collects vinyl records")
    rig.turn("alpha", "I found a rare vinyl today", "Nice find")
    rig.index()
    before = rig.q("SELECT * FROM pinned_facts") + rig.q("SELECT * FROM transcript")
    dump = tmp_path / "memory.jsonl"
    exported = ctl(t, "export", "-o", str(dump))
    assert exported.code == 0 and "pinned_fact=1" in exported.out and "transcript=2" in exported.out
    streamed = ctl(t, "export", "--agent", "alpha")
    assert streamed.out.splitlines()[0].startswith('{"type":"header"')
    assert ctl(t, "clear").code == 5
    cleared = ctl(t, "--json", "clear", "--yes")
    assert cleared.code == 0 and cleared.json()["rows_deleted"] > 0
    assert rig.q("SELECT count(*) FROM pinned_facts") == [(0,)]
    imported = ctl(t, "import", str(dump))
    assert imported.code == 0 and "pinned_fact=1" in imported.out and "re-embedded 0" in imported.out
    assert rig.q("SELECT * FROM pinned_facts") + rig.q("SELECT * FROM transcript") == before
    again = ctl(t, "--json", "import", "-", stdin=dump.read_text())
    assert again.code == 0 and again.json()["skipped"] > 0
    assert ctl(t, "import", str(tmp_path / "missing.jsonl")).code == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"episode"}\n')
    rejected = ctl(t, "import", str(bad))
    assert rejected.code == 4 and "IMPORT_MISSING_HEADER" in rejected.err
    reindexed = ctl(t, "reindex")
    assert reindexed.code == 0 and "full-text mirrors rebuilt" in reindexed.out
    assert ctl(t, "--json", "reindex", "--agent", "alpha").json()["vector_indexes"][0]["agent_id"] == "alpha"
    assert ctl(t, "reindex", "--agent", "nobody").code == 3


def test_newcomer_friction_in_tables_config_agents_and_json_export(rig: ConsoleRig, tmp_path: Path) -> None:
    """issue 18: STATE was blank for active rows, scores mixed 1.23 with 1.37e-06, config printed True, agents said
    0 entries for an agent with turns, and --json export -o printed text."""
    t = rig.memoryd.target
    rig.pinned("alpha", "Alpha keeps a locker at the gym")
    for i in range(3):
        rig.turn("alpha", f"locker question number {i}", "ok")
    rig.index()
    found = ctl(t, "search", "locker").out.splitlines()
    header = found[0].split()
    state, score = header.index("STATE"), header.index("SCORE")
    rows = [line.split() for line in found[1:]]
    assert {row[0].split(":")[0] for row in rows} == {"pinned", "transcript"}
    assert all(row[state] in ("active", "disabled", "-") for row in rows)
    assert any(row[state] == "active" for row in rows if row[0].startswith("pinned:"))
    assert all("e-" not in row[score] and len(row[score].split(".")[-1]) == 3 for row in rows)
    assert ctl(t, "config", "get", "enabled").out.strip() == "true"
    assert "enabled:" in ctl(t, "config").out and "True" not in ctl(t, "config").out
    listed = ctl(t, "agents").out.splitlines()
    header = listed[0].split()
    assert "TURNS" in header
    assert listed[1].split()[header.index("TURNS")] == "3"
    dump = tmp_path / "dump.jsonl"
    exported = ctl(t, "--json", "export", "-o", str(dump))
    assert exported.code == 0 and exported.err == ""
    report = exported.json()
    assert report["output"] == str(dump)
    assert report["records"]["pinned_fact"] == 1 and report["records"]["transcript"] == 6


def test_error_exit_codes(rig: ConsoleRig) -> None:
    t = rig.memoryd.target
    assert ctl(t, "inspect", "pinned:abc").code == 2
    assert ctl(t, "inspect", "pinned:999").code == 3
    invalid = ctl(t, "--json", "search", "x", "--limit", "500")
    assert invalid.code == 4 and json.loads(invalid.out)["error"]["reason"] == "LIMIT_OUT_OF_RANGE"
    down = main(
        ["--addr", "127.0.0.1:1", "--timeout", "2", "stats"], stdout=io.StringIO(), stderr=io.StringIO()
    )
    assert down == 6


# ------------------------------------------------------------------------------ writer-backed commands
@dataclass
class WiredRig:
    target: str
    app: App
    stub: mpb_grpc.MemoryServiceStub


@pytest.fixture
def wired(tmp_path: Path) -> Iterator[WiredRig]:
    inferd_server, inferd = start_fake_inferd()
    inferd.set_default(
        digest("The user talked about climbing plans.", pinned=[("The user climbs at Arco", 0.8)])
    )
    write_config(tmp_path, coreModel=MODEL, embeddingModel="fake-embed", summaryDebounceSeconds=3600)
    running, app, _writer = start_wired(
        ServiceSettings(listen="127.0.0.1:0", home=tmp_path, inferd_addr=inferd_server.target)
    )
    channel = grpc.insecure_channel(running.target)
    try:
        yield WiredRig(running.target, app, mpb_grpc.MemoryServiceStub(channel))
    finally:
        channel.close()
        running.stop(1)
        app.close()
        inferd_server.stop(0)


def test_ingest_jsonl_sessions_with_progress(wired: WiredRig, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions.jsonl"
    lines: list[dict[str, Any]] = [
        {
            "conversation_id": f"s{i}",
            "session_date": "2024-03-15T10:00:00Z",
            "turns": [
                {
                    "user": f"Session {i}: I am planning a long climbing trip to Arco in the spring with friends.",
                    "assistant": "Arco has great limestone crags.",
                }
            ],
        }
        for i in range(3)
    ]
    lines.append(
        {"agent_id": "other", "conversation_id": "x", "skip_extraction": True, "turns": [{"user": "hi"}]}
    )
    sessions.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    run = ctl(wired.target, "ingest", str(sessions), "--agent", "climber")
    assert run.code == 0, run.err
    assert "ingested 4 sessions, 4 turns" in run.out and "distilled=3" in run.out and "stored=1" in run.out
    assert "[" in run.err and "4/4 sessions" in run.err  # the progress bar (stderr)
    episodes = wired.app.store.db.query("SELECT agent_id, conversation_at_ms FROM episodes ORDER BY id")
    assert [e[0] for e in episodes] == ["climber"] * 3
    assert episodes[0][1] == 1710496800000  # session_date became the episode time
    quiet = ctl(
        wired.target,
        "--json",
        "ingest",
        str(sessions),
        "--agent",
        "climber",
        "--no-progress",
        "--skip-extraction",
    )
    assert quiet.code == 0 and quiet.err == "" and quiet.json()["outcomes"] == {"stored": 4}


def test_ingest_locomo_file(wired: WiredRig, tmp_path: Path) -> None:
    sample = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {
                    "speaker": "Ana",
                    "dia_id": "D1:1",
                    "text": "I started pottery classes last week, it is so relaxing.",
                },
                {"speaker": "Ben", "dia_id": "D1:2", "text": "That sounds wonderful, what did you make?"},
                {
                    "speaker": "Ana",
                    "dia_id": "D1:3",
                    "text": "A small bowl",
                    "blip_caption": "a photo of a bowl",
                },
            ],
            "session_2_date_time": "9:00 am on 10 May, 2023",
            "session_2": [{"speaker": "Ben", "dia_id": "D2:1", "text": "How was the second pottery class?"}],
        },
        "qa": [],
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample]))
    run = ctl(wired.target, "--json", "ingest", str(path), "--skip-extraction", "--no-progress")
    assert run.code == 0, run.err
    assert run.json()["sessions"] == 2 and run.json()["turns"] == 3
    rows = wired.app.store.db.query(
        "SELECT agent_id, conversation_id, role, content FROM transcript ORDER BY id"
    )
    assert rows[0] == (
        "locomo-conv-x",
        "conv-x-session-1",
        "user",
        "Ana: I started pottery classes last week, it is so relaxing.",
    )
    assert rows[1][2:] == ("assistant", "Ben: That sounds wonderful, what did you make?")
    assert rows[2][3] == "Ana: A small bowl [shares a photo of a bowl]"
    assert ctl(wired.target, "ingest", str(tmp_path / "nope.json")).code == 2


def test_sync_and_consolidate_commands(wired: WiredRig) -> None:
    wired.stub.BufferTurn(
        mpb.BufferTurnRequest(
            agent_id="climber",
            conversation_id="live",
            user_message="I am training for a multi-pitch route at Arco next month, any tips?",
            assistant_message="Practise rope management and efficient belay changeovers.",
        ),
        timeout=10,
    )
    synced = ctl(wired.target, "sync", "--agent", "climber")
    assert synced.code == 0, synced.err
    assert "live" in synced.out and "distilled" in synced.out
    assert ctl(wired.target, "--json", "sync").json() == []  # nothing pending any more
    consolidated = ctl(wired.target, "consolidate")
    if "RunConsolidation" in planned(wired.app.memory):
        assert consolidated.code == 7 and "NOT_YET_AVAILABLE" in consolidated.err
    else:
        assert consolidated.code == 0 and "consolidation" in consolidated.out


def test_sync_with_nothing_pending(rig: ConsoleRig) -> None:
    synced = ctl(rig.memoryd.target, "sync")
    assert synced.code == 0 and "nothing pending" in synced.out
    assert ctl(rig.memoryd.target, "ingest", "--help").code == 0


# ----------------------------------------------------------------------------------------------- process
def test_the_installed_memoryctl_runs_as_a_process(rig: ConsoleRig) -> None:
    rig.pinned("alpha", "Alpha fact")
    rig.index()
    script = Path(sys.executable).parent / "memoryctl"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "memoryd.ctl.cli"]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "protos" / "gen")]),
        "OSAURUS_MEMORYD_ADDR": rig.memoryd.target,
    }
    done = subprocess.run(
        [*command, "--json", "diagnose"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["healthy"] is True
    missing = subprocess.run(
        [*command, "inspect", "pinned:9999"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert missing.returncode == 3 and "ITEM_NOT_FOUND" in missing.stderr
