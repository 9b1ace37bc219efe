"""Grounded-distillation benchmark (issue 22): what memoryd stores from real sessions, scored against frozen labels.

The path a user hits: inferd and memoryd run as subprocesses on 127.0.0.1:0 (tests/support/procs.py); each
simulated user of bench/distill_set gets an empty store (ClearAll: one user per install, so the identity section
is theirs), then every session of theirs is sent with `Ingest` in date order with its `session_time` (noon UTC
of the labelled date). Ingest distils synchronously, so its wall time is the user-visible distillation time.
What was stored is read back with the console's `Export` (unredacted, every column; the console's Inspect and
Search previews are redacted, which would hide a leaked secret) and scored by bench/distill_scoring.py.

    python -m bench.bench_distill [--model fake|default|NAME] [--split dev|test|all|dev2|dev3] [--set main|NAME|PATH]
                                  [--limit N] [--locomo]

`--model fake` is inferd's deterministic fake backend; `default` is inferd's default core model
(smollm2-135m-instruct on MLX) with all-MiniLM-L6-v2 embeddings; any other NAME is passed as coreModel to an
inferd started with its default config. `--limit N` distils only the first N sessions (in agent, date order) of
the split, for a smoke test. `--set v3` reads bench/distill_set_v3/sessions.jsonl (same schema as distill_set,
every session split "test", so the default `--split test` takes all of it); `--set PATH` reads any such file;
its dump is bench/results/distill/<model>-<set>-<split>.json. `--locomo` adds the LoCoMo part: every session of the ten conversations in
../shared/bench/locomo10.json (read in place, never copied), one agent per conversation, with its date; it
counts stored items and writes a 20-item sample with source turns to docs/distill-locomo-sample.md.

`python -m bench bench_distill` runs the models in OSAURUS_BENCH_DISTILL_MODELS (default `fake`; `fake,default`
adds the slow MLX run) on OSAURUS_BENCH_DISTILL_SPLIT (default `test`) of OSAURUS_BENCH_DISTILL_SET (default `main`); OSAURUS_BENCH_DISTILL_LOCOMO=1 adds
LoCoMo for the first model. A per-item JSON dump of every run goes to bench/results/distill/.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc

from bench import distill_scoring as ds
from bench.report import BenchResult
from inferd.client import InferenceClient
from memoryd.client import MemoryClient
from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from servicekit.errors import DeadlineExceededError, ServiceError
from tests.support.procs import ServiceProcess, spawn

ISSUE = 22
REPO = Path(__file__).resolve().parents[1]
DUMP_DIR = REPO / "bench" / "results" / "distill"
LOCOMO_DOC = REPO / "docs" / "distill-locomo-sample.md"
#: The second development set (bench/distill_set/dev2.jsonl, same schema, every row split "dev2"), written and frozen
#: before the extractor was tuned on it; `--split dev2` reads it instead of sessions.jsonl.
DEV2_PATH = REPO / "bench" / "distill_set" / "dev2.jsonl"
#: The third development set (dev3.jsonl, every row split "dev3"), written and frozen before the clause-level
#: extractor was tuned, in five languages; `--split dev3` reads it.
DEV3_PATH = REPO / "bench" / "distill_set" / "dev3.jsonl"
DEV_FILES = {"dev2": DEV2_PATH, "dev3": DEV3_PATH}
LOCOMO_SAMPLE = 20
LOCOMO_SEED = 22
#: inferd's default models (inferd/config.py) as memoryd's coreModel / embeddingModel for `--model default`.
DEFAULT_CORE = "smollm2-135m-instruct"
DEFAULT_EMBEDDING = "all-minilm-l6-v2"
#: Client deadline of one Ingest (memoryd itself tries the model call up to 3 times, 300 s each); a session past it
#: is counted as `client_timeout` and the run goes on.
INGEST_TIMEOUT_S = float(os.environ.get("OSAURUS_BENCH_DISTILL_TIMEOUT_S", "900"))
_DROP_KEY = re.compile(r"(ungrounded|dropped|rejected|unverified)[a-z_]*\s*[=:]\s*(\d+)")
_DROP_FIELD = re.compile(r"ungrounded|dropped|rejected|unverified")


#: The frozen set a run reads unless `--set` names another one.
MAIN_SET = "main"
_SET_NAME = re.compile(r"[A-Za-z0-9_-]+")


def set_path(split: str, labelled_set: str = MAIN_SET) -> Path:
    """The labelled file a split lives in.

    The main set: dev2.jsonl / dev3.jsonl for "dev2" / "dev3", sessions.jsonl for dev, test and all. Another set is a name `NAME`
    (bench/distill_set_NAME/sessions.jsonl, e.g. `v3`, whose sessions are all split "test") or the path of a
    .jsonl file of the same schema."""
    if labelled_set == MAIN_SET:
        return DEV_FILES.get(split, ds.SET_PATH)
    if _SET_NAME.fullmatch(labelled_set):
        return REPO / "bench" / f"distill_set_{labelled_set}" / "sessions.jsonl"
    return Path(labelled_set).resolve()


def set_label(labelled_set: str) -> str:
    """A short name of a set for tags and dump files: "main", "v3", or a path's file stem."""
    return labelled_set if _SET_NAME.fullmatch(labelled_set) else Path(labelled_set).stem


