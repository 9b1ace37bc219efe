"""Clause-level extraction (issue 22): a fact holds the clause that states it, in five languages.

Hand-written sentences, none from a labelled set: greetings, labels before a colon and reply words stay out of the
fact; a consequence clause ("…, so I need to …") is its own fact; people named by their role leave a plan said in
the same breath; hypotheticals, other people's tastes, what the assistant is said to think and small talk yield
nothing; a password named by a longer phrase is a secret; a weekday said as a habit is no date.
"""

from __future__ import annotations

import pytest

from memoryd.write.grounding import GroundedFact, SourceTurn, ground
from memoryd.write.grounding.dates import find_dates
from memoryd.write.grounding.extract import extract
from memoryd.write.grounding.secrets import contains_secret, redact_secrets
from memoryd.write.grounding.text import sentences

#: 2026-03-02 (a Monday) 12:00 UTC.
SESSION_MS = 1_772_452_800_000


def _facts(*said: str) -> list[GroundedFact]:
    """What is stored of a session whose user turns are `said`: the extractor's facts that pass verification."""
    turns = [SourceTurn(i, 100 + i, text, "Okay.") for i, text in enumerate(said)]
    return list(ground(turns, None, session_time_ms=SESSION_MS).facts)


def _slotted(facts: list[GroundedFact], slot: str) -> GroundedFact:
    found = [f for f in facts if f.slot == slot]
    assert found, [(f.slot, f.text) for f in facts]
    return found[0]


