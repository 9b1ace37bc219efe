"""Supersession by slot and change marker (distill43, grounding/changed_slot.py).

A newer fact said as a change (now, moved, pushed back, finally, "pas 40", maintenant, décalé, ahora, se retrasa,
jetzt, verschoben, agora, adiado…) whose value (a date, a number with its noun, a name) differs from an older
active fact sharing its slot (a content word by word family, an acronym, the home, or for a date said with no noun
the one dated fact the turns around it name) supersedes that older fact; never for someone else's change, a
question, a hypothetical, a value added, or when two older facts fit.
"""

from __future__ import annotations

import pytest

from memoryd.write.grounding import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.changed_slot import changed_slot
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import plan_grounded


def _retires(
    new: str, *old: str, turns: tuple[SourceTurn, ...] = (), fact_turns: tuple[int, ...] = ()
) -> list[str]:
    """The contents of the older facts the newer one retires."""
    ids = changed_slot(new, fact_turns, [(str(i), text) for i, text in enumerate(old)], turns)
    return [old[int(i)] for i in ids]


@pytest.mark.parametrize(
    ("new", "old"),
    [
        # en: a date by its event noun, a holder by the acronym of its role, the home by any verb that says it.
        ("The install is now 17 March. (2026-03-17)", "Install booked for 24 February (2026-02-24) at Hartley's."),
        ("Ifor Pughe is our LOM now.", "The user's local operations manager is Bronagh Keane."),
        ("The user is out of Stonehouse, renting in Plymstock these days.", "The user lives in Stonehouse."),
        ("The stall's in Kemp Town now.", "The user runs a vintage clothing stall in the North Laine in Brighton."),
        # fr: the family of "livraison" / "livrer", a price by its noun, a count with the old one negated.
        ("La livraison Delamain passe au 19 février (2026-02-19).",
         "On doit livrer des fûts à la maison Delamain le 12 février. (2026-02-12)"),
        ("Je passe la séance à 65 euros.", "La séance est à 60 euros."),
        ("Et finalement ils veulent 48 barriques, pas 40.", "On doit livrer 40 barriques à Delamain."),
        # es, de, pt: a date moved with its event noun.
        ("La campaña se retrasa al 3 de noviembre (2026-11-03).", "La campaña empieza el 20 de octubre. (2026-10-20)"),
        ("Die Prüfung ist jetzt am 9. Juni (2026-06-09).", "Die Prüfung ist am 28. Mai (2026-05-28)."),
        ("A vistoria foi adiada para 22 de abril (2026-04-22).", "A vistoria é a 8 de abril (2026-04-08)."),
        # es: the article "el" before the marker is no third person ("él" is).
        ("La cita con el dentista ahora es el 10 de junio (2026-06-10).",
         "La cita con el dentista es el 3 de junio (2026-06-03)."),
    ],
)  # fmt: skip
def test_a_value_said_as_changed_retires_the_older_fact_of_its_slot(new: str, old: str) -> None:
    assert _retires(new, old) == [old]


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("The install is 17 March. (2026-03-17)", "Install booked for 24 February (2026-02-24)."),  # no marker
        ("Is the install now 17 March? (2026-03-17)", "Install booked for 24 February (2026-02-24)."),  # a question
        ("If the install is moved to 17 March (2026-03-17), fine.", "Install booked for 24 February (2026-02-24)."),
        ("My sister moved her install to 17 March (2026-03-17).", "Install booked for 24 February (2026-02-24)."),
        ("Él movió la cita con el dentista, ahora es el 10 de junio (2026-06-10).",
         "La cita con el dentista es el 3 de junio (2026-06-03)."),  # "él": someone else's change
        ("We now also run a stall in Kemp Town.", "The user runs a stall in the North Laine."),  # added, not replaced
        ("La formation est décalée au 16 mai (2026-05-16).", "La séance est à 60 euros."),  # another slot
        ("Ahora el aceite sale a 9 euros.", "La campaña empieza el 20 de octubre. (2026-10-20)"),  # another kind
        ("Jetzt kostet die Torte 30 Euro.", "Die Eierschecke kostet 3,20."),  # another noun
        ("Agora o Rui Tavares é o meu contabilista.", "O meu mestre é o Sr. Albano."),  # another role
    ],
)  # fmt: skip
def test_what_says_no_change_of_that_slot_retires_nothing(new: str, old: str) -> None:
    assert _retires(new, old) == []


