"""Replies to the assistant's question: the question gives the slot, the user's reply the value, and only the reply
is evidence. Each rule that keeps a reply out is shown keeping the true ones in."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import SourceTurn, extract
from memoryd.write.grounding.answers import Asks, answered_facts, last_question
from memoryd.write.grounding.model import FactKind

#: 2026-03-02, a Monday, 12:00 UTC.
SESSION_MS = 1_772_452_800_000


def _pairs(*pairs: tuple[str, str]) -> list[SourceTurn]:
    return [SourceTurn(i, 100 + i, user, assistant) for i, (user, assistant) in enumerate(pairs)]


def _answers(*pairs: tuple[str, str]) -> list[str]:
    return [fact.text for fact, _ in answered_facts(_pairs(*pairs), "en", SESSION_MS)]


@pytest.mark.parametrize(
    ("question", "asks", "slot"),
    [
        ("Nice! What kit are you brewing on?", Asks.WHAT, "kit brewing"),
        ("Welcome! Do you have a teacher?", Asks.WHO, "teacher"),
        ("A big step. When is it?", Asks.WHEN, "when"),
        ("Cool! How often do you put out episodes?", Asks.OFTEN, "put episodes"),
        ("Et vous vendez où ?", Asks.WHERE, "vendez"),
        ("¿Quién es tu veterinario?", Asks.WHO, "veterinario"),
        ("Wie viele Völker hast du?", Asks.HOW_MANY, "völker"),
    ],
)
def test_the_question_names_what_it_asks_and_its_slot(question: str, asks: Asks, slot: str) -> None:
    read = last_question(question)
    assert read is not None
    assert read.asks is asks
    assert read.slot.lower() == slot


def test_a_statement_asks_nothing_and_a_yes_no_question_or_a_guess_asks_to_confirm() -> None:
    assert last_question("Sounds good, talk soon.") is None
    guess = last_question("You're on the FreeStyle Libre 3, I assume?")
    assert guess is not None
    assert guess.asks is Asks.CONFIRM  # only a reply that corrects it with a value of its own counts


def test_short_replies_become_facts_worded_from_the_reply() -> None:
    said = _answers(
        ("I brew beer at home.", "Nice! What kit are you brewing on?"),
        ("A Grainfather G30.", "Do you have a teacher?"),
        ("Yes, Mrs. Agnieszka Wolska, every Saturday morning.", "Lovely. When is your first concert?"),
        ("October 5 to 10.", "Got it."),
    )
    assert said == [
        "The user's answer about kit brewing: A Grainfather G30.",
        "The user's answer about teacher: Mrs. Agnieszka Wolska, every Saturday morning.",
        "The user's answer about first concert: October 5 (2026-10-05) to 10.",
    ]


def test_the_reply_is_the_only_evidence_and_the_kind_follows_the_question() -> None:
    found = answered_facts(
        _pairs(("I have a new vet.", "Who is your vet now?"), ("Dr Okafor, at the Leith clinic.", "Noted.")),
        "en",
        SESSION_MS,
    )
    assert len(found) == 1
    fact, evidence = found[0]
    assert fact.kind is FactKind.RELATION
    assert fact.value == "Dr Okafor"  # the name fills the slot; the text keeps the whole reply
    assert evidence == ("Dr Okafor, at the Leith clinic.",)  # nothing the assistant said


@pytest.mark.parametrize(
    "reply",
    [
        "No, not yet.",
        "Not sure, maybe Dr Okafor.",
        "If I had one it would be Dr Okafor.",
        "Who knows?",
        "Honestly I have been thinking about it for a long while and I still could not tell you who it will be in the end.",
        "Lovely weather today.",
        "My wife thinks Dr Okafor is best.",
    ],
)
def test_declines_hedges_hypotheticals_questions_and_others_views_yield_nothing(reply: str) -> None:
    assert _answers(("I have a dog.", "Who is your vet?"), (reply, "OK.")) == []


def test_a_reply_without_the_value_asked_yields_nothing_and_a_true_one_still_does() -> None:
    assert _answers(("We're planning a trip.", "When is it?"), ("Somewhere warm, we hope.", "OK.")) == []
    assert _answers(("We're planning a trip.", "When is it?"), ("Next Friday.", "OK.")) == [
        "The user's answer about when: Next Friday (2026-03-06)."
    ]
    # A capital that only opens the reply names nothing; a name the session writes mid-sentence does.
    assert _answers(("I study chess.", "What do you study most?"), ("Endgames, mostly.", "OK.")) == []
    assert _answers(
        ("I edit the show myself.", "What do you edit in?"),
        ("Audacity for now.", "Audacity works, but multitrack editing in Audacity is fiddly."),
    ) == ["The user's answer about edit: Audacity for now."]


def test_a_reply_to_a_question_for_a_credential_is_never_a_fact_or_an_entity() -> None:
    turns = _pairs(
        ("Can you check my router?", "Sure. What is the wifi password?"), ("Moustache2019", "Thanks.")
    )
    extraction = extract(turns, session_time_ms=SESSION_MS)
    assert not any("Moustache2019" in f.text for f in extraction.facts)
    assert not any("Moustache2019" in e.name for e in extraction.entities)


def test_a_reply_another_reader_took_adds_nothing() -> None:
    turns = _pairs(("Hi!", "Welcome! Where do you live?"), ("I live in Porto.", "Lovely."))
    texts = [f.text for f in extract(turns, session_time_ms=SESSION_MS).facts]
    assert texts.count("The user lives in Porto.") == 1
    assert not any(t.startswith("The user's answer") for t in texts)


def test_a_named_role_answered_fills_the_roles_slot_with_the_name() -> None:
    found = answered_facts(
        _pairs(("We moved house.", "Who is your vet now?"), ("Dr Okafor, at the Leith clinic.", "Noted.")),
        "en",
        SESSION_MS,
    )
    assert [(f.slot, f.value) for f, _ in found] == [("relation.vet", "Dr Okafor")]


@pytest.mark.parametrize(
    ("question", "reply", "text"),
    [
        ("Are you selling them at 3 euro?", "No, 3.50 already, and they stay there.",
         "The user's answer about selling euro: 3.50 already, and they stay there."),
        ("Should we redo the costing with her wage?", "Yes, at 14 euro an hour.",
         "The user's answer about redo costing wage: at 14 euro an hour."),
        ("You're on the FreeStyle Libre 3, I assume?", "Libre 2 actually.", "The user's answer about assume: Libre 2."),
        # A denied guess: the word the reply puts in its place is no slot of the user's answer.
        ("Got it. I suppose you mostly do commercial work?", "No, mostly residential lockouts and uPVC doors.",
         "The user's answer about suppose mostly work: mostly residential lockouts and uPVC doors."),
        # Confirmed, the question's words stay the slot.
        ("I suppose you mostly do commercial work?", "Yes, mostly commercial, for Tesco and Aldi.",
         "The user's answer about suppose mostly commercial: mostly commercial, for Tesco and Aldi."),
    ],
)  # fmt: skip
def test_a_yes_no_reply_that_corrects_or_adds_a_value_is_read(question: str, reply: str, text: str) -> None:
    assert _answers(("Hi.", question), (reply, "OK.")) == [text]


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("Do you want a reminder?", "Yes please."),
        ("Is 3 pm OK?", "Yes, 3 pm is fine."),  # nothing the question did not say
        ("Are you vegan?", "No, but my wife Ana is."),  # someone else
        ("Has he passed his test?", "No, he's still 17, he hasn't started lessons."),
        (
            "Would you like help wording the announcement?",
            "Yes please, but not yet, I'll announce it in May.",
        ),
        (
            "Verkaufst du deinen Honig auf dem Münstermarkt?",
            "Nein, ich verkaufe gar nichts, nur für Familie.",
        ),
    ],
)
def test_a_yes_no_reply_without_a_new_value_of_the_users_own_yields_nothing(
    question: str, reply: str
) -> None:
    assert _answers(("Hi.", question), (reply, "OK.")) == []


def test_a_count_said_in_words_answers_how_many() -> None:
    assert _answers(("Hi.", "How many colonies do you have now?"), ("Five, since the split.", "OK.")) == [
        "The user's answer about colonies: Five, since the split."
    ]
    assert _answers(("Hi.", "How many kids are coming?"), ("Not sure yet.", "OK.")) == []


def test_denied_words_are_those_the_reply_replaces() -> None:
    from memoryd.write.grounding.answers import denied_words

    assert denied_words("I suppose you mostly do commercial work?", "No, mostly residential lockouts.") == {
        "commercial"
    }
    assert denied_words("Are you using the blue kayak?", "No, the red one.") == {"blue"}
    assert denied_words("Are you using the blue kayak?", "Yes, the blue one.") == frozenset()
    assert (
        denied_words("Are you selling them at 3 euro?", "No, 3.50 already.") == frozenset()
    )  # a number anchors nothing
