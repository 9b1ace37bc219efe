"""Issue 22, distill44: what the blind set v13 found — someone else's wish for the user said as pressure or a
preference about what the user does; a view told in the past; a task whose object is in another sentence (no
topic); a doubt alone; a role said with its verb.

Every rule is tested both ways: what it must change or reject, and a near sentence it must leave alone."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import GroundedFact, SourceTurn, ground
from memoryd.write.grounding.unfit import unfit_reason

#: 2026-03-02, a Monday, 12:00 UTC.
SESSION_MS = 1_772_452_800_000


def _facts(said: str) -> list[GroundedFact]:
    return list(ground([SourceTurn(0, 100, said, "Okay.")], None, session_time_ms=SESSION_MS).facts)


@pytest.mark.parametrize(
    "sentence",
    [
        "My sister's been on at me to move to Australia with her, she'd love that.",
        "My husband Emyr would rather I quit and go private, but that's his idea, not mine.",
        "My sister keeps telling me to move to Australia.",
        "Ma mère voudrait que je vende la boutique.",
        "Mi madre preferiría que vendiera la tienda.",
        "Meine Mutter hätte lieber, dass ich den Laden verkaufe.",
        "A minha mãe preferia que eu vendesse a loja.",
    ],
)
def test_someone_elses_wish_for_the_user_is_theirs(sentence: str) -> None:
    assert unfit_reason(sentence) == "third_party"


@pytest.mark.parametrize(
    "sentence",
    [
        "I'd rather we met on Tuesday.",
        "My sister's moving to Australia in May.",
        "I keep telling my sister to move to Leeds.",
        "Je voudrais que tu me rappelles demain.",
        "My sister is asking about the dates.",
        "Mi hermana se muda a Australia en mayo.",
        "Meine Schwester zieht im Mai nach Australien.",
    ],
)
def test_the_users_own_wish_or_another_persons_news_is_not_a_third_party_wish(sentence: str) -> None:
    assert unfit_reason(sentence) == ""


@pytest.mark.parametrize(
    "said",
    [
        "I'll stay at the Premier Inn in Preston. Can you remind me to book that?",
        "Rappelle-moi de le réserver.",
        "Recuérdame de reservarlo.",
        "Erinnere mich daran, das zu buchen.",
        "Lembra-me de reservar isso.",
    ],
)
def test_a_task_whose_only_object_points_back_names_no_topic(said: str) -> None:
    assert [f.text for f in _facts(said) if f.kind.value == "action_item"] == []


@pytest.mark.parametrize(
    ("said", "kind"),
    [
        ("I won't open on Sundays, they're for the kids.", "plan"),
        ("Yo no: los domingos son sagrados, la clínica cerrada.", "plan"),
        ("Can you remind me to book the Premier Inn?", "action_item"),
        ("Rappelle-moi de réserver l'hôtel.", "action_item"),
        ("Erinnere mich daran, das Hotel zu buchen.", "action_item"),
    ],
)
def test_a_plan_or_task_with_its_own_verb_and_object_stays(said: str, kind: str) -> None:
    assert [f.kind.value for f in _facts(said)].count(kind) == 1


@pytest.mark.parametrize(
    "said",
    [
        "Elle adore l'idée, moi je suis pas sûre.",
        "Ma voisine veut une vitrine commune, moi, je ne sais pas.",
        "My neighbour loves the idea; I'm not sure, though.",
    ],
)
def test_a_doubt_alone_is_no_preference(said: str) -> None:
    assert [f.text for f in _facts(said) if f.kind.value == "preference"] == []


@pytest.mark.parametrize(
    "said",
    [
        "Elle adore les roses, moi je préfère les pivoines.",
        "Elle adore l'idée, moi je suis pas sûre que ça marche, je préfère les vitrines seules.",
        "Meine Nachbarin liebt die Idee, ich finde Einzelschaufenster besser.",
    ],
)
def test_a_stance_that_says_a_taste_stays(said: str) -> None:
    assert [f.kind.value for f in _facts(said)].count("preference") == 1


@pytest.mark.parametrize(
    "sentence",
    [
        "Mein Kollege meinte, soll ich mal eine CNC-Fräse kaufen?",
        "Ma mère disait que je devrais acheter une fraiseuse.",
        "Mi jefe dijo que compre una fresadora.",
        "O meu colega disse que eu devia comprar uma fresadora.",
        "My colleague thought I should buy a CNC router.",
    ],
)
def test_another_persons_view_told_in_the_past_is_theirs(sentence: str) -> None:
    assert unfit_reason(sentence) == "third_party"


@pytest.mark.parametrize(
    "sentence",
    [
        "Ich meinte die große Fräse.",
        "I thought the meeting was on Friday.",
        "Je pensais acheter une fraiseuse.",
        "Dije que compraría la fresadora.",
        "Eu disse que ia comprar a fresadora.",
    ],
)
def test_the_users_own_past_view_is_not_a_third_party(sentence: str) -> None:
    assert unfit_reason(sentence) == ""


@pytest.mark.parametrize(
    ("said", "text"),
    [
        ("Karen retired last week, Ben Ortiz heads the department now.", "Ben Ortiz heads the department."),
        ("Élodie dirige maintenant notre atelier.", "Élodie dirige notre atelier."),
        ("Marta lleva ahora la tienda.", "Marta lleva la tienda."),
        ("Jetzt leitet Jana die Abteilung.", "Jana leitet die Abteilung."),
        ("A Rita chefia agora o serviço.", "Rita chefia o serviço."),
    ],
)
def test_a_role_said_with_its_verb_names_its_holder(said: str, text: str) -> None:
    assert [f.text for f in _facts(said) if f.kind.value == "relation"] == [text]


@pytest.mark.parametrize(
    "said",
    [
        "Ben Ortiz runs the risk of burning out.",
        "Tom runs a pub in Leeds.",
        "Does Ben head the department now?",
        "Ben Ortiz heads the department at Google.",
        "Maybe Ben Ortiz heads the department now.",
    ],
)
def test_a_run_verb_without_a_role_of_the_users_names_no_holder(said: str) -> None:
    assert [f.text for f in _facts(said) if f.kind.value == "relation"] == []


def test_a_noun_after_an_article_is_no_pronoun_pointing_back() -> None:
    texts = [f.text for f in _facts("El 20 de marzo tengo el examen de la oposición.")]
    assert texts == ["Plan: El 20 de marzo (2026-03-20) tengo el examen de la oposición."]