@pytest.mark.parametrize(
    ("said", "slot", "text"),
    [
        # A label before a colon and a greeting before it open the statement; the rules read what follows.
        (
            "Morning! Quick intro: I'm Ravi, I lead the data platform team at Northwind Logistics.",
            "identity.team",
            "The user leads the data platform team.",
        ),
        (
            "Morning! Quick intro: I'm Ravi, I lead the data platform team at Northwind Logistics.",
            "identity.employer",
            "The user works at Northwind Logistics.",
        ),
        ("hey, it's Mei again, how are you?", "identity.name", "The user's name is Mei."),
        # A reply word answers the assistant and is no part of the fact.
        ("Nope, I work at a bakery, early shifts mostly.", "identity.workplace", "The user works at a bakery."),
        ("Trabajo en una librería.", "identity.workplace", "El usuario trabaja en una librería."),
        # An age after the name, a home said with company, German possessives in every case.
        ("Hallo! Ich bin Katrin, 42, und wohne mit meinem Mann Stefan in Leipzig.", "identity.age", "Der Nutzer ist 42 Jahre alt."),
        ("Hallo! Ich bin Katrin, 42, und wohne mit meinem Mann Stefan in Leipzig.", "identity.home", "Der Nutzer wohnt in Leipzig."),
        ("Hallo! Ich bin Katrin, 42, und wohne mit meinem Mann Stefan in Leipzig.", "relation.partner", "Mann des Nutzers: Stefan."),
        ("Vivo con mi novio en Sevilla.", "identity.home", "El usuario vive en Sevilla."),
        # "no." ends a sentence; the next one is read on its own.
        ("Todavía no. Mi pareja, Javier, se encarga de buscarlo.", "relation.partner", "Pareja del usuario: Javier."),
        # Relation nouns of a user's life, and services named with a definite article.
        ("Update: Helen moved to another division, my new director is Marcus Lee.", "relation.director", "The user's director is Marcus Lee."),
        ("Der Fliesenleger heißt Herr Böhm.", "relation.tiler", "Fliesenleger des Nutzers: Herr Böhm."),
        ("El fontanero se llama Paco.", "relation.contractor", "Fontanero del usuario: Paco."),
        ("On vient d'adopter un chaton, il s'appelle Pistache.", "pet.pistache", "Chaton de l'utilisateur : Pistache."),
        # Standing instructions: a register, and a style said with "me".
        ("Ja, gerne. Und bitte duze mich, das Sie ist mir zu förmlich.", "instruction.register", "Ständige Anweisung des Nutzers: duze mich."),
        # A role keeps where it is done.
        ("Je suis prof de maths dans un lycée à Nantes.", "identity.role", "L'utilisateur est prof de maths dans un lycée à Nantes."),
        # Medicines at a rhythm and what a user sells.
        ("Ich nehme jeden Morgen Blutdrucktabletten.", "health.takes_jeden_morgen", "Der Nutzer nimmt jeden Morgen Blutdrucktabletten."),
        ("I sell handmade candles on Shopify.", "identity.business", "The user sells handmade candles on Shopify."),
        # English: a service named through "a guy called", a choice settled on, a title, a home bought.
        ("Our builder is a guy called Pete Marsh, he's starting next Monday.", "relation.contractor", "The user's builder is Pete Marsh."),
        ("We've settled on oak flooring for the hallway.", "choice.hallway", "The user chose oak flooring for the hallway."),
        ("I'm the CTO of a tiny startup called Brightline.", "identity.role", "The user is the CTO."),
        ("I'm the CTO of a tiny startup called Brightline.", "identity.employer", "The user works at Brightline."),
        ("Just bought an old Victorian terrace in Bristol.", "identity.home", "The user moved to Bristol."),
        # Children named in a list after their number.
        ("I'm married with two kids, Tom and Ella.", "relation.child.ella", "The user's child is Ella."),
        ("Wir haben zwei Kinder, Ben und Mia.", "relation.child.ben", "Kind des Nutzers: Ben."),
        ("Tenho dois filhos, o Rui e a Rita.", "relation.child.rita", "Filho/a do usuário: Rita."),
        # Spanish, German: a service named with "es", a role after the employer, a register with "siempre".
        ("El pediatra de los niños es el doctor Ruiz.", "relation.paediatrician", "Pediatra del usuario: Ruiz."),
        ("Ich arbeite seit drei Jahren bei Zalando als Data Engineer.", "identity.role", "Der Nutzer arbeitet als Data Engineer."),
        # A role after "I'm <name>, I'm …" keeps its place; a field of study and where it is studied.
        ("I'm Ben, I'm a nurse in Cardiff and my partner Claire and I want to save.", "identity.role", "The user is a nurse in Cardiff."),
        ("Hi, I'm Sara, a master's student in marine biology at Plymouth.", "identity.role", "The user is a master's student in marine biology at Plymouth."),
        # A business of one's own, in the user's words up to the next clause.
        ("Olá! Chamo-me Rita, tenho uma loja online de cerâmica e vivo em Coimbra.", "identity.business", "O usuário tem uma loja online de cerâmica."),
        # "Not yet," answers the assistant; an event noun makes a plan even with a pronoun.
        ("Not yet, I have an appointment with him on March 20.", "plan.appoint", "The user has an appointment with him on March 20 (2026-03-20)."),
        # "Hello dear, it's Ellen", living "on my own", "in the UK", a name signed with "here", "we sell … in".
        ("Hello dear, it's Ellen. I'm 81 and I live on my own in Harrogate now.", "identity.name", "The user's name is Ellen."),
        ("Hello dear, it's Ellen. I'm 81 and I live on my own in Harrogate now.", "identity.home", "The user lives in Harrogate."),
        ("I'm a freelance translator, but I live in the UK.", "identity.home", "The user lives in UK."),
        ("Marcus here. Training for the Berlin Marathon.", "identity.name", "The user's name is Marcus."),
        ("We sell refurbished bikes in Leeds.", "identity.business", "The user sells refurbished bikes in Leeds."),
        # "Remind me that …" tells of an event.
        ("Could you remind me that the chiropodist comes on Wednesday at 11?", "plan.come", "The chiropodist comes on Wednesday (2026-03-04) at 11."),
    ],
)  # fmt: skip
def test_the_fact_is_the_clause_that_states_it(said: str, slot: str, text: str) -> None:
    assert _slotted(_facts(said), slot).text == text


def test_a_consequence_with_its_own_subject_is_its_own_fact() -> None:
    facts = _facts(
        "El 20 de marzo tengo el examen de la oposición, así que necesito estudiar por las tardes."
    )
    texts = [f.text for f in facts]
    assert "Plan: El 20 de marzo (2026-03-20) tengo el examen de la oposición." in texts
    assert "Tarea del usuario: estudiar por las tardes." in texts


@pytest.mark.parametrize(
    ("said", "kept", "gone"),
    [
        (
            "Son vétérinaire, c'est le Dr Lemaire, rendez-vous pour les vaccins le 12 juin.",
            "vaccins",
            "Lemaire",
        ),
        ("Her dentist is Dr Roe, and the check-up is on May 4.", "check-up", "Roe"),
        ("Der Fliesenleger heißt Herr Böhm und kommt am 14. April.", "Fliesenleger kommt", "Böhm"),
    ],
)
def test_a_plan_leaves_out_who_holds_a_role(said: str, kept: str, gone: str) -> None:
    plans = [f for f in _facts(said) if f.kind.value == "plan"]
    assert plans and kept in plans[0].text and gone not in plans[0].text, [f.text for f in plans]