def shown_path(path: Path) -> str:
    """A set's path relative to the repository when it lives in it."""
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def load_split(split: str, labelled_set: str = MAIN_SET) -> list[ds.Session]:
    """The sessions of a split, from the file it lives in."""
    path = set_path(split, labelled_set)
    if not path.is_file():
        raise SystemExit(f"bench_distill: no labelled set at {path}")
    return ds.load_set(path, split)


# --------------------------------------------------------------------------------------------------- the stack
@dataclass
class Stack:
    """inferd and memoryd subprocesses, a typed client and a raw stub (for GetStats fields the client drops)."""

    inferd: ServiceProcess
    memoryd: ServiceProcess
    client: MemoryClient
    stub: pb_grpc.MemoryServiceStub
    db: Path
    core_model: str
    #: Seconds spent loading the models before the first session (kept out of the per-session times).
    warmup_s: float = 0.0


def _memory_config(model: str) -> tuple[dict[str, Any], list[str]]:
    """memory.json and inferd's arguments for a model choice."""
    if model == "fake":
        return (
            {"coreModel": "fake-llm", "embeddingModel": "fake-embedding"},
            ["--backend", "fake", "--log-level", "WARNING"],
        )
    core = DEFAULT_CORE if model == "default" else model
    return {"coreModel": core, "embeddingModel": DEFAULT_EMBEDDING}, ["--log-level", "WARNING"]


def _warm_up(target: str, config: dict[str, Any]) -> float:
    """Load the core and embedding models (a GGUF is converted once per home) so sessions are timed warm."""
    started = time.perf_counter()
    inference = InferenceClient(target, deadline_s=INGEST_TIMEOUT_S)
    try:
        for name in (config["coreModel"], config["embeddingModel"]):
            inference.load_model(str(name), timeout_s=INGEST_TIMEOUT_S)
    finally:
        inference.close()
    return time.perf_counter() - started


@contextmanager
def running_stack(home: Path, model: str) -> Iterator[Stack]:
    """Start inferd and memoryd for `model` under `home`; stop both on exit."""
    config, inferd_args = _memory_config(model)
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "memory.json").write_text(json.dumps(config), encoding="utf-8")
    inferd = spawn("inferd", home, inferd_args, timeout_s=300)
    try:
        warmup_s = _warm_up(inferd.target, config) if model != "fake" else 0.0
        memoryd = spawn("memoryd", home, ["--inferd", inferd.target, "--log-level", "WARNING"])
    except Exception:
        inferd.stop(signal.SIGTERM)
        raise
    client = MemoryClient(memoryd.target, deadline_s=120)
    # The typed client drops GetStats fields it does not know; this raw channel reads them.
    channel = grpc.insecure_channel(memoryd.target)
    try:
        yield Stack(
            inferd,
            memoryd,
            client,
            pb_grpc.MemoryServiceStub(channel),
            home / "memory" / "memory.sqlite",
            str(config["coreModel"]),
            warmup_s,
        )
    finally:
        channel.close()
        client.close()
        memoryd.stop(signal.SIGTERM)
        inferd.stop(signal.SIGTERM)


# ------------------------------------------------------------------------------------------ reading the store
def _is_active(record: dict[str, Any]) -> bool:
    """Active and not superseded (a supersession column, whatever its name, set means not injectable)."""
    if str(record.get("status", "active")) != "active":
        return False
    return not any(key.startswith("superseded") and record[key] for key in record)


