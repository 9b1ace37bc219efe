"""Supersession in the general case (distill41): readers that name a slot by its noun, whatever verb says the change.

- A person said to hold a role now (grounding/roles.py `_holder_now`): "Aoife Brennan is captain now", "Karim est
  maintenant notre comptable", "Ahora Marta es la capitana", "Jetzt ist Jana unsere Kapitänin" (German verb-second
  read like the English order), "A Rita é agora a capitã".
- Someone chosen by others for the role a person left (grounding/slotfill.py `_TAKEOVER`): "Riz stepped down as
  captain. The team voted Tomasz Wojcik in" names the successor.
"""

from __future__ import annotations

import pytest

from memoryd.write.grounding import FactKind, SourceTurn
from memoryd.write.grounding.extract import extract
from memoryd.write.grounding.revisions import _masked, _named_swap
from memoryd.write.grounding.roles import read_roles
from memoryd.write.grounding.slotfill import SUCCESSOR
from memoryd.write.grounding.stale import THING, stale_mentions
from memoryd.write.grounding.verb_second import subject_first

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


def _facts(*said: str) -> list[tuple[str, str]]:
    turns = [SourceTurn(i, i, text, "OK.") for i, text in enumerate(said)]
    return [(f.slot, f.value) for f in extract(turns, session_time_ms=SESSION_MS).facts]


@pytest.mark.parametrize(
    ("said", "lang", "slot", "name"),
    [
        ("Captain changed again, Tomasz graduated early, Aoife Brennan is captain now.", "en", "relation.captain",
         "Aoife Brennan"),
        ("Aoife Brennan is now my accountant.", "en", "relation.accountant", "Aoife Brennan"),
        ("Karim est maintenant notre comptable.", "fr", "relation.accountant", "Karim"),
        ("Ahora Marta es la capitana.", "es", "relation.captain", "Marta"),
        ("Jetzt ist Jana unsere Kapitänin.", "de", "relation.captain", "Jana"),
        ("Nun ist Herr Öz mein Steuerberater.", "de", "relation.accountant", "Herr Öz"),
        ("A Rita é agora a capitã.", "pt", "relation.captain", "Rita"),
    ],
)  # fmt: skip
def test_a_person_said_to_hold_a_role_now_holds_it(said: str, lang: str, slot: str, name: str) -> None:
    assert (slot, name) in [(f.slot, f.value) for f in read_roles(said, 0, lang)]


@pytest.mark.parametrize(
    "said",
    [
        "Aoife is also captain now.",  # a second holder
        "Tom is a captain now.",  # a profession
        "Tom is co-captain now.",  # a shared role
        "Aoife is captain of her college team now.",  # someone else's team
        "Tom is now Ana's manager.",  # someone else's manager
        "If Aoife were captain now, we'd win more.",  # a hypothetical
        "Is Aoife captain now?",  # a question
        "My friend Tom now lives in Leeds.",  # no role
    ],
)
def test_a_second_holder_a_profession_or_someone_elses_role_is_not_held_now(said: str) -> None:
    assert read_roles(said, 0, "en") == []


def test_the_plain_possessive_role_still_reads_without_now() -> None:
    assert ("relation.captain", "Riz Chaudhry") in _facts(
        "Our captain is Riz Chaudhry, he calls the rotations."
    )


@pytest.mark.parametrize(
    "said",
    [
        "Riz stepped down as captain, exam stress, fair enough. The team voted Tomasz Wojcik in.",
        "Riz stepped down as captain. The club elected Tomasz Wojcik.",
        "Riz a démissionné. Le club a élu Tomasz Wojcik.",
        "Riz dimitió. El equipo eligió a Tomasz Wojcik.",
        "Riz ist zurückgetreten. Die Mannschaft hat Tomasz Wojcik gewählt.",
        "O Riz demitiu-se. A equipa elegeu o Tomasz Wojcik.",
    ],
)
def test_someone_voted_in_after_a_holder_left_is_the_successor(said: str) -> None:
    assert (SUCCESSOR, "Tomasz Wojcik") in _facts(said)


@pytest.mark.parametrize(
    "said",
    [
        "The team voted Tomasz Wojcik in.",  # no one left the role: a vote is no change of holder
        "Riz is still captain. The team voted Tomasz Wojcik player of the year.",
    ],
)
def test_a_vote_with_no_holder_leaving_names_no_successor(said: str) -> None:
    assert SUCCESSOR not in [slot for slot, _ in _facts(said)]


def test_a_relation_fact_is_what_the_holder_rule_yields() -> None:
    [fact] = read_roles("Aoife Brennan is captain now.", 3, "en")
    assert fact.kind is FactKind.RELATION and fact.turns == (3,)


