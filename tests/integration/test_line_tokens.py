"""Block token counts from their lines' counts (retrieval/line_tokens.py) against a CountTokens peer on a real port,
and the line filler (read/line_token_filler.py) over a real SQLite store."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from inferd.app import close_all, start
from inferd.client import InferenceClient
from inferd.config import for_tests
from memoryd.distill_records import DistillationWrite, LogEntry, NewEpisode, NewFact
from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT, TurnInput
from memoryd.read.line_token_filler import LineTokenFiller
from memoryd.retrieval import blocks
from memoryd.retrieval.items import Section
from memoryd.retrieval.line_tokens import LineTokenCounter
from memoryd.retrieval.tokens import InferdTokenCounter, estimate_tokens
from memoryd.storage.distillation import SqliteWriterStore
from memoryd.storage.store import Store, open_store
from servicekit.errors import UnavailableError
from tests.fakes.fake_gate_inferd import FakeGateInferd, GateScript, running_fake

_WORD = re.compile(r"\w+|[^\w\s]")
#: No check of summed blocks after the request (its CountTokens call would race the calls a test counts).
QUIET = {"verify_first": 0, "verify_every": 0}


def regex_tokens(text: str) -> int:
    """inferd's fake LLM tokenizer: a word or one punctuation mark per token, newlines free."""
    return len(_WORD.findall(text))


def newline_greedy(text: str) -> int:
    """A tokenizer whose joins cost more than their parts: one token per word, two more per newline between two
    other characters (a newline alone costs nothing)."""
    return len(text.split()) + 2 * len(re.findall(r"(?<=[^\n])\n(?=[^\n])", text))


@pytest.fixture
def fake() -> Iterator[tuple[FakeGateInferd, InferenceClient]]:
    with running_fake() as (servicer, target):
        servicer.script = GateScript(count=regex_tokens)
        client = InferenceClient(target, deadline_s=10.0)
        try:
            yield servicer, client
        finally:
            client.close()


def _block(lines: Sequence[str], overrides: Sequence[str] = ()) -> str:
    body = blocks.section_text(Section.TRANSCRIPT, lines)
    return blocks.render_block("7 December 2026", blocks.overrides_section(overrides), body)


LINES = [
    blocks.transcript_line(1_700_000_000_000, "user", "I'm vegetarian and allergic to peanuts."),
    blocks.transcript_line(1_700_000_000_000, "assistant", "Noted — no satay, then!"),
    blocks.pinned_line("Die Beta erscheint am 15. Dezember."),
    blocks.episode_line(1_700_100_000_000, "Planned the launch", ("ship on Monday",)),
]


def _calls(servicer: FakeGateInferd) -> int:
    return len(servicer.recorded.count_tokens)


def test_a_block_of_known_lines_is_counted_without_a_round_trip(
    fake: tuple[FakeGateInferd, InferenceClient],
) -> None:
    servicer, client = fake
    counter = LineTokenCounter(InferdTokenCounter(client, "core"), **QUIET)
    try:
        calibration = counter.calibration("core")
        assert calibration is not None and calibration.is_additive and calibration.is_exact
        assert counter.prefill(LINES) == len(LINES)
        frame = _block([])  # the frame's own lines, once (as any first block would)
        assert counter.count([frame]) == [regex_tokens(frame)]
        block = _block(LINES, ["Always answer in English."])
        before = _calls(servicer)
        counts = counter.count([block, *(line + "\n" for line in LINES)])
        assert _calls(servicer) == before + 1  # for the overrides' two lines, the only ones not known
        assert counts == [regex_tokens(block), *(regex_tokens(line) for line in LINES)]
        again = counter.count([_block(LINES[::-1], ["Always answer in English."])])
        assert _calls(servicer) == before + 1
        assert again == [regex_tokens(_block(LINES[::-1], ["Always answer in English."]))]
        assert counter.source == "model:core"
    finally:
        counter.close()


def test_a_tokenizer_whose_joins_cost_more_is_never_summed(
    fake: tuple[FakeGateInferd, InferenceClient],
) -> None:
    servicer, client = fake
    servicer.script = GateScript(count=newline_greedy)
    counter = LineTokenCounter(InferdTokenCounter(client, "core"), **QUIET)
    try:
        calibration = counter.calibration("core")
        assert calibration is not None and not calibration.is_additive
        assert counter.prefill(LINES) is None
        block = _block(LINES)
        before = _calls(servicer)
        assert counter.count([block]) == [newline_greedy(block)]
        assert _calls(servicer) == before + 1
    finally:
        counter.close()


def test_a_block_that_counts_more_than_its_sum_turns_summing_off(
    fake: tuple[FakeGateInferd, InferenceClient],
) -> None:
    servicer, client = fake
    counter = LineTokenCounter(InferdTokenCounter(client, "core"))
    try:
        assert counter.prefill([*LINES, *_block([]).split("\n")]) is not None
        # From now on the tokenizer merges nothing across lines but charges two tokens for this pair's newline.
        pair = f"{LINES[0]}\n{LINES[1]}"
        servicer.script = GateScript(count=lambda t: regex_tokens(t) + 2 * t.count(pair))
        block = _block(LINES)
        summed = counter.count([block])
        assert summed == [regex_tokens(block)]  # the sum, without a trip: 2 short of the "real" count
        deadline = time.monotonic() + 10
        while counter.short_sums == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert counter.short_sums == 1  # the check after the request found it
        assert counter.count([block]) == [regex_tokens(block) + 2]  # and the next count asks inferd
    finally:
        counter.close()


