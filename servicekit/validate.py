"""Request validation helpers that collect every bad field and raise one INVALID_ARGUMENT with a BadRequest."""

from __future__ import annotations

import re
import unicodedata
from types import TracebackType

from google.protobuf.descriptor import EnumDescriptor

from servicekit.errors import FieldViolation, InvalidArgumentError

_ID_PATTERN = re.compile(r"^[^\s\x00-\x1f\x7f]+$")
_UUID_PATTERN = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
#: Unicode categories an identifier may not contain: format characters (zero-width, bidi controls, BOM, soft
#: hyphen), controls, surrogates, private use, unassigned, and separators (every kind of space).
_REFUSED_CATEGORIES = frozenset({"Cf", "Cc", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"})
#: Letters that render as nothing (Hangul fillers, the Braille blank), though their category is a letter's.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
#: Scripts whose letters look alike (a Cyrillic "а" is a Latin "a" on screen): one id may use only one of them.
_CONFUSABLE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")


def _id_problem(value: str) -> str:
    """Why an NFKC-normalised identifier is refused ("" if it is fine)."""
    scripts: set[str] = set()
    for char in value:
        if unicodedata.category(char) in _REFUSED_CATEGORIES or char in _BLANK_LETTERS:
            return "must not contain invisible, bidirectional-control or space characters"
        if char.isalpha():
            name = unicodedata.name(char, "")
            scripts.update(script for script in _CONFUSABLE_SCRIPTS if name.startswith(script + " "))
    if len(scripts) > 1:
        return "must not mix " + " and ".join(sorted(s.title() for s in scripts)) + " letters (look-alikes)"
    return ""


class Violations:
    """Collects field violations; on exit (or check()) raises InvalidArgumentError if any were recorded.

    The reason is the first violation's reason, so a client can switch on one token.
    """

    def __init__(self) -> None:
        self.items: list[FieldViolation] = []

    def add(self, field: str, description: str, reason: str) -> None:
        self.items.append(FieldViolation(field, description, reason))

    def check(self) -> None:
        if self.items:
            first = self.items[0]
            summary = "; ".join(f"{v.field}: {v.description}" for v in self.items)
            raise InvalidArgumentError(
                first.reason, f"invalid request: {summary}", field_violations=self.items
            )

    def __enter__(self) -> Violations:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.check()

    def require_text(self, value: str, field: str, *, max_chars: int, required: bool = True) -> str:
        """A free-text field: present when required, within max_chars, without NUL characters."""
        if not value:
            if required:
                self.add(field, "is required", "MISSING_FIELD")
            return value
        if len(value) > max_chars:
            self.add(field, f"is {len(value)} characters; at most {max_chars} allowed", "FIELD_TOO_LONG")
        elif "\x00" in value:
            self.add(field, "contains a NUL character", "INVALID_CHARACTERS")
        return value

    def require_id(
        self, value: str, field: str, *, max_chars: int, reason: str, required: bool = True
    ) -> str:
        """An identifier: 1..max_chars printable characters without whitespace; UUIDs upper-cased."""
        if not value:
            if required:
                self.add(field, "is required", reason)
            return value
        if len(value) > max_chars:
            self.add(field, f"is {len(value)} characters; at most {max_chars} allowed", reason)
            return value
        if not _ID_PATTERN.match(value):
            self.add(field, "must be printable characters without whitespace", reason)
            return value
        # One spelling per identity: fullwidth "ａｇｅｎｔ" and ligatures fold to "agent" (NFKC); invisible and bidi
        # characters and mixed look-alike scripts are refused, so no id can pass for another on screen.
        value = unicodedata.normalize("NFKC", value)
        problem = _id_problem(value)
        if problem:
            self.add(field, problem, reason)
            return value
        if len(value) > max_chars:  # NFKC can lengthen ("ﬃ" is three letters)
            self.add(field, f"is {len(value)} characters after normalisation; at most {max_chars}", reason)
            return value
        return value.upper() if _UUID_PATTERN.match(value) else value

    def require_enum(
        self,
        value: int,
        enum: EnumDescriptor,
        field: str,
        *,
        required: bool = True,
        reason: str = "INVALID_ENUM",
    ) -> int:
        """An enum field: a known value (proto3 keeps unknown numbers), and not UNSPECIFIED when required."""
        if value not in enum.values_by_number:
            self.add(field, f"unknown {enum.name} value {value}", reason)
        elif required and value == 0:
            self.add(field, f"is required (not {enum.values_by_number[0].name})", "MISSING_FIELD")
        return value

    def require_range(self, value: float, field: str, low: float, high: float, reason: str) -> float:
        """A number within [low, high]."""
        if not low <= value <= high:
            self.add(field, f"must be between {low:g} and {high:g}", reason)
        return value
