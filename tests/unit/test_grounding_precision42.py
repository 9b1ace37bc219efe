"""Issue 22, distill42: what the blind set v12 found — a decimal read as a date, a sports result, another person's
liking behind a long relation noun, a change that does not say what changed, a request withdrawn at once, a
schedule read as a tool chosen, a compound relation noun read as a name, words that are no entity.

Every rule is tested both ways: what it must change or reject, and a near sentence it must leave alone."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import SourceTurn, extract
from memoryd.write.grounding.corrections import repaired, withdrawn
from memoryd.write.grounding.dates import find_dates
from memoryd.write.grounding.entities import _candidates
from memoryd.write.grounding.revisions import _masked as masked_values
from memoryd.write.grounding.revisions import _says_what
from memoryd.write.grounding.slotfill import switched
from memoryd.write.grounding.unfit import unfit_reason

#: 2026-03-02, a Monday, 12:00 UTC.
SESSION_MS = 1_772_452_800_000


def _texts(*users: str) -> str:
    turns = [SourceTurn(i, 900 + i, user, "Okay.") for i, user in enumerate(users)]
    return " | ".join(f.text for f in extract(turns, session_time_ms=SESSION_MS).facts)


def _isos(text: str) -> list[str]:
    return [m.iso for m in find_dates(text, SESSION_MS)]


# --- a decimal number is no day of a month, and its point ends no value
@pytest.mark.parametrize(
    ("text", "isos"),
    [
        ("Die Eierschecke kostet ab März 3,50.", ["2026-03"]),
        ("From May 2.5 kg a week.", ["2026-05"]),
        ("A partir de mayo 12,50 la sesión.", ["2026-05"]),
        ("Le café coûte 2,80 depuis le 3 mars.", ["2026-03-03"]),
    ],
)
def test_a_decimal_after_a_month_is_a_number_not_a_day(text: str, isos: list[str]) -> None:
    assert [iso[: len(want)] for iso, want in zip(_isos(text), isos, strict=True)] == isos


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("The fair is on March 3, 2027.", "2027-03-03"),
        ("From May 25 we close.", "2026-05-25"),
        ("Am 3. März kostet es 3,50.", "2026-03-03"),
    ],
)
def test_a_day_number_still_reads_as_a_day(text: str, iso: str) -> None:
    found = _isos(text)
    assert (found[0] if found else "") == iso


def test_a_decimal_point_does_not_cut_a_value() -> None:
    said = _texts("Remind me to order more 23.5 carat transfer leaf by Friday.")
    assert "23.5 carat transfer leaf" in said
    said = _texts("Remind me to order more leaf. Then call Kezia.")
    assert "order more leaf" in said and "Kezia" not in said.split("order more leaf")[1][:12]


def test_a_price_with_a_decimal_comma_stays_whole() -> None:
    turns = [SourceTurn(0, 900, "Die Eierschecke kostet ab März 3,50.", "3,50 Euro.")]
    february = SESSION_MS - 5 * 86_400_000
    said = " | ".join(f.text for f in extract(turns, session_time_ms=february).facts)
    assert "3,50" in said and "(2026-03-03)" not in said


# --- a sports result said of a named side is small talk
@pytest.mark.parametrize(
    "sentence",
    [
        "Wednesday lost again, grim weekend all round.",
        "Arsenal won again.",
        "Le Stade a encore perdu.",
        "El Betis perdió otra vez.",
        "Der HSV hat wieder verloren.",
        "O Galo perdeu de novo.",
    ],
)
def test_a_named_sides_result_is_small_talk(sentence: str) -> None:
    assert unfit_reason(sentence) == "small_talk"


@pytest.mark.parametrize(
    "sentence",
    [
        "We lost again.",
        "I won the county triples on 16 May.",
        "Tom won the raffle for the club.",
        "Wednesday works for the install.",
        "Nous avons gagné le tournoi le 3 mai.",
    ],
)
def test_the_users_own_result_or_a_weekday_plan_is_not_a_sports_result(sentence: str) -> None:
    assert unfit_reason(sentence) != "small_talk"


def test_a_sports_result_is_no_plan() -> None:
    assert "lost" not in _texts("Wednesday lost again, grim weekend all round.")


# --- another person's liking, behind a relation noun of up to three words
@pytest.mark.parametrize(
    "sentence",
    [
        "My new practice manager likes everyone in by 7:45, which is brutal.",
        "Ma nouvelle cheffe de service aime que tout le monde arrive à 7h.",
        "Mi nuevo jefe de sala prefiere los turnos de mañana.",
        "Meine neue Praxis Managerin mag es, wenn alle um 7 da sind.",
        "O meu novo chefe de turno prefere o turno da manhã.",
    ],
)
def test_a_liking_behind_a_long_relation_noun_is_theirs(sentence: str) -> None:
    assert unfit_reason(sentence) == "third_party"


@pytest.mark.parametrize(
    "sentence",
    [
        "My new practice manager is Sian Morgan.",
        "I like everyone in by 7:45.",
        "My husband and I love the Peak District.",
        "My new practice is in Canton.",
    ],
)
def test_the_relation_itself_or_the_users_liking_is_not_a_third_party(sentence: str) -> None:
    assert unfit_reason(sentence) == ""


# --- a change said plainly names what changed
@pytest.mark.parametrize(
    "sentence",
    [
        "It's the 31st of March now.",
        "Not the 17th any more, they moved it again.",
        "C'est le 12 mai maintenant.",
        "Ahora es el 3 de mayo.",
        "Jetzt ist es der 4. April.",
        "Agora é dia 4 de abril.",
    ],
)
def test_a_new_day_of_something_unnamed_says_no_topic(sentence: str) -> None:
    said = masked_values(sentence)
    assert not _says_what(said.values, said.skeleton)


@pytest.mark.parametrize(
    "sentence",
    [
        "Kasia now comes on Fridays.",
        "Now ordering from Extra UK.",
        "The vet is now Dr Patel.",
        "La réunion est maintenant le 12 mai.",
        "Die Prüfung ist jetzt am 4. April.",
    ],
)
def test_a_change_that_names_its_thing_says_a_topic(sentence: str) -> None:
    said = masked_values(sentence)
    assert _says_what(said.values, said.skeleton)


# --- a request withdrawn at once
@pytest.mark.parametrize(
    ("turn", "kept"),
    [
        ("Book me in for a regulation course at Fazioli? No, forget it, just thinking aloud.", ""),
        ("Thanks. Book the Ritz. Never mind.", "Thanks."),
        ("Réserve-moi le train de 8h. Non, laisse tomber.", ""),
        ("Reserva el hotel Palace. Olvídalo, da igual. Mi dentista es Ana.", "Mi dentista es Ana."),
        ("Buch mir einen Kurs bei Steinway. Nein, vergiss es, nur laut gedacht.", ""),
        ("Marca-me o curso na Yamaha. Não, esquece.", ""),
    ],
)
def test_a_sentence_withdrawn_at_once_is_dropped(turn: str, kept: str) -> None:
    assert withdrawn(turn) == kept
    assert repaired(turn) == kept


@pytest.mark.parametrize(
    "turn",
    [
        "Never mind, I'll call them myself.",
        "Remind me to call Bob. Never mind, I'll do it myself.",
        "Forget it.",
        "I always forget it. Thanks.",
    ],
)
def test_a_withdrawal_with_more_to_say_or_nothing_before_it_stays(turn: str) -> None:
    assert withdrawn(turn) == turn


def test_a_withdrawn_request_names_no_entity_and_no_summary() -> None:
    turns = [
        SourceTurn(
            0,
            900,
            "Book me in for a regulation course at Fazioli? No, forget it, just thinking aloud.",
            "Ok.",
        ),
        SourceTurn(1, 901, "I drive a Ford Transit Connect now.", "Noted."),
    ]
    done = extract(turns, session_time_ms=SESSION_MS)
    assert "Fazioli" not in done.entities
    assert "Fazioli" not in done.summary


# --- a schedule moved to weekdays is no tool chosen
@pytest.mark.parametrize(
    "clause",
    [
        "I've swapped my courses to Thursdays and Fridays",
        "We've switched the market to Saturday",
    ],
)
def test_a_weekday_switched_to_is_no_choice(clause: str) -> None:
    assert switched(clause, 0, "en") is None


def test_a_provider_switched_to_is_still_a_choice() -> None:
    fact = switched("We've switched to Evri for shipping", 0, "en")
    assert fact is not None and "Evri" in fact.text


# --- a compound relation noun followed by a copula and a number names no one
@pytest.mark.parametrize(
    "turn", ["My bank PIN is 0415, I always forget it.", "Mi banco PIN es 1234.", "O meu banco PIN é 1234."]
)
def test_a_relation_noun_before_a_copula_and_a_number_names_no_holder(turn: str) -> None:
    assert "PIN" not in _texts(turn)


@pytest.mark.parametrize(
    ("turn", "name"),
    [
        ("My bank is Nationwide.", "Nationwide"),
        ("My vet is Anna, she is 42.", "Anna"),
        ("My son Leo is 7.", "Leo"),
    ],
)
def test_a_relation_with_its_holder_named_stays(turn: str, name: str) -> None:
    assert name in _texts(turn)


# --- words that are no entity
@pytest.mark.parametrize(
    "sentence",
    [
        "Nenn Preise bitte immer in Euro netto.",
        "Always give prices in pounds with the VAT shown separately.",
        "Mon IBAN est à jour, la TVA aussi.",
        "Bitte antworte auf Deutsch und kurz.",
        "Nein, kein Café.",
        "I teach on Saturdays and Sundays.",
        "Trabajo los Sábados.",
    ],
)
def test_generic_capitalised_words_are_no_entities(sentence: str) -> None:
    assert _candidates(sentence) == [] or all(at_start for _, at_start in _candidates(sentence))


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        ("Ask Marta please.", "Marta"),
        ("I teach on Saturdays with Lowenna.", "Lowenna"),
        ("Ich arbeite bei SAP.", "SAP"),
        ("I drive a Peugeot Partner.", "Peugeot Partner"),
        ("We bank with Credit Union Deutschland.", "Credit Union Deutschland"),
    ],
)
def test_names_beside_generic_words_stay(sentence: str, name: str) -> None:
    assert name in [found for found, _ in _candidates(sentence)]


# --- a full name introduced without "I'm"
def _introduced(turn: str, reply: str) -> str:
    done = extract([SourceTurn(0, 900, turn, reply)], session_time_ms=SESSION_MS)
    return " | ".join(f.text for f in done.facts)


@pytest.mark.parametrize(
    ("turn", "reply", "wanted"),
    [
        ("Hello. Cassius Abernethy, piano tuner and technician, based in Dundee.", "Hello Cassius.", ["Cassius Abernethy", "piano tuner"]),
        ("Evening. Lysander Quarshie, railway signaller at Sutton Bridge Junction box.", "Evening, Lysander.", ["Lysander Quarshie", "signaller"]),
        ("Hello! Clementine Ashdown-Roy, I make chocolates in a little shop in Bath.", "Hello Clementine!", ["Clementine Ashdown-Roy"]),
        ("Hallo, Ottilie Brandhuber hier, Goldschmiedin mit eigener Werkstatt in Pforzheim.", "Hallo Frau Brandhuber.", ["Ottilie Brandhuber", "Goldschmiedin"]),
        ("Bonjour ! Bérénice Lemaréchal, ostéopathe à Nantes, mon cabinet est rue Crébillon.", "Bonjour Bérénice.", ["Bérénice Lemaréchal"]),
    ],
)  # fmt: skip
def test_a_full_name_opening_the_session_is_the_users(turn: str, reply: str, wanted: list[str]) -> None:
    said = _introduced(turn, reply)
    assert all(w in said for w in wanted), said


@pytest.mark.parametrize(
    ("turn", "reply"),
    [
        ("Morning. Scrapped Bookwhen, too fiddly for customers.", "Fair enough."),
        ("Hello. Cassius Abernethy, piano tuner and technician, based in Dundee.", "What can I do?"),
        ("Evening. Lysander Quarshie, railway signaller at Sutton Bridge Junction box.", "Okay."),
    ],
)
def test_a_full_name_the_reply_does_not_greet_is_not_read_as_the_users(turn: str, reply: str) -> None:
    assert "user's name" not in _introduced(turn, reply)


@pytest.mark.parametrize(
    "turn",
    [
        "Hi. Tegan Price, my sister, asked me to plan a trip.",
        "Sutton Bridge. I work there.",
        "Evening. Tegan, can you help?",
    ],
)
def test_a_name_that_is_someone_else_or_a_place_is_no_introduction(turn: str) -> None:
    assert "user's name" not in _texts(turn)


@pytest.mark.parametrize(
    ("turn", "name"),
    [
        ("yo. I'm Tobias, 27, solo indie dev in Bristol.", "Tobias"),
        ("Hola, buenas. Soy Maite, tengo 44 años y llevo una casa rural.", "Maite"),
        ("Hello! I'm Farida, second-year trainee solicitor at Pembury Lowe.", "Farida"),
    ],
)
def test_a_first_person_opening_is_no_part_of_the_name(turn: str, name: str) -> None:
    said = _texts(turn)
    assert name in said and "I'm " + name not in said and "Soy " + name not in said


def test_a_full_names_age_is_read_as_said() -> None:
    said = _texts("Salut. Luc Marchand, 67 ans, à la retraite. J'habite à Pessac.")
    assert "67 ans" in said


def test_a_full_name_later_in_the_session_is_no_introduction() -> None:
    said = _texts("I need a hand with the rota.", "Ezekiel Thwaite. I run the kennels with him.")
    assert "user's name" not in said


# --- a reminder asked for with a noun ("set me a reminder to …")
@pytest.mark.parametrize(
    ("turn", "wanted"),
    [
        ("Set me a reminder to revise the rule book two days before the assessment.", "revise the rule book"),
        ("Please set a reminder to call Bob on Friday.", "call Bob"),
        ("Mets-moi un rappel pour appeler le comptable vendredi.", "appeler le comptable"),
        ("Ponme un recordatorio para llamar al gestor el viernes.", "llamar al gestor"),
        ("Stell mir bitte eine Erinnerung für die Steuererklärung am 3. Mai.", "Steuererklärung am 3. Mai"),
        ("Põe-me um lembrete para ligar ao contabilista na sexta.", "ligar ao contabilista"),
    ],
)
def test_a_reminder_asked_for_with_a_noun_is_an_action_item(turn: str, wanted: str) -> None:
    assert wanted in _texts(turn)


@pytest.mark.parametrize(
    "turn",
    [
        "I set a reminder to call Bob, it worked.",
        "We set a reminder for the vet.",
        "The reminder to call Bob was useful.",
    ],
)
def test_a_reminder_the_user_set_themselves_is_no_request(turn: str) -> None:
    assert "remind" not in _texts(turn)


# --- a role said after its holder's name, closing the clause
@pytest.mark.parametrize(
    ("turn", "name"),
    [
        ("Her hip is bad, so Maureen Threlfall is our skip for now.", "Maureen Threlfall"),
        ("Paul Girard est notre chef d'équipe pour l'instant.", "Paul Girard"),
        ("Ana Ruiz es nuestra gestora ahora.", "Ana Ruiz"),
        ("Frau Roth ist unsere Patin.", "Frau Roth"),
        ("A Rita é a nossa contabilista.", "Rita"),
    ],
)
def test_a_role_said_after_its_holder_is_a_relation(turn: str, name: str) -> None:
    done = extract([SourceTurn(0, 900, turn, "Okay.")], session_time_ms=SESSION_MS)
    assert any(f.kind.value == "relation" and name in f.text for f in done.facts)


@pytest.mark.parametrize(
    "turn", ["Friday is our deadline.", "I think Anna is my best bet.", "Paris is my favourite."]
)
def test_a_day_or_a_clause_inside_another_is_no_holder(turn: str) -> None:
    done = extract([SourceTurn(0, 900, turn, "Okay.")], session_time_ms=SESSION_MS)
    assert not any(f.kind.value == "relation" for f in done.facts)