def items_from_export(lines: Sequence[str]) -> tuple[list[ds.StoredItem], list[dict[str, Any]]]:
    """Every piece of derived memory in an Export as StoredItems (episodes split into summary, decisions,
    action items and entities), and the raw episode records."""
    records = [json.loads(line) for line in lines]
    episodes = {int(r["id"]): r for r in records if r.get("type") == "episode"}
    items: list[ds.StoredItem] = []
    for r in records:
        kind = r.get("type")
        if kind == "identity" and str(r.get("content") or "").strip():
            items.append(ds.StoredItem(ds.NARRATIVE, "narrative", "", str(r["content"]), True))
        elif kind == "episode":
            active, when, conv = (
                _is_active(r),
                int(r.get("conversation_at_ms") or 0),
                str(r["conversation_id"]),
            )
            rid = str(r["id"])
            parts = [(ds.SUMMARY, str(r.get("summary") or ""))]
            parts += [(ds.DECISION, d) for d in str(r.get("decisions") or "").split("\n")]
            parts += [(ds.ACTION, a) for a in str(r.get("action_items") or "").split("\n")]
            parts += [(ds.ENTITY, e) for e in str(r.get("entities_csv") or "").split(",")]
            for n, (sub, text) in enumerate(parts):
                if text.strip():
                    items.append(
                        ds.StoredItem(
                            sub,
                            f"{rid}.{n}" if n else rid,
                            str(r["agent_id"]),
                            text.strip(),
                            active,
                            when,
                            conv,
                        )
                    )
        elif kind in (ds.PINNED, ds.IDENTITY_FACT):
            source = episodes.get(int(r.get("source_episode_id") or 0), {})
            items.append(
                ds.StoredItem(
                    str(kind),
                    str(r["id"]),
                    str(r.get("agent_id") or ""),
                    str(r.get("content") or ""),
                    _is_active(r),
                    int(source.get("conversation_at_ms") or 0),
                    str(r.get("source_conversation_id") or source.get("conversation_id") or ""),
                )
            )
    return items, list(episodes.values())


@dataclass(frozen=True)
class LogRow:
    """One distillation row of processing_log (no memory content in it)."""

    agent_id: str
    task_type: str
    status: str
    details: str
    duration_ms: int


def consolidation_passes(db: Path, since_ms: int) -> int:
    """Consolidation passes recorded since `since_ms` (a pass may prune or merge the user's episodes mid-run)."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return int(
            connection.execute(
                "SELECT count(*) FROM processing_log WHERE created_at_ms >= ? AND task_type = 'consolidate'",
                (since_ms,),
            ).fetchone()[0]
        )
    finally:
        connection.close()


def distill_log(db: Path, since_ms: int) -> list[LogRow]:
    """processing_log rows of distillation since `since_ms`, read-only (the log is not exported)."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        rows = connection.execute(
            "SELECT agent_id, task_type, status, details, duration_ms FROM processing_log "
            "WHERE created_at_ms >= ? AND task_type LIKE 'distill%' ORDER BY id",
            (since_ms,),
        ).fetchall()
    finally:
        connection.close()
    return [LogRow(str(a), str(t), str(s), str(d), int(ms)) for a, t, s, d, ms in rows]


def dropped_from_log(rows: Sequence[LogRow]) -> int | None:
    """Items dropped by verification, summed from processing_log details; None when no row reports the count."""
    found = [int(n) for row in rows for _, n in _DROP_KEY.findall(row.details)]
    return sum(found) if found else None


def dropped_from_stats(stub: pb_grpc.MemoryServiceStub) -> int | None:
    """A GetStats counter of dropped/ungrounded items, when the pipeline exposes one (searched by field name)."""
    reply = stub.GetStats(pb.GetStatsRequest(), timeout=30)

    def walk(message: Any) -> list[int]:
        out: list[int] = []
        for descriptor, value in message.ListFields():
            if descriptor.message_type is not None and descriptor.message_type.GetOptions().map_entry:
                # A map (e.g. dropped counts by reason): its values, messages walked, numbers counted by the
                # map's own name.
                inner = descriptor.message_type.fields_by_name["value"]
                for item in value.values():
                    if inner.message_type is not None:
                        out += walk(item)
                    elif _DROP_FIELD.search(descriptor.name) and isinstance(item, int):
                        out.append(int(item))
            elif descriptor.message_type is not None:
                values = value if descriptor.is_repeated else [value]
                for sub in values:
                    out += walk(sub)
            elif _DROP_FIELD.search(descriptor.name) and isinstance(value, int):
                out.append(int(value))
        return out

    def declared(descriptor: Any, seen: frozenset[str] = frozenset()) -> bool:
        if descriptor.full_name in seen:
            return False
        inner = seen | {descriptor.full_name}
        return any(
            _DROP_FIELD.search(f.name) or (f.message_type is not None and declared(f.message_type, inner))
            for f in descriptor.fields
        )

    if not declared(pb.GetStatsResponse.DESCRIPTOR):
        return None
    return sum(walk(reply))


def inspect_items(client: MemoryClient, items: Sequence[ds.StoredItem]) -> dict[str, dict[str, str]]:
    """Inspect's metadata (redacted; source turns once the pipeline records them) of each stored row."""
    kinds = {ds.PINNED: "pinned_fact", ds.IDENTITY_FACT: "identity_fact", ds.SUMMARY: "episode"}
    out: dict[str, dict[str, str]] = {}
    for item in items:
        kind = kinds.get(item.kind)
        if kind is None or not item.row_id.isdigit():
            continue
        try:
            out[f"{item.kind}:{item.row_id}"] = dict(client.inspect(kind, int(item.row_id)).metadata)
        except ServiceError as error:  # a kind Inspect does not serve yet: say so in the dump
            out[f"{item.kind}:{item.row_id}"] = {"inspect_error": type(error).__name__}
    return out


