"""Pure retrieval functions: terms, BM25 with per-agent statistics, RRF, candidate pruning, MMR."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import numpy as np

from memoryd.retrieval.context_prior import Position, conversation_prior, smooth_neighbours
from memoryd.retrieval.hybrid import AgentCorpus, bm25_scores, candidate_terms, idf, ranked, rrf
from memoryd.retrieval.length_prior import MIN_CHARS, informative_prior
from memoryd.retrieval.mmr import (
    KEY_CACHE,
    Candidate,
    jaccard,
    mmr,
    pool_shingle_keys,
    shingle_key,
    shingle_keys,
    shingles,
)
from memoryd.retrieval.stem import stem
from memoryd.retrieval.terms import _TOKEN, fold, query_terms, term_counts, tokens
from memoryd.retrieval.when import asks_when, has_time_reference


def test_terms_fold_accents_case_and_drop_stop_words() -> None:
    assert fold("Crème Brûlée") == "creme brulee"
    assert tokens("Zoë's café_au-lait!") == ["zoe", "s", "cafe", "au", "lait"]
    assert query_terms("What did I say about the Café in Lisbon?") == ["cafe", "lisbon"]
    assert query_terms("who are you") == ["who", "are", "you"]  # only stop words: keep them
    assert query_terms("?!") == []


def test_tokens_and_term_counts_equal_their_plain_definitions() -> None:
    """fastctx8's faster forms (no split pass without an underscore, stems mapped in C) change nothing: the
    definition is the tokens of the folded text split at underscores, and the Counter of their stems."""
    rng = random.Random(5)
    pieces = [
        "Zoë",
        "café_au-lait",
        "__init__",
        "a_b_c",
        "naïve",
        "x2",
        "Straße",
        "ÉTÉ",
        "_",
        "42",
        "ok",
        "l'été",
    ]
    texts = [
        "",
        "_",
        "__",
        "snake_case words",
        *(" ".join(rng.choices(pieces, k=rng.randint(1, 8))) for _ in range(300)),
    ]
    for text in texts:
        plain = [piece for token in _TOKEN.findall(fold(text)) for piece in token.split("_") if piece]
        assert tokens(text) == plain, text
        assert term_counts(text) == Counter(stem(token) for token in plain), text


def test_rrf_fuses_ranks_and_tolerates_a_missing_side() -> None:
    fused = rrf([[1, 2, 3], [3, 1]])
    assert ranked(fused)[0] == 1 and set(fused) == {1, 2, 3}
    assert ranked(rrf([[7, 8, 9]])) == [7, 8, 9]  # one side only: that side's order
    assert ranked(rrf([[1, 2], [2, 1]], weights=[1.0, 0.0])) == [1, 2]


def test_bm25_uses_the_agents_own_document_frequencies() -> None:
    docs = {1: "zebra notes", 2: "lemon notes"}
    corpus = AgentCorpus(rows=100, mean_chars=11.0)
    rare_zebra = bm25_scores(["zebra", "lemon"], docs, corpus, {"zebra": 1, "lemon": 50}.__getitem__)
    rare_lemon = bm25_scores(["zebra", "lemon"], docs, corpus, {"zebra": 50, "lemon": 1}.__getitem__)
    assert ranked(rare_zebra) == [1, 2] and ranked(rare_lemon) == [2, 1]
    assert idf(100, 1) > idf(100, 50) > 0


def test_candidate_terms_skip_absent_and_very_common_terms() -> None:
    dfs = {"caroline": 900, "painting": 12, "absent": 0, "sunrise": 3}
    assert candidate_terms(list(dfs), dfs, rows=1000) == ["painting", "sunrise"]
    assert candidate_terms(["caroline", "absent"], dfs, rows=1000) == ["caroline"]  # all common: rarest kept
    assert candidate_terms(["absent"], dfs, rows=1000) == []


def test_mmr_prefers_relevant_but_different_items() -> None:
    assert jaccard(shingles("painting"), shingles("paintings")) > 0.5
    items = [
        Candidate(1, 1.0, "we painted the sunrise over the lake"),
        Candidate(2, 0.99, "we painted the sunrise over the lake!"),
        Candidate(3, 0.9, "the kids went camping in the forest"),
    ]
    assert [i for i, _ in mmr(items, 2, lam=0.5)] == [1, 3]
    assert [i for i, _ in mmr(items, 3, lam=1.0)] == [1, 2, 3]
    assert mmr([], 3) == []


def _plain_mmr(candidates: Sequence[Candidate], top_k: int, lam: float) -> list[tuple[int, float]]:
    """The textbook greedy loop over Python sets, as the reference for the vectorised one."""
    low, high = min(c.score for c in candidates), max(c.score for c in candidates)
    relevance = [1.0 if high == low else (c.score - low) / (high - low) for c in candidates]
    sets = [shingles(c.text) for c in candidates]
    picked: list[int] = []
    while len(picked) < min(top_k, len(candidates)):
        left = [i for i in range(len(candidates)) if i not in picked]
        penalty = [max((jaccard(sets[i], sets[p]) for p in picked), default=0.0) for i in left]
        best = max(
            range(len(left)), key=lambda j: (lam * relevance[left[j]] - (1 - lam) * penalty[j], -left[j])
        )
        picked.append(left[best])
    return [(candidates[i].id, candidates[i].score) for i in picked]


def test_vectorised_mmr_picks_exactly_what_the_plain_greedy_loop_picks() -> None:
    rng = random.Random(7)
    words = [
        "sunrise",
        "lake",
        "painting",
        "camping",
        "forest",
        "kids",
        "pottery",
        "museum",
        "picnic",
        "guitar",
        "café",
        "crème",
        "東京",
        "go",
    ]
    for _ in range(60):
        size = rng.choice([1, 3, 12, 40])
        texts = [" ".join(rng.choices(words, k=rng.randint(0, 6))) for _ in range(size)]
        texts += texts[: size // 3]  # exact duplicates and empty texts (no shingles) included
        pool = [Candidate(i, rng.choice([0.5, rng.random()]), t) for i, t in enumerate(texts)]
        for top_k, lam in ((5, 0.85), (len(pool), 0.5), (3, 0.0)):
            assert mmr(pool, top_k, lam) == _plain_mmr(pool, top_k, lam)


def test_shingle_keys_are_one_distinct_key_per_shingle_in_any_script() -> None:
    texts = [
        "",
        "a",
        "Go to the lake at 7 am",
        "painting paintings PAINT",
        "snake_case and_underscores",
        "Café crème à Zürich",
        "Ångström naïve café",
        "東京で寿司を食べた",
        "Привет, как дела? мир",
        "mixed café painting 東京 ok",
    ]
    sets = [shingles(text) for text in texts]
    keys = [set(shingle_keys(text).tolist()) for text in texts]
    for text, found in zip(texts, keys, strict=True):
        assert list(shingle_keys(text)) == sorted(found)  # sorted, no repeats
    for a, key_a in zip(sets, keys, strict=True):
        assert len(key_a) == len(a)
        for b, key_b in zip(sets, keys, strict=True):
            assert len(key_a & key_b) == len(a & b)


def _one_text_keys(text: str) -> list[int]:
    """shingle_keys as it was computed before pools were shingled together: one text, its own numpy pass."""
    words = tokens(text)
    joined = " ".join(words)
    if not joined.isascii():
        return sorted({shingle_key(s) for s in shingles(text)})
    short = [shingle_key(word) for word in words if len(word) < 4]
    grams: list[int] = []
    for word in words:
        grams += [shingle_key(word[i : i + 4]) for i in range(len(word) - 3)]
    return sorted(set(grams) | set(short))


def test_a_pool_shingled_together_gets_each_texts_own_keys() -> None:
    rng = random.Random(11)
    words = ["sunrise", "lake", "go", "a", "to", "café", "東京", "snake_case", "x1", "abcd", "painting", "7"]
    for _ in range(40):
        texts = [" ".join(rng.choices(words, k=rng.randint(0, 7))) for _ in range(rng.choice([1, 2, 9, 70]))]
        texts += ["", "ab", "abcd efgh", "  Go   to the LAKE  ", *texts[:3]]
        KEY_CACHE.clear()
        cached = texts[::5]
        for text in cached:  # some texts already kept, the others shingled together
            shingle_keys(text)
        pooled = pool_shingle_keys(texts)
        for text, keys in zip(texts, pooled, strict=True):
            assert keys.dtype == np.int64
            assert keys.tolist() == _one_text_keys(text)
            assert shingle_keys(text).tolist() == keys.tolist()


def test_no_shingle_crosses_from_one_text_of_a_pool_to_the_next() -> None:
    KEY_CACHE.clear()
    first, second = pool_shingle_keys(["ab", "cd"])
    assert first.tolist() == [shingle_key("ab")] and second.tolist() == [shingle_key("cd")]
    assert [k.tolist() for k in pool_shingle_keys(["xabc", "defx"])] == [
        [shingle_key("xabc")],
        [shingle_key("defx")],
    ]
    KEY_CACHE.clear()
    assert [k.tolist() for k in pool_shingle_keys(["lake", "lake"])] == [[shingle_key("lake")]] * 2


def test_neighbour_smoothing_lifts_rows_next_to_strong_matches() -> None:
    where = {1: Position("s1", 0), 2: Position("s1", 1), 3: Position("s2", 0)}
    smoothed = smooth_neighbours({1: 1.0, 2: 0.2, 3: 0.3}, where, 0.25)
    assert smoothed[2] == 0.2 + 0.25 * 1.0  # next to the best row
    assert smoothed[3] == 0.3  # alone in its conversation
    assert ranked(smoothed)[1] == 2
    assert smooth_neighbours({1: 1.0}, {1: Position("s", 0)}, 0.0) == {1: 1.0}


def test_conversation_prior_groups_by_the_best_conversation() -> None:
    where = {1: Position("a", 0), 2: Position("b", 5), 3: Position("a", 9), 4: Position("c", 0)}
    scores = {1: 0.9, 2: 0.8, 3: 0.1, 4: 0.7}
    boosted = ranked(conversation_prior(scores, where, weight=1.0))
    assert boosted[0] == 1
    assert boosted.index(3) < boosted.index(
        4
    )  # same session as the best match beats an unrelated, better row
    assert ranked(conversation_prior(scores, where, weight=0.0)) == [1, 2, 4, 3]


def test_when_questions_and_time_references() -> None:
    for question in (
        "When did Maria start volunteering?",
        "what year did you move?",
        "How long ago was the trip?",
    ):
        assert asks_when(question), question
    for question in ("Where does Maria volunteer?", "What did John say when he left?", "Which time zone?"):
        assert not asks_when(question), question
    for text in (
        "I went yesterday",
        "last Friday we met",
        "two weeks ago",
        "in May we moved",
        "since 2019",
        "May 7",
        "last Fri.",
    ):
        assert has_time_reference(text), text
    for text in ("I may go there", "We love the shelter", "Maybe later", "Wow, nice!", "the sun sat low"):
        assert not has_time_reference(text), text


def test_informative_prior_lifts_longer_rows_among_close_scores_only() -> None:
    scores = {1: 1.0, 2: 0.98, 3: 0.5}
    chars = {1: 12, 2: 140, 3: 400}
    lifted = informative_prior(scores, chars, 0.08)
    assert ranked(lifted) == [2, 1, 3]  # close scores: the informative row first; a far weaker row stays last
    assert lifted[1] == 1.0 * MIN_CHARS**0.08  # a one-word row counts as MIN_CHARS long
    assert informative_prior({9: 1.0}, {}, 0.08) == {
        9: MIN_CHARS**0.08
    }  # unknown length: as short as it gets
    assert informative_prior(scores, chars, 0.0) == scores
