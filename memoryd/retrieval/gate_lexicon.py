"""How common a word is in general language (wordfreq's offline lists for en/fr/es/de/pt), for agent-specific terms.

A query word that is frequent in this agent's memory and rare in general language ("Mochi", "Falcon", "Lisbon"
for most users) says the question is about the user's world; a common word ("dinner", "recipe") says little.
The lists ship with the wordfreq package (no download); loading all five takes about a second, so the composition
root calls preload() at startup rather than paying it on the first query.
"""

from __future__ import annotations

import functools
import logging
import re

_log = logging.getLogger("memoryd.gate_lexicon")

#: The languages our users write in (the gate sets cover exactly these).
LANGUAGES = ("en", "fr", "es", "de", "pt")
#: Zipf scale: 7 ≈ "the", 3 ≈ once per ten million words, 0 = not in any list.
MAX_ZIPF = 8.0
_WORD = re.compile(r"\w+")


@functools.lru_cache(maxsize=1)
def _zipf_function() -> object | None:
    try:
        from wordfreq import zipf_frequency
    except ImportError:  # the gate still works without it: every word then counts as rare
        _log.warning("wordfreq is not installed; agent-specific term features treat every word as rare")
        return None
    return zipf_frequency


def preload() -> None:
    """Load the frequency lists now (about a second), so no user query pays for it."""
    for language in LANGUAGES:
        general_zipf("the", language)


@functools.lru_cache(maxsize=65_536)
def general_zipf(word: str, language: str | None = None) -> float:
    """Zipf frequency of `word` (casefolded, accents kept): in `language`, or the highest over LANGUAGES."""
    zipf = _zipf_function()
    if zipf is None or not word:
        return 0.0
    languages = (language,) if language else LANGUAGES
    return max(float(zipf(word, lang)) for lang in languages)  # type: ignore[operator]


def rarity(word: str) -> float:
    """1.0 for a word in no list, 0.0 for the commonest words: (7 - zipf) / 7, clipped to [0, 1]."""
    return min(1.0, max(0.0, (7.0 - general_zipf(word)) / 7.0))


def surface_words(text: str) -> list[str]:
    """Casefolded words with their accents (what wordfreq expects), in order."""
    return _WORD.findall(text.casefold())


__all__ = ["LANGUAGES", "general_zipf", "preload", "rarity", "surface_words"]