def test_a_pronoun_after_a_role_statement_is_the_role() -> None:
    plans = [
        f
        for f in _facts("Our builder is a guy called Pete Marsh, he's starting next Monday.")
        if f.slot.startswith("plan.")
    ]
    assert [f.text for f in plans] == ["Our builder's starting next Monday (2026-03-09)."]


def test_a_prohibition_to_suggest_is_standing() -> None:
    texts = [f.text for f in _facts("Don't suggest anything with mushrooms, I can't stand them.")]
    assert "Standing instruction from the user: don't suggest anything with mushrooms." in texts


def test_a_team_moving_tools_is_a_decision() -> None:
    assert [f.kind.value for f in _facts("My team is moving from Jira to Linear.")] == ["decision"]


def test_a_plan_moved_in_other_languages_keeps_its_new_date() -> None:
    plans = _facts("Mudança de planos: a viagem passou para novembro por causa do trabalho.")
    assert any(f.kind.value == "plan" and "2026-11" in f.text for f in plans), [f.text for f in plans]


@pytest.mark.parametrize(
    "said",
    [
        # hypotheticals and wishes
        "Si algún día tengo tiempo, me apuntaría a clases de pilates.",
        "Falls ich mal nach München ziehe, kaufe ich ein Fahrrad.",
        "Se eu ganhar a lotaria, compro uma casa no Algarve.",
        "Si jamais on déménage un jour à Bordeaux, je prendrais un jardin.",
        "I'd love to live in Japan someday.",
        # other people's tastes
        "Ma femme adore le jazz.",
        "A mi marido le encanta el fútbol.",
        "Stefan hätte lieber Holzoptik gehabt, aber er hat nachgegeben.",
        # what the other speaker is said to think
        "Tu dois penser que je suis végétarienne, mais pas du tout.",
        "Du denkst bestimmt, ich bin Veganer, aber nein.",
        # small talk
        "Lovely weather today for once, it's actually sunny.",
        "Schönes Wetter heute übrigens, endlich Frühling!",
        "Que calor tem feito por cá!",
        # a time of day or a shift is no workplace
        "I work in the evenings mostly.",
    ],
)
def test_nothing_of_the_user_is_learned(said: str) -> None:
    assert not _facts(said), [(f.slot, f.text) for f in _facts(said)]


def test_guessed_origin_is_dropped_and_the_stated_one_kept() -> None:
    texts = [f.text for f in _facts("Seguro que piensas que soy de Madrid, pero no, soy de Bilbao.")]
    assert texts == ["El usuario es de Bilbao."]


@pytest.mark.parametrize(
    ("said", "secret"),
    [
        ("Y la contraseña del portal del hospital es Valencia2026!, no la olvides.", "Valencia2026"),
        ("Mein Passwort fürs Fitnessstudio ist Kx9!mora22, nur falls ich es vergesse.", "Kx9!mora22"),
        ("The password for the office wifi router is tangerine-77-otter.", "tangerine-77-otter"),
        ("The code for the gate is 4821, the cleaner comes Tuesday.", "4821"),
        ("El código de la alarma es 7788.", "7788"),
        ("Le code de la porte c'est 1234B.", "1234B"),
    ],
)
def test_a_password_named_by_a_longer_phrase_is_a_secret(said: str, secret: str) -> None:
    assert contains_secret(said) and secret not in redact_secrets(said)
    extraction = extract([SourceTurn(0, 1, said, "")], session_time_ms=SESSION_MS)
    assert secret not in extraction.summary and all(secret not in f.text for f in _facts(said))


def test_small_talk_names_no_entity() -> None:
    turns = [SourceTurn(0, 1, "Schönes Wetter heute übrigens, endlich Frühling!", "")]
    assert not extract(turns, session_time_ms=SESSION_MS).entities


@pytest.mark.parametrize(
    "said",
    [
        "My daughter has swimming lessons every Tuesday at 5.",
        "Mi hija tiene natación los martes.",
        "Ma fille a piscine le mercredi.",
        "Meine Tochter hat jeden Dienstag Schwimmen.",
        "Tomo pastillas para la tensión cada mañana.",
    ],
)
def test_a_habit_is_no_date(said: str) -> None:
    assert not find_dates(said, SESSION_MS)
    assert all("(2026-" not in f.text for f in _facts(said)), [f.text for f in _facts(said)]


def test_a_weekly_habit_is_kept_without_a_date() -> None:
    habit = _slotted(_facts("Meine Tochter hat jeden Dienstag Schwimmen."), "routine.schwimm")
    assert habit.text == "Geplant: Meine Tochter hat jeden Dienstag Schwimmen."


