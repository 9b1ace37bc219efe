"""The gate's fitting data: relabelling for agents with sections missing, timed-out vectors, and the cue parsers."""

from __future__ import annotations

from bench.gate_fitdata import compose, only_identity, relabel, without_identity, without_vectors
from memoryd.retrieval.evidence import SectionEvidence
from memoryd.retrieval.gate_cues import dates, names, numbers
from memoryd.retrieval.gate_features import QueryEvidence, compute
from memoryd.retrieval.items import IdentityFact, IdentitySnapshot, Section


def test_a_kept_section_keeps_its_label() -> None:
    assert relabel("pinned", ["episodes"], ["en1.p3", "en1.e1"], ["transcript"]) == ("pinned", ("episodes",))


def test_a_removed_section_falls_to_an_acceptable_one_holding_an_answer() -> None:
    assert relabel("pinned", ["episodes", "transcript"], ["en1.p3", "en1.e1"], ["pinned"]) == ("episodes", ())
    # "transcript" was acceptable but holds no answer item of this query: not a right answer any more.
    assert relabel("episodes", ["transcript"], ["en1.e2"], ["episodes"]) == ("none", ())


def test_memory_that_cannot_answer_is_none() -> None:
    assert relabel("identity", [], ["en1.i1"], ["identity", "pinned", "episodes"]) == ("none", ())
    assert relabel("none", [], [], ["pinned"]) == ("none", ())


def test_timed_out_vectors_keep_the_keyword_evidence() -> None:
    held = SectionEvidence(rows=3, terms=("pump",), term_df={"pump": 1}, coverage_top=1.0, cosine_top=0.7,
                           cosine_mean3=0.5, cosine_gap=0.3)  # fmt: skip
    evidence = QueryEvidence({Section.TRANSCRIPT: held}, IdentitySnapshot(), frozenset(), identity_cosine=0.4)
    stripped = without_vectors(evidence)
    f = compute("is the pump fixed?", stripped)
    assert (f["vec_on"], f["t_cos"], f["id_vec"]) == (0.0, 0.0, 0.0)
    assert f["t_cov"] == 1.0 and f["t_known"] == compute("is the pump fixed?", evidence)["t_known"]


def test_cue_parsers() -> None:
    assert names("Wann fahren Anja und ich nach Rügen?") == ["anja", "rugen"]
    # Titles are no names, a sentence's first word is none, one-letter pieces ("'s") are dropped.
    assert names("ask Mrs Duncan's son. Then Marta") == ["duncan", "marta"]
    assert numbers("leave at 06:10 on the 3rd") == ["06", "10", "3"]
    assert dates(["on", "vendredi", "ou", "samstag"]) == ["vendredi", "samstag"]


def test_an_agent_without_identity_keeps_its_sections() -> None:
    held = SectionEvidence(rows=2, terms=("lisbon",), term_df={"lisbon": 1}, coverage_top=1.0, cosine_top=0.6)
    identity = IdentitySnapshot(facts=(IdentityFact("1", "Lives in Lisbon"),))
    evidence = QueryEvidence({Section.PINNED: held}, identity, frozenset(), identity_cosine=0.5)
    f = compute("which Lisbon tram?", without_identity(evidence))
    assert (f["id_has"], f["id_cov"], f["id_vec"]) == (0.0, 0.0, 0.0)
    assert f["p_cov"] == 1.0 and f["p_cos"] == 0.6


def test_an_agent_with_identity_alone_has_empty_sections_and_no_entities() -> None:
    held = SectionEvidence(rows=2, terms=("lisbon",), term_df={"lisbon": 1}, coverage_top=1.0, cosine_top=0.6)
    identity = IdentitySnapshot(facts=(IdentityFact("1", "Lives in Lisbon"),))
    evidence = QueryEvidence({Section.PINNED: held}, identity, frozenset({"lisbon"}), identity_cosine=0.5)
    alone = only_identity(evidence)
    assert alone.entities == frozenset() and alone.identity == identity
    f = compute("which Lisbon tram?", alone)
    assert (f["p_has"], f["p_cov"], f["id_has"]) == (0.0, 0.0, 1.0)
    assert relabel("pinned", ["identity"], ["en1.p2", "en1.i1"], ["pinned", "episodes", "transcript"]) == (
        "identity",
        (),
    )


def test_a_pinned_subset_without_the_answer_fact_falls_through() -> None:
    # The subset holds the answer fact: still pinned.
    assert relabel("pinned", [], ["en1.p3"], ["episodes"], kept_pinned=["en1.p3"]) == ("pinned", ())
    # It does not: the acceptable transcript turn answers, else nothing does.
    assert relabel("pinned", ["transcript"], ["en1.p3", "en1.t2"], [], kept_pinned=["en1.p1"]) == (
        "transcript",
        (),
    )
    assert relabel("pinned", [], ["en1.p3"], ["transcript"], kept_pinned=["en1.p1"]) == ("none", ())
    # An episode question keeps its label whatever pinned facts are kept.
    assert relabel("episodes", ["pinned"], ["en1.e1", "en1.p3"], [], kept_pinned=["en1.p1"]) == (
        "episodes",
        (),
    )


def test_a_composed_agent_keeps_only_its_sections() -> None:
    pinned = SectionEvidence(rows=2, terms=("beta",), term_df={"beta": 1}, coverage_top=1.0, cosine_top=0.7)
    turns = SectionEvidence(rows=9, terms=("beta",), term_df={"beta": 3}, coverage_top=0.5, cosine_top=0.4)
    few = SectionEvidence(rows=1, terms=("beta",), term_df={"beta": 1}, coverage_top=1.0, cosine_top=0.8)
    identity = IdentitySnapshot(facts=(IdentityFact("1", "Works on the beta"),))
    full = QueryEvidence(
        {Section.PINNED: pinned, Section.TRANSCRIPT: turns}, identity, frozenset({"beta"}), 0.5
    )
    alone = compose(full, ("transcript",), frozenset())
    assert alone.sections[Section.PINNED] == SectionEvidence(terms=("beta",))
    assert alone.sections[Section.TRANSCRIPT] == turns
    assert (alone.identity, alone.identity_cosine) == (IdentitySnapshot(), None)
    with_few = compose(
        full,
        ("identity",),
        frozenset(),
        pinned_from=QueryEvidence({Section.PINNED: few}, identity, frozenset()),
    )
    assert with_few.sections[Section.PINNED] == few and with_few.identity == identity
    assert with_few.sections[Section.TRANSCRIPT] == SectionEvidence(terms=("beta",))
