"""General fixes of the extractor found on the dev split, each checked on hand-written sentences of its own."""

from __future__ import annotations

from memoryd.write.grounding import Extraction, SourceTurn, contains_secret, extract, redact_secrets

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


def _run(*users: str, assistants: tuple[str, ...] = ()) -> Extraction:
    replies = list(assistants) + ["Okay."] * (len(users) - len(assistants))
    turns = [
        SourceTurn(i, 900 + i, user, reply)
        for i, (user, reply) in enumerate(zip(users, replies, strict=True))
    ]
    return extract(turns, session_time_ms=SESSION_MS)


def _names(extraction: Extraction) -> set[str]:
    return {e.name for e in extraction.entities}


def test_no_entity_from_an_imagined_place_or_a_secret() -> None:
    e = _run(
        "If I had a boat I would sail to Zanzibar.",
        "Se eu fosse rico, morava em Sintra.",
        "My door code for Harbour Flats is Kestrel4471, keep it.",
        "I work with Renata on the Delta project.",
    )
    names = _names(e)
    assert "Zanzibar" not in names and "Sintra" not in names
    assert not any("Kestrel" in n for n in names)
    assert {"Renata", "Delta"} <= names


def test_access_codes_are_secrets_in_french_and_english() -> None:
    assert contains_secret("Le code d'accès du garage c'est Pivoine77!")
    assert "Pivoine77" not in redact_secrets("Le code d'accès du garage c'est Pivoine77!")
    assert contains_secret("the lockbox code is 9153")
    assert not contains_secret("The code is ready for review.")


def test_chit_chat_and_remarks_about_the_assistant_stay_out_of_the_summary() -> None:
    e = _run(
        "We are repainting the kitchen walls in sage green this month.",
        "You're probably a night owl yourself, huh?",
        "The painter quoted 900 euros for the kitchen walls and ceiling.",
        "Off to grab some lunch now.",
        "Foggy again here, typical.",
        "Bon, je file, j'ai un rendez-vous là.",
    )
    assert "night owl" not in e.summary
    assert "lunch" not in e.summary
    assert "rendez-vous" not in e.summary
    assert "kitchen" in e.summary and "Foggy" not in e.summary


def _texts(extraction: Extraction) -> str:
    return " | ".join(f.text for f in extraction.facts)


def test_a_marker_word_opens_an_instruction_only_before_an_imperative() -> None:
    e = _run("Nunca tive um carro.", "Never use emojis in replies.", "Ne me vouvoie jamais, s'il te plaît.")
    texts = _texts(e)
    assert "carro" not in texts
    assert "never use emojis in replies" in texts
    assert "vouvoie" in texts


def test_instructions_after_an_answer_style_colon_and_unit_requests() -> None:
    e = _run(
        "A note on how you answer me: use bullet points and skip the preamble.",
        "Please quote distances in kilometres.",
    )
    texts = _texts(e)
    assert "allemand" in _texts(
        _run(
            "Je prépare un voyage à Berlin avec mes enfants, et je suis un peu stressée.",
            "Réponds-moi toujours en allemand.",
        )
    )
    assert "use bullet points and skip the preamble" in texts
    assert "kilometres" in texts


def test_pronoun_objects_and_bare_dates_are_not_plans_or_decisions() -> None:
    e = _run(
        "We're hoping for June 3 to 9.",
        "I'll pick them up next week.",
        "I'll order one tomorrow.",
        "I have to choose the hosting provider.",
        "I'll renew the car insurance next week.",
    )
    texts = _texts(e)
    assert "June" not in texts
    assert "them" not in texts and "one" not in texts.split()
    assert "choose" not in texts
    assert "car insurance" in texts


def test_a_month_said_alone_dates_a_plan() -> None:
    e = _run("We are opening a second bakery in Braga in October.")
    plan = [f for f in e.facts if f.kind.value == "plan"]
    assert len(plan) == 1 and "October (2027-10)" in plan[0].text  # said in December 2026: next October

    assert not [f for f in _run("I may bring the cake.").facts if f.kind.value == "plan"]


