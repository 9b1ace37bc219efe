"""Text normalisation shared by FTS queries and re-scoring: FTS5-compatible tokens, case and accent folding, stop words.

The FTS mirrors index Porter stems (`porter unicode61 remove_diacritics 2`): queries send surface words, which FTS5
stems itself (sending a stem would stem it again, and Porter is not idempotent: "agreed" → "agre" → "agr"); the
Python re-scoring counts stems (`term_counts`, `index_term`), so both sides see the same terms.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from memoryd.retrieval.stem import stem

# Stop words (dropped from queries; see query_terms) and folding (the default fold is FTS5's unicode61 with
# remove_diacritics 2) live in memoryd.text, shared with the writer and consolidation.
from memoryd.text import ENGLISH_STOP_WORDS as STOP_WORDS
from memoryd.text import fold as fold

#: Most query terms passed to FTS5 (keeps MATCH cheap on long pasted queries).
MAX_QUERY_TERMS = 24

_TOKEN = re.compile(r"\w+", re.UNICODE)


@lru_cache(maxsize=8_192)
def term_counts(text: str) -> Counter[str]:
    """Indexed-term (stem) counts of a text, cached (rows are re-scored again and again; treat as read-only).

    Stems are mapped in C (no generator frame per token): a miss took ~11-13 instead of ~13-17 us on bench_assemble's
    rows, where a cache-miss AssembleContext's keyword sides count ~120 uncached rows beside the query embedding
    (~0.4 ms of CPU a call, fastctx8)."""
    return Counter(map(stem, tokens(text)))


def index_term(token: str) -> str:
    """The term FTS5 indexes for a folded token: its Porter stem."""
    return stem(token)


def tokens(text: str) -> list[str]:
    """FTS5-compatible tokens: runs of letters and digits after folding (underscore splits, as in unicode61).

    A text without an underscore is returned as the regex found it (the split pass changes nothing there)."""
    folded = fold(text)
    found = _TOKEN.findall(folded)
    if "_" not in folded:
        return found
    return [piece for token in found for piece in token.split("_") if piece]


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
