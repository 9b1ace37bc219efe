"""The structural reader (structure.py), standing requests (requests.py) and the summary filters added with them.

Each reading is shown to accept the structure in more than one language and wording, and to reject its look-alikes
(an opinion, a guess put in the user's mouth, a diet, a passive, a one-off request, a negation)."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import Extraction, FactKind, SourceTurn, extract
from memoryd.write.grounding.requests import standing_request
from memoryd.write.grounding.secrets import contains_secret, redact_secrets
from memoryd.write.grounding.unfit import unfit_reason

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


def _run(*users: str) -> Extraction:
    turns = [SourceTurn(i, 700 + i, user, "Okay.") for i, user in enumerate(users)]
    return extract(turns, session_time_ms=SESSION_MS)


def _texts(*users: str) -> list[str]:
    return [f.text for f in _run(*users).facts]


def _slot_texts(slot: str, *users: str) -> list[str]:
    return [f.text for f in _run(*users).facts if f.slot == slot]


# ------------------------------------------------------------------------------------------------ named roles
@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("Some changes. Our new supervising social worker is Owain Rees.", "Owain Rees"),
        ("Ernesto se ha jubilado. Mi nueva gestora es Marisa Ortún, de Ortún y Asociados.", "Marisa Ortún"),
        (
            "Herr Baumgärtner ist an den Bodensee gezogen. Meine neue Patin im Verein ist Frau Yildiz.",
            "Frau Yildiz",
        ),
        (
            "Mme Bazin a pris sa retraite. Mon nouvel œnologue, c'est M. Karim Benali, du labo.",
            "M. Karim Benali",
        ),
        ("A Jussara saiu. A nova barista-chefe é a Raíssa.", "Raíssa"),
        ("My bridesmaid Ottilie is organising the hen do.", "Ottilie"),
        ("Carol went on leave, so I'm with a new instructor now, Desmond, same school.", "Desmond"),
        ("Moving to a bookkeeper, Precious Mensah, she does it for 350.", "Precious Mensah"),
    ],
)
def test_a_named_role_is_read_over_any_noun_phrase(said: str, name: str) -> None:
    relations = [f for f in _run(said).facts if f.kind is FactKind.RELATION]
    assert any(f.value == name for f in relations), [(f.slot, f.text) for f in relations]


@pytest.mark.parametrize(
    "said",
    [
        "My favourite is Paris, by far.",
        "My wife thinks I'm a workaholic.",
        "Imaging is my friend Tariq's thing, he spends a fortune on it.",
        "My goal is Boston next year.",
    ],
)
def test_no_named_role_from_a_taste_an_opinion_or_a_possessor(said: str) -> None:
    names = [f.value for f in _run(said).facts if f.kind is FactKind.RELATION]
    assert not [n for n in names if n in ("Paris", "I'm", "Imaging", "Boston")], names


def test_the_person_now_doing_a_role_is_read_with_what_they_do() -> None:
    assert "Catriona Bell runs training." in _texts(
        "Hamish retired, so now it's Catriona Bell who runs training."
    )
    assert "The user now studies with Mr. Dafydd Rees." in _texts("So I study with Mr. Dafydd Rees now.")


# ----------------------------------------------------------------------------------------------- introductions
def test_an_introduction_is_read_segment_by_segment_in_five_languages() -> None:
    ruth = _run("Hi there! I'm Ruth, 52, a retired nurse in Norwich, and I've been dabbling with Duolingo.")
    assert {f.slot: f.text for f in ruth.facts if f.is_identity} == {
        "identity.name": "The user's name is Ruth.",
        "identity.age": "The user is 52 years old.",
        "identity.role": "The user is a retired nurse.",
        "identity.home": "The user lives in Norwich.",
    }
    # The town after a workplace ("bei einem Maschinenbauer in Stuttgart") is where the employer is: the role keeps
    # it in its words, no home is stated.
    jonas = _texts("Hallo! Ich bin Jonas Keller, 45, Projektleiter bei einem Maschinenbauer in Stuttgart.")
    assert "Der Nutzer ist Projektleiter bei einem Maschinenbauer in Stuttgart." in jonas
    assert "Der Nutzer wohnt in Stuttgart." not in jonas
    # The town of the job held is where the user works, not (a guess) where they live.
    assert "El usuario trabaja como pediatra en un centro de salud de Valencia." in _texts(
        "Hola, soy Lucía Fernández, pediatra en un centro de salud de Valencia."
    )
    luc = _texts("Salut. Luc Marchand, 67 ans, à la retraite.")
    assert "L'utilisateur s'appelle Luc Marchand." in luc and "L'utilisateur a 67 ans." in luc
    assert "The user lives in Leeds." in _texts("Hey coach-bot. Marcus here, 41, living in Leeds.")


@pytest.mark.parametrize(
    "said",
    [
        "Hola, soy Marta, vivo en Bilbao.",  # a verb of its own: no apposition (her name is read, not a role)
        "Du denkst bestimmt, ich bin Veganer, aber nein.",  # the assistant's belief, in the user's words
        "Tomates, courgettes, haricots.",  # a list, not a name with an age
        "Tu dois penser que je suis végétarienne, mais pas du tout.",
    ],
)
def test_no_introduction_from_a_clause_a_guess_or_a_list(said: str) -> None:
    facts = _run(said).facts
    assert not [f for f in facts if f.slot == "identity.role"]
    assert not [f for f in facts if f.slot == "identity.name" and f.value != "Marta"]


def test_jobs_businesses_and_studies_are_read_from_first_person_verbs() -> None:
    assert "The user runs a micro-bakery out of their garage in Galway." in _texts(
        "Hello. I run a micro-bakery out of my garage in Galway, mostly sourdough."
    )
    assert _slot_texts("identity.business", "Tengo un taller mecánico en Zaragoza.")
    assert not _slot_texts("identity.business", "Tengo un primo en Madrid.")  # a cousin is no business
    assert "The user got the senior radiographer post at the Queen Elizabeth University Hospital." in _texts(
        "Big news, I got the senior radiographer post at the Queen Elizabeth University Hospital, so I've moved!"
    )
    assert "The user works for the Environment Agency as a flood-risk analyst." in _texts(
        "Left the National Park, now I work for the Environment Agency as a flood-risk analyst."
    )
    assert "L'utilisateur est céramiste." in _texts(
        "Je m'appelle Amélie, je suis céramiste et j'ai un atelier."
    )
    assert not _slot_texts("identity.role", "Troquei de médica, agora sou seguida pela Dra. Pires.")


def test_a_named_thing_acquired_is_kept_and_an_unnamed_one_is_not() -> None:
    assert "The user bought a Brewzilla 65." in _texts(
        "I upgraded: sold the Grainfather and bought a Brewzilla 65 so I can do bigger batches."
    )
    assert any(
        "La Marzocco Linea Mini" in t
        for t in _texts("E comprei uma máquina nova, uma La Marzocco Linea Mini.")
    )
    assert not [t for t in _texts("I bought some flour and eggs.") if "bought" in t]


def test_a_business_partner_now_is_read_after_now() -> None:
    assert "El usuario trabaja ahora con Autopiezas Moncayo." in _texts(
        "He cambiado de proveedor: ahora compro a Autopiezas Moncayo, me entregan en dos horas."
    )


# ------------------------------------------------------------------------------------------- standing requests
@pytest.mark.parametrize(
    "said",
    [
        "Yes, please keep dynos out of anything you suggest until April.",
        "And when you list targets, give me the Messier number first and then the name.",
        "Yes, you can go down to magnitude 12 now for target lists.",
        "Rule one: no spoilers in anything you write that a player could read, I print handouts.",
        "Any meal ideas you give me must be peanut-free.",
        "Calcule les quantités pour 42 couverts par soir.",
        "Non ! Jamais de tartiflette l'été, c'est trop lourd.",
        "Bitte schreib mir alles in Stichpunkten.",
        "Please do, and give me distances in nautical miles, not kilometres.",
    ],
)
def test_a_standing_request_needs_no_always_or_never(said: str) -> None:
    assert standing_request(said, "fr" if "Calcule" in said or "Jamais" in said else "en")


@pytest.mark.parametrize(
    ("said", "lang"),
    [
        ("Give me a weekly plan.", "en"),
        ("Book me a hotel for tomorrow please.", "en"),
        ("No worries, thanks!", "en"),
        ("No vivo en Madrid.", "es"),
        ("Only asking, he's never once been late.", "en"),
        ("Can you give me all the options?", "en"),
    ],
)
def test_one_off_requests_negations_and_questions_are_no_standing_request(said: str, lang: str) -> None:
    assert standing_request(said, lang) == ""


def test_a_request_keeps_its_words_and_drops_its_reason() -> None:
    assert (
        standing_request("Nothing with maths, two of my players hate maths puzzles.") == "nothing with maths"
    )
    facts = _run("Bitte schreib mir alles in Stichpunkten, und du kannst mich duzen.").facts
    assert {f.value for f in facts if f.kind is FactKind.INSTRUCTION} == {
        "du kannst mich duzen",
        "schreib mir alles in Stichpunkten",
    }


# ------------------------------------------------------------------------------------------------- dated plans
def test_a_dated_plan_must_name_its_event() -> None:
    assert not [f for f in _run("He's booked for the 20th.").facts if f.kind is FactKind.PLAN]
    assert not [f for f in _run("Bis 15. August.").facts if f.kind is FactKind.PLAN]
    assert [f for f in _run("The dubbel brew is set for July 12th.").facts if f.kind is FactKind.PLAN]
    # The plan keeps the appointment it names; a weekday and an ordinal are when, not what.
    plans = [
        f.text
        for f in _run("I booked a physio, Dr. Nkemelu, for Thursday the 12th.").facts
        if f.kind is FactKind.PLAN
    ]
    assert plans and all("Nkemelu" in text for text in plans), plans


# ------------------------------------------------------------------------------------- summary filters, secrets
@pytest.mark.parametrize(
    ("sentence", "why"),
    [
        ("The user is thinking of a trip to La Palma next spring.", "hypothetical"),
        ("Would I be able to see Omega Centauri from Galloway?", "hypothetical"),
        ("Il fait un temps magnifique, 25 degrés au refuge, incroyable pour juin.", "small_talk"),
        ("Das Wetter in Kassel ist heute so grau, ich brauche dringend Sonne.", "small_talk"),
        ("Du bist bestimmt auch ein SAP-Fan, oder?", "small_talk"),
        ("Qué va, casi nada de eléctricos.", "assistant_guess"),
        ("Tienes pinta de ser de Madrid, ¿no? Hablas muy formal.", "small_talk"),
        (
            "Oh, the weekend's the Six Nations, so don't expect me to do anything useful on Saturday, ha.",
            "small_talk",
        ),
        ("We finally booked Haha Sushi for Friday.", ""),
        ("We moved the launch to May 9 because of the rain.", ""),
        ("It was 30 degrees so we cancelled the run on Sunday.", ""),
        ("I run a bakery in Galway.", ""),
    ],
)
def test_summary_filters_reject_what_they_should_and_keep_the_rest(sentence: str, why: str) -> None:
    assert unfit_reason(sentence) == why


def test_credentials_named_by_the_user_are_secrets_whatever_their_shape() -> None:
    assert contains_secret("Aqui está o IBAN para o Berger: PT50 0035 0651 0000 1234 5678 9.")
    assert not contains_secret("PT50 0035 0651 0000 1234 5678 9")  # bad check digits, and not called an IBAN
    assert redact_secrets("The rent account is the Monzo one, account 71839254.").endswith(
        "account [redacted]."
    )
    assert contains_secret("Here's my API key so you can check galleries: pxs_live_7Hq2Zr91KdfA0pLm.")
    assert contains_secret("Mi contraseña del portal de la Agencia Tributaria es Delicias_2026!, apúntala.")
    assert not contains_secret("My account 2024 summary: revenue up.")


# ------------------------------------------------------------------------------------- amounts and reminders
def test_an_amount_the_user_changes_is_a_decision_and_an_idle_to_is_not() -> None:
    assert "The user is raising their full-day package from £1,800 to £2,100 for 2027 bookings." in _texts(
        "Now, prices. I'm raising my full-day package from £1,800 to £2,100 for 2027 bookings."
    )
    # A budget is also a target amount (supersede's slot reader): either reading keeps the new amount, once.
    budget = _texts("And the budget went up to 30k because Raff's grandparents helped.")
    assert [t for t in budget if "budget" in t.lower() and "30k" in t] and len(budget) == 1, budget
    assert "Decisión del usuario: He subido la cuota a 40 euros." in _texts("He subido la cuota a 40 euros.")
    assert not [f for f in _run("I put the kettle on to 5.").facts if f.kind is FactKind.DECISION]


def test_a_reminder_asked_for_is_a_task_even_with_a_verb_that_alone_is_none() -> None:
    assert (
        "The user asked to be reminded to ask Precious about registering for Making Tax Digital."
        in _texts("Please remind me to ask Precious about registering for Making Tax Digital.")
    )
    assert not [f for f in _run("I need to ask you something.").facts if f.kind is FactKind.ACTION_ITEM]
    assert not [f for f in _run("Remind me to relax.").facts if f.kind is FactKind.ACTION_ITEM]
    german = _texts("Erinnere mich, Papas alte Wohnung in Baunatal bis zum 30. Juni zu kündigen.")
    assert any("30. Juni" in t and "kündigen" in t for t in german), german


def test_a_commitment_with_when_is_a_task_and_one_naming_nothing_is_not() -> None:
    assert "The user will export their YNAB history this weekend." in _texts(
        "Great, I'll export my YNAB history this weekend and import it."
    )
    assert "À faire pour l'utilisateur : commander le kit chez Leroy Merlin cette semaine." in _texts(
        "Je vais commander le kit chez Leroy Merlin cette semaine."
    )
    for said in (
        "I'll do it next week.",
        "I'll order one this week.",
        "I'll be there tomorrow.",
        "Uff, la revoco ahora mismo.",
    ):
        assert not [f for f in _run(said).facts if f.kind is FactKind.ACTION_ITEM], said


@pytest.mark.parametrize(
    ("said", "slot", "text"),
    [
        ("My name is Ellen, I'm 72 and retired, I used to be a librarian.", "identity.former_role",
         "The user used to be a librarian."),
        ("My name is Ellen, I'm 72 and retired.", "identity.role", "The user is retired."),
        ("I took up chess last year after retiring from teaching physics.", "identity.former_role",
         "The user retired from teaching physics."),
        ("I manage two flats on top of my job as a nurse.", "identity.role", "The user works as a nurse."),
        ("Entre les enfants et mon métier d'infirmière, je cours.", "identity.role", "L'utilisateur travaille comme infirmière."),
        ("I brew beer in my garage in Bristol, mostly Belgian styles.", "identity.home", "The user lives in Bristol."),
        ("J'habite près de Bordeaux, à Pessac.", "identity.home", "L'utilisateur habite près de Bordeaux."),
        ("I'm Olga, a postdoc in marine biology.", "identity.role", "The user is a postdoc."),
    ],
)  # fmt: skip
def test_former_jobs_jobs_said_in_passing_and_a_home_of_ones_own(said: str, slot: str, text: str) -> None:
    assert _slot_texts(slot, said) == [text]


@pytest.mark.parametrize(
    ("said", "slot"),
    [
        ("I used to be a fan of the Yankees.", "identity.former_role"),
        ("My sister used to be a librarian.", "identity.former_role"),
        ("My job as a parent is never done.", "identity.role"),
        ("We stayed in my friend's flat in Lisbon.", "identity.home"),
    ],
)
def test_no_job_or_home_from_a_taste_someone_else_or_someone_elses_place(said: str, slot: str) -> None:
    assert _slot_texts(slot, said) == []


def test_a_job_said_in_passing_is_cut_at_its_clause() -> None:
    assert _slot_texts("identity.role", "Mon métier d'infirmière me prend beaucoup de temps.") == []


def test_a_role_the_user_shares_with_someone_of_theirs_is_the_users_too() -> None:
    said = "My husband Gareth and I are foster carers in Swansea, we've been approved for two years."
    assert _slot_texts("identity.role", said) == ["The user and their husband are foster carers in Swansea."]
    assert _slot_texts("identity.role", "My sister and I are huge fans of Arsenal.") == []
    assert _slot_texts("identity.role", "My friend and I are going to Paris.") == []


def test_a_job_said_with_the_job_as_subject_is_the_users_only_when_it_is_theirs() -> None:
    said = "Day job is a pharmacist at a Boots in the city centre."
    assert _slot_texts("identity.role", said) == ["The user works as a pharmacist."]
    assert _slot_texts("identity.role", "Her job is a pharmacist.") == []
    assert _slot_texts("identity.role", "My job is a nightmare at the moment.") == []


@pytest.mark.parametrize(
    "said",
    [
        "When you give me vocab, always include the kana and the romaji.",
        "Whenever you suggest recipes, never use peanuts.",
        "And please correct my Japanese when I try writing it.",
        "Corrige mes fautes quand j'écris en espagnol.",
    ],
)
def test_a_rule_under_a_condition_is_a_standing_instruction(said: str) -> None:
    kinds = [f.kind for f in _run(said).facts]
    assert kinds == [FactKind.INSTRUCTION]


@pytest.mark.parametrize(
    "said",
    [
        "When is the race?",
        "When I get home, how do I reset it?",
        "When you came to see me, I was always late.",
        "Please send me the file when I get home.",
    ],
)
def test_a_question_a_past_when_or_a_one_off_request_is_no_standing_instruction(said: str) -> None:
    assert not any(f.kind is FactKind.INSTRUCTION for f in _run(said).facts)


@pytest.mark.parametrize(
    ("said", "text"),
    [
        ("I want to hit 1800 by the end of the year.", "The user's goal: hit 1800 by the end of the year."),
        ("I'm stuck on V3 and I want to send my first V5 by the summer.",
         "The user's goal: send their first V5 by the summer."),
        ("Je veux finir la thèse d'ici l'été.", "Objectif de l'utilisateur : finir la thèse d'ici l'été."),
        ("Quiero correr la media maratón antes de junio.",
         "Objetivo del usuario: correr la media maratón antes de junio."),
    ],
)  # fmt: skip
def test_a_goal_with_its_deadline_is_a_target(said: str, text: str) -> None:
    assert text in _texts(said)


def test_someone_elses_goal_is_no_target_of_the_users() -> None:
    assert not any(f.slot.startswith("target") for f in _run("My son wants to pass his test by June.").facts)
