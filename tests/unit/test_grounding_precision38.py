"""Issue 22, distill38: precision of what is stored — fragments cut at the wrong clause, objects and dates said in
the clause before, other people's wishes and likings, a relation noun read as a name, a clause read as a role.

Every rule is tested both ways: what it must change or reject, and a near sentence it must leave alone."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memoryd.write.grounding import SourceTurn, extract
from memoryd.write.grounding.antecedent import antecedent, elided_context, whose
from memoryd.write.grounding.continuation import continued
from memoryd.write.grounding.entities import find_entities
from memoryd.write.grounding.fitness import unfit_fact
from memoryd.write.grounding.model import FactKind, GroundedFact

#: 2026-03-02, a Monday, 12:00 UTC.
SESSION_MS = 1_772_452_800_000


def _facts(*users: str) -> list[tuple[str, str, str]]:
    turns = [SourceTurn(i, 900 + i, user, "Okay.") for i, user in enumerate(users)]
    return [(f.kind.value, f.slot, f.text) for f in extract(turns, session_time_ms=SESSION_MS).facts]


def _texts(*users: str) -> str:
    return " | ".join(text for _, _, text in _facts(*users))


# --- a pronoun whose own sentence names nothing before it: the sentence said just before is its antecedent
def test_a_pronoun_after_its_own_subject_and_modal_takes_the_sentence_before() -> None:
    turn = "She needs a bloodborne pathogens course. I have to book it before 10 April."
    assert antecedent("book it before 10 April", turn) == "She needs a bloodborne pathogens course"
    said = _texts(
        "We're doing a demo for Steam Next Fest in October. I need to have it feature-complete by 15 August."
    )
    assert "demo" in said and "feature-complete" in said
    # a lead that names something stays the antecedent; nothing before and nothing to point at adds nothing
    turn = "The old Dell laptop died last week and I'll sell it on eBay."
    assert antecedent("I'll sell it on eBay", turn) == "The old Dell laptop died last week and"
    assert antecedent("I have to book it before 10 April", "I have to book it before 10 April.") == ""


# --- an object left unsaid, or a date said only in the clause before
@pytest.mark.parametrize(
    ("value", "turn", "context"),
    [
        ("entregar até 20 de março", "Estou a restaurar a fachada de uma casa em Miragaia, tenho de entregar até 20 de março.",
         "Estou a restaurar a fachada de uma casa em Miragaia"),
        ("présenter le plan bio", "La commission menus se réunit le 9 avril, je dois présenter le plan bio.",
         "La commission menus se réunit le 9 avril"),
        ("eine Woche vorher", "Der TÜV ist am 10. Februar, erinner mich eine Woche vorher.", "Der TÜV ist am 10. Februar"),
        ("submit by Friday", "The grant report is nearly done, I have to submit by Friday.", "The grant report is nearly done"),
        ("preparar las cuentas", "La auditoría es el 3 de mayo, tengo que preparar las cuentas.", "La auditoría es el 3 de mayo"),
    ],
)  # fmt: skip
def test_an_elided_object_or_date_takes_the_clause_before(value: str, turn: str, context: str) -> None:
    assert elided_context(value, turn, dated=True) == context


@pytest.mark.parametrize(
    ("value", "turn", "dated"),
    [
        ("call Mum on Friday", "Busy week, I need to call Mum on Friday.", True),  # its own object and date
        ("send the ledgers by 28 April", "The audit is on 3 May, I need to send the ledgers by 28 April.", True),
        ("présenter le plan bio", "La commission menus se réunit le 9 avril, je dois présenter le plan bio.", False),
        ("submit by Friday", "I have to submit by Friday.", True),  # no clause before it
    ],
)  # fmt: skip
def test_a_task_with_its_own_object_and_date_takes_nothing(value: str, turn: str, dated: bool) -> None:
    assert elided_context(value, turn, dated=dated) == ""


def test_the_clause_before_is_kept_in_the_stored_task() -> None:
    said = _texts("Estou a restaurar a fachada de uma casa em Miragaia, tenho de entregar até 20 de março.")
    assert "Miragaia" in said and "2026-03-20" in said
    said = _texts("La commission menus se réunit le 9 avril, je dois présenter le plan bio.")
    assert "commission" in said and "plan bio" in said


# --- what the sentence says after a comma that belongs to the fact
def test_a_company_phrase_and_a_wanted_alternative_stay_with_the_fact() -> None:
    said = _texts(
        "Ich habe entschieden, den Evangelisten selbst zu besetzen, mit Jonathan Weiß aus Würzburg."
    )
    assert "Jonathan Weiß" in said
    said = _texts("Please don't give me generic running plans, I want map-reading drills, not mileage.")
    assert "map-reading drills" in said and "generic running plans" in said
    said = _texts("Ne me donne jamais de plans génériques, je veux des exercices de carte.")
    assert "exercices de carte" in said


def test_a_clause_of_its_own_after_the_comma_is_not_joined() -> None:
    # a rule said positively is complete as said: what the user wants after it is no other half of a refusal
    said = _texts("Keep your answers short, I want bullet points on my phone.")
    assert "keep your answers short" in said and "bullet points on my phone" not in said
    # a company phrase needs a name; a slotted value (what corrections compare) is never extended
    clause = "I've decided to repaint the shed, with a lot of luck before the rain."
    fact = GroundedFact(FactKind.DECISION, "The user decided to repaint the shed.", "", "to repaint the shed", (0,),
                        0.8, False)  # fmt: skip
    assert continued(fact, clause) is fact
    clause = "I've decided to switch to Fresha, with Anna from the front desk."
    slotted = replace(
        fact, slot="choice.booking", value="Fresha", text="The user decided to switch to Fresha."
    )
    assert continued(slotted, clause) is slotted
    assert "Anna" in continued(replace(slotted, slot=""), clause).text


# --- another person's wish for the user, or liking, is not the user's plan, task or shift
def test_a_named_persons_wish_opening_the_clause_is_theirs() -> None:
    said = _facts("Kirsty wants me to stop climbing and go groundwork only. Not happening.")
    assert not any("climbing" in text for kind, _, text in said if kind != FactKind.PREFERENCE.value)
    said = _facts("Paul veut que je change de club en mai.")
    assert not any("club" in text for kind, _, text in said if kind == FactKind.PLAN.value)
    # the user's own want, and "Ich will, dass wir …" (the user), stay
    assert "climbing" in _texts("I want to stop climbing by May and go groundwork only.")
    assert "Urlaub" in _texts("Ich will, dass wir im Mai in den Urlaub fahren.") or _facts(
        "Ich will, dass wir im Mai in den Urlaub fahren."
    )


def test_another_persons_liking_names_no_shift_of_the_users() -> None:
    for said in (
        "A Fermín le encanta hacer el turno de noche, a mí me parece horrible.",
        "O Rui adora o turno da noite, eu não.",
    ):
        assert not any(slot == "identity.shift" for _, slot, _ in _facts(said)), said
    assert any(slot == "identity.shift" for _, slot, _ in _facts("Hago el turno de noche."))
    # a clause that goes on with the user's own part is the user's ("He wants … and I'm down to …")
    said = _texts(
        "He wants a late opening on 16 May for the maritime festival and I'm down to do the evening talks."
    )
    assert "evening talks" in said
    # "will" is English future, not German "wants"
    assert "Nell Ashby" in _texts("My illustrator will be Nell Ashby.")


# --- a relation noun read as the person's name
def test_a_word_of_the_relation_noun_is_no_name() -> None:
    said = _texts("My lab PI is Dr. Sione Taufa.")
    assert "Sione Taufa" in said and "lab is PI" not in said
    assert "Gillian Hoskins" in _texts("My manager is Gillian Hoskins.")


# --- a clause read as a role
def test_a_role_that_opens_with_the_users_own_pronoun_is_no_role() -> None:
    said = _facts("Hiya. Torquil, I drive a gritter for Highland Council out of the Inverness depot.")
    assert not any(slot == "identity.role" and "I drive" in text for _, slot, text in said)
    assert any("Highland Council" in text for _, _, text in said)
    # a role with the user's next clause after it is still a role said as a noun
    said = _facts("Hello, I'm Percy, I'm a postman in Hereford and I keep bees on the side.")
    assert any(slot == "identity.role" and "postman" in text for _, slot, text in said)


# --- a subject left unsaid: an event verb, "there", "same …", a bare "the <noun> is <date>"
@pytest.mark.parametrize(
    ("value", "turn", "context"),
    [
        ("Starts 9 March, online modules plus two practical days",
         "It's an anaesthesia certificate for vet nurses. Starts 9 March, online modules plus two practical days.",
         "It's an anaesthesia certificate for vet nurses"),
        ("Empiezo a dar clases ahí el 5 de octubre",
         "Estudio Arrabal, en barrio Güemes. Empiezo a dar clases ahí el 5 de octubre.",
         "Estudio Arrabal, en barrio Güemes"),
        ("Same date, 28 March", "The concert is moving to Hexham Abbey. Same date, 28 March.",
         "The concert is moving to Hexham Abbey"),
        ("L'examen est le mardi 12 mai", "Je passe le permis poids lourd. L'examen est le mardi 12 mai.",
         "Je passe le permis poids lourd"),
        ("Beginnt am 3. Mai", "Ich mache einen Töpferkurs an der VHS. Beginnt am 3. Mai.",
         "Ich mache einen Töpferkurs an der VHS"),
    ],
)  # fmt: skip
def test_a_subject_left_unsaid_takes_the_sentence_before(value: str, turn: str, context: str) -> None:
    assert antecedent(value, turn) == context


@pytest.mark.parametrize(
    ("value", "turn"),
    [
        ("There is a meeting on 3 June", "I fly to Rome on Friday. There is a meeting on 3 June."),  # existential
        ("The wedding is on the lawn", "My sister is getting married. The wedding is on the lawn."),  # no date
        ("I start there on 5 October", "I start there on 5 October."),  # nothing said before
        ("Starting the course on 9 March", "The pottery course is at the Ashton centre. Starting the course on 9 March."),  # a gerund names its object
    ],
)  # fmt: skip
def test_a_said_subject_or_an_existential_there_takes_nothing(value: str, turn: str) -> None:
    assert antecedent(value, turn) == ""


def test_small_talk_before_a_task_is_no_part_of_it() -> None:
    said = _texts(
        "Snow again this morning, the lane was like a skating rink. I have to book it before 10 April."
    )
    assert "Snow" not in said and "skating" not in said


def test_an_instruction_about_people_by_a_possessive_takes_the_sentence_naming_them() -> None:
    turn = "We have a sibling pair, I'll just call them the boys. I'd rather you never use their names."
    assert (
        whose("I'd rather you never use their names", turn)
        == "We have a sibling pair, I'll just call them the boys"
    )
    said = _texts("On accueille deux sœurs, je les appelle les filles. Ne cite jamais leurs prénoms.")
    assert "leurs prénoms" in said and "les filles" in said
    # "it" in a rule is no person; a possessive with nothing said before names no one
    assert whose("keep it short", "I read everything on my phone. Keep it short.") == ""
    assert whose("never use their names", "Never use their names.") == ""


def _entities(*pairs: tuple[str, str]) -> list[str]:
    turns = [SourceTurn(i, 950 + i, user, assistant) for i, (user, assistant) in enumerate(pairs)]
    return [e.name for e in find_entities(turns)]


def test_a_name_said_only_to_deny_the_assistants_guess_is_no_entity() -> None:
    assert "Glasgow" not in _entities(
        ("I'm Torquil, I drive a gritter in Inverness.", "You're a Glasgow lad originally, I'd guess?"),
        ("Wick, born and bred. Never lived in Glasgow in my life.", "Wick, noted."),
    )
    assert "Lyon" not in _entities(
        ("Je suis infirmière.", "Vous avez sûrement étudié à Lyon ?"),
        ("Non, je n'ai jamais habité à Lyon, j'ai étudié à Grenoble.", "D'accord."),
    )
    # a name the user affirms, or says before a negation of something else, stays
    assert "MongoDB" in _entities(
        ("We're choosing a database.", "Will you go with MongoDB?"),
        ("Yes, MongoDB it is, I'm not worried about the schema.", "Great."),
    )
    assert "Glasgow" in _entities(
        ("I moved last year.", "Do you still live in Glasgow?"),
        ("I live in Glasgow, not Edinburgh.", "Okay."),
    )


def _relation_fact(slot: str, value: str) -> GroundedFact:
    return GroundedFact(
        FactKind.RELATION, f"The user's {slot} is {value}.", f"relation.{slot}", value, (0,), 0.7, False
    )


def test_a_kin_noun_with_an_indefinite_article_names_no_kin_of_the_users() -> None:
    said = _facts("Our new assistant is a mum, Folake Adeyemi, she played semi-pro.")
    assert not any(slot == "relation.mother" for _, slot, _ in said)
    assert any(slot == "relation.assistant" for _, slot, _ in said)
    for sentence in (
        "Notre nouvelle bénévole est une mère, Awa Diop.",
        "La nueva monitora es una madre, Rosa Gil.",
    ):
        assert not any(slot == "relation.mother" for _, slot, _ in _facts(sentence)), sentence
    # with a possessive it is the user's kin
    assert any(slot == "relation.mother" for _, slot, _ in _facts("My mum, Folake Adeyemi, is coming over."))


def test_the_head_of_a_compound_relation_noun_is_no_relation() -> None:
    clinic = _relation_fact("clinic", "Padraig")
    assert (
        unfit_fact(clinic, ("Hiya. Fionnuala left, our new clinic manager is Padraig.",))
        == "not_the_relation_said"
    )
    manager = _relation_fact("manager", "Padraig")
    assert unfit_fact(manager, ("Hiya. Fionnuala left, our new clinic manager is Padraig.",)) == ""


def test_a_title_alone_is_no_person() -> None:
    for title in ("Enf.", "Dr.", "Herr", "Mme", "Sra."):
        assert unfit_fact(_relation_fact("chief", title), ("Lá a chefe é a Enf. Rosa.",)) == "title_alone", (
            title
        )
    assert unfit_fact(_relation_fact("chief", "Enf"), ("A minha enfermeira-chefe é a Enf.ª Lurdes Calado.",))
    for name in ("Rosa", "Dr. Okonjo", "Herr Dünnebier", "Jo"):
        assert unfit_fact(_relation_fact("chief", name), ("Lá a chefe é a Enf. Rosa.",)) == "", name
