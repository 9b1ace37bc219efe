"""contains_secret / redact_secrets: keys, URL tokens, passwords in five languages, IBAN checksum, Luhn."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import contains_secret, redact_secrets


@pytest.mark.parametrize(
    "text",
    [
        "use sk-proj-4fG7hJ2kL9mN3pQ8rS1tV6wX0yZ5 for the call",
        "token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        "AKIAIOSFODNN7EXAMPLE is the key id",
        "https://api.example.com/v1/items?user=4&access_token=abc123def456",
        "see https://host/path?api_key=Zq81kLmN",
        "my password is hunter2!",
        "mon mot de passe est Soleil2024",
        "mi contraseña es perro_azul",
        "mein Passwort ist Geheim123",
        "minha senha é abacaxi77",
        "IBAN DE89 3704 0044 0532 0130 00 please",
        "card 4111 1111 1111 1111 exp 12/29",
        "secret Xk9mQ2vL8pR4tW7yB3nF6hJ1 end",
    ],
)
def test_secrets_are_found_and_redacted(text: str) -> None:
    assert contains_secret(text)
    redacted = redact_secrets(text)
    assert "[redacted]" in redacted
    assert not contains_secret(redacted)


@pytest.mark.parametrize(
    "text",
    [
        "I forgot my password again, can you help me reset it?",
        "The order number is 4111 1111 1111 1112.",  # fails Luhn
        "DE89 3704 0044 0532 0130 01 is a typo",  # fails mod-97
        "commit 3f2a9c1b7e4d5f60718293a4b5c6d7e8f9012345 fixed it",
        "We chose PostgreSQL for the internationalization-service.",
        "Call me on 555 0100 tomorrow.",
    ],
)
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    assert not contains_secret(text)
    assert redact_secrets(text) == text
