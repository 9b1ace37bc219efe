"""Corrections across slots, coreference, replayed chat logs and summary loops: each rule rejects and accepts."""

from __future__ import annotations

from collections.abc import Sequence

from memoryd.write.grounding import Extraction, GroundedFact, SourceTurn, extract, ground
from memoryd.write.grounding.stale import PERSON, THING, names_value, same_kind, stale_mentions
from memoryd.write.grounding.summary import repeats_run, third_person
from memoryd.write.grounding.text import without_speaker_labels
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import competes, plan_grounded, slot_key

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


def _run(*users: str) -> Extraction:
    turns = [SourceTurn(i, 500 + i, user, "Okay.") for i, user in enumerate(users)]
    return extract(turns, session_time_ms=SESSION_MS)


def _slotted(extraction: Extraction, slot: str) -> GroundedFact:
    found = [f for f in extraction.facts if f.slot == slot]
    assert found, [(f.slot, f.text) for f in extraction.facts]
    return found[-1]


def _pool(*facts: tuple[str, str]) -> list[ExistingFact]:
    return [ExistingFact(str(n), text, 0.7, 1, slot) for n, (text, slot) in enumerate(facts, 1)]


def _retired(facts: Sequence[GroundedFact], pool: Sequence[ExistingFact]) -> set[str]:
    plan = plan_grounded(facts, pool, [], lambda turns: tuple(turns))
    return {old for new in plan.facts.inserts for old in new.supersedes}


# ------------------------------------------------------------------------------------------- stale mentions
def test_a_person_who_left_the_role_is_a_stale_mention_in_any_wording() -> None:
    assert [(m.scope, m.value) for m in stale_mentions("Sadly Dr. Moreno retired last month.")] == [
        (PERSON, "Dr. Moreno")
    ]
    assert [m.value for m in stale_mentions("Dr Moreno has retired, sadly.")] == ["Dr Moreno"]
    assert [m.value for m in stale_mentions("Frau Keller ist in Rente gegangen.")] == ["Frau Keller"]
    assert [m.value for m in stale_mentions("Ce n'est plus le Dr Lambert qui me suit.")] == ["Dr Lambert"]


def test_a_dropped_tool_is_a_stale_mention_and_plain_remarks_are_not() -> None:
    assert [(m.scope, m.value) for m in stale_mentions("We moved our notes out of Evernote last week.")] == [
        (THING, "Evernote")
    ]
    assert [m.value for m in stale_mentions("Trello got too expensive for us.")] == ["Trello"]
    assert [m.value for m in stale_mentions("Ya no usamos Asana en el equipo.")] == ["Asana"]
    assert [m.value for m in stale_mentions("I can't face sugar any more.")] == ["sugar"]
    # Saying a tool's name, or that someone moved house, says nothing is over.
    assert stale_mentions("Trello is a bit slow today.") == ()
    assert stale_mentions("We moved to Leeds in May.") == ()
    assert stale_mentions("I switched it off.") == ()


def test_names_value_ignores_titles_and_needs_whole_words() -> None:
    assert names_value("The user's vet is Dr Li.", "Dr. Li")
    assert names_value("Tarefa: cancelar o Spotify.", "spotify")
    assert not names_value("The user's team is great.", "tea")


def test_same_kind_of_thing() -> None:
    assert same_kind("green tea in the morning", "coffee now")
    assert not same_kind("aisle seats", "coffee")


# ------------------------------------------------------------------------------ corrections across slots
def test_a_choice_for_the_db_replaces_one_for_the_database() -> None:
    first = _run("For the main database we'll use Postgres.")
    later = _run("Change of plan: we're switching to MariaDB for the DB.")
    assert slot_key(_slotted(first, "choice.database").slot) == slot_key(
        _slotted(later, "choice.database").slot
    )


