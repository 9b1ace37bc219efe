"""Issue 22, distill44: what the blind set v13 found — someone else's wish for the user said as pressure or a
preference about what the user does.

Every rule is tested both ways: what it must change or reject, and a near sentence it must leave alone."""

from __future__ import annotations

import pytest

from memoryd.write.grounding.unfit import unfit_reason


@pytest.mark.parametrize(
    "sentence",
    [
        "My sister's been on at me to move to Australia with her, she'd love that.",
        "My husband Emyr would rather I quit and go private, but that's his idea, not mine.",
        "My sister keeps telling me to move to Australia.",
        "Ma mère voudrait que je vende la boutique.",
        "Mi madre preferiría que vendiera la tienda.",
        "Meine Mutter hätte lieber, dass ich den Laden verkaufe.",
        "A minha mãe preferia que eu vendesse a loja.",
    ],
)
def test_someone_elses_wish_for_the_user_is_theirs(sentence: str) -> None:
    assert unfit_reason(sentence) == "third_party"


@pytest.mark.parametrize(
    "sentence",
    [
        "I'd rather we met on Tuesday.",
        "My sister's moving to Australia in May.",
        "I keep telling my sister to move to Leeds.",
        "Je voudrais que tu me rappelles demain.",
        "My sister is asking about the dates.",
        "Mi hermana se muda a Australia en mayo.",
        "Meine Schwester zieht im Mai nach Australien.",
    ],
)
def test_the_users_own_wish_or_another_persons_news_is_not_a_third_party_wish(sentence: str) -> None:
    assert unfit_reason(sentence) == ""