def test_while_inferd_fails_blocks_are_estimated_and_nothing_is_learnt(
    fake: tuple[FakeGateInferd, InferenceClient],
) -> None:
    servicer, client = fake
    counter = LineTokenCounter(InferdTokenCounter(client, "core"), **QUIET)
    try:
        assert counter.calibration("core") is not None
        servicer.script = GateScript(count=regex_tokens, count_error=UnavailableError("DOWN", "resting"))
        block = _block(LINES)
        assert counter.count([block]) == [estimate_tokens(block)]
        assert counter.source == "estimate"
        assert counter.known_lines("core") == 0
        assert counter.prefill(LINES) is None
    finally:
        counter.close()


def test_counts_are_kept_per_counting_model_and_learnt_again_when_it_changes(
    fake: tuple[FakeGateInferd, InferenceClient],
) -> None:
    servicer, client = fake
    servicer.script = GateScript(count=regex_tokens, count_model="tokenizer-a")
    counter = LineTokenCounter(InferdTokenCounter(client, ""), **QUIET)  # inferd's default model
    try:
        block = _block(LINES)
        assert counter.prefill(block.split("\n")) is not None
        before = _calls(servicer)
        assert counter.count([block]) == [regex_tokens(block)]
        assert _calls(servicer) == before
        # inferd restarted with another default: its answers name another model, with other counts.
        servicer.script = GateScript(count=lambda t: 2 * regex_tokens(t), count_model="tokenizer-b")
        assert counter.prefill(["- a line written since"]) is None  # the answer names tokenizer-b: not learnt
        assert counter.known_lines("") == 0
        assert counter.count([block]) == [2 * regex_tokens(block)]  # calibrated and learnt again under b
        assert counter.known_lines("") == len({p for p in block.split("\n") if p})
    finally:
        counter.close()


def _seed(store: Store) -> None:
    store.turns.buffer(
        TurnInput("a", "c1", "My sister Ana lives in Porto.", "Porto is lovely.", 1_700_000_000_000)
    )
    store.turns.buffer(TurnInput("b", "c2", "我住在北京，喜欢吃饺子。", "好的！", 1_700_000_100_000))
    episode = NewEpisode(
        "a",
        "c1",
        "Talked about family in Porto",
        ("family",),
        ("Ana",),
        ("visit in May",),
        (),
        0.6,
        9,
        "m",
        5,
    )
    write = DistillationWrite(
        episode, (), (NewFact("The user's sister is Ana.", 0.7),), (), (), (), LogEntry("a", "success", "ok")
    )
    SqliteWriterStore(store.db, store.tables, store.agents).commit_distillation(write)


def test_the_filler_counts_every_stored_row_as_the_planner_renders_it(
    fake: tuple[FakeGateInferd, InferenceClient], tmp_path: Path
) -> None:
    _, client = fake
    store = open_store(tmp_path / "memory.sqlite")
    counter = LineTokenCounter(InferdTokenCounter(client, "core"), **QUIET)
    try:
        _seed(store)
        filler = LineTokenFiller(store, counter, batch_rows=2)
        assert filler.run_once() == 6  # four turns, one episode, one fact
        assert filler.run_once() == 0  # covered: nothing read twice
        store.turns.buffer(TurnInput("a", "c1", "Ana's birthday is on 3 May.", "", 1_700_000_200_000))
        assert filler.run_once() == 1
        turns = store.rows.after(KIND_TRANSCRIPT, 0, 10)
        episode = store.rows.after(KIND_EPISODE, 0, 10)[0]
        decisions = store.reads.episode_decisions("a", [episode.id])[episode.id]
        lines = [blocks.transcript_line(t.occurred_at_ms, t.role, t.text) for t in turns]
        lines.append(blocks.episode_line(episode.occurred_at_ms, episode.text, decisions))
        lines += [blocks.pinned_line(f.text) for f in store.rows.after(KIND_PINNED, 0, 10)]
        assert counter.unknown("core", lines) == []
    finally:
        counter.close()
        store.close()


def test_the_filler_never_loads_the_model_and_starts_once_the_read_path_counted(tmp_path: Path) -> None:
    running, app = start(for_tests(tmp_path / "inferd"))  # inferd with its fake models (nothing loaded yet)
    client = InferenceClient(running.target, deadline_s=10.0)
    store = open_store(tmp_path / "memory.sqlite")
    counter = LineTokenCounter(InferdTokenCounter(client, ""))
    filler = LineTokenFiller(store, counter, settle_s=0.0, interval_s=3600.0)
    try:
        _seed(store)

        def llm_state() -> str:
            return next(m.state for m in client.models() if m.kind == "llm" and m.is_default)

        assert filler.run_once() is None  # the default LLM is not loaded: nothing counted, nothing loaded
        filler.start()  # its first pass finds the same, and it sleeps for the hour
        time.sleep(0.5)
        assert llm_state() != "loaded"
        block = _block(LINES)
        assert counter.count([block]) == client.count_tokens([block])  # the read path loads it, as before
        turns = store.rows.after(KIND_TRANSCRIPT, 0, 10)
        lines = [blocks.transcript_line(t.occurred_at_ms, t.role, t.text) for t in turns]
        deadline = time.monotonic() + 10
        while counter.unknown("", lines) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert counter.unknown("", lines) == []  # the count's calibration woke the filler
    finally:
        filler.close()
        counter.close()
        store.close()
        client.close()
        close_all(running, app, grace_s=0)
