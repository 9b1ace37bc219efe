"""What merge may touch: readable episode summaries, grounded pairs that add nothing new, a bounded share.

Merging deletes a row, so it only acts on what it can read. A summary takes part only when it is non-trivial
(enough content words), free of a repeated n-gram loop and of the distillation prompt's own scaffolding; the
words it is compared on leave out boilerplate ("the user discussed…") that every summary shares. A pair merges
only when both summaries are grounded in their own session's turns and the newer one brings no name, number or
correction the older lacks (the newer of two look-alikes is the one that holds a correction). And a pass never
folds away more than a bounded share of an agent's episodes: past it, that agent's merges wait for a person.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from memoryd.consolidate.text import STOPWORDS, fold, stem, words

#: Fewest distinct content words (two letters or more, not boilerplate) a summary needs to be merged at all:
#: "1.0.0.0.1:8080" and "I'm 12 years old." have fewer.
MIN_CONTENT_WORDS = 4
#: A summary is a loop when repeated word trigrams cover this share of its tokens (a name said twice is not).
LOOP_COVERAGE = 0.6
#: Share of a summary's content words (stemmed) that its own session's turns must contain.
GROUNDED_SHARE = 0.5
#: Per pass, merge may delete at most this share of an agent's active episodes (but always MIN_ALLOWANCE).
MAX_MERGE_SHARE = 0.25
MIN_ALLOWANCE = 2

#: Words every summary is made of, whatever it is about: never evidence that two episodes are the same one.
BOILERPLATE = frozenset(
    {
        "assistant",
        "asked",
        "ask",
        "chat",
        "conversation",
        "discussed",
        "discuss",
        "discussion",
        "explained",
        "helped",
        "mentioned",
        "said",
        "session",
        "shared",
        "suggested",
        "talked",
        "told",
        "user",
        "users",
    }
)
#: Lines of the distillation prompt (memoryd/write/distill.py) a model may copy back as its summary.
SCAFFOLDING = (
    "conversation date:",
    "what we already know about the user:",
    "recent past sessions",
    "for cross-session continuity",
    "conversation turns:",
    "distill this session into the json digest",
    "middle turn(s) omitted",
    "compact memory digest",
)
#: An earlier episode as the prompt lists it ("- [2023-05-08] …"): a summary holding one copied the context.
_LISTED_EPISODE = re.compile(r"\[\d{4}-\d{2}-\d{2}\]")
#: Words that mark a correction of something said before, in the languages the writer supports.
_CORRECTION = re.compile(
    r"\b(?:instead|actually|no\s+longer|not\s+anymore|changed|corrected|correction|switched|rather\s+than|"
    r"en\s+fait|plut[oô]t|au\s+lieu|ya\s+no|en\s+realidad|en\s+lugar|stattdessen|eigentlich|nicht\s+mehr|"
    r"na\s+verdade|em\s+vez|n[aã]o\s+mais)\b",
    re.IGNORECASE,
)
_CAPITALISED = re.compile(r"\b[A-ZÀ-Þ][\w'-]*")
_HAS_DIGIT = re.compile(r"\w*\d\w*")


def merge_words(summary: str, topics: str = "") -> frozenset[str]:
    """The folded content words two episodes are compared on: filler and boilerplate out."""
    tokens = {w for w in words(f"{summary} {topics}") if len(w) >= 2}
    return frozenset(tokens - STOPWORDS - BOILERPLATE)


def _alphabetic(tokens: Iterable[str]) -> set[str]:
    return {t for t in tokens if any(c.isalpha() for c in t)}


def is_loop(summary: str) -> bool:
    """Whether the summary loops: a run of three or more words repeated back to back ("I'm 12. I'm 12."), a
    trigram said three times, or repeated trigrams covering LOOP_COVERAGE of it. A name said twice is not."""
    tokens = words(summary)
    if len(tokens) < 6:
        return False
    grams = [tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2)]
    counts = Counter(grams)
    if max(counts.values()) >= 3:
        return True
    # A back-to-back repeat starts with a repeated trigram: only those positions are checked (linear in practice).
    first: dict[tuple[str, ...], int] = {}
    for i, gram in enumerate(grams):
        if counts[gram] < 2:
            continue
        start = first.setdefault(gram, i)
        width = i - start
        if width >= 3 and tokens[start:i] == tokens[i : i + width]:
            return True
    covered: set[int] = set()
    for i, gram in enumerate(grams):
        if counts[gram] > 1:
            covered.update((i, i + 1, i + 2))
    return len(covered) / len(tokens) >= LOOP_COVERAGE


def copies_scaffolding(summary: str) -> bool:
    """Whether the summary holds a line of the distillation prompt or an earlier episode as the prompt lists it."""
    folded = fold(summary)
    return any(line in folded for line in SCAFFOLDING) or bool(_LISTED_EPISODE.search(summary))


def unreadable_reason(summary: str) -> str | None:
    """Why merge must leave this summary alone ("trivial", "loop", "scaffolding"), or None when it may merge."""
    if copies_scaffolding(summary):
        return "scaffolding"
    if is_loop(summary):
        return "loop"
    if len(_alphabetic(merge_words(summary))) < MIN_CONTENT_WORDS:
        return "trivial"
    return None


def specifics(text: str) -> frozenset[str]:
    """Names and numbers of a text, folded: capitalised words (not at a sentence start) and tokens with digits."""
    found: set[str] = set()
    for match in _CAPITALISED.finditer(text):
        before = text[: match.start()].rstrip()
        if before and before[-1] not in ".!?:\n":
            found.update(words(match.group()))
    for match in _HAS_DIGIT.finditer(text):
        found.update(words(match.group()))
    return frozenset(found - STOPWORDS - BOILERPLATE)


def adds_something(older: str, newer: str) -> bool:
    """Whether the newer summary states a name or number the older never mentions, or a correction it lacks:
    then it is not a duplicate, whatever the word overlap says."""
    known = frozenset(words(older))
    if specifics(newer) - known:
        return True
    return bool(_CORRECTION.search(newer)) and not _CORRECTION.search(older)


def grounded_share(summary: str, source_text: str) -> float:
    """Share of the summary's content words (stemmed) that its source turns contain (0 without source)."""
    wanted = {stem(w) for w in _alphabetic(merge_words(summary))}
    if not wanted or not source_text.strip():
        return 0.0
    have = {stem(w) for w in words(source_text)}
    return len(wanted & have) / len(wanted)


def allowance(active_episodes: int) -> int:
    """Most episodes one pass may fold away for an agent with this many active episodes."""
    return max(MIN_ALLOWANCE, int(MAX_MERGE_SHARE * active_episodes))


__all__ = [
    "BOILERPLATE",
    "GROUNDED_SHARE",
    "MAX_MERGE_SHARE",
    "MIN_ALLOWANCE",
    "MIN_CONTENT_WORDS",
    "SCAFFOLDING",
    "adds_something",
    "allowance",
    "copies_scaffolding",
    "grounded_share",
    "is_loop",
    "merge_words",
    "specifics",
    "unreadable_reason",
]
