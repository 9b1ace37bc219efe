"""Standing instructions said without "always" or "never": how the assistant is to answer or address the user.

Each rule reads the clause from its start (a "please" or "and" before it skipped), so what someone else asked (also
reported after it: "keep answers short, my boss says"), a hypothetical ("if you answered briefly, …") or a statement
about a third person ("she answers briefly") is never one:

- a verb of answering or speaking addressed to the assistant, with a manner ("Contésteme corto", "antworte kurz",
  "answer briefly", "réponds-moi court", "responde curto");
- "keep" the answers with a manner, or "be brief" ("keep answers short", "garde tes réponses courtes", "mantén las
  respuestas cortas", "halte die Antworten kurz", "mantém as respostas curtas", "sé breve", "sois bref", "fass dich
  kurz", "sê breve");
- "use" with a manner and a kind of wording ("Please use short, plain sentences", "usa frases cortas");
- "stop" with a verb of suggesting ("Please stop suggesting protein shakes", "arrête de me proposer …", "deja de
  recomendarme …", "hör auf, … vorzuschlagen", "para de sugerir …");
- a ban on a style element with no verb ("no bullet points", "nada de emojis", "pas d'emojis", "keine Emojis",
  "sem emojis");
- a verbless rule "with me" ("Plain Scots-English with me, no corporate waffle", "please no bullet points with me");
- "always …, please" with no verb ("Always British spelling, please");
- the formal "you" asked for ("Trátame de usted", "vouvoyez-moi", "siezen Sie mich", "trate-me por você"); "Et
  vouvoyez-moi pas, on se tutoie" asks for the opposite and is left to the register rules.

The value is the clause in the user's words, from the rule's first word on (a trailing "please" dropped), so every
part of the instruction said in one breath ("Bitte duz mich und antworte kurz") stays together.
"""

from __future__ import annotations

import re

_LEAD = re.compile(
    r"^(?:(?:please|pls|and|also|so|oh|ok|okay|but|et|aussi|y|también|pero|und|auch|aber|e|também|mas|bitte|"
    r"por favor|s'il te plaît|s'il vous plaît|au fait|by the way|btw)\b[\s,]*)+",
    re.IGNORECASE,
)
_MANNER_WORD = (
    r"(?:short|shortly|briefly|brief|concisely|simply|plainly|in short sentences|in plain (?:english|words)|"
    r"court|courtement|brièvement|simplement|corto|cortito|breve|brevemente|sencillo|kurz|knapp|einfach|kurz und "
    r"knapp|curto|brevemente|simples)"
)
_ANSWER_VERB = (
    r"(?:answer|reply|respond|talk|speak|write back|réponds|répondez|parle|parlez|contesta|conteste|contéstame|"
    r"contésteme|responde|responda|respóndeme|respóndame|háblame|hábleme|antworte|antwortet|antworten sie|sprich|"
    r"fala|fale|responde-me|responda-me)"
)
_ANSWER_MANNER = re.compile(
    rf"^{_ANSWER_VERB}(?:-(?:moi|me|nous))?(?: (?:me|to me|mir|moi))?(?: (?:always|toujours|siempre|immer|sempre))?"
    rf" {_MANNER_WORD}\b",
    re.IGNORECASE,
)
_KEEP_SHORT = re.compile(
    r"^(?:(?:keep|garde|gardez|mantén|mantenga|halte|halten sie|mantém|mantenha)\s+(?:(?:the|your|tes|vos|les|las|"
    r"tus|sus|die|deine|ihre|as|tuas|suas)\s+)?(?:answers|replies|responses|messages|réponses|respuestas|antworten|"
    r"respostas)\s+(?:short|brief|concise|simple|plain|courtes|brèves|simples|cortas|breves|sencillas|kurz|knapp|"
    r"einfach|curtas)|(?:be brief|be concise|sois brefs?|soyez brefs?|sé breve|sea breve|fass dich kurz|fassen sie "
    r"sich kurz|sê breve|seja breve))\b",
    re.IGNORECASE,
)
_USE_WORDING = re.compile(
    r"^(?:use|utilise|utilisez|usa|use|utiliza|utilice|benutze|verwende|nutze|usa|utilize)\s+"
    r"(?:(?:short|plain|simple|clear|formal|informal|casual|courtes?|simples?|claires?|cortas?|sencillas?|claras?|"
    r"kurze|einfache|klare|curtas?)[,\s]+(?:and\s+|et\s+|y\s+|und\s+|e\s+)?){1,3}"
    r"(?:sentences|words|language|english|phrases|frases|palabras|lenguaje|sätze|wörter|sprache|palavras|linguagem)\b",
    re.IGNORECASE,
)
_STOP_SUGGESTING = re.compile(
    r"^(?:stop (?:suggesting|recommending|proposing|mentioning|bringing up|pushing|offering)|"
    r"arr[êe]te[zs]? de (?:me )?(?:proposer|suggérer|recommander|conseiller|parler de)|"
    r"(?:deja|deje|para|pare) de (?:sugerir|recomendar|proponer|mencionar|sugerir-me|recomendar-me)(?:me)?|"
    r"hör(?:e|en sie)? auf,? (?:mir )?[^.!?]{0,40}?(?:vorzuschlagen|zu empfehlen|anzubieten))",
    re.IGNORECASE,
)
_STYLE_ITEM = (
    r"(?:emojis?|emoticons?|smileys?|bullet ?points?|bullets|lists?|tables?|headers?|headings?|markdown|jargon|"
    r"exclamation marks?|waffle|small talk|listes?|puces|tableaux|jerga|listas|viñetas|tablas|aufzählungen|"
    r"aufzählungszeichen|listen|tabellen|fachjargon|tópicos|listas|tabelas|jargão)"
)
_STYLE_BAN = re.compile(
    rf"^(?:no|nada de|sin|pas de|pas d'|plus de|jamais de|keine?|ohne|sem|nada de|nenhum)\s*(?:[\w-]+\s+){{0,2}}?"
    rf"{_STYLE_ITEM}\b",
    re.IGNORECASE,
)
_WITH_ME = re.compile(r"\b(?:with me|avec moi|conmigo|mit mir|comigo)\b", re.IGNORECASE)
#: A subject or a finite verb makes a "with me" clause a statement ("she was rude with me"), not a rule.
_SUBJECT = re.compile(
    r"\b(?:I|I'm|you|you're|we|he|she|they|it|is|are|was|were|will|je|tu|il|elle|on|nous|vous|est|yo|tú|él|ella|"
    r"es|está|ich|du|er|sie|wir|ist|eu|você|ele|ela|é|está|come|go|have|lunch|dinner)\b",
    re.IGNORECASE,
)
_STYLE_WORD = re.compile(
    rf"\b(?:plain|simple|short|brief|formal|informal|casual|no|{_STYLE_ITEM}|english|simples?|courts?|court|"
    r"formel|corto|formal|kurz|einfach|förmlich|curto)\b",
    re.IGNORECASE,
)
_ALWAYS_PLEASE = re.compile(
    r"^(?:always|toujours|siempre|immer|sempre)\s+(?P<what>[^,.;!?]{3,40}?),?\s*"
    r"(?:please|s'il te plaît|s'il vous plaît|por favor|bitte)\s*[.!]*$",
    re.IGNORECASE,
)
_FORMAL_YOU = re.compile(
    r"(?:^(?:trátame|tráteme|háblame|hábleme) de usted\b|^(?:vouvoie|vouvoyez)-moi\b|^(?:siez(?:e|en sie)?) mich\b|"
    r"^sie können mich siezen\b|^(?:trate|trata)-me por (?:você|o senhor|a senhora)\b)(?![,\s]*(?:pas|nicht|não)\b)",
    re.IGNORECASE,
)
#: A rule reported as someone else's ("…, my boss says", "…, dit ma cheffe", "…, sagt mein Chef").
_SOMEONE_SAYS = re.compile(
    r",\s*(?:(?:my|his|her|their|our|the|mon|ma|son|sa|mi|su|mein|meine|sein|seine|meu|minha|o|a)\s+[\w-]+|"
    r"(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]+)\s+(?:says|said|wants|thinks|reckons|insists|dit|veut|dice|quiere|sagt|meint|will|"
    r"diz|quer)\b|,\s*(?:dit|dice|sagt|diz)\s+(?:mon|ma|mi|mein|meine|o|a)\s+[\w-]+",
    re.IGNORECASE,
)
_TRAILING_PLEASE = re.compile(
    r"[,\s]*(?:please|pls|s'il te plaît|s'il vous plaît|stp|svp|por favor|bitte)\s*[.!]*$", re.IGNORECASE
)


