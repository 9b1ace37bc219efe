"""Distillation input: memory blocks stripped, and the one short phrasing prompt (memoryd/write/phrase.py)."""

from __future__ import annotations

import json

from memoryd.write.distill import strip_memory_blocks
from memoryd.write.phrase import (
    MAX_PROMPT_CHARS,
    PHRASE_SCHEMA,
    SYSTEM_PROMPT,
    USER_TURN_CHARS,
    build_phrase_prompt,
    parse_phrase,
    what_matters,
    whole_sentences,
    within_prompt,
)


def test_memory_blocks_are_removed() -> None:
    text = "[Memory]\nUser likes tea.\n[/Memory]\nhi there"
    assert strip_memory_blocks(text) == "hi there"
    assert strip_memory_blocks("[memory] a [/MEMORY] b") == "b"


def test_prompt_holds_the_date_and_only_this_sessions_turns() -> None:
    prompt = build_phrase_prompt([("I moved to Lisbon", "Nice!")], session_time_ms=86_400_000)
    assert [m.role for m in prompt.messages] == ["system", "user"]
    assert prompt.messages[0].content == SYSTEM_PROMPT
    user = prompt.messages[1].content
    assert user.startswith("Date: 1970-01-02\nMessages:\n") and "- I moved to Lisbon" in user
    assert (prompt.turns_sent, prompt.turns_omitted) == (1, 0)


def test_only_the_users_turns_are_sent_each_within_its_share() -> None:
    prompt = build_phrase_prompt([("u" * 1000, "a" * 1000)], session_time_ms=0)
    user = prompt.messages[1].content
    assert user.count("u") >= USER_TURN_CHARS and "a" * 10 not in user
    eight = build_phrase_prompt([(f"turn {i} " + "x" * 400, "reply") for i in range(8)], session_time_ms=0)
    text = eight.messages[1].content
    # Eight long turns all fit: each is cut to its share of the budget rather than the middle ones dropped.
    assert eight.turns_omitted == 0 and all(f"turn {i} " in text for i in range(8))
    assert len(text) <= MAX_PROMPT_CHARS and "reply" not in text


def test_long_sessions_keep_their_start_and_end_within_budget() -> None:
    turns = [(f"question {i} " * 20, f"answer {i}") for i in range(100)]
    prompt = build_phrase_prompt(turns, session_time_ms=0)
    user = prompt.messages[1].content
    assert len(user) <= MAX_PROMPT_CHARS and prompt.turns_omitted > 0
    assert "question 0 " in user and "question 99 " in user and "question 50 " not in user


def test_the_reply_schema_is_short_and_the_parser_takes_both_shapes() -> None:
    # The call asks for the summary only; a reply with topics and facts (a remote model) is still read.
    assert PHRASE_SCHEMA["required"] == ["summary"] and list(PHRASE_SCHEMA["properties"]) == ["summary"]
    short = parse_phrase(json.dumps({"summary": "Sure! Here is the summary: We chose Postgres.", "topics": ["db"],
                                     "facts": ["The user prefers Postgres."]}))  # fmt: skip
    assert short.summary == "We chose Postgres." and short.topics == ("db",)
    assert [c.content for c in short.candidates] == ["The user prefers Postgres."]
    full = parse_phrase(json.dumps({"episode": {"summary": "S.", "topics": [], "decisions": [], "action_items": [],
                                                "salience": 0.5}, "entities": [], "pinned_candidates": [],
                                    "identity_facts": []}))  # fmt: skip
    assert full.has_episode and full.summary == "S."


def test_a_summary_cut_at_its_length_keeps_its_whole_sentences() -> None:
    cut = (
        "Biscuit has been limping since yesterday. Dr. Alvarez can see him tomorrow at 9. We decided to bring"
    )
    assert (
        whole_sentences(cut)
        == "Biscuit has been limping since yesterday. Dr. Alvarez can see him tomorrow at 9."
    )
    assert whole_sentences("The user chose Postgres.") == "The user chose Postgres."
    assert (
        whole_sentences("The vet is Dr. Li and the user will bring")
        == "The vet is Dr. Li and the user will bring"
    )
    # One clause without an end is all there is: kept, and verified like any summary.
    assert whole_sentences("The user chose Postgres for billing") == "The user chose Postgres for billing"
    reply = json.dumps({"summary": "The user moved to Lyon. They start at the new office on"})
    assert parse_phrase(reply).summary == "The user moved to Lyon."


def test_greetings_thanks_and_chit_chat_are_not_sent() -> None:
    assert what_matters("Hi! I'm Grace and we're planning two weeks in Japan.") == (
        "I'm Grace and we're planning two weeks in Japan."
    )
    assert what_matters("Thanks! See you tomorrow.") == ""
    assert what_matters("Bonjour à tous ! On déménage le 18 avril.") == "On déménage le 18 avril."
    # Thanks said with a decision is kept: it says something.
    assert what_matters("Thanks, that settles it, we'll go with Postgres for billing.") != ""
    prompt = build_phrase_prompt(
        [("Hello!", "Hi!"), ("Our launch moves to May 3.", "Noted.")], session_time_ms=0
    )
    assert "Hello" not in prompt.messages[1].content and prompt.turns_sent == 1


def test_a_model_summary_must_say_what_the_call_showed_it() -> None:
    turns = [
        ("Dana left the company, my new manager is Kevin Osei.", "Is Kevin taking over the roadmap?"),
        ("I have to give Kevin read access to staging.", "Rotate that password since it was pasted here."),
    ]
    prompt = build_phrase_prompt(turns, session_time_ms=0)
    assert within_prompt("The user's new manager is Kevin Osei, who needs read access to staging.", prompt)
    assert within_prompt("The user talked about Kevin Osei, their new manager.", prompt)
    # "password" is only in the assistant's reply, which the call never showed.
    assert not within_prompt("The user has changed the password for the new manager.", prompt)
    french = build_phrase_prompt(
        [("Petit changement : on passe de Revit à Archicad, toute l'équipe.", "")], session_time_ms=0
    )
    assert not within_prompt("Le décès de Petit changement est une réussite à l'archéie de Revit.", french)
