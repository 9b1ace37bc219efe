"""The deterministic extractor on small hand-written sessions in five languages."""

from __future__ import annotations

from memoryd.write.grounding import Extraction, FactKind, GroundedFact, SourceTurn, extract

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


def _run(*users: str, assistants: tuple[str, ...] = ()) -> Extraction:
    replies = list(assistants) + ["Okay."] * (len(users) - len(assistants))
    turns = [
        SourceTurn(i, 500 + i, user, reply)
        for i, (user, reply) in enumerate(zip(users, replies, strict=True))
    ]
    return extract(turns, session_time_ms=SESSION_MS)


def _slot(extraction: Extraction, slot: str) -> GroundedFact:
    found = [f for f in extraction.facts if f.slot == slot]
    assert len(found) == 1, [(f.slot, f.text) for f in extraction.facts]
    return found[0]


def _texts(extraction: Extraction) -> str:
    return " | ".join(f.text for f in extraction.facts)


def test_english_session() -> None:
    e = _run(
        "Hey there. My name is Robin Achebe and I live in Leeds.",
        "I'm a data analyst at Northwind. I'm 38.",
        "I can't stand long answers. Always answer in bullet points.",
        "Our vet is Dr Okafor, she looks after my cat Pepper.",
        "After a long debate we'll go with Terraform for the infrastructure.",
        "I need to renew my passport by Friday. I have a conference in Porto next week.",
    )
    assert _slot(e, "identity.name").text == "The user's name is Robin Achebe."
    assert _slot(e, "identity.name").turns == (0,)
    assert _slot(e, "identity.home").value == "Leeds"
    assert _slot(e, "identity.role").value == "a data analyst"
    assert _slot(e, "identity.employer").value == "Northwind"
    assert _slot(e, "identity.age").value == "38"
    assert _slot(e, "relation.vet").value == "Dr Okafor"
    assert _slot(e, "relation.vet").turns == (3,)
    assert _slot(e, "pet.pepper").text == "The user has a cat named Pepper."
    decision = _slot(e, "choice.infrastructure")
    assert decision.kind is FactKind.DECISION
    assert decision.text == "The user decided to go with Terraform for the infrastructure."
    instruction = next(f for f in e.facts if f.kind is FactKind.INSTRUCTION)
    assert "always answer in bullet points" in instruction.text
    preference = next(f for f in e.facts if f.kind is FactKind.PREFERENCE)
    assert preference.text == "The user can't stand long answers."
    action = next(f for f in e.facts if f.kind is FactKind.ACTION_ITEM)
    assert action.text == "The user needs to renew their passport by Friday (2026-12-04)."
    plan = next(f for f in e.facts if f.kind is FactKind.PLAN)
    assert "(week of 2026-12-07)" in plan.text and plan.turns == (5,)
    assert all(f.is_identity == (f.kind is FactKind.IDENTITY) for f in e.facts)
    names = {entity.name: entity.turns for entity in e.entities}
    assert names["Robin Achebe"] == (0,)
    assert names["Terraform"] == (4,)
    assert "Porto" in names


def test_things_that_must_not_be_learned_are_skipped() -> None:
    e = _run(
        "If I were a pilot I would live in Dubai.",
        "Imagine I'm allergic to shellfish, what would change?",
        "My brother loves jazz and my boss prefers email.",
        "Do you think I should move to Berlin?",
        "I'm not vegetarian anymore.",
        "My wife thinks I'm a vegan.",
        "Should we go with MongoDB?",
        "Maybe we'll use Redis later.",
    )
    assert e.facts == (), _texts(e)


def test_an_assistant_guess_is_no_fact_unless_the_user_confirms() -> None:
    unconfirmed = _run(
        "Could you suggest a dinner without meat?",
        "Thanks, that sounds good.",
        assistants=("Sure! You sound like a vegetarian, here is a lentil stew.", "Enjoy!"),
    )
    assert unconfirmed.facts == ()
    confirmed = _run(
        "Could you suggest a dinner without meat?",
        "Yes, I am. Since last year.",
        assistants=("Sure! Are you a vegetarian?", "Great."),
    )
    fact = _slot(confirmed, "preference.diet")
    assert fact.value == "vegetarian"
    assert fact.turns == (0, 1)
    denied = _run(
        "Could you suggest a dinner without meat?",
        "No, I just skip meat on Mondays.",
        assistants=("Sure! Are you a vegetarian?", "Got it."),
    )
    assert not [f for f in denied.facts if f.slot == "preference.diet"]