def test_no_ends_a_sentence_before_a_word() -> None:
    assert sentences("Todavía no. Mi pareja, Javier, se encarga.") == [
        "Todavía no.",
        "Mi pareja, Javier, se encarga.",
    ]


def test_a_german_decision_with_its_infinitive_clause() -> None:
    texts = [f.text for f in _facts("Wir haben beschlossen, im Herbst umzuziehen.")]
    assert texts == ["Entscheidung des Nutzers: Wir haben beschlossen, im Herbst umzuziehen."]


@pytest.mark.parametrize(
    ("said", "text"),
    [
        ("Bonjour ! Je prépare le marathon de Paris le 12 avril.", "Prévu : Je prépare le marathon de Paris le 12 avril. (2026-04-12)"),
        ("Hallo! Am 5. Mai ziehen wir um.", "Geplant: Am 5. Mai (2026-05-05) ziehen wir um."),
        ("Hey, quick one: I'm meeting the landlord on Friday.", "The user is meeting the landlord on Friday (2026-03-06)."),
        # A weekday with its day of the month is that date ("el martes 10" is 2026-03-10, a Tuesday).
        ("Hola, buenas. El martes 10 tengo la entrevista.", "Plan: El martes 10 (2026-03-10) tengo la entrevista."),
    ],
)  # fmt: skip
def test_a_greeting_is_no_part_of_a_plan(said: str, text: str) -> None:
    assert [f.text for f in _facts(said) if f.kind.value == "plan"] == [text]


def test_a_weekday_before_its_date_names_that_date() -> None:
    assert [m.iso for m in find_dates("am Dienstag, 10. März", SESSION_MS)] == ["2026-03-10"]


@pytest.mark.parametrize(
    "said",
    [
        "We are singing on Saturday the 11th of July instead.",
        "On chante samedi le 11 juillet.",
        "Cantamos el sábado, el 11 de julio.",
        "Wir singen am Samstag, den 11. Juli.",
        "Cantamos no sábado, dia 11 de julho.",
    ],
)
def test_a_weekday_joined_to_its_date_by_an_article_is_one_date(said: str) -> None:
    assert [m.iso for m in find_dates(said, SESSION_MS)] == ["2026-07-11"]


def test_a_weekday_and_a_date_said_apart_stay_two_dates() -> None:
    assert len(find_dates("We meet on Saturday, and then again on the 11th of July.", SESSION_MS)) == 2


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("Can you keep the answers short from now on?", "keep the answers short from now on"),
        ("Could you always answer in French?", "always answer in French"),
        ("¿Puedes responderme siempre en español?", "responderme siempre en español"),
        ("I'd rather you didn't use emojis.", "I'd rather you didn't use emojis"),
        ("Prefiero que me respondas en castellano.", "prefiero que me respondas en castellano"),
        ("Je préfère qu'on me vouvoie.", "je préfère qu'on me vouvoie"),
        ("Please use metric units.", "use metric units"),
        ("Answer in English even if I write in German.", "answer in English even if I write in German"),
        ("No uses tecnicismos, por favor.", "no uses tecnicismos"),
        ("Não uses emojis, por favor.", "não uses emojis"),
        ("Évite le jargon technique, s'il te plaît.", "évite le jargon technique"),
        ("Schreib mir bitte kurze Antworten.", "schreib mir bitte kurze Antworten"),
    ],
)
def test_standing_instructions_said_as_requests_or_wishes(said: str, value: str) -> None:
    found = [f for f in _facts(said) if f.kind.value == "instruction"]
    assert [f.value for f in found] == [value], [(f.kind.value, f.text) for f in _facts(said)]


@pytest.mark.parametrize(
    "said",
    [
        "Can you help me with my CV?",
        "Could you book a table for Friday?",
        "Nature always cheers me up and makes me feel grateful.",
        "Remember, it's never too late to make positive changes.",
    ],
)
def test_one_off_requests_and_remarks_are_no_instructions(said: str) -> None:
    assert not [f for f in _facts(said) if f.kind.value == "instruction"]


def test_a_german_liking_keeps_its_german_verb() -> None:
    assert [f.text for f in _facts("Ich trinke keinen Alkohol.")] == ["Der Nutzer trinkt keinen Alkohol."]


