"""Retiring rules held to the structure of what they retire (issue #22, distill36): leaving an institution retires
the affiliation, not the profession the same older fact states; the right supersession still happens."""

from __future__ import annotations

from memoryd.write.grounding import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.kin import names_a_parent
from memoryd.write.grounding.negated import profession_kept
from memoryd.write.grounding.recurring import keeps_one_off
from memoryd.write.grounding.revisions import revisions
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import plan_grounded

UNIVERSITY = "The user is a marine biologist at the university in Hilo."


def _read(said: str, known: list[str]) -> tuple[set[int], list[str]]:
    read = revisions([SourceTurn(0, 1, said, "Noted.")], [], known)
    return {i for r in read for i in r.retired}, [
        r.fact.text for r in read if r.fact is not None and r.is_new
    ]


def test_leaving_the_institution_keeps_the_profession() -> None:
    retired, new = _read("And I've left the university.", [UNIVERSITY])
    assert retired == {0}
    assert "The user is a marine biologist." in new
    retired, new = _read(
        "Autre chose : j'ai quitté Kerhervé.", ["L'utilisateur est menuisier chez Kerhervé."]
    )
    assert retired == {0}
    assert "L'utilisateur est menuisier." in new


def test_a_state_naming_the_role_keeps_nothing() -> None:
    solicitor = "The user is a second-year trainee solicitor at Pembury Lowe in Birmingham."
    assert profession_kept("So I'm no longer a trainee from November.", solicitor) == ""
    retired, new = _read("So I'm no longer a trainee from November.", [solicitor])
    assert retired == {0}
    assert not [t for t in new if "solicitor" in t]


def test_a_workplace_without_a_profession_goes_whole() -> None:
    assert (
        profession_kept("I've also quit the call centre completely.", "The user works at a call centre.")
        == ""
    )
    assert profession_kept("I left my keys at the club.", UNIVERSITY) == ""


def _relation(text: str, slot: str, value: str) -> GroundedFact:
    return GroundedFact(FactKind.RELATION, text, slot, value, (0,), 0.8, False)


def test_a_second_holder_of_a_relation_replaces_no_one() -> None:
    pool = [
        ExistingFact("1", "The user's supervisor is Helena Marsh.", 0.7, 1, "relation.manager"),
        ExistingFact(
            "2", "The user's answer about next task: Send Helena the chapter four draft.", 0.7, 1, ""
        ),
    ]
    second = _relation(
        "The user's second supervisor is Dr Orla Ellery.", "relation.second_manager", "Orla Ellery"
    )
    plan = plan_grounded([second], pool, [], lambda t: tuple(t))
    assert plan.facts.inserts[0].supersedes == ()
    # A qualified name of the same one relation still replaces it ("my thesis adviser" after "my adviser").
    adviser = _relation("The user's thesis adviser is Professor Okafor.", "relation.thesis_adviser", "Okafor")
    one = [ExistingFact("4", "The user's adviser is Professor Lind.", 0.7, 1, "relation.adviser")]
    assert plan_grounded([adviser], one, [], lambda t: tuple(t)).facts.inserts[0].supersedes == ("4",)
    # A plain new supervisor replaces the first.
    plain = _relation("The user's supervisor is Dr Orla Ellery.", "relation.manager", "Orla Ellery")
    assert "1" in plan_grounded([plain], pool, [], lambda t: tuple(t)).facts.inserts[0].supersedes


PAIRS = "The club's spring pairs competition is on 25 April. (2026-04-25)"


def test_a_new_weekly_schedule_keeps_a_one_off_dated_event() -> None:
    assert keeps_one_off(PAIRS, "The club has changed my nights, it's Mondays and Thursdays now.")
    retired, _new = _read("The club has changed my nights, it's Mondays and Thursdays now.", [PAIRS])
    assert retired == set()
    exam = "The user is sitting the Pilates instructor exam on 9 March (2026-03-09)."
    assert keeps_one_off(exam, "Now I'm starting clinical Pilates classes, Wednesday evenings from April.")


def test_a_new_day_of_the_year_still_moves_the_event() -> None:
    assert not keeps_one_off(PAIRS, "The pairs competition has moved to 2 May now.")
    assert not keeps_one_off("The dentist is on 3 March.", "The dentist moved to next Tuesday.")
    retired, _new = _read("The spring pairs competition has been moved to 2 May.", [PAIRS])
    assert retired == {0}