@pytest.mark.parametrize(
    ("said", "place"),
    [
        (
            "Hello! We finally moved house, I'm in a flat in Hoole now, walking distance from the station.",
            "Hoole",
        ),
        ("On habite maintenant dans un appartement à Villeurbanne.", "Villeurbanne"),
        ("Ahora vivo en un piso en Gijón.", "Gijón"),
        ("Jetzt wohnen wir in einer Wohnung in Kiel.", "Kiel"),
        ("Agora moro num apartamento em Braga.", "Braga"),
    ],
)
def test_a_home_named_by_its_kind_places_the_user(said: str, place: str) -> None:
    assert ("identity.home", place) in _facts(said)


@pytest.mark.parametrize(
    "said",
    [
        "My friend is in a flat in Hoole now.",  # someone else's home
        "My sister lives in a flat in Hoole.",
        "A minha irmã mora num apartamento em Braga.",
        "I'm in a meeting in London now.",  # no dwelling
        "If I were in a flat in Hoole, I'd walk to work.",  # a hypothetical
    ],
)
def test_someone_elses_home_a_meeting_or_a_hypothetical_places_no_one(said: str) -> None:
    assert "identity.home" not in [slot for slot, _ in _facts(said)]


_DOCTOR = "The user's doctor is Dr Hanlon."


@pytest.mark.parametrize(
    "said",
    [
        "Dr Hanlon's after going part-time, so they've put me with Dr Ferris instead.",
        "Le Dr Hanlon est à mi-temps, ils m'ont mis avec le Dr Ferris maintenant.",
        "El Dr Hanlon trabaja a media jornada, me han pasado al Dr Ferris ahora.",
        "Dr Hanlon arbeitet Teilzeit, sie haben mich jetzt an Dr Ferris überwiesen.",
        "O Dr Hanlon está em part-time, passaram-me para o Dr Ferris agora.",
    ],
)
def test_a_holder_swapped_by_someone_else_for_the_user_is_replaced(said: str) -> None:
    assert _named_swap(said, [_masked(_DOCTOR)], [_DOCTOR])[0] == [0]


@pytest.mark.parametrize(
    "said",
    [
        "Dr Hanlon's after going part-time, so they've put my husband with Dr Ferris instead.",  # someone else
        "Dr Hanlon's away, they've put me with Dr Ferris for now.",  # for a while
        "Dr Hanlon's great, they've also put me with Dr Ferris now.",  # a second holder
    ],
)
def test_a_swap_for_someone_else_for_a_while_or_added_replaces_no_one(said: str) -> None:
    assert _named_swap(said, [_masked(_DOCTOR)], [_DOCTOR])[0] == []


@pytest.mark.parametrize(
    ("said", "slot", "name"),
    [
        ("And I've swapped accountants, Carys got too busy, I'm with Gethin Rowlands at Usk Valley Accounts.",
         "relation.accountant", "Gethin Rowlands"),
        ("We've switched dentists, we're now with Anna Kowalski in town.", "relation.dentist", "Anna Kowalski"),
    ],
)  # fmt: skip
def test_a_relation_swapped_names_the_one_the_user_is_with(said: str, slot: str, name: str) -> None:
    assert (slot, name) in _facts(said)


@pytest.mark.parametrize(
    "said",
    [
        "We swapped shifts with Tom.",  # no relation noun
        "I've swapped accountants? No, Carys is still with us.",  # a question
    ],
)
def test_a_swap_of_no_relation_names_no_holder(said: str) -> None:
    assert not [slot for slot, _ in _facts(said) if slot.startswith("relation.")]


@pytest.mark.parametrize(
    ("said", "reordered"),
    [
        ("Geöffnet haben wir Montag bis Freitag, 7 bis 16 Uhr.", "Wir haben Montag bis Freitag geöffnet, 7 bis 16 Uhr."),
        ("Notdienst habe ich jedes zweite Wochenende.", "Ich habe jedes zweite Wochenende Notdienst."),
        ("Schwimmen gehe ich jeden Dienstag.", "Ich gehe jeden Dienstag Schwimmen."),
    ],
)  # fmt: skip
def test_a_german_verb_second_clause_is_read_subject_first(said: str, reordered: str) -> None:
    assert subject_first(said) == reordered


@pytest.mark.parametrize(
    "said",
    [
        "Wenn ich Zeit habe, gehe ich laufen.",  # a subordinate clause opens it
        "Haben wir morgen frei?",  # a question
        "Notdienst hat meine Kollegin jedes Wochenende.",  # someone else is the subject
        "Wir haben Montag bis Freitag geöffnet.",  # already subject first
        "I go swimming on Tuesdays.",  # not German
    ],
)
def test_a_subordinate_clause_a_question_or_someone_elses_clause_is_left_as_said(said: str) -> None:
    assert subject_first(said) == ""


