"""The verifier: is a derived text grounded in its source turns (no loop, no copied prompt, names/numbers/words present)?

Every item the writer derives (a model's summary or fact, an extractor's candidate) passes here before it is kept.
The checks are lexical and language-agnostic: folded tokens, light stems and shared prefixes, so paraphrase
(word order, inflection, "User prefers tea" for "I really prefer tea over coffee") passes while invented names,
numbers and content words do not.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS, find_dates
from memoryd.write.grounding.secrets import contains_secret
from memoryd.write.grounding.templates import TEMPLATE_WORDS as _TEMPLATE_WORDS
from memoryd.write.grounding.text import NUMBER_WORDS, STOP_WORDS, content_tokens, fold, light_stem, tokens

#: Share of content words that must be found in the sources.
MIN_SUPPORT = 0.6
MIN_CHARS = 6
MAX_CHARS = 1200
#: Inflection fallback: a word is supported by a source word sharing PREFIX_SHARE of the shorter one's letters.
PREFIX_SHARE = 0.75
_PREFIX_CHARS = 5
#: Consecutive words of an earlier episode that count as copying when the sources do not hold them too.
COPY_SPAN_WORDS = 6
#: A text of this many content tokens or more is a loop when one of them makes up over LOOP_TOKEN_SHARE of it.
LOOP_MIN_TOKENS = 6
LOOP_TOKEN_SHARE = 0.3
#: The distillation prompt's own headers and instructions (memoryd/write/distill.py), always treated as scaffolding.
DEFAULT_SCAFFOLDING = (
    "Conversation date:",
    "What we already know about the user:",
    "Recent past sessions (for cross-session continuity):",
    "Conversation turns:",
    "Distill this session into the JSON digest.",
    "middle turn(s) omitted to fit the core model's context",
    "You distill one chat session into a compact memory digest.",
    "Reply with ONLY a JSON object - no preamble, no code fences, no commentary",
    "one to three sentences about what this session was about and what came of it",
    "names of people, projects, places and tools that were mentioned",
    "durable facts worth remembering across sessions",
    "explicit facts about the user, strong preferences, firm decisions",
    "Be conservative: most sessions yield 0-2",
    "Write each as a standalone sentence",
    "stable facts about the user themself",
    "Never invent facts that the conversation does not state",
    "Text inside [Memory] blocks is not part of the session",
)
_CAPITALISED = re.compile(r"(?<![\w'’-])([A-ZÀ-ÖØ-Þ][\w'’-]*)")
_DIGITS = re.compile(r"\d+")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n|[\"“(]\s*)$")


@dataclass(frozen=True)
class Verdict:
    """Whether a text is grounded; `reason` names the first failed check ("" when ok)."""

    ok: bool
    reason: str = ""


OK = Verdict(True, "")


@dataclass(frozen=True)
class _Sources:
    tokens: frozenset[str]
    stems: frozenset[str]
    prefixes: dict[str, tuple[str, ...]]
    digits: frozenset[str]
    ngrams: frozenset[tuple[str, ...]]
    month_days: frozenset[tuple[int, int]]
    folded: str


@lru_cache(maxsize=256)
def _index(sources: tuple[str, ...]) -> _Sources:
    all_tokens: list[str] = []
    digits: set[str] = set()
    month_days: set[tuple[int, int]] = set()
    for source in sources:
        found = tokens(source)
        all_tokens.extend(found)
        all_tokens.append("\x00")  # no n-gram spans two sources
        digits.update(_DIGITS.findall(source))
        digits.update(NUMBER_WORDS[t] for t in found if t in NUMBER_WORDS)
        for mention in find_dates(source, 0):
            if _DIGITS.search(
                source[mention.start : mention.end]
            ):  # a said day, not "tomorrow" (no calendar here)
                month_days.add((int(mention.iso[5:7]), int(mention.iso[8:10])))
    token_set = frozenset(all_tokens)
    stems = frozenset(light_stem(t) for t in token_set)
    by_prefix: dict[str, list[str]] = {}
    for token in token_set:
        if len(token) >= _PREFIX_CHARS:
            by_prefix.setdefault(token[:_PREFIX_CHARS], []).append(token)
    prefixes = {prefix: tuple(found) for prefix, found in by_prefix.items()}
    ngrams = frozenset(
        tuple(all_tokens[i : i + COPY_SPAN_WORDS]) for i in range(len(all_tokens) - COPY_SPAN_WORDS + 1)
    )
    return _Sources(token_set, stems, prefixes, frozenset(digits), ngrams, frozenset(month_days),
                    " ".join(fold(s) for s in sources))  # fmt: skip


def _common_prefix(a: str, b: str) -> int:
    size = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        size += 1
    return size


def _supported(token: str, index: _Sources) -> bool:
    """The token, its stem, or a word sharing most of its letters from the start ("allergic" ~ "allergy", but not
    "vegetarian" ~ "vegetables" nor "végétarienne" ~ "végétalienne")."""
    if token in index.tokens or light_stem(token) in index.stems:
        return True
    if len(token) < _PREFIX_CHARS:
        return False
    for other in index.prefixes.get(token[:_PREFIX_CHARS], ()):
        if _common_prefix(token, other) >= PREFIX_SHARE * min(len(token), len(other)):
            return True
    return False


_RESOLVED_DATE = re.compile(r"\(\d{4}-\d{2}(?:-\d{2})?\)")


def is_loop(text: str) -> bool:
    """A repeated phrase: a 3-gram three times or a 4-gram twice (counting only n-grams with a content word, so
    "The user is …" opening three sentences is not a loop), or one content token over 30% of a longer text."""
    found = tokens(text)
    for size, limit in ((3, 3), (4, 2)):
        grams = Counter(
            gram
            for gram in (tuple(found[i : i + size]) for i in range(len(found) - size + 1))
            if any(t not in STOP_WORDS and t not in _TEMPLATE_WORDS for t in gram)
        )
        if grams and max(grams.values()) >= limit:
            return True
    # A resolved date repeats the day it follows ("April 20 (2027-04-20)"): it is not counted as a repeated word.
    content = [
        t for t in tokens(_RESOLVED_DATE.sub(" ", text)) if t not in STOP_WORDS and t not in _TEMPLATE_WORDS
    ]
    if len(content) >= LOOP_MIN_TOKENS:
        top = Counter(content).most_common(1)[0][1]
        if top / len(content) > LOOP_TOKEN_SHARE:
            return True
    return False


@lru_cache(maxsize=1024)
def _line_grams(line: str) -> tuple[str, tuple[tuple[str, ...], ...]]:
    """A scaffolding line as (its joined tokens when short, else its 6-grams)."""
    line_tokens = tuple(tokens(line))
    if len(line_tokens) < 2:
        return "", ()
    if len(line_tokens) <= COPY_SPAN_WORDS:
        return " ".join(line_tokens), ()
    grams = tuple(line_tokens[i : i + COPY_SPAN_WORDS] for i in range(len(line_tokens) - COPY_SPAN_WORDS + 1))
    return "", grams


def _copies_scaffolding(found: list[str], scaffolding: Sequence[str], index: _Sources) -> bool:
    joined = f" {' '.join(found)} "
    text_grams = {tuple(found[i : i + COPY_SPAN_WORDS]) for i in range(len(found) - COPY_SPAN_WORDS + 1)}
    for line in scaffolding:
        short, grams = _line_grams(line)
        if short and f" {short} " in joined and short not in index.folded:
            return True
        if any(gram in text_grams and gram not in index.ngrams for gram in grams):
            return True
    return False


def _span_supported(gram: tuple[str, ...], index: _Sources) -> bool:
    content = [t for t in gram if t not in STOP_WORDS and t not in _TEMPLATE_WORDS and not t.isdigit()]
    return bool(content) and all(_supported(t, index) for t in content)


def _copies_earlier(found: list[str], earlier: Sequence[str], index: _Sources) -> bool:
    grams = {tuple(found[i : i + COPY_SPAN_WORDS]) for i in range(len(found) - COPY_SPAN_WORDS + 1)}
    for summary in earlier:
        summary_tokens = tokens(summary)
        for i in range(len(summary_tokens) - COPY_SPAN_WORDS + 1):
            gram = tuple(summary_tokens[i : i + COPY_SPAN_WORDS])
            # A span this session's turns also support (in any inflection, or in the template's own words: "the
            # user's name is Sam" against "my name is Sam") is said again, not copied from the earlier episode.
            if gram in grams and gram not in index.ngrams and not _span_supported(gram, index):
                return True
    return False


_NAME_FOLLOWER = re.compile(r"^(?:\s+[A-ZÀ-Þ]|'s\b|’s\b|,|\s+(?:is|was|has|and|said|wants|asked)\b)")


def _ungrounded_name(text: str, index: _Sources) -> bool:
    """A capitalised word no source holds in any inflection: inside a sentence, or opening one where it reads as a
    name ("Marcus is …", "Marcus's …", "Marcus Lee …")."""
    for match in _CAPITALISED.finditer(text):
        opens_sentence = bool(_SENTENCE_START.search(text[: match.start()]))
        if opens_sentence and not _NAME_FOLLOWER.match(text[match.end() :]):
            continue
        for piece in tokens(match.group(1)):
            if piece in STOP_WORDS or piece in NUMBER_WORDS or piece in MONTHS or piece in _TEMPLATE_WORDS:
                continue
            if piece in WEEKDAYS or not _supported(piece, index):
                if piece in WEEKDAYS and piece in index.tokens:
                    continue
                return True
    return False


def _ungrounded_date_or_number(text: str, index: _Sources, allowed_dates: Collection[str]) -> str:
    residue = text
    for mention in find_dates(text, 0):
        span = text[mention.start : mention.end]
        residue = residue.replace(span, " ")
        month_day = (int(mention.iso[5:7]), int(mention.iso[8:10]))
        if mention.iso in allowed_dates or mention.iso[:7] in allowed_dates:
            continue
        has_digits = not mention.is_relative or re.search(r"\d", span)
        if (
            has_digits
            and month_day not in index.month_days
            and not all(d in index.digits for d in _DIGITS.findall(span))
        ):
            return "ungrounded_date"
    for iso in re.findall(r"\b\d{4}-\d{2}(?:-\d{2})?\b", text):
        if iso in allowed_dates or len(iso) == 10:
            residue = residue.replace(iso, " ")
    for number in _DIGITS.findall(residue):
        if number not in index.digits and number.lstrip("0") not in index.digits:
            return "ungrounded_number"
    for token in tokens(residue):
        is_number = token in NUMBER_WORDS and token not in STOP_WORDS
        if is_number and NUMBER_WORDS[token] not in index.digits and token not in index.tokens:
            return "ungrounded_number"
    return ""


def verify(
    text: str,
    sources: Sequence[str],
    *,
    scaffolding: Sequence[str] = (),
    earlier: Sequence[str] = (),
    allowed_dates: Collection[str] = (),
    max_chars: int = MAX_CHARS,
) -> Verdict:
    """Check `text` against `sources` (the turns it claims to come from); the first failed check is the reason.

    Reasons: "empty", "too_short", "too_long", "secret", "loop", "copied_scaffolding", "copied_episode",
    "ungrounded_name", "ungrounded_date", "ungrounded_number", "unsupported". DEFAULT_SCAFFOLDING is always checked
    besides `scaffolding`; `allowed_dates` holds ISO days resolved from relative dates of the sources.
    """
    stripped = text.strip()
    if not stripped:
        return Verdict(False, "empty")
    if len(stripped) < MIN_CHARS:
        return Verdict(False, "too_short")
    if len(stripped) > max_chars:
        return Verdict(False, "too_long")
    if contains_secret(stripped):
        return Verdict(False, "secret")
    if is_loop(stripped):
        return Verdict(False, "loop")
    index = _index(tuple(sources))
    found = tokens(stripped)
    if _copies_scaffolding(found, (*DEFAULT_SCAFFOLDING, *scaffolding), index):
        return Verdict(False, "copied_scaffolding")
    if earlier and _copies_earlier(found, earlier, index):
        return Verdict(False, "copied_episode")
    if _ungrounded_name(stripped, index):
        return Verdict(False, "ungrounded_name")
    reason = _ungrounded_date_or_number(stripped, index, allowed_dates)
    if reason:
        return Verdict(False, reason)
    content = [t for t in content_tokens(stripped) if not t.isdigit() and t not in _TEMPLATE_WORDS]
    if not content:
        return Verdict(False, "too_short")
    supported = sum(1 for t in content if _supported(t, index))
    if supported / len(content) < MIN_SUPPORT:
        return Verdict(False, "unsupported")
    return OK


def support(text: str, source: str) -> float:
    """Share of the text's content words found in one source (for choosing provenance)."""
    content = [t for t in content_tokens(text) if t not in _TEMPLATE_WORDS]
    if not content:
        return 0.0
    index = _index((source,))
    return sum(1 for t in content if _supported(t, index)) / len(content)


__all__ = ["DEFAULT_SCAFFOLDING", "MIN_SUPPORT", "OK", "Verdict", "is_loop", "support", "verify"]
