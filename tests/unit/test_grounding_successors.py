"""People replaced (grounding/successors.py): the older holder of a role said gone and a successor named without
"my X is" store the successor in the older relation fact's slot and retire it, in five languages; an addition,
someone else's staff, a holder away for a while, a denied departure, a question or a hypothetical and a family
relation hand nothing over."""

from __future__ import annotations

from memoryd.write.grounding import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.revisions import Revision, revisions
from memoryd.write.grounding.successors import role_holder, successions
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import plan_grounded


def _read(said: str, *known: str) -> list[Revision]:
    return revisions([SourceTurn(0, 1, said, "Noted.")], [], list(known))


def _new(said: str, known: str) -> list[tuple[str, tuple[int, ...]]]:
    return [(r.fact.text, r.retired) for r in _read(said, known) if r.fact is not None and r.is_new]


# --- what must hand over -------------------------------------------------------------------------------------------


def test_a_successor_taken_on_replaces_the_apprentice() -> None:
    said = "Tom's gone, he joined the navy last month. I've taken on Priya Shah, she's done a year at Kendal college."
    assert _new(said, "The user's apprentice is Tom Hardcastle.") == [
        ("The user's apprentice is Priya Shah.", (0,))
    ]


def test_a_replacement_noun_and_a_doctor_given() -> None:
    assert _new(
        "Dr Mensah has retired. I've been given a Dr Ilse Varga, she's very thorough.",
        "The user's doctor is Dr Mensah.",
    ) == [("The user's doctor is Dr Ilse Varga.", (0,))]
    assert _new(
        "Gwen at the mill has retired. Her replacement is a lad called Owen Price.",
        "The user's contact is Gwen.",
    ) == [("The user's contact is Owen Price.", (0,))]


def test_french_spanish_german_portuguese_successors() -> None:
    assert _new(
        "Hugo a quitté l'atelier en mars. À sa place j'ai pris Inès Marchal.",
        "Apprenti de l'utilisateur : Hugo.",
    ) == [("Apprenti de l'utilisateur : Inès Marchal.", (0,))]
    assert ("Ayudante del usuario: Lucía Pardo.", (0,)) in _new(
        "Marta se ha ido a Valencia. Ahora me ayuda Lucía Pardo, por las tardes.",
        "Ayudante del usuario: Marta.",
    )
    assert _new("Lukas hat gekündigt; seit Juni arbeitet bei mir Anna.", "Geselle des Nutzers: Lukas.") == [
        ("Geselle des Nutzers: Anna.", (0,))
    ]
    assert _new(
        "O Sr. Costa saiu da empresa; agora é a Rita Neves que trata das encomendas.",
        "Contacto do usuário: Sr. Costa.",
    ) == [("Contacto do usuário: Rita Neves.", (0,))]


def test_plan_grounded_stores_the_successor_in_the_older_slot() -> None:
    pinned = [ExistingFact("8", "The user's mentor is Dana Wilde.", 0.7, 1, "relation.mentor")]
    turns = [
        SourceTurn(
            0, 1, "Dana left for a job in Oslo. Her successor is Marek Nowak, we met on Friday.", "Ok."
        )
    ]
    plan = plan_grounded([], pinned, [], lambda idx: tuple(idx), turns=turns)
    inserted = [(f.content, f.supersedes) for f in plan.facts.inserts]
    assert ("The user's mentor is Marek Nowak.", ("8",)) in inserted
    assert plan.superseded == 1


# --- what must not -------------------------------------------------------------------------------------------------


def test_an_addition_is_no_replacement() -> None:
    known = ["The user's apprentice is Tom Hardcastle."]
    assert successions(["Tom's leaving in May.", "I've also taken on Priya Shah."], known) == []
    assert successions(["Hugo a quitté l'atelier.", "J'ai pris aussi un autre apprenti, Inès."], known) == []


def test_a_holder_away_for_a_while_or_not_gone_keeps_the_role() -> None:
    known = ["The user's apprentice is Tom Hardcastle."]
    assert successions(["Tom's off for the day, so Priya Shah is covering now."], known) == []
    assert successions(["Tom hasn't left, and Priya Shah is new in the yard."], known) == []
    assert (
        successions(
            ["Marta se ha ido de vacaciones por ahora, ahora me ayuda Lucía."],
            ["Ayudante del usuario: Marta."],
        )
        == []
    )


