"""ground(): extractor candidates ∪ model items that verify; garbage from the model is dropped and counted."""

from __future__ import annotations

from memoryd.write.grounding import FactKind, GroundedDigest, SourceTurn, ground, signal_ids
from memoryd.write.parse import Candidate, Digest

SESSION_MS = 1_796_169_600_000  # 2026-12-02 UTC
HEADER = "Recent past sessions (for cross-session continuity):"
TURNS = (
    SourceTurn(
        0, 11, "Hi, I'm Noor. I run a small bakery in Utrecht.", "Hello Noor! How can I help with the bakery?"
    ),
    SourceTurn(
        1,
        12,
        "We need an online ordering system. I looked at Shopify and WooCommerce.",
        "Both work. Shopify is hosted, WooCommerce needs a WordPress server. Many bakers like Square too.",
    ),
    SourceTurn(2, 13, "Let's go with Shopify for the ordering system.", "Good choice for a small team."),
    SourceTurn(3, 14, "I have to finish the product photos by Friday.", "Natural light helps a lot."),
    SourceTurn(4, 15, "My business partner Joris handles the accounts.", "Great, he can set up payments."),
)


def _digest(**fields: object) -> Digest:
    base: dict[str, object] = {
        "has_episode": True,
        "summary": "",
        "topics": (),
        "decisions": (),
        "action_items": (),
        "salience": 0.7,
        "entities": (),
        "candidates": (),
        "identity_facts": (),
    }
    base.update(fields)
    return Digest(**base)  # type: ignore[arg-type]


def _ground(digest: Digest | None, *, earlier: tuple[str, ...] = ()) -> GroundedDigest:
    return ground(TURNS, digest, session_time_ms=SESSION_MS, scaffolding=(HEADER,), earlier=earlier)


def test_without_a_model_the_extractive_digest_stands() -> None:
    result = _ground(None)
    assert result.summary_source == "extractive"
    assert result.summary and len(result.summary) <= 300
    assert result.summary.startswith("The user decided to go with Shopify")
    assert [d.text for d in result.decisions] == [
        "The user decided to go with Shopify for the ordering system."
    ]
    assert result.decisions[0].turns == (2,)
    assert signal_ids(result.decisions[0].turns, TURNS) == (13,)
    assert [a.turns for a in result.action_items] == [(3,)]
    assert "(2026-12-04)" in result.action_items[0].text
    assert any(f.slot == "relation.business_partner" and f.value == "Joris" for f in result.facts)
    assert set(result.decisions) <= set(result.facts)
    assert {"Shopify", "WooCommerce", "Utrecht", "Joris"} <= {e.name for e in result.entities}
    assert dict(result.dropped) == {}


def test_a_garbage_digest_keeps_only_grounded_items_and_counts_the_drops() -> None:
    garbage = _digest(
        summary=f"{HEADER} I'm a dog, and I'm a golden retriever. I'm not sure if I should choose MongoDB.",
        topics=("dogs", "Shopify"),
        entities=("Golden Retriever", "Shopify", "MongoDB"),
        candidates=(
            Candidate("I'm a dog, a golden retriever.", 0.9, ()),
            Candidate("The user is a food blogger and vegan.", 0.8, ()),
            Candidate(HEADER, 0.9, ()),
            Candidate("The user chose Shopify for online orders.", 0.8, ()),
        ),
        identity_facts=("The user is 12 years old. The user is 12 years old. The user is 12 years old.",),
        decisions=("The user decided to go with WooCommerce.",),
        action_items=("Call Marta about the flour delivery.",),
    )
    result = _ground(garbage)
    texts = " ".join(f.text for f in result.facts)
    assert (
        "dog" not in texts
        and "blogger" not in texts
        and "continuity" not in texts
        and "12 years" not in texts
    )
    assert "WooCommerce" not in texts and "Marta" not in texts
    assert result.summary_source == "extractive"
    assert "golden" not in result.summary
    assert result.dropped["loop"] == 1
    assert result.dropped["copied_scaffolding"] == 1
    assert result.dropped["unsupported"] >= 2
    assert result.dropped["summary_copied_scaffolding"] == 1
    assert result.dropped["conflicting_decision"] == 1
    assert result.dropped["ungrounded_name"] == 1
    assert result.dropped["entity_unsupported"] == 2
    assert result.topics == ("Shopify",)
    assert "MongoDB" not in {e.name for e in result.entities}


def test_a_good_model_summary_is_kept_with_its_turns() -> None:
    digest = _digest(summary="Noor chose Shopify as the online ordering system for the bakery in Utrecht.")
    result = _ground(digest)
    assert result.summary_source == "model"
    assert result.summary.startswith("Noor chose Shopify")
    assert 2 in result.summary_turns
    assert result.salience == 0.7


def test_a_model_rephrasing_replaces_the_candidate_text_but_keeps_slot_and_turns() -> None:
    digest = _digest(decisions=("Decided to go with Shopify for the ordering system.",))
    result = _ground(digest)
    assert len(result.decisions) == 1
    decision = result.decisions[0]
    assert decision.text == "Decided to go with Shopify for the ordering system."
    assert decision.slot == "choice.ordering_system" and decision.turns == (2,)
    assert decision.source == "model"