#: What joins a second rule to the first in one breath ("…, por favor, y nada de emojis", "… und antworte kurz").
_JOINED = re.compile(
    r"^(?:[,\s]*(?:please|bitte|por favor|s'il te plaît|s'il vous plaît)\b)?[,\s]*(?:and|und|y|et|e)\s+\S",
    re.IGNORECASE,
)


def joined_rules(clause: str, start: int, end: int) -> str:
    """The rule clause[start:end], with what follows it only where a conjunction joins a second rule to it ("duze
    mich und antworte kurz"); a reason after a comma ("duze mich, das Sie ist mir zu förmlich") is left out."""
    stop = len(clause) if _JOINED.match(clause[end:]) else end
    said = _TRAILING_PLEASE.sub("", clause[start:stop].rstrip(" .!")).strip(" ,")
    return said[:1].lower() + said[1:]


def manner_instruction(clause: str) -> tuple[str, str] | None:
    """(value in the user's words, slot) of a standing instruction the module docstring's rules read, or None."""
    body = _LEAD.sub("", clause.strip()).strip()
    if not body or "?" in body or _SOMEONE_SAYS.search(body):
        return None  # "Keep answers short, my boss says": someone else's rule, reported
    formal = _FORMAL_YOU.match(body)
    if formal is not None:
        return joined_rules(body, 0, formal.end()), "instruction.register"
    if not (
        _ANSWER_MANNER.match(body)
        or _KEEP_SHORT.match(body)
        or _USE_WORDING.match(body)
        or _STOP_SUGGESTING.match(body)
        or _STYLE_BAN.match(body)
        or _ALWAYS_PLEASE.match(body)
        or (_WITH_ME.search(body) and _STYLE_WORD.search(body) and not _SUBJECT.search(body))
    ):
        return None
    value = _TRAILING_PLEASE.sub("", body.rstrip(".! ")).strip(" ,")
    return value[:1].lower() + value[1:], ""


__all__ = ["joined_rules", "manner_instruction"]