def test_two_older_facts_of_the_slot_are_ambiguous() -> None:
    new = "The exam has been moved to 9 June. (2026-06-09)"
    assert (
        _retires(
            new, "The written exam is on 28 May. (2026-05-28)", "The oral exam is on 2 June. (2026-06-02)"
        )
        == []
    )


def test_a_date_said_with_no_noun_belongs_to_the_event_the_turn_before_names() -> None:
    turns = (
        SourceTurn(0, 0, "Hiya.", "Good luck with the exam on 12 March."),
        SourceTurn(1, 1, "It's been moved to 26 March, the board changed it.", "Sorry, 26 March."),
    )
    exam = "The user's radiography exam is on 12 March. (2026-03-12)"
    party = "Team dinner on 14 March. (2026-03-14)"
    new = "It's been moved to 26 March (2026-03-26), the board changed it."
    assert _retires(new, exam, party, turns=turns, fact_turns=(1,)) == [exam]
    # Without turns naming it, the date belongs to no event.
    assert _retires(new, exam, party) == []
    # "c'est le 3 mars maintenant" after "la date Delamain": a name names the event too.
    fr = (SourceTurn(0, 0, "Tu peux me rappeler la date Delamain ?", "Le 19 février."),
          SourceTurn(1, 1, "Non, encore décalée : c'est le 3 mars maintenant.", "Pardon, le 3 mars."))  # fmt: skip
    old = "La livraison Delamain passe au 19 février (2026-02-19)."
    assert _retires(
        "Encore décalée : c'est le 3 mars (2026-03-03) maintenant.", old, turns=fr, fact_turns=(1,)
    ) == [old]


def test_plan_grounded_retires_the_older_fact_in_its_own_table_only() -> None:
    """Pinned and identity ids may coincide: the retired fact is the one of the table that holds it."""
    pinned = [ExistingFact("1", "The user's local operations manager is Bronagh Keane.", 0.5, 1)]
    identity = [ExistingFact("1", "The user's name is Lysander Pike.", 0.5, 1, "identity.name")]
    fact = GroundedFact(FactKind.RELATION, "Ifor Pughe is our LOM now.", "", "Ifor Pughe", (0,), 0.6, False)
    plan = plan_grounded([fact], pinned, identity, lambda turns: tuple(turns))
    [insert] = plan.facts.inserts
    assert insert.supersedes == ("1",)
    assert insert.supersedes_identity == ()


def test_a_place_replaces_a_place_not_a_holder_of_the_same_noun() -> None:
    """ "The stall's in Kemp Town now" retires where the stall was, not the stall's shop online."""
    online = "The user is at the stall Friday to Sunday, and the user lists everything online on Depop."
    place = "The user runs a vintage clothing stall in the North Laine in Brighton."
    assert _retires("News: the North Laine lease ended, the stall's in Kemp Town now.", online, place) == [
        place
    ]
    # A holder named anew is no place: "Suki does the stall now" does not move it.
    assert _retires("The stall's in Kemp Town now.", online) == []


# distill45 (v13's misses): the words the extractor appends in parentheses are no question of the user's, "not any
# more" is a change marker, and a new day said beside the old one names the one older fact of that day.
@pytest.mark.parametrize(
    ("new", "old"),
    [
        # en: the appended antecedent ends in the assistant's question; "isn't any more" says the change.
        (
            "It isn't any more, the examiner's off sick, it's the 29th of April. (2026-04-29) "
            "(So the practical - you've got it down as the 22nd, right?).",
            "They have moved the practical, it's the 22nd of April (2026-04-22) now.",
        ),
        # pt: the old day named in the appended question, no shared noun.
        (
            "Afinal é a 8 de maio (2026-05-08), a arquiteta Quintela quer ver os testes primeiro "
            "(Outra vez São Vicente: tinha 17 de abril, certo?).",
            "A nova data de entrega é 17 de abril. (2026-04-17)",
        ),
        # de: the old day named beside the new one.
        (
            "Ich weiß, Sie hatten den 3. April (2026-04-03) notiert, jetzt ist es der 17. April (2026-04-17), Frau Roth "
            "ist krank.",
            "Die Abnahme in der Kirche ist verschoben, neuer Termin ist der 3. April. (2026-04-03)",
        ),
        # fr: "le 12 février" named as the day that was.
        (
            "Finalement c'est le 5 mars (2026-03-05), plus le 12 février, Mme Caron est en congé.",
            "L'évaluation du module est le 12 février (2026-02-12) à Lyon.",
        ),
        # es: "el 28 de marzo" named as the day that was.
        (
            "Al final es el 4 de abril (2026-04-04), no el 28 de marzo, Toledo cambió las fechas.",
            "La feria de artesanía es el 28 de marzo (2026-03-28).",
        ),
    ],
)
def test_the_old_day_named_or_the_appended_question_retire_the_fact_of_that_day(new: str, old: str) -> None:
    assert _retires(new, old, "The user's name is Ana Ruiz.") == [old]


