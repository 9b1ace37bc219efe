"""must_not and non-fact rules of distill32 (issue 22), each shown both ways: what the rule drops and what it keeps."""

from __future__ import annotations

from datetime import UTC, datetime

from memoryd.write.grounding import Extraction, FactKind, SourceTurn, extract
from memoryd.write.grounding.clauses import reports_assistant
from memoryd.write.grounding.ground import ground
from memoryd.write.grounding.lexicon import HYPOTHETICAL
from memoryd.write.grounding.secrets import contains_secret, redact_secrets
from memoryd.write.grounding.unfit import unfit_reason
from memoryd.write.parse import Digest


def _ms(day: str) -> int:
    return int(datetime.fromisoformat(f"{day}T12:00:00").replace(tzinfo=UTC).timestamp() * 1000)


def _run(*users: str, day: str = "2026-04-02") -> Extraction:
    return extract(
        [SourceTurn(i, 900 + i, u, "Okay.") for i, u in enumerate(users)], session_time_ms=_ms(day)
    )


def _texts(e: Extraction) -> list[str]:
    return [f.text for f in e.facts]


# ------------------------------------------------------------------------------------------------------ must_not
def test_what_the_assistant_said_is_not_the_users_fact_its_answer_is() -> None:
    e = _run("You said I'm a band 6, I'm band 7 actually.")
    assert not any("band 6" in t for t in _texts(e)), _texts(e)
    assert any("band 7" in t for t in _texts(e)), _texts(e)
    # Reported without an answer: nothing of it is the user's ("Knöpfchen sei ein Welpe" is the assistant's guess).
    assert not _run("Du meintest letztes Mal, Knöpfchen sei ein Welpe.").facts
    assert unfit_reason("You said I'm a band 6, I'm band 7 actually.") == "assistant_guess"
    assert reports_assistant(
        "Vos me dijiste que el festival era en el Luna Park, pero no, es en la Usina del Arte."
    )
    # The user reporting their own words, or the assistant named later in the sentence, is no report.
    assert not reports_assistant("I said I'm band 7 and my manager agreed, you said it sounded right.")
    assert unfit_reason("I'm band 7 now, since April.") == ""


def test_a_condition_after_and_or_an_inverted_mark_is_a_hypothetical() -> None:
    for said in ("¿Y si me ofrecieran dar clases en Europa un año?", "And if we won a medal in San Francisco?",
                 "Und wenn ich in den Fernverkehr wechsle?"):  # fmt: skip
        assert HYPOTHETICAL.search(said), said
    e = _run("¿Y si me ofrecieran dar clases en Europa un año? Es un sueño nomás.")
    assert "Europa" not in [x.name for x in e.entities]
    # "Si," / "Y si," is a yes, not a condition; a plain statement stays a statement.
    for said in ("Si, voy a Europa en mayo.", "Y si, claro, el lunes.", "Doy clases en Europa desde mayo."):
        assert not HYPOTHETICAL.search(said), said


def test_a_login_said_with_a_linking_verb_is_a_credential() -> None:
    said = "Mein Login fürs Dienstplanportal ist gesine.k / Lok2026!, ach nein, vergiss das sofort."
    assert contains_secret(said)
    assert "Lok2026" not in redact_secrets(said)
    assert "Lok2026" not in [x.name for x in _run(said).entities]
    assert "tom.h" not in redact_secrets("My login is tom.h / Harbour22 for the rota.")
    # A login word with no "user / password" pair after it is prose.
    assert not contains_secret("My login is the usual one, same as the rota.")
    assert not contains_secret("The login page is slow / broken today.")


def test_a_remark_closed_by_what_a_week_is_small_talk() -> None:
    said = "Ugh, my car failed its MOT today, what a week."
    assert unfit_reason(said) == "small_talk"
    assert "MOT" not in [x.name for x in _run("We moved to Wroughton.", said).entities]
    assert unfit_reason("Quelle journée !") == "small_talk"
    # A date or a plan in the same breath is news, not venting; "what a" about anything else is no complaint.
    assert unfit_reason("I'm moving to Leeds on 3 May, what a year.") == ""
    assert unfit_reason("What a lovely present my sister sent.") == ""


