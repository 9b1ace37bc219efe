"""Stale values: a row stating a corrected value is recognised; paraphrases and rows with the new value are not."""

from __future__ import annotations

from memoryd.retrieval.stale import corrections_from, states_old_value

FALCON = corrections_from([("Falcon launches on September 22", "Falcon launches on October 6")])


def test_a_row_with_the_replaced_value_and_not_the_new_one_is_stale() -> None:
    assert states_old_value("ok, so we'll launch Falcon on September 22 then", FALCON)
    assert states_old_value("[2026-03-01] Planned the Falcon launch for 22 September.", FALCON)


def test_a_row_with_the_new_value_or_without_the_old_one_is_not_stale() -> None:
    assert not states_old_value("Falcon moved from September 22 to October 6", FALCON)
    assert not states_old_value("Falcon launches on October 6", FALCON)
    assert not states_old_value("September was a busy month", FALCON)  # part of the old value only


def test_a_resolved_iso_date_in_the_facts_does_not_hide_the_old_value() -> None:
    falcon = corrections_from(
        [("Falcon launches on September 22 (2027-09-22)", "Falcon launch moves to October 6 (2027-10-06)")]
    )
    assert states_old_value("ok, so we'll launch Falcon on September 22 then", falcon)
    assert not states_old_value("Falcon launches on October 6", falcon)


def test_accents_and_case_fold_like_the_index() -> None:
    vet = corrections_from(
        [("Le vétérinaire de Pickles est à Elm Street", "Le vétérinaire de Pickles est à Riverside")]
    )
    assert states_old_value("on va chez le veterinaire d'ELM STREET mardi", vet)
    assert not states_old_value("Riverside, pas Elm Street", vet)


def test_a_rewritten_sentence_is_no_recognisable_correction() -> None:
    assert (
        corrections_from([("The user likes hiking in the Alps with friends on weekends", "Prefers tea")])
        == ()
    )
    assert corrections_from([("Same text", "Same text")]) == ()
    assert not states_old_value("anything at all", ())


def test_the_planner_leaves_stale_rows_out_of_a_section() -> None:
    from memoryd.retrieval.items import ItemKind, ItemRef, MemoryHit, Section
    from memoryd.retrieval.planner import hit_candidates

    texts = [
        "Falcon launches on September 22, put it in the plan",
        "Bad news, Falcon slipped: it launches on October 6 now",
        "The Falcon budget is 240k",
    ]
    hits = [
        MemoryHit(ItemRef(ItemKind.TRANSCRIPT_TURN, str(i)), text, score=1.0 - i / 10, occurred_at_ms=i)
        for i, text in enumerate(texts)
    ]
    kept = hit_candidates(Section.TRANSCRIPT, hits, "when does Falcon launch?")
    assert len(kept) == 3
    fresh = hit_candidates(
        Section.TRANSCRIPT, hits, "when does Falcon launch?", is_stale=lambda t: states_old_value(t, FALCON)
    )
    assert [c.ref.id for c in fresh if c.ref is not None] == ["1", "2"]


def test_a_day_said_as_an_ordinal_is_the_corrected_number() -> None:
    corrections = corrections_from(
        [
            (
                "The beta launch is on December 15 (2026-12-15).",
                "The beta launch moved to December 18 (2026-12-18).",
            )
        ]
    )
    assert states_old_value("Good luck with the beta launch on the 15th!", corrections)
    assert states_old_value("Die Beta startet am 15. Dezember.", corrections)
    assert not states_old_value("Good luck with the beta launch on the 18th!", corrections)


def test_a_value_changed_with_rewording_is_still_the_value_replaced() -> None:
    corrections = corrections_from(
        [
            (
                "The beta launch is on December 15 (2026-12-15).",
                "The beta slipped: December 18 is the new date.",
            )
        ]
    )
    assert states_old_value("Good luck with the beta on December 15!", corrections)
    assert not states_old_value("The beta is on December 18 now.", corrections)
    tools = corrections_from([("The user uses Jira to track all our bugs.", "The user chose Linear.")])
    assert states_old_value("Your Jira board looks busy.", tools)
    assert not states_old_value("Moving the Jira tickets into Linear went fine.", tools)
