"""Redaction over a corpus of secret shapes: zero leaks, and ordinary words, dates and numbers left alone."""

from __future__ import annotations

import pytest

from memoryd.console.redact import placeholder, redact
from tests.support.secret_corpus import ORDINARY, SECRETS


@pytest.mark.parametrize(("shape", "text", "secret"), SECRETS, ids=[s[0] for s in SECRETS])
def test_secret_is_redacted(shape: str, text: str, secret: str) -> None:
    result = redact(text)
    assert secret not in result.text, f"{shape} leaked: {result.text!r}"
    assert "[redacted " in result.text
    assert result.counts


def test_corpus_is_large_enough() -> None:
    assert len({shape for shape, _, _ in SECRETS}) >= 40


def test_all_secrets_in_one_text_zero_leaks() -> None:
    combined = "\n".join(text for _, text, _ in SECRETS)
    result = redact(combined)
    leaks = [shape for shape, _, secret in SECRETS if secret in result.text]
    assert leaks == []


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_untouched(text: str) -> None:
    result = redact(text)
    assert result.text == text
    assert result.counts == {}


def test_placeholders_name_the_kind() -> None:
    result = redact("write to a@b.io or call 415-555-0199")
    assert result.text == f"write to {placeholder('email')} or call {placeholder('phone')}"
    assert result.kinds == ["email", "phone"]


def test_truncation_happens_after_redaction_and_never_splits_a_placeholder() -> None:
    text = "x" * 20 + " alice@example.com " + "y" * 100
    result = redact(text, max_chars=30)
    assert result.is_truncated and result.text.endswith("...")
    assert len(result.text) <= 30
    assert (
        "alice" not in result.text and "[redacted" not in result.text
    )  # cut before the placeholder, not inside
    assert result.original_chars == len(text)


def test_secret_straddling_the_cut_is_not_half_shown() -> None:
    text = "token: " + "Zx9" * 30
    result = redact(text, max_chars=20)
    assert "Zx9" not in result.text


def test_redaction_is_idempotent() -> None:
    once = redact("\n".join(text for _, text, _ in SECRETS)).text
    assert redact(once).text == once
