"""bench/distill_scoring.py: the matcher, the item checks and the per-agent figures of the distillation benchmark."""

from __future__ import annotations

import json

import pytest

from bench import distill_scoring as ds


def _session(**over: object) -> ds.Session:
    row: dict[str, object] = {
        "id": "u-1",
        "split": "dev",
        "agent_id": "u",
        "lang": "en",
        "date": "2026-01-01",
        "turns": [{"user": "I live in Seattle", "assistant": "ok"}],
        "facts": [{"id": "u-1-city", "about": "identity", "match": [["seattle"]]}],
        "allowed": [{"match": [["coffee"]]}],
        "supersedes": [],
        "must_not": [{"why": "assistant_guess", "match": [["senior"]]}],
    }
    row.update(over)
    return ds.parse_session(row)


def _item(kind: str, text: str, *, active: bool = True, row: str = "1", at_ms: int = 0) -> ds.StoredItem:
    return ds.StoredItem(kind, row, "u", text, active, at_ms, f"c{row}")


# ------------------------------------------------------------------------------------------------------ matcher
def test_fold_strips_accents_and_case() -> None:
    assert ds.fold("Lucía FERNÁNDEZ, Théo") == "lucia fernandez, theo"


def test_every_group_must_match_and_any_word_in_a_group() -> None:
    groups = [["offsite"], ["april 23", "23 april"]]
    assert ds.matches(groups, "Team offsite moved to 23 April in Vancouver")
    assert not ds.matches(groups, "Team offsite on April 9")
    assert not ds.matches(groups, "Something on April 23")


def test_match_is_accent_and_case_insensitive_both_ways() -> None:
    assert ds.matches([["vegetarien"]], "Camille est VÉGÉTARIENNE")
    assert ds.matches([["Lisbonne"]], "voyage à lisbonne")


def test_patterns_start_at_a_word_start() -> None:
    assert ds.matches([["gram"]], "quantities in grams")
    assert not ds.matches([["gram"]], "a programme of study")


def test_short_patterns_match_whole_words_only() -> None:
    assert ds.matches([["oz"]], "Call him Oz, please")
    assert not ds.matches([["oz"]], "an ozone layer")
    assert not ds.matches([["41"]], "born in 1941")
    assert ds.matches([["41"]], "Marcus is 41")


def test_secret_patterns_also_match_without_whitespace() -> None:
    groups = [["0002 0123"]]
    assert ds.matches(groups, "IBAN PT50000201231234", secret=True)
    assert not ds.matches(groups, "IBAN PT50000201231234")


def test_empty_match_never_matches() -> None:
    assert not ds.matches([], "anything")


# ------------------------------------------------------------------------------------------------ item checks
def test_scaffolding_header_is_detected() -> None:
    assert ds.copied_scaffolding("Recent past sessions (for cross-session continuity): the user") is not None
    assert ds.copied_scaffolding("Conversation date : 2026 - 03 - 08") is not None
    assert ds.copied_scaffolding("The user chose PostgreSQL for the service.") is None


def test_copied_span_needs_eight_words_of_an_earlier_summary() -> None:
    earlier = ["The user discussed choosing PostgreSQL over MongoDB for the new tracking service today"]
    assert ds.copied_span("Again: choosing PostgreSQL over MongoDB for the new tracking service", earlier)
    assert not ds.copied_span("The user chose PostgreSQL over MongoDB", earlier)


def test_looping_is_a_repeated_word_four_gram() -> None:
    assert ds.is_looping("I'm a 12-year-old. I'm 12 years old. I'm 12 years old.")
    assert not ds.is_looping("The user is an adult backend engineer living in Seattle.")


def test_percentile_nearest_rank() -> None:
    assert ds.percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5) == 3.0
    assert ds.percentile([1.0, 2.0, 3.0, 4.0, 100.0], 0.95) == 100.0
    assert ds.percentile([], 0.5) is None