def source_turns(metadata: dict[str, str]) -> str | None:
    """The source-turn field of an Inspect answer, if the pipeline exposes one."""
    for key, value in sorted(metadata.items()):
        if "source_turn" in key or key in ("turns", "source_turns"):
            return value
    return None


# ------------------------------------------------------------------------------------------------- one run
@dataclass
class SessionRun:
    """How one Ingest ended."""

    session_id: str
    agent_id: str
    outcome: str
    wall_ms: float
    turns: int


@dataclass
class ModelRun:
    """A model's run over a split: per-agent scores, sessions, log rows, timings."""

    model: str
    core_model: str
    split: str
    scores: list[ds.AgentScore]
    sessions: list[SessionRun]
    log: list[LogRow]
    dropped: int | None
    dropped_source: str
    dump_path: Path | None = None
    limited: bool = False
    warmup_s: float = 0.0
    consolidation_passes: int = 0
    inspected: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    episodes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: Which labelled set (`--set`): "main" or another set's name or path.
    labelled_set: str = MAIN_SET

    @property
    def tag(self) -> str:
        """The split, prefixed by the set's name when it is not the main set ("v3/test")."""
        if self.labelled_set == MAIN_SET:
            return self.split
        return f"{set_label(self.labelled_set)}/{self.split}"


def session_time_ms(day: str) -> int:
    """Noon UTC of a YYYY-MM-DD date, in epoch ms."""
    return int(datetime.strptime(day, "%Y-%m-%d").replace(hour=12, tzinfo=UTC).timestamp() * 1000)


def ingest_agent(stack: Stack, agent: str, sessions: Sequence[ds.Session]) -> list[SessionRun]:
    """A fresh store for this user, then every session in date order through Ingest."""
    stack.client.clear_all(confirm=True)
    stack.client.upsert_agent(agent, search_memory_enabled=True)
    runs = []
    for session in sessions:
        started = time.perf_counter()
        try:
            outcome = stack.client.ingest(
                agent,
                session.id,
                session.turns,
                session_time_ms=session_time_ms(session.date),
                timeout_s=INGEST_TIMEOUT_S,
            ).distillation
        except DeadlineExceededError:
            # Counted as a session that stored nothing in time; memoryd keeps its signals pending.
            outcome = f"client_timeout:{INGEST_TIMEOUT_S:.0f}s"
        wall_ms = (time.perf_counter() - started) * 1000
        runs.append(SessionRun(session.id, agent, outcome, wall_ms, len(session.turns)))
        print(f"bench_distill: {session.id}: {outcome} in {wall_ms / 1000:.2f} s", flush=True)
    return runs


def run_model(
    model: str, split: str, limit: int = 0, home: Path | None = None, labelled_set: str = MAIN_SET
) -> ModelRun:
    """Distil the split's sessions with `model` and score them; writes the per-item dump."""
    sessions = load_split(split, labelled_set)
    if not sessions:
        raise SystemExit(f"bench_distill: no session of split {split!r} in {set_path(split, labelled_set)}")
    if limit:
        sessions = sessions[:limit]
    grouped = ds.by_agent(sessions)
    with (
        tempfile.TemporaryDirectory(prefix="bench-distill-") as tmp,
        running_stack(home or Path(tmp), model) as stack,
    ):
        since_ms = int(time.time() * 1000)
        scores, runs, episodes = [], [], {}
        inspected: dict[str, dict[str, dict[str, str]]] = {}
        for agent, agent_sessions in grouped.items():
            runs += ingest_agent(stack, agent, agent_sessions)
            items, raw_episodes = items_from_export(list(stack.client.export()))
            episodes[agent] = raw_episodes
            inspected[agent] = inspect_items(stack.client, items)
            scores.append(ds.score_agent(agent, agent_sessions, items))
        log = distill_log(stack.db, since_ms)
        dropped, source = dropped_from_log(log), "processing_log details"
        if dropped is None:
            dropped, source = dropped_from_stats(stack.stub), "GetStats"
        if dropped is None:
            source = "not exposed by the pipeline (no processing_log detail or GetStats field counts it)"
        core, warmup_s = stack.core_model, stack.warmup_s
        passes = consolidation_passes(stack.db, since_ms)
    run = ModelRun(
        model,
        core,
        split,
        scores,
        runs,
        log,
        dropped,
        source,
        limited=bool(limit),
        warmup_s=warmup_s,
        consolidation_passes=passes,
        inspected=inspected,
        episodes=episodes,
        labelled_set=labelled_set,
    )
    run.dump_path = write_dump(run, sessions)
    return run


# --------------------------------------------------------------------------------------------------- figures
def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _seconds(values: Sequence[float], q: float) -> str:
    found = ds.percentile(values, q)
    return "n/a" if found is None else f"{found / 1000:.2f} s"