def test_a_tool_for_a_purpose_shares_the_slot_of_a_choice_for_it() -> None:
    tool = _run("I use Todoist for my tasks.")
    assert _slotted(tool, "tool.tasks").value == "Todoist"
    assert slot_key("tool.tasks") == "choice.tasks"
    # A tool said without a purpose keeps a slot of its own: nothing else is replaced by it.
    assert _slotted(_run("I mostly use Figma."), "tool.figma").value == "Figma"


def test_a_correction_naming_the_old_tool_retires_it_and_nothing_else() -> None:
    later = _run("Wir sind von Trello weg, die Aufgaben laufen jetzt über Asana.")
    assert [f.value for f in later.facts if f.kind.value == "decision"] == ["Asana"]
    pool = _pool(
        ("Entscheidung des Nutzers: wir nehmen Trello für die Aufgaben.", "choice.aufgaben"),
        ("Der Nutzer arbeitet bei Bosch.", ""),
        ("Freundin des Nutzers: Trella.", "relation.friend.trella"),
    )
    assert _retired(later.facts, pool) == {"1"}


def test_a_person_leaving_retires_a_single_valued_relation_only() -> None:
    later = _run("Dr. Moreno is retiring, so Dr. Aziz is my new dentist.")
    assert _slotted(later, "relation.dentist").value == "Dr. Aziz"
    pool = _pool(
        ("The user's dentist is Dr. Moreno.", "relation.dentist"),
        ("The user's friend is Dr. Moreno.", "relation.friend.dr_moreno"),
    )
    assert _retired(later.facts, pool) == {"1"}
    # A friend who moved house is still a friend.
    moved = _run("My friend Ola moved to Oslo, and I'm visiting in June.")
    assert _retired(moved.facts, _pool(("The user's friend is Ola.", "relation.friend.ola"))) == set()


def test_a_restatement_of_a_replaced_relation_goes_with_it() -> None:
    later = _run("My manager is now Priya.")
    pool = _pool(
        ("The user's manager is Dana.", "relation.manager"),
        ("The user's manager, Dana, wants the roadmap by Friday.", "plan.roadmap"),
        ("Dana recommended a book on negotiation.", ""),
    )
    assert _retired(later.facts, pool) == {"1", "2"}


def test_a_plan_said_beside_a_relation_does_not_restate_it() -> None:
    e = _run("My landlord, Mr. Hale, wants the keys back by Friday.")
    plans = [f.text for f in e.facts if f.kind.value == "plan"]
    assert plans and all("Hale" not in text for text in plans), plans
    assert _slotted(e, "relation.landlord").value == "Mr. Hale"
    pt = _run("A minha dentista é a Dra. Reis e tenho consulta no dia 9 de março.")
    assert any("consulta" in f.text and "Reis" not in f.text for f in pt.facts if f.kind.value == "plan")


def test_a_liking_said_as_changed_retires_an_older_one_of_the_kind() -> None:
    later = _run("These days I prefer green tea.")
    pool = _pool(
        ("The user prefers espresso.", ""),
        ("The user prefers aisle seats.", ""),
        ("The user loves coffee.", ""),
    )
    assert _retired(later.facts, pool) == {"1"}
    # Said without a change, a liking adds to the others.
    assert _retired(_run("I prefer green tea.").facts, pool) == set()


# -------------------------------------------------------------------------------------------- coreference
def test_a_pronoun_relation_takes_the_last_name_before_it_but_never_the_one_who_left() -> None:
    e = _run("Dr. Nakamura retired. Her patients went to Dr. Brandt, so he's my doctor now.")
    assert _slotted(e, "relation.doctor").value == "Dr. Brandt"
    # Without a change said ("now", "new"), the pronoun path adds nothing.
    plain = _run("I saw Dr. Brandt today, and he is my doctor.")
    assert not [f for f in plain.facts if f.slot == "relation.doctor"], plain.facts
    assert not [f for f in _run("Ask Noor, she is my colleague.").facts if f.value == "Ask Noor"]


