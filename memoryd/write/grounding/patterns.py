"""The extractor's grammar table: first-person patterns per language, each naming its template, kind and slot.

A rule's `v` group is the value (a capitalised name, a number, or the rest of the clause); rules.py turns matches
into facts. Patterns are grammar (pronoun + verb + complement), never phrases copied from a data set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memoryd.write.grounding.lexicon import (
    CLAUSE_END,
    EN_REL_RE,
    NAME,
    OBJ,
    PLACE,
    REL_RE,
    SERVICE_EN_RE,
    SERVICE_RE,
)
from memoryd.write.grounding.model import FactKind

_I = re.IGNORECASE


#: A home named by its kind between the user's "in" and the place ("I'm in a flat in Hoole now", "on habite dans
#: un appartement à Lyon", "vivo en un piso en Gijón", "wir wohnen jetzt in einer Wohnung in Kiel", "moro num
#: apartamento em Braga"): the place is where the user lives. The kinds are a closed class of dwellings, so "I'm in
#: a meeting in London" or "in a hotel in Paris" is no home.
_DWELLING = {
    "en": r"(?:a|an|my|our|the) (?:new |small |tiny |little |rented |shared )?(?:(?:one|two|three|1|2|3)-bed(?:room)? )?"
    r"(?:flat|apartment|house|cottage|bungalow|terrace|studio|bedsit|maisonette|condo|houseboat) (?:in|on the edge of) ",
    "fr": r"(?:un|une|notre|mon|ma|le|la|l') ?(?:nouvel |nouveau |nouvelle |petit |petite )?"
    r"(?:appartement|appart|maison|studio|logement|pavillon) (?:à|a|en|dans) ",
    "es": r"(?:un|una|el|la|mi|nuestro|nuestra) (?:nuevo |nueva |pequeño |pequeña )?(?:piso|casa|apartamento|estudio|"
    r"ático|chalet) (?:en|de) ",
    "de": r"(?:einer|einem|der|dem|meiner|meinem|unserer|unserem) (?:neuen |kleinen )?(?:Wohnung|Haus|WG|"
    r"Mietwohnung|Doppelhaushälfte|Reihenhaus) in ",
    "pt": r"(?:novo |nova |pequeno |pequena )?(?:apartamento|casa|moradia|"
    r"estúdio|t[0-4]) (?:em|no|na) ",
}


@dataclass(frozen=True)
class Rule:
    """One pattern: `key` names the template (and the handling), `slot` may hold "{v}" / "{what}"."""

    lang: str
    key: str
    kind: FactKind
    slot: str
    pattern: re.Pattern[str]
    verb: str = ""


_K = FactKind
_CE = CLAUSE_END
#: A greeting opening the turn: "I'm Noor" right after it is an introduction, not "I'm Canadian".
_GREETING = r"(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening)|morning|evening|bonjour|bonsoir|salut|coucou|hola|buenas tardes|buenas noches|buenas|buenos días|hallo|servus|moin|guten (?:tag|morgen|abend)|olá|ola|oi|bom dia|boa tarde|boa noite)[\s,!.]+(?:(?:there|dear|all|everyone|again|à tous|a todos)[\s,!.]+)?"
#: A capitalised name that is not the captured value (a person before "asked me to", the name before a role).
_BARE_NAME = r"(?-i:(?:(?:Dr|Dra|Mr|Mrs|Ms|Prof)\.?\s+)?[A-ZÀ-ÖØ-Þ][\w'’-]*(?: [A-ZÀ-ÖØ-Þ][\w'’-]*){0,2})"
#: Times and manners a work clause names that are no workplace ("I work at the weekend", "trabajo en equipo").
_NOT_PLACES = (
    r"weekends?|moments?|mornings?|evenings?|afternoons?|nights?|days?|shifts?|times?|end|start|beginning|home|office|"
    r"same|way|team|living|change|while|bit|little|few|lot|couple|"
    r"week-end|matin|soir|nuit|moment|fois|même|équipe|fin|semaine|mañana|tarde|noche|momento|vez|equipo|casa|"
    r"semana|woche|moment|zeit|nacht|team|manhã|noite|vez|equipa|casa|semana|momento"
)
_AGE_END = r"(?=\s*(?:years? old|y/?o\b|[.,;!]|$|and\b|now\b|this year\b))"
_RULES_SPEC: list[tuple[str, str, FactKind, str, str, str]] = [
    # --- English
    ("en", "name", _K.IDENTITY, "identity.name", rf"\bmy (?:full |first )?name(?: is|'s)(?: spelled| spelt| actually)? {NAME}", ""),
    ("en", "name", _K.IDENTITY, "identity.name", rf"\bI(?:'m| am) called {NAME}", ""),
    ("en", "name", _K.IDENTITY, "identity.name", rf"^{_GREETING}(?:I'm|I am|this is|it's) {NAME}(?=\s*(?:[,.!;]|$| and\b| here\b| from\b| again\b))", ""),
    # "Ich bin Katrin, 42, und …", "Soy Lucía, 29, de Sevilla": an age right after the name of an introduction.
    ("en", "age", _K.IDENTITY, "identity.age", rf"^(?:{_GREETING})?(?:I'm|I am|my name is|my name's) {_BARE_NAME}, (?P<v>\d{{1,2}})(?=\s*(?:[,.;!]|$|and\b|from\b))", ""),
    ("fr", "age", _K.IDENTITY, "identity.age", rf"^(?:{_GREETING})?(?:je suis|moi c'est|je m'appelle|c'est) {_BARE_NAME}, (?P<v>\d{{1,2}})(?: ans)?(?=\s*(?:[,.;!]|$|et\b))", ""),
    ("es", "age", _K.IDENTITY, "identity.age", rf"^(?:{_GREETING})?(?:soy|yo soy|me llamo) {_BARE_NAME}, (?P<v>\d{{1,2}})(?: años)?(?=\s*(?:[,.;!]|$|y\b))", ""),
    ("de", "age", _K.IDENTITY, "identity.age", rf"^(?:{_GREETING})?(?:ich bin|ich heiße|hier ist) {_BARE_NAME}, (?P<v>\d{{1,2}})(?: Jahre(?: alt)?)?(?=\s*(?:[,.;!]|$|und\b))", ""),
    ("pt", "age", _K.IDENTITY, "identity.age", rf"^(?:{_GREETING})?(?:sou|eu sou|chamo-me|o meu nome é) (?:o |a )?{_BARE_NAME}, (?P<v>\d{{1,2}})(?: anos)?(?=\s*(?:[,.;!]|$|e\b))", ""),
    # "I lead the data platform team", "ich leite die IT-Abteilung": the team a user runs says who they are at work.
    ("en", "leads", _K.IDENTITY, "identity.team", rf"\bI(?: (?:now|currently|still))? (?:lead|run|manage|head|coordinate) (?P<v>(?:the|a|our) [\w -]{{0,40}}?(?:team|department|group|unit|squad|division|lab|office|practice|clinic|desk))(?=\s+(?:at|for|in|with)\b|{_CE})", ""),
    ("en", "employer", _K.IDENTITY, "identity.employer", rf"\bI(?: (?:now|currently|still))? (?:lead|run|manage|head|coordinate) (?:the|a|our) [\w -]{{0,40}}?(?:team|department|group|unit|squad|division|lab|office) (?:at|for) {NAME}", ""),
    ("fr", "leads", _K.IDENTITY, "identity.team", rf"\bje (?:dirige|gère|pilote|coordonne|manage) (?P<v>(?:l'|le |la |une |un |notre )(?:équipe|service|département|pôle|cellule|labo|laboratoire|cabinet)[\w' -]{{0,40}}?)(?=\s+(?:chez|à|au|pour)\b|{_CE})", ""),
    ("es", "leads", _K.IDENTITY, "identity.team", rf"\b(?:dirijo|lidero|coordino|llevo) (?P<v>(?:el|la|un|una|nuestro|nuestra) (?:equipo|departamento|servicio|área|grupo|laboratorio|oficina)[\w -]{{0,40}}?)(?=\s+(?:en|para|de)\s+[A-ZÀ-Þ]|{_CE})", ""),
    ("de", "leads", _K.IDENTITY, "identity.team", rf"\b(?:ich|und) (?:leite|führe|manage|koordiniere) (?P<v>(?:das|die|den|ein|eine|unser|unsere) [\w -]{{0,40}}?(?:team|abteilung|gruppe|labor|büro|praxis|bereich))(?=\s+(?:bei|in|für)\b|{_CE})", ""),
    ("pt", "leads", _K.IDENTITY, "identity.team", rf"\b(?:lidero|dirijo|coordeno|giro|chefio) (?P<v>(?:a|o|uma|um|a nossa|o nosso) (?:equipa|equipe|departamento|serviço|área|grupo|laboratório|escritório)[\w -]{{0,40}}?)(?=\s+(?:na|no|em|da|do)\s+[A-ZÀ-Þ]|{_CE})", ""),
    # "I work at a bakery", "je travaille dans une boulangerie": a workplace named by its kind, not its name.
    ("en", "works_in", _K.IDENTITY, "identity.workplace", rf"\bI(?: (?:now|currently|still))? work (?P<v>(?:at|in|for) (?:an?|the) (?!(?:{_NOT_PLACES})\b)[\w -]{{2,40}}?){_CE}", ""),
    ("fr", "works_in", _K.IDENTITY, "identity.workplace", rf"\bje (?:travaille|bosse)(?: maintenant| actuellement)? (?P<v>(?:dans|pour) (?:une?|la|le|l') ?(?!(?:{_NOT_PLACES})\b)[\w -]{{2,40}}?){_CE}", ""),
    ("es", "works_in", _K.IDENTITY, "identity.workplace", rf"\btrabajo(?: ahora| actualmente)? (?P<v>(?:en|para) (?:una?|el|la) (?!(?:{_NOT_PLACES})\b)[\w -]{{2,40}}?){_CE}", ""),
    ("de", "works_in", _K.IDENTITY, "identity.workplace", rf"\b(?:ich|und) arbeite(?: jetzt| derzeit| inzwischen)? (?P<v>(?:in|bei) (?:einer|einem|der|dem) (?!(?:{_NOT_PLACES})\b)[\w -]{{2,40}}?){_CE}", ""),
    ("pt", "works_in", _K.IDENTITY, "identity.workplace", rf"\btrabalho(?: agora| atualmente)? (?P<v>(?:numa|num|em uma|em um|para uma|para um) (?!(?:{_NOT_PLACES})\b)[\w -]{{2,40}}?){_CE}", ""),
    ("en", "origin", _K.IDENTITY, "identity.origin", rf"^{_GREETING}(?:I'm|I am|this is|it's) {_BARE_NAME} from {PLACE}", ""),
    ("en", "name", _K.IDENTITY, "identity.name", rf"^(?:{_GREETING})?(?:I'm|I am) {NAME}(?=, an? [\w-]+)", ""),
    # "Well, I'm Marta, I run the backend team …": a capitalised word after "I'm" and before a new clause.
    ("en", "name", _K.IDENTITY, "identity.name", rf"^(?:(?:well|so|ok|okay|oh|right|anyway)[,\s]+)?(?:I'm|I am) {NAME}(?=\s*,\s*(?:I|I'm|I've|and|from|the|your|my)\b)", ""),
    ("en", "name", _K.IDENTITY, "identity.name", rf"^(?:{_GREETING})?(?:the )?name's {NAME}(?=\s*(?:[,.!;]|$))", ""),
    ("fr", "name", _K.IDENTITY, "identity.name", rf"^(?:{_GREETING})?moi,? c'est {NAME}(?=\s*(?:[,.!;]|$| et\b))", ""),
    ("en", "name", _K.IDENTITY, "identity.name", rf"^{_GREETING}(?:it's )?{NAME} here\b(?=\s*(?:[,.!;]|$))", ""),
    # "Marcus here." opening a turn: the name a user signs with.
    ("en", "name", _K.IDENTITY, "identity.name", rf"^(?!(?:look|looky|lookie|right|over|come|sit|stay|out|up|down|in|you|me)\b){NAME} here(?=\s*(?:[.!]|$))", ""),
    ("fr", "name", _K.IDENTITY, "identity.name", rf"^{_GREETING}(?:je suis|c'est) {NAME}(?=\s*(?:[,.!;]|$| et\b))", ""),
    ("es", "name", _K.IDENTITY, "identity.name", rf"^{_GREETING}(?:soy|yo soy) {NAME}(?=\s*(?:[,.!;]|$| y\b))", ""),
    ("de", "name", _K.IDENTITY, "identity.name", rf"^{_GREETING}(?:ich bin|hier ist) {NAME}(?=\s*(?:[,.!;]|$| und\b| aus\b))", ""),
    ("de", "origin", _K.IDENTITY, "identity.origin", rf"^{_GREETING}(?:ich bin|hier ist) {_BARE_NAME} aus {PLACE}", ""),
    # "Hallo, ich bin Katrin, Projektleiterin bei Siemens": the role after the name, and the employer it rests on.
    ("de", "employer", _K.IDENTITY, "identity.employer", rf"^(?:{_GREETING})?ich bin {_BARE_NAME}, [\w-]+ (?:bei|für) {NAME}", ""),
    ("pt", "name", _K.IDENTITY, "identity.name", rf"^{_GREETING}(?:sou|eu sou|aqui é) (?:o |a )?{NAME}(?=\s*(?:[,.!;]|$| e\b))", ""),
    ("en", "role", _K.IDENTITY, "identity.role", rf"^(?:{_GREETING})?(?:I'm|I am) {_BARE_NAME}, (?:I'm |I am )?(?P<v>an? (?:[\w'-]+ ){{0,2}}?[\w-]+?)(?=\s+(?:at|for|in|by|with|of)\b|\s*[.,;!]|$)", ""),
    ("fr", "role", _K.IDENTITY, "identity.role", rf"^(?:{_GREETING})?(?:je suis|moi c'est) {_BARE_NAME}, (?P<v>(?:une? )?[\w-]+(?: (?:de|d'|en) [\w-]+)?)(?=\s+(?:chez|à|dans|pour|au|en)\b|\s*[.,;!]|$)", ""),
    ("es", "role", _K.IDENTITY, "identity.role", rf"^(?:{_GREETING})?(?:soy|yo soy) {_BARE_NAME}, (?P<v>(?:una? )?[\w-]+(?: de [\w-]+)?)(?=\s+(?:en|para)\b|\s*[.,;!]|$)", ""),
    ("pt", "role", _K.IDENTITY, "identity.role", rf"^(?:{_GREETING})?(?:sou|eu sou) (?:o |a )?{_BARE_NAME}, (?P<v>(?:uma? )?[\w-]+(?: de [\w-]+)?)(?=\s+(?:na|no|numa|num|em|para)\b|\s*[.,;!]|$)", ""),
    ("en", "address_as", _K.IDENTITY, "identity.address_as",
     rf"\b(?:call me|you can call me|(?:I'd|I would) (?:rather|prefer) (?:you|that you) call(?:ed)? me|(?:everyone|everybody|people|most people|my friends) calls? me|I go by|I prefer to be called|I'd like to be called|address me as) {NAME}", ""),
    ("en", "pronouns", _K.IDENTITY, "identity.pronouns", r"\bmy pronouns are (?P<v>[a-z]+/[a-z]+(?:/[a-z]+)?)", ""),
    ("en", "home", _K.IDENTITY, "identity.home",
     rf"\bI(?: (?:currently |now |still )?(?:live|reside)|(?:'m| am) (?:currently |now |still )?(?:living|based|residing))(?: with (?:my|our) [\w' -]{{2,30}}?| on my own| alone| by myself)? in (?:the )?{PLACE}", ""),
    ("en", "home", _K.IDENTITY, "identity.home", rf"\bI(?:'m| am) (?:currently |now )?based in {PLACE}", ""),
    # "Just bought an old Victorian terrace in Bristol": a home bought is where the user lives (or will).
    ("en", "moved", _K.IDENTITY, "identity.home",
     rf"(?:^|\b(?:I|we)(?:'ve| have)? )(?:just |recently |finally )?bought (?:a|an|our|my) (?:[\w-]+ ){{0,3}}?(?:house|flat|home|apartment|terrace|cottage|bungalow|condo|place|farmhouse) in {PLACE}", ""),
    # "I'm the CTO of a tiny startup called Brightline": a title with an article, and where it is held.
    ("en", "role", _K.IDENTITY, "identity.role",
     r"\bI(?:'m| am) (?P<v>(?:the |an? )?(?:CEO|CTO|COO|CFO|CIO|CMO|CPO|VP of [\w ]{2,30}?|head of [\w ]{2,30}?|director of [\w ]{2,30}?|founder|co-founder|cofounder|owner))(?=\s+(?:of|at|for|in)\b|\s*[.,;!]|$)", ""),
    ("en", "employer", _K.IDENTITY, "identity.employer",
     rf"\bI(?:'m| am) (?:the |an? )?(?:CEO|CTO|COO|CFO|CIO|CMO|CPO|VP of [\w ]{{2,30}}?|head of [\w ]{{2,30}}?|director of [\w ]{{2,30}}?|founder|co-founder|cofounder|owner) (?:of|at) (?:(?:a|an|the) (?:[\w-]+ ){{0,3}}?(?:called|named) )?{NAME}", ""),
    ("en", "home", _K.IDENTITY, "identity.home", rf"\b(?:I|we)(?:'ve| have) (?:been )?(?:lived|living) in {PLACE}(?= for\b| since\b)", ""),
    ("en", "moved", _K.IDENTITY, "identity.home",
     rf"(?:^|\b(?:I|we)(?:'ve| have)? )(?:just |recently |finally )?moved (?:in)?to (?:a |an |our |my )?(?:new )?(?:flat|house|apartment|place|home|condo) in {PLACE}", ""),
    ("en", "moved", _K.IDENTITY, "identity.home",
     rf"\b(?:I|we)(?:'ve| have)? (?:just |recently |finally |now |since )?(?:moved|relocated) to {PLACE}", ""),
    ("en", "home", _K.IDENTITY, "identity.home", rf"\bwe (?:currently |now |still )?(?:live|are living|'re living|are based|'re based) in {PLACE}", ""),
    ("en", "here_in", _K.IDENTITY, "identity.home", rf"\b(?:here|based) in {PLACE}(?=\s*[.,;!]|$)", ""),
    ("en", "now_in", _K.IDENTITY, "identity.home", rf"\b(?:we|I)(?:'re| are|'m| am) (?:now )?in {PLACE}(?= now\b)", ""),
    ("en", "now_in", _K.IDENTITY, "identity.home", rf"\b(?:we|I)(?:'re| are|'m| am) now (?:living |based )?in {PLACE}", ""),
    ("en", "home", _K.IDENTITY, "identity.home", rf"\b(?:we|I)(?:'re| are|'m| am|'ve| have)? (?:now |currently |still |finally )?(?:living |based |settled |renting |got |bought )?in {_DWELLING['en']}{PLACE}", ""),
    # Renting where one lives: "we're selling the house in Clevedon and renting in Crawley" (not "renting a car in …").
    ("en", "home", _K.IDENTITY, "identity.home", rf"\b(?:we|I)(?:'re| are|'m| am) (?:now |currently )?(?:[\w'-]+ (?:[\w'-]+ ){{0,5}}?and )?renting in {PLACE}", ""),
    ("en", "origin", _K.IDENTITY, "identity.origin", rf"\bI(?:'m| am) (?:originally )?from {PLACE}", ""),
    ("en", "age", _K.IDENTITY, "identity.age", rf"\bI(?:'m| am) (?:actually |now |only |already |just )?(?P<v>\d{{1,3}}){_AGE_END}", ""),
    ("en", "age", _K.IDENTITY, "identity.age", r"\bI (?:just )?turned (?P<v>\d{1,3})\b", ""),
    ("en", "works_as", _K.IDENTITY, "identity.role", r"\bI(?: (?:now |currently )?work|(?:'m| am) (?:now |currently )?working) as (?P<v>an? [\w -]{2,40}?)(?=\s+(?:at|for|in|now)\b|[.,;!]|$)", ""),
    ("en", "works_as", _K.IDENTITY, "identity.role",
     r"\bI(?:'ve| have)? (?:just |recently |finally )?(?:been |got |was |get )promoted to (?P<v>(?:an? )?[\w -]{2,40}?)(?=\s+(?:at|for|in)\b|[.,;!]|$)", ""),
    ("en", "role", _K.IDENTITY, "identity.role",
     r"\bI(?:'m| am) (?:now |currently |also )?(?P<v>an? (?:[\w-]+ ){0,3}?[\w-]+?)(?=\s+(?:at|for|in|by|with|based|living|from)\b|\s+now\s*(?:[.,;!]|$)|\s*[.,;!]|$)", ""),
    ("en", "employer", _K.IDENTITY, "identity.employer",
     rf"\bI(?: (?:now |currently |still |also )?work|(?:'m| am) (?:now |currently )?(?:working|employed)) (?:at|for) {NAME}", ""),
    ("en", "employer", _K.IDENTITY, "identity.employer", rf"\bI(?:'m| am) an? [\w -]{{2,40}}? (?:at|for) {NAME}", ""),
    ("en", "employer", _K.IDENTITY, "identity.employer", rf"^(?:{_GREETING})?(?:I'm|I am) {_BARE_NAME}, an? [\w -]{{2,40}}? (?:at|for) {NAME}", ""),
    ("en", "employer", _K.IDENTITY, "identity.employer", rf"\bI(?:'ve| have)? (?:just |recently )?(?:started|got|accepted|taken|took|landed) an? (?:new )?(?:job|position|role) (?:at|with) {NAME}", ""),
    # "…, I joined Stripe in October": a company joined, read as the employer only when the sentence is about work.
    ("en", "joined", _K.IDENTITY, "identity.employer", rf"\b(?:I|and)(?:'ve| have)? (?:just |recently |now )?joined {NAME}", ""),
    ("fr", "joined", _K.IDENTITY, "identity.employer", rf"(?<=, )(?:je suis|maintenant je suis|je suis maintenant) chez {NAME}", ""),
    ("en", "employer", _K.IDENTITY, "identity.employer", rf"\bI do (?:[\w-]+ ){{1,3}}work (?:at|for) {NAME}", ""),
    ("en", "employer", _K.IDENTITY, "identity.employer", rf"\bI work as an? [\w -]{{2,40}}? (?:at|for) {NAME}", ""),
    ("en", "diet", _K.PREFERENCE, "preference.diet",
     r"\bI(?:'m| am) (?:(?:a|an|strictly|fully|mostly|now|also|completely) )*(?P<v>vegetarian|vegan|pescatarian|"
     r"pescetarian|plant-based)\b", ""),
    ("en", "diet", _K.PREFERENCE, "diet.{v}",
     r"\bI(?:'m| am) (?:(?:a|an|also|now) )*(?P<v>lactose[- ]intolerant|gluten[- ]free|celiac|coeliac|diabetic|"
     r"kosher|halal|teetotal|sober)\b", ""),
    ("en", "diet", _K.PREFERENCE, "preference.diet",
     r"\bI(?:'ve| have) been (?:a |an )?(?P<v>vegetarian|vegan|pescatarian|pescetarian|plant-based)\b", ""),
    ("en", "diet", _K.PREFERENCE, "preference.diet",
     r"\bI(?:'ve| have)? (?:recently |just )?(?:became|went|turned|gone|become) (?:a |an |fully )?(?P<v>vegetarian|vegan|pescatarian|plant-based)\b", ""),
    ("en", "eats", _K.PREFERENCE, "diet.{v}",
     r"\b(?:we|I) (?:only |always |strictly |mostly )?(?:eat|cook|keep) (?P<v>halal|kosher|vegetarian|vegan|plant-based|gluten-free|dairy-free)\b", ""),
    ("en", "tool", _K.PREFERENCE, "tool.{v}",
     rf"\b(?:I|we|(?:I'm|I am|we're|we are) (?:now |currently |still )?using(?= )) ?(?:mainly |mostly |usually |always |now |currently |still |only )?(?:use )?{NAME}(?P<what> (?:for|as) [^.,;:!?()]{{2,60}}?)?{_CE}", ""),
    ("en", "allergy", _K.PREFERENCE, "allergy.{v}",
     rf"\bI(?:'m| am) (?:[\w-]+(?: [\w-]+)? and )?(?:severely |very |really |mildly |also )?allergic to {OBJ}", ""),
    ("en", "allergy", _K.PREFERENCE, "allergy.{v}",
     r"\bI (?:also )?have an? (?:severe |mild |bad |serious |slight )?(?P<v>[\w-]+(?: [\w-]+)?) allergy\b", ""),
    ("en", "pref", _K.PREFERENCE, "", rf"\bI (?:do not|don't|never|can't|cannot) (?P<w>eat|drink) {OBJ}", "The user doesn't {w}"),
    ("en", "pref", _K.PREFERENCE, "",
     rf"\bI (?:really |much |strongly |definitely |generally |usually |also |actually |still |just |absolutely |"
     rf"totally |honestly |kind of )*(?P<w>prefer|love|adore|like|enjoy|hate|dislike|detest|can't stand|can't handle|cannot handle|cannot "
     rf"stand|can not stand|don't like|do not like|don't enjoy|do not enjoy|can't tolerate)\s+{OBJ}", ""),
    ("en", "pref", _K.PREFERENCE, "", rf"\bI'd (?:really |much )?(?P<w>prefer|rather have|love)\s+{OBJ}", ""),
    # "I drink tea in the morning", "je bois du thé", "bebo café", "ich trinke Tee": a habit of what the user has.
    ("en", "pref", _K.PREFERENCE, "",
     r"\bI (?:usually |always |mostly |only |mainly |now )?(?P<w>drink|eat) (?P<v>(?!(?:at|in|on|out|a lot|too|with|for|around|"
     r"late|early|like|when|after|before|less|more|well|healthy|badly)\b)[a-z][^.,;:!?()]{1,40}?)" + _CE, "The user {w}s"),
    ("fr", "pref", _K.PREFERENCE, "", rf"\bje bois (?:surtout |souvent |toujours )?(?P<v>(?:du|de la|de l'|des|un|une) [^.,;:!?()]{{2,40}}?){_CE}", "L'utilisateur boit"),
    ("fr", "pref", _K.PREFERENCE, "", rf"\bje mange (?:surtout |souvent |toujours )?(?P<v>(?:du|de la|de l'|des|un|une) [^.,;:!?()]{{2,40}}?){_CE}", "L'utilisateur mange"),
    ("es", "pref", _K.PREFERENCE, "", rf"\b(?:bebo|tomo) (?:siempre |sobre todo |normalmente )?(?P<v>(?:café|té|agua|vino|cerveza|leche|zumo|mate)[^.,;:!?()]{{0,30}}?){_CE}", "El usuario toma"),
    ("de", "pref", _K.PREFERENCE, "", rf"\bich trinke (?:morgens |gern |meistens |immer )?(?P<v>(?!kein|keine|keinen|nie)(?-i:[A-ZÄÖÜ])[^.,;:!?()]{{1,40}}?){_CE}", "Der Nutzer trinkt"),
    ("pt", "pref", _K.PREFERENCE, "", rf"\bbebo (?:sempre |normalmente )?(?P<v>(?:café|chá|água|vinho|cerveja|leite|sumo)[^.,;:!?()]{{0,30}}?){_CE}", "O usuário bebe"),
    # "I've stopped drinking wine completely", "I've given up meat": what the user no longer has, in their verb.
    ("en", "pref", _K.PREFERENCE, "",
     r"\bI(?:'ve| have) (?:completely |totally |just |recently |now )?(?P<w>stopped|quit|given up) (?P<v>(?:drinking|eating|"
     r"smoking|having) [^.,;:!?()]{2,40}?|meat|alcohol|sugar|coffee|caffeine|dairy|smoking)" + _CE, "The user has {w}"),
    ("en", "pref", _K.PREFERENCE, "",
     r"\bI(?:'d| would)(?: also| really)? (?P<w>like to|want to) (?P<v>(?:cut down on|cut back on|eat (?:more|less)|drink "
     r"(?:more|less)|avoid|reduce|limit|stop eating|stop drinking|give up) [^.,;:!?()]{2,60}?)" + _CE, ""),
    ("en", "pref", _K.PREFERENCE, "", rf"\bI(?:'m| am) (?P<w>(?:not )?(?:a )?(?:huge |big |great )?fan of)\s+{OBJ}", ""),
    ("en", "favorite", _K.PREFERENCE, "favorite.{what}",
     rf"\bmy (?:all-time )?(?:favou?rite|go-to) (?P<what>[\w -]{{2,30}}?) is {OBJ}", ""),
    ("en", "decision", _K.DECISION, "choice",
     r"\b(?:we|I)(?:'ll| will|'re going to| are going to|'m going to| am going to)(?: just)? (?P<v>(?:go with|use|"
     r"pick|choose|switch to|stick with|adopt|move to|migrate to|settle on|book|buy|order)\s[^.;!?]+)", "to "),
    ("en", "decision", _K.DECISION, "choice",
     r"\blet's (?:just )?(?P<v>(?:go with|go for|use|pick|choose|switch to|stick with|stay with|adopt|move to|"
     r"migrate to|settle on|book|order|buy|do|keep|skip|drop)\s[^.;!?]+)", "to "),
    ("en", "decision", _K.DECISION, "choice",
     r"(?:^|[.!]\s+|\band |\bso )(?:(?:the |our |my )?decision|(?:we |I )?decided|verdict)\s*:\s*(?P<v>[^.;!?]+)", ": "),
    ("en", "decision", _K.DECISION, "choice",
     r"\b(?:we|I)(?:'ve| have)?(?: finally| just| now)? decided (?P<v>(?:to|on|that|against)\s[^.;!?]+)", ""),
    # "I've decided I'll open the batting myself", "I've decided every kid gets equal minutes": "that" left out.
    ("en", "decision", _K.DECISION, "choice",
     r"\b(?:we|I)(?:'ve| have)?(?: finally| just| now)? decided,? (?P<v>(?:I|I'll|I'm|we|we'll|we're|every|each|all|the|our|my)\s[^.;!?]+)", "that "),
    ("en", "decision", _K.DECISION, "choice", r"\b(?:we|I)(?:'re| are|'m| am) going with (?P<v>[^.;!?]+)", "to go with "),
    ("en", "decision", _K.DECISION, "choice",
     r"\b(?:we|I|our team|the team|my team|our company|the company|my company)(?:'re| are|'m| am|'ve| have| has| is)?(?: now| just| finally)? (?P<v>(?:switching|switched|migrating|migrated|moving off|moved off|moving away from|moved away from|moving from|moved from) "
     r"(?:[\w-]+ ){0,4}?to\s[^.;!?]+)", "to "),
    ("en", "decision", _K.DECISION, "choice",
     r"\b(?:we|I)(?:'ve| have)?(?: now| just| finally)? (?P<v>(?:replaced|replacing|swapped|swapping) [^.;!?]+? (?:with|for) [^.;!?]+)", ""),
    ("en", "decision", _K.DECISION, "choice",
     r"\b(?:we|I)(?:'ve| have)?(?: now| just| finally)? (?P<v>(?:dropped|ditched|abandoned) [^.;!?]+? in fa[vu]ou?r of [^.;!?]+)", ""),
    ("fr", "decision", _K.DECISION, "choice", r"\b(?P<v>(?:on a|nous avons|j'ai) remplacé [^.;!?]+? par [^.;!?]+)", ""),
    ("es", "decision", _K.DECISION, "choice", r"\b(?P<v>(?:hemos|he) (?:cambiado|reemplazado|sustituido) [^.;!?]+? por [^.;!?]+)", ""),
    ("de", "decision", _K.DECISION, "choice", r"\b(?P<v>(?:wir haben|ich habe) [^.;!?]+? durch [^.;!?]+? ersetzt)", ""),
    ("pt", "decision", _K.DECISION, "choice", r"\b(?P<v>(?:substituímos|substituimos|substituí|trocámos|trocamos|troquei) [^.;!?]+? por [^.;!?]+)", ""),
    ("en", "decision", _K.DECISION, "choice",
     r"\b(?:we|I)(?:'ve| have|'re| are|'m| am)? (?:now |just |finally )?(?P<v>(?:moved|moving|switched|switching|migrated|migrating) "
     r"(?:(?:the|our|my) )?[\w -]{2,30}? (?:over )?to (?-i:[A-ZÀ-ÖØ-Þ])[^.;!?,]*)", "to "),
    ("pt", "decision", _K.DECISION, "choice",
     r"\b(?P<v>(?:vamos passar|passámos|passamos|mudámos|mudamos) (?:da|do|de) [^.;!?]+? (?:para|pra) [^.;!?]+)", ""),
    ("es", "decision", _K.DECISION, "choice",
     r"\b(?P<v>(?:vamos a pasar|nos pasamos|pasamos|nos cambiamos|hemos pasado) (?:de|del) [^.;!?]+? (?:a|al) [^.;!?]+)", ""),
    ("fr", "decision", _K.DECISION, "choice",
     r"\b(?P<v>(?:on passe|on est passés?|nous sommes passés|on a migré|on migre) (?:de|du|d') ?[^.;!?]+? (?:à|a|au|vers) [^.;!?]+)", ""),
    ("de", "decision", _K.DECISION, "choice",
     r"\b(?P<v>(?:wir wechseln|wir sind|wir steigen) von [^.;!?]+? (?:zu|auf) [^.;!?]+?(?: gewechselt| umgestiegen)?)(?=\s*[.;!?]|$)", ""),
    ("en", "chose", _K.DECISION, "choice",
     r"\b(?:we|I)(?:'ve| have)? (?:finally |now |just )?(?:chose|chosen|picked|opted for|settled on|went with|gone with|"
     r"went for|gone for|landed on|selected) (?P<v>[^.;!?]+)", ""),
    ("en", "action", _K.ACTION_ITEM, "",
     r"\bI(?:'ll| will)? (?:really |still |also |just )?(?:need to|have to|must|'ve got to|have got to|gotta) (?P<v>[^.;!?]+)", ""),
    ("en", "action", _K.ACTION_ITEM, "",
     rf"(?:\b(?:he|she|they)|{_BARE_NAME}|\bmy [\w-]+) (?:also |has |have )?(?:asked|wants|told|needs) me to (?P<v>[^.;!?]+)", ""),
    ("en", "remind", _K.ACTION_ITEM, "",
     r"\b(?:remind me|don't let me forget|do not let me forget|(?:set|put in|add) me a reminder|(?<!\bi )(?<!\bwe )(?<!\bthey )(?:set|put in|add) a reminder) (?:to |about |for )(?P<v>[^.;!?]+)", ""),
    ("en", "target", _K.PLAN, "target.{what}",
     r"\bmy (?:new |current )?(?P<noun>goal|target|aim) (?:for )?(?P<what>[\w -]{2,30}?) is(?: now)? (?:to )?(?P<v>[^.;!?]+)", ""),
    ("en", "target", _K.PLAN, "target", r"\bmy (?:new |current )?(?:goal|target|aim) is(?: now)? (?:to )?(?P<v>[^.;!?]+)", ""),
    # "I've revised my marathon target to 3:20", "I moved my goal for the 10k to 45 minutes": a target changed.
    ("en", "target", _K.PLAN, "target.{what}",
     r"\b(?:I|we)(?:'ve| have)? (?:just )?(?:revised|changed|updated|moved|lowered|raised|adjusted|bumped|set) (?:my|our) "
     r"(?:(?P<what>[\w-]+(?: [\w-]+)?) (?P<noun>goal|target|aim)|(?P<noun2>goal|target|aim) for (?:the |my )?(?P<what2>[\w -]{2,30}?))"
     r"(?: time)? to (?P<v>[^.;!?]+)", ""),
    ("en", "target", _K.PLAN, "target", r"\bI(?:'m| am) (?:aiming|training|trying) (?:for|to) (?P<v>[^.;!?]+)", ""),
    ("en", "target", _K.PLAN, "target.{what}",
     r"(?:^|\b(?:my|our|a|the) )(?:new )?(?P<noun>goal|target)(?: time)? for (?:the |my |our )?(?P<what>[\w -]{2,30}?)\s*(?::|is now|is)\s+(?P<v>[^.;!?]+)", ""),
    # A goal with its deadline ("I want to hit 1800 by the end of the year", "je veux finir la thèse d'ici l'été").
    ("en", "target", _K.PLAN, "target",
     r"\bI(?:'d| would)? (?:want|like|hope|plan|intend|aim) to (?P<v>(?:hit|reach|get|send|climb|run|finish|complete|pass|break|"
     r"lose|save|read|make|earn|sell|learn|win|beat|ride|swim|walk|publish|launch|submit|raise|pay off|clear)\b"
     r"[^.;!?]{1,60}?\bby (?:the )?(?:end of (?:the |this |next )?\w+|summer|spring|autumn|fall|winter|christmas|easter|"
     r"next \w+|(?:january|february|march|april|may|june|july|august|september|october|november|december)"
     r"(?: \d{1,2}(?:st|nd|rd|th)?)?|\d{1,2}(?:st|nd|rd|th)? (?:of )?\w+|my \w+ birthday|my birthday))", ""),
    ("fr", "target", _K.PLAN, "target",
     r"\b(?:je veux|j'aimerais|je voudrais|j'espère|je compte|mon objectif(?:,)? c'est de|mon objectif est de) "
     r"(?P<v>\w+[^.;!?]{1,60}?\b(?:d'ici|avant) (?:la fin de l'année|la fin du mois|l'été|le printemps|l'automne|l'hiver|noël|"
     r"(?:le )?\d{1,2} \w+|(?:janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre)))", ""),
    ("es", "target", _K.PLAN, "target",
     r"\b(?:quiero|me gustaría|espero|mi objetivo es) (?P<v>\w+[^.;!?]{1,60}?\b(?:antes de|para) (?:(?:finales|fin) de(?:l)? año|"
     r"(?:finales|fin) de mes|el verano|la primavera|el otoño|el invierno|navidad|(?:el )?\d{1,2} de \w+|"
     r"(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre)))", ""),
    ("pt", "target", _K.PLAN, "target",
     r"\b(?:quero|gostaria de|espero|o meu objetivo é|meu objetivo é) (?P<v>\w+[^.;!?]{1,60}?\b(?:até|antes d[eo]) "
     r"(?:ao |o )?(?:(?:fim|final) do ano|(?:fim|final) do mês|verão|natal|\d{1,2} de \w+|"
     r"(?:janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro)))", ""),
    # --- Statements of a kind the user says once and keeps: a rule's verb is its template ("{v}" the value).
    ("en", "stated", _K.PREFERENCE, "health.{v}",
     r"\bI (?:have|'ve got|have got|was diagnosed with|live with|suffer from) (?P<v>(?:type [12] )?diabetes|asthma|"
     r"(?:celiac|coeliac|crohn's) disease|high blood pressure|hypertension|arthritis|epilepsy|migraines|ibs|adhd|"
     r"a heart condition|sleep apnea|sleep apnoea|tinnitus|osteoporosis|psoriasis|eczema)\b", "The user has {v}."),
    # A medicine or routine taken at a stated rhythm ("I take metformin every morning", "tomo pastillas para la
    # tensión cada mañana", "ich nehme jeden Morgen Blutdrucktabletten"): a standing fact about the user's health.
    ("en", "stated", _K.PREFERENCE, "health.takes_{v}",
     rf"\bI(?:'m| am)? (?:take|taking|on(?! (?:call|duty|shift|nights?|days?|earlies|lates|leave|holiday|the|a|an|my|our)\b)) (?P<v>[\w -]{{2,40}}? (?:every|each|twice|once|three times|daily|at night|in the morning|before bed)\b[\w -]{{0,30}}?){_CE}", "The user takes {v}."),
    ("fr", "stated", _K.PREFERENCE, "health.takes_{v}",
     rf"\bje prends (?P<v>(?:du |de la |des |de l'|un |une )?[\w' -]{{2,40}}? (?:tous les|toutes les|chaque|le matin|le soir|par jour|deux fois|trois fois)\b[\w -]{{0,30}}?){_CE}", "L'utilisateur prend {v}."),
    ("es", "stated", _K.PREFERENCE, "health.takes_{v}",
     rf"\b(?:tomo|estoy tomando) (?P<v>[\w -]{{2,40}}? (?:cada|todos los|todas las|al día|por la mañana|por la noche|dos veces|tres veces)\b[\w -]{{0,30}}?){_CE}", "El usuario toma {v}."),
    ("de", "stated", _K.PREFERENCE, "health.takes_{v}",
     rf"\b(?:ich nehme|nehme ich) (?P<v>(?:(?:jeden|jede|täglich|morgens|abends|zweimal|dreimal) [\w -]{{2,50}}?|[\w -]{{2,40}}? (?:jeden|jede|täglich|morgens|abends|zweimal|dreimal)\b[\w -]{{0,30}}?)){_CE}", "Der Nutzer nimmt {v}."),
    ("pt", "stated", _K.PREFERENCE, "health.takes_{v}",
     rf"\b(?:tomo|estou a tomar|estou tomando) (?P<v>[\w -]{{2,40}}? (?:todos os|todas as|cada|por dia|de manhã|à noite|duas vezes|três vezes)\b[\w -]{{0,30}}?){_CE}", "O usuário toma {v}."),
    # Retired: a standing fact of who the user is ("I'm retired", "estoy jubilada", "ich bin in Rente").
    ("en", "stated", _K.IDENTITY, "identity.role", r"\bI(?:'m| am) (?:\d{1,3},? and |now |recently |finally )?(?P<v>retired|semi-retired)\b", "The user is {v}."),
    # A former occupation is who the user is too ("I used to be a librarian", "after retiring from teaching physics").
    ("en", "stated", _K.IDENTITY, "identity.former_role",
     r"\bI used to (?:be|work as) (?P<v>an? (?:[\w-]+ ){0,2}?[\w-]+(?:er|or|ist|ian|eer|ant|ent|nurse|chef|vet|coach|doc))(?=\s+(?:at|for|in|until|till|before|and)\b|\s*[.,;!]|$)",
     "The user used to be {v}."),
    ("en", "stated", _K.IDENTITY, "identity.former_role",
     r"\b(?:after|since|when) (?:I )?(?:retiring|retired|I retired) from (?P<v>[\w -]{2,40}?)(?=\s*[.,;!]|$|\s+(?:at|in|last|after|and)\b)",
     "The user retired from {v}."),
    # "My husband Gareth and I are foster carers in Swansea": the user shares a role with someone of theirs.
    ("en", "stated", _K.IDENTITY, "identity.role",
     r"^(?:[\w,' ]{0,20}?\b)?(?:my|our) (?P<what>(?:husband|wife|partner|spouse|sister|brother|son|daughter|mum|mom|dad|mother|father|"
     r"colleague|friend|business partner))(?: (?-i:[A-Z])[\w'-]+)? and I (?:are|both are|have been|'ve been|were both|are both) "
     r"(?P<v>(?:[\w-]+ ){0,2}?[\w-]+(?:ers|ors|ists|ians|eers|ants|ents|nurses|vets|doctors|coaches|chefs|owners|founders|parents)"
     r"(?: in (?-i:[A-Z])[\w'-]+(?: (?-i:[A-Z])[\w'-]+)?)?)(?=\s*[.,;!]|$|\s+(?:and|but|since|for)\b)",
     "The user and their {what} are {v}."),
    # "Day job is a pharmacist at a Boots", "My job's a paramedic": the user's job, said with the job as subject.
    ("en", "stated", _K.IDENTITY, "identity.role",
     r"^(?:(?:so|and|well|oh|also|anyway|as for me),? )?(?:my )?(?:day job|job|profession|occupation)(?:'s| is) (?P<v>an? (?:[\w-]+ ){0,2}?[\w-]+"
     r"(?:er|or|ist|ian|eer|ant|ent|nurse|chef|vet|coach|doc|medic))(?=\s+(?:at|for|in|with|and|but)\b|\s*[.,;!]|$)",
     "The user works as {v}."),
    # "on top of my job as a nurse", "mon métier d'infirmière", "mi trabajo de enfermera", "meinem Job als Pfleger".
    ("en", "stated", _K.IDENTITY, "identity.role", r"\bmy (?:day |full-time |part-time )?(?:job|work|career) as (?P<v>an? (?:[\w-]+ ){0,2}?[\w-]+)(?=\s+(?:at|for|in|and|but|on|with)\b|\s*[.,;!]|$)", "The user works as {v}."),
    ("fr", "stated", _K.IDENTITY, "identity.role", r"\bmon (?:métier|travail|poste|boulot) (?:de |d'|comme )(?P<v>(?:[\w-]+ ){0,2}?[\w-]+)(?=\s+(?:à|chez|dans|pour|et|mais)\b|\s*[.,;!]|$)", "L'utilisateur travaille comme {v}."),
    ("es", "stated", _K.IDENTITY, "identity.role", r"\bmi (?:trabajo|puesto|oficio) (?:de|como) (?P<v>(?:[\w-]+ ){0,2}?[\w-]+)(?=\s+(?:en|para|y|pero)\b|\s*[.,;!]|$)", "El usuario trabaja como {v}."),
    ("de", "stated", _K.IDENTITY, "identity.role", r"\bmeine[mnr]? (?:Job|Arbeit|Beruf|Stelle) als (?P<v>(?:[\w-]+ ){0,2}?[\w-]+)(?=\s+(?:bei|in|für|und|aber)\b|\s*[.,;!]|$)", "Der Nutzer arbeitet als {v}."),
    ("pt", "stated", _K.IDENTITY, "identity.role", r"\b(?:o )?meu (?:trabalho|emprego|cargo) (?:de|como) (?P<v>(?:[\w-]+ ){0,2}?[\w-]+)(?=\s+(?:na|no|em|para|e|mas)\b|\s*[.,;!]|$)", "O usuário trabalha como {v}."),
    # Where the user's own home or workspace is ("I brew in my garage in Bristol", "my flat in Croydon").
    ("en", "stated", _K.IDENTITY, "identity.home",
     rf"\b(?:in|from|at) my (?:own )?(?:flat|house|home|apartment|garage|garden|allotment|kitchen|shed|cellar|basement|spare room|back garden|place) in {PLACE}",
     "The user lives in {v}."),
    ("fr", "stated", _K.IDENTITY, "identity.home",
     rf"\b(?:j'habite|je vis|on habite|on vit|nous habitons) (?:près de|à côté de|pas loin de|non loin de|dans la banlieue de|en banlieue de) {PLACE}",
     "L'utilisateur habite près de {v}."),
    ("fr", "stated", _K.IDENTITY, "identity.role", r"\bje suis (?:maintenant |désormais )?(?P<v>à la retraite|retraitée?)\b", "L'utilisateur est {v}."),
    ("es", "stated", _K.IDENTITY, "identity.role", r"\b(?:estoy|soy) (?:ya )?(?P<v>jubilad[oa]|retirad[oa])\b", "El usuario está {v}."),
    ("de", "stated", _K.IDENTITY, "identity.role", r"\bich bin (?:seit [\w ]+? |jetzt |schon )?(?P<v>in Rente|in Pension|pensioniert|Rentnerin|Rentner)\b", "Der Nutzer ist {v}."),
    ("pt", "stated", _K.IDENTITY, "identity.role", r"\b(?:sou|estou) (?:já )?(?P<v>reformad[oa]|aposentad[oa])\b", "O usuário está {v}."),
    # What a user sells and where ("I sell handmade candles on Shopify", "vendo velas artesanales en Etsy"); "I sell
    # through a distributor in Bristol" names a channel, not what is sold.
    ("en", "stated", _K.IDENTITY, "identity.business", rf"\b(?:I|we) sell (?!(?:on|at|through|via|from|in|to)\b)(?P<v>[\w -]{{2,40}}? (?:on|at|through|via|from|in) {_BARE_NAME})", "The user sells {v}."),
    ("fr", "stated", _K.IDENTITY, "identity.business", rf"\bje vends (?P<v>[\w' -]{{2,40}}? (?:sur|chez|via|à) {_BARE_NAME})", "L'utilisateur vend {v}."),
    ("es", "stated", _K.IDENTITY, "identity.business", rf"\bvendo (?P<v>[\w -]{{2,40}}? (?:en|por|a través de) {_BARE_NAME})", "El usuario vende {v}."),
    ("de", "stated", _K.IDENTITY, "identity.business", rf"\b(?:ich verkaufe|verkaufe ich) (?P<v>[\w -]{{2,40}}? (?:auf|über|bei|im) {_BARE_NAME})", "Der Nutzer verkauft {v}."),
    ("pt", "stated", _K.IDENTITY, "identity.business", rf"\b(?:eu )?vendo (?P<v>[\w -]{{2,40}}? (?:no|na|em|pelo|pela|através do|através da) {_BARE_NAME})", "O usuário vende {v}."),
    ("en", "stated", _K.IDENTITY, "identity.role", r"\bI (?:teach|lecture in) (?!(?:from|at|in|on|to|for|with|online|remotely|out of)\b)(?P<v>[\w -]{2,40}?)(?=\s+(?:at|in|to|for)\b|\s*[.,;!]|$)", "The user teaches {v}."),
    # "J'ai une boutique en ligne de céramique", "tenho uma loja online de cerâmica": a business of one's own.
    ("fr", "stated", _K.IDENTITY, "identity.business",
     r"\b(?:j'ai|je tiens|je gère|on a|nous avons) (?P<v>(?:une?|ma|mon|notre) (?:petite? )?(?:boutique|entreprise|société|magasin|restaurant|café|boulangerie|atelier|cabinet|agence|librairie|ferme)(?: en ligne)?(?: (?:de|d'|à) [^.,;!?]{2,40}?)?)(?=\s*[.,;!?]|$|\s+(?:et|mais)\b)", "L'utilisateur a {v}."),
    ("es", "stated", _K.IDENTITY, "identity.business",
     r"\b(?:tengo|llevo|tenemos) (?P<v>(?:una?|mi|nuestra?) (?:pequeña? )?(?:tienda|empresa|negocio|restaurante|cafetería|panadería|taller|consulta|agencia|librería|granja)(?: online| en línea)?(?: (?:de|en) [^.,;!?]{2,40}?)?)(?=\s*[.,;!?]|$|\s+(?:y|pero)\b)", "El usuario tiene {v}."),
    ("de", "stated", _K.IDENTITY, "identity.business",
     r"\b(?:ich habe|ich führe|ich betreibe|wir haben) (?P<v>(?:eine?n?|meinen|meine|unseren|unsere) (?:kleinen? )?(?:Laden|Onlineshop|Online-Shop|Shop|Firma|Geschäft|Restaurant|Café|Bäckerei|Werkstatt|Praxis|Agentur|Buchhandlung|Hof)(?: (?:für|mit) [^.,;!?]{2,40}?)?)(?=\s*[.,;!?]|$|\s+(?:und|aber)\b)", "Der Nutzer hat {v}."),
    ("pt", "stated", _K.IDENTITY, "identity.business",
     r"\b(?:tenho|temos|gero) (?P<v>(?:uma?|a minha|o meu) (?:pequena? )?(?:loja|empresa|negócio|restaurante|café|padaria|oficina|clínica|agência|livraria|quinta)(?: online)?(?: (?:de|em) [^.,;!?]{2,40}?)?)(?=\s*[.,;!?]|$|\s+(?:e|mas)\b)", "O usuário tem {v}."),
    ("en", "stated", _K.IDENTITY, "identity.business",
     r"\bI (?:run|own|manage|have) (?P<v>(?:a|an|my own|our own) (?:[\w-]+ ){0,3}(?:shop|store|business|company|startup|"
     r"restaurant|café|cafe|bakery|studio|agency|practice|blog|podcast|channel|farm|clinic|salon|bar|firm|bookshop)"
     r"(?: (?:selling|for|in|on) [^.,;!?]{2,40})?)", "The user runs {v}."),
    ("en", "stated", _K.RELATION, "named.{what}",
     r"\b(?:my|our) (?P<what>shop|store|business|company|startup|blog|podcast|channel|band|boat|car|house|project|"
     r"app|newsletter|bakery|restaurant|studio) is (?:called|named) (?P<v>(?-i:[A-ZÀ-ÖØ-Þ0-9][\w'’&+-]*(?: (?:&|and|of|the|[A-ZÀ-ÖØ-Þ][\w'’-]*))*))",
     "The user's {what} is called {v}."),
    ("en", "stated", _K.PLAN, "target.saving",
     r"\bI(?:'m| am) (?:currently |still )?saving (?:up )?(?:for|to buy) (?P<v>[^.;!?]{3,60})", "The user is saving for {v}."),
    ("en", "stated", _K.PLAN, "learning.{v}",
     r"\bI(?:'m| am) (?:currently |now )?learning (?P<v>(?-i:[A-ZÀ-ÖØ-Þ])[\w-]+|to [\w -]{2,30}?|the [\w-]+)(?P<rest> (?:on|with|at|in) [^.,;!?]{2,30})?(?=\s*[.,;!]|$)",
     "The user is learning {v}."),
    ("en", "stated", _K.PLAN, "project.{what}",
     r"\b(?:I|we)(?:'m| am|'re| are) (?:currently |now |finally )?(?P<v>(?:renovating|redoing|remodell?ing|refurbishing|"
     r"converting|rebuilding|repainting|extending|landscaping) (?:the|our|my) (?P<what>[\w-]+"
     r"(?: (?!(?:into|to|this|next|last|in|on|at|for|with|before|after|by)\b)[\w-]+)?)(?: (?:into|to) an? [\w-]+)?)",
     "The user is {v}."),
    ("en", "stated", _K.PREFERENCE, "finance.{what}",
     r"\bmy (?P<what>rent|salary|mortgage|budget|income|pension|monthly budget)(?: payment)? is (?:now )?(?P<v>[^.;!?]*\d[^.;!?]*)",
     "The user's {what} is {v}."),
    ("en", "stated", _K.PLAN, "budget.{what}",
     r"\b(?:my|our|the) budget for (?:the |our |my )?(?P<what>[\w -]{2,30}?) is (?:now )?(?P<v>[^.;!?]*\d[^.;!?]*)",
     "The user's budget for the {what} is {v}."),
    ("fr", "stated", _K.IDENTITY, "identity.role",
     r"\bje suis (?:maintenant |désormais )?(?P<v>(?:prof|professeure?|médecin|ingénieure?|avocate?|comptable|journaliste|"
     r"architecte|dentiste|pharmacienne?|infirmière?|instit|institutrice|vendeuse|vendeur|boulangère?)(?: (?:de|d'|en) [\w-]+)?)\b",
     "L'utilisateur est {v}."),
    ("fr", "stated", _K.PLAN, "project.{what}",
     r"\b(?P<v>(?:on|nous|je) (?:rénove|rénovons|refais|refait|refaisons|repeins|repeint) (?:le|la|les|l'|notre|ma|mon) ?(?P<what>[\w-]+)(?: [\w-]+)?)",
     "Projet de l'utilisateur : {v}."),
    ("es", "stated", _K.PLAN, "project.{what}",
     r"\b(?:estamos|estoy) (?P<v>(?:reformando|renovando|pintando) (?:el|la|los|las|nuestro|nuestra|mi) (?P<what>[\w-]+)(?: [\w-]+)?)",
     "El usuario está {v}."),
    ("de", "stated", _K.PLAN, "project.{what}",
     r"\b(?P<v>(?:wir|ich) (?:renovieren|renoviere|sanieren|saniere|streichen|streiche|bauen|baue) (?:gerade |jetzt )?(?:das|die|den|unser|unsere|unseren|mein|meine) (?P<what>(?-i:[A-ZÄÖÜ])[\wäöüß-]+))",
     "Projekt des Nutzers: {v}."),
    ("pt", "stated", _K.PLAN, "project.{what}",
     r"\b(?:estamos|estou) (?P<v>(?:a renovar|a remodelar|a pintar|renovando|remodelando) (?:a|o|as|os|a nossa|o nosso) (?P<what>[\w-]+)(?: [\w-]+)?)",
     "O usuário está {v}."),
    ("pt", "stated", _K.IDENTITY, "identity.workplace",
     r"\btrabalho (?:agora )?(?P<v>(?:numa|num|na|no) (?-i:[a-zà-ÿ])[\w-]+ (?:de|do|da) [\w-]+)", "O usuário trabalha {v}."),
    ("es", "stated", _K.IDENTITY, "identity.workplace",
     r"\btrabajo (?:ahora )?(?P<v>en (?:una|un) (?-i:[a-zà-ÿ])[\w-]+ de [\w-]+)", "El usuario trabaja {v}."),
    ("fr", "stated", _K.IDENTITY, "identity.workplace",
     r"\bje travaille (?:maintenant )?(?P<v>dans (?:une|un) (?-i:[a-zà-ÿ])[\w-]+ de [\w-]+)", "L'utilisateur travaille {v}."),
    ("es", "joined", _K.IDENTITY, "identity.employer", rf"(?<=, )ahora (?:estoy|trabajo) (?:en|para) {NAME}", ""),
    ("pt", "joined", _K.IDENTITY, "identity.employer", rf"(?<=, )agora (?:estou|trabalho) (?:na|no|em|para a|para o) {NAME}", ""),
    ("de", "joined", _K.IDENTITY, "identity.employer", rf"(?<=, )(?:jetzt|nun) bin ich (?:bei|für) (?:der |dem )?{NAME}", ""),
    # A target said as a want with a bound ("I want to finish under 2 hours", "quiero correr en menos de 1:45").
    ("en", "target", _K.PLAN, "target",
     r"\bI(?:'d like| want| would like|'m hoping| hope|'m trying|'m aiming) to (?P<v>(?:run|finish|do|complete|break|get|go|beat|"
     r"hit|reach|swim|ride|cycle)\b[^.;!?]*?\b(?:under|below|sub-?|in less than|faster than)\s*[^.;!?]+)", ""),
    ("es", "target", _K.PLAN, "target",
     r"\b(?:quiero|me gustaría|intento|espero) (?P<v>(?:correr|terminar|hacer|bajar|acabar|nadar)\b[^.;!?]*?\b(?:en menos de|por debajo de|bajo|de)\s*\d[^.;!?]*)", ""),
    ("fr", "target", _K.PLAN, "target",
     r"\b(?:je veux|j'aimerais|je voudrais|j'espère) (?P<v>(?:courir|finir|terminer|faire|passer|boucler)\b[^.;!?]*?\b(?:en moins de|sous|sous les)\s*[^.;!?]+)", ""),
    ("de", "target", _K.PLAN, "target",
     r"\bich (?:will|möchte|würde gern) (?P<v>[^.;!?]*?\bunter \d[^.;!?]*?(?:laufen|schaffen|bleiben|finishen|kommen|fahren))\b", ""),
    ("pt", "target", _K.PLAN, "target",
     r"\b(?:quero|gostava de|gostaria de) (?P<v>(?:correr|terminar|fazer|baixar|acabar)\b[^.;!?]*?\b(?:em menos de|abaixo de|de)\s*\d[^.;!?]*)", ""),
    # Work shifts: "I'm on night shifts now", "I work the early shift", "my shift is now 7 to 3".
    ("en", "shift", _K.IDENTITY, "identity.shift",
     r"\bI(?:'m| am)? (?:now |currently |still )?(?:on|working|work|do|doing) (?:the )?(?P<v>(?:early|late|night|day|morning|evening|afternoon|weekend|graveyard|double|split) shifts?)\b", ""),
    ("en", "shift", _K.IDENTITY, "identity.shift", r"\bmy shifts? (?:is|are) now (?P<v>[^.;!?,]{2,40})", ""),
    ("fr", "shift", _K.IDENTITY, "identity.shift", r"\bje (?:suis|travaille) (?:maintenant |désormais )?(?P<v>de (?:nuit|jour|matin|soir|week-end)(?: (?:tous les jours|toute la semaine|en semaine|du lundi au vendredi))?)\b", ""),
    ("es", "shift", _K.IDENTITY, "identity.shift", r"\b(?:trabajo|estoy) (?:ahora )?(?:en el )?(?P<v>(?:turno de |de )(?:noche|mañana|tarde|día)(?: (?:todos los días|cada día|toda la semana|entre semana|de lunes a viernes))?)\b", ""),
    ("de", "shift", _K.IDENTITY, "identity.shift", r"\bich (?:habe|arbeite|mache) (?:jetzt |nun |gerade )?(?:in der )?(?P<v>(?:Früh|Spät|Nacht|Tag|Wechsel)schicht)\b", ""),
    ("pt", "shift", _K.IDENTITY, "identity.shift", r"\b(?:trabalho|estou) (?:agora )?(?:no )?(?P<v>(?:turno da (?:noite|manhã|tarde)|de noite)(?: (?:todos os dias|toda a semana|de segunda a sexta))?)\b", ""),
    # "the deposit goal is now £20,000", "our target is now 1:50": a target restated, with or without "my".
    ("en", "target", _K.PLAN, "target.{what}",
     r"\b(?:the|our) (?:new )?(?P<what>[\w-]+) (?P<noun>goal|target) is now (?:to )?(?P<v>[^.;!?]+)", ""),
    ("en", "target", _K.PLAN, "target", r"\b(?:the|our) (?:new )?(?:goal|target|aim) is now (?:to )?(?P<v>[^.;!?]+)", ""),
    # --- French
    ("fr", "name", _K.IDENTITY, "identity.name", rf"\bje m'appelle {NAME}", ""),
    ("fr", "name", _K.IDENTITY, "identity.name", rf"\bmon (?:pr[ée]nom|nom) (?:est|c'est) {NAME}", ""),
    ("fr", "address_as", _K.IDENTITY, "identity.address_as",
     rf"\b(?:appelle-moi|appelez-moi|tu peux m'appeler|vous pouvez m'appeler|on m'appelle) {NAME}", ""),
    ("fr", "home", _K.IDENTITY, "identity.home", rf"\b(?:on loue|nous louons|je loue|on est en location|je suis en location|nous sommes en location) (?:maintenant )?(?:(?:un|une) (?:appartement|appart|maison|studio) )?(?:à|a) {PLACE}", ""),
    ("fr", "home", _K.IDENTITY, "identity.home", rf"\b(?:je suis|on est|nous sommes|j'habite|on habite|nous habitons|je vis|on vit|nous vivons) (?:maintenant |désormais |enfin )?dans {_DWELLING['fr']}{PLACE}", ""),
    ("fr", "home", _K.IDENTITY, "identity.home",
     rf"\b(?:j'habite|je vis|je réside|on (?:vit|habite)|nous (?:vivons|habitons))(?: maintenant| actuellement| toujours| désormais)?(?: avec (?:mon|ma|mes|notre) [\w' -]{{2,30}}?)? (?:à|a|en|au|aux|dans) {PLACE}", ""),
    ("fr", "moved", _K.IDENTITY, "identity.home",
     rf"\b(?:(?:j'ai|on a|nous avons) (?:récemment |enfin |finalement )?(?:déménagé|emménagé)|je viens de déménager|on vient de déménager|je me suis installée?|on s'est installés?) (?:à|a|en|au|dans) {PLACE}", ""),
    ("fr", "moving", _K.IDENTITY, "identity.home",
     rf"\b(?:je m'installe|je vais m'installer|je déménage|on s'installe|on déménage|nous nous installons) (?:à|a|en|au|dans) {PLACE}", ""),
    ("fr", "origin", _K.IDENTITY, "identity.origin", rf"\bje (?:viens|suis originaire) (?:de|du|d') ?{PLACE}", ""),
    ("fr", "age", _K.IDENTITY, "identity.age", r"\bj'ai (?:eu )?(?P<v>\d{1,3}) ans\b", ""),
    ("fr", "works_as", _K.IDENTITY, "identity.role", r"\bje travaille (?:comme|en tant que) (?P<v>[^.,;!?]{2,40}?)(?=\s+(?:chez|à|pour)\b|[.,;!]|$)", ""),
    ("fr", "role", _K.IDENTITY, "identity.role",
     r"\bje suis (?:maintenant |désormais |aujourd'hui )?(?P<v>(?:un |une )?[\w-]+(?:eur|ien|ienne|iste|ier|ière|ecte|ologue|ine|in))(?=\s+(?:chez|à|pour|de)\b|\s*[.,;!]|$)", ""),
    ("fr", "employer", _K.IDENTITY, "identity.employer", rf"\bje travaille (?:comme|en tant que) [\w -]{{2,40}}? (?:chez|pour) {NAME}", ""),
    ("fr", "employer", _K.IDENTITY, "identity.employer", rf"\bje (?:travaille|bosse) (?:maintenant |actuellement |désormais |aujourd'hui )?(?:chez|pour|au|à la|à l') ?{NAME}", ""),
    ("fr", "diet", _K.PREFERENCE, "preference.diet",
     r"\bje suis (?:devenue? |maintenant )?(?P<v>végétarien(?:ne)?|végétalien(?:ne)?|végane?|vegan(?:e)?|"
     r"pescétarien(?:ne)?)\b", ""),
    ("fr", "diet", _K.PREFERENCE, "diet.{v}",
     r"\bje suis (?P<v>intolérante? au (?:lactose|gluten)|cœliaque|coeliaque|diabétique)\b", ""),
    ("fr", "allergy", _K.PREFERENCE, "allergy.{v}", rf"\bje suis (?:[\w-]+ et )?allergique (?P<v>(?:à|a|aux|au) [^.,;:!?()]{{2,60}}?){_CE}", ""),
    ("fr", "tool", _K.PREFERENCE, "tool.{v}", rf"\b(?:j'utilise|on utilise|nous utilisons) (?:principalmente |surtout |sobretudo |sempre |toujours |siempre )?{NAME}(?P<what> (?:pour|comme) [^.,;:!?()]{{2,60}}?)?{_CE}", ""),
    ("fr", "pref", _K.PREFERENCE, "", rf"\bje ne (?P<w>mange|bois) (?:pas|jamais|plus) {OBJ}", "L'utilisateur ne {w} pas"),
    ("fr", "pref", _K.PREFERENCE, "", rf"\bje (?:préfère|prefere) {OBJ}", "L'utilisateur préfère"),
    ("fr", "pref", _K.PREFERENCE, "", rf"\bj'adore {OBJ}", "L'utilisateur adore"),
    ("fr", "pref", _K.PREFERENCE, "", rf"\bj'aime (?:bien |beaucoup |vraiment )?{OBJ}", "L'utilisateur aime"),
    ("fr", "pref", _K.PREFERENCE, "", rf"\bje déteste {OBJ}", "L'utilisateur déteste"),
    ("fr", "pref", _K.PREFERENCE, "", rf"\bje ne supporte pas {OBJ}", "L'utilisateur ne supporte pas"),
    ("fr", "pref", _K.PREFERENCE, "", rf"\bje n'aime pas {OBJ}", "L'utilisateur n'aime pas"),
    ("fr", "favorite", _K.PREFERENCE, "favorite.{what}",
     rf"\b(?:mon|ma) (?P<what>[\w-]+) (?:préférée?|favorite?) (?:est|c'est) {OBJ}", ""),
    ("fr", "decision", _K.DECISION, "choice",
     r"\b(?P<v>(?:on (?:va )?partir sur|on part sur|on (?:va )?prendre|on prend|on (?:va )?utiliser|on utilise|"
     r"on garde|j'ai (?:finalement )?(?:décidé|choisi)|nous avons (?:décidé|choisi)|on a (?:décidé|choisi|opté pour)|"
     r"j'ai opté pour|je pars sur|va pour|allons-y avec)\s[^.;!?]+)", ""),
    ("fr", "decision", _K.DECISION, "choice", r"(?:^|\bet )(?:c'est )?(?:décidé|décision)\s*:\s*(?P<v>[^.;!?]+)", ""),
    ("es", "decision", _K.DECISION, "choice", r"(?:^|\by )(?:decidido|decisión)\s*:\s*(?P<v>[^.;!?]+)", ""),
    ("pt", "decision", _K.DECISION, "choice", r"(?:^|\be )(?:decidido|decisão)\s*:\s*(?P<v>[^.;!?]+)", ""),
    ("de", "decision", _K.DECISION, "choice", r"(?:^|\bund )(?:entschieden|entscheidung)\s*:\s*(?P<v>[^.;!?]+)", ""),
    ("fr", "action", _K.ACTION_ITEM, "",
     r"\b(?:je dois|il faut que je|j'ai besoin de|je vais devoir|(?:il|elle|on) m'a demandé de) (?:absolument |vraiment |encore |aussi |toujours |juste |seulement |d'abord )?(?P<v>[^.;!?]+)", ""),
    ("fr", "remind", _K.ACTION_ITEM, "",
     r"\b(?:rappelle-moi|rappelez-moi|fais-moi penser à|n'oublie pas de me rappeler|(?:mets|mettez)-moi un rappel pour) (?:de |d'|que )?(?P<v>[^.;!?]+)", ""),
    ("fr", "target", _K.PLAN, "target", r"\b(?:mon|notre|l') ?(?:nouvel )?(?:objectif|but) (?:est|c'est)(?: maintenant| désormais)? (?:de |d')?(?P<v>[^.;!?]+)", ""),
    # --- Spanish
    ("es", "name", _K.IDENTITY, "identity.name", rf"\b(?:me llamo|mi nombre es) {NAME}", ""),
    ("es", "address_as", _K.IDENTITY, "identity.address_as", rf"\b(?:llámame|llamame|puedes llamarme) {NAME}", ""),
    ("es", "home", _K.IDENTITY, "identity.home", rf"\b(?:alquilamos|alquilo|vivimos de alquiler|vivo de alquiler|estamos de alquiler|estoy de alquiler) (?:ahora )?(?:(?:un piso|una casa|un apartamento) )?en {PLACE}", ""),
    ("es", "home", _K.IDENTITY, "identity.home", rf"\b(?:estoy|estamos|vivo|vivimos) (?:ahora |ya )?en {_DWELLING['es']}{PLACE}", ""),
    ("es", "home", _K.IDENTITY, "identity.home", rf"\b(?:vivo|resido|estoy viviendo)(?: ahora| actualmente)?(?: con (?:mi|mis|nuestro|nuestra) [\w -]{{2,30}}?)? en {PLACE}", ""),
    ("es", "moved", _K.IDENTITY, "identity.home", rf"\b(?:me|nos) (?:mudé|mudamos|he mudado|hemos mudado|acabo de mudar|acabamos de mudar) a {PLACE}", ""),
    ("es", "moving", _K.IDENTITY, "identity.home", rf"\b(?:me voy a mudar|me mudo|nos mudamos|nos vamos a mudar) a {PLACE}", ""),
    ("es", "origin", _K.IDENTITY, "identity.origin", rf"\bsoy de {PLACE}", ""),
    ("es", "age", _K.IDENTITY, "identity.age", r"\btengo (?P<v>\d{1,3}) años\b", ""),
    ("es", "works_as", _K.IDENTITY, "identity.role", r"\b(?<!\bun )(?<!\bel )(?<!\bmi )(?<!\bsu )(?<!\btu )(?<!\bde )(?<!ido )(?<!ado )(?:trabajo|estoy trabajando) (?:ahora )?(?:como|de (?!(?:mañana|tarde|noche|día|turno|lunes|martes|miércoles|jueves|viernes|sábado|domingo|fin de semana|vacaciones|casa)\b)) ?(?P<v>[^.,;!?]{2,40}?)(?=\s+(?:en|para)\b|[.,;!]|$)", ""),
    ("es", "role", _K.IDENTITY, "identity.role",
     # "ahora soy traductora autónoma": one adjective may follow the role noun.
     r"\bsoy (?P<v>(?:un |una )?[\w-]+(?:ero|era|ista|or|ora|ólogo|óloga|ario|aria|ente|ico|ica)(?: (?!en\b|de\b|para\b|y\b)[a-záéíóúñ]+[oae])?)(?=\s+(?:en|de|para)\b|\s*[.,;!]|$)", ""),
    ("es", "employer", _K.IDENTITY, "identity.employer", rf"\b(?<!\bun )(?<!\bel )(?<!\bmi )(?<!\bsu )(?<!\btu )(?<!\bde )(?<!ido )(?<!ado )trabajo (?:como|de) [\w -]{{2,40}}? (?:en|para) {NAME}", ""),
    ("es", "employer", _K.IDENTITY, "identity.employer", rf"(?:^|(?<=[,;:] )|(?<=\byo )|(?<=\bahora )|(?<=\by ))trabajo (?:ahora |actualmente )?(?:en|para) {NAME}", ""),
    ("es", "diet", _K.PREFERENCE, "preference.diet", r"\bsoy (?P<v>vegetarian[oa]|vegan[oa]|pescetarian[oa])\b", ""),
    ("es", "diet", _K.PREFERENCE, "diet.{v}", r"\bsoy (?P<v>celíac[oa]|diabétic[oa]|intolerante a la lactosa)\b", ""),
    ("es", "allergy", _K.PREFERENCE, "allergy.{v}", rf"\b(?:soy (?:[\w-]+ y )?alérgic[oa]|tengo alergia) (?:a |al )(?P<v>[^.,;:!?()]{{2,60}}?){_CE}", ""),
    ("es", "tool", _K.PREFERENCE, "tool.{v}", rf"\b(?:uso|utilizo|usamos|utilizamos) (?:principalmente |surtout |sobretudo |sempre |toujours |siempre )?{NAME}(?P<what> (?:para|como) [^.,;:!?()]{{2,60}}?)?{_CE}", ""),
    ("es", "pref", _K.PREFERENCE, "", rf"\bno (?P<w>como|bebo|tomo) {OBJ}", "El usuario no {w}"),
    ("es", "pref", _K.PREFERENCE, "", rf"\bprefiero {OBJ}", "El usuario prefiere"),
    ("es", "pref", _K.PREFERENCE, "", rf"\bme encanta(?:n)? {OBJ}", "Al usuario le encanta"),
    ("es", "pref", _K.PREFERENCE, "", rf"(?<!\bno )\bme gusta(?:n)? (?:mucho )?{OBJ}", "Al usuario le gusta"),
    ("es", "pref", _K.PREFERENCE, "", rf"\bodio {OBJ}", "El usuario odia"),
    ("es", "pref", _K.PREFERENCE, "", rf"\bno soporto {OBJ}", "El usuario no soporta"),
    ("es", "pref", _K.PREFERENCE, "", rf"\bno me gusta(?:n)? {OBJ}", "Al usuario no le gusta"),
    ("es", "favorite", _K.PREFERENCE, "favorite.{what}",
     rf"\bmi (?P<what>[\w-]+) (?:favorit[oa]|preferid[oa]) es {OBJ}", ""),
    ("es", "decision", _K.DECISION, "choice",
     r"\b(?P<v>(?:vamos con|vamos a (?:usar|utilizar|ir con|elegir)|usaremos|utilizaremos|nos quedamos con|"
     r"(?:he|hemos) decidido|decidí|decidimos|elegí|elegimos|(?:he|hemos) elegido|(?:he|hemos) optado por|"
     r"nos hemos decidido por|optamos por|opté por|me quedo con|voy a usar|"
     r"iremos con)\s[^.;!?]+)", ""),
    ("es", "action", _K.ACTION_ITEM, "", r"\b(?:tengo que|necesito|debo) (?:también |todavía |aún |sí o sí |solo |primero )?(?P<v>[^.;!?]+)", ""),
    ("es", "remind", _K.ACTION_ITEM, "", r"\b(?:recuérdame|recuerdame|ponme un recordatorio para) (?:que |de )?(?P<v>[^.;!?]+)", ""),
    ("es", "target", _K.PLAN, "target", r"\b(?:mi|el|nuestro|nuestra|la) (?:nuevo |nueva )?(?:objetivo|meta) (?:ahora )?es(?: ahora)? (?P<v>[^.;!?]+)", ""),
    # --- German
    ("de", "name", _K.IDENTITY, "identity.name", rf"\b(?:ich heiße|ich heisse|mein Name ist) {NAME}", ""),
    ("de", "address_as", _K.IDENTITY, "identity.address_as", rf"\b(?:nenn|nenne|nennt|nennen Sie) mich {NAME}", ""),
    ("de", "home", _K.IDENTITY, "identity.home", rf"\b(?:ich wohne|wir wohnen|wohne ich|wohnen wir) (?:jetzt |nun )?zur Miete in {PLACE}", ""),
    ("de", "home", _K.IDENTITY, "identity.home", rf"\b(?:ich (?:wohne|lebe|bin)|wir (?:wohnen|leben|sind)|(?:wohne|lebe|bin) ich|(?:wohnen|leben|sind) wir) (?:jetzt |nun |endlich |inzwischen )?in {_DWELLING['de']}{PLACE}", ""),
    ("de", "home", _K.IDENTITY, "identity.home", rf"\b(?:ich|und) (?:wohne|lebe)(?: jetzt| derzeit| seit [\w ]+?)?(?: mit (?:meinem|meiner|meinen|unserem|unserer|unseren) [\w -]{{2,30}}?)? in {PLACE}", ""),
    ("de", "home", _K.IDENTITY, "identity.home", rf"\b(?:wohne|lebe) ich (?:jetzt |derzeit |seit [\w ]+? )?in {PLACE}", ""),
    ("de", "works_as", _K.IDENTITY, "identity.role", r"\barbeite ich (?:jetzt |seit [\w ]+? )?als (?P<v>[^.,;!?]{2,40}?)(?=\s+(?:bei|in|für)\b|[.,;!]|$)", ""),
    ("de", "moved", _K.IDENTITY, "identity.home", rf"\b(?:ich bin|wir sind) (?:gerade |kürzlich |jetzt |vor kurzem |endlich )?nach {PLACE} (?:gezogen|umgezogen)", ""),
    ("de", "origin", _K.IDENTITY, "identity.origin", rf"\bich (?:komme|stamme) aus {PLACE}", ""),
    ("de", "age", _K.IDENTITY, "identity.age", r"\bich bin (?P<v>\d{1,3})(?= Jahre|\s*[.,;!]|$| und)", ""),
    ("de", "works_as", _K.IDENTITY, "identity.role", r"\b(?:ich|und) arbeite als (?P<v>[^.,;!?]{2,40}?)(?=\s+(?:bei|in|für)\b|[.,;!]|$)", ""),
    # "Ich arbeite seit drei Jahren bei Zalando als Data Engineer": the role after the employer.
    ("de", "works_as", _K.IDENTITY, "identity.role", r"\b(?:ich|und) arbeite (?:jetzt |nun |seit [\w ]+? )?(?:bei|für) [^.,;!?]{2,40}? als (?P<v>[^.,;!?]{2,40}?)(?=\s+(?:in)\b|[.,;!]|$)", ""),
    ("de", "role", _K.IDENTITY, "identity.role",
     r"\bich bin (?:jetzt |nun |inzwischen |mittlerweile )?(?:von Beruf )?(?-i:(?P<v>[A-ZÄÖÜ][a-zäöüß]+(?:er|erin|ist|istin|eur|eurin|ant|antin|ent|entin|"
     r"ekt|ektin|loge|login|arzt|ärztin)))\b", ""),
    ("de", "employer", _K.IDENTITY, "identity.employer", rf"\barbeite (?:nicht mehr|nicht länger) (?:bei|für) {_BARE_NAME},? sondern (?:jetzt |nun )?(?:bei|für) {NAME}", ""),
    ("de", "employer", _K.IDENTITY, "identity.employer", rf"\b(?:ich|und) arbeite als [\w -]{{2,40}}? (?:bei|für) {NAME}", ""),
    ("de", "employer", _K.IDENTITY, "identity.employer",
     rf"\bich bin (?:jetzt |nun )?(?-i:[A-ZÄÖÜ][a-zäöüß]+(?:er|erin|ist|istin|eur|eurin|ant|antin|ent|entin|ekt|ektin|loge|login|arzt|ärztin)) (?:bei|für) {NAME}", ""),
    ("de", "employer", _K.IDENTITY, "identity.employer", rf"\barbeite ich (?:jetzt |nun |derzeit |inzwischen |seit [\w ]+? )?(?:bei|für) (?:der |dem |den )?{NAME}", ""),
    ("de", "employer", _K.IDENTITY, "identity.employer", rf"\b(?:ich|und) arbeite (?:jetzt |nun |derzeit |inzwischen |seit [\w ]+? )?(?:bei|für) (?:der |dem |den )?{NAME}", ""),
    ("de", "diet", _K.PREFERENCE, "preference.diet",
     r"\bich bin (?:jetzt |seit [\w ]+? )?(?P<v>Vegetarier(?:in)?|Veganer(?:in)?|vegan|vegetarisch|Pescetarier(?:in)?)\b", ""),
    ("de", "diet", _K.PREFERENCE, "diet.{v}", r"\bich bin (?P<v>laktoseintolerant|Diabetiker(?:in)?|Zöliakiker(?:in)?)\b", ""),
    ("de", "allergy", _K.PREFERENCE, "allergy.{v}", rf"\bich bin (?:[\w-]+ und )?allergisch gegen {OBJ}", ""),
    ("de", "allergy", _K.PREFERENCE, "allergy.{v}", r"\bich habe eine (?P<v>[\w]+?)-?allergie\b", ""),
    ("de", "pref", _K.PREFERENCE, "", rf"\bich (?P<w>esse|trinke) (?P<v>(?:kein|keine|keinen|nie|niemals) [^.,;:!?()]{{2,60}}?){_CE}", ""),
    ("de", "pref", _K.PREFERENCE, "", rf"\bich bevorzuge {OBJ}", "Der Nutzer bevorzugt"),
    ("de", "pref", _K.PREFERENCE, "", rf"\bich liebe {OBJ}", "Der Nutzer liebt"),
    ("de", "pref", _K.PREFERENCE, "", rf"\bich mag {OBJ}", "Der Nutzer mag"),
    ("de", "pref", _K.PREFERENCE, "", rf"\bich hasse {OBJ}", "Der Nutzer hasst"),
    ("de", "pref", _K.PREFERENCE, "", rf"\bich (?:trinke|esse|nehme|höre|lese|mag es) lieber {OBJ}", "Der Nutzer bevorzugt"),
    ("de", "pref", _K.PREFERENCE, "", r"\bich kann (?P<v>[^.,;:!?()]{2,60}?) nicht (?:ausstehen|leiden)", "Der Nutzer kann nicht ausstehen:"),
    ("de", "favorite", _K.PREFERENCE, "favorite.{what}", rf"\bmein(?:e)? Lieblings(?P<what>\w+) ist {OBJ}", ""),
    ("de", "decision", _K.DECISION, "choice",
     r"\b(?P<v>(?:wir nehmen|ich nehme|wir (?:verwenden|benutzen|nutzen)|(?:wir haben|ich habe) uns (?:für|fuer)|"
     r"(?:wir|ich) (?:entscheiden uns|entscheide mich) für|wir bleiben bei|ich bleibe bei|wir gehen mit)\s[^.;!?]+)", ""),
    # "Wir haben beschlossen, im Herbst umzuziehen": a decision said with its infinitive clause.
    ("de", "decision", _K.DECISION, "choice",
     r"\b(?P<v>(?:wir haben|ich habe) (?:jetzt |nun |endlich )?(?:beschlossen|entschieden),? [^.;!?]+?(?: zu [\w-]+| \w+zu\w+en))(?=\s*[.;!?,]|$)", ""),
    ("de", "decision", _K.DECISION, "choice",
     r"\b(?P<v>(?:nehmen|verwenden|benutzen|nutzen) (?:wir|ich) (?:jetzt |nun |doch |lieber |ab sofort )?[^.;!?]+)", ""),
    ("de", "decision", _K.DECISION, "choice",
     r"\b(?P<v>(?:wir haben|ich habe|wir sind|ich bin) (?:jetzt |nun |inzwischen |endlich )?(?:auf|zu) [^.;!?]+? (?:gewechselt|umgestiegen|umgestellt|migriert))", ""),
    ("de", "action", _K.ACTION_ITEM, "", r"\bich (?:muss|sollte unbedingt) (?:auch |noch |unbedingt |dringend )?(?P<v>[^.;!?]+)", ""),
    ("de", "action", _K.ACTION_ITEM, "", r"\b(?:muss|sollte) ich (?:auch |noch |unbedingt |dringend )?(?P<v>[^.;!?]+)", ""),
    # "bis zum 30. Juni zu kündigen": a German ordinal's dot does not end the task.
    ("de", "remind", _K.ACTION_ITEM, "", r"\b(?:erinnere|erinner|erinnern Sie) mich(?: bitte)?,? (?:daran,? )?(?:dass )?(?P<v>(?:[^.;!?]|(?<=\d)\.(?= \w))+)", ""),
    # "Stell mir eine Erinnerung: Steuer abgeben am 3. Mai": a reminder asked for with a noun, as "set me a reminder to".
    ("de", "remind", _K.ACTION_ITEM, "", r"\b(?:stell|stelle|setz|setze) mir (?:bitte )?eine Erinnerung(?: ein)?,? (?:für |an |daran,? |dass |:\s*)?(?P<v>(?:[^.;!?]|(?<=\d)\.(?= \w))+)", ""),
    ("de", "target", _K.PLAN, "target", r"\b(?:mein|unser|das) (?:neues )?Ziel ist(?: jetzt| nun)?(?: es)?,? (?P<v>[^.;!?]+)", ""),
    # --- Portuguese
    ("pt", "name", _K.IDENTITY, "identity.name", rf"\b(?:meu nome é|me chamo|chamo-me|eu me chamo) {NAME}", ""),
    ("pt", "address_as", _K.IDENTITY, "identity.address_as",
     rf"\b(?:pode me chamar de|podes chamar-me|me chame de|me chama de|pode me tratar por|podes tratar-me por|"
     rf"trata-me por|trate-me por) {NAME}", ""),
    ("pt", "home", _K.IDENTITY, "identity.home", rf"\b(?:arrendamos|arrendo|alugamos|alugo|estamos a arrendar|estou a arrendar) (?:agora )?(?:(?:uma casa|um apartamento) )?(?:em|no|na) {PLACE}", ""),
    ("pt", "home", _K.IDENTITY, "identity.home", rf"\b(?:estou|estamos|moro|moramos|vivo|vivemos) (?:agora |já )?(?:num|numa|em um|em uma) {_DWELLING['pt']}{PLACE}", ""),
    ("pt", "home", _K.IDENTITY, "identity.home", rf"\b(?:eu )?(?:moro|vivo|resido|estou a morar|estou morando|estou a viver|estou vivendo)(?: agora| atualmente)?(?: com (?:o meu|a minha|os meus|as minhas|meu|minha) [\w -]{{2,30}}?)? (?:em|no|na|nos|nas) {PLACE}", ""),
    ("pt", "moved", _K.IDENTITY, "identity.home", rf"\b(?:me mudei|mudei-me|acabei de me mudar|mudámo-nos|mudamo-nos|nos mudamos|mudámos-nos|mudamos-nos|acabámos de nos mudar) (?:para|pra) (?:o |a )?{PLACE}", ""),
    ("pt", "moving", _K.IDENTITY, "identity.home", rf"\b(?:vou mudar-me|vou me mudar|vamos mudar-nos|vamos nos mudar) (?:para|pra) (?:o |a )?{PLACE}", ""),
    ("pt", "origin", _K.IDENTITY, "identity.origin", rf"\bsou (?:de|do|da) {PLACE}", ""),
    ("pt", "age", _K.IDENTITY, "identity.age", r"\btenho (?P<v>\d{1,3}) anos\b", ""),
    ("pt", "works_as", _K.IDENTITY, "identity.role", r"\btrabalho como (?P<v>[^.,;!?]{2,40}?)(?=\s+(?:na|no|em|para)\b|[.,;!]|$)", ""),
    ("pt", "role", _K.IDENTITY, "identity.role",
     r"\bsou (?P<v>(?:um |uma )?[\w-]+(?:eiro|eira|ista|or|ora|ólogo|óloga|ário|ária|ente|ico|ica))(?=\s+(?:na|no|em|de|para)\b|\s*[.,;!]|$)", ""),
    ("pt", "employer", _K.IDENTITY, "identity.employer", rf"\btrabalho como [\w -]{{2,40}}? (?:na|no|em|para) {NAME}", ""),
    ("pt", "employer", _K.IDENTITY, "identity.employer", rf"\btrabalho (?:agora |atualmente )?(?:na|no|em|para a|para o|para) {NAME}", ""),
    ("pt", "diet", _K.PREFERENCE, "preference.diet", r"\bsou (?P<v>vegetarian[oa]|vegan[oa]|pescetarian[oa])\b", ""),
    ("pt", "diet", _K.PREFERENCE, "diet.{v}", r"\bsou (?P<v>celíac[oa]|diabétic[oa]|intolerante à lactose)\b", ""),
    ("pt", "allergy", _K.PREFERENCE, "allergy.{v}", rf"\b(?:sou (?:[\w-]+ e )?alérgic[oa]|tenho alergia) (?:a |à |ao |aos |às )(?P<v>[^.,;:!?()]{{2,60}}?){_CE}", ""),
    ("pt", "tool", _K.PREFERENCE, "tool.{v}", rf"\b(?:uso|utilizo|usamos|utilizamos) (?:principalmente |surtout |sobretudo |sempre |toujours |siempre )?{NAME}(?P<what> (?:para|como) [^.,;:!?()]{{2,60}}?)?{_CE}", ""),
    ("pt", "pref", _K.PREFERENCE, "", rf"\bnão (?P<w>como|bebo) {OBJ}", "O usuário não {w}"),
    ("pt", "pref", _K.PREFERENCE, "", rf"\bprefiro {OBJ}", "O usuário prefere"),
    ("pt", "pref", _K.PREFERENCE, "", rf"\badoro {OBJ}", "O usuário adora"),
    ("pt", "pref", _K.PREFERENCE, "", rf"(?<!\bnão )\bgosto (?:muito |bastante )?(?P<v>(?:de|do|da|dos|das) [^.,;:!?()]{{2,60}}?){_CE}", "O usuário gosta"),
    ("pt", "pref", _K.PREFERENCE, "", rf"\bodeio {OBJ}", "O usuário odeia"),
    ("pt", "pref", _K.PREFERENCE, "", rf"\bnão suporto {OBJ}", "O usuário não suporta"),
    ("pt", "pref", _K.PREFERENCE, "", rf"\bnão gosto (?P<v>(?:de|do|da|dos|das) [^.,;:!?()]{{2,60}}?){_CE}", "O usuário não gosta"),
    ("pt", "favorite", _K.PREFERENCE, "favorite.{what}",
     rf"\b(?:meu|minha) (?P<what>[\w-]+) (?:favorit[oa]|preferid[oa]) é {OBJ}", ""),
    ("pt", "decision", _K.DECISION, "choice",
     r"\b(?P<v>(?:vamos usar|vamos com|vamos ficar com|ficamos com|decidi|decidimos|escolhi|escolhemos|optamos por|"
     r"optei por|vou usar|vou ficar com)\s[^.;!?]+)", ""),
    ("pt", "action", _K.ACTION_ITEM, "", r"\b(?:(?:eu )?preciso|tenho que|tenho de|devo) (?:também |ainda |mesmo |só |apenas |primeiro )?(?P<v>[^.;!?]+)", ""),
    ("pt", "remind", _K.ACTION_ITEM, "", r"\b(?:(?:me lembra|me lembre|lembre-me|lembra-me) de|(?:põe-me|poe-me|me põe) um lembrete para) (?P<v>[^.;!?]+)", ""),
    ("pt", "target", _K.PLAN, "target", r"\b(?:o meu objetivo|meu objetivo|a minha meta|minha meta|o objetivo) (?:agora )?é(?: agora)? (?P<v>[^.;!?]+)", ""),
]  # fmt: skip

#: What a value runs to: the clause's end (".;!?"), where a point between two digits ends nothing ("order more
#: 23.5 carat leaf by Friday", "on passe à 2.5 kg"): it joins the parts of one decimal number.
_TO_CLAUSE_END = "[^.;!?]"
_DECIMAL_SAFE = r"(?:[^.;!?]|(?<=\d)\.(?=\d))"

RULES: tuple[Rule, ...] = tuple(
    Rule(lang, key, kind, slot, re.compile(pattern.replace(_TO_CLAUSE_END, _DECIMAL_SAFE), _I), verb)
    for lang, key, kind, slot, pattern, verb in _RULES_SPEC
)
_MOD = r"(?:(?P<mod>[^\W\d_][\w-]*) )?"
#: "da ist der Herr Weidinger mein Mann für alles", "he's my man for everything", "mon homme à tout faire": a
#: go-to person, no husband (distill48).
_FOR_ALL = r"(?!\s+(?:für|for|pour|para|à)\s+(?:alles|all|everything|anything|tout|todo|tudo)\b)"
_REL_SPEC = (
    ("en", rf"\b(?P<poss>my|our) {_MOD}(?P<rel>{EN_REL_RE})(?:'s name)?(?:,)?(?: (?:is|'s)(?: now| currently| still)?(?: an? (?:guy|man|woman|lady|chap|bloke|fellow|person))?(?: called| named)?| (?:called|named)|,)? {NAME}"),
    ("fr", rf"\b(?P<poss>mon|ma|notre) {_MOD}(?P<rel>{REL_RE})(?:,? (?:s'appelle|est|c'est)(?: maintenant| désormais)?(?: le| la)?|,)?(?: (?:docteur|docteure|doctoresse|maître|professeur|professeure))? {NAME}"),
    ("es", rf"\b(?P<poss>mi|nuestro|nuestra) {_MOD}(?P<rel>{REL_RE})(?:,? (?:ahora )?(?:se llama|es)(?: ahora)?(?: el| la)?|,)?(?: (?:doctor|doctora|profesor|profesora|licenciado|licenciada))? {NAME}"),
    ("de", rf"\b(?P<poss>mein|meine|meinem|meinen|meiner|unser|unsere|unserem|unseren|unserer) {_MOD}(?P<rel>{REL_RE})(?:,? (?:heißt|heisst|ist)(?: jetzt| nun)?|,)? {NAME}"),
    ("pt", rf"\b(?P<poss>meu|minha|nosso|nossa) {_MOD}(?P<rel>{REL_RE})(?:,? (?:agora )?(?:se chama|chama-se|é)(?: agora)?(?: o| a)?|,(?: o| a)?)?(?: (?:doutor|doutora|professor|professora))? {NAME}"),
    # "Imaging is my friend Tariq's thing": a name after the relation noun is who the relation is, not the subject.
    ("en", rf"{NAME},? (?:is )?(?:my|our) {_MOD}(?P<rel>{EN_REL_RE})\b(?!,?\s+(?-i:[A-ZÀ-ÖØ-Þ])){_FOR_ALL}"),
    ("en", rf"\bthe new (?P<rel>{EN_REL_RE}) (?:is|will be|'s|is going to be)(?: now)? {NAME}"),
    ("fr", rf"\b(?:le nouveau|la nouvelle) (?P<rel>{REL_RE}) (?:est|sera|c'est)(?: le| la)? {NAME}"),
    ("es", rf"\b(?:el nuevo|la nueva) (?P<rel>{REL_RE}) (?:es|será)(?: el| la)? {NAME}"),
    ("de", rf"\b(?:der neue|die neue|mein neuer|meine neue) (?P<rel>{REL_RE}) (?:ist|wird|heißt)(?: jetzt)? {NAME}"),
    ("pt", rf"\b(?:o novo|a nova) (?P<rel>{REL_RE}) (?:é|será)(?: o| a)? {NAME}"),
    # "The plumber is called Sam", "Der Fliesenleger heißt Herr Böhm": who does a job in the user's home or care,
    # named with a definite article (family and friends need a possessive: "the teacher" may be a child's).
    ("en", rf"\bthe (?P<rel>{SERVICE_EN_RE})(?:'s name is| is called|'s called| is named) {NAME}"),
    ("fr", rf"\b(?:le |la |l')(?P<rel>{SERVICE_RE})(?: des enfants| de la famille)?,? (?:s'appelle|c'est|est) (?:le |la )?(?:(?:docteur|docteure|dr\.?|dre) )?{NAME}"),
    ("es", rf"\b(?:el|la) (?P<rel>{SERVICE_RE})(?: de (?:los niños|las niñas|la familia|casa))? (?:se llama|es)(?: el| la)?(?: (?:doctor|doctora|dr\.?|dra\.?))? {NAME}"),
    ("de", rf"\b(?:der|die) (?P<rel>{SERVICE_RE})(?: der Kinder| unserer Kinder)? (?:heißt|heisst|ist)(?: (?:Dr\.?|Doktor|Doktorin))? {NAME}"),
    ("pt", rf"\b(?:o|a) (?P<rel>{SERVICE_RE})(?: dos miúdos| das crianças| dos meninos)? (?:chama-se|se chama|é)(?: o| a)?(?: (?:doutor|doutora|dr\.?|dra\.?))? {NAME}"),
    # "Tom's no longer my manager, it's Priya now": the name after the retraction is the current one.
    ("en", rf"\bno longer (?:my|our) {_MOD}(?P<rel>{EN_REL_RE}),? (?:it's|it is|that's) (?:now )?{NAME}"),
    # An adopted or new pet named after its noun: "we adopted a kitten, Miso", "adotei uma gata, a Pimenta".
    ("en", rf"\b(?:I|we) (?:just |recently |finally )?(?:adopted|got|rescued|have) an? {_MOD}(?P<rel>{EN_REL_RE}),? (?:called |named )?{NAME}"),
    ("fr", rf"\b(?:j'ai|on a|nous avons) (?:adopté |recueilli )?(?:une? ) ?{_MOD}(?P<rel>{REL_RE}),? (?:qui s'appelle |nommée? |appelée? )?{NAME}"),
    # "On vient d'adopter un chaton, il s'appelle Pistache", "we just got a puppy, his name is Rufus".
    ("fr", rf"\b(?:on vient|je viens|nous venons) d'(?:adopter|accueillir|avoir) (?:une? ){_MOD}(?P<rel>{REL_RE}),? (?:qui s'appelle |(?:il|elle) s'appelle |nommée? |appelée? )?{NAME}"),
    ("en", rf"\b(?:I|we) (?:just |recently |finally )?(?:adopted|got|rescued) an? {_MOD}(?P<rel>{EN_REL_RE}),? (?:(?:his|her|its) name is|(?:he|she|it)(?:'s| is) called) {NAME}"),
    ("es", rf"\b(?:acabo de|acabamos de) (?:adoptar|tener) (?:una? ){_MOD}(?P<rel>{REL_RE}),? (?:que )?(?:se llama |llamad[oa] )?{NAME}"),
    ("de", rf"\b(?:ich habe|wir haben) (?:gerade |kürzlich |endlich )?(?:eine?n? ){_MOD}(?P<rel>{REL_RE}) (?:adoptiert|bekommen|geholt),? (?:er|sie|es) heißt {NAME}"),
    ("es", rf"\b(?:adopté|adoptamos|tengo|tenemos) (?:una? ){_MOD}(?P<rel>{REL_RE}),? (?:que se llama |llamad[oa] )?{NAME}"),
    ("pt", rf"\b(?:adotei|adotámos|adotamos|tenho|temos) (?:uma? ){_MOD}(?P<rel>{REL_RE}),? (?:a |o )?(?:chamad[oa] |que se chama )?{NAME}"),
    ("de", rf"\b(?:ich habe|wir haben) (?:eine?n? ){_MOD}(?P<rel>{REL_RE}),? (?:namens |die |der )?(?:heißt )?{NAME}"),
    ("fr", rf"{NAME},? (?:est )?(?:mon|ma|notre) {_MOD}(?P<rel>{REL_RE})\b(?!,?\s+(?-i:[A-ZÀ-ÖØ-Þ])){_FOR_ALL}"),
    ("es", rf"{NAME},? (?:es )?(?:mi|nuestro|nuestra) {_MOD}(?P<rel>{REL_RE})\b(?!,?\s+(?-i:[A-ZÀ-ÖØ-Þ])){_FOR_ALL}"),
    ("de", rf"{NAME},? (?:ist )?(?:mein|meine|unser|unsere) {_MOD}(?P<rel>{REL_RE})\b(?!,?\s+(?-i:[A-ZÀ-ÖØ-Þ])){_FOR_ALL}"),
    ("pt", rf"{NAME},? (?:é )?(?:o |a )?(?:meu|minha|nosso|nossa) {_MOD}(?P<rel>{REL_RE})\b(?!,?\s+(?-i:[A-ZÀ-ÖØ-Þ])){_FOR_ALL}"),
)  # fmt: skip
RELATION_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (lang, re.compile(p, _I)) for lang, p in _REL_SPEC
)


__all__ = ["RELATION_RULES", "RULES", "Rule"]
