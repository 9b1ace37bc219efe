"""grounding/stances.py: the user's own taste said against another person's view, in five languages, and what is
not read (the other person's view, agreement, a question, a hypothetical, a bare "I don't")."""

from __future__ import annotations

import pytest

from memoryd.write.grounding.extract import SALIENCE, extract
from memoryd.write.grounding.model import FactKind, SourceTurn
from memoryd.write.grounding.stances import PREFERENCE_SALIENCE, own_stances

_NOON = 1_770_120_000_000  # 2026-02-03 12:00 UTC


def _turns(*users: str) -> list[SourceTurn]:
    return [SourceTurn(i, i, u, "OK.") for i, u in enumerate(users)]


def _stances(text: str, lang: str) -> list[str]:
    return [f.text for f, _ in own_stances(_turns(text), lang)]


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        (
            "Reginald likes to bid aggressively. I prefer a sound, cautious game.",
            "en",
            "The user prefers a sound, cautious game.",
        ),
        (
            "Pieter wants a 300-label list. I'd rather keep it under 150.",
            "en",
            "The user would rather keep it under 150.",
        ),
        (
            "Tabitha would keep them on screens all day, she loves CBeebies, I'm strict about no screens.",
            "en",
            "The user is strict about no screens.",
        ),
        (
            "One of the dads wants us to play long balls. I don't. I want them to play out from the back.",
            "en",
            "The user wants them to play out from the back.",
        ),
        (
            "Lui, il adore les mises en scène modernes ; moi je reste classique pour Feydeau.",
            "fr",
            "Préférence de l'utilisateur : moi je reste classique pour Feydeau.",
        ),
        (
            "Mi vecino Ginés dice que el abono químico es lo mejor; yo solo echo estiércol de oveja.",
            "es",
            "Preferencia del usuario: yo solo echo estiércol de oveja.",
        ),
        (
            "Er mag am liebsten Waldhonig, ich finde Rapshonig viel besser.",
            "de",
            "Vorliebe des Nutzers: ich finde Rapshonig viel besser.",
        ),
        (
            "O Rui acha que eu devia fazer turnos de 12 horas; eu prefiro os de 8.",
            "pt",
            "Preferência do usuário: eu prefiro os turnos de 8 horas.",
        ),
    ],
)
def test_the_users_side_of_a_contrast_is_read(text: str, lang: str, expected: str) -> None:
    assert _stances(text, lang) == [expected]


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("I prefer a sound, cautious game.", "en"),  # no one else's view: the clause rules' matter
        ("My wife loves sushi. I love it too.", "en"),  # agreement
        ("Tom thinks we should take the train. Should I prefer the bus?", "en"),  # a question
        ("If Tom wants a big party, I'd rather stay home.", "en"),  # a hypothetical
        ("Reginald likes to bid aggressively. I don't.", "en"),  # a bare disagreement, no taste stated
        ("Pieter wants a bigger list. I want you to draft it.", "en"),  # a request to the assistant
        ("she wants everyone in sage green. I'd rather die lol", "en"),  # an idiom
        ("My friend Callum swears by hangboarding. I'd rather not wreck my fingers.", "en"),  # a refusal
        ("Ma sœur adore les cartes anciennes, moi je trouve ça illisible.", "fr"),  # judges theirs
        ("Mon frère adore le jazz. Moi aussi j'adore le jazz.", "fr"),
        ("Mi hermana prefiere el té. Yo también.", "es"),
        ("Meine Frau mag Waldhonig. Ich auch.", "de"),
        ("A Rita gosta de praia. Eu também.", "pt"),
    ],
)
def test_no_stance_without_a_contrast_of_the_users_own(text: str, lang: str) -> None:
    assert _stances(text, lang) == []


def test_the_other_persons_view_never_becomes_the_users() -> None:
    facts = extract(
        _turns("Reginald likes to bid aggressively. I prefer a sound, cautious game."), session_time_ms=_NOON
    ).facts
    prefs = [f.text for f in facts if f.kind is FactKind.PREFERENCE]
    assert prefs == ["The user prefers a sound, cautious game."]  # the clipped "prefers a sound." is shadowed
    assert not any("aggressive" in f.text for f in facts)


def test_a_restored_noun_passes_verification() -> None:
    from memoryd.write.grounding.ground import ground

    turns = _turns("O Rui acha que eu devia fazer turnos de 12 horas; eu prefiro os de 8.")
    stored = [f.text for f in ground(turns, None, session_time_ms=_NOON).facts]
    assert "Preferência do usuário: eu prefiro os turnos de 8 horas." in stored
    assert not any("12" in t for t in stored)


def test_salience_is_the_extractors_preference_salience() -> None:
    assert SALIENCE[FactKind.PREFERENCE] == PREFERENCE_SALIENCE
