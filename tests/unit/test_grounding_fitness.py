"""Issue 22, distill28: whose clause a fact comes from, co-held roles, introductions, secrets and small talk.

Every rule is tested both ways: what it must reject and a near sentence it must keep."""

from __future__ import annotations

from memoryd.write.grounding import SourceTurn, extract
from memoryd.write.grounding.clauses import statement_clauses
from memoryd.write.grounding.model import FactKind
from memoryd.write.grounding.secrets import contains_secret, redact_secrets
from memoryd.write.grounding.text import sentences
from memoryd.write.grounding.unfit import digressions, unfit_reason

#: 2026-06-01 12:00 UTC.
SESSION_MS = 1_780_315_200_000


def _facts(*users: str) -> list[tuple[str, str, str]]:
    turns = [SourceTurn(i, 700 + i, user, "Okay.") for i, user in enumerate(users)]
    return [(f.kind.value, f.slot, f.text) for f in extract(turns, session_time_ms=SESSION_MS).facts]


def _texts(*users: str) -> str:
    return " | ".join(text for _, _, text in _facts(*users))


def test_a_plan_whose_clause_is_another_persons_is_not_the_users() -> None:
    assert "started" not in _texts("She started on the 1st and she's very sharp.")
    assert "part" not in _texts("Elle part à Lyon le 12 juin.")
    # the user in the clause, or an impersonal "they": the user's own plan
    assert "June 12" in _texts("She and I fly to Lyon on June 12.") or "2026-06-12" in _texts(
        "She and I fly to Lyon on June 12."
    )
    assert "2026-06-19" in _texts("They rescheduled my exam for June 19.")


def test_a_shift_is_named_with_shift_or_a_plural() -> None:
    assert not any(
        slot == "identity.shift"
        for _, slot, _ in _facts("The federation moved me to Karen on the Morning Tern.")
    )
    assert not any(
        slot == "identity.shift" for _, slot, _ in _facts("Always remind me the day before, not on the day.")
    )
    assert any(slot == "identity.shift" for _, slot, _ in _facts("I'm on nights again from Monday."))
    assert any(slot == "identity.shift" for _, slot, _ in _facts("I work the early shift now."))


def test_an_introduction_reads_acronyms_a_label_and_a_repeated_copula() -> None:
    said = _texts("Hello. Callum, 41, PE teacher at a secondary in Folkestone.")
    assert "PE teacher" in said and "Folkestone" in said
    said = _texts("I'm Dolores Finch, I'm 71 and a retired district nurse in Norwich.")
    assert "retired district nurse" in said and "71" in said and "Norwich" in said
    said = _texts("Je me présente : Bastien, 29 ans, menuisier chez Kerhervé à Quimperlé.")
    assert "Bastien" in said and "menuisier" in said
    # a number that is no age introduces no one
    assert not any(slot == "identity.name" for _, slot, _ in _facts("Yearly, 3,100 pounds."))
    assert not any(slot == "identity.name" for _, slot, _ in _facts("Update: Berlin, 2 days, then Prague."))


def test_two_predicate_nouns_of_one_copula_are_two_clauses() -> None:
    assert statement_clauses("I'm a retired librarian and an independent town councillor in Frome.") == [
        "I'm a retired librarian",
        "I'm an independent town councillor in Frome.",
    ]
    assert statement_clauses("I'm a big fan of trains and buses.") == ["I'm a big fan of trains and buses."]


def test_roles_said_side_by_side_are_all_held_and_a_change_still_replaces() -> None:
    facts = _facts("I'm a retired librarian and an independent town councillor in Frome.")
    roles = [
        (slot, text)
        for kind, slot, text in facts
        if kind == FactKind.IDENTITY.value and ("librarian" in text or "councillor" in text)
    ]
    assert len(roles) == 2
    assert [slot for slot, _ in roles].count("identity.role") == 1
    changed = _facts("I'm a nurse.", "I'm now a ward manager.")
    assert [slot for kind, slot, text in changed if "nurse" in text or "manager" in text].count(
        "identity.role"
    ) == 2


def test_a_spanish_work_shift_or_a_job_offered_to_someone_is_no_role() -> None:
    said = _facts("Trabajo de mañana lunes, miércoles y viernes.")
    assert not any(slot == "identity.role" for _, slot, _ in said)
    assert not any(
        slot == "identity.employer" for _, slot, _ in _facts("A Andrés le han ofrecido trabajo en Alicante.")
    )
    assert any(slot == "identity.role" for _, slot, _ in _facts("Trabajo de enfermera en el Clínico."))
    assert any(slot == "identity.employer" for _, slot, _ in _facts("Trabajo en Iberdrola desde 2019."))
    scoped = _facts("Desde marzo trabajo de mañana todos los días.")
    assert any(slot == "identity.shift" and "todos los días" in text for _, slot, text in scoped)


def test_a_key_or_a_login_pasted_after_a_colon_is_a_secret() -> None:
    assert "7F3A9C2E" not in redact_secrets(
        "Here's the key for the Steamworks web API so you can check my store page stats: 7F3A9C2E51B04D88A6E1F0C2D9B7A431."
    )
    said = redact_secrets(
        "Here's the box office login so you can check my ticket numbers: maeveg / Bookies4Nan! Thanks."
    )
    assert "Bookies4Nan" not in said and "Thanks." in said
    assert not contains_secret("The key dates: March 3 and April 4.")
    assert not contains_secret("My login: I use the work laptop, mostly.")


