"""Sentences no summary, entity or topic may be drawn from: the same filters facts go through.

A summary is made of the user's sentences (extractive) or of the model's (phrased); either way a sentence holding a
credential, small talk, another person's opinion or the assistant's guess about the user says nothing the user
stated about themselves, so it is left out: `unfit_reason` names why (or returns "").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from memoryd.write.grounding.clauses import reports_assistant, without_greeting
from memoryd.write.grounding.lexicon import CHIT_CHAT, HYPOTHETICAL, LEAD_FILLER, SMALL_TALK
from memoryd.write.grounding.secrets import contains_secret
from memoryd.write.grounding.text import content_tokens, fold

_I = re.IGNORECASE

#: Weather and the day's mood, in five languages: small talk when the sentence says little else.
_WEATHER = re.compile(
    r"\b(?:weather|sunny|rain(?:y|ing)?|miserable|freezing|scorching|heatwave|lovely day|beautiful day|"
    r"météo|il fait (?:beau|chaud|froid|gris)|pluie|soleil|canicule|chaleur|il fait (?:\w+ ){1,3}(?:chaleur|froid|chaud)|"
    r"hace (?:un )?(?:calor|frío|sol|buen tiempo|mal tiempo)|calor|lluvia|llueve|"
    r"wetter|regnet|sonnig|hitze|kalt heute|"
    r"que dia (?:lindo|bonito)|dia (?:lindo|bonito)|está (?:calor|frio)|chuva|chove|"
    r"il fait (?:un )?(?:temps|beau|chaud|froid|gris)|temps (?:magnifique|splendide|pourri)|degrés|degrees|grados|"
    r"grad celsius|graus|so grau|grau heute|heute so|"
    # Wind, rain and snow said in each language ("il pleut des cordes", "qué viento hace hoy", "es schneit").
    r"wind|windy|vent|viento|vento|ventania|pleut|pleuvoir|snow|snowing|neige|nieva|nevando|schneit|neva|nevando)\b",
    _I,
)
#: A temperature ("25 degrés", "30 degrees"): a number the weather says, not one the user reports.
_TEMPERATURE = re.compile(r"\b\d{1,2}\s?(?:°c?|degrés|degrees|grados|grad|graus)\b", _I)
#: What a weather remark would need to be more than small talk: a date, a plan or a change the weather caused.
_WEATHER_CONSEQUENCE = re.compile(
    r"\b(?:because of|due to|so we|so I|cancel\w*|postpon\w*|mov(?:e|ed|ing)|resched\w*|à cause|annul\w*|report\w*|"
    r"por culpa|por (?:la|el)|cancel\w*|aplaz\w*|wegen|abgesagt|verschoben|por causa|adiad\w*|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|"
    r"september|october|november|december)\b",
    _I,
)
#: The user imagining or weighing something ("I'm thinking of a trip to La Palma", "one day I might go to
#: Fontainebleau", "if I ever …"): not what they do or plan.
_TENTATIVE = re.compile(
    r"\b(?:thinking (?:of|about)|dreaming of|toying with|one day|some day|someday|a dream|not a plan|"
    r"je pense (?:à|peut-être)|un jour|j'envisage|estoy pensando en|algún día|ich überlege|eines tages|irgendwann|"
    r"estou a pensar em|estou pensando em|um dia)\b|^(?:would|could) (?:I|we)\b",
    _I,
)
#: A remark about the assistant ("Du bist bestimmt auch ein SAP-Fan, oder?", "you must love spreadsheets"): chat.
_ABOUT_YOU = re.compile(
    r"^(?:you(?:'re| are| must be| must| sound| seem| look)|du bist|du (?:klingst|wirkst|scheinst)|tu es|t'es|"
    r"tu as l'air|t'as l'air|vous êtes|vous avez l'air|(?:tú )?eres|tienes pinta|pareces|usted es|você é|"
    r"você parece|tu és)\b",
    _I,
)
#: A remark closed by laughter ("…, so don't expect me to do anything useful on Saturday, ha"): banter.
_LAUGHTER_END = re.compile(r"(?:[,.!]\s*|\s)(?:ha|haha|hahaha|lol|jaja|jajaja|mdr|hihi|kkk|rsrs)\W*$", _I)
#: A denial opening the sentence ("Qué va, casi nada de eléctricos", "Nope, not vegan"): it answers a guess.
_DENIAL = re.compile(
    r"^(?:qué va|nope|nah|not at all|pas du tout|que nada|nada disso|überhaupt nicht|i wish)\b", _I
)
#: Season's and day's wishes and how-are-yous: chat whatever else the sentence names ("Happy Friday!", "Joyeux Noël").
_WISHES = re.compile(
    r"^(?:(?:anyway|so|and|hi|hey|hello|hola|salut|bonjour|hallo|olá|oi)[\s,!¿]+)*(?:happy (?:friday|monday|weekend|holidays|new year|easter|christmas)|merry christmas|ugh,? mondays?|tgif|"
    r"how are (?:you|things)(?: today| doing)?\s*(?:[?!.,]|$)|how's it going|how was your (?:weekend|day)|joyeux noël|bonne année|bonnes fêtes|"
    r"bon week-end|ça va\s*(?:[?!.,]|$)|comment (?:vas-tu|allez-vous)|feliz (?:navidad|año nuevo|año|natal|ano novo|fin de semana)|"
    r"qué tal\s*(?:[?!.,]|$)|cómo estás|frohe (?:weihnachten|ostern)|frohes neues|schönes wochenende|wie geht'?s|wie geht es dir|"
    r"tudo bem|como vai|bom fim de semana|boas festas)(?!\w)",
    _I,
)
#: Watching someone else play or perform ("Did you see the match last night?", "Arsenal won again",
#: "I'm binge-watching Severance"): a spectator's remark, not the user's doing.
_SPECTATOR = re.compile(
    r"\b(?:did you (?:see|watch|catch)|(?:t'as|tu as|as-tu|vous avez|avez-vous) (?:vu|regardé|suivi)|"
    r"(?:¿\s*)?(?:has visto|viste|has seguido)|hast du (?:(?:\w+ ){0,5})?(?:gesehen|mitbekommen|geguckt)|"
    r"(?:você |tu )?(?:viu|viste|assistiu)(?= [^.!?]*\?)|(?:watched|saw|caught|watching) the (?:match|game|final|race|derby|grand prix)(?! (?:film|footage|tape|plan))|"
    r"the (?:match|game|derby|final|race) (?:last night|yesterday|at the weekend)|binge-?watch\w*|"
    r"(?:le|du) match (?:d'hier|hier|de ce soir)|el partido (?:de ayer|de anoche|de hoy)|das spiel (?:gestern|heute)|"
    r"o jogo (?:de ontem|ontem|de hoje)|six nations|world cup|champions league|premier league|eurovision|super bowl|"
    r"coupe du monde|ligue des champions|copa del mundo|mundial|bundesliga|la liga|brasileirão)\b"
    # A named side's result said on its own ("Wednesday lost again", "Arsenal won.", "Le Stade a encore perdu",
    # "El Betis perdió otra vez", "Der HSV hat wieder verloren", "O Galo perdeu de novo"): a capitalised subject that
    # is not the user ("We lost again" is left to the other rules), a result verb, then "again" or the end of the
    # clause (not "Tom won the raffle", a fact about Tom the other rules weigh; a score is a number, see _reason).
    r"|(?-i:(?<![\w-])(?!(?:I|We|Je|Nous|On|Yo|Nosotros|Ich|Wir|Eu|Nós)\b)[A-ZÀ-ÖØ-Þ][\w'’-]+)\s+(?:"
    r"(?:lost|won|drew)|(?:a|ont)(?: encore| de nouveau)? (?:perdu|gagné|fait match nul)|"
    r"(?:perdió|ganó|empató)|(?:hat|haben)(?: schon)?(?: wieder| schon wieder)? (?:verloren|gewonnen)|"
    r"(?:perdeu|ganhou|empatou))"
    r"(?:\s+(?:again|encore|à nouveau|de nouveau|otra vez|de nuevo|wieder|schon wieder|outra vez|de novo)\b|"
    r"(?=\s*(?:[,.;!]|$)))",
    _I,
)
#: The user's own doing that a spectator remark may carry ("I'm running the Tour de France sportive on July 5").
_OWN_DOING = re.compile(
    r"\b(?:I'm (?:running|playing|racing|competing|riding|entering|going)|I (?:will|'ll) (?:run|play|race|ride|compete)|"
    r"I've (?:entered|signed up|booked)|I (?:entered|signed up|booked|coach|play for|run for)|je (?:cours|joue|participe)|"
    r"juego|corro|participo|ich (?:spiele|laufe|fahre|trainiere)|eu (?:jogo|corro))\b",
    _I,
)
#: An exclamation about something ("Quelle fin de match !", "What a finish!", "¡Qué partido!", "Was für ein Spiel!")
#: or an exclamatory word opening a remark ("Wahnsinn, dieser Fasching übrigens", "Crazy, the traffic today"): a
#: reaction, small talk when it says nothing of the user (no first person, no number).
_EXCLAIMS = re.compile(
    r"^¡?\s*(?:what an?|quel(?:le)?s?|qu(?:é|e)|was für(?: ein| eine)?)\s+[^.?!,;:]{1,40}!\s*$"
    r"|^(?:wahnsinn|irre|unglaublich|crazy|madness|insane|unbelievable|incroyable|dingue|fou|increíble|"
    r"qué locura|locura|loucura|inacreditável|nossa|wow)\b\s*[,!]",
    _I,
)
#: A remark closed by an exclamation about the day or the week ("Ugh, my car failed its MOT today, what a week.",
#: "quelle journée !", "¡qué semana!", "was für ein Tag", "que semana"): venting about how the time went, chat.
_VENTING_END = re.compile(
    r"(?:^|[,;:—–!.]\s*|\s)(?:ugh[,!]?\s*)?(?:what an? (?:\w+ )?(?:day|week|morning|night|evening|month|year|weekend)|"
    r"quel(?:le)? (?:\w+ )?(?:journée|semaine|matinée|soirée|nuit|mois|année|week-end)|"
    r"qué (?:\w+ )?(?:día|semana|mañana|noche|mes|año|finde)|was für ein(?:e|en)? (?:\w+ )?(?:tag|woche|morgen|abend|nacht|monat|jahr)|"
    r"que (?:\w+ )?(?:dia|semana|manhã|noite|mês|ano))\s*[.!…]*\s*$",
    _I,
)
#: A plan or change the remark may carry ("… what a week, so I moved the exam to 3 May"): a date or a rescheduling.
_VENTING_NEWS = re.compile(
    r"\b(?:tomorrow|next|on \w+day|mañana|demain|morgen|amanhã)\b|\d{1,2}(?:st|nd|rd|th)?\s+\w", _I
)

#: What turns a digression back to the session's matter ("Anyway, …", "Bref, …", "En fin, …").
_BACK_ON_TOPIC = re.compile(
    r"^(?:anyway|anyhow|so|but|right|ok|okay|bref|bon|enfin|en fin|bueno|en fin|jedenfalls|egal|also|gut|enfim|"
    r"bem|mas|pero|mais|aber)\b",
    _I,
)
_SMALL_TALK_MAX_WORDS = 6
#: A number or the user's own doing in the sentence: it reports something beyond the weather.
_SAYS_MORE = re.compile(
    r"\d|\b(?:I|we|my|our|je|nous|mon|notre|yo|mi|nuestro|ich|wir|mein|unser|eu|meu|nosso)\b", _I
)

#: Someone else's view: "my wife reckons we should…", "Mein Kollege meint…", "Ma belle-mère trouve que…", "Tom
#: thinks…". The opinion is theirs, even when it names the user's plans.
_OPINION_VERB = (
    r"(?:thinks?|reckons?|says?|said|believes?|suggests?|suggested|feels?|insists?|keeps? saying|wants? (?:me|us) to|"
    r"trouve|pense|dit|croit|veut que|suggère|estime|piensa|dice|cree|opina|quiere que|sugiere|"
    r"meint|findet|sagt|glaubt|will,? dass|schlägt vor|acha|diz|pensa|quer que|sugere|"
    # the same view told in the past ("Mein Kollege meinte, soll ich …", "ma mère disait que", "mi jefe dijo que")
    r"thought|a dit|disait|pensait|trouvait|croyait|a suggéré|dijo|decía|pensaba|creía|sugirió|"
    r"meinte|sagte|fand|glaubte|schlug vor|disse|dizia|achava|pensava|sugeriu|"
    # a liking of theirs, said in the user's session: still theirs ("my colleague Bram swears by Prefect")
    r"loves|likes|prefers|hates|swears by|adore|aime|préfère|déteste|ama|adora|prefiere|odia|liebt|mag|bevorzugt|"
    # "swears by" in the other languages: "ne jure que par", "jura por", "schwört auf", "jura por" / "não passa sem".
    r"(?:ne )?jure (?:que )?par|jura por|schwört auf|schwören auf|"
    r"hasst|gosta|prefere|odeia|"
    # their wish for the user, said as pressure or a preference about what the user does ("my sister's been on at me
    # to move", "Emyr would rather I quit", "ma mère voudrait que je", "mi madre preferiría que", "meine Mutter hätte
    # lieber, dass ich", "a minha mãe preferia que eu"): the wish is theirs, not the user's plan
    r"(?:'s|’s|has|is|keeps?)?\s*(?:been\s+)?(?:on at|nagging|pushing|pressuring|pressing|begging|urging|"
    r"telling|asking|at) (?:me|us) (?:to|about)|(?:'d|’d|would) (?:rather|prefer|like it if) (?:I|we)|"
    r"voudrait que|aimerait que|préférerait que|insiste pour que|me pousse à|nous pousse à|"
    r"querría que|quisiera que|preferiría que|insiste en que|me presiona para|"
    r"möchte,? dass|hätte (?:lieber|gern),? (?:dass|wenn)|drängt (?:mich|uns)|"
    r"queria que|preferia que|insiste (?:para|em) que|pressiona-me|me pressiona)"
)
_OTHER_WORD = r"(?!(?:and|et|y|und|e|or|ou|o|oder|I)\b)[\w-]+"
_OTHER_PERSON = (
    r"(?:(?:my|our|mon|ma|mes|notre|mi|mis|nuestro|nuestra|mein|meine|unser|unsere|o meu|a minha|meu|minha)\s+"
    # up to three words, "de" aside ("my new practice manager", "ma nouvelle cheffe de service"); never across "and"
    # ("my husband and I love …" is the user's own liking)
    + _OTHER_WORD
    + r"(?:\s+(?:(?:de|du|des|da|do|del|of)\s+)?"
    + _OTHER_WORD
    + r"){0,2}|(?-i:[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]+))"
)
_THIRD_PARTY_OPINION = re.compile(rf"\b{_OTHER_PERSON}(?:\s+|(?=['’]s\s)){_OPINION_VERB}\b", _I)
_NOT_OTHERS = re.compile(r"^(?:I|We|Je|Yo|Ich|Wir|Eu|Nous|On)$", _I)

#: The assistant's guess, repeated or denied by the user: "you're probably thinking I'm the tech lead, but I'm not".
_GUESS_ECHO = re.compile(
    r"\byou(?:'re| are)? (?:probably |might be |must be )?(?:think|thinking|thought|assum\w*|guess\w*)\b|"
    r"\b(?:I'm|I am) not (?:a|an|the)\b|\bje ne suis pas (?:un|une|le|la)\b|\bno soy (?:el|la|un|una)\b|"
    r"\bich bin (?:kein|keine|nicht der|nicht die)\b|\bnão sou (?:o|a|um|uma)\b",
    _I,
)


def _third_party_opinion(sentence: str, own_names: frozenset[str]) -> bool:
    for match in _THIRD_PARTY_OPINION.finditer(sentence):
        subject = match.group(0).split()[0]
        if not _NOT_OTHERS.match(subject) and fold(subject) not in own_names:
            return True
    return False


@lru_cache(maxsize=4096)
def unfit_reason(sentence: str, own_names: frozenset[str] = frozenset()) -> str:
    """Why a sentence may not feed a summary, an entity or a topic ("secret", "small_talk", "third_party",
    "assistant_guess", "hypothetical"), or "" when it may. `own_names`: the user's own names, folded (a model's summary may call
    the user by name: "Alice prefers Postgres" is no one else's liking)."""
    if contains_secret(sentence):
        return "secret"
    bare = LEAD_FILLER.sub("", sentence).strip()
    # "Bonjour, il pleut des cordes ici.": the greeting opens the small talk, it does not make it news.
    greeted = without_greeting(bare).strip()
    if greeted and greeted != bare:
        return _reason(greeted, own_names) or _reason(bare, own_names)
    return _reason(bare, own_names)