def test_the_new_one_takes_its_relation_from_the_turns_before() -> None:
    e = _run("Our vet is moving to Cork in spring.", "She leaves in April, the new one is Dr. Walsh.")
    assert _slotted(e, "relation.vet").value == "Dr. Walsh"
    assert not [f for f in _run("The new one is Dr. Walsh.").facts if f.slot.startswith("relation.")]


def test_the_new_relation_will_be_in_five_languages() -> None:
    assert _slotted(_run("The new dentist will be Dr. Osei."), "relation.dentist").value == "Dr. Osei"
    assert _slotted(_run("La nouvelle dentiste est la Dr Morel."), "relation.dentist").value == "Dr Morel"
    assert _slotted(_run("Die neue Zahnärztin ist Frau Brandt."), "relation.dentist").value == "Frau Brandt"


def test_an_adopted_pet_is_named_after_its_breed() -> None:
    e = _run("We adopted a greyhound called Comet in May!")
    assert _slotted(e, "pet.comet").text == "The user has a greyhound named Comet."
    assert not [
        f for f in _run("We adopted a plan called Phoenix at work.").facts if f.slot.startswith("pet.")
    ]


# ------------------------------------------------------------------------------------ more grammar read
def test_moves_targets_and_tasks_in_other_languages() -> None:
    assert _slotted(_run("On a déménagé à Nantes en janvier."), "identity.home").value == "Nantes"
    assert _slotted(_run("Mudámo-nos para Faro no verão."), "identity.home").value == "Faro"
    # A target said as a time is the user's target time, whatever verb says it ("bajar de", "correr en").
    assert _slotted(_run("Ahora el objetivo es bajar de 50 minutos."), "target.time").value.startswith(
        "bajar"
    )
    assert _slotted(_run("Mi objetivo es correr en 55 minutos."), "target.time").value.startswith("correr")
    german = _run("Erinnere mich, den Vertrag bis Freitag zu kündigen.")
    assert [f.kind.value for f in german.facts] == ["action_item"]
    french = _run("Il faut que je renouvelle mon passeport avant juin.")
    assert any(f.kind.value == "action_item" for f in french.facts)
    portuguese = _run("Tenho de lhe mandar o contrato até sexta.")
    assert any(f.kind.value == "action_item" for f in portuguese.facts)


def test_a_relation_after_an_article_in_portuguese_and_no_verb_as_a_role_in_spanish() -> None:
    assert _slotted(_run("O meu marido, o Rui, adora pescar."), "relation.partner").value == "Rui"
    assert not [f for f in _run("Hola, soy Marta, vivo en Bilbao.").facts if f.slot == "identity.role"]


def test_a_role_keeps_the_place_it_is_said_with() -> None:
    e = _run("I'm Joe, I'm a paramedic in Belfast.")
    assert _slotted(e, "identity.role").text == "The user is a paramedic in Belfast."


def test_a_reminder_asked_as_a_question_is_a_task() -> None:
    assert [f.kind.value for f in _run("Could you remind me to water the ferns on Sunday?").facts] == [
        "action_item"
    ]
    assert _run("Can you remind me what we decided?").facts == ()


def test_encouragement_and_phrasal_verbs_are_no_instruction_or_decision() -> None:
    assert _run("Never give up on your dreams!").facts == ()
    assert _run("Let's keep pushing, we got this.").facts == ()
    assert not [f for f in _run("I picked up a novel at the station.").facts if f.kind.value == "decision"]
    assert [f.kind.value for f in _run("Never use emojis when you answer me.").facts] == ["instruction"]


def test_function_words_and_adverbs_are_never_names() -> None:
    assert not [f for f in _run("Since our last chat, I've been busy.").facts if f.kind.value == "relation"]
    assert not [f for f in _run("Thankfully, my son's fine now.").facts if f.kind.value == "relation"]
    assert not [f for f in _run("My daughter Ana's school starts soon.").facts if f.value == "Ana's"]
    assert _slotted(_run("My son, Leo, starts school soon."), "relation.child.leo").value == "Leo"


