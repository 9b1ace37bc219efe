"""gate-v6's answer features: the kind a question asks, the kinds a row holds, the rows naming the request's thing."""

from __future__ import annotations

from memoryd.retrieval.answer_kinds import asked_kinds, value_kinds
from memoryd.retrieval.evidence import SectionEvidence, top_rows
from memoryd.retrieval.gate import fold
from memoryd.retrieval.gate_answer import answer_features
from memoryd.retrieval.gate_frames import frame_features


def test_the_kind_a_question_asks_in_five_languages() -> None:
    assert asked_kinds("When is the beta launching?") == {"date"}
    assert asked_kinds("¿Cuándo llega Ana?") == {"date"}
    assert asked_kinds("Où habite Marc ?") == {"place"}
    assert asked_kinds("thé ou café ?") == frozenset()  # "ou" is "or"; only "où" asks where
    assert asked_kinds("Mit wem war ich essen?") == {"person"}
    assert asked_kinds("Quantos filhos ela tem?") == {"number"}
    assert asked_kinds("suggest a dinner recipe") == frozenset()


def test_the_kinds_a_row_holds() -> None:
    assert value_kinds("The user talked about the beta launch.") == frozenset()
    assert "date" in value_kinds("The beta launch moved to December 18")
    assert value_kinds("Lives in Lisbon with Marta.") == {"place", "person"}
    assert value_kinds("Has two kids.") == {"number"}
    assert "date" in value_kinds("Le rendez-vous est demain à 9h")


def test_top_rows_describe_the_best_keyword_rows_then_the_nearest() -> None:
    texts = {
        1: "The beta launch moved to December 18",
        2: "The user talked about the beta launch.",
        3: "Lunch",
    }
    terms, kinds = top_rows(("beta", "launch"), [1, 2], [3, 1], texts)
    assert terms == (("beta", "launch"), ("beta", "launch"), ())
    assert kinds[0] == ("date", "number") and kinds[1] == () and kinds[2] == ()


def _section(rows: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]) -> SectionEvidence:
    return SectionEvidence(
        rows=len(rows),
        terms=("beta", "launch"),
        top_terms=tuple(r[0] for r in rows),
        top_kinds=tuple(r[1] for r in rows),
    )


def test_the_section_holding_the_asked_value_is_told_from_a_vague_summary() -> None:
    pinned = _section(((("beta", "launch"), ("date",)),))
    episodes = _section(((("beta", "launch"), ()),))
    f = answer_features(
        frozenset({"date"}), {"beta": 0.5, "launch": 0.4}, (), {"p": pinned, "e": episodes}, []
    )
    assert (f["ask_kind"], f["p_ans"], f["p_ans_miss"], f["e_ans"], f["e_ans_miss"]) == (
        1.0,
        1.0,
        0.0,
        0.0,
        1.0,
    )
    assert f["t_ans"] == f["t_ans_miss"] == 0.0  # no section, no evidence either way
    none_asked = answer_features(frozenset(), {"beta": 0.5}, (), {"p": pinned}, [])
    assert none_asked["p_ans"] == none_asked["p_ans_miss"] == 0.0


def test_rows_naming_the_thing_without_the_rest_of_the_request() -> None:
    weights = {"durban": 0.9, "many": 0.1, "people": 0.2, "live": 0.2}
    trip = _section(((("durban",), ("date",)),))
    f = answer_features(frozenset({"number"}), weights, ("durban",), {"e": trip}, [])
    assert f["named_bare"] == 1.0 and f["e_named_rest"] == 0.0
    ship = _section(((("ledgerly", "beta", "ship"), ("date",)),))
    g = answer_features(
        frozenset({"date"}), {"ledgerly": 0.9, "beta": 0.5, "ship": 0.3}, ("ledgerly",), {"p": ship}, []
    )
    assert g["named_bare"] == 0.0 and g["p_named_rest"] == 1.0 and g["p_row_rest"] == 1.0


def test_identity_facts_answer_the_kind_they_hold() -> None:
    f = answer_features(frozenset({"place"}), {"live": 0.3}, (), {}, ["User lives in Porto with Rui"])
    assert f["id_ans"] == 1.0


def _frames(text: str) -> dict[str, float]:
    folded = fold(text)
    return frame_features(folded, folded.replace("?", " ").split())


def test_frames_about_the_world_and_about_the_asker() -> None:
    assert _frames("What is a beta release?")["ask_world"] == 1.0
    assert _frames("Who invented the espresso machine?")["ask_world"] == 1.0
    assert _frames("Was ist der Unterschied zwischen Lager und Ale?")["ask_world"] == 1.0
    assert _frames("Qu'est-ce que c'est, une réduction ?")["ask_world"] == 1.0
    # A first person anywhere makes it about the asker, not the world.
    assert _frames("What is a good gift for my sister?")["ask_world"] == 0.0
    assert _frames("Should I book the 7am train?") == {"ask_world": 0.0, "ask_self": 1.0}
    assert _frames("¿Debo llevar paraguas mañana?")["ask_self"] == 1.0
    assert _frames("Soll ich heute laufen gehen?")["ask_self"] == 1.0
    assert _frames("Hello there")["ask_self"] == 0.0
