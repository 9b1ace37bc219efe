"""Porter (1980) stemmer, as SQLite FTS5's `porter` tokenizer applies it, so re-scoring counts the index's terms.

The FTS mirrors tokenize with `porter unicode61 remove_diacritics 2` (migration 4): a row's indexed terms are the
Porter stems of its folded tokens. BM25 re-scoring in Python must count the same terms, so this is the reference
algorithm run the way FTS5 runs it: on the token's UTF-8 bytes (a non-ASCII byte is a consonant), tokens shorter
than 3 or longer than 64 bytes left alone. tests/unit/test_memoryd_search_quality.py compares it with FTS5 itself;
on the 5,991 distinct tokens of the LoCoMo turns and questions the two agree on every one.
"""

from __future__ import annotations

from functools import lru_cache

_VOWELS = frozenset("aeiou")
_MIN_BYTES = 3
_MAX_BYTES = 64

_STEP2 = (
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"), ("bli", "ble"),
    ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"),
    ("ator", "ate"), ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"),
    ("iviti", "ive"), ("biliti", "ble"), ("logi", "log"),
)  # fmt: skip
_STEP3 = (
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""), ("ness", ""),
)  # fmt: skip
_STEP4 = (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate",
    "iti", "ous", "ive", "ize",
)  # fmt: skip


def _is_consonant(word: str, i: int) -> bool:
    char = word[i]
    if char in _VOWELS:
        return False
    if char == "y":
        return i == 0 or not _is_consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """m in [C](VC){m}[V]: the number of vowel-consonant sequences."""
    count, i, size = 0, 0, len(stem)
    while i < size and _is_consonant(stem, i):
        i += 1
    while i < size:
        while i < size and not _is_consonant(stem, i):
            i += 1
        if i >= size:
            break
        count += 1
        while i < size and _is_consonant(stem, i):
            i += 1
    return count


def _has_vowel(stem: str) -> bool:
    return any(not _is_consonant(stem, i) for i in range(len(stem)))


def _ends_double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _is_consonant(word, len(word) - 1)


def _ends_cvc(word: str) -> bool:
    """Consonant-vowel-consonant ending, the last consonant not w, x or y."""
    n = len(word)
    return (
        n >= 3
        and _is_consonant(word, n - 1)
        and not _is_consonant(word, n - 2)
        and _is_consonant(word, n - 3)
        and word[-1] not in "wxy"
    )


def _step1(word: str) -> str:
    if word.endswith("sses") or word.endswith("ies"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    again = False
    if word.endswith("eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
    elif word.endswith("ed") and _has_vowel(word[:-2]):
        word, again = word[:-2], True
    elif word.endswith("ing") and _has_vowel(word[:-3]):
        word, again = word[:-3], True
    if again:
        if word.endswith(("at", "bl", "iz")):
            word += "e"
        elif _ends_double_consonant(word) and word[-1] not in "lsz":
            word = word[:-1]
        elif _measure(word) == 1 and _ends_cvc(word):
            word += "e"
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    return word


def _replace_suffix(word: str, rules: tuple[tuple[str, str], ...]) -> str:
    """The first rule whose suffix ends the word applies if the rest has m > 0 (later rules are not tried)."""
    for suffix, replacement in rules:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + replacement if _measure(stem) > 0 else word
    return word


def _step4(word: str) -> str:
    for suffix in _STEP4:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            if _measure(stem) > 1 and (suffix != "ion" or stem.endswith(("s", "t"))):
                return stem
            return word
    return word


def _step5(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        measure = _measure(stem)
        if measure > 1 or (measure == 1 and not _ends_cvc(stem)):
            word = stem
    if word.endswith("ll") and _measure(word) > 1:
        word = word[:-1]
    return word


@lru_cache(maxsize=131_072)
def stem(token: str) -> str:
    """Porter stem of one folded token (lower case, no diacritics), exactly as FTS5's porter tokenizer indexes it."""
    raw = token.encode("utf-8")
    if not _MIN_BYTES <= len(raw) <= _MAX_BYTES:
        return token
    # One character per byte (latin-1), as FTS5 sees the token: suffixes are ASCII, other bytes are consonants.
    word = _step1(raw.decode("latin-1"))
    word = _replace_suffix(word, _STEP2)
    word = _replace_suffix(word, _STEP3)
    word = _step4(word)
    word = _step5(word)
    return word.encode("latin-1").decode("utf-8", errors="replace")
