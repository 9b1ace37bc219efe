"""The transcript section's filler rule (memoryd/retrieval/filler.py): assistant replies that only acknowledge are
left out, in five languages, and so are those whose only other words echo the user's turn; any new word keeps the
line, and the user's turns are never dropped."""

from __future__ import annotations

import pytest

from memoryd.retrieval.filler import is_filler, without_filler
from memoryd.retrieval.items import ItemKind, ItemRef, MemoryHit, Section
from memoryd.retrieval.planner import hit_candidates
from memoryd.retrieval.terms import term_counts

USER = "Bad news, Falcon slipped: it launches on October 6 now"
ECHOED = frozenset(term_counts(USER))


@pytest.mark.parametrize(
    "text",
    [
        "Understood.",
        "Thanks, noted.",
        "Got it!",
        "Ok, I will remember that.",
        "No problem, happy to help!",
        "That's great to hear!",
        "👍",
        "D'accord, c'est noté !",
        "Parfait, merci beaucoup.",
        "Entendido, gracias.",
        "¡Vale, de acuerdo!",
        "Alles klar, danke!",
        "Verstanden, ich merke es mir.",
        "Beleza, anotado!",
        "Certo, obrigado!",
    ],
)
def test_acknowledgements_are_filler(text: str) -> None:
    assert is_filler(text)


@pytest.mark.parametrize(
    "text",
    [
        "No.",
        "Your flight is at 9am.",
        "I recommend the Alfama district.",
        "Noted: Falcon launches on September 22.",
        "Understood, the Falcon launch is October 9.",
        "Entendido, la reunión es el martes.",
        "",
    ],
)
def test_a_word_beyond_acknowledgement_keeps_the_line(text: str) -> None:
    assert not is_filler(text, ECHOED)


def test_an_echo_of_the_users_words_is_filler_only_with_those_words() -> None:
    echo = "Understood, the Falcon launch is October 6."
    assert is_filler(echo, ECHOED)
    assert not is_filler(echo)


def _hit(i: int, role: str, text: str, conversation: str = "c1") -> MemoryHit:
    ref = ItemRef(ItemKind.TRANSCRIPT_TURN, str(i))
    return MemoryHit(ref, text, score=1.0 - i / 10, role=role, conversation_id=conversation)


def test_without_filler_keeps_user_turns_and_content_and_reads_echoes_per_conversation() -> None:
    hits = [
        _hit(0, "user", USER),
        _hit(1, "assistant", "Understood, the Falcon launch is October 6."),
        _hit(2, "user", "Thanks!"),
        _hit(3, "assistant", "Priya leads the Falcon launch."),
        _hit(4, "assistant", "Got it, October 6 for Falcon.", conversation="c2"),
        _hit(5, "assistant", "Thanks, noted.", conversation="c2"),
    ]
    kept = [hit.ref.id for hit in without_filler(hits)]
    # The user's "Thanks!" stays; c2's echo answers no user turn among the hits, so it says something new there.
    assert kept == ["0", "2", "3", "4"]


def test_an_echo_counts_only_against_the_user_turn_it_answers() -> None:
    echo = "Understood, the Falcon launch is October 6."
    answered = [_hit(7, "user", USER), _hit(8, "assistant", echo)]
    assert [h.ref.id for h in without_filler(answered)] == ["7"]
    # The same words said by the user two exchanges earlier: the reply answers row 9, which is not among the hits.
    earlier = [_hit(7, "user", USER), _hit(10, "assistant", echo)]
    assert [h.ref.id for h in without_filler(earlier)] == ["7", "10"]
    # The row before it belongs to another conversation (rows of two sessions interleaved).
    other = [_hit(7, "user", USER, conversation="c2"), _hit(8, "assistant", echo)]
    assert [h.ref.id for h in without_filler(other)] == ["7", "8"]


def test_the_planner_leaves_filler_out_of_the_transcript_section_only() -> None:
    hits = [_hit(0, "user", USER), _hit(1, "assistant", "Thanks, noted.")]
    lines = [c.line for c in hit_candidates(Section.TRANSCRIPT, hits, "when does Falcon launch?")]
    assert len(lines) == 1 and "October 6" in lines[0]
    assert len(hit_candidates(Section.PINNED, hits, "when does Falcon launch?")) == 2