def test_french_session() -> None:
    e = _run(
        "Salut ! Je m'appelle Inès Laurent et j'habite à Grenoble.",
        "Je suis végétalienne. Je déteste la coriandre.",
        "Pour l'appli, on part sur Flutter. Ma collègue Chloé adore Kotlin.",
        "Je dois rendre le dossier vendredi.",
        "Si j'étais riche, je vivrais à Nice.",
    )
    assert _slot(e, "identity.name").value == "Inès Laurent"
    assert _slot(e, "identity.home").value == "Grenoble"
    assert _slot(e, "preference.diet").value == "végétalienne"
    assert "L'utilisateur déteste la coriandre." in _texts(e)
    decision = next(f for f in e.facts if f.kind is FactKind.DECISION)
    assert "Flutter" in decision.text and decision.turns == (2,)
    assert _slot(e, "relation.colleague.chloe").value == "Chloé"
    assert "Kotlin" not in _texts(e)
    action = next(f for f in e.facts if f.kind is FactKind.ACTION_ITEM)
    assert "(2026-12-04)" in action.text
    assert "Nice" not in _texts(e)


def test_spanish_session() -> None:
    e = _run(
        "Hola, me llamo Mateo Ruiz y vivo en Valencia.",
        "Tengo 45 años y soy alérgico al marisco.",
        "Vamos con Angular para el panel. Recuérdame llamar al fontanero mañana.",
        "Mi novia Sara odia el cine de terror.",
        "Si fuera rico, viviría en Ibiza.",
    )
    assert _slot(e, "identity.name").value == "Mateo Ruiz"
    assert _slot(e, "identity.home").value == "Valencia"
    assert _slot(e, "identity.age").value == "45"
    assert "marisco" in _slot(e, "allergy.marisco").text
    decision = _slot(e, "choice.panel")
    assert "Angular" in decision.text
    reminder = next(f for f in e.facts if f.kind is FactKind.ACTION_ITEM)
    assert "(2026-12-03)" in reminder.text and reminder.turns == (2,)
    assert _slot(e, "relation.partner").value == "Sara"
    assert "terror" not in _texts(e)
    assert "Ibiza" not in _texts(e)


def test_german_session() -> None:
    e = _run(
        "Hallo, ich heiße Lena Vogel und wohne in Freiburg.",
        "Ich arbeite als Ingenieurin bei Bosch.",
        "Ich bin Veganerin. Mein Kater heißt Moritz.",
        "Wir nehmen Kubernetes für das Deployment. Ich muss nächsten Montag die Steuererklärung abgeben.",
        "Wenn ich Zeit hätte, würde ich Japanisch lernen.",
    )
    assert _slot(e, "identity.name").value == "Lena Vogel"
    assert _slot(e, "identity.home").value == "Freiburg"
    assert _slot(e, "identity.role").value == "Ingenieurin"
    assert _slot(e, "identity.employer").value == "Bosch"
    assert _slot(e, "preference.diet").value == "Veganerin"
    assert _slot(e, "pet.moritz").turns == (2,)
    assert "Kubernetes" in _slot(e, "choice.deployment").text
    action = next(f for f in e.facts if f.kind is FactKind.ACTION_ITEM)
    assert "(2026-12-07)" in action.text
    assert "Japanisch" not in _texts(e)


def test_portuguese_session() -> None:
    e = _run(
        "Oi! Meu nome é Beatriz Costa e moro em Belo Horizonte.",
        "Tenho 31 anos e trabalho como designer.",
        "Não gosto de coentro. Meu marido Pedro adora futebol.",
        "Vamos usar Supabase para o banco de dados. Preciso pagar a fatura amanhã.",
        "Se eu fosse rica, moraria em Paris.",
    )
    assert _slot(e, "identity.name").value == "Beatriz Costa"
    assert _slot(e, "identity.home").value == "Belo Horizonte"
    assert _slot(e, "identity.age").value == "31"
    assert _slot(e, "identity.role").value == "designer"
    assert "O usuário não gosta de coentro." in _texts(e)
    assert _slot(e, "relation.partner").value == "Pedro"
    assert "futebol" not in _texts(e)
    assert "Supabase" in next(f for f in e.facts if f.kind is FactKind.DECISION).text
    action = next(f for f in e.facts if f.kind is FactKind.ACTION_ITEM)
    assert "(2026-12-03)" in action.text
    assert "Paris" not in _texts(e)


def test_a_correction_in_the_same_session_keeps_both_values_in_turn_order() -> None:
    e = _run("I live in Bristol.", "Actually I just moved to Cardiff.")
    homes = [f for f in e.facts if f.slot == "identity.home"]
    assert [f.value for f in homes] == ["Bristol", "Cardiff"]
    assert [f.turns for f in homes] == [(0,), (1,)]


def test_the_same_fact_twice_is_one_fact_with_both_turns() -> None:
    e = _run("I'm allergic to peanuts.", "Again, I'm allergic to peanuts.")
    assert len(e.facts) == 1
    assert e.facts[0].turns == (0, 1)


def test_the_extractive_summary_is_short_and_central() -> None:
    e = _run(
        "We are planning the migration of the billing database to a new cluster.",
        "The migration needs a rollback plan for the billing database.",
        "lol ok",
        "Let's go with a blue-green migration for the billing database.",
    )
    assert 0 < len(e.summary) <= 300
    assert e.summary.startswith("The user decided to go with a blue-green migration")
    assert e.summary_turns and set(e.summary_turns) <= {0, 1, 3}
    assert "lol" not in e.summary