def test_a_spectators_question_and_the_sentence_continuing_it_are_small_talk() -> None:
    for said in (
        "T'as vu le match France-Écosse samedi ?",
        "Viu o clássico ontem?",
        "¿Viste el partido de anoche?",
    ):
        assert unfit_reason(said) == "small_talk", said
    assert unfit_reason("Quelle fin de match !") == "small_talk"
    assert (
        unfit_reason("Wahnsinn, dieser Fasching übrigens, in der ganzen Stadt nur Konfetti.") == "small_talk"
    )
    assert unfit_reason("Il fait déjà une chaleur pas possible, la vitrine tourne à fond.") == "small_talk"
    # the user's own news, even exclaimed, is kept
    assert unfit_reason("Que bom, reservei o hotel!") == ""
    assert unfit_reason("What a week, I signed the lease on the shop!") == ""
    turn = sentences(
        "Oi! Viu o clássico ontem? O Galo perdeu de novo. Enfim, preciso fazer o pedido de farinha até sexta."
    )
    aside = digressions(turn)
    assert [turn[i] for i in sorted(aside)] == ["O Galo perdeu de novo."]


def _instructions(*users: str) -> list[str]:
    return [text for kind, _, text in _facts(*users) if kind == FactKind.INSTRUCTION.value]


def test_after_a_condition_on_the_assistants_doing_a_verbless_rule_is_standing() -> None:
    said = _instructions("When you summarise things for me, bullet points please.")
    assert said and "when you summarise things for me, bullet points" in said[0]
    assert _instructions(
        "Y cuando me escribas textos para la web, que sean cercanos, sin palabras rimbombantes."
    )
    assert _instructions(
        "Et à partir de maintenant, quand je te demande un mail, fais-le court, cinq lignes maximum."
    )
    # a moment is no kind of task, and a clause with a subject of its own is a statement
    assert not _instructions("When you get a chance, ok.")
    assert not _instructions("When you have a minute, check the invoice.")
    assert not _instructions("When you write to the council, I usually sign it myself.")


def test_a_label_before_a_rule_is_no_part_of_it() -> None:
    assert _instructions("Ground rule: never write jokes for me.") == [
        "Standing instruction from the user: never write jokes for me."
    ]
    assert not _instructions("Quick update: I never write on Sundays.")


def test_a_reply_to_a_question_about_a_pronoun_or_a_formula_is_no_answer_fact() -> None:
    def answered(question: str, reply: str) -> list[str]:
        turns = [SourceTurn(0, 1, "Hi.", question), SourceTurn(1, 2, reply, "Okay.")]
        facts = extract(turns, session_time_ms=SESSION_MS).facts
        return [f.text for f in facts if "answer" in f.text]

    assert not answered("Were you able to find another?", "Yes, thank God.")
    assert not answered("How often do you see her?", "Every three months.")
    assert answered("How often do you see your consultant?", "Every three months.")


def test_what_the_user_runs_is_an_identity_fact_and_running_as_exercise_is_not() -> None:
    said = _facts("I run Quayside Books, a second-hand and new bookshop in Whitby, with my partner Ottilie.")
    runs = [text for _, slot, text in said if slot.startswith("identity.business")]
    assert runs == ["The user runs Quayside Books, a second-hand and new bookshop in Whitby."]
    assert any(
        slot.startswith("identity.business") for _, slot, _ in _facts("Je tiens une fromagerie à Besançon.")
    )
    assert any(
        slot.startswith("identity.business")
        for _, slot, _ in _facts("Llevo una casa rural en Cangas de Onís.")
    )
    for said_ in ("I run 10k every morning.", "I have a dog.", "I run the numbers every Friday."):
        assert not any(slot.startswith("identity.business") for _, slot, _ in _facts(said_)), said_
    two = _facts("I run a bakery in Hove.", "We also run a food truck at weekends.")
    assert len({slot for _, slot, _ in two if slot.startswith("identity.business")}) == 2


def test_rules_said_without_a_verb_or_with_a_reminder_verb_are_standing() -> None:
    assert _instructions("So code questions in GDScript from now on, not C#.")
    assert _instructions("But no grapefruit ever, it interferes with my tacrolimus.") == [
        "Standing instruction from the user: no grapefruit ever, it interferes with my tacrolimus."
    ]
    assert _instructions("One rule for you: quantities in metric, grams and litres, never ounces or gallons.")
    assert _instructions("About reminders: always remind me the day before something, not on the day.")
    # a liking said beside a rule does not block the rule
    said = _facts(
        "Send me reminders the day before a recording, never on the same day, I hate last-minute pings."
    )
    assert any(kind == FactKind.INSTRUCTION.value for kind, _, _ in said)
    # statements with "from now on" and a verb of their own, and a first-person subject, are no rules
    assert not _instructions("From now on the meetings are on Tuesdays.")
    assert not _instructions("I'm vegan from now on.")
    assert not _instructions("Rules of the club: members only on Sundays.")


def test_a_decision_whose_that_is_left_out_is_read() -> None:
    said = _facts("I've decided I'll open the batting myself.")
    assert any(kind == FactKind.DECISION.value and "open the batting" in text for kind, _, text in said)
    assert not any(
        kind == FactKind.DECISION.value for kind, _, _ in _facts("I've decided, it's too late now?")
    )