# ---------------------------------------------------------------------------------------------------- non-facts
def test_a_year_less_date_already_past_in_a_past_tense_clause_is_this_years() -> None:
    """What happened is stated with this year's date and no plan label ("Prévu :"), never as next year's plan."""
    said = "Finalement on a commencé le 15 septembre, une semaine plus tard que prévu."
    texts = _texts(_run(said, day="2026-09-20"))
    assert texts == [
        "Finalement on a commencé le 15 septembre (2026-09-15), une semaine plus tard que prévu."
    ], texts
    crane = "Less good: the yard's crane broke in March, so the haul-out kept slipping."
    assert any("(2026-03)" in t for t in _texts(_run(crane, day="2026-04-10")))
    never = "I never actually started in April because of the captaincy."
    assert not any("2027" in t for t in _texts(_run(never, day="2026-09-10")))
    # Said in the present, or arranged (booked, moved), or as a change ("now"), the same date is next year's plan.
    for ahead in ("The fair is on 15 March.", "We moved the fair to 3 March.", "I booked the MOT for 3 March.",
                  "It went badly, the fair is now on 3 March."):  # fmt: skip
        plans = [f for f in _run(ahead, day="2026-04-10").facts if f.kind is FactKind.PLAN]
        assert plans and "2027-03" in plans[0].text, (ahead, _texts(_run(ahead, day="2026-04-10")))


def test_a_value_of_only_function_words_is_no_fact() -> None:
    e = _run("Je suis maintenant avec Élodie Ferrand, de Grenoble, en visio.")
    assert not any(f.value == "avec" for f in e.facts), _texts(e)
    # A capitalised value is a name, whatever the word means in another language ("Ella", "Will").
    kids = _run("I'm married with two kids, Tom and Ella.")
    assert any(f.value == "Ella" for f in kids.facts), _texts(kids)


def test_a_shift_is_its_value_said_as_a_shift() -> None:
    assert not [
        f
        for f in _run("I'm moving from nights to the day rota from May.").facts
        if f.slot == "identity.shift"
    ]
    for said in ("I'm a porter at the RVI on days now.", "I'm on the night shift."):
        assert [f for f in _run(said).facts if f.slot == "identity.shift"], said


def test_new_is_no_role() -> None:
    e = _run("Our new CTO is Mirela Stan, she was our first engineer.")
    assert not any(f.slot == "relation.new" for f in e.facts), _texts(e)
    vet = _run("Our new vet is Dr. Park.")
    assert any(f.slot.startswith("relation.vet") for f in vet.facts), _texts(vet)


# ------------------------------------------------------------------------------------------------- model path
_TURNS = (
    SourceTurn(
        0, 1, "¡Volví de Buenos Aires! Salimos cuartos en el festival, re contenta.", "¡Felicitaciones!"
    ),
    SourceTurn(1, 2, "Ahora me mudo: me voy de Rosario a Córdoba en octubre.", "¡Qué paso!"),
    SourceTurn(2, 3, "Y decidí dejar la milonga, que la organice otro.", "Entendido."),
)


def _digest(summary: str) -> Digest:
    return Digest(True, summary, (), (), (), 0.6, (), (), ())


def test_a_model_summary_echoing_chat_the_extractor_read_nothing_from_fails() -> None:
    echoed = ground(_TURNS, _digest("¡Volví de Buenos Aires! Salimos cuartos en el festival, re contenta."),
                    session_time_ms=_ms("2026-09-02"))  # fmt: skip
    assert echoed.summary_source == "extractive"
    assert "re contenta" not in echoed.summary
    assert echoed.dropped.get("summary_unstated_echo") == 1
    # Echoing a sentence a fact was read from is what the extractive summary would say too: it stands.
    stated = ground(_TURNS, _digest("Y decidí dejar la milonga, que la organice otro."),
                    session_time_ms=_ms("2026-09-02"))  # fmt: skip
    assert stated.summary_source == "model", stated.dropped


def test_someone_elses_swearing_by_something_is_their_taste_in_every_language() -> None:
    for said in ("Meine Kollegin Ilse schwört auf Energydrinks, ich trinke so was nie.",
                 "Mon frère Octave ne jure que par les vins très boisés.", "Mi hermana jura por el café de Colombia."):  # fmt: skip
        assert unfit_reason(said) == "third_party", said
    assert unfit_reason("Ich schwöre auf Schwarztee am Morgen.") == ""  # the user's own
