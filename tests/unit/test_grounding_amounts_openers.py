"""Two general reading rules found on distill_set_v14 after its blind run (session 17):

- an amount's number is read whole with its thousands groups ("4 200 euros", "£1,050", "1.250 €"), never cut to its
  first group (grounding/prices.py `_NUMBER`);
- a lone capitalised word that opens a sentence or a fact frame's content ("Prévu : J'expose au salon …") is the
  sentence's capital, not a thing the older fact is about, so no new name is swapped into its place
  (grounding/mixed.py `_names`)."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import SourceTurn, extract
from memoryd.write.grounding.mixed import swapped_thing
from memoryd.write.grounding.revisions import revisions

#: 2026-04-13, noon UTC.
SESSION_MS = 1_776_081_600_000


def _prices(said: str) -> list[tuple[str, str]]:
    facts = extract([SourceTurn(0, 1, said, "Ok.")], session_time_ms=SESSION_MS).facts
    return [(f.text, f.value) for f in facts if f.slot.startswith("price.")]


@pytest.mark.parametrize(
    ("said", "amount"),
    [
        ("La manouche, je l'ai passée à 4 200 euros.", "4 200"),
        ("Full sets are £1,050 from this month.", "1,050"),
        ("Full sets are €1.250 from this month.", "1.250"),
        ("La manouche, je l'ai passée à 4\u202f200 euros.", "4\u202f200"),
    ],
)
def test_an_amount_is_read_with_its_thousands(said: str, amount: str) -> None:
    read = _prices(said)
    assert [value for _text, value in read] == [amount]
    assert all(amount in text for text, _value in read)


@pytest.mark.parametrize(
    ("said", "amount"),
    [
        ("Le pot, je le passe à 8,50 euros.", "8,50"),
        ("Full sets are £105 from this month.", "105"),
        ("I charge £12.50 an hour for lettering.", "12.50"),
    ],
)
def test_decimals_and_short_amounts_stay_as_they_were(said: str, amount: str) -> None:
    assert [value for _text, value in _prices(said)] == [amount]


@pytest.mark.parametrize(
    ("sentence", "old"),
    [
        (
            "Le salon de Mirecourt est avancé au 26 septembre, ils veulent éviter les vacances de la Toussaint.",
            "Prévu : J'expose au salon de la lutherie de Mirecourt le 3 octobre. (2026-10-03)",
        ),
        ("We're switching to Notion now.", "Plan: Roadmap kept in Confluence, hosted in Dublin."),
        ("Ahora lo llevamos con Trello.", "Plan: Seguimos el proyecto en Madrid."),
        ("Jetzt nehmen wir Miro.", "Geplant: Workshop in Wien am 3. Mai."),
        ("Agora usamos o Notion.", "Planejado: Reunião em Lisboa no dia 3 de maio."),
    ],
)
def test_a_sentence_opening_capital_is_no_thing_to_swap(sentence: str, old: str) -> None:
    assert swapped_thing(sentence, old) == ""


def test_a_thing_inside_the_fact_is_still_swapped() -> None:
    swapped = swapped_thing(
        "The team is moving to Slack.", "The user's team uses Microsoft Teams, based in Leeds."
    )
    assert swapped == "The user's team uses Slack, based in Leeds."


def test_a_moved_date_with_a_reason_naming_a_holiday_keeps_the_date() -> None:
    turns = [
        SourceTurn(
            1,
            2,
            "Le salon de Mirecourt est avancé au 26 septembre, ils veulent éviter les vacances de la Toussaint.",
            "Noté.",
        )
    ]
    session = extract(turns, session_time_ms=SESSION_MS).facts
    known = ["Prévu : J'expose au salon de la lutherie de Mirecourt le 3 octobre. (2026-10-03)"]
    read = revisions(turns, session, known)
    assert {i for r in read for i in r.retired} == {0}
    new = [r.fact.text for r in read if r.fact is not None]
    assert not any("Toussaint au salon" in text or "3 octobre" in text for text in new)


@pytest.mark.parametrize(
    ("sentence", "old"),
    [
        (
            "Die Ausstellung in Hanau ist auf den 4. Juli verschoben.",
            "Geplant: Am 20. Juni (2026-06-20) stelle ich in Hanau aus, im Goldschmiedehaus.",
        ),
        ("The Workshop moved to March.", "Plan: Talk at Kew with Gardeners Club, hosted in London."),
        ("La Reunión se ha movido.", "Plan: Presentación con Grupo Norte, en Madrid."),
    ],
)
def test_an_article_and_a_noun_opening_the_sentence_are_no_new_value(sentence: str, old: str) -> None:
    assert swapped_thing(sentence, old) == ""


def test_a_name_after_an_article_inside_the_sentence_is_still_a_new_value() -> None:
    swapped = swapped_thing(
        "We've switched the team to the Basecamp app now.",
        "The user's team uses Microsoft Teams, based in Leeds.",
    )
    assert swapped == "The user's team uses Basecamp, based in Leeds."
