"""Text features the consolidator compares: folded content-word sets, Jaccard, containment, identity-grade facts."""

from __future__ import annotations

import functools
import re

from memoryd.text import CONSOLIDATION_STOP_WORDS
from memoryd.text import fold as shared_fold
from memoryd.text import jaccard as jaccard

_WORD = re.compile(r"\w+")
#: The writer's filler words plus pronouns and auxiliaries; negations ("not", "never", "no") are kept.
STOPWORDS = CONSOLIDATION_STOP_WORDS
#: Words of an identity-grade fact: who the user is, not what they happen to like or do today.
_IDENTITY_SUBJECT = re.compile(
    r"^(?:the\s+)?user(?:'s|s)?\s+(?:"
    r"(?:full\s+|first\s+|last\s+|preferred\s+|nick)?name|pronouns|birthday|birth\s*date|age|nationality|"
    r"hometown|home\s*town|native\s+language|mother\s+tongue|job|occupation|profession|job\s+title|title|role|"
    r"employer|company|wife|husband|spouse|partner|son|daughter|children|kids|mother|father|parents|"
    r"brother|sister|dog|cat|pet)\b"
    r"|^(?:the\s+)?user\s+(?:is\s+(?:called|named|a|an|from|based|married|\d+)|was\s+born|lives|grew\s+up|"
    r"works\s+(?:as|at|for)|studied|speaks|has\s+(?:a|an|two|three|\d+)\s+(?:son|daughter|child|children|kids|"
    r"wife|husband|partner|dog|cat|pet)s?)\b"
    r"|^my\s+name\s+is\b",
    re.IGNORECASE,
)
#: Tags the writer may put on a pinned candidate that mark it as a fact about the user themself.
IDENTITY_TAGS = frozenset(
    {"identity", "personal", "profile", "bio", "biography", "name", "family", "occupation"}
)


#: Byte table mapping ASCII non-word characters to spaces: translate + split is ~4× faster than the regex on
#: the common all-ASCII text, with the same tokens.
_ASCII_SEPARATORS = bytes(c if chr(c).isalnum() or chr(c) == "_" else 32 for c in range(256))


def fold(text: str) -> str:
    """Case-folded, accents of the diacritic blocks removed (consolidation's variant of memoryd.text.fold)."""
    return shared_fold(text, casefold=True, diacritic_blocks_only=True)


def words(text: str) -> list[str]:
    """Folded word tokens (runs of letters, digits and underscores), in order."""
    folded = fold(text)
    if folded.isascii():
        return ascii_words(folded)
    return _WORD.findall(folded)


def ascii_words(text: str, keep: bytes = b"") -> list[str]:
    """Word tokens of ASCII text: a byte-table translate and split (several times faster than the regex).
    Bytes in `keep` survive as (parts of) tokens."""
    table = _ASCII_SEPARATORS if not keep else _with_kept(keep)
    return text.encode("ascii").translate(table).decode("ascii").split()


@functools.lru_cache(maxsize=8)
def _with_kept(keep: bytes) -> bytes:
    table = bytearray(_ASCII_SEPARATORS)
    for byte in keep:
        table[byte] = byte
    return bytes(table)


def stem(word: str) -> str:
    """Crude suffix stripping so "prefers"/"preferred"/"preferring" meet; never below three letters."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            base = word[: -len(suffix)]
            if suffix in ("ing", "ed") and len(base) >= 4 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]  # preferred → prefer, running → run
            return base
    return word


def content_words(text: str, *, stemmed: bool = False) -> frozenset[str]:
    """Set of folded content words (filler dropped unless nothing else is left)."""
    tokens = words(text)
    found = frozenset(stem(w) for w in tokens) if stemmed else frozenset(tokens)
    return (found - STOPWORDS) or found


def is_identity_grade(content: str, tags_csv: str = "") -> bool:
    """Whether a pinned fact states who the user is (name, origin, job, family), by wording or by tag."""
    tags = {t.strip().casefold() for t in tags_csv.split(",") if t.strip()}
    return bool(tags & IDENTITY_TAGS) or bool(_IDENTITY_SUBJECT.search(content.strip()))


def merge_lines(first: str, second: str) -> str:
    """Newline lists joined, duplicates (case-insensitive) dropped, order kept."""
    return _merge(first.split("\n"), second.split("\n"), "\n")


def merge_csv(first: str, second: str) -> str:
    """Comma lists joined the way the writer writes them (", "), duplicates dropped, order kept."""
    return _merge(first.split(","), second.split(","), ", ")


def _merge(first: list[str], second: list[str], separator: str) -> str:
    seen: set[str] = set()
    kept: list[str] = []
    for item in (*first, *second):
        text = item.strip()
        key = text.casefold()
        if text and key not in seen:
            seen.add(key)
            kept.append(text)
    return separator.join(kept)
