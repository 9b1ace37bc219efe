"""Summaries, entities and topics go through the fact filters: secrets, small talk, others' opinions, guesses."""

from __future__ import annotations

from memoryd.write.grounding import ModelDigest, SourceTurn, extract, ground
from memoryd.write.grounding.unfit import unfit_reason

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


def _turns(*users: str) -> list[SourceTurn]:
    return [SourceTurn(i, 900 + i, user, "Okay.") for i, user in enumerate(users)]


def test_each_filter_names_its_reason_in_several_languages() -> None:
    assert unfit_reason("Our account number is 55102938 and the sort code 40-11-62.") == "secret"
    assert unfit_reason("Das Passwort fürs Portal ist Mond!7788.") == "secret"
    assert unfit_reason("Such grim weather this week.") == "small_talk"
    assert unfit_reason("Il fait beau aujourd'hui.") == "small_talk"
    assert unfit_reason("My brother-in-law reckons I should buy a Tesla.") == "third_party"
    assert unfit_reason("Meine Mutter findet, wir sollten nach Bremen ziehen.") == "third_party"
    assert unfit_reason("Priya thinks we should drop the API.") == "third_party"
    assert unfit_reason("You probably assumed I'm the owner, but no.") == "assistant_guess"


def test_a_users_own_statements_pass() -> None:
    for said in (
        "I think we should drop the API.",
        "We moved the launch to May 9 because of the weather.",
        "My sister's wedding is on June 3 and I'm giving the speech.",
        "Decidimos migrar a Postgres este mes.",
    ):
        assert unfit_reason(said) == "", said


def test_the_extractive_summary_entities_and_topics_leave_unfit_sentences_out() -> None:
    turns = _turns(
        "We're launching the Halden app on March 3 with the onboarding redesign.",
        "My business partner Oskar reckons we should also build for Windows Phone.",
        "The staging password is Wq!88-lark, in case you need it.",
        "Brutal weather, honestly.",
        "The onboarding redesign needs two more screens before the launch.",
    )
    found = extract(turns, session_time_ms=SESSION_MS)
    assert "Windows" not in found.summary and "Wq!88" not in found.summary and "weather" not in found.summary
    assert "launch" in found.summary.lower()
    assert not [e for e in found.entities if e.name.startswith("Windows")]
    assert not [t for t in found.topics if "weather" in t.lower()]


def _summary_digest(summary: str) -> ModelDigest:
    """A model reply holding an episode with this summary and nothing else."""
    return ModelDigest(
        has_episode=True,
        summary=summary,
        topics=(),
        decisions=(),
        action_items=(),
        salience=0.5,
        entities=(),
        candidates=(),
        identity_facts=(),
    )


def test_a_model_summary_with_an_unfit_sentence_falls_back_or_loses_it() -> None:
    turns = _turns(
        "We're launching the Halden app on March 3 with the onboarding redesign.",
        "My business partner Oskar reckons we should also build for Windows Phone.",
    )
    digest = _summary_digest(
        "The user launches the Halden app on March 3. Oskar thinks they should build for Windows Phone."
    )
    grounded = ground(turns, digest, session_time_ms=SESSION_MS)
    assert "Windows" not in grounded.summary


def test_the_user_called_by_name_is_no_third_party() -> None:
    assert unfit_reason("Alice prefers Postgres over MySQL.", frozenset({"alice"})) == ""
    assert unfit_reason("Alice prefers Postgres over MySQL.") == "third_party"
    turns = _turns("Hi, my name is Alice and I run the billing team.", "I prefer Postgres over MySQL.")
    digest = _summary_digest("Alice prefers Postgres over MySQL.")
    assert ground(turns, digest, session_time_ms=SESSION_MS).summary == "Alice prefers Postgres over MySQL."


def test_an_extractive_summary_does_not_repeat_an_earlier_episode() -> None:
    turns = _turns(
        "We decided to move the whole team from Trello to Linear this quarter.",
        "The Lisbon offsite starts on March 3 with the new hires.",
    )
    earlier = ["The user decided to move the whole team from Trello to Linear this quarter."]
    grounded = ground(turns, None, session_time_ms=SESSION_MS, earlier=earlier)
    assert "Trello" not in grounded.summary and "Lisbon" in grounded.summary
    assert "Trello" in ground(turns, None, session_time_ms=SESSION_MS).summary


def test_a_session_that_only_repeats_an_earlier_one_keeps_its_summary() -> None:
    turns = _turns("We decided to move the whole team from Trello to Linear this quarter.")
    earlier = ["The user decided to move the whole team from Trello to Linear this quarter."]
    assert "Linear" in ground(turns, None, session_time_ms=SESSION_MS, earlier=earlier).summary


def test_wishes_greetings_and_a_spectators_remarks_are_small_talk() -> None:
    for said in (
        "Happy Friday!",
        "Anyway, how are you today?",
        "Salut, ça va?",
        "Hola, ¿qué tal?",
        "Feliz año nuevo!",
        "Did you see Arsenal last night? What a game.",
        "Bon, on a vu le match hier soir, quelle déception pour le PSG.",
        "I'm binge-watching Severance at the moment, it's amazing.",
    ):
        assert unfit_reason(said) == "small_talk", said


def test_the_users_own_doing_and_plans_beside_those_words_are_kept() -> None:
    for said in (
        "Happy to go with Postgres then.",
        "How are you going to handle the migration?",
        "Ça va être serré pour le 12 mai.",
        "Qué tal si lo dejamos para el martes?",
        "I'm running the Tour de France sportive on July 5.",
        "I play in the Six Nations masters on 3 March.",
        "The match is on Friday and I'm playing left back.",
        "I watched the game film with the team to prepare our press.",
    ):
        assert unfit_reason(said) == "", said


def test_weather_after_a_greeting_and_wind_or_snow_are_small_talk() -> None:
    for said in (
        "Bonjour, il pleut des cordes ici.",
        "Buenas. ¡Qué viento hace hoy, el cierzo no para!",
        "Morning! So windy out there.",
        "Hallo, es schneit schon wieder.",
    ):
        assert unfit_reason(said) == "small_talk", said


def test_a_greeting_before_news_or_wind_in_a_plan_is_not_small_talk() -> None:
    for said in (
        "Bonjour ! Je prépare le marathon le 12 avril.",
        "Hi, we moved the launch because of the snow, it's now May 9.",
        "The wind farm survey starts on 3 June.",
    ):
        assert unfit_reason(said) == "", said


def test_an_imagined_signing_is_hypothetical_but_a_real_one_is_not() -> None:
    assert unfit_reason(
        "Imagínate que me fichara el Real Madrid de baloncesto... bueno, soñar es gratis."
    ) == ("hypothetical")
    assert unfit_reason("Me ha fichado la SD Huesca como fisio del primer equipo.") == ""
