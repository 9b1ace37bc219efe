"""A decision or task whose pronoun stands for something said just before keeps those words, in its text and its
evidence; one without a pronoun, or whose antecedent names nothing, is left as it is."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import SourceTurn, extract
from memoryd.write.grounding.antecedent import antecedent

#: 2026-03-02, a Monday, 12:00 UTC.
SESSION_MS = 1_772_452_800_000


@pytest.mark.parametrize(
    ("value", "turn", "context"),
    [
        ("he decidido ofrecerle contrato", "Yeray lo está haciendo genial; he decidido ofrecerle contrato.",
         "Yeray lo está haciendo genial"),
        ("decidi comprar a parte dele", "O Vinícius vai sair da sociedade; decidi comprar a parte dele.",
         "O Vinícius vai sair da sociedade"),
        ("I'll sell it on eBay", "The old Dell laptop died last week. I'll sell it on eBay.",
         "The old Dell laptop died last week"),
        ("Je les mets en terre vers le 15 mai", "Tomates, courgettes, haricots. Je les mets en terre vers le 15 mai.",
         "Tomates, courgettes, haricots"),
    ],
)  # fmt: skip
def test_a_pronoun_takes_the_words_said_just_before(value: str, turn: str, context: str) -> None:
    assert antecedent(value, turn) == context


@pytest.mark.parametrize(
    ("value", "turn"),
    [
        ("We decided to go with Postgres", "We decided to go with Postgres for billing."),  # no pronoun
        ("I'll sell it on eBay", "I'll sell it on eBay."),  # nothing said before
        ("it's booked for Friday", "Great. it's booked for Friday."),  # "it's" is a subject, not an object
        (
            "El martes tengo la entrevista",
            "Hola, buenas. El martes tengo la entrevista.",
        ),  # an article, no pronoun
        ("je pars le 12 mai", "Super nouvelle. je pars le 12 mai."),
    ],
)
def test_no_pronoun_or_no_antecedent_adds_nothing(value: str, turn: str) -> None:
    assert antecedent(value, turn) == ""


def test_the_decision_keeps_its_antecedent_in_text_and_evidence() -> None:
    said = (
        "Yeray lo está haciendo genial; he decidido ofrecerle contrato cuando acabe las prácticas en junio."
    )
    extraction = extract([SourceTurn(0, 1, said, "¡Genial!")], session_time_ms=SESSION_MS)
    decisions = [
        (f.text, e)
        for f, e in zip(extraction.facts, extraction.evidence, strict=True)
        if f.kind.value == "decision"
    ]
    assert len(decisions) == 1
    text, evidence = decisions[0]
    assert "Yeray" in text
    assert "Yeray lo está haciendo genial" in evidence


# distill48: a date said of "it" or as "the new date", opening its sentence, names its thing by the sentence
# before, in five languages.
@pytest.mark.parametrize(
    ("value", "turn", "context"),
    [
        ("New date is the 5th of March, same venue",
         "So NIPE got pushed, the assessor was snowed in up in the valleys. New date is the 5th of March, same venue.",
         "So NIPE got pushed, the assessor was snowed in up in the valleys"),
        ("Now it's the 2nd of June", "The oral got moved again, the examiner's on leave. Now it's the 2nd of June.",
         "The oral got moved again, the examiner's on leave"),
        ("Nouvelle date : le 3 mai", "Le contrôle sanitaire de la cave est repoussé. Nouvelle date : le 3 mai.",
         "Le contrôle sanitaire de la cave est repoussé"),
        ("ahora es el 10 de junio", "La revisión del horno se ha movido otra vez. Pues ahora es el 10 de junio.",
         "La revisión del horno se ha movido otra vez"),
        ("Jetzt ist es der 17. April", "Schon wieder: die Abnahme. Jetzt ist es der 17. April.",
         "Schon wieder: die Abnahme"),
        ("agora é dia 12 de maio", "A vistoria da obra mudou outra vez. Pois agora é dia 12 de maio.",
         "A vistoria da obra mudou outra vez"),
    ],
)  # fmt: skip
def test_a_date_said_of_it_or_as_the_new_date_takes_the_sentence_before(
    value: str, turn: str, context: str
) -> None:
    assert antecedent(value, turn) == context


@pytest.mark.parametrize(
    ("value", "turn"),
    [
        # The thing named in the sentence itself: no "new date", no date said of "it".
        ("The new kiln arrives on 5 March", "Big week. The new kiln arrives on 5 March."),
        ("It's the 5th of March that suits me", "Any day works. It's the 5th of March that suits me."),
        ("Die neue Werkstatt ist am 3. April fertig", "Gute Nachrichten. Die neue Werkstatt ist am 3. April fertig."),
        # The thing named before "it's now" / "c'est le" in the sentence itself: the sentence before is unrelated.
        ("The Pembrokeshire week has moved, so it's now 24 to 31 August instead",
         "Honestly just a bed that isn't a mattress on the floor. The Pembrokeshire week has moved, so it's now 24 "
         "to 31 August instead."),
        ("La commission a été repoussée, finalement c'est le 16 juin",
         "Bonjour ! La commission a été repoussée, finalement c'est le 16 juin."),
    ],
)  # fmt: skip
def test_a_date_with_its_own_thing_takes_nothing(value: str, turn: str) -> None:
    assert antecedent(value, turn) == ""
