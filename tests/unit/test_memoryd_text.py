"""memoryd.text: the one fold, shingles, Jaccard and stop-word lists, with each caller's variant of fold."""

from __future__ import annotations

from memoryd.consolidate import text as consolidate_text
from memoryd.retrieval import gate, mmr, terms
from memoryd.text import (
    CONSOLIDATION_STOP_WORDS,
    ENGLISH_STOP_WORDS,
    FACT_FILLER_WORDS,
    fold,
    jaccard,
    shingles,
)
from memoryd.write import dedup


def test_default_fold_lowercases_like_fts5_and_strips_every_combining_mark() -> None:
    assert fold("Café CRÈME") == "cafe creme"
    assert fold("Straße") == "straße", "FTS5's unicode61 lower-cases; it does not case-fold ß"
    assert fold("が") == "か", "the dakuten is a combining mark after NFKD"


def test_casefold_variant_maps_sharp_s() -> None:
    assert fold("Straße", casefold=True) == "strasse"
    assert fold("ÉCOLE", casefold=True) == "ecole"


def test_diacritic_blocks_variant_keeps_marks_outside_those_blocks() -> None:
    assert fold("Crème brûlée", casefold=True, diacritic_blocks_only=True) == "creme brulee"
    assert fold("が", casefold=True, diacritic_blocks_only=True) == "か\u3099"


def test_each_caller_keeps_its_variant() -> None:
    assert terms.fold("Straße") == "straße"
    assert gate.fold("  Weißt   du’s  noch? ") == "weisst du's noch?"
    assert consolidate_text.fold("Straße が") == "strasse か\u3099"
    assert dedup.normalize_tokens("The user's STRASSE") == dedup.normalize_tokens("Straße")


def test_jaccard() -> None:
    assert jaccard(frozenset(), frozenset()) == 0.0
    assert jaccard(frozenset("ab"), frozenset("bc")) == 1 / 3
    assert jaccard(frozenset("ab"), frozenset("ab")) == 1.0
    assert mmr.jaccard is dedup.jaccard is consolidate_text.jaccard is jaccard


def test_shingles_keep_short_words_whole() -> None:
    assert shingles(["cat", "tabby"]) == {"cat", "tabb", "abby"}
    assert shingles(["tabby"], size=3) == {"tab", "abb", "bby"}
    assert mmr.shingles("The TABBY cat") == shingles(terms.tokens("The TABBY cat"))


def test_stop_word_lists_nest_and_keep_negations() -> None:
    assert FACT_FILLER_WORDS < CONSOLIDATION_STOP_WORDS
    assert {"user", "currently"} <= FACT_FILLER_WORDS and "user" not in ENGLISH_STOP_WORDS
    for negation in ("not", "never", "no"):
        assert negation not in FACT_FILLER_WORDS and negation not in CONSOLIDATION_STOP_WORDS
    assert terms.STOP_WORDS is ENGLISH_STOP_WORDS
    assert dedup.STOPWORDS is FACT_FILLER_WORDS
    assert consolidate_text.STOPWORDS is CONSOLIDATION_STOP_WORDS