@pytest.mark.parametrize(
    ("said", "iso"),
    [
        ("The kickoff is on the 14th.", ["2026-03-14"]),
        ("Le rendez-vous est le 14, à 10h.", ["2026-03-14"]),
        ("Der Termin ist am 14. um 10 Uhr.", ["2026-03-14"]),
        ("La cita es el día 14.", ["2026-03-14"]),
        ("A reunião é no dia 14.", ["2026-03-14"]),
        ("I scored 10 on the 1st try.", []),
        ("It's the 21st century.", []),
    ],
)
def test_a_day_of_the_month_said_alone_is_the_next_one(said: str, iso: list[str]) -> None:
    assert [m.iso for m in find_dates(said, SESSION_MS)] == iso


def test_dont_forget_introduces_a_task() -> None:
    texts = [f.text for f in _facts("Don't forget I need to renew my passport before the trip.")]
    assert texts == ["The user needs to renew their passport before the trip."]


LATER_MS = SESSION_MS + 7 * 86_400_000


@pytest.mark.parametrize(
    ("first", "later", "slot"),
    [
        ("Our vet is Dr. Patel.", "We've switched vets, we now see Dr. Alvarez.", "relation.vet"),
        ("Mein Chef ist Herr Braun.", "Ich habe einen neuen Chef, Herr Kaya.", "relation.manager"),
        ("My goal for the marathon is 3:30.", "I've revised my marathon target to 3:20.", "target.marathon"),
    ],
)
def test_a_correction_lands_in_the_slot_of_what_it_corrects(first: str, later: str, slot: str) -> None:
    before = [f for f in _facts(first) if f.slot.startswith(slot)]
    turns = [SourceTurn(0, 100, later, "Okay.")]
    after = [f for f in ground(turns, None, session_time_ms=LATER_MS).facts if f.slot.startswith(slot)]
    assert before and after and before[0].value != after[0].value, (
        [f.slot for f in before],
        [f.slot for f in after],
    )


@pytest.mark.parametrize(
    ("said", "text"),
    [
        ("Soy médico de familia en Bilbao.", "El usuario es médico de familia en Bilbao."),
        ("Soy profesora de inglés en un instituto.", "El usuario es profesora de inglés en un instituto."),
        ("Ich bin Lehrerin an einer Grundschule.", "Der Nutzer ist Lehrerin an einer Grundschule."),
        ("Je suis infirmière à l'hôpital de Nantes.", "L'utilisateur est infirmière à l'hôpital de Nantes."),
        ("Sou enfermeira no Hospital de Santa Maria.", "O usuário é enfermeira no Hospital de Santa Maria."),
        ("I'm retired, I used to be a pilot.", "The user is retired."),
        ("Estoy jubilada desde el año pasado.", "El usuario está jubilada."),
        ("Ich bin seit letztem Jahr in Rente.", "Der Nutzer ist in Rente."),
        # A possessive after "in" is no field of work ("a coach in my group now").
        ("I'm a Weight Watchers coach in my group now.", "The user is a Weight Watchers coach."),
    ],
)
def test_a_role_keeps_its_field_and_workplace(said: str, text: str) -> None:
    assert _slotted(_facts(said), "identity.role").text == text


@pytest.mark.parametrize(
    ("said", "slots"),
    [
        ("I've got two cats, Miso and Tofu.", ["pet.miso", "pet.tofu"]),
        ("On a deux chats, Pixel et Crumble.", ["pet.pixel", "pet.crumble"]),
        ("A nossa cadela chama-se Luna.", ["pet.luna"]),
    ],
)
def test_pets_named_in_a_list_or_by_a_female_noun(said: str, slots: list[str]) -> None:
    assert [f.slot for f in _facts(said)] == slots


@pytest.mark.parametrize(
    "said",
    [
        "You'd told me the inspection was in June, that's wrong, it's next year.",
        "Tu m'avais dit que Lilian passait son CAP en juin, c'est faux, c'est l'an prochain.",
        "Me habías dicho que la inspección era en junio, no es así, es el año que viene.",
        "Du hattest gesagt, die Prüfung ist im Juni, das stimmt nicht.",
        "Você me disse que a inspeção era em junho, não é verdade, é no ano que vem.",
    ],
)
def test_the_assistant_s_words_quoted_back_in_the_past_perfect_are_no_plan(said: str) -> None:
    assert [f.text for f in _facts(said) if f.kind.value == "plan"] == []


@pytest.mark.parametrize(
    "said",
    [
        "Ma mère m'avait dit que le contrôle est en juin.",
        "Mi hermana me había dicho que la inspección es en junio.",
        "Meine Chefin hatte gesagt, die Prüfung ist im Juni.",
        "A minha irmã me disse que a inspeção é em junho.",
    ],
)
def test_what_someone_else_told_the_user_is_no_report_of_the_assistant(said: str) -> None:
    assert [f.kind.value for f in _facts(said)].count("plan") == 1
