"""grounding/prices.py: a price the user states (a priced noun with a copula and a time anchor, the user's price
verb, a fronted object with a clitic) is a fact in the slot of what is priced, in five languages; a past expense,
someone else's price, a question and an amount with nothing priced are not."""

from __future__ import annotations

import pytest

from memoryd.write.grounding.extract import extract
from memoryd.write.grounding.model import FactKind, SourceTurn
from memoryd.write.grounding.prices import price_facts

_NOON = 1_770_120_000_000  # Tuesday 2026-02-03 12:00 UTC


def _prices(text: str, lang: str) -> list[tuple[str, str]]:
    return [(f.slot, f.text) for f, _ in price_facts([SourceTurn(0, 0, text, "OK.")], lang, _NOON)]


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        (
            "Full sets are £105 from this month, I told the owner.",
            "en",
            [("price.set", "Full sets are £105 from this month.")],
        ),
        (
            "By the way, the market jar's £8.50 since the start of July.",
            "en",
            [("price.jar", "The market jar's £8.50 since the start of July.")],
        ),
        ("Easter eggs are going to be £28.", "en", [("price.egg", "Easter eggs are going to be £28.")]),
        (
            "I charge £45 an hour for lettering.",
            "en",
            [("price.per_hour", "The user charges £45 an hour for lettering.")],
        ),
        (
            "And I've put my rate up: £52 an hour.",
            "en",
            [("price.per_hour", "The user has put the user's rate up: £52 an hour.")],
        ),
        (
            "Le reblochon, je le vends 16 euros le kilo à la fromagerie.",
            "fr",
            [("price.reblochon", "Le reblochon, je le vends 16 euros le kilo à la fromagerie.")],
        ),
        ("Le pot, je le passe à 9 euros.", "fr", [("price.pot", "Le pot, je le passe à 9 euros.")]),
        ("El plato grande lo he subido a 50.", "es", [("price.plat", "El plato grande lo he subido a 50.")]),
        ("La sesión ahora es 60 euros.", "es", [("price.sesion", "La sesión ahora es 60 euros.")]),
        ("Stundensatz ab Juli 72 Euro.", "de", [("price.per_hour", "Stundensatz ab Juli 72 Euro.")]),
        (
            "O bilhete agora é 20 euros, o gasóleo subiu.",
            "pt",
            [("price.bilhet", "O bilhete agora é 20 euros.")],
        ),
    ],
)
def test_a_stated_price_is_read_in_the_slot_of_what_is_priced(
    text: str, lang: str, expected: list[tuple[str, str]]
) -> None:
    assert _prices(text, lang) == expected


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("The hotel was £90 a night.", "en"),  # a past one-off expense
        ("I paid £300 for the tyres.", "en"),
        ("My sister charges £40 now.", "en"),  # someone else's price
        ("She sells them for €5 now.", "en"),
        ("It's £20 now.", "en"),  # nothing priced
        ("Is the jar £8 now?", "en"),  # a question
        ("If the jar were £9 now, I'd sell more.", "en"),  # a hypothetical
        ("Full sets are £105.", "en"),  # no time anchor, no verb of the user's
        ("El taller lo he pasado a 3 días.", "es"),  # a number of something else
        ("Le billet coûtait 20 euros.", "fr"),
        ("Der Zopf war 4 Euro.", "de"),
        ("O bilhete foi 20 euros.", "pt"),
    ],
)
def test_what_is_no_price_of_the_user_is_not_read(text: str, lang: str) -> None:
    assert _prices(text, lang) == []


def test_a_later_price_of_the_same_thing_shares_the_slot() -> None:
    turns = [
        SourceTurn(0, 0, "I charge £85 a tuning.", "Noted."),
        SourceTurn(1, 1, "From next month it's £95 a tuning.", "Got it."),
    ]
    facts = [f for f in extract(turns, session_time_ms=_NOON).facts if "£" in f.text]
    assert {f.slot for f in facts} == {"price.tune"}
    assert len(facts) == 2


def test_a_price_another_reader_read_is_not_stored_twice() -> None:
    turns = [SourceTurn(0, 0, "Standard service is €70 now, I held it as long as I could.", "OK.")]
    facts = [f for f in extract(turns, session_time_ms=_NOON).facts if "70" in f.text]
    assert len(facts) == 1
    assert facts[0].slot == "price.servic"
    assert facts[0].kind in (FactKind.PREFERENCE, FactKind.PLAN)