@pytest.mark.parametrize(
    ("new", "old"),
    [
        # The user's own question stays a question, parentheses or not.
        (
            "Is it the 29th of April now? (2026-04-29) (you had the 22nd)",
            "They have moved the practical, it's the 22nd of April (2026-04-22) now.",
        ),
        # Two older facts of the named day: ambiguous, none retired.
        (
            "Afinal é a 8 de maio (2026-05-08) (tinha 17 de abril, certo?).",
            "A nova data de entrega é 17 de abril. (2026-04-17)",
        ),
        # No change marker: a second date beside the first is no change.
        (
            "Le 3 avril (2026-04-03) et le 17 avril (2026-04-17) Frau Roth est là.",
            "Die Abnahme ist am 3. April. (2026-04-03)",
        ),
        # A day of another month is not the old day ("the 13th of April" / 3 April).
        (
            "Al final es el 4 de mayo (2026-05-04), no el 13 de abril.",
            "La feria de artesanía es el 3 de abril (2026-04-03).",
        ),
    ],
)
def test_no_old_day_named_or_two_facts_of_it_retire_nothing(new: str, old: str) -> None:
    olds = (old, "La cena de Pilar es el 17 de abril. (2026-04-17)") if "tinha" in new else (old,)
    assert _retires(new, *olds) == []


def test_a_one_off_day_gives_no_new_day_to_a_weekly_schedule() -> None:
    """The practical's new day retires the practical's old day, not the practice nights said with a day too."""
    new = "It isn't any more, it's the 29th of April. (2026-04-29) (So the practical - you had the 22nd, right?)."
    exam = "They have moved the practical, it's the 22nd of April (2026-04-22) now."
    practice = "Practice has moved, Tuesday (2026-03-03) nights are out so we do Thursdays now."
    assert _retires(new, exam, practice) == [exam]
    # Both ways: a weekly schedule said anew retires no one-off day (recurring.keeps_one_off).
    assert _retires("We do Thursdays (2026-03-05) now for practice.", exam) == []


# distill45: a holder replaced or gone, named in the newer fact beside a new person, retires the older fact of
# that holder (the old holder's name is the slot, whatever noun or verb says the role).
@pytest.mark.parametrize(
    ("new", "old"),
    [
        (
            "Poppy's off to uni in September, so from the autumn it's Daisy helping the user.",
            "The user's assistant is Poppy Leadbetter.",
        ),
        (
            "Anouk est partie à Nantes, c'est Inès Daoudi qui la remplace, trois jours aussi.",
            "Ma salariée, c'est Anouk Le Goff, elle est là le mardi et le samedi.",
        ),
        (
            "Rocío se fue a Madrid, ahora me ayuda Nerea Gil por las mañanas.",
            "Mi ayudante es Rocío Martín, viene por las tardes.",
        ),
        (
            "Herr Meinhold ist im Ruhestand, Frau Ute Kasperczak übernimmt die Abnahmen.",
            "Der Orgelsachverständige des Nutzers ist Herr Meinhold.",
        ),
        (
            "O Salgueiro saiu, agora quem acompanha as obras é a arquiteta Mafalda Quintela.",
            "O engenheiro da obra é o Salgueiro.",
        ),
    ],
)
def test_a_holder_gone_or_replaced_by_a_new_person_retires_the_holders_fact(new: str, old: str) -> None:
    assert _retires(new, old, "The user's wholesale contact is Ravi.") == [old]