# ----------------------------------------------------------------------------------- chat logs and summaries
def test_speaker_labels_are_stripped_only_where_the_log_repeats_them() -> None:
    users, assistants = without_speaker_labels(
        ["Mara: I just got back from Lisbon!", "Mara: We're painting the hall [shares a photo of a brush]."],
        ["Theo: Welcome back!", "Theo: Nice colour."],
    )
    assert users == ["I just got back from Lisbon!", "We're painting the hall."]
    assert assistants == ["Welcome back!", "Nice colour."]
    once, _ = without_speaker_labels(["Update: we moved to Leeds.", "Decision: Postgres."], ["Ok.", "Ok."])
    assert once == ["Update: we moved to Leeds.", "Decision: Postgres."]


def test_a_summary_never_repeats_a_four_word_run() -> None:
    turns = [
        SourceTurn(0, 1, "Kai: Way to go, Ines!", "Ines: Thanks."),
        SourceTurn(1, 2, "Kai: No worries, Ines!", "Ines: Sure."),
        SourceTurn(2, 3, "Kai: No worries, Ines!", "Ines: Ok."),
        SourceTurn(3, 4, "Kai: I'm opening a bakery in Galway next spring with my cousin.", "Ines: Great."),
    ]
    digest = ground(turns, None, session_time_ms=SESSION_MS)
    assert digest.summary and not repeats_run(digest.summary), digest.summary
    assert "Kai:" not in digest.summary and "bakery" in digest.summary
    assert repeats_run("The user is a nurse. The user is a runner.")
    assert not repeats_run("The user is a nurse. They run marathons.")


def test_me_after_a_verb_is_no_subject() -> None:
    assert third_person("She wants a plan from me by Friday.") == "She wants a plan from the user by Friday."
    assert "whies" not in third_person("It reminds me why I started.")
    assert third_person("I live in Cork.") == "The user lives in Cork."


def test_a_value_goes_on_past_a_title_dot() -> None:
    e = _run("Remind me to call Dr. Feld about the results.")
    assert [f.value for f in e.facts if f.kind.value == "action_item"] == ["call Dr. Feld about the results"]
    assert [f.value for f in _run("Remind me to call Dr. Feld.").facts if f.kind.value == "action_item"] == [
        "call Dr. Feld"
    ]


def test_a_name_only_in_the_assistants_reported_words_is_no_entity() -> None:
    e = _run(
        "You suggested Kotlin last time, but no, I'm staying with Swift.", "Both Kira and I write Swift."
    )
    names = {entity.name for entity in e.entities}
    assert "Kotlin" not in names and {"Swift", "Kira"} <= names


def test_contractor_shift_and_purpose_slots() -> None:
    first = _run("Our plumber is Sean Kelly.")
    later = _run("We let Sean go, the new plumber is Aoife Byrne.")
    assert _slotted(first, "relation.contractor").value == "Sean Kelly"
    assert _slotted(later, "relation.contractor").value == "Aoife Byrne"
    assert _slotted(_run("I'm on late shifts this month."), "identity.shift").value == "late shifts"
    assert not [f for f in _run("I shift my weight a lot when I run.").facts if f.slot == "identity.shift"]
    tool = _run("We're using Basecamp for client work.")
    moved = _run("We moved client work to Notion.")
    assert slot_key(_slotted(tool, "tool.client_work").slot) == _slotted(moved, "choice.client_work").slot
    # A date is not a tool: moving a meeting to Friday chooses nothing.
    assert not [f for f in _run("We moved the standup to Friday.").facts if f.kind.value == "decision"]


