"""The request's shape beyond its names (gate-v5): about the world, and whether memory holds the rest of it."""

from __future__ import annotations

import pytest

from memoryd.retrieval.evidence import SectionEvidence
from memoryd.retrieval.gate_features import QueryEvidence, compute
from memoryd.retrieval.gate_request import is_impersonal, structure_features
from memoryd.retrieval.items import IdentitySnapshot, Section
from memoryd.retrieval.terms import index_term, query_terms


def _pinned(query: str, *texts: str) -> QueryEvidence:
    """A pinned section holding `texts`, as the evidence pass measures it for `query` (rows per query term)."""
    terms = tuple(query_terms(query))
    held_terms = {index_term(t) for text in texts for t in query_terms(text)}
    df = {t: int(index_term(t) in held_terms) for t in terms}
    held = SectionEvidence(rows=len(texts), terms=terms, term_df=df)
    return QueryEvidence({Section.PINNED: held}, IdentitySnapshot(), frozenset())


def test_a_question_about_the_users_thing_keeps_its_rest_in_memory() -> None:
    query = "When does the Ledgerly beta ship?"
    f = compute(query, _pinned(query, "The Ledgerly mobile beta ships on March 14"))
    assert f["impersonal"] == 1.0
    assert f["rest_known"] == pytest.approx(1.0) and f["p_rest_known"] == pytest.approx(1.0)
    assert f["named_rest_unknown"] == pytest.approx(0.0)


def test_an_entity_trap_names_a_known_thing_and_asks_the_world() -> None:
    query = "How many people live in Durban?"
    f = compute(query, _pinned(query, "Lindiwe's home is in Umbilo, Durban"))
    assert f["named_rest_unknown"] > 0.5 and f["p_rest_known"] < 0.5
    assert f["sc_x_rest_unknown"] > 0.5  # "how many people": a general-knowledge form


def test_person_words_make_a_request_personal() -> None:
    assert not is_impersonal(["what", "did", "i", "say"], we_verb=False)
    assert not is_impersonal(["que", "decidimos"], we_verb=True)
    assert is_impersonal(["why", "do", "bridges", "have", "joints"], we_verb=False)


def test_a_request_of_names_only_has_nothing_left_unknown() -> None:
    f = structure_features(
        {"ledgerly": 1.0}, {"ledgerly"}, {"ledgerly"}, impersonal=True, self_contained=False, section_df={}
    )
    assert (f["rest_known"], f["named_rest_unknown"], f["impersonal_x_rest_unknown"]) == (1.0, 0.0, 0.0)
