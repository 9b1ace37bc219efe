"""Privacy redaction for console output: emails, phones, accounts, URLs and credential-shaped tokens → placeholders.

Everything the Memory Console returns (Inspect, Search previews, PreviewContext, metadata, diagnostics) goes through
`redact` first. Rules run in a fixed order on the whole text; each replaces its matches with `[redacted <kind>]`,
which no later rule can match (placeholders hold no digits and no credential shapes). Truncation happens after
redaction, so a secret that straddles the cut is never half shown. Bias: privacy first — a long random-looking
token is redacted even when it might be harmless; ordinary words, dates, times, versions and amounts are kept.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

#: Preview lengths (characters) of the console, as in the reference app.
PREVIEW_CHARS_PINNED = 260
PREVIEW_CHARS_EPISODE = 300
PREVIEW_CHARS_TRANSCRIPT = 300
DETAIL_CHARS = 2000

_ELLIPSIS = "..."
_TRAILING = ".,;:!?)]}'\""

Replacer = Callable[[re.Match[str]], str | None]


@dataclass(frozen=True)
class Rule:
    """One redaction rule: a kind name, a pattern and how a match becomes text (None keeps the match)."""

    kind: str
    pattern: re.Pattern[str]
    replace: Replacer


@dataclass(frozen=True)
class Redaction:
    """Redacted (and possibly truncated) text with what was removed."""

    text: str
    counts: dict[str, int] = field(default_factory=dict)
    original_chars: int = 0
    is_truncated: bool = False

    @property
    def kinds(self) -> list[str]:
        """Kinds of values removed, sorted."""
        return sorted(self.counts)


def placeholder(kind: str) -> str:
    """The text a redacted value of `kind` becomes."""
    return f"[redacted {kind.replace('_', ' ')}]"


def _whole(kind: str, check: Callable[[str], bool] | None = None) -> Replacer:
    """Replace the whole match, keeping trailing sentence punctuation outside the placeholder."""

    def replace(match: re.Match[str]) -> str | None:
        value = match.group(0)
        kept = len(value) - len(value.rstrip(_TRAILING))
        core = value[: len(value) - kept] if kept else value
        if not core or (check is not None and not check(core)):
            return None
        return placeholder(kind) + value[len(core) :]

    return replace


def _value(kind: str, check: Callable[[str], bool] | None = None) -> Replacer:
    """Keep group 1 (a label such as "password: "), replace group 2 (the value)."""

    def replace(match: re.Match[str]) -> str | None:
        label, value = match.group(1), match.group(2)
        core = value.rstrip(_TRAILING)
        if len(core) < 4 or (check is not None and not check(core)):
            return None
        return label + placeholder(kind) + value[len(core) :]

    return replace


def _digits(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


def _entropy_bits(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _is_random_token(text: str) -> bool:
    """Long, mixed letters and digits, and close to random (Shannon entropy ≥ 4.2 bits per character)."""
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text) and _entropy_bits(text) >= 4.2


def _has_digit_or_symbol(text: str) -> bool:
    return any(not c.isalpha() for c in text)


def _iban_like(text: str) -> bool:
    compact = text.replace(" ", "")
    return 15 <= len(compact) <= 34 and _digits(compact[4:]) >= 8


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}")


def _local_phone(text: str) -> bool:
    """7-15 digits after a phone word, and not a date."""
    return 7 <= _digits(text) <= 15 and not _DATE.fullmatch(text.strip())


def _phone_digits(text: str) -> bool:
    return 8 <= _digits(text) <= 15


_API_KEY = (
    r"\b(?:sk|pk|rk)[-_][A-Za-z0-9_\-]{16,}"
    r"|\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}"
    r"|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bglpat-[A-Za-z0-9_\-]{20,}"
    r"|\bxox[abposr]-[A-Za-z0-9\-]{10,}"
    r"|\bhf_[A-Za-z0-9]{20,}"
    r"|\bnpm_[A-Za-z0-9]{30,}"
    r"|\bpypi-[A-Za-z0-9_\-]{40,}"
    r"|\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}\b"
    r"|\bAIza[0-9A-Za-z_\-]{35}"
    r"|\bya29\.[0-9A-Za-z_\-]{20,}"
    r"|\bGOCSPX-[0-9A-Za-z_\-]{20,}"
    r"|\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"
    r"|\b(?:SK|AC)[0-9a-fA-F]{32}\b"
    r"|\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b"
    r"|\bdop_v1_[a-f0-9]{64}\b"
    r"|\bdapi[a-f0-9]{32}\b"
    r"|\bdckr_pat_[A-Za-z0-9_\-]{20,}"
    r"|\blin_api_[A-Za-z0-9]{30,}"
    r"|\bfigd_[A-Za-z0-9_\-]{30,}"
    r"|\bsecret_[A-Za-z0-9]{40,}"
    r"|\bPMAK-[A-Za-z0-9\-]{30,}"
    r"|\bhvs\.[A-Za-z0-9_\-]{20,}"
    r"|\bNRAK-[A-Z0-9]{27}\b"
    r"|\bAGE-SECRET-KEY-1[0-9A-Z]{50,}"
    r"|\bATATT[A-Za-z0-9_\-=]{30,}"
    r"|\bwhsec_[A-Za-z0-9+/=]{20,}"
    r"|\b(?:key|api)-[a-f0-9]{32}\b"
    r"|\b\d{8,10}:AA[A-Za-z0-9_\-]{30,}"
    r"|\b[MNO][A-Za-z\d_\-]{23,27}\.[A-Za-z\d_\-]{6}\.[A-Za-z\d_\-]{27,}"
)

_CREDENTIAL_KEYS = (
    r"password|passwd|passphrase|passcode|pwd|pass|secret|client[_-]?secret|api[_-]?key|apikey|"
    r"access[_-]?key(?:[_-]?id)?|secret[_-]?(?:access[_-]?)?key|aws_secret_access_key|access[_-]?token|"
    r"auth[_-]?token|refresh[_-]?token|id[_-]?token|session[_-]?token|token|private[_-]?key|account[_-]?key|"
    r"sharedaccesskey|pin|otp|cvv|cvc"
)

_ACCOUNT_KEYS = (
    r"account|acct|a/c|routing|aba|sort code|bsb|iban|member(?:ship)?|customer|policy|passport|"
    r"licen[cs]e|tax id|ein|tin|vat|card"
)

RULES: tuple[Rule, ...] = (
    Rule(
        "private_key",
        re.compile(
            r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
        lambda m: placeholder("private_key"),
    ),
    Rule(
        "url",
        re.compile(
            r"\b[A-Za-z][A-Za-z0-9+.\-]{1,15}://[^\s<>\"'`]+|\bwww\.[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+[^\s<>\"'`]*"
        ),
        _whole("url"),
    ),
    Rule("email", re.compile(r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}\b"), _whole("email")),
    Rule(
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
        _whole("jwt"),
    ),
    Rule("api_key", re.compile(_API_KEY), _whole("api_key")),
    Rule(
        "credential",
        re.compile(r"(?i)(\b(?:bearer|basic|token)\s+)((?!\[redacted)[A-Za-z0-9._~+/\-]{16,}=*)"),
        _value("credential", lambda v: any(c.isdigit() for c in v)),
    ),
    Rule(
        "credential",
        re.compile(
            rf"(?i)(\b(?:{_CREDENTIAL_KEYS})\b[\"']?\s*(?::|=>|=)\s*[\"']?)((?!\[redacted)[^\s\"',;]{{4,}})"
        ),
        _value("credential"),
    ),
    Rule(
        "credential",
        re.compile(
            r"(?i)(\b(?:password|passcode|passphrase|pin|api key|secret key|access token|token)\s+(?:is|was)\s+[\"']?)"
            r"((?!\[redacted)[^\s\"',;]{4,})"
        ),
        _value("credential", _has_digit_or_symbol),
    ),
    Rule(
        "iban",
        re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"),
        _whole("iban", _iban_like),
    ),
    Rule("ssn", re.compile(r"\b\d{3}-\d{2}-\d{4}\b"), _whole("ssn")),
    Rule(
        "card",
        re.compile(r"\b(?:\d{4}([ -]?)\d{4}\1\d{4}\1\d{1,7}|3[47]\d{2}([ -]?)\d{6}\2\d{5})\b"),
        _whole("card"),
    ),
    Rule(
        "account",
        re.compile(
            rf"(?i)(\b(?:{_ACCOUNT_KEYS})\b\.?(?:\s*(?:no|num|number|nr|id|code)\b\.?)?[\s:#\-]*)(\d[\d \-]{{4,}}\d)"
        ),
        _value("account", lambda v: _digits(v) >= 6),
    ),
    Rule("account", re.compile(r"\b\d{13,19}\b"), _whole("account")),
    Rule(
        "phone",
        re.compile(r"(?<![\w+])\+\d{1,3}(?:[\s.\-]?\(?\d{1,5}\)?){1,6}(?!\w)"),
        _whole("phone", _phone_digits),
    ),
    Rule(
        "phone",
        re.compile(r"(?<![\w+])(?:\+?1[\s.\-]?)?(?:\(\d{3}\)|\d{3})[\s.\-]?\d{3}[\s.\-]?\d{4}(?!\w)"),
        _whole("phone"),
    ),
    Rule(
        "phone",
        re.compile(
            r"(?i)(\b(?:phone|tel|telephone|cell|mobile|fax|call|text|whatsapp|sms|number)\b[^\n\d]{0,15}?)"
            r"(\+?\(?\d[\d\s().\-]{5,}\d)(?!\w)"
        ),
        _value("phone", _local_phone),
    ),
    Rule("secret", re.compile(r"\b(?:0x)?[A-Fa-f0-9]{32,}\b"), _whole("secret")),
    Rule(
        "secret",
        re.compile(r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/=_\-]{32,}(?![A-Za-z0-9+/=_\-])"),
        _whole("secret", _is_random_token),
    ),
)


def _apply(rule: Rule, text: str, counts: Counter[str]) -> str:
    def substitute(match: re.Match[str]) -> str:
        replaced = rule.replace(match)
        if replaced is None:
            return match.group(0)
        counts[rule.kind] += 1
        return replaced

    return rule.pattern.sub(substitute, text)


def _truncate(text: str, max_chars: int) -> str:
    """First max_chars - 3 characters + "...", never cutting a placeholder in half."""
    cut = max(0, max_chars - len(_ELLIPSIS))
    opening = text.rfind("[redacted ", 0, cut)
    if opening != -1 and text.find("]", opening) >= cut:
        cut = opening
    return text[:cut].rstrip() + _ELLIPSIS


def redact(text: str, max_chars: int | None = None) -> Redaction:
    """Redact `text`, then cut it to `max_chars` (None: no limit)."""
    counts: Counter[str] = Counter()
    result = text
    for rule in RULES:
        result = _apply(rule, result, counts)
    is_truncated = max_chars is not None and len(result) > max_chars
    if is_truncated:
        assert max_chars is not None
        result = _truncate(result, max_chars)
    return Redaction(text=result, counts=dict(counts), original_chars=len(text), is_truncated=is_truncated)


def redact_text(text: str, max_chars: int | None = None) -> str:
    """Just the redacted text."""
    return redact(text, max_chars).text


__all__ = [
    "DETAIL_CHARS",
    "PREVIEW_CHARS_EPISODE",
    "PREVIEW_CHARS_PINNED",
    "PREVIEW_CHARS_TRANSCRIPT",
    "RULES",
    "Redaction",
    "Rule",
    "placeholder",
    "redact",
    "redact_text",
]