def test_opening_hours_said_verb_second_are_a_routine_in_the_users_words() -> None:
    turns = [SourceTurn(0, 0, "Geöffnet haben wir Montag bis Freitag, 7 bis 16 Uhr.", "OK.")]
    [fact] = [f for f in extract(turns, session_time_ms=SESSION_MS).facts if f.slot.startswith("routine.")]
    assert "Geöffnet haben wir Montag bis Freitag" in fact.text


@pytest.mark.parametrize(
    ("said", "month"),
    [
        ("Progress report: I'm halfway through Genki 1, but honestly N4 in July is too soon.", "July"),
        ("Juillet, c'est trop tôt, je passe à la session de décembre.", "Juillet"),
        ("Julio es demasiado pronto, me cambio a diciembre.", "Julio"),
        ("Juli ist zu früh, ich nehme den Dezember-Termin.", "Juli"),
        ("Julho é cedo demais, mudei para dezembro.", "Julho"),
    ],
)
def test_a_date_said_unfit_is_the_old_value(said: str, month: str) -> None:
    assert (THING, month) in [(m.scope, m.value) for m in stale_mentions(said)]


@pytest.mark.parametrize(
    "said",
    [
        "If July is too soon, we could switch.",  # a hypothetical
        "Is July too soon?",  # a question
        "For Tom, July is too late.",  # someone else's
        "My sister says July is too early.",
    ],
)
def test_a_date_doubted_or_unfit_for_someone_else_is_not_the_old_value(said: str) -> None:
    assert [m for m in stale_mentions(said) if m.value in ("July",)] == []


def _session(*exchanges: tuple[str, str]) -> list[tuple[str, str]]:
    turns = [SourceTurn(i, i, user, reply) for i, (user, reply) in enumerate(exchanges)]
    return [(f.slot, f.text) for f in extract(turns, session_time_ms=SESSION_MS).facts]


def test_it_dated_anew_after_the_reply_is_said_old_is_the_replys_event() -> None:
    facts = _session(
        ("Can you remind me what's coming up for me?", "You've got your BIAZA talk on 21 December."),
        (
            "No, that's old, they moved it again. It's on the 4th of January now, at the Bristol Zoo Project.",
            "OK.",
        ),
    )
    assert ("plan.talk", "The user's BIAZA talk is on 4th of January (2027-01-04).") in facts


@pytest.mark.parametrize(
    ("reply", "user"),
    [
        # the reply is not said to be wrong
        ("You've got your BIAZA talk on 21 December.", "Great. It's on the 4th of January too, the party."),
        # two dated events: which one moved is unknown
        (
            "You've got your BIAZA talk on 21 December and your dentist appointment on 22 December.",
            "No, that's old, they moved it. It's on the 4th of January now.",
        ),
    ],
)
def test_a_reply_not_said_old_or_naming_two_events_dates_nothing_of_it(reply: str, user: str) -> None:
    facts = _session(("What's coming up?", reply), (user, "OK."))
    assert not [text for _, text in facts if "BIAZA" in text or "dentist" in text]


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("So we're selling the house in Clevedon and renting in Crawley.", "Crawley"),
        ("On loue maintenant un appartement à Rennes.", "Rennes"),
        ("Alquilamos un piso en Gijón.", "Gijón"),
        ("Wir wohnen jetzt zur Miete in Kiel.", "Kiel"),
        ("Arrendamos uma casa em Braga.", "Braga"),
    ],
)
def test_renting_where_one_lives_places_the_user(said: str, place: str) -> None:
    assert ("identity.home", place) in _facts(said)


@pytest.mark.parametrize(
    "said",
    ["We're renting a car in Crawley.", "My sister is selling her flat and renting in Crawley."],
)
def test_renting_a_thing_or_someone_elses_renting_places_no_one(said: str) -> None:
    assert "identity.home" not in [slot for slot, _ in _facts(said)]


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("O Joaquim reformou-se no fim, e para o ano o capataz vai ser o Zé Tavares, o sobrinho dele.", "Zé Tavares"),
        ("Dana retired, the head gardener will be Sam Okoro.", "Sam Okoro"),
        ("Dana a pris sa retraite, le chef d'équipe sera Paul Morel.", "Paul Morel"),
        ("Dana se jubiló, el encargado va a ser Luis Gil.", "Luis Gil"),
        ("Dana ist in Rente gegangen, der Vorarbeiter wird Jens Roth.", "Jens Roth"),
    ],
)  # fmt: skip
def test_the_role_said_to_have_a_new_holder_after_someone_left_names_the_successor(
    said: str, name: str
) -> None:
    assert (SUCCESSOR, name) in _facts(said)


@pytest.mark.parametrize(
    "said",
    [
        "The head gardener will be Sam Okoro.",  # no one left: the plain readers' business, not a successor
        "Dana retired, the party will be Saturday.",  # a day, no person
    ],
)
def test_a_role_given_with_no_one_leaving_or_a_day_names_no_successor(said: str) -> None:
    assert SUCCESSOR not in [slot for slot, _ in _facts(said)]
