"""Standing requests read from clause structure: an imperative (or a rule) to the assistant with a scope over time.

instructions.py needs a marker ("always", "never", "from now on"), units or a style noun. Users set standing rules
without them: "keep dynos out of anything you suggest until April", "give me the Messier number first", "skip
anything below magnitude 10", "Any meal ideas you give me must be peanut-free", "you can go down to magnitude 12
now", "Calcule les quantités pour 42 couverts par soir", "Jamais de tartiflette l'été", "Bitte schreib mir alles in
Stichpunkten", "no spoilers in anything you write". The structure read here:

- an imperative opening the clause (after "yes", "please", "also") whose verb shapes what the assistant produces,
  with a **scope** that makes it standing: a quantifier over the assistant's output ("anything", "any", "every",
  "all", "alles", "tout", "todo"), a span of time ("until April", "now", "from then", "for now"), a bound ("max",
  "at most", "only"), a contrast ("bullet points, not prose"), or a relative clause about the assistant's output
  ("… you suggest", "… you write");
- a prohibition as a noun phrase ("no spoilers in …", "nothing with maths", "jamais de …", "nada de …", "kein …")
  with the same scope, or a rule about the assistant's output with a modal ("anything you give me must …");
- a permission that changes a limit ("you can go down to …", "you can make … up to …").

A one-off request ("give me a weekly plan", "book me a hotel") has none of these scopes and is not read.
"""

from __future__ import annotations

import re

from memoryd.write.grounding.lexicon import LEAD_FILLER
from memoryd.write.grounding.text import content_tokens

_I = re.IGNORECASE

