"""Text normalisation shared by FTS queries and re-scoring: FTS5-compatible tokens, case and accent folding, stop words.

The FTS mirrors index Porter stems (`porter unicode61 remove_diacritics 2`): queries send surface words, which FTS5
stems itself (sending a stem would stem it again, and Porter is not idempotent: "agreed" → "agre" → "agr"); the
Python re-scoring counts stems (`term_counts`, `index_term`), so both sides see the same terms.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from memoryd.retrieval.stem import stem

#: Most query terms passed to FTS5 (keeps MATCH cheap on long pasted queries).
MAX_QUERY_TERMS = 24

# English function words (Lucene's set plus question words and pronouns). Dropped from queries because an OR of
# them matches nearly every row; a query made only of stop words keeps them (see query_terms).
STOP_WORDS = frozenset(
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
    """.split()  # noqa: SIM905 - a word list reads better as text
)

_TOKEN = re.compile(r"\w+", re.UNICODE)


def fold(text: str) -> str:
    """Lower-case and strip diacritics, like FTS5's `unicode61 remove_diacritics 2`."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@lru_cache(maxsize=8_192)
def term_counts(text: str) -> Counter[str]:
    """Indexed-term (stem) counts of a text, cached (rows are re-scored again and again; treat as read-only)."""
    return Counter(stem(token) for token in tokens(text))


def index_term(token: str) -> str:
    """The term FTS5 indexes for a folded token: its Porter stem."""
    return stem(token)


def tokens(text: str) -> list[str]:
    """FTS5-compatible tokens: runs of letters and digits after folding (underscore splits, as in unicode61)."""
    return [piece for token in _TOKEN.findall(fold(text)) for piece in token.split("_") if piece]


def query_terms(text: str, limit: int = MAX_QUERY_TERMS) -> list[str]:
    """Non-stop-word tokens in order of appearance, one per stem (the first surface form); all tokens when every one
    is a stop word. Surface words, not stems: FTS5 stems query terms itself."""
    found = tokens(text)
    kept = _distinct(t for t in found if t not in STOP_WORDS and not (len(t) == 1 and t.isascii()))
    if not kept:
        kept = _distinct(found)
    return kept[:limit]


def _distinct(items: Iterable[str]) -> list[str]:
    """First token of each stem, in order."""
    seen: dict[str, str] = {}
    for item in items:
        seen.setdefault(stem(item), item)
    return list(seen.values())
