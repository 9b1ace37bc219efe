"""Text primitives every part of memoryd shares: case and accent folding, shingles, Jaccard, English stop words.

One definition each. Where callers need different behaviour, it is a parameter, and each caller keeps the
behaviour it had before these were merged:

- fold(): the read path (FTS queries and re-scoring) lower-cases like FTS5's `unicode61 remove_diacritics 2`;
  the gate and the writer's dedup use full Unicode case folding ("ß" → "ss"); consolidation also case-folds but
  strips only the combining diacritical blocks (a Japanese dakuten or an Arabic haraka stays).
- Stop words: three lists for three purposes (query terms, fact filler, consolidation content words).

Pure functions, standard library only, so the writer, the read path and consolidation can all import it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

#: Combining Diacritical Marks, their Extended and Supplement blocks, marks for symbols and half marks.
_DIACRITIC_BLOCKS = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")

#: Default shingle width of `shingles`.
SHINGLE_CHARS = 4


def fold(text: str, *, casefold: bool = False, diacritic_blocks_only: bool = False) -> str:
    """Lower-case (str.casefold with `casefold`) and strip accents after NFKD decomposition.

    By default every combining mark goes, as FTS5's `remove_diacritics 2` does; with `diacritic_blocks_only` only
    the marks of the diacritic blocks do. ASCII text skips the Unicode pass: it is the common case.
    """
    lowered = text.casefold() if casefold else text.lower()
    if lowered.isascii():
        return lowered
    decomposed = unicodedata.normalize("NFKD", lowered)
    if diacritic_blocks_only:
        return _DIACRITIC_BLOCKS.sub("", decomposed)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def shingles(words: Iterable[str], size: int = SHINGLE_CHARS) -> frozenset[str]:
    """`size`-character shingles of each word (words no longer than that are kept whole)."""
    found: set[str] = set()
    for word in words:
        if len(word) <= size:
            found.add(word)
        else:
            found.update(word[i : i + size] for i in range(len(word) - size + 1))
    return frozenset(found)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b|; 0 for two empty sets."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def word_list(text: str) -> frozenset[str]:
    """The whitespace-separated words of a word list written as text."""
    return frozenset(text.split())


#: English function words (Lucene's set plus question words and pronouns): dropped from search queries because an
#: OR of them matches nearly every row. The writer's grounding builds its multilingual lists on top of it.
ENGLISH_STOP_WORDS = word_list(
    """
    a about above after again against all am an and any are aren as at be because been before being below
    between both but by can cannot could couldn did didn do does doesn doing don down during each few for
    from further had hadn has hasn have haven having he her here hers herself him himself his how i if in
    into is isn it its itself just let me more most my myself no nor not now of off on once only or other
    ought our ours ourselves out over own same shan she should shouldn so some such than that the their
    theirs them themselves then there these they this those through to too under until up very was wasn we
    were weren what when where which while who whom why will with won would wouldn you your yours yourself
    yourselves s t d ll m re ve y also ever get got like one really tell told know say said thing things
    much many yes yeah oh ok okay hey hi hello thanks thank please
    """
)

#: Filler that carries no fact, for comparing facts ("The user prefers dark mode." = "user prefers dark-mode").
#: Negations ("not", "never", "no") are deliberately absent: they flip a fact.
FACT_FILLER_WORDS = word_list(
    """
    a an the user user's s is are was were be been am to of in on at for and or but that this it its with as
    by from now currently really very also just
    """
)

#: The fact filler plus pronouns and auxiliaries: what consolidation ignores when it compares memories.
#: Negations are still kept.
CONSOLIDATION_STOP_WORDS = FACT_FILLER_WORDS | word_list(
    """
    about can could did do does had has have he her his i into me my our over she should their them they we
    will would you your
    """
)


__all__ = [
    "CONSOLIDATION_STOP_WORDS",
    "ENGLISH_STOP_WORDS",
    "FACT_FILLER_WORDS",
    "SHINGLE_CHARS",
    "fold",
    "jaccard",
    "shingles",
    "word_list",
]