_OPENER = re.compile(
    r"^(?:(?:yes|yeah|yep|sure|ok|okay|right|oui|sí|si|ja|sim|non|no|nope|nein|não)\s*[,!.]+\s*)?"
    r"(?:(?:please do|do(?=\s*,)|please|pls|also|and|oh and|oh|but|just|bitte|und|auch|s'il te plaît|stp|et|aussi|por favor|y|también|"
    r"e|também)\b[\s,]*)*"
    # A label naming the rule ("Rule one:", "Règle :") opens it.
    r"(?:(?:rule|règle|regla|regel|regra)(?: \w+)?\s*:\s*)?",
    _I,
)
#: "When you list targets, give me …": a condition on the assistant's doing is a standing scope of its own.
_WHEN_YOU = re.compile(
    r"^(?:when(?:ever)? you|quand tu|quand vous|cuando (?:me )?\w+s|wenn du|quando (?:você|tu)|"
    # the user's asking is a condition on the assistant's doing too: "when I ask you for an email, …"
    r"when(?:ever)? I ask(?: you)?|quand je (?:te|vous) demande|cuando te pida|wenn ich dich (?:frage|bitte)|"
    r"quando (?:eu )?te pedir)\b[^,]{2,60},\s*",
    _I,
)
#: A second request joined with "and" ("…, und du kannst mich duzen") is read on its own.
_SECOND_REQUEST = re.compile(r",\s*(?:and|und|et|y|e)\s+(?:du|you|tu|vous|usted|você)\b.*$", _I)
#: Verbs that shape what the assistant produces, in their imperative forms.
_SHAPING_VERBS = re.compile(
    r"^(?:keep|give|skip|leave|list|put|write|add|make|send|include|exclude|use|stick|check|correct|show|quote|"
    r"plan|calculate|start|sort|order|mark|flag|round|price|count|"
    r"garde|gardez|donne|donnez|mets|mettez|écris|écrivez|ajoute|ajoutez|calcule|calculez|utilise|utilisez|évite|"
    r"évitez|corrige|corrigez|fais|faites|compte|comptez|prévois|prévoyez|"
    r"mantén|mantenga|dame|deme|pon|ponga|escribe|escriba|añade|añada|calcula|calcule|usa|use|evita|evite|corrige|"
    r"haz|cuenta|incluye|incluya|"
    r"gib|geben|schreib|schreibe|schreiben|setz|setze|rechne|rechnen|nutze|benutze|verwende|vermeide|korrigiere|"
    r"halte|plane|"
    r"mantém|mantenha|dá|dê|põe|ponha|escreve|escreva|acrescenta|calcula|calcule|usa|use|evita|evite|corrige|"
    r"faz|faça|conta|inclui|inclua)\b",
    _I,
)
#: What makes a request standing rather than one-off.
_SCOPE = re.compile(
    r"\b(?:any|anything|everything|every|all|each|whenever|until|till|from then|from now|for now|now|max|maximum|"
    r"at most|no more than|only|first|anymore|any more|"
    r"tout|tous|toutes|chaque|jusqu'à|maintenant|désormais|seulement|max|"
    r"todo|todos|todas|cada|hasta|ahora|solo|sólo|"
    r"alles|alle|jede|jeden|jedes|bis|jetzt|nur|"
    r"tudo|todos|todas|cada|até|agora|só|apenas)\b|"
    r"\b(?:you|tu|vous|tú|du|você) (?:suggest|write|give|send|propose|plan|make|écris|proposes|donnes|"
    r"escribas|propongas|des|schreibst|vorschlägst|gibst|escreveres|sugerires|deres)\b|"
    r"\w+,\s*(?:not|pas|no|nicht|não)\s+\w+[\s.!]*$|"
    # A condition on the user's own doing that recurs ("correct my Japanese when I try writing it").
    r"\b(?:whenever I|every time I|each time I|chaque fois que|cada vez que|jedes mal,? wenn ich|sempre que)\b|"
    r"\b(?:when I|quand (?:je|j')|cuando|wenn ich|quando (?:eu )?)\s*(?:try|write|speak|ask|send|post|practi[cs]e|"
    r"use|type|écris|parle|essaie|escribo|hablo|intento|schreibe|spreche|versuche|escrevo|falo|tento)\b|"
    r"\b(?:per|par|por|pro) (?:night|soir|evening|noche|abend|noite|session|séance|sesión|sitzung|sessão|week|"
    r"semaine|semana|woche)\b",
    _I,
)
#: One-off wording: what is asked is for today or for one thing ("give me a plan for tomorrow").
_ONE_OFF = re.compile(
    r"\b(?:today|tonight|tomorrow|this (?:time|one|morning|afternoon|evening)|right now|aujourd'hui|ce soir|demain|"
    r"hoy|esta noche|mañana|heute|morgen|hoje|amanhã|esta vez|cette fois|diesmal|dieses mal)\b",
    _I,
)
#: "No spoilers in anything you write", "Nothing with maths", "Jamais de tartiflette l'été", "Nada de azúcar",
#: "Kein Fleisch", "Nada de fritos": a prohibition said as a noun phrase.
_PROHIBITION = re.compile(
    r"^(?:(?-i:No|no)(?= \w+s\b)|nothing|never any|jamais de|jamais d'|pas de|rien de|nada de|nunca|ningún|ninguna|kein|keine|keinen|"
    r"nichts mit|nada com|nenhum|nenhuma)\s+(?=\w)",
    _I,
)
#: Where or when a prohibition holds ("nothing with maths", "jamais de tartiflette l'été").
_PROHIBITED_WHERE = re.compile(
    r"\b(?:with|in|on|for|during|avec|dans|pour|en|l'été|l'hiver|con|para|durante|mit|für|bei|im|com|em)\b",
    _I,
)
#: "Any meal ideas you give me must be peanut-free": a rule about the assistant's output with a modal.
_OUTPUT_RULE = re.compile(
    r"^(?:any|all|every|everything|anything|tout ce que|toutes? les|todo lo que|todas? las?|alles,? was|alle|"
    r"tudo o que|todas? as?)\b[^.;!?]{0,60}\b(?:you|tu|tú|du|você)\b[^.;!?]{0,40}\b(?:must|should|has to|have to|"
    r"needs? to|doit|doivent|debe|deben|tiene que|muss|müssen|soll|deve|devem|tem de|tem que)\b",
    _I,
)
#: "You can go down to magnitude 12 now", "You can make the practice plans up to 45 minutes now".
_PERMISSION = re.compile(
    r"^(?:you can|you may|tu peux|vous pouvez|puedes|puede|du kannst|sie können|podes|pode|você pode)\s+"
    r"(?:go|make|use|plan|give|put|raise|increase|drop|lower|set|include|passer|monter|descendre|mettre|prévoir|"
    r"subir|bajar|poner|usar|hacer|gehen|machen|planen|setzen|subir|descer|pôr|usar|fazer)\b"
    r"[^.;!?]*\b(?:\d+|up to|down to|jusqu'à|hasta|bis|até)\b",
    _I,
)
_TRAILING = re.compile(
    r"[\s,]*(?:please|pls|s'il te plaît|s'il vous plaît|stp|por favor|bitte)?\s*[.!]*$", _I
)
#: A reason with its own subject after the rule ("…, my scope struggles"): not part of it.
_REASON = re.compile(
    r",\s*(?:because |since |as |car |parce que |porque |weil |denn |pois )?(?:I|I'm|I've|my|we|we're|"
    r"je|j'|mon|ma|nous|yo|mi|ich|mein|meine|wir|eu|meu|minha|two|deux|dos|zwei|dois|it's|c'est|es|ist|é)\b",
    _I,
)
_MIN_CONTENT = 2
#: A condition that is a moment, not a kind of task ("when you get a chance", "quand tu as un moment"): one-off.
_SOME_TIME = re.compile(
    r"\b(?:chance|minute|moment|sec|second|time|can|free|un moment|le temps|tengas tiempo|puedas|un momento|zeit|"
    r"kannst|um momento|puderes|tiver tempo)\b",
    _I,
)
#: "From now on" opening the request ("à partir de maintenant, quand je te demande un mail, …").
_FROM_NOW = re.compile(
    r"^(?:from now on|going forward|à partir de maintenant|désormais|dorénavant|de ahora en adelante|"
    r"a partir de ahora|ab jetzt|von nun an|ab sofort|a partir de agora|de agora em diante)[\s,]*",
    _I,
)
#: A clause with its own subject ("I usually sign them myself", "it's for the council"): a statement, no request.
_OWN_SUBJECT = re.compile(
    r"^(?:I|I'm|I've|I'll|we|we're|it|it's|that|this|there|they|he|she|je|j'|c'est|il|elle|on|nous|yo|es|eso|"
    r"ich|wir|es|das|eu|nós|isso|é)\b",
    _I,
)