def timing(run: ModelRun) -> tuple[list[float], list[float]]:
    """Ingest wall times, and processing_log model-call durations (ms)."""
    wall = [s.wall_ms for s in run.sessions]
    logged = [float(r.duration_ms) for r in run.log if r.task_type == "distill"]
    return wall, logged


def results(run: ModelRun) -> list[BenchResult]:
    """Headline rows for docs/benchmarks.md, the detail section on the first."""
    t = ds.totals(run.scores)
    wall, _ = timing(run)
    tag = f"distill [{run.model}, {run.tag}]"
    violations = sum(hit for hit, _ in t.must_not.values())
    must_not_total = sum(total for _, total in t.must_not.values())
    rows = [
        BenchResult(
            ISSUE,
            f"{tag} fact precision strict / lenient",
            f"{_pct(t.precision_strict)} / {_pct(t.precision_lenient)} of {t.precision_items} items",
            "≥ 95%",
            detail(run, t),
        ),
        BenchResult(
            ISSUE,
            f"{tag} fact precision strict, unlabelled items checked against the transcript",
            f"{_pct(t.precision_checked_strict)} ({t.precision_true}+{t.precision_checked}/{t.precision_items})",
            "≥ 95%",
        ),
        BenchResult(ISSUE, f"{tag} fact recall", f"{_pct(t.recall)} ({t.facts_found}/{t.facts})", "≥ 70%"),
        BenchResult(
            ISSUE, f"{tag} supersession accuracy", f"{_pct(t.supersession)} ({t.stale_ok}/{t.stale})", "≥ 90%"
        ),
        BenchResult(
            ISSUE,
            f"{tag} supersession accuracy before the chain rule (bench/distill_set/README.md)",
            f"{_pct(t.stale_ok_before_chain_rule / t.stale if t.stale else None)} "
            f"({t.stale_ok_before_chain_rule}/{t.stale})",
            "for comparison",
        ),
        BenchResult(ISSUE, f"{tag} must_not violated", f"{violations}/{must_not_total}", "0"),
        BenchResult(
            ISSUE,
            f"{tag} items dropped as ungrounded",
            "n/a" if run.dropped is None else str(run.dropped),
            "counted",
        ),
        BenchResult(ISSUE, f"{tag} items copied from the prompt", f"{t.copied}/{t.items}", "0"),
        BenchResult(
            ISSUE,
            f"{tag} items copied from the prompt, any shared run (the rule before 2026-12-07)",
            f"{t.copied_any_run}/{t.items}",
            "reference",
        ),
        BenchResult(ISSUE, f"{tag} looping items", f"{t.looping}/{t.items}", "0"),
        BenchResult(
            ISSUE,
            f"{tag} distillation time p50 / p95 (Ingest wall)",
            f"{_seconds(wall, 0.5)} / {_seconds(wall, 0.95)}",
            "≤ 10 s p50 (default model)",
        ),
    ]
    return rows


