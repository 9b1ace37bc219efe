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


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("the password's BlueFalcon77", "BlueFalcon77"),
        ("Password - Moustache2019", "Moustache2019"),
        ("username admin, password admin123", "admin123"),
        ("Passwort lautet Sommer2023", "Sommer2023"),
        ("my pin's 4821", "4821"),
        ("I use Summer2024! as my password everywhere", "Summer2024!"),
        ("the code is 4512 for the key box", "4512"),
        ("2FA backup code 839201", "839201"),
        ("login: bob / pass: Tr0ub4dor&3", "Tr0ub4dor&3"),
        ("the verification code was 482913", "482913"),
    ],
)
def test_a_credential_in_the_other_shapes_people_type_is_redacted(said: str, value: str) -> None:
    assert contains_secret(said)
    assert value not in redact_secrets(said)


@pytest.mark.parametrize(
    "said",
    [
        "I use a password manager",
        "I changed my password last week",
        "the PIN is on the back of the card",
        "I'll pass 100 miles this month",
        "The code is 200 lines long",
        "we go by the combination of 3 plans",
        "I need to pass my B2 exam",
    ],
)
def test_prose_about_credentials_and_passing_stays_prose(said: str) -> None:
    assert not contains_secret(said)