def test_a_model_fact_supported_only_by_the_assistant_is_dropped() -> None:
    digest = _digest(candidates=(Candidate("The user's bakers like Square and WordPress hosting.", 0.6, ()),))
    result = _ground(digest)
    assert result.dropped == {"assistant_only": 1}
    assert all("Square" not in f.text for f in result.facts)


def test_a_new_grounded_model_fact_gets_provenance() -> None:
    # (The extractor reads "I run a small bakery" itself now, so the model's fact here is one it does not say.)
    digest = _digest(identity_facts=("The user is a baker in Utrecht.",))
    result = _ground(digest)
    fact = next(f for f in result.facts if f.source == "model")
    assert fact.kind is FactKind.IDENTITY and fact.is_identity
    assert fact.turns == (0,)


def test_a_summary_copying_an_earlier_episode_is_replaced() -> None:
    earlier = ("The user compared three flour suppliers for the bakery and picked the cheapest one.",)
    digest = _digest(summary="The user compared three flour suppliers for the bakery and picked Shopify.")
    result = _ground(digest, earlier=earlier)
    assert result.summary_source == "extractive"
    assert result.dropped["summary_copied_episode"] == 1


def test_secrets_never_reach_derived_text() -> None:
    turns = (
        SourceTurn(0, 1, "Our shop IBAN is NL91 ABNA 0417 1643 00 for the Shopify payouts.", "Noted."),
        SourceTurn(1, 2, "Let's go with Shopify Payments for the payouts.", "Done."),
    )
    digest = _digest(
        summary="The shop uses IBAN NL91 ABNA 0417 1643 00 for Shopify payouts.",
        candidates=(Candidate("The shop IBAN is NL91 ABNA 0417 1643 00.", 0.9, ()),),
    )
    result = ground(turns, digest, session_time_ms=SESSION_MS, scaffolding=(), earlier=())
    assert "0417" not in result.summary
    assert all("0417" not in f.text for f in result.facts)
    assert result.dropped["secret"] == 1
    assert "0417" not in ground(turns, None, session_time_ms=SESSION_MS, scaffolding=(), earlier=()).summary


def test_an_extracted_fact_holding_a_secret_is_dropped() -> None:
    turns = (
        SourceTurn(0, 1, "I need to send the IBAN DE89 3704 0044 0532 0130 00 to Dana by Friday.", "Ok."),
    )
    result = ground(turns, None, session_time_ms=SESSION_MS, scaffolding=(), earlier=())
    assert result.action_items == ()
    assert result.dropped["secret"] == 1
    assert "0532" not in result.summary


def test_a_resolved_month_survives_verification() -> None:
    turns = (SourceTurn(0, 1, "We decided to migrate the API to FastAPI next month.", "Sounds good."),)
    result = ground(turns, None, session_time_ms=SESSION_MS, scaffolding=(), earlier=())
    assert [d.text for d in result.decisions] == [
        "The user decided to migrate the API to FastAPI next month (2027-01)."
    ]


def test_a_model_fact_flipping_the_users_words_is_dropped() -> None:
    turns = (
        SourceTurn(0, 1, "Honestly I hate spicy food, it ruins my evening.", "Noted, mild recipes then."),
    )
    digest = _digest(candidates=(Candidate("The user loves spicy food.", 0.7, ()),))
    result = ground(turns, digest, session_time_ms=SESSION_MS, scaffolding=(), earlier=())
    assert [f.text for f in result.facts] == ["The user hates spicy food."]
    assert result.dropped == {"contradicts_user": 1}


def test_a_confirmed_assistant_guess_is_kept_and_an_unconfirmed_one_dropped() -> None:
    confirmed = (
        SourceTurn(0, 1, "Any ideas for a dinner without meat?", "Sure. Are you a vegetarian?"),
        SourceTurn(1, 2, "Yes, I am.", "Then try a lentil curry."),
    )
    digest = _digest(candidates=(Candidate("The user is a vegetarian.", 0.8, ()),))
    result = ground(confirmed, digest, session_time_ms=SESSION_MS, scaffolding=(), earlier=())
    assert [(f.slot, f.turns) for f in result.facts] == [("preference.diet", (0, 1))]
    assert result.dropped == {}
    unconfirmed = (
        SourceTurn(0, 1, "Any ideas for a dinner without meat?", "Sure. You sound like a vegetarian."),
        SourceTurn(1, 2, "Thanks, what else?", "Try a lentil curry."),
    )
    result = ground(unconfirmed, digest, session_time_ms=SESSION_MS, scaffolding=(), earlier=())
    assert result.facts == ()
    assert result.dropped == {"assistant_only": 1}


