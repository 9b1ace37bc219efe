"""Pure parts of the consolidator: word sets, the prefix-filtered Jaccard join (checked against brute force),
support counting, identity-grade wording, narrative prompt and reply clean-up."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.consolidate.narrative import FactLine, build_messages, clean_reply, facts_digest
from memoryd.consolidate.similarity import EpisodeFeature, find_duplicates
from memoryd.consolidate.support import support_counts
from memoryd.consolidate.text import (
    content_words,
    is_identity_grade,
    jaccard,
    merge_csv,
    merge_lines,
)

_WORDS = st.frozensets(st.sampled_from([f"w{i}" for i in range(14)]), min_size=0, max_size=12)


def _brute_force(items: list[EpisodeFeature], threshold: float) -> list[tuple[int, int]]:
    order = sorted(items, key=lambda e: (e.at_ms, e.id))
    alive = [True] * len(order)
    pairs = []
    for y in range(len(order)):
        best = None
        for x in range(y):
            if not alive[x] or not (order[x].is_new or order[y].is_new):
                continue
            score = jaccard(order[x].words, order[y].words)
            if score >= threshold and (best is None or score > best[0]):
                best = (score, x)
        if best is not None:
            alive[y] = False
            pairs.append((order[best[1]].id, order[y].id))
    return pairs


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_WORDS, st.booleans()), min_size=0, max_size=25), st.sampled_from([0.5, 0.7, 0.9]))
def test_prefix_filtered_join_equals_brute_force(
    sets: list[tuple[frozenset[str], bool]], threshold: float
) -> None:
    items = [
        EpisodeFeature(i + 1, at_ms=(i * 7) % 5, words=words, is_new=new)
        for i, (words, new) in enumerate(sets)
    ]
    found = [(p.survivor_id, p.duplicate_id) for p in find_duplicates(items, jaccard_min=threshold)]
    assert found == _brute_force(items, threshold)


def test_content_words_fold_case_accents_and_filler() -> None:
    assert content_words("The user's Café is in Zürich!") == frozenset({"cafe", "zurich"})
    assert content_words("is it") == frozenset({"is", "it"})  # all filler: kept rather than empty
    assert content_words("The user preferred running", stemmed=True) == frozenset({"prefer", "run"})


def test_support_counts_containment() -> None:
    facts = ["User prefers PostgreSQL for analytics.", "Jazz!", "aa bb cc dd ee", "Zürich café owner"]
    episodes = [
        "postgresql analytics, preferred",  # 3/3 words
        "Analytics in PostgreSQL",  # 2/3 >= 0.6
        "postgresql only",  # 1/3
        "jazz night",  # a one-word fact never counts
        "aa bb cc",  # 3/5 = 0.6: counts
        "The CAFE in zurich",  # 2/3, accents folded
    ]
    assert support_counts(facts, episodes).tolist() == [2, 0, 1, 1]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(["a1", "b2", "c3", "d4", "e5", "f6", "the"]), max_size=6), max_size=12),
    st.lists(st.lists(st.sampled_from(["a1", "b2", "c3", "d4", "e5", "x9"]), max_size=8), max_size=6),
)
def test_support_counts_equal_the_set_definition(facts: list[list[str]], episodes: list[list[str]]) -> None:
    fact_texts, episode_texts = [" ".join(f) for f in facts], [" ".join(e) for e in episodes]
    expected = []
    for fact in fact_texts:
        words = content_words(fact, stemmed=True) - {"the"}
        count = 0
        if len(words) >= 2:
            for episode in episode_texts:
                shared = len(words & content_words(episode, stemmed=True))
                count += shared >= math.ceil(0.6 * len(words) - 1e-9)
        expected.append(count)
    assert support_counts(fact_texts, episode_texts).tolist() == expected


def test_identity_grade_wording_and_tags() -> None:
    assert is_identity_grade("User's name is Sam")
    assert is_identity_grade("The user lives in Porto")
    assert is_identity_grade("The user works as a nurse")
    assert is_identity_grade("The user has two daughters")
    assert is_identity_grade("Sam likes hiking", "hobby, personal")
    assert not is_identity_grade("The user prefers dark mode")
    assert not is_identity_grade("The project uses Rust")


def test_merge_lists_keep_order_and_drop_duplicates() -> None:
    assert merge_lines("a\nB", "b\nc\n") == "a\nB\nc"
    assert merge_csv("x, y", "Y,z") == "x, y, z"


def test_narrative_prompt_and_reply_cleanup() -> None:
    facts = [FactLine("User's name is Ana", 3), FactLine("User lives in Porto", 1)]
    messages = build_messages(facts)
    assert messages[0].role == "system" and messages[1].role == "user"
    assert "- User's name is Ana (seen 3×)" in messages[1].content
    assert facts_digest(facts, "m") == facts_digest(list(facts), "m")
    assert facts_digest(facts, "m") != facts_digest(facts[:1], "m")
    assert facts_digest(facts, "m") != facts_digest(facts, "other-model")
    assert clean_reply('```text\nNarrative: "The user is Ana."\n```') == "The user is Ana."
    long = "The user is Ana. " * 200
    cleaned = clean_reply(long)
    assert len(cleaned) <= 1500 and cleaned.endswith(".")


def test_support_counts_survive_texts_holding_the_internal_break_byte() -> None:
    facts = ["alpha\x01beta gamma", "delta epsilon"]
    episodes = ["alpha beta gamma", "delta\x01epsilon"]
    assert support_counts(facts, episodes).tolist() == [1, 1]
