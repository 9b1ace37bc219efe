"""RunConsolidation over gRPC: the report in order, ABORTED while a pass runs, and the request path (BufferTurn,
SearchMemory) answering normally while a pass is in the middle of its work."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import grpc
import pytest

from memoryd.consolidate import ConsolidatorOptions, jobs
from memoryd.consolidate.report import STEP_ORDER, StepResult
from memoryd.storage.maintenance import Selection
from memoryd.storage.store import Store
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2 as pb
from servicekit.errors import from_rpc_error
from tests.support.consolidate_rows import (
    DAY_MS,
    fixed_pacer,
    insert_episode,
    insert_fact,
    insert_turn,
    mark_learned,
)
from tests.support.consolidate_server import ConsolidatingMemoryd, running_consolidating_memoryd
from tests.support.store_kinds import STORE_KINDS


def test_run_consolidation_returns_the_report(tmp_path: Path) -> None:
    with running_consolidating_memoryd(tmp_path) as memoryd:
        store = memoryd.app.store
        now = int(time.time() * 1000)
        insert_fact(
            memoryd.app.store,
            "a",
            "a forgotten fact",
            salience=0.05,
            created_ms=now - 90 * DAY_MS,
            last_decayed_ms=now,
        )
        insert_turn(store, "a", "a message from two years ago", created_ms=now - 730 * DAY_MS)
        mark_learned(store, now - 730 * DAY_MS)  # and learned then: a live turn, not backfilled history
        reply = memoryd.memory.RunConsolidation(pb.RunConsolidationRequest(), timeout=30)
        report = reply.report
        assert tuple(s.name for s in report.steps) == STEP_ORDER
        assert report.trigger == "manual"
        steps = {s.name: s for s in report.steps}
        assert steps["evict"].rows_changed == 1
        assert steps["prune"].rows_changed == 1
        assert steps["identity"].skip_reason == "no_identity_facts"
        assert report.duration_ms >= 0 and abs(report.start_time.ToMilliseconds() - now) < 60_000
        assert all(not s.error for s in report.steps)
        # Also kept in processing_log.
        assert store.db.scalar("SELECT count(*) FROM processing_log WHERE task_type = 'consolidate'") == 1


def _seed(store: Store, rows: int) -> None:
    """Distinct episodes older than the default 365-day retention."""
    now = int(time.time() * 1000)
    for i in range(rows):
        insert_episode(
            store, "agent", f"Episode {i} about subject {i} and topic {i * 7}", at_ms=now - 400 * DAY_MS
        )


def test_aborted_while_a_pass_runs_and_requests_are_served_meanwhile(tmp_path: Path) -> None:
    inside, release = threading.Event(), threading.Event()

    def hold(step: str) -> None:
        if step == "prune":  # stop in the middle of a step that deletes rows
            inside.set()
            release.wait(30)

    options = ConsolidatorOptions(pacer_factory=lambda: fixed_pacer(5), on_batch=hold)
    with running_consolidating_memoryd(tmp_path, options=options) as memoryd:
        _seed(memoryd.app.store, 20)
        memoryd.memory.UpsertAgent(
            pb.UpsertAgentRequest(agent_id="agent", search_memory_enabled=True), timeout=5
        )
        replies: list[pb.RunConsolidationResponse] = []
        worker = threading.Thread(
            target=lambda: replies.append(
                memoryd.memory.RunConsolidation(pb.RunConsolidationRequest(), timeout=60)
            )
        )
        worker.start()
        try:
            assert inside.wait(20)
            with pytest.raises(grpc.RpcError) as caught:
                memoryd.memory.RunConsolidation(pb.RunConsolidationRequest(), timeout=10)
            error = from_rpc_error(caught.value)
            assert caught.value.code() == grpc.StatusCode.ABORTED and error.reason == "CONSOLIDATION_RUNNING"

            # The pass is mid-prune; the hot path is not waiting for it.
            latencies = []
            for i in range(20):
                started = time.perf_counter()
                reply = memoryd.memory.BufferTurn(
                    pb.BufferTurnRequest(
                        agent_id="agent", conversation_id="live", user_message=f"hello number {i}"
                    ),
                    timeout=2,
                )
                latencies.append(time.perf_counter() - started)
                assert reply.signal_id > 0
            found = memoryd.memory.SearchMemory(
                pb.SearchMemoryRequest(
                    agent_id="agent", scope=pb.SCOPE_TRANSCRIPT, query="hello number", limit=5
                ),
                timeout=2,
            )
            assert len(found.hits) == 5
            assert max(latencies) < 1.0
        finally:
            release.set()
            worker.join(60)
        report = replies[0].report
        assert {s.name: s.rows_changed for s in report.steps}["prune"] == 20


def _encrypt(memoryd: ConsolidatingMemoryd) -> None:
    console = cpb_grpc.MemoryConsoleServiceStub(grpc.insecure_channel(memoryd.target))
    console.SetEncryption(cpb.SetEncryptionRequest(mode=cpb.ENCRYPTION_MODE_KEY_FILE), timeout=60)
    assert memoryd.app.store.db.is_encrypted


@pytest.mark.parametrize("kind", STORE_KINDS)
def test_idle_facts_decay_and_are_evicted_on_both_kinds_of_store(tmp_path: Path, kind: str) -> None:
    with running_consolidating_memoryd(tmp_path) as memoryd:
        if kind == "encrypted":
            _encrypt(memoryd)
        now = int(time.time() * 1000)
        for i in range(20):  # salience 0.12 decayed 60 days: 0.12 * e^-2 = 0.016, under the 0.05 floor
            insert_fact(
                memoryd.app.store,
                "a",
                f"idle fact {i}",
                salience=0.12,
                created_ms=now - 60 * DAY_MS,
                last_decayed_ms=now - 60 * DAY_MS,
            )
        report = memoryd.memory.RunConsolidation(pb.RunConsolidationRequest(), timeout=60).report
        steps = {s.name: s for s in report.steps}
        assert not list(report.failed_steps), [s.error for s in report.steps]
        assert steps["decay"].rows_changed == 20 and not steps["decay"].error
        assert steps["evict"].rows_changed == 20


@pytest.mark.parametrize("kind", STORE_KINDS)
def test_a_failed_step_shows_in_the_response_and_in_diagnose(tmp_path: Path, kind: str) -> None:
    def broken(ctx: jobs.JobContext) -> StepResult:
        # A real SQLite failure, as exp() was on SQLCipher.
        ctx.store.matching_ids(Selection("pinned_facts", None, "no_such_function(id) > 0", ()), 0, 10)
        return StepResult()

    options = ConsolidatorOptions(steps=(*jobs.STEPS[:1], ("broken", broken), *jobs.STEPS[1:]))
    with running_consolidating_memoryd(tmp_path, options=options) as memoryd:
        if kind == "encrypted":
            _encrypt(memoryd)
        report = memoryd.memory.RunConsolidation(pb.RunConsolidationRequest(), timeout=60).report
        assert list(report.failed_steps) == ["broken"]
        failed = [s for s in report.steps if s.error]
        assert [s.name for s in failed] == ["broken"] and "no such function" in failed[0].error
        assert [s.name for s in report.steps][-1] == "identity"  # later steps still ran
        console = cpb_grpc.MemoryConsoleServiceStub(grpc.insecure_channel(memoryd.target))
        diagnosis = console.Diagnose(cpb.DiagnoseRequest(), timeout=10)
        assert diagnosis.HasField("last_consolidation")
        assert list(diagnosis.last_consolidation.failed_steps) == ["broken"]
        assert "no such function" in {s.name: s for s in diagnosis.last_consolidation.steps}["broken"].error