@pytest.mark.parametrize(
    ("new", "old"),
    [
        # Gone to a place, no new person: the role is not said to be anyone else's.
        ("Anouk est partie à Nantes maintenant.", "Ma salariée, c'est Anouk Le Goff."),
        # A fact of what someone is called holds no role.
        ("The user's name is Bao Tran now, Le Van left.", "The user's name is Bao."),
        # A question, and a new person added beside the holder.
        ("Has Poppy left, so Daisy is helping now?", "The user's assistant is Poppy Leadbetter."),
        ("Poppy now works with Daisy too on Saturdays.", "The user's assistant is Poppy Leadbetter."),
        # No change said: the holder named beside someone else.
        (
            "Poppy Leadbetter and Daisy Kerr went to the flower show.",
            "The user's assistant is Poppy Leadbetter.",
        ),
    ],
)
def test_no_holder_change_or_no_new_person_retires_nothing(new: str, old: str) -> None:
    assert _retires(new, old) == []


def test_a_place_named_again_is_no_holder_replaced() -> None:
    """A town the older fact places the user in, said again as a new venue's name, holds no role."""
    old = "The user is a secondary school history teacher in Bristol."
    new = "The Hare & Compass closed, so we're at the Bristol Games Hub on Gloucester Road now."
    assert _retires(new, old) == []


@pytest.mark.parametrize(
    ("new", "old"),
    [
        # Kin are not handed on: the husband named in a trip moved, the sister in a day changed.
        (
            "We've rescheduled Japan, Clive's knee op got moved, so we go in April instead.",
            "The user's husband is Clive.",
        ),
        ("Tabitha has started college so she can only do Wednesdays now.", "The user's sister is Tabitha."),
        (
            "Ma sœur Inès est partie à Nantes, c'est Marie Roux qui la garde maintenant.",
            "La sœur de l'utilisateur est Inès.",
        ),
        # A template's capitalised words are no new person ("Ständige Anweisung des Nutzers").
        (
            "Ständige Anweisung des Nutzers: ab jetzt kürzere Antworten, Frau Weber liest mit.",
            "Aufgabe des Nutzers: Frau Weber wegen des Kurses anrufen.",
        ),
        # A marker alone with a first name only: no new holder said in full.
        (
            "The Kew trip got moved, Tobiah had a work thing, we went in June instead.",
            "The user asked to be reminded to order their reader's ticket for Kew.",
        ),
    ],
)
def test_kin_templates_and_bare_first_names_hand_no_role_on(new: str, old: str) -> None:
    assert _retires(new, old) == []


# distill48: a schedule's day or part of the day, a name with its date of effect, a slot named by a name's head or a
# compound's head, and a change said by its verb in each of the five languages.
@pytest.mark.parametrize(
    ("new", "old"),
    [
        # en: the day of the week gone to another, the part of the day in the clause of the change (the evenings
        # in the reason clause are not the value), a decision to move naming the kind by the name's head.
        ("Out-apiary inspections have gone to Wednesday mornings.", "The user does the out-apiaries on Sundays."),
        ("Change the reminders: the user wants them at lunchtime now, the evenings have gone mad.",
         "The user likes their reminders the evening before."),
        ("The user decided to move the dogs to Ashville Vets.", "The user's vet is Dr Priyamvada Rao."),
        # fr: a day changed with "désormais", a part of the day with "depuis mars".
        ("Le marché, je le fais désormais le jeudi.", "Le marché, je le fais le mardi."),
        ("Les livraisons arrivent le matin depuis mars.", "Les livraisons arrivent le soir."),
        # es: a place with its date of effect ("a partir del 15 de julio"), a weekday changed by its verb.
        ("El taller me lo cambio: me voy a una nave en el polígono Torrehierro, a partir del 15 de julio. "
         "(2026-07-15)", "El usuario lleva un taller pequeño en la calle Carnicerías."),
        ("He cambiado las clases de cerámica a los jueves.", "Las clases de cerámica son los martes."),
        # de: a compound's head ("Werkstattbesprechung" / "Besprechung"), "seit Februar" said as the change.
        ("Die Besprechung machen wir seit Februar dienstags, montags sind zu viele auf Montage.",
         "Unsere Werkstattbesprechung ist jeden Montag um halb acht."),
        ("Den Wochenmarkt haben wir auf samstags umgestellt.", "Der Wochenmarkt ist freitags."),
        # pt: the part of the day changed with "trocámos", a weekday with "desde março".
        ("Trocámos as entregas para a manhã.", "As entregas são à noite."),
        ("As aulas de azulejo são às quintas desde março.", "As aulas de azulejo são às terças."),
    ],
)  # fmt: skip
def test_a_schedule_a_dated_place_or_a_head_noun_said_as_changed_retires_the_older_fact(
    new: str, old: str
) -> None:
    assert _retires(new, old) == [old]