def test_introductions_roles_employers_and_homes_said_in_passing() -> None:
    e = _run(
        "Hello! Tariq here, quick question about my bike.",
        "I do frontend work at Quillbyte, a tiny studio here in Bristol.",
    )
    texts = _texts(e)
    assert "The user's name is Tariq." in texts
    assert "The user works at Quillbyte." in texts
    assert "The user is here in Bristol." in texts
    pt = _run("Olá! Sou o Tiago Ramos, engenheiro de software numa empresa em Braga. Podes tratar-me por Ti.")
    assert "engenheiro de software" in _texts(pt)
    assert "Ti" in {f.value for f in pt.facts if f.slot == "identity.address_as"}


def test_a_move_said_in_the_present_or_future_sets_the_home() -> None:
    assert "Cardiff" in _texts(_run("Big news, we moved! We're in Cardiff now, near the bay."))
    assert "Rennes" in _texts(_run("Je m'installe à Rennes le mois prochain avec mon copain."))


def test_household_diet_allergies_and_hedged_relations() -> None:
    e = _run(
        "We only eat kosher at home.",
        "My eldest, Noor, has a sesame allergy.",
        "Perhaps my neighbour Ines can water the plants.",
        "I can't handle loud music in the evening.",
    )
    texts = _texts(e)
    assert "The user eats kosher." in texts
    assert "Noor has a sesame allergy." in texts
    assert "Ines" in texts and "Perhaps" not in texts
    assert "can't handle loud music" in texts


def test_decisions_said_with_a_colon_or_lets_keep() -> None:
    e = _run(
        "OK so decision: we'll host the party at the community hall.",
        "Let's skip the ferry and rent a car instead.",
        "Nah, let's keep it Lisbon only.",
        "Ma cheffe m'a demandé de préparer le budget.",
    )
    texts = _texts(e)
    assert "The user decided: we'll host the party at the community hall." in texts
    assert "skip the ferry" in texts
    assert "Lisbon only" in texts


def test_even_if_concedes_and_does_not_make_a_sentence_hypothetical() -> None:
    e = _run("Réponds-moi toujours en espagnol, même si je t'écris en français.")
    assert any(f.slot == "instruction.language" for f in e.facts)
    assert not _run("Si j'avais un jardin, je planterais des tomates.").facts


def test_permission_for_the_familiar_you_is_an_instruction() -> None:
    e = _run("Salut ! Je suis Léa, tu peux me tutoyer.")
    assert [f.slot for f in e.facts if f.kind.value == "instruction"] == ["instruction.register"]


def test_a_changed_relation_takes_the_new_name_and_the_relation_slot() -> None:
    e = _run("We're switching dentists, the old one retired. The new one is Dr. Okoro on Mill Lane.")
    fact = next(f for f in e.facts if f.slot == "relation.dentist")
    assert fact.value == "Dr. Okoro"
    pt = _run("Troquei de médico: agora é a Dra. Inês Salgado, no centro de saúde.")
    assert next(f for f in pt.facts if f.slot == "relation.doctor").value == "Dra. Inês Salgado"


def test_a_short_reply_picks_one_of_the_offered_options() -> None:
    e = _run("Should we take the train or rent a car?", "The train then.")
    assert "The user chose the train." in _texts(e)
    assert not [f for f in _run("What time works?", "Tomorrow then.").facts if f.kind.value == "decision"]


def test_a_rescheduled_event_keeps_its_slot_and_someone_elses_relation() -> None:
    first = _run("The annual retreat is on March 3 in Porto.")
    later = _run("They moved the retreat, it's now March 17.")
    assert {f.slot for f in first.facts if f.kind.value == "plan"} == {
        f.slot for f in later.facts if f.kind.value == "plan"
    }
    e = _run("Tom's daughter Elif will feed the fish.")
    assert "Tom's daughter is Elif." in _texts(e)