def test_a_new_job_in_the_same_turn_replaces_the_profession_too() -> None:
    said = "I've left Halden Build, I started last week as a project manager at Birmingham City Council."
    job = GroundedFact(
        FactKind.IDENTITY,
        "The user is a project manager at Birmingham City Council.",
        "identity.role",
        "project manager",
        (0,),
        0.8,
        True,
    )
    read = revisions(
        [SourceTurn(0, 1, said, "Congrats.")], [job], ["The user is a quantity surveyor at Halden Build."]
    )
    assert {i for r in read for i in r.retired} == {0}
    assert not [r for r in read if r.fact is not None and "surveyor" in r.fact.text]


def test_a_move_ends_the_place_not_the_trade() -> None:
    said = "Grosse nouvelle : je quitte Mirecourt, je m'installe à Nancy, dans un atelier rue des Maréchaux."
    retired, new = _read(said, ["L'utilisateur est luthier à Mirecourt."])
    assert retired == {0}
    assert "L'utilisateur est luthier." in new
    # Naming the role in the change keeps nothing of the old wording: the sentence states the job anew.
    retired, new = _read(
        "I'm a senior surveyor at Halden now, I've moved to Leeds.", ["The user is a surveyor at Halden."]
    )
    assert "The user is a surveyor." not in new


def _instruction(text: str) -> GroundedFact:
    return GroundedFact(FactKind.INSTRUCTION, text, "instruction.citation", "", (0,), 0.8, False)


def test_an_instruction_to_keep_doing_something_adds_to_it() -> None:
    old = ExistingFact(
        "1",
        "Standing instruction from the user: when you explain legal stuff, cite the actual statute or case name.",
        0.7,
        1,
        "instruction.citation",
    )
    keep = _instruction(
        "Standing instruction from the user: keep citing cases, but add a one-line plain English summary at the top."
    )
    assert plan_grounded([keep], [old], [], lambda t: tuple(t)).facts.inserts[0].supersedes == ()
    # An instruction that says something else in the slot still replaces it.
    other = _instruction("Standing instruction from the user: don't bother with case names, keep it plain.")
    assert plan_grounded([other], [old], [], lambda t: tuple(t)).facts.inserts[0].supersedes == ("1",)


def test_a_task_of_the_holder_who_stays_is_kept() -> None:
    pool = [
        ExistingFact(
            "1",
            "The user's primary supervisor is Prof. Helena Varga, second is Dr Kwesi Mensah.",
            0.7,
            1,
            "relation.second_manager",
        ),
        ExistingFact("2", "The user needs to send Helena the chapter four draft by 13 February.", 0.7, 1, ""),
        ExistingFact("3", "The user needs to send Kwesi the corpus notes by Friday.", 0.7, 1, ""),
    ]
    new = GroundedFact(
        FactKind.RELATION,
        "The user's second supervisor is Dr Orla Ellery.",
        "relation.second_manager",
        "Orla Ellery",
        (0,),
        0.8,
        False,
        replaces=(("person", "Kwesi"),),
    )
    retired = set(plan_grounded([new], pool, [], lambda t: tuple(t)).facts.inserts[0].supersedes)
    assert "2" not in retired
    assert {"1", "3"} <= retired


def test_a_parent_who_moved_is_still_the_parent() -> None:
    said = "Papa ist umgezogen, er wohnt jetzt in einer betreuten Wohnanlage in Kassel-Wilhelmshöhe, ganz nah bei mir."
    known = ["Vater des Nutzers: Horst.", "Der Vater des Nutzers wohnt allein in Baunatal."]
    retired, _new = _read(said, known)
    assert retired == {1}
    assert names_a_parent("The user's father is Horst.")
    assert not names_a_parent("The user's manager is Tomás.")


def test_a_parent_who_moved_is_stored_as_news_when_nothing_else_is_retired() -> None:
    said = "Papa ist umgezogen, er wohnt jetzt in einer betreuten Wohnanlage in Kassel-Wilhelmshöhe, ganz nah bei mir."
    retired, new = _read(said, ["Vater des Nutzers: Horst."])
    assert retired == set()
    assert any("Kassel-Wilhelmshöhe" in t for t in new)