def test_someone_elses_staff_is_not_the_users() -> None:
    known = ["The user's manager is Tom Hale."]
    assert successions(["Tom Hale left.", "My sister's new boss is Sam Reed."], known) == []


def test_a_family_relation_or_a_pet_is_no_role() -> None:
    assert role_holder("The user's sister is Ana.") is None
    assert role_holder("The user's friend is Ana.") is None
    assert successions(["Ana moved away, now Bea Lopez lives with me."], ["The user's sister is Ana."]) == []
    assert role_holder("The user's apprentice is Tom Hardcastle.") == ("apprentice", "Tom Hardcastle")


def test_a_question_or_a_hypothetical_hands_nothing_over() -> None:
    known = "The user's apprentice is Tom Hardcastle."
    assert _new("If Tom left, I'd have taken on Priya Shah.", known) == []
    assert _new("Tom's gone? Have I taken on Priya Shah?", known) == []


def test_a_place_or_a_weekday_is_no_successor() -> None:
    known = ["The user's apprentice is Tom Hardcastle."]
    assert successions(["Tom's gone to Leeds now."], known) == []
    assert successions(["Tom left on Monday, now I'm at Kendal on my own."], known) == []


def test_a_relation_fact_of_the_turn_naming_the_successor_carries_the_retirement() -> None:
    said = "Mme Guillou a pris sa retraite, mon nouveau représentant c'est Yann Morvan."
    held = GroundedFact(
        FactKind.RELATION,
        "Représentant de l'utilisateur : Yann Morvan.",
        "relation.representant",
        "Yann Morvan",
        (0,),
        0.7,
        False,
        "extractor",
        "fr",
    )
    read = revisions(
        [SourceTurn(0, 1, said, "Noté.")], [held], ["Représentante de l'utilisateur : Mme Guillou."]
    )
    assert [(r.fact, r.retired, r.is_new) for r in read if r.retired] == [(held, (0,), False)]


def test_a_noun_or_a_possessive_is_no_successors_name() -> None:
    physio = ["Physiotherapeut des Nutzers: Herr Claassen."]
    assert successions(["Herr Claassen ist in Rente, meine neue Physio ist Frau Ahlers."], physio)[
        0
    ].new_name == ("Frau Ahlers")
    lead = ["Teamleiter des Nutzers: Herr Brückner."]
    assert successions(["Und Herr Brückner ist weg, meine neue Teamleiterin heißt Frau Öztürk."], lead)[
        0
    ].text == ("Teamleiter des Nutzers: Frau Öztürk.")
    oeno = ["Œnologue conseil de l'utilisateur : Paul Ribes."]
    found = successions(
        ["Paul Ribes est parti à la retraite.", "Mon nouvel œnologue, c'est Claire Vidal."], oeno
    )
    assert [s.new_name for s in found] == ["Claire Vidal"]


def test_a_firm_is_no_successors_name() -> None:
    vet = ["The user's vet is Huw Pryce."]
    assert successions(["Huw's retired, so we're with the Llanidloes Vets now, a new practice."], vet) == []
    accountant = ["The user's accountant is Harun Mistry."]
    found = successions(
        ["Harun retired, so tax returns go to Leila Chauhan at Chauhan & Co now."], accountant
    )
    assert [s.text for s in found] == ["The user's accountant is Leila Chauhan."]


def test_a_role_said_inside_a_longer_fact_is_handed_over_in_the_relation_form() -> None:
    answer = ["The user's answer about mechanic: Aoife Brennan, she's class, does all the wheel builds."]
    found = successions(
        ["Aoife's away to Berlin in July.", "Ciarán's taking over the workshop from July."], answer
    )
    assert [s.text for s in found] == ["The user's mechanic is Ciarán."]
    plan = ["Plan: Mi ayudante es Rocío Martín, viene por las tardes, lunes a jueves."]
    found = successions(["Rocío se ha ido a Toledo.", "Ahora me ayuda Nerea Gil, las mañanas."], plan)
    assert [s.text for s in found] == ["Ayudante del usuario: Nerea Gil."]


def test_a_name_or_a_favourite_inside_a_longer_fact_is_no_role() -> None:
    named = ["My name is Tom Hale and I run the yard."]
    assert successions(["Tom Hale left.", "Now Sam Reed runs the yard."], named) == []
    liked = ["Mi favorito es Rocío Martín, por las tardes."]
    assert successions(["Rocío se ha ido.", "Ahora me ayuda Nerea Gil."], liked) == []