def test_context_keeps_trips_requests_and_likings_from_becoming_homes_choices_or_plans() -> None:
    assert not [
        f for f in _run("We're in Kyoto now, the trip is amazing.").facts if f.slot == "identity.home"
    ]
    assert not [
        f for f in _run("It's sunny here in Nice, our vacation is great.").facts if f.slot == "identity.home"
    ]
    texts = _texts(_run("I'd love a recipe for tonight.", "Let's keep it short.", "Let's do a quick recap."))
    assert not texts
    e = _run("I love skiing in January.")
    assert [f.kind.value for f in e.facts] == ["preference"]


def test_guards_on_changed_relations_and_empty_decisions() -> None:
    # The rota is no manager: no relation is read (the sentence itself may be kept in the user's words).
    rota = _run("We changed the manager rota: now it is Sam on Fridays.").facts
    assert not [f for f in rota if f.slot.startswith("relation.") or "manager is" in f.text]
    assert not _run("Decision: not yet.").facts
    pt = _run(
        "A nossa gata está ótima, mas não come muito.", "Mudei de veterinário: agora é o Dr. Rui Lopes."
    )
    assert "Veterinário do usuário: Dr. Rui Lopes." in _texts(pt)


def test_third_person_keeps_negations_plural_subjects_and_hyphenated_verbs() -> None:
    from memoryd.write.grounding.summary import third_person

    assert third_person("I don't want sugar") == "The user doesn't want sugar"
    assert third_person("My sister and I are flying") == "The user's sister and the user are flying"
    assert third_person("I copy-edit reports") == "The user copy-edit reports"


def test_twin_hits_of_sister_languages_keep_the_sessions_language() -> None:
    e = _run("Quero fazer um jantar para os meus colegas e amigos.", "Boa! Decidido: bacalhau com natas.")
    decision = next(f for f in e.facts if f.kind.value == "decision")
    assert decision.language == "pt" and decision.text.startswith("Decisão do usuário")


def test_diet_goals_adopted_pets_and_language_replies() -> None:
    e = _run(
        "I'd really like to cut back on sugar this year.",
        "We just adopted a puppy called Nacho.",
    )
    texts = _texts(e)
    assert "The user would like to cut back on sugar this year." in texts
    assert "pet.nacho" in {f.slot for f in e.facts}
    es = _run("Hola, soy Ana y vivo en Sevilla con mi familia.", "Adoptamos una gata, Luna, hace un mes.")
    assert "pet.luna" in {f.slot for f in es.facts}
    reply = _run("Can you translate my cover letter?", "German please.")
    assert [f.slot for f in reply.facts] == ["instruction.language"]
    assert not _run("Which sides do you have?", "French fries please.").facts


def test_leaving_phrases_are_chit_chat_only_when_they_end_the_sentence() -> None:
    assert _run("Hola, me llamo Sara.", "Me voy a mudar a Sevilla en octubre.").facts[1:]
    assert "Gotta go to the bank" in _texts(
        _run("Gotta go to the bank on Friday to sign the mortgage papers.")
    )
    assert not _run("Gotta run!").facts
    es = _run("Hola, me llamo Sara y vivo en Cádiz.", "He cambiado de médico: ahora es la Dra. Ruiz.")
    assert "relation.doctor" in {f.slot for f in es.facts}


def test_a_remark_about_the_assistant_that_also_says_i_is_read() -> None:
    assert "vegan" in _texts(_run("You're right, I'm vegan actually."))
    assert not _run("You must be a morning person, huh?").facts


def test_the_users_own_allergy_said_as_a_noun() -> None:
    e = _run("I have a severe shellfish allergy, so be careful.")
    assert [(f.slot, f.text) for f in e.facts] == [
        ("allergy.shellfish", "The user is allergic to shellfish.")
    ]
