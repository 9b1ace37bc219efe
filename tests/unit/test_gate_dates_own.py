"""gate-v7's two rules: a date the request gives is neither a number nor a name, and a name that exists only in
this agent's memory makes a request about memory (never ask_world), whoever asks."""

from __future__ import annotations

from memoryd.retrieval.evidence import SectionEvidence
from memoryd.retrieval.gate import fold
from memoryd.retrieval.gate_cues import names
from memoryd.retrieval.gate_dates import without_dates
from memoryd.retrieval.gate_features import FEATURE_NAMES, QueryEvidence, compute
from memoryd.retrieval.gate_own import own_names
from memoryd.retrieval.items import IdentitySnapshot, Section

EMPTY = QueryEvidence({}, IdentitySnapshot(), frozenset())


def test_the_numbers_of_a_date_are_taken_out_in_five_languages() -> None:
    for text in (
        "What painting did Melanie show on October 13, 2023?",
        "what happened in August 2023",
        "on 7 July, 2023",
        "le 3 juin 2023",
        "el 16 de junio de 2023",
        "am 1. Februar 2023",
        "em 3 de junho de 2024",
        "on 11/08/2023 or 2023-08-11",
    ):
        assert not any(ch.isdigit() for ch in without_dates(fold(text))), text
    # amounts, clock times, versions and addresses stay
    assert "14" in without_dates(fold("600 bouteilles à 14 francs"))
    assert "7:30" in without_dates(fold("am 1. Februar um 7:30"))
    assert "10.0.0.1" in without_dates(fold("update k8s v1.2 on 10.0.0.1"))


def test_a_dated_question_gives_no_inputs_and_months_are_no_names() -> None:
    f = compute("What did Maria donate to a homeless shelter on 7 July, 2023?", EMPTY)
    assert f["q_numbers"] == 0.0
    assert f["cue_number_unknown"] == 0.0
    assert f["cue_name_unknown"] == 1.0  # Maria, unknown to an empty memory; July is not a name
    assert "july" not in names("What happened on 7 July, 2023?")
    # a request carrying its inputs still counts them
    assert compute("600 bouteilles à 14 francs, ça fait combien", EMPTY)["q_numbers"] == 2 / 3


def _transcript(rows: int, df: dict[str, int]) -> QueryEvidence:
    section = SectionEvidence(rows=rows, terms=tuple(df), term_df=df)
    return QueryEvidence({Section.TRANSCRIPT: section}, IdentitySnapshot(), frozenset())


def test_own_names_rare_or_what_memory_is_about() -> None:
    sections = {"t": (40, {"ledgerly": 2, "caroline": 25, "lisbon": 2, "paris": 30})}
    # rare in general language and held: own; common name held by most rows: own; a city in two rows: public
    assert own_names(["ledgerly", "caroline", "lisbon"], {}, sections, ()) == ["ledgerly", "caroline"]
    # a city memory is about is memory's (the share rule does not ask what kind of name it is)
    assert own_names(["paris"], {}, sections, ()) == ["paris"]
    # a rare name one row mentions (an acronym, a small place) is not enough (gate-v8); two rows are
    assert own_names(["kumasi"], {}, {"t": (40, {"kumasi": 1})}, ()) == []
    assert own_names(["kumasi"], {}, {"t": (40, {"kumasi": 2})}, ()) == ["kumasi"]
    # a name memory does not hold is never its own, however rare
    assert own_names(["boerboel"], {}, sections, ()) == []
    # a name in the identity counts as held
    assert own_names(["zorblat"], {}, {}, ("zorblat",)) == ["zorblat"]
    # few rows: a share alone is not enough
    assert own_names(["caroline"], {}, {"p": (2, {"caroline": 2})}, ()) == []


def test_a_question_about_memorys_own_person_is_never_about_the_world() -> None:
    assert "own_name" in FEATURE_NAMES
    query = "What do Jon and Gina both have in common?"
    about_them = compute(query, _transcript(100, {"jon": 50, "gina": 52, "common": 3}))
    assert about_them["own_name"] == 1.0 and about_them["ask_world"] == 0.0
    # the same frame naming a public city memory mentions twice stays a world question
    world = compute("What is the population of Lisbon?", _transcript(100, {"lisbon": 2, "population": 0}))
    assert world["own_name"] == 0.0 and world["ask_world"] == 1.0
