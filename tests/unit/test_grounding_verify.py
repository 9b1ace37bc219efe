"""verify(): each rule rejects what it should (loops, copied prompt or episode, invented names/numbers, secrets)
and paraphrase passes."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import DEFAULT_SCAFFOLDING, verify

SOURCES = (
    "I really prefer green tea over coffee in the mornings.",
    "My manager Priya wants the quarterly report on March 14.",
    "We have 3 people on the team and the budget is 12000 euros.",
)


@pytest.mark.parametrize(
    "text",
    [
        "User prefers tea.",
        "The user prefers green tea to coffee.",
        "Prefers drinking tea rather than coffee in the morning.",
        "The user's manager is Priya.",
        "Priya wants the quarterly report on March 14.",
        "The team has three people.",
        "The budget is 12000 euros.",
    ],
)
def test_paraphrase_is_accepted(text: str) -> None:
    assert verify(text, SOURCES).ok, verify(text, SOURCES)


def test_a_looped_summary_is_rejected() -> None:
    looped = "I'm 12 years old. I'm 12 years old. I'm 12 years old."
    assert verify(looped, ["I'm 12 years old"]).reason == "loop"
    assert verify("tea tea tea tea coffee tea tea morning tea", SOURCES).reason == "loop"
    assert verify("1.0.0.0.1:8080", ["1.0.0.0.1:8080"]).reason == "loop"
    assert verify("green tea over coffee, green tea over coffee", SOURCES).reason == "loop"


def test_plain_repetition_of_function_words_is_no_loop() -> None:
    sources = ["I moved the meeting to the afternoon. I'm a nurse. I'm vegan. I'm moving to Porto."]
    assert verify("The user moved the meeting to the afternoon.", sources).ok
    assert verify("The user is a nurse. The user is vegan. The user is moving to Porto.", sources).ok


def test_a_copied_header_is_rejected() -> None:
    text = "Recent past sessions (for cross-session continuity): the user prefers tea."
    assert verify(text, SOURCES).reason == "copied_scaffolding"
    custom = "Known facts about the account holder"
    assert (
        verify(f"{custom} include a tea preference.", SOURCES, scaffolding=[custom]).reason
        == "copied_scaffolding"
    )


def test_every_default_scaffolding_line_is_caught() -> None:
    for line in DEFAULT_SCAFFOLDING:
        assert not verify(f"{line} The user prefers tea.", SOURCES).ok, line


def test_a_header_the_user_really_said_is_not_scaffolding() -> None:
    sources = ["Please list the conversation turns in order."]
    assert verify("The user asked to list the conversation turns in order.", sources).ok


def test_a_copied_earlier_episode_span_is_rejected() -> None:
    earlier = ["The user planned a hiking trip to the northern lakes with two old school friends."]
    text = "The user planned a hiking trip to the northern lakes and prefers tea."
    assert verify(text, SOURCES, earlier=earlier).reason == "copied_episode"


def test_an_earlier_span_also_said_in_this_session_is_allowed() -> None:
    earlier = ["I really prefer green tea over coffee in the mornings, as always."]
    assert verify("I really prefer green tea over coffee in the mornings.", SOURCES, earlier=earlier).ok


def test_an_invented_name_is_rejected() -> None:
    assert (
        verify("The user's manager is Priya and her deputy is Marcus.", SOURCES).reason == "ungrounded_name"
    )


def test_an_invented_name_opening_the_sentence_is_rejected() -> None:
    assert (
        verify("Marcus is the user's manager and wants the quarterly report.", SOURCES).reason
        == "ungrounded_name"
    )
    assert verify("Priya wants the quarterly report.", SOURCES).ok
    assert verify("Wants the quarterly report from Priya.", SOURCES).ok


def test_a_wrong_number_is_rejected() -> None:
    assert verify("The team has 4 people.", SOURCES).reason == "ungrounded_number"
    assert verify("The budget is 15000 euros.", SOURCES).reason == "ungrounded_number"
    assert verify("The team has five people.", SOURCES).reason == "ungrounded_number"


def test_a_wrong_date_is_rejected_and_a_resolved_one_allowed() -> None:
    assert verify("Priya wants the report on March 15.", SOURCES).reason == "ungrounded_date"
    sources = ["The dentist is next Tuesday."]
    assert verify("The dentist is next Tuesday (2026-12-08).", sources, allowed_dates={"2026-12-08"}).ok
    assert (
        verify("The dentist is on 2026-12-09.", sources, allowed_dates={"2026-12-08"}).reason
        == "ungrounded_date"
    )


def test_an_absolute_date_in_another_format_matches() -> None:
    assert verify("Priya wants the quarterly report on 2027-03-14.", SOURCES).ok


def test_unsupported_content_is_rejected() -> None:
    assert verify("I'm a dog, and I'm a golden retriever.", SOURCES).reason == "unsupported"
    assert verify("The user is a food blogger and vegan.", SOURCES).reason == "unsupported"


def test_a_secret_is_rejected() -> None:
    sources = ["my api key is sk-proj-4fG7hJ2kL9mN3pQ8rS1tV6wX0yZ5"]
    assert verify("The user's API key is sk-proj-4fG7hJ2kL9mN3pQ8rS1tV6wX0yZ5.", sources).reason == "secret"


def test_empty_short_and_long_texts_are_rejected() -> None:
    assert verify("   ", SOURCES).reason == "empty"
    assert verify("tea", SOURCES).reason == "too_short"
    assert verify("tea " * 400, SOURCES).reason == "too_long"


def test_accents_and_inflection_are_folded() -> None:
    sources = ["Je suis végétarienne et j'adore les légumes rôtis."]
    assert verify("L'utilisateur est végétarien et adore les légumes.", sources).ok
    assert verify("L'utilisateur est végétarien et adore le poisson grillé.", sources).reason == "unsupported"


def test_a_shared_word_start_is_not_enough() -> None:
    assert verify("The user is vegetarian.", ["I love roasted vegetables."]).reason == "unsupported"
    assert verify("L'utilisateur est végétalienne.", ["Je suis végétarienne."]).reason == "unsupported"
    assert verify("The user has a peanut allergy.", ["I'm allergic to peanuts."]).ok


def test_a_summary_may_use_reporting_verbs() -> None:
    sources = ["Which database for billing?", "After all that, we'll go with PostgreSQL for billing."]
    assert verify("The user chose PostgreSQL for billing.", sources).ok