def _reason(bare: str, own_names: frozenset[str]) -> str:
    """unfit_reason of a sentence without its lead filler."""
    if CHIT_CHAT.search(bare):
        return "small_talk"
    if (
        (_WEATHER.search(bare) or SMALL_TALK.search(bare))
        and len(content_tokens(bare)) <= _SMALL_TALK_MAX_WORDS
        and not _SAYS_MORE.search(bare)
    ):
        return "small_talk"  # "Brutal weather, honestly." — not "We moved the launch to May 9 because of the rain"
    if (
        _WEATHER.search(bare)
        and not _WEATHER_CONSEQUENCE.search(bare)
        and not re.search(r"\d", _TEMPERATURE.sub("", bare))
    ):
        return "small_talk"  # "Il fait un temps magnifique, 25 degrés au refuge": the weather, with a number
    if _WISHES.search(bare) or (
        _SPECTATOR.search(bare) and not _OWN_DOING.search(bare) and not re.search(r"\d", bare)
    ):
        return "small_talk"
    if _EXCLAIMS.search(bare) and not _SAYS_MORE.search(bare):
        return "small_talk"
    if (
        _VENTING_END.search(bare)
        and not _VENTING_NEWS.search(bare)
        and len(content_tokens(bare)) <= 2 * _SMALL_TALK_MAX_WORDS
    ):
        return "small_talk"  # "Ugh, my car failed its MOT today, what a week.": a complaint about the week
    if _ABOUT_YOU.search(bare) or _LAUGHTER_END.search(bare):
        return "small_talk"
    if _DENIAL.search(bare) or reports_assistant(bare):
        return "assistant_guess"  # "You said I'm a band 6, …": the assistant's words, reported
    if HYPOTHETICAL.search(bare) or _TENTATIVE.search(bare):
        return "hypothetical"
    if _third_party_opinion(bare, own_names):
        return "third_party"
    if _GUESS_ECHO.search(bare):
        return "assistant_guess"
    return ""


def digressions(said: Sequence[str]) -> frozenset[int]:
    """Positions of a turn's sentences that continue a spectator's question ("Viu o clássico ontem? O Galo perdeu de
    novo, tô de luto."): the reply to "did you see the match?" is about the match, until a number, a turn back to
    the matter ("Anyway, …") or the turn's end. The question itself is unfit_reason's "small_talk"."""
    out: set[int] = set()
    following = False
    for position, sentence in enumerate(said):
        bare = LEAD_FILLER.sub("", sentence).strip()
        if following and not _BACK_ON_TOPIC.match(bare) and not re.search(r"\d", bare):
            out.add(position)
            continue
        following = bool(_SPECTATOR.search(bare)) and bare.rstrip().endswith("?")
    return frozenset(out)


__all__ = ["digressions", "unfit_reason"]
