"""The write path end to end on a real SQLite file and a scripted inferd on a real port: timing, every outcome
token, mid-call turns, retries → dead letter, the breaker cycle, dedup across replies, identity facts, recovery."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from memoryd.domain import TurnInput
from memoryd.write.writer import Writer
from osaurus.inference.v1 import inference_pb2 as ipb
from servicekit.errors import DeadlineExceededError, FailedPreconditionError, NotFoundError, UnavailableError
from tests.fakes.fake_writer_inferd import MODEL, digest, request_text
from tests.support.writer_stack import WriterStack, make_writer_stack, wait_for

LONG_USER = "I am planning a trip to Lisbon next spring and want to find a quiet neighbourhood to stay in."
LONG_ASSISTANT = "Campo de Ourique and Estrela are calm, central and close to good food and trams."


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[WriterStack]:
    s = make_writer_stack(tmp_path)
    yield s
    s.close()


def _session(stack: WriterStack, conv: str = "c1", agent: str = "agent-1", turns: int = 2) -> None:
    for _ in range(turns):
        stack.buffer(agent, conv, LONG_USER, LONG_ASSISTANT)


def _statuses(stack: WriterStack, conv: str = "c1") -> list[str]:
    return [
        r[0]
        for r in stack.q("SELECT status FROM pending_signals WHERE conversation_id = ? ORDER BY id", (conv,))
    ]


def _end(stack: WriterStack, conv: str = "c1", agent: str = "agent-1") -> tuple[int, str, int]:
    r = stack.writer.end_session(agent, conv, wait=True)
    return r.signals_flushed, r.outcome, r.episode_id


# -- timing ----------------------------------------------------------------------------------------------------


def test_debounce_expiry_distils_once_after_inactivity(stack: WriterStack) -> None:
    _session(stack)
    stack.clock.advance(59)
    assert stack.writer.debouncer.fire_due() == []
    stack.buffer("agent-1", "c1", "one more question about trams and ferries", "sure")
    stack.clock.advance(59)
    assert stack.writer.debouncer.fire_due() == []
    assert stack.inferd.generate_calls == 0  # no model call while the chat is active
    stack.clock.advance(1)
    assert stack.writer.debouncer.fire_due() == [("agent-1", "c1")]
    wait_for(lambda: _statuses(stack) == ["processed"] * 3)
    assert stack.inferd.generate_calls == 1
    assert len(stack.q("SELECT id FROM episodes")) == 1


def test_switching_conversation_flushes_the_previous_one_at_once(stack: WriterStack) -> None:
    _session(stack, "c1")
    stack.buffer("agent-1", "c2", "hello again", "hi")
    wait_for(lambda: _statuses(stack, "c1") == ["processed", "processed"])
    assert _statuses(stack, "c2") == ["pending"]
    assert set(stack.writer.debouncer.armed()) == {("agent-1", "c2")}


def test_end_session_flushes_immediately(stack: WriterStack) -> None:
    _session(stack)
    flushed, outcome, episode_id = _end(stack)
    assert (flushed, outcome) == (2, "distilled") and episode_id > 0
    assert stack.writer.debouncer.armed() == {}


def test_end_session_without_wait_schedules(stack: WriterStack) -> None:
    _session(stack)
    result = stack.writer.end_session("agent-1", "c1", wait=False)
    assert (result.signals_flushed, result.outcome) == (2, "")
    wait_for(lambda: _statuses(stack) == ["processed", "processed"])


def test_manual_mode_never_distils_automatically(stack: WriterStack) -> None:
    stack.settings.set(extraction_mode="manual")
    _session(stack, "c1")
    stack.buffer("agent-1", "c2", LONG_USER, LONG_ASSISTANT)  # a switch
    stack.clock.advance(10_000)
    assert stack.writer.debouncer.fire_due() == []
    assert stack.writer.end_session("agent-1", "c1", wait=True).outcome == ""
    assert stack.inferd.generate_calls == 0
    outcomes = {o.conversation_id: o.token for o in stack.writer.sync_now()}
    assert outcomes == {"c1": "distilled", "c2": "distilled"}


# -- outcome tokens --------------------------------------------------------------------------------------------


def test_distilled_writes_episode_and_log(stack: WriterStack) -> None:
    stack.inferd.push(
        digest(
            "The user is planning a quiet Lisbon trip.",
            topics=["travel", "lisbon"],
            decisions=["Stay in Estrela"],
            action_items=["Book hotel"],
            entities=["Lisbon"],
            salience=0.7,
        )
    )
    _session(stack)
    _, outcome, episode_id = _end(stack)
    assert outcome == "distilled"
    row = stack.q(
        "SELECT agent_id, conversation_id, summary, topics_csv, entities_csv, decisions, action_items, salience, model "
        "FROM episodes WHERE id = ?",
        (episode_id,),
    )[0]
    # The summary verifies against the turns and is kept; the decision and action item only the model (and the
    # assistant) said are dropped: the model is never trusted for facts.
    assert row[:3] == ("agent-1", "c1", "The user is planning a quiet Lisbon trip.")
    assert "lisbon" in row[3] and "Lisbon" in row[4]
    assert row[5:7] == ("", "")
    assert row[8] == MODEL
    log = stack.q(
        "SELECT task_type, status, model, input_tokens, output_tokens, duration_ms FROM processing_log"
    )
    assert len(log) == 1
    task, status, model, tokens_in, tokens_out, duration = log[0]
    assert (task, status, model) == ("distill", "success", MODEL)
    assert tokens_in > 20 and tokens_out > 10 and duration >= 0
    request = stack.inferd.generate_requests[0]
    # The call asks for the summary only, in few tokens; a reply with more fields (this fake's) is still read.
    assert json.loads(request.json_schema)["required"] == ["summary"]
    assert request.options.temperature == pytest.approx(0.2) and request.options.max_tokens <= 64


def test_no_signals(stack: WriterStack) -> None:
    assert _end(stack) == (0, "no_signals", 0)
    assert stack.q("SELECT count(*) FROM processing_log") == [(0,)]


def test_low_novelty_is_terminal(stack: WriterStack) -> None:
    stack.buffer("agent-1", "c1", "hi", "hello!")
    stack.buffer("agent-1", "c1", "[Memory]" + "x" * 200 + "[/Memory]ok", "")
    assert _end(stack)[1] == "skipped:low_novelty:10chars"
    assert _statuses(stack) == ["processed", "processed"]
    assert stack.inferd.generate_calls == 0
    assert stack.q("SELECT task_type, status, details FROM processing_log") == [
        ("distill_skipped", "skipped", "low_novelty:10chars")
    ]


def test_memory_disabled_globally_and_per_agent(stack: WriterStack) -> None:
    _session(stack)
    stack.settings.set(enabled=False)
    assert _end(stack)[1] == "skipped:memory_disabled"
    stack.settings.set(enabled=True)
    stack.store.db.execute("UPDATE agents SET memory_enabled = 0 WHERE agent_id = 'agent-1'")
    assert _end(stack)[1] == "skipped:memory_disabled"
    assert _statuses(stack) == ["pending", "pending"]


def test_core_model_unset_leaves_signals_pending(stack: WriterStack) -> None:
    _session(stack)
    stack.settings.set(core_model="")
    assert _end(stack)[1] == "skipped:core_model_unset"
    assert _statuses(stack) == ["pending", "pending"]
    stack.settings.set(core_model=MODEL)
    assert _end(stack)[1] == "distilled"


@pytest.mark.parametrize(
    "setup",
    ["failed_state", "unknown_model", "not_found_error", "status_down"],
)
def test_core_model_unavailable_leaves_signals_pending_uncounted(stack: WriterStack, setup: str) -> None:
    _session(stack)
    if setup == "failed_state":
        stack.inferd.model_state = ipb.MODEL_STATE_FAILED
    elif setup == "unknown_model":
        stack.settings.set(core_model="no-such-model")
    elif setup == "not_found_error":
        stack.inferd.push(NotFoundError("MODEL_NOT_FOUND"))
    else:
        stack.inferd.status_error = UnavailableError("UNAVAILABLE")
    assert _end(stack)[1] == "skipped:core_model_unavailable"
    assert _statuses(stack) == ["pending", "pending"]
    assert stack.q("SELECT max(attempts) FROM pending_signals") == [(0,)]
    assert stack.writer.breaker.snapshot().consecutive_failures == 0


def test_inferd_unreachable_is_core_model_unavailable(tmp_path: Path) -> None:
    s = make_writer_stack(tmp_path, inference_target="127.0.0.1:1")
    try:
        _session(s)
        assert _end(s)[1] == "skipped:core_model_unavailable"
        assert _statuses(s) == ["pending", "pending"]
    finally:
        s.close()


def test_not_resident_when_background_cold_loads_are_not_allowed(tmp_path: Path) -> None:
    s = make_writer_stack(tmp_path, allow_cold_load=False)
    try:
        s.inferd.model_state = ipb.MODEL_STATE_UNLOADED
        _session(s)
        future = s.writer.coordinator.submit("agent-1", "c1", require_resident=True)
        assert future.result(10).token == "skipped:not_resident"
        assert _statuses(s) == ["pending", "pending"]
        # an explicit wait (EndSession/Ingest/SyncNow) may cold-load
        assert _end(s)[1] == "distilled"
    finally:
        s.close()


def test_model_not_resident_error_maps_to_not_resident(stack: WriterStack) -> None:
    stack.inferd.push(FailedPreconditionError("MODEL_NOT_RESIDENT"))
    _session(stack)
    assert _end(stack)[1] == "skipped:not_resident"
    assert _statuses(stack) == ["pending", "pending"]


def test_empty_outcomes_mark_signals_processed(stack: WriterStack) -> None:
    stack.inferd.push(
        json.dumps({"episode": None, "entities": [], "pinned_candidates": [], "identity_facts": []})
    )
    _session(stack, "c1")
    assert _end(stack, "c1")[1] == "empty:no_episode"
    assert _statuses(stack, "c1") == ["processed", "processed"]
    assert stack.q("SELECT details FROM processing_log")[0][0].startswith("no_episode;dropped=")
    assert stack.q("SELECT count(*) FROM episodes") == [(0,)]
    # An empty summary from the model is no empty session: the extractive summary stands.
    stack.inferd.push(digest("Sure! Here is the summary:"))
    _session(stack, "c2")
    assert _end(stack, "c2")[1] == "distilled"
    assert _statuses(stack, "c2") == ["processed", "processed"]
    assert stack.q("SELECT summary_source FROM episodes") == [("extractive",)]


def test_unparseable_output_is_retried_then_the_extractive_result_stands(stack: WriterStack) -> None:
    stack.inferd.set_default("this is not json at all")
    _session(stack)
    assert _end(stack)[1] == "distilled"
    assert stack.inferd.generate_calls == 2  # bounded retries inside one attempt
    assert stack.sleeps == [1.0]  # backoff between them
    assert stack.q("SELECT summary_source FROM episodes") == [("extractive",)]


def test_retries_then_error_then_dead_letter(stack: WriterStack) -> None:
    stack.inferd.set_default(DeadlineExceededError("MODEL_TIMEOUT", "generation timed out"))
    _session(stack)
    assert _end(stack)[1] == "error:timeout"
    assert stack.inferd.generate_calls == 2  # bounded retries inside one attempt
    assert stack.sleeps == [1.0]  # backoff between them
    assert _end(stack)[1] == "error:timeout"
    assert _end(stack)[1] == "dead_letter:3"
    assert _statuses(stack) == ["dead_letter", "dead_letter"]
    assert stack.inferd.generate_calls == 6
    assert _end(stack)[1] == "no_signals"  # never re-distilled
    log = stack.q("SELECT status, details FROM processing_log ORDER BY id")
    assert [r[0] for r in log] == ["error", "error", "dead_letter"]
    assert log[-1][1] == "dead_letter_after_3_attempts: timeout"


def test_a_transient_failure_then_success_distils(stack: WriterStack) -> None:
    stack.inferd.push(UnavailableError("MODEL_CRASHED"), digest())
    _session(stack)
    assert _end(stack)[1] == "distilled"
    assert stack.inferd.generate_calls == 2


def test_breaker_opens_half_opens_and_closes(tmp_path: Path) -> None:
    s = make_writer_stack(tmp_path, breaker_threshold=2, max_calls=1, max_attempts=10)
    try:
        s.inferd.set_default(UnavailableError("MODEL_CRASHED"))
        # one agent per conversation, so no agent switches a conversation (a switch would flush in the background)
        for conv in ("c1", "c2"):
            _session(s, conv, agent=conv)
            assert _end(s, conv, agent=conv)[1] == "error:model_crashed"
        assert s.writer.breaker.snapshot().state == "open"
        calls = s.inferd.generate_calls
        _session(s, "c3", agent="c3")
        assert _end(s, "c3", agent="c3")[1] == "skipped:breaker_open"
        assert s.inferd.generate_calls == calls  # no model call while open
        assert _statuses(s, "c3") == ["pending", "pending"]
        s.clock.advance(60)
        assert s.writer.breaker.snapshot().state == "half_open"
        assert _end(s, "c3", agent="c3")[1] == "error:model_crashed"  # failed probe re-opens, longer
        assert s.writer.breaker.snapshot().state == "open"
        s.clock.advance(60)
        assert _end(s, "c3", agent="c3")[1] == "skipped:breaker_open"
        s.clock.advance(60)
        s.inferd.set_default(None)
        assert _end(s, "c3", agent="c3")[1] == "distilled"  # successful probe closes
        assert s.writer.breaker.snapshot().state == "closed"
        assert _end(s, "c1", agent="c1")[1] == "distilled"
    finally:
        s.close()


def test_cancelled_on_shutdown_keeps_signals_pending(stack: WriterStack) -> None:
    _session(stack)
    stack.writer.coordinator.close(1)
    assert stack.writer.coordinator.submit("agent-1", "c1").result(5).token == "skipped:cancelled"
    assert _end(stack)[1] == "skipped:cancelled"
    assert _statuses(stack) == ["pending", "pending"]


def test_error_token_for_a_non_retryable_inferd_error(stack: WriterStack) -> None:
    from servicekit.errors import InvalidArgumentError

    stack.inferd.push(InvalidArgumentError("INVALID_JSON_SCHEMA"))
    _session(stack)
    assert _end(stack)[1] == "error:invalid_json_schema"
    assert stack.q("SELECT attempts FROM pending_signals") == [(1,), (1,)]


# -- snapshot semantics -----------------------------------------------------------------------------------------


def test_turns_arriving_mid_call_stay_pending(stack: WriterStack) -> None:
    _session(stack)
    stack.inferd.hold = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(stack.writer.end_session, "agent-1", "c1", wait=True)
        assert stack.inferd.entered.wait(10)
        late = stack.buffer(
            "agent-1",
            "c1",
            "And what about day trips to Sintra and Cascais from there?",
            "Take the train from Rossio; it is about forty minutes each way.",
        )
        stack.inferd.hold.set()
        assert future.result(10).outcome == "distilled"
    stack.inferd.hold = None
    assert _statuses(stack) == ["processed", "processed", "pending"]
    assert stack.q("SELECT status FROM pending_signals WHERE id = ?", (late,)) == [("pending",)]
    assert _end(stack)[1] == "distilled"  # the next run picks it up
    assert _statuses(stack) == ["processed"] * 3


def test_single_flight_per_conversation(stack: WriterStack) -> None:
    _session(stack)
    stack.inferd.hold = threading.Event()
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(stack.writer.end_session, "agent-1", "c1", wait=True)
        assert stack.inferd.entered.wait(10)
        second = pool.submit(stack.writer.end_session, "agent-1", "c1", wait=True)
        stack.inferd.hold.set()
        outcomes = sorted([first.result(10).outcome, second.result(10).outcome])
    assert outcomes == ["distilled", "no_signals"]
    assert stack.inferd.generate_calls == 1


def test_queued_background_runs_coalesce(stack: WriterStack) -> None:
    _session(stack)
    stack.inferd.hold = threading.Event()
    running = stack.writer.coordinator.submit("agent-1", "c1")
    assert stack.inferd.entered.wait(10)
    queued = [stack.writer.coordinator.submit("agent-1", "c1") for _ in range(5)]
    assert all(f is queued[0] for f in queued)
    stack.inferd.hold.set()
    assert running.result(10).token == "distilled"
    assert queued[0].result(10).token == "no_signals"


# -- prompt content --------------------------------------------------------------------------------------------


def test_prompt_shows_no_earlier_episodes_narrative_or_memory_blocks(stack: WriterStack) -> None:
    stack.store.db.execute("UPDATE identity SET content = 'User is a nurse in Porto.' WHERE id = 1")
    stack.store.db.execute("UPDATE identity SET overrides = '[\"SECRET OVERRIDE\"]' WHERE id = 1")
    stack.inferd.push(digest("Earlier session about Lisbon neighbourhoods."), digest("A quiet Lisbon stay."))
    _session(stack, "c1")
    assert _end(stack, "c1")[1] == "distilled"
    stack.buffer("agent-1", "c2", "[Memory]\nUser likes trams.\n[/Memory]\n" + LONG_USER, LONG_ASSISTANT)
    assert _end(stack, "c2")[1] == "distilled"
    text = request_text(stack.inferd.generate_requests[-1])
    # A small model copies what it is shown back as memory: the prompt holds only this session's turns.
    assert "Earlier session about Lisbon neighbourhoods." not in text
    assert "User is a nurse in Porto." not in text
    assert "SECRET OVERRIDE" not in text
    assert "[Memory]" not in text and "User likes trams." not in text


def test_other_agents_episodes_are_not_in_the_prompt(stack: WriterStack) -> None:
    stack.inferd.push(digest("Agent two private session."))
    _session(stack, "x", agent="agent-2")
    assert _end(stack, "x", agent="agent-2")[1] == "distilled"
    _session(stack, "c1")
    assert _end(stack)[1] == "distilled"
    assert "Agent two private session." not in request_text(stack.inferd.generate_requests[-1])


# -- facts -----------------------------------------------------------------------------------------------------


def _say(stack: WriterStack, conv: str, *lines: str, agent: str = "agent-1") -> str:
    for line in lines:
        stack.buffer(agent, conv, line, "Noted, thanks for telling me.")
    return _end(stack, conv, agent)[1]


def test_dedup_within_one_session_and_across_sessions(stack: WriterStack) -> None:
    stack.inferd.set_default(digest("The user talked about editors and their cat."))
    assert (
        _say(
            stack,
            "c1",
            "I prefer dark mode in every editor I use.",
            "I prefer dark mode in every editor I use!",
            "I have a cat called Miso who sleeps on my keyboard.",
        )
        == "distilled"
    )
    facts = stack.q("SELECT content, source_count FROM pinned_facts ORDER BY id")
    dark = [f for f in facts if "dark mode" in f[0]]
    assert len(dark) == 1 and dark[0][1] == 1
    assert _say(
        stack, "c2", "I prefer dark mode in every editor I use.", "I also drive an electric car now."
    ) == ("distilled")
    facts = stack.q("SELECT content, source_count FROM pinned_facts ORDER BY id")
    dark = [f for f in facts if "dark mode" in f[0]]
    assert len(dark) == 1 and dark[0][1] == 2
    assert stack.inferd.embed_requests, "embedding near-duplicate check ran"


def test_facts_of_another_agent_are_not_dedup_targets(stack: WriterStack) -> None:
    stack.inferd.set_default(digest("The user talked about editors."))
    line = "I prefer dark mode in every editor I use, always."
    _say(stack, "c1", line, line, agent="agent-1")
    _say(stack, "c2", line, line, agent="agent-2")
    rows = stack.q(
        "SELECT agent_id, source_count FROM pinned_facts WHERE content LIKE '%dark mode%' ORDER BY id"
    )
    assert rows == [("agent-1", 1), ("agent-2", 1)]


def test_identity_facts_are_kept_apart_from_overrides(stack: WriterStack) -> None:
    stack.inferd.set_default(digest("Sam introduced themself.", identity=["User's name is Bob"]))
    _say(stack, "c1", "Hi there, my name is Sam and I am new here.", "By the way, my name is Sam.")
    episode_id = stack.q("SELECT max(id) FROM episodes")[0][0]
    rows = stack.q("SELECT agent_id, content, source_episode_id, source_count FROM identity_facts")
    assert [(r[0], r[2], r[3]) for r in rows] == [("agent-1", episode_id, 1)]
    assert "Sam" in rows[0][1] and "Bob" not in rows[0][1]
    assert stack.q("SELECT overrides FROM identity") == [("[]",)]
    _say(stack, "c2", "Hello again, my name is Sam. Thanks for the help last time.")
    assert stack.q("SELECT source_count FROM identity_facts") == [(2,)]


def test_embeddings_off_still_dedups_by_tokens(stack: WriterStack) -> None:
    stack.settings.set(embeddings_enabled=False)
    stack.inferd.set_default(digest("The user talked about editors."))
    _say(
        stack,
        "c1",
        "I prefer dark mode in every editor I use.",
        "Honestly I prefer dark mode in every editor.",
    )
    assert stack.q("SELECT count(*) FROM pinned_facts WHERE content LIKE '%dark mode%'") == [(1,)]
    assert stack.inferd.embed_requests == []


# -- drain and recovery -----------------------------------------------------------------------------------------


def test_sync_now_drains_every_pending_conversation(stack: WriterStack) -> None:
    _session(stack, "c1", agent="agent-1")
    _session(stack, "c2", agent="agent-2")
    stack.buffer("agent-3", "c3", "hi", "yo")
    outcomes = {(o.agent_id, o.conversation_id): o.token for o in stack.writer.sync_now()}
    assert outcomes == {
        ("agent-1", "c1"): "distilled",
        ("agent-2", "c2"): "distilled",
        ("agent-3", "c3"): "skipped:low_novelty:4chars",
    }
    assert stack.writer.debouncer.armed() == {}
    assert stack.q("SELECT count(*) FROM pending_signals WHERE status = 'pending'") == [(0,)]


def test_sync_now_for_one_agent(stack: WriterStack) -> None:
    _session(stack, "c1", agent="agent-1")
    _session(stack, "c2", agent="agent-2")
    outcomes = stack.writer.sync_now("agent-2")
    assert [(o.agent_id, o.token) for o in outcomes] == [("agent-2", "distilled")]
    assert _statuses(stack, "c1") == ["pending", "pending"]


def test_startup_recovers_orphaned_signals(stack: WriterStack) -> None:
    for conv in ("c1", "c2"):
        stack.store.turns.buffer(TurnInput("agent-1", conv, LONG_USER, LONG_ASSISTANT, 1))
    fresh = Writer(stack.wstore, stack.client, stack.settings)
    try:
        future = fresh.start(timer_thread=False)
        assert future is not None
        tokens = sorted(o.token for o in future.result(10))
        assert tokens == ["distilled", "distilled"]
    finally:
        fresh.close(2)
    assert stack.q("SELECT count(*) FROM pending_signals WHERE status = 'pending'") == [(0,)]
    assert stack.q("SELECT count(*) FROM episodes") == [(2,)]


def test_close_does_not_wait_for_a_model_call_in_flight(stack: WriterStack) -> None:
    _session(stack)
    stack.inferd.hold = threading.Event()
    future = stack.writer.coordinator.submit("agent-1", "c1")
    assert stack.inferd.entered.wait(10)
    started = time.monotonic()
    stack.writer.close(0.3)
    assert time.monotonic() - started < 2
    assert _statuses(stack) == ["pending", "pending"]
    stack.inferd.hold.set()
    future.result(10)  # the late reply may still commit; either way nothing is lost or doubled
    assert stack.q("SELECT count(*) FROM episodes") in ([(0,)], [(1,)])