@pytest.mark.parametrize(
    ("new", "old"),
    [
        # Two days each for its own thing: a change of one leaves the other true.
        ("Out-apiary inspections have gone to Wednesday mornings.",
         "The user does the home apiary on Saturdays and the two out-apiaries on Sundays."),
        # No change said: a schedule told again with another day is not read as a change.
        ("Les livraisons arrivent le matin.", "Les livraisons arrivent le soir."),
        # A date that is no date of effect ("for Saturday weddings") keeps the name rule's date guard.
        ("Florismart's now Thursdays, which suits the user better for Saturday (2026-09-05) weddings.",
         "The user runs Petal and Stem, a florist's on Cold Bath Road in Harrogate."),
        # Another slot: the day changed is not the older fact's.
        ("Die Chorprobe ist jetzt dienstags.", "Unsere Werkstattbesprechung ist jeden Montag um halb acht."),
        # es: "mañana" alone is tomorrow, no part of the day; pt: a one-off day is no weekly schedule.
        ("Ahora la reunión es mañana.", "La reunión es por la tarde."),
        ("A reunião passou para 3 de março (2026-03-03).", "A reunião é às terças."),
    ],
)  # fmt: skip
def test_no_schedule_change_of_that_slot_retires_nothing(new: str, old: str) -> None:
    assert _retires(new, old) == []


@pytest.mark.parametrize(
    ("new", "old"),
    [
        # The form of address: one slot, two values; the newer says which, with or without a marker.
        ("Consigne permanente de l'utilisateur : vous pouvez me tutoyer.",
         "Consigne permanente de l'utilisateur : je préfère qu'on me vouvoie."),
        ("Ständige Anweisung des Nutzers: du kannst mich duzen.", "Ständige Anweisung des Nutzers: siezen Sie mich."),
        ("Instrucción permanente del usuario: puedes tutearme.",
         "Instrucción permanente del usuario: prefiero que me hable de usted."),
        ("Instrução permanente do usuário: pode tratar-me por tu.",
         "Instrução permanente do usuário: trate-me por senhora."),
        # The user's move of home or business gives a new place to the older fact that places them.
        ("Geplant: Wir sind umgezogen: die Konditorei ist jetzt in Schleußig, größere Backstube.",
         "Der Nutzer arbeitet in Leipzig-Gohlis."),
        ("We've moved, the studio is in Totnes now.", "The user works in Dartington."),
        # A synonym class names the slot ("vendor" / "supplier").
        ("Our vendor is Brakes now, since March.", "The user's supplier is Bidfood."),
    ],
)  # fmt: skip
def test_an_address_form_a_move_or_a_synonym_retires_the_older_fact(new: str, old: str) -> None:
    assert _retires(new, old) == [old]


@pytest.mark.parametrize(
    ("new", "old"),
    [
        # The same form again, a negated form, or someone else's address.
        ("Consigne permanente de l'utilisateur : vous pouvez me tutoyer.", "Tu peux me tutoyer."),
        ("Ne me tutoyez pas.", "Consigne permanente de l'utilisateur : je préfère qu'on me vouvoie."),
        # A move said by someone else, or a place that is not where the user lives or works.
        ("My sister moved, she's in Leeds now.", "The user works in York."),
        ("We've moved, the studio is in Totnes now.", "The user's mother lives in Dartington."),
    ],
)  # fmt: skip
def test_no_address_form_change_or_move_of_the_user_retires_nothing(new: str, old: str) -> None:
    assert _retires(new, old) == []
