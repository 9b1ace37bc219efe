"""gate-v9's open-slot frames (gate_slots.py) and the place rule's identity-first order."""

from __future__ import annotations

import re

import pytest

from memoryd.retrieval.evidence import SectionEvidence
from memoryd.retrieval.gate import fold
from memoryd.retrieval.gate_evidence import decide_evidence
from memoryd.retrieval.gate_features import FEATURE_NAMES, GATE_V9_FEATURES, QueryEvidence, compute
from memoryd.retrieval.gate_model import CLASSES, GateModel
from memoryd.retrieval.gate_slots import identity_place, slot_features
from memoryd.retrieval.items import IdentityFact, IdentitySnapshot, Section


def _slots(query: str, *, names_own: bool = False, facts: tuple[str, ...] = ()) -> dict[str, float]:
    folded = fold(query)
    return slot_features(folded, re.findall(r"\w+", folded), {}, names_own=names_own, identity_facts=facts)


@pytest.mark.parametrize(
    "query",
    [
        "Is kidney disease common in older cats generally?",
        "how fast can a greyhound actually run",
        "cuánto vive un loro",
        "Quais são as principais atrações do Chiado?",
        "Le parc Borély, c'est ouvert jusqu'à quelle heure en général ?",
        "Wie lange fährt man mit dem Zug von Zürich nach Graz?",
        "how far is it from Hilo to Kona?",
    ],
)
def test_questions_about_the_world_are_generic(query: str) -> None:
    assert _slots(query)["ask_generic"] == 1.0


@pytest.mark.parametrize(
    "query",
    [
        "when does the beta ship?",
        "is my flight usually on time?",  # a first person: about the asker
        "When did Caroline go to the support group?",
        "what should I cook tonight?",
        "¿Cuándo nos vamos a Lisboa?",
    ],
)
def test_questions_about_the_asker_are_not(query: str) -> None:
    assert _slots(query)["ask_generic"] == 0.0


def test_a_name_only_memory_holds_is_never_generic() -> None:
    assert _slots("is Ledgerly usually open on Sundays?", names_own=True)["ask_generic"] == 0.0


def test_german_im_is_not_a_first_person() -> None:
    assert _slots("Wie hoch ist der Ochsenkopf im Fichtelgebirge normalerweise?")["ask_generic"] == 1.0


@pytest.mark.parametrize(
    ("query", "frame"),
    [
        ("Dame una consulta SQL que cuente pedidos por país", "task_given"),
        ("translate 'my dog is hungry' into French", "task_given"),
        ("« bien à vous » en néerlandais ?", "task_given"),
        ("what was the exact name you gave me", "ask_said"),
        ("the link I pasted yesterday", "ask_said"),
        ("¿qué era lo que me dijiste pa dormir?", "ask_said"),
        ("Was hast du mir gesagt wegen der Orgel?", "ask_said"),
        ("what did we decide about the venue?", "ask_decided"),
        ("Qu'est-ce qu'on a décidé pour Karim ?", "ask_decided"),
        ("¿en qué quedamos con el casero?", "ask_decided"),
        ("wo wohne ich eigentlich?", "ask_id_slot"),
        ("¿En qué colonia vivo?", "ask_id_slot"),
        ("write my linkedin headline", "ask_id_slot"),
        ("como eu me chamo?", "ask_id_slot"),
    ],
)
def test_the_slot_frames_fire(query: str, frame: str) -> None:
    assert _slots(query)[frame] == 1.0


def test_an_apostrophe_is_not_a_quotation() -> None:
    assert _slots("Le parc, c'est ouvert jusqu'à quelle heure ?")["task_given"] == 0.0


def test_identity_place() -> None:
    assert identity_place(["Works as a physiotherapist in Bergen"])
    assert not identity_place(["Works as a physiotherapist", "Is 34 years old"])


def test_the_read_path_computes_the_slot_features() -> None:
    assert set(GATE_V9_FEATURES) <= set(FEATURE_NAMES)
    pinned = SectionEvidence(rows=3, terms=("name",), cosine_top=0.3, cosine_mean3=0.3, cosine_gap=0.1)
    identity = IdentitySnapshot(facts=(IdentityFact(id="1", text="Works as a physiotherapist in Bergen"),))
    f = compute("what's my name?", QueryEvidence({Section.PINNED: pinned}, identity, frozenset()))
    assert f["ask_id_slot"] == 1.0 and f["id_place"] == 1.0 and f["id_slot_x_id_has"] == 1.0
    assert f["ask_generic"] == 0.0


def _always(section: Section) -> GateModel:
    names = ("q_terms",)
    bias = [5.0 if c is section else 0.0 for c in CLASSES]
    return GateModel("test", names, (0.0,), (1.0,), tuple((0.0,) for _ in CLASSES), tuple(bias), 0.5, 0.1)


def test_a_place_dependent_request_takes_the_identity_place_first() -> None:
    query = "any good neighbourhoods for a weekend walk near me?"
    every = {"e_has": 1.0, "p_has": 1.0, "id_has": 1.0, "id_place": 1.0}
    decision = decide_evidence(query, every, _always(Section.PINNED), frozenset())
    assert decision.section is Section.IDENTITY and decision.ranked[:2] == (Section.IDENTITY, Section.PINNED)
    # the identity holds no place: the model's choice stands; not place-dependent: the model's choice stands
    assert decide_evidence(
        query, {**every, "id_place": 0.0}, _always(Section.PINNED), frozenset()
    ).section is (Section.PINNED)
    assert (
        decide_evidence("snack ideas?", every, _always(Section.PINNED), frozenset()).section is Section.PINNED
    )