def test_a_target_is_named_by_its_event_or_its_measure() -> None:
    assert _slotted(_run("New target for the 5k: 24 minutes."), "target.5k.time").value == "24 minutes"
    # A target said without its event is replaced by a later one of the same measure, and only by that.
    assert competes("target.time", "target.york.time") and competes("target.york.time", "target.time")
    assert not competes("target.10k.time", "target.marathon.time")
    assert not competes("target.time", "target.amount")
    assert _slotted(_run("My goal is to save £8,000."), "target.amount").value.startswith("save")
    assert _slotted(_run("My goal is to get to 70 kg."), "target.weight").value.startswith("get")
    assert _slotted(_run("My goal is to learn Italian."), "target.learn").value == "learn Italian"


def test_no_stale_mention_from_a_hypothetical_a_question_or_someone_else() -> None:
    assert stale_mentions("If we ever moved off Postgres I'd be sad.") == ()
    assert stale_mentions("Should I drop Jira?") == ()
    assert stale_mentions("My sister ditched Netflix last year.") == ()
    assert stale_mentions("Anna dropped Netflix in May.") == ()
    assert [m.value for m in stale_mentions("Honestly, we ditched Netflix in May.")] == ["Netflix"]


def test_statements_kept_in_the_users_words() -> None:
    cases = {
        "I have type 1 diabetes.": ("health.type_1", "The user has type 1 diabetes."),
        "I teach chemistry at a school in Derby.": (
            "identity.role",
            "The user teaches chemistry at a school in Derby.",
        ),
        "I run a small pottery studio in Bath.": (
            "identity.business",
            "The user runs a small pottery studio in Bath.",
        ),
        "Our bakery is called Crumb.": ("named.bakery", "The user's bakery is called Crumb."),
        "I'm saving for a used van.": ("target.saving", "The user is saving for a used van."),
        "I'm learning Greek on Babbel.": ("learning.greek", "The user is learning Greek on Babbel."),
        "We're repainting the hallway this month.": (
            "project.hallway",
            "The user is repainting the hallway.",
        ),
        "My rent is £1,100 a month.": ("finance.rent", "The user's rent is £1,100 a month."),
        "Wir streichen gerade das Wohnzimmer.": (
            "project.wohnzimmer",
            "Projekt des Nutzers: Wir streichen gerade das Wohnzimmer.",
        ),
    }
    for said, (slot, text) in cases.items():
        assert _slotted(_run(said), slot).text == text, said
    # The same verbs saying something else state nothing of the kind.
    for said in (
        "I have a dog and two cats.",
        "I run every morning before work.",
        "I'm learning a lot here.",
        "My budget is tight this month.",
        "I'm saving time with the new script.",
    ):
        slots = [f.slot for f in _run(said).facts]
        assert not [
            s
            for s in slots
            if s.split(".")[0] in {"health", "identity", "learning", "finance", "target"}
            and s != "identity.role"
        ], (said, slots)


def test_a_date_changed_in_the_passive_or_with_change_keeps_the_events_slot() -> None:
    first = _run("My piano recital is on April 11.")
    for later in (
        "The piano recital was postponed to April 25.",
        "We changed the piano recital to April 25.",
    ):
        new = [f for f in _run(later).facts if f.kind.value == "plan"]
        assert any(competes(f.slot, _slotted(first, f.slot).slot) for f in new), (later, new)
    spanish = [f.slot for f in _run("Han retrasado la entrega al 10 de julio.").facts]
    assert spanish == [_slotted(_run("La entrega es el 3 de julio."), "plan.entreg").slot]
    # A past event said in the passive is no plan.
    assert not [f for f in _run("The recital was great last April.").facts if f.kind.value == "plan"]