def when_you(clause: str) -> tuple[str, str] | None:
    """("When you give me vocab", "always include the kana") of a clause opened by a condition on the assistant's
    doing, or None: the rest is read as a rule of its own, and keeps its condition."""
    found = _WHEN_YOU.match(clause.strip())
    if found is None:
        return None
    return found.group(0).strip().rstrip(","), clause.strip()[found.end() :]


def standing_request(clause: str, lang: str = "en") -> str:
    """The standing request a clause states, in the user's words (lower-cased first letter), or ""."""
    body = LEAD_FILLER.sub("", clause.strip())
    body = _OPENER.sub("", body).strip()
    body = _FROM_NOW.sub("", body)
    when = _WHEN_YOU.match(body)
    if when is not None:
        body = body[when.end() :]
    if not body or body.endswith("?") or _ONE_OFF.search(body):
        return ""
    if when is not None and _SOME_TIME.search(when.group(0)):
        return ""  # "When you have a minute, check the invoice": a moment, a one-off task
    prohibition = _PROHIBITION.match(body)
    if prohibition is not None and lang != "en" and prohibition.group(0).split()[0].lower() == "no":
        prohibition = None  # "No vivo en Madrid": Spanish negation, not a prohibition
    standing = bool(
        (_SHAPING_VERBS.match(body) and (when is not None or _SCOPE.search(body)))
        or (
            prohibition is not None
            and (_SCOPE.search(body) or _PROHIBITED_WHERE.search(body, prohibition.end()))
        )
        or _OUTPUT_RULE.match(body)
        or _PERMISSION.match(body)
        # "When you summarise things for me, bullet points please": after a condition on the assistant's doing,
        # what follows says how to do it, with or without a verb, unless it has a subject of its own.
        or (when is not None and not _OWN_SUBJECT.match(body))
    )
    if not standing:
        return ""
    value = _SECOND_REQUEST.sub("", _REASON.split(body, maxsplit=1)[0])
    value = _TRAILING.sub("", value).strip()
    if len(content_tokens(value)) < (1 if when is not None else _MIN_CONTENT):
        return ""
    if when is not None and not _SHAPING_VERBS.match(body):
        # a rule without a verb keeps its condition: "when you summarise things for me, bullet points"
        value = f"{when.group(0).strip().rstrip(',')}, {value}"
    return value[:1].lower() + value[1:]


__all__ = ["standing_request", "when_you"]