def test_a_model_fact_repeating_a_value_the_user_corrected_is_dropped() -> None:
    turns = (
        SourceTurn(0, 1, "I used to live in Porto for years.", "Nice city."),
        SourceTurn(1, 2, "Now I live in Lisbon, near the river.", "Lovely."),
    )
    digest = _digest(
        identity_facts=("The user lives in Porto.", "The user's manager is Rui."),
        candidates=(Candidate("The user lives in Lisbon.", 0.9, ()),),
    )
    result = ground(turns, digest, session_time_ms=SESSION_MS, scaffolding=(), earlier=())
    assert [(f.slot, f.value) for f in result.facts] == [("identity.home", "Lisbon")]
    assert result.dropped == {"stale_or_conflicting": 1, "ungrounded_name": 1}


def test_a_new_model_fact_gets_a_slot_from_the_extractors_rules() -> None:
    turns = (SourceTurn(0, 1, "Ask Rui, he is my manager, about the budget.", "Sure."),)
    digest = _digest(identity_facts=("The user's manager is Rui.",))
    result = ground(turns, digest, session_time_ms=SESSION_MS, scaffolding=(), earlier=())
    assert [(f.slot, f.value, f.source) for f in result.facts] == [("relation.manager", "Rui", "model")]


def test_a_model_fact_about_someone_else_is_not_a_user_fact() -> None:
    turns = (SourceTurn(0, 1, "My wife Ana loves sushi, but I prefer ramen.", "Both are great."),)
    digest = _digest(
        candidates=(
            Candidate("The user loves sushi.", 0.7, ()),
            Candidate("The user prefers ramen.", 0.7, ()),
            Candidate("The user's wife Ana loves sushi.", 0.6, ()),
        )
    )
    result = ground(turns, digest, session_time_ms=SESSION_MS, scaffolding=(), earlier=())
    texts = [f.text for f in result.facts]
    assert "The user loves sushi." not in texts
    assert "The user prefers ramen." in texts
    assert "The user's wife Ana loves sushi." in texts
    assert result.dropped == {"third_party": 1}


def test_a_summary_keeps_its_verified_sentences_when_most_verify() -> None:
    digest = _digest(
        summary=(
            "Noor runs a bakery in Utrecht. Noor chose Shopify for the ordering system. "
            "Noor hired a baker named Femke."
        )
    )
    result = _ground(digest)
    assert result.summary_source == "model"
    assert result.summary == "Noor runs a bakery in Utrecht. Noor chose Shopify for the ordering system."
    assert result.dropped == {"summary_sentence_ungrounded_name": 1}


def test_a_summary_in_the_first_person_is_the_model_chatting() -> None:
    result = _ground(
        _digest(summary="I think Shopify is the right ordering system for the bakery in Utrecht.")
    )
    assert result.summary_source == "extractive"
    assert result.dropped == {"summary_first_person": 1}


def test_a_title_abbreviation_does_not_split_a_sentence() -> None:
    turns = (SourceTurn(0, 1, "Our vet is Dr. Ruiz and she is great with cats.", "Good to know."),)
    result = ground(turns, None, session_time_ms=SESSION_MS, scaffolding=(), earlier=())
    assert [(f.slot, f.value) for f in result.facts] == [("relation.vet", "Dr. Ruiz")]


def test_a_rephrasing_that_drops_the_resolved_date_keeps_the_extractor_text() -> None:
    digest = _digest(action_items=("Finish the product photos by Friday.",))
    result = _ground(digest)
    assert [a.text for a in result.action_items] == [
        "The user needs to finish the product photos by Friday (2026-12-04)."
    ]
    assert result.action_items[0].source == "extractor"


SMALL_TALK_TURNS = (
    SourceTurn(0, 21, "Buenas. ¡Qué viento hace hoy, el cierzo no para!", "¡Abrígate!"),
    SourceTurn(1, 22, "Me he mudado a Huesca, trabajo de fisio en la SD Huesca.", "Huesca, anotado."),
    SourceTurn(2, 23, "Pretemporada de invierno: el 7 de enero empezamos en Jaca.", "Anotado."),
)


def test_a_model_summary_restating_small_talk_falls_back_to_the_extractive_one() -> None:
    # "El cierzo no para!" passes on its own words; the user sentence it shortens is small talk.
    result = ground(
        SMALL_TALK_TURNS, _digest(summary="El cierzo no para!"), session_time_ms=SESSION_MS, scaffolding=()
    )
    assert result.summary_source == "extractive"
    assert "cierzo" not in result.summary


def test_a_model_summary_of_the_users_matter_is_kept_beside_small_talk() -> None:
    result = ground(
        SMALL_TALK_TURNS,
        _digest(summary="El usuario se ha mudado a Huesca y trabaja de fisio en la SD Huesca."),
        session_time_ms=SESSION_MS,
        scaffolding=(),
    )
    assert result.summary_source == "model"


def test_a_model_fact_restating_small_talk_is_dropped() -> None:
    result = ground(
        SMALL_TALK_TURNS,
        _digest(candidates=(Candidate("Qué viento hace hoy, el cierzo no para.", 0.6, ()),)),
        session_time_ms=SESSION_MS,
        scaffolding=(),
    )
    assert all("cierzo" not in f.text for f in result.facts)
    assert result.dropped.get("small_talk") == 1