# ------------------------------------------------------------------------------------------------------ scoring
def test_precision_recall_and_must_not() -> None:
    session = _session()
    items = [
        _item(ds.PINNED, "The user lives in Seattle"),
        _item(ds.PINNED, "The user is a senior engineer", row="2"),
        _item(ds.PINNED, "The user likes hiking", row="3"),
        _item(ds.PINNED, "The user lives in Seattle and drinks coffee", row="4", active=False),
        _item(ds.SUMMARY, "Small talk about coffee", row="5"),
    ]
    score = ds.score_agent("u", [session], items)
    totals = ds.totals([score])
    # Pool: the three active pinned facts; only the first is labelled true (the second is a must_not).
    assert (totals.precision_items, totals.precision_true, totals.precision_wrong) == (3, 1, 1)
    assert totals.precision_strict == pytest.approx(1 / 3)
    assert totals.precision_lenient == pytest.approx(1 / 2)
    assert score.recall == {"u-1-city": ["pinned_fact:1"]}
    assert totals.recall == 1.0
    assert totals.must_not["assistant_guess"] == (1, 1)


def test_recall_counts_decisions_on_episodes_but_not_summaries() -> None:
    session = _session(facts=[{"id": "u-1-db", "about": "decision", "match": [["postgres"]]}], must_not=[])
    only_summary = ds.score_agent("u", [session], [_item(ds.SUMMARY, "We chose PostgreSQL")])
    assert ds.totals([only_summary]).recall == 0.0
    decision = ds.score_agent("u", [session], [_item(ds.DECISION, "Use PostgreSQL")])
    assert ds.totals([decision]).recall == 1.0


def test_supersession_needs_stale_gone_and_replacement_active() -> None:
    first, second, _ = _city_chain()[0]
    stale_kept = [_item(ds.PINNED, "Lives in Seattle"), _item(ds.PINNED, "Lives in Portland", row="2")]
    fixed = [
        _item(ds.PINNED, "Lives in Seattle", active=False),
        _item(ds.PINNED, "Lives in Portland", row="2"),
    ]
    mention = [_item(ds.PINNED, "Moved from Seattle to Portland")]
    lost = [_item(ds.PINNED, "Lives in Seattle", active=False)]
    results = {}
    for name, items in {"stale_kept": stale_kept, "fixed": fixed, "mention": mention, "lost": lost}.items():
        results[name] = ds.totals([ds.score_agent("u", [first, second], items)]).supersession
    assert results == {"stale_kept": 0.0, "fixed": 1.0, "mention": 1.0, "lost": 0.0}
    # An item the correcting session labels true ("left Seattle") is not the stale fact lingering.
    second_with_allowed = _session(
        id="u-2",
        date="2026-02-01",
        facts=[{"id": "u-2-city", "about": "identity", "match": [["portland"]]}],
        supersedes=[{"stale_fact": "u-1-city", "by": "u-2-city"}],
        must_not=[],
        allowed=[{"match": [["seattle"], ["left"]]}],
    )
    left = [_item(ds.PINNED, "Left Seattle last week"), _item(ds.PINNED, "Lives in Portland", row="2")]
    assert ds.totals([ds.score_agent("u", [first, second_with_allowed], left)]).supersession == 1.0
    assert ds.totals([ds.score_agent("u", [first, second], left)]).supersession == 0.0
    # The stale fact is out of the recall denominator: only u-2-city counts.
    assert set(ds.score_agent("u", [first, second], fixed).recall) == {"u-2-city"}


def test_copy_check_only_looks_at_earlier_episodes() -> None:
    summary = "The user talked about the kitchen renovation budget and the electrician visit next week"
    items = [
        _item(ds.SUMMARY, summary, row="1", at_ms=1000),
        _item(
            ds.PINNED,
            "the kitchen renovation budget and the electrician visit next week",
            row="2",
            at_ms=1000,
        ),
        _item(ds.SUMMARY, "Again " + summary, row="3", at_ms=2000),
    ]
    verdicts = {v.item.row_id: v for v in ds.score_agent("u", [_session()], items).verdicts}
    assert not verdicts["2"].copied_summary  # same session as the summary it shares words with
    assert verdicts["3"].copied_summary


def test_secret_must_not_catches_a_spaced_iban() -> None:
    session = _session(must_not=[{"why": "secret", "match": [["gb29", "nwbk", "13319268"]]}])
    items = [_item(ds.SUMMARY, "Pay to GB29 NWBK 6016 1331 9268 19")]
    assert ds.totals([ds.score_agent("u", [session], items)]).must_not["secret"] == (1, 1)