def test_the_summary_leaves_out_a_plan_the_session_moved_under_another_slot_word() -> None:
    """A plan moved under another slot word ("the booking system goes live on March 3" … "the go-live moved to March
    10": one event, the writer stores the first superseded): the summary must not state March 3. A second, different
    event stays."""
    moved = _run(
        "I am vegetarian and allergic to peanuts.",
        "Our clinic's new booking system goes live on March 3.",
        "Actually the go-live moved to March 10.",
    )
    assert "March 3" not in moved.summary
    kept = _run(
        "I am vegetarian and allergic to peanuts.",
        "Our clinic's new booking system goes live on March 3.",
        "My dentist appointment is on March 10.",
    )
    assert "March 3" in kept.summary


def test_a_plan_and_its_correction_share_a_slot() -> None:
    e = _run("The launch ships on March 3.", "Update: the launch moved to March 10.")
    plans = [f for f in e.facts if f.kind is FactKind.PLAN]
    assert [f.slot for f in plans] == ["plan.launch", "plan.launch"]
    assert "(2027-03-03)" in plans[0].text and "(2027-03-10)" in plans[1].text


def test_german_word_order_and_a_date_outside_the_clause() -> None:
    e = _run(
        "Seit 2019 wohne ich in Leipzig.",
        "Morgen muss ich den Antrag abschicken.",
        "Im Team arbeiten wir mit Terraform und mit vielen Freunden.",
    )
    assert _slot(e, "identity.home").value == "Leipzig"
    assert [entity.name for entity in e.entities] == ["Leipzig", "Terraform"]
    action = next(f for f in e.facts if f.kind is FactKind.ACTION_ITEM)
    assert action.text == "Aufgabe des Nutzers: den Antrag abschicken (2026-12-03)."


def test_tools_and_household_facts() -> None:
    e = _run(
        "I mostly use Obsidian for my notes.",
        "We live in Ghent with two cats.",
        "I've been vegan since 2019.",
    )
    # The slot is what the tool is for, so another tool for notes replaces it.
    assert _slot(e, "tool.notes").text == "The user uses Obsidian for their notes."
    assert _slot(e, "identity.home").value == "Ghent"
    assert _slot(e, "preference.diet").value == "vegan"


def test_requests_and_pointers_into_the_chat_are_not_facts() -> None:
    e = _run(
        "Call me Monday about it.",
        "I like the second option better.",
        "I need to know how this works.",
        "Let's take a look at the logs.",
        "I'm a bit lost here.",
        "I have to go now.",
        "I like to think so.",
        "I'll take a look.",
        "Never mind.",
        "I'd like a recipe for tomorrow's dinner.",
    )
    assert e.facts == (), _texts(e)


def test_hedges_and_the_assistants_words_are_not_facts_in_any_language() -> None:
    e = _run(
        "J'aime bien ta réponse.",
        "Me gusta tu idea.",
        "Ich mag deine Antwort.",
        "Gosto da sua ideia.",
        "Creo que soy alérgico a las nueces.",
        "Ich glaube, ich bin allergisch gegen Nüsse.",
        "Je pense que je suis allergique au lait.",
        "Ich bin Anfänger.",
        "Mon frère adore le ski.",
    )
    assert e.facts == (), _texts(e)


def test_a_session_of_questions_is_summarised_by_quoting_them() -> None:
    e = _run(
        "How do I rotate the logs of the ingest service?",
        "Can the ingest service rotate logs by size instead of by day?",
        "ok thanks",
    )
    assert e.facts == ()
    assert e.summary.startswith("The user asked: “How do I rotate the logs of the ingest service?”")
    assert len(e.summary) <= 300


def test_a_greeting_on_its_own_still_introduces_the_name() -> None:
    e = _run(
        "Hi! I'm Marta, I write backend code for a bank.",
        "We chose Kafka for events, we need it for audit logs.",
    )
    assert _slot(e, "identity.name").value == "Marta"
    assert "need" not in e.topics


def test_a_decision_takes_its_category_from_the_nearby_turns() -> None:
    e = _run(
        "We need a message queue for the order events.", "Latency matters most.", "OK, let's go with NATS."
    )
    assert _slot(e, "choice.queue").turns == (2,)


def test_switching_and_targets_have_stable_slots() -> None:
    first = _run("For the billing service we'll go with PostgreSQL.", "My target wake-up time is 6:30.")
    later = _run("We're switching the billing service to MySQL.", "My target wake-up time is now 6:00.")
    assert _slot(first, "choice.billing_service").value != _slot(later, "choice.billing_service").value
    assert _slot(first, "target.wake_time").value == "6:30"
    assert _slot(later, "target.wake_time").value == "6:00"
    assert _slot(later, "target.wake_time").text == "The user's target wake-up time is 6:00."