def detail(run: ModelRun, t: ds.Totals) -> str:
    """The markdown section: method, per-kind counts, must_not by why, outcomes, timings."""
    wall, logged = timing(run)
    kinds = Counter(v.item.kind for s in run.scores for v in s.verdicts if v.item.active)
    hit_kinds = Counter(v.item.kind for s in run.scores for v in s.verdicts if v.must_not)
    outcomes = Counter(s.outcome.split(":")[0] for s in run.sessions)
    langs = Counter(
        s.lang
        for s in load_split(run.split, run.labelled_set)
        if s.id in {r.session_id for r in run.sessions}
    )
    lines = [
        f"### Grounded distillation — `{run.model}` (coreModel `{run.core_model}`), {run.tag} split",
        "",
        f"{len(run.sessions)} sessions of {len(run.scores)} simulated users from the frozen set "
        f"`{shown_path(set_path(run.split, run.labelled_set))}` (languages: "
        + ", ".join(f"{k} {v}" for k, v in sorted(langs.items()))
        + "), each user in an empty store, sessions sent with `Ingest` in date order with their date; "
        "memory read back with the console's `Export`. Outcomes: "
        + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
        + ". Labels are phrase matchers written with the set before any tuning (every group of a label must "
        "occur in the item, accents and case folded; rules in `bench/distill_set/README.md`); a must_not counts "
        "wherever it appears in derived memory (facts, narrative, summaries, decisions, action items, entities). "
        "Read the per-item dump before trusting a single figure.",
        "",
        "| figure | value | how |",
        "| --- | --- | --- |",
        f"| fact precision, strict | {_pct(t.precision_strict)} ({t.precision_true}/{t.precision_items}) | "
        "active pinned + identity facts matching a labelled or allowed fact of the user (and no must_not) / all of them |",
        f"| fact precision, strict with transcript check | {_pct(t.precision_checked_strict)} "
        f"({t.precision_true} labelled + {t.precision_checked} checked / {t.precision_items}) | as strict, but an "
        "unlabelled item that is the user's own name as they introduced themselves, or someone they named with "
        "'my <relation>', counts as true (bench/distill_truth.py; the rule reads only the transcript) |",
        f"| fact precision, lenient | {_pct(t.precision_lenient)} ({t.precision_true}/"
        f"{t.precision_true + t.precision_wrong}) | unlabelled items left out: true / (true + items matching a must_not) |",
        f"| fact recall | {_pct(t.recall)} ({t.facts_found}/{t.facts}) | labelled facts (stale ones excluded) matched by an "
        "active pinned fact, identity fact, or an episode's decision / action item |",
        f"| supersession accuracy | {_pct(t.supersession)} ({t.stale_ok}/{t.stale}) | stale fact on no active pinned / "
        "identity fact / narrative (unless that item also states the replacement or is labelled true by the correcting "
        "or a later session, e.g. 'Dana left'), and the replacement yielded |",
        f"| items dropped as ungrounded | {'n/a' if run.dropped is None else run.dropped} | {run.dropped_source} |",
        f"| copied from the prompt | {t.copied} of {t.items} items (any shared run: {t.copied_any_run}) | a prompt "
        "header, or an 8-word run of an earlier episode summary of the same user that the item's own session does not "
        "account for (the user saying it again: its words, beside the memory's frame words, are in that session's "
        "user turns) |",
        f"| looping | {t.looping} of {t.items} items | a word 4-gram repeated within the item |",
        f"| Ingest wall time p50 / p95 | {_seconds(wall, 0.5)} / {_seconds(wall, 0.95)} | per session, client side |",
        f"| model call p50 / p95 (processing_log) | {_seconds(logged, 0.5)} / {_seconds(logged, 0.95)} | "
        "`duration_ms` of `distill` rows |",
        f"| model load before the first session | {run.warmup_s:.1f} s | LoadModel of core + embedding model, "
        "not in the times above |",
        "",
        "must_not entries violated (some stored item of the user matches), by why: "
        + ", ".join(f"{why} {hit}/{total}" for why, (hit, total) in t.must_not.items())
        + ".",
        "",
        "must_not hits by kind of stored item: "
        + (", ".join(f"{k} {v}" for k, v in sorted(hit_kinds.items())) or "none")
        + f". Consolidation passes during the run: {run.consolidation_passes} (memoryd schedules its first "
        "pass 5 minutes after start; a pass may prune or merge the user's episodes before they are read back).",
        "",
        "Active stored items by kind: "
        + (", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "none")
        + ".",
    ]
    if run.dump_path is not None:
        lines += ["", f"Every item with its verdict: `{run.dump_path.relative_to(REPO)}`."]
    return "\n".join(lines)


def write_dump(run: ModelRun, sessions: Sequence[ds.Session]) -> Path:
    """bench/results/distill/<model>-<split>.json: every stored item with its verdict, recall and supersession."""
    DUMP_DIR.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", run.model)
    suffix = f"-limit{len(run.sessions)}" if run.limited else ""
    prefix = "" if run.labelled_set == MAIN_SET else f"{set_label(run.labelled_set)}-"
    path = DUMP_DIR / f"{safe}-{prefix}{run.split}{suffix}.json"
    payload = {
        "model": run.model,
        "core_model": run.core_model,
        "split": run.split,
        "set": shown_path(set_path(run.split, run.labelled_set)),
        "sessions": [asdict(s) for s in run.sessions],
        "dropped": run.dropped,
        "dropped_source": run.dropped_source,
        "agents": [
            {
                "agent_id": score.agent_id,
                "items": [
                    {
                        **asdict(v.item),
                        "labelled_facts": v.facts,
                        "allowed_matches": v.allowed,
                        "must_not": v.must_not,
                        "scaffolding": v.scaffolding,
                        "copied_summary": v.copied_summary,
                        "copied_any_run": v.copied_any_run,
                        "looping": v.looping,
                        "checked": v.checked,
                    }
                    for v in score.verdicts
                ],
                "inspect": run.inspected.get(score.agent_id, {}),
                "recall": score.recall,
                "supersession": [
                    {"stale": stale, "by": by, "stale_still_active": still, "replacement_active": new}
                    for (stale, by), (still, new) in score.supersession.items()
                ],
                "must_not": {why: list(v) for why, v in score.must_not.items()},
            }
            for score in run.scores
        ],
    }
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------------------ LoCoMo
@dataclass
class LocomoRun:
    """What distilling every LoCoMo session stored."""

    sessions: int
    outcomes: Counter[str]
    items: list[ds.StoredItem]
    dropped: int | None
    turns: dict[str, list[tuple[str, str]]]
    wall_ms: list[float]
    #: The sampled items with their Inspect metadata (read before the next conversation's ClearAll).
    sample: list[tuple[ds.StoredItem, dict[str, str]]] = field(default_factory=list)


def locomo_sessions(conversation: Any) -> list[tuple[str, int, list[tuple[str, str]]]]:
    """(conversation id, session time ms, (user, assistant) pairs) per session: speaker turns paired in order."""
    by_session: dict[int, list[Any]] = {}
    for turn in conversation.turns:
        by_session.setdefault(turn.session, []).append(turn)
    out = []
    for number, turns in sorted(by_session.items()):
        texts = [t.text for t in turns]
        pairs = [(texts[i], texts[i + 1] if i + 1 < len(texts) else "") for i in range(0, len(texts), 2)]
        out.append((f"{conversation.sample_id}-s{number}", turns[0].occurred_at_ms, pairs))
    return out


def run_locomo(model: str, conversations_limit: int = 0) -> LocomoRun:
    """Distil every session of the LoCoMo conversations (one fresh store each) and read back what was stored."""
    from bench import locomo_data as lc

    conversations = lc.load()
    if conversations_limit:
        conversations = conversations[:conversations_limit]
    items: list[ds.StoredItem] = []
    outcomes: Counter[str] = Counter()
    turns: dict[str, list[tuple[str, str]]] = {}
    wall: list[float] = []
    sample: list[tuple[ds.StoredItem, dict[str, str]]] = []
    per_conversation = max(1, -(-LOCOMO_SAMPLE // max(1, len(conversations))))
    count = 0
    with (
        tempfile.TemporaryDirectory(prefix="bench-distill-locomo-") as tmp,
        running_stack(Path(tmp), model) as stack,
    ):
        since_ms = int(time.time() * 1000)
        for conversation in conversations:
            agent = f"locomo-{conversation.sample_id}"
            stack.client.clear_all(confirm=True)
            stack.client.upsert_agent(agent)
            for conv_id, when_ms, pairs in locomo_sessions(conversation):
                started = time.perf_counter()
                try:
                    outcome = stack.client.ingest(
                        agent, conv_id, pairs, session_time_ms=when_ms, timeout_s=INGEST_TIMEOUT_S
                    ).distillation
                except DeadlineExceededError:
                    outcome = "client_timeout"
                wall.append((time.perf_counter() - started) * 1000)
                outcomes[outcome.split(":")[0]] += 1
                turns[conv_id] = pairs
                count += 1
            stored, _ = items_from_export(list(stack.client.export()))
            stored = [i for i in stored if i.kind != ds.ENTITY]
            items += stored
            picked = _sample(stored, conversation.sample_id, per_conversation)
            found = inspect_items(stack.client, picked)
            sample += [(i, found.get(f"{i.kind}:{i.row_id}", {})) for i in picked]
            print(
                f"bench_distill: LoCoMo {conversation.sample_id} done ({count} sessions so far)", flush=True
            )
        dropped = dropped_from_log(distill_log(stack.db, since_ms))
        if dropped is None:
            dropped = dropped_from_stats(stack.stub)
    return LocomoRun(count, outcomes, items, dropped, turns, wall, sample[:LOCOMO_SAMPLE])


def _sample(stored: Sequence[ds.StoredItem], sample_id: str, n: int) -> list[ds.StoredItem]:
    """n active items of one conversation, drawn with a seed per conversation."""
    active = [i for i in stored if i.active]
    return random.Random(f"{LOCOMO_SEED}:{sample_id}").sample(active, min(n, len(active)))


def locomo_results(run: LocomoRun, model: str) -> list[BenchResult]:
    """The LoCoMo row, and the sample file for a reader."""
    stored = [i for i in run.items if i.active]
    kinds = Counter(i.kind for i in stored)
    looping = sum(ds.is_looping(i.text) for i in stored)
    scaffold = sum(ds.copied_scaffolding(i.text) is not None for i in stored)
    passed = (
        f"{len(stored)} stored"
        if run.dropped is None
        else f"{len(stored)}/{len(stored) + run.dropped} passed"
    )
    write_locomo_sample(run, model)
    text = (
        f"### LoCoMo distillation — `{model}`\n\n{run.sessions} sessions of the 10 LoCoMo conversations "
        "(../shared/bench/locomo10.json, read in place), one empty store per conversation, speaker turns paired "
        "in order as (user, assistant), each session sent with `Ingest` and its date. Outcomes: "
        + ", ".join(f"{k} {v}" for k, v in sorted(run.outcomes.items()))
        + f". Stored items (entities not counted): {len(stored)} ("
        + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
        + f"); dropped by verification: {'n/a (not exposed yet)' if run.dropped is None else run.dropped}; "
        f"with a prompt header {scaffold}, looping {looping}. Ingest wall p50 {_seconds(run.wall_ms, 0.5)}, "
        f"p95 {_seconds(run.wall_ms, 0.95)}. A sample of {LOCOMO_SAMPLE} stored items with their source turns: "
        f"`{LOCOMO_DOC.relative_to(REPO)}`."
    )
    return [
        BenchResult(ISSUE, f"distill [{model}] LoCoMo items stored", passed, "reader judges sample", text)
    ]


def write_locomo_sample(run: LocomoRun, model: str) -> None:
    """docs/distill-locomo-sample.md: LOCOMO_SAMPLE stored items (seeded) with the turns of their session."""
    stored = [i for i in run.items if i.active]
    lines = [
        f"# LoCoMo distillation sample (`{model}`)",
        "",
        f"Written by `python -m bench.bench_distill --model {model} --locomo` on "
        f"{datetime.now(UTC).date().isoformat()}: {len(run.sample)} of {len(stored)} stored items (two per "
        f"conversation, seed {LOCOMO_SEED}), each with its source turns, for a reader to judge whether it is true "
        "to them. Source turns are the ones Inspect reports for the item when the pipeline records them, else "
        "every turn of the session it came from. The turns quote LoCoMo (Maharana et al., 2024, "
        "https://github.com/snap-research/locomo), CC BY-NC 4.0.",
    ]
    for n, (item, metadata) in enumerate(run.sample, 1):
        source = run.turns.get(item.conversation_id, [])
        lines += ["", f"## {n}. {item.kind} `{item.row_id}` — session `{item.conversation_id or '?'}`", ""]
        lines += ["> " + item.text.replace("\n", " "), ""]
        cited = source_turns(metadata)
        if cited is not None:
            lines += [f"Source turns (Inspect): {cited}", ""]
        lines += ["<details><summary>the session's turns</summary>", ""]
        for user, assistant in source:
            lines.append(f"- {user}")
            if assistant:
                lines.append(f"- {assistant}")
        if not source:
            lines.append("- (no source session recorded for this item)")
        lines += ["", "</details>"]
    LOCOMO_DOC.write_text("\n".join(lines) + "\n", encoding="utf-8")


# -------------------------------------------------------------------------------------------------- entries
def run() -> list[BenchResult]:
    """`python -m bench bench_distill`: the models of OSAURUS_BENCH_DISTILL_MODELS on the chosen split of each set
    of OSAURUS_BENCH_DISTILL_SET (comma-separated)."""
    models = [
        m.strip() for m in os.environ.get("OSAURUS_BENCH_DISTILL_MODELS", "fake").split(",") if m.strip()
    ]
    split = os.environ.get("OSAURUS_BENCH_DISTILL_SPLIT", "test")
    # Comma-separated: every named set is run with every model (e.g. "main,v3": the test split and v3).
    labelled_sets = [
        s.strip() for s in os.environ.get("OSAURUS_BENCH_DISTILL_SET", MAIN_SET).split(",") if s.strip()
    ]
    out: list[BenchResult] = []
    for labelled_set in labelled_sets:
        for model in models:
            out += results(run_model(model, split, labelled_set=labelled_set))
    if os.environ.get("OSAURUS_BENCH_DISTILL_LOCOMO", "0") == "1" and models:
        out += locomo_results(run_locomo(models[0]), models[0])
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: one model, one split; prints the headline rows and the detail section."""
    parser = argparse.ArgumentParser(prog="python -m bench.bench_distill", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--model", default="fake", help="fake, default (MLX SmolLM2-135M) or a coreModel name"
    )
    parser.add_argument(
        "--split",
        choices=("dev", "test", "all", "dev2", "dev3"),
        default="test",
        help="a split of sessions.jsonl, or dev2 / dev3 (bench/distill_set/dev2.jsonl, dev3.jsonl)",
    )
    parser.add_argument(
        "--set",
        dest="labelled_set",
        default=MAIN_SET,
        help="main (bench/distill_set), a name NAME (bench/distill_set_NAME/sessions.jsonl, e.g. v3: every "
        "session split test) or the path of a .jsonl file of the same schema",
    )
    parser.add_argument("--limit", type=int, default=0, help="distil only the first N sessions (smoke test)")
    parser.add_argument("--locomo", action="store_true", help="also distil the LoCoMo conversations")
    parser.add_argument("--locomo-limit", type=int, default=0, help="only the first N LoCoMo conversations")
    parser.add_argument("--skip-set", action="store_true", help="LoCoMo only")
    parser.add_argument(
        "--home", type=Path, help="keep the services' home here (logs, store) instead of a temporary folder"
    )
    args = parser.parse_args(argv)
    rows: list[BenchResult] = []
    if not args.skip_set:
        rows += results(run_model(args.model, args.split, args.limit, args.home, args.labelled_set))
    if args.locomo:
        rows += locomo_results(run_locomo(args.model, args.locomo_limit), args.model)
    for row in rows:
        print(f"{row.metric}: {row.value} (target {row.target})")
    for row in rows:
        if row.detail:
            print("\n" + row.detail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