def test_the_frozen_set_loads_and_is_split_by_agent() -> None:
    sessions = ds.load_set(split="all")
    assert len(sessions) >= 48
    splits: dict[str, set[str]] = {}
    for s in sessions:
        splits.setdefault(s.agent_id, set()).add(s.split)
    assert all(len(v) == 1 for v in splits.values())
    ids = [f.id for s in sessions for f in s.facts]
    assert len(ids) == len(set(ids))
    known = {f.id: s for s in sessions for f in s.facts}
    for s in sessions:
        for sp in s.supersedes:
            assert known[sp.stale].agent_id == s.agent_id and known[sp.stale].date < s.date
            assert sp.by in {f.id for f in s.facts}


def test_every_pattern_in_the_set_is_folded() -> None:
    raw = [json.loads(line) for line in ds.SET_PATH.read_text("utf-8").splitlines()]
    for row in raw:
        for block in ("facts", "allowed", "must_not"):
            for entry in row[block]:
                for group in entry["match"]:
                    assert all(ds.fold(word) == word for word in group), row["id"]


def test_export_records_become_items_with_their_state() -> None:
    from bench.bench_distill import items_from_export

    records = [
        {"type": "header", "format": "osaurus-memory-export", "version": 1},
        {"type": "identity", "content": "The user is a nurse.", "overrides": []},
        {
            "type": "episode",
            "id": 7,
            "agent_id": "u",
            "conversation_id": "u-1",
            "summary": "Chose PostgreSQL.",
            "decisions": "Use PostgreSQL\nUse PgBouncer",
            "action_items": "",
            "entities_csv": "PostgreSQL,PgBouncer",
            "status": "active",
            "conversation_at_ms": 5,
        },
        {
            "type": "pinned_fact",
            "id": 1,
            "agent_id": "u",
            "content": "Lives in Seattle",
            "status": "active",
            "source_episode_id": 7,
            "superseded_by": 2,
        },
        {
            "type": "pinned_fact",
            "id": 2,
            "agent_id": "u",
            "content": "Lives in Portland",
            "status": "active",
            "source_episode_id": 7,
        },
        {"type": "identity_fact", "id": 3, "agent_id": "u", "content": "Is 29", "status": "disabled"},
        {"type": "end", "counts": {}},
    ]
    items, episodes = items_from_export([json.dumps(r) for r in records])
    got = sorted((i.kind, i.text, i.active, i.session_at_ms) for i in items)
    assert got == [
        (ds.DECISION, "Use PgBouncer", True, 5),
        (ds.DECISION, "Use PostgreSQL", True, 5),
        (ds.ENTITY, "PgBouncer", True, 5),
        (ds.ENTITY, "PostgreSQL", True, 5),
        (ds.SUMMARY, "Chose PostgreSQL.", True, 5),
        (ds.IDENTITY_FACT, "Is 29", False, 0),
        (ds.NARRATIVE, "The user is a nurse.", True, 0),
        (ds.PINNED, "Lives in Portland", True, 5),
        (ds.PINNED, "Lives in Seattle", False, 5),
    ]
    assert [e["id"] for e in episodes] == [7]


def _city_chain() -> tuple[list[ds.Session], list[ds.StoredItem]]:
    """Seattle -> Portland -> Denver over three sessions, and the items of a run that retired both older cities."""
    first = _session(must_not=[], allowed=[])
    second = _session(
        id="u-2",
        date="2026-02-01",
        facts=[{"id": "u-2-city", "about": "identity", "match": [["portland"]]}],
        supersedes=[{"stale_fact": "u-1-city", "by": "u-2-city"}],
        must_not=[],
        allowed=[],
    )
    third = _session(
        id="u-3",
        date="2026-03-01",
        facts=[{"id": "u-3-city", "about": "identity", "match": [["denver"]]}],
        supersedes=[{"stale_fact": "u-2-city", "by": "u-3-city"}],
        must_not=[],
        allowed=[],
    )
    chain = [
        _item(ds.PINNED, "Lives in Seattle", active=False),
        _item(ds.PINNED, "Lives in Portland", row="2", active=False),
        _item(ds.PINNED, "Lives in Denver", row="3"),
    ]
    return [first, second, third], chain