def test_leaving_a_role_is_said_of_a_role_and_not_of_a_trip() -> None:
    assert [m.value for m in stale_mentions("Dana left last month.")] == ["Dana"]
    assert [m.value for m in stale_mentions("Dr. Harris left the practice.")] == ["Dr. Harris"]
    assert stale_mentions("Jon left early today.") == ()
    assert stale_mentions("Jon left for Paris.") == ()
    # A partner who moved is still the partner: only a professional role is retired by a person leaving.
    moved = _run("Sam moved to Paris for work, so we see each other on weekends.")
    assert _retired(moved.facts, _pool(("The user's partner is Sam.", "relation.partner"))) == set()


def test_a_habit_given_up_is_a_stale_mention() -> None:
    assert [m.value for m in stale_mentions("I don't drink coffee any more.")] == ["coffee"]
    assert [m.value for m in stale_mentions("I no longer eat meat.")] == ["meat"]
    assert stale_mentions("I don't drink coffee after 4pm.") == ()
    later = _run("I don't drink coffee any more.")
    assert _retired(later.facts, _pool(("The user loves coffee.", ""), ("The user loves tea.", ""))) == {"1"}


def test_a_habit_then_a_preference_of_the_same_kind() -> None:
    habit = _run("I drink tea in the morning.")
    assert [f.text for f in habit.facts] == ["The user drinks tea in the morning."]
    assert _run("I eat at 7 most days.").facts == ()
    later = _run("These days I prefer coffee.")
    pool = _pool(
        ("The user drinks tea in the morning.", ""),
        ("The user doesn't like tea.", ""),
        ("The user prefers window seats.", ""),
    )
    assert _retired(later.facts, pool) == {"1"}
    assert _slotted(_run("Usamos Basecamp para las tareas."), "tool.tareas").value == "Basecamp"
    doctor = _run("He cambiado de médico, ahora es el doctor Pons.")
    assert _slotted(doctor, "relation.doctor").value == "Pons"


def test_short_password_labels_and_more_codes_are_secrets() -> None:
    from memoryd.write.grounding import contains_secret, redact_secrets

    assert contains_secret("VPN pw: Heron-5521")
    assert redact_secrets("the key safe code is 9051") == "the key safe code is [redacted]"
    assert contains_secret("Our garage code is 2580.")
    assert not contains_secret("The code is ready for review.")
    assert not contains_secret("I write my pw reminders on paper.")
    e = _run("VPN pw: Heron-5521, don't lose it.")
    assert not [x for x in e.entities if "Heron" in x.name]


def test_a_date_said_of_it_belongs_to_the_event_said_before() -> None:
    e = _run("The product demo is on May 3.", "Update: we pushed it to May 10.", "Actually it is now May 17.")
    plans = [f for f in e.facts if f.slot == "plan.demo"]
    assert [f.text for f in plans][-1] == "The product demo is on May 17 (2027-05-17)."
    assert plans[-1].turns == (0, 1, 2)
    named = _run("I've just signed up for the Hull 10k.", "It's on June 7, early start.")
    assert [f.text for f in named.facts if f.slot == "plan.10k"] == [
        "The Hull 10k is on June 7 (2027-06-07)."
    ]
    # Without an event said before, "it" dates nothing; nor does "it" said without a date change.
    assert not [f for f in _run("We pushed it to May 10.").facts if f.kind.value == "plan"]
    assert (
        len([f for f in _run("The demo is on May 3.", "I love it, see you on May 9.").facts if f.slot]) == 1
    )


def test_third_person_agrees_after_adverb_phrases_not_on_them() -> None:
    """ "I no longer do the gigs" is "the user no longer does", never "the user noes longer do" (hand check, session
    15); "now", "once", "first" are adverbs before the verb, not verbs ("nows")."""
    assert third_person("I no longer do the gigs.") == "The user no longer does the gigs."
    assert third_person("I now work at Acme.") == "The user now works at Acme."
    assert third_person("I hardly ever drive.") == "The user hardly ever drives."
    assert third_person("I once lived in Rome.") == "The user once lived in Rome."
    assert third_person("I go to the gym.") == "The user goes to the gym."
