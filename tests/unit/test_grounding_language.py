"""detect_language: stop words and the letters that mark a language; short questions without own stop words."""

from __future__ import annotations

import pytest

from memoryd.write.grounding.text import detect_language


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("¿Cómo me llamo?", "es"),
        ("¿Cuántos años tiene Canela?", "es"),
        ("Mañana tengo cita con el dentista", "es"),
        ("Você já reservou o hotel em Lisboa?", "pt"),
        ("Não consigo dormir antes da reunião", "pt"),
        ("Weißt du noch, wie mein Hund heißt?", "de"),
        ("Où est-ce que j'ai mis mes clés ?", "fr"),
        ("Je préfère le thé au café", "fr"),
        ("What did I say about the launch?", "en"),
        ("I had a thé at the café", "en"),
    ],
)
def test_the_language_of_short_turns(text: str, lang: str) -> None:
    assert detect_language(text) == lang


def test_no_evidence_gives_the_default() -> None:
    assert detect_language("") == "en"
    assert detect_language("12:30 — 14:00", default="fr") == "fr"
