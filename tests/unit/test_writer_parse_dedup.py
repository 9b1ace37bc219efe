"""Tolerant digest parsing that still validates, and fact dedup within one reply and against existing facts."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from memoryd.write.dedup import jaccard, normalize_tokens, plan_facts, plan_identity
from memoryd.write.digest_caps import DISTILLATION_SCHEMA
from memoryd.write.parse import Candidate, extract_json, parse_reply
from memoryd.write.retry import InvalidOutputError
from memoryd.write.store_protocol import ExistingFact
from tests.fakes.fake_writer_inferd import digest, hashed_vector

# -- parsing ---------------------------------------------------------------------------------------------------


def test_plain_json_parses() -> None:
    d = parse_reply(
        digest("Talked about Rust.", pinned=[("User prefers Rust for CLIs", 0.8)], identity=["Name: Sam"])
    )
    assert d.has_episode and d.summary == "Talked about Rust."
    assert d.candidates == (Candidate("User prefers Rust for CLIs", 0.8, ()),)
    assert d.identity_facts == ("Name: Sam",)


@pytest.mark.parametrize(
    "wrap",
    [
        lambda j: f"```json\n{j}\n```",
        lambda j: f"Sure! Here is the digest:\n```\n{j}\n```\nHope it helps.",
        lambda j: f"Here you go: {j} -- done",
    ],
)
def test_fences_and_chatter_are_tolerated(wrap: object) -> None:
    text = wrap(digest("Talked about Rust."))  # type: ignore[operator]
    assert parse_reply(text).summary == "Talked about Rust."


def test_summary_preamble_is_stripped_and_can_leave_it_empty() -> None:
    assert parse_reply(digest("Sure! The user asked about taxes.")).summary == "The user asked about taxes."
    assert parse_reply(digest("Here is the summary: ")).summary == ""


def test_no_episode_is_a_valid_empty_reply() -> None:
    d = parse_reply(
        json.dumps({"episode": None, "entities": [], "pinned_candidates": [], "identity_facts": []})
    )
    assert not d.has_episode


@pytest.mark.parametrize(
    "text",
    [
        "no json here",
        "[1, 2, 3]",
        json.dumps({"episode": "a string"}),
        json.dumps({"episode": {"summary": 5}}),
        json.dumps({"episode": {"summary": "ok", "topics": [1, 2]}}),
        json.dumps({"episode": {"summary": "ok", "salience": "high"}}),
        json.dumps({"episode": {"summary": "ok"}, "pinned_candidates": [{"salience": 1}]}),
    ],
)
def test_invalid_replies_raise(text: str) -> None:
    with pytest.raises(InvalidOutputError):
        parse_reply(text)


def test_values_are_normalised_not_invented() -> None:
    raw = {
        "episode": {"summary": "ok", "topics": "a, b,, a", "salience": "1.7", "extra": "ignored"},
        "entities": ["  Acme  ", "acme", ""],
        "pinned_candidates": [
            {"content": "tiny", "salience": 0.9},
            {"content": "User works at Acme Corp", "tags": "work"},
        ],
        "identity_facts": None,
        "unknown": 1,
    }
    d = parse_reply(json.dumps(raw))
    assert d.topics == ("a", "b")
    assert d.salience == 1.0
    assert d.entities == ("Acme",)
    assert d.candidates == (Candidate("User works at Acme Corp", 0.6, ("work",)),)
    assert d.identity_facts == () and d.decisions == ()


def test_caps_follow_the_shared_schema() -> None:
    cap = DISTILLATION_SCHEMA["properties"]["episode"]["properties"]["summary"]["maxLength"]
    assert len(parse_reply(digest("s" * (cap + 500))).summary) == cap


def test_extract_json_prefers_the_whole_reply() -> None:
    assert extract_json('{"a": {"b": 1}}') == {"a": {"b": 1}}


# -- dedup -----------------------------------------------------------------------------------------------------


def _embed(texts: Sequence[str]) -> npt.NDArray[np.float32]:
    return np.asarray([hashed_vector(t) for t in texts], dtype=np.float32)


def test_normalised_tokens_ignore_case_accents_and_punctuation() -> None:
    assert normalize_tokens("User prefers Café-au-lait!") == normalize_tokens("user PREFERS cafe au lait")
    assert jaccard(frozenset(), frozenset()) == 0.0


def test_duplicates_within_one_reply_merge() -> None:
    plan = plan_facts(
        [
            Candidate("User prefers dark mode.", 0.6, ("ui",)),
            Candidate("The user prefers dark mode", 0.9, ("pref",)),
            Candidate("User lives in Lisbon", 0.7, ()),
        ],
        [],
    )
    assert [f.content for f in plan.inserts] == ["User prefers dark mode.", "User lives in Lisbon"]
    assert plan.inserts[0].salience == 0.9 and plan.inserts[0].tags == ("ui", "pref")
    assert plan.merged_in_reply == 1 and plan.bumps == ()


def test_duplicate_of_an_existing_fact_bumps_it() -> None:
    existing = [
        ExistingFact("7", "user prefers DARK mode", 0.5, 1),
        ExistingFact("8", "User owns a cat", 0.4, 1),
    ]
    plan = plan_facts(
        [Candidate("User prefers dark mode!", 0.7, ()), Candidate("user prefers dark-mode", 0.3, ())],
        existing,
    )
    assert plan.inserts == ()
    assert len(plan.bumps) == 1 and plan.bumps[0].fact_id == "7"
    assert plan.bumps[0].salience == pytest.approx(0.75)


def test_one_substituted_word_is_not_a_duplicate() -> None:
    existing = [ExistingFact("1", "User lives in Lisbon Portugal now", 0.5, 1)]
    plan = plan_facts([Candidate("User lives in Porto Portugal now", 0.5, ())], existing)
    assert len(plan.inserts) == 1


def test_embedding_near_duplicates_are_caught_when_tokens_differ() -> None:
    # Same words, reordered with extra filler the token Jaccard would not forgive at a strict threshold.
    existing = [ExistingFact("1", "Sam prefers tea over coffee", 0.5, 1)]
    candidates = [Candidate("over coffee, Sam prefers tea", 0.5, ())]
    assert len(plan_facts(candidates, existing, jaccard_min=1.01).inserts) == 1
    plan = plan_facts(candidates, existing, _embed, jaccard_min=1.01)
    assert plan.inserts == () and plan.bumps[0].fact_id == "1"


def test_embedding_failure_falls_back_to_tokens() -> None:
    def broken(texts: Sequence[str]) -> npt.NDArray[np.float32]:
        raise RuntimeError("no model")

    plan = plan_facts([Candidate("User likes jazz music", 0.5, ())], [], broken)
    assert len(plan.inserts) == 1


def test_identity_facts_dedup_within_reply_and_against_existing() -> None:
    existing = [ExistingFact("3", "User's name is Sam", 1.0, 1)]
    plan = plan_identity(["user's name is Sam.", "User is a nurse", "The user is a nurse"], existing)
    assert plan.bump_ids == ("3",)
    assert plan.inserts == ("User is a nurse",)


def test_repeated_sentences_in_a_summary_collapse() -> None:
    looping = "Alice is a nurse. I'm excited to start running. I'm excited to start running. i'm excited to start running"
    assert parse_reply(digest(looping)).summary == "Alice is a nurse. I'm excited to start running."


def test_negation_is_not_a_duplicate() -> None:
    plan = plan_facts(
        [Candidate("User does not like tea", 0.5, ())], [ExistingFact("1", "User likes tea", 0.5, 1)]
    )
    assert len(plan.inserts) == 1