def test_a_replacement_replaced_in_turn_counts_when_it_was_stored() -> None:
    sessions, chain = _city_chain()
    first, second, third = sessions
    score = ds.score_agent("u", [first, second, third], chain)
    assert score.supersession == {
        ("u-1-city", "u-2-city"): (False, True),
        ("u-2-city", "u-3-city"): (False, True),
    }
    # Portland never stored: the first pair is missed; Seattle left active: missed too.
    never = [chain[0], chain[2]]
    assert ds.score_agent("u", [first, second, third], never).supersession[("u-1-city", "u-2-city")] == (
        False,
        False,
    )
    kept = [_item(ds.PINNED, "Lives in Seattle"), *chain[1:]]
    assert ds.score_agent("u", [first, second, third], kept).supersession[("u-1-city", "u-2-city")][0] is True
    # An end replacement still has to be active.
    assert ds.score_agent("u", [first, second], chain[:2]).supersession[("u-1-city", "u-2-city")] == (
        False,
        False,
    )


def test_the_figure_before_the_chain_rule_is_kept_for_comparison() -> None:
    sessions, chain = _city_chain()
    first, second, third = sessions
    totals = ds.totals([ds.score_agent("u", [first, second, third], chain)])
    assert (totals.stale_ok, totals.stale_ok_before_chain_rule, totals.stale) == (2, 1, 2)


def test_a_run_the_user_says_again_in_the_items_own_session_is_not_copied() -> None:
    """distill32: "copied" means text from the prompt (an earlier episode), not the user re-saying a fact; the frame
    words of the memory ("Décision de l'utilisateur :") and short function words are not the user's to say."""
    earlier = ["Décision de l'utilisateur : J'ai décidé de passer le domaine en bio avec Ecocert."]
    restated = (
        "Décision de l'utilisateur : j'ai décidé de vendre une partie en vrac au négociant cette année."
    )
    own = ["Et j'ai décidé de vendre une partie en vrac au négociant cette année, pour compenser le gel."]
    assert ds.copied_span(restated, earlier)  # the rule before: any shared 8-word run
    assert not ds.copied_span(restated, earlier, own_turns=own)
    # A sentence of an earlier episode the user did not say in this session is still copied, in any inflection.
    first = ["The user is Hamish, the user runs a wee gin distillery in Dunoon, just him."]
    later = "The user runs a wee gin distillery in Inveraray."
    assert ds.copied_span(later, first, own_turns=["We're opening a tasting room in Inveraray, not Dunoon."])
    assert not ds.copied_span(later, first, own_turns=["As you know I run a wee gin distillery in Dunoon."])
    assert ds.copied_span(later, first, own_turns=[])  # no session known: every shared run counts


def test_the_copy_verdict_reads_the_items_own_session_and_keeps_the_old_count() -> None:
    first = _session(id="u-1", date="2026-01-01", turns=[{"user": "We chose PostgreSQL.", "assistant": "ok"}])
    second = _session(
        id="u-2",
        date="2026-02-01",
        turns=[
            {
                "user": "Reminder: we chose PostgreSQL over MongoDB for the new tracking service.",
                "assistant": "ok",
            }
        ],
        facts=[],
    )
    summary = "The user chose PostgreSQL over MongoDB for the new tracking service today"
    items = [
        ds.StoredItem(ds.SUMMARY, "1", "u", summary, True, 1000, "u-1"),
        ds.StoredItem(
            ds.PINNED,
            "2",
            "u",
            "We chose PostgreSQL over MongoDB for the new tracking service.",
            True,
            2000,
            "u-2",
        ),
        ds.StoredItem(
            ds.PINNED,
            "3",
            "u",
            "The user chose PostgreSQL over MongoDB for the new tracking service.",
            True,
            2000,
            "u-9",
        ),
    ]
    verdicts = {v.item.row_id: v for v in ds.score_agent("u", [first, second], items).verdicts}
    assert not verdicts["2"].copied_summary and verdicts["2"].copied_any_run
    assert verdicts["3"].copied_summary  # its session is unknown: nothing accounts for the run
    t = ds.totals([ds.score_agent("u", [first, second], items)])
    assert (t.copied, t.copied_any_run) == (1, 2)
