"""Verifies a model-written identity narrative against the one agent's facts it was written from.

A narrative is injected into every prompt of its agent, so it must say nothing the facts do not: a small model
loops ("I'm 12 years old. I'm 12 years old."), invents names and ages, and copies the prompt's own lines back. A
reply is accepted only when it has no repeated word 3-gram carrying content, every capitalised name and every
number in it occurs in the facts, at least MIN_SUPPORTED_SHARE of its content words (and half of each sentence's)
occur in the facts (case and accents folded, light stemming), and it copies no scaffolding from the prompt.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from memoryd.consolidate.text import STOPWORDS, fold, stem, words

#: Share of the reply's content words that must occur in the facts (paraphrase keeps most of them).
MIN_SUPPORTED_SHARE = 0.7
#: Share of each sentence's content words that must occur in the facts: one wholly invented sentence fails.
MIN_SENTENCE_SHARE = 0.5
#: Word n-gram length of the loop check, and of the check for prompt lines copied into the reply.
LOOP_NGRAM = 3
SCAFFOLD_NGRAM = 4
#: Words a third-person profile uses about its subject, function words the shared stop list lacks, and discourse
#: words that link sentences; none of them is a claim (negations stay content words: "not vegan" must be backed
#: by a fact saying so).
_SUBJECT_WORDS = frozenset(
    [
        "user",
        "users",
        "s",
        "who",
        "whom",
        "whose",
        "which",
        "where",
        "when",
        "while",
        "there",
        "so",
        "than",
        "then",
        "additionally",
        "moreover",
        "furthermore",
        "however",
        "besides",
        "likewise",
    ]
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_TOKEN = re.compile(r"[^\W_]+")
_DIGITS = re.compile(r"\d+")
#: Prompt markers that never belong in a profile: the "(seen 3×)" support counts and list bullets.
_MARKERS = re.compile(r"seen\s+\d+\s*[×x]|×|^\s*[-*•]\s", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class NarrativeVerdict:
    """Whether the reply may be stored; `reason` names the first rule it broke ("" when accepted)."""

    accepted: bool
    reason: str = ""


def _content(tokens: Sequence[str]) -> list[str]:
    return [t for t in tokens if t not in STOPWORDS and t not in _SUBJECT_WORDS and len(t) > 1]


def _stems(tokens: Sequence[str]) -> set[str]:
    return {stem(t) for t in tokens}


def _ngrams(tokens: Sequence[str], size: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + size]) for i in range(len(tokens) - size + 1)]


def is_loop(text: str) -> bool:
    """Whether some word 3-gram holding a content word occurs twice ("12 years old ... 12 years old"); "the user
    is" may open every sentence, so n-grams of filler and subject words alone do not count."""
    tokens = words(text)
    counts = Counter(_ngrams(tokens, LOOP_NGRAM))
    return any(seen > 1 and _content(gram) for gram, seen in counts.items())


def _names(text: str) -> list[str]:
    """Folded capitalised words, sentence openers included unless they are filler ("The", "She")."""
    found: list[str] = []
    for token in _TOKEN.findall(text):
        if token[0].isupper():
            folded = fold(token)
            if folded not in STOPWORDS and folded not in _SUBJECT_WORDS and folded != "i":
                found.append(folded)
    return found


def _copies_scaffolding(
    tokens: Sequence[str], scaffolding: Sequence[str], fact_tokens: Sequence[str]
) -> bool:
    """A run of SCAFFOLD_NGRAM words from the prompt's own text (not from a fact) is in the reply."""
    prompt = {gram for text in scaffolding for gram in _ngrams(words(text), SCAFFOLD_NGRAM)}
    prompt -= set(_ngrams(fact_tokens, SCAFFOLD_NGRAM))
    return any(gram in prompt for gram in _ngrams(tokens, SCAFFOLD_NGRAM))


def verify_narrative(reply: str, facts: Sequence[str], scaffolding: Sequence[str] = ()) -> NarrativeVerdict:
    """Judge a cleaned model reply against the agent's fact texts and the prompt text around them."""
    tokens = words(reply)
    if not _content(tokens):
        return NarrativeVerdict(False, "empty")
    fact_text = "\n".join(facts)
    fact_tokens = words(fact_text)
    fact_words = set(fact_tokens)
    fact_stems = _stems(fact_tokens)
    if _MARKERS.search(reply):
        return NarrativeVerdict(False, "scaffolding")
    if is_loop(reply):
        return NarrativeVerdict(False, "loop")
    if _copies_scaffolding(tokens, scaffolding, fact_tokens):
        return NarrativeVerdict(False, "scaffolding")
    if any(name not in fact_words and stem(name) not in fact_stems for name in _names(reply)):
        return NarrativeVerdict(False, "unsupported_name")
    if set(_DIGITS.findall(reply)) - set(_DIGITS.findall(fact_text)):
        return NarrativeVerdict(False, "unsupported_number")
    content = _content(tokens)
    supported = sum(1 for t in content if t in fact_words or stem(t) in fact_stems)
    if supported < MIN_SUPPORTED_SHARE * len(content):
        return NarrativeVerdict(False, "unsupported_words")
    for sentence in _SENTENCE_END.split(reply):
        words_here = _content(words(sentence))
        backed = sum(1 for t in words_here if t in fact_words or stem(t) in fact_stems)
        if words_here and backed < MIN_SENTENCE_SHARE * len(words_here):
            return NarrativeVerdict(False, "unsupported_sentence")
    return NarrativeVerdict(True)


__all__ = ["MIN_SUPPORTED_SHARE", "NarrativeVerdict", "is_loop", "verify_narrative"]
