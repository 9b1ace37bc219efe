"""Standing instructions to the assistant, read from one user clause in five languages.

An imperative with always/never/from now on, a prohibition ("don't use emojis", "no uses tecnicismos"), a style
said with "me" or "your" ("keep the tone casual with me"), answers in a language or in units, permission to use the
familiar "you", a reply that is only a language, or a wish about how the assistant acts ("I'd rather you didn't use
emojis", "prefiero que me respondas en castellano"). Encouragement said to a friend and one-off requests are not.
"""

from __future__ import annotations

import re

from memoryd.write.grounding.lexicon import (
    IMPERATIVES,
    INSTRUCTION_MARKER,
    LANGUAGE_NAMES,
    LEAD_FILLER,
    STYLE_NOUN,
)
from memoryd.write.grounding.manners import joined_rules, manner_instruction
from memoryd.write.grounding.text import LANGUAGES, content_tokens, fold

_LEAD_MARKER = re.compile(
    r"^(?:from now on|going forward|in (?:the )?future|by default|désormais|dorénavant|à partir de maintenant|"
    r"à l'avenir|a partir de ahora|de ahora en adelante|en adelante|ab jetzt|von nun an|ab sofort|künftig|"
    r"a partir de agora|daqui (?:para|pra) frente|de agora em diante)[\s,:]*",
    re.IGNORECASE,
)
#: A following clause with its own subject ("…, I read these on my phone") is a reason, not the instruction.
_OWN_SUBJECT_CLAUSE = re.compile(
    r",\s*(?:because |since |as |car |porque |weil |pois )?(?:I|I'm|we|je|j'|yo|ich|wir|eu|nós)\b",
    re.IGNORECASE,
)
_TRAILING_PLEASE = re.compile(
    r"[,\s]*(?:please|pls|s'il te plaît|s'il vous plaît|stp|svp|por favor|bitte)\s*$", re.IGNORECASE
)
_WANT_YOU_TO = re.compile(
    r"^(?:I want you to|I'd like you to|I would like you to|je veux que tu|je voudrais que tu|quiero que|"
    r"ich möchte, dass du|ich will, dass du|quero que você|quero que)\s+",
    re.IGNORECASE,
)


#: Words that open an instruction only when an imperative follows them ("never use", "ne me tutoie pas").
_MARKER_FIRST = frozenset(
    fold(w)
    for w in "never always don't do not ne n' toujours jamais no siempre nunca nie niemals immer não sempre".split()  # noqa: SIM905
)
_CLITICS = frozenset(
    fold(w)
    for w in "ever me te le la les lui nous vous m' t' se mir mich dir dich lo los las nos".split()  # noqa: SIM905
)
#: "About how you answer me:" — what follows the colon is a standing instruction even without "always".
_ANSWER_STYLE = re.compile(
    r"\b(?:how|when) you (?:answer|reply|respond|write|talk)(?: to)?(?: me)?\s*[:,-]\s*|"
    r"\b(?:ta|votre) façon de (?:me )?répondre\s*:\s*|\bcuando me respondas\s*[:,]\s*|"
    r"\bwenn du (?:mir )?antwortest\s*[:,]\s*|\bquando (?:me )?responderes\s*[:,]\s*",
    re.IGNORECASE,
)
#: A request to give amounts in a unit or a currency is how the user wants every answer, not a one-off.
_IN_UNITS = re.compile(
    r"\b(?:in|en|em|in)\s+(?:(?:canadian|us|american|australian|new zealand|hong kong|singapore) dollars|dollars|"
    r"euros?|pounds(?: sterling)?|sterling|yen|francs|pesos|reais|rupees|grams|grammes|gramos|gramas|gramm|"
    r"kilos|kilograms|kilogrammes|kg|metric|imperial|celsius|fahrenheit|miles|kilometres|kilometers|km|"
    r"litres|liters|ml|cad|usd|eur|gbp|aud|chf|jpy|dollars canadiens|dólares(?: canadienses| canadenses)?|"
    r"kanadischen dollar|metrisch)\b",
    re.IGNORECASE,
)


#: "Please don't use emojis": a prohibition said to the assistant is standing even without "never".
_DONT_OPENER = re.compile(
    r"^(?:please[,\s]+)?(?:don't|do not|ne |n'|no (?=\w+s\b)|não (?=\w+s\b)|nunca (?=\w+s\b))", re.IGNORECASE
)


#: A "don't" whose object is what was just said ("don't answer that", "ne réponds pas à ça", "no contestes eso",
#: "antworte nicht darauf", "não respondas a isso"): about the moment, not a rule for every answer.
_ABOUT_THIS_ONE = re.compile(
    r"^(?:please[,\s]+)?(?:(?:don't|do not) \w+(?: to)? (?:that|this|it)|ne \w+ pas (?:à )?(?:ça|cela)|"
    r"no \w+ (?:a )?(?:eso|esto)|\w+ nicht (?:darauf|das)|não \w+ (?:a )?isso)(?=\s*(?:[,.;!?]|$))",
    re.IGNORECASE,
)
#: A request for help with the session's matter ("help me keep track of …", "aide-moi à …", "ayúdame a …", "hilf mir
#: …", "ajuda-me a …"): a task for the assistant, not a rule for how it answers.
_HELP_ME = re.compile(
    r"^(?:help me|aide-moi|aidez-moi|ayúdame|ayudarme|hilf mir|helfen sie mir|ajuda-me|ajude-me)\b", re.I
)
#: A marker word alone before a comma ("Não, nunca, não é a nossa filosofia", "Never, it's not us"): a reply to a
#: question, not an instruction with a verb.
_BARE_MARKER = re.compile(
    r"^(?:(?:no|nope|non|não|nein)\s*[,;:]?\s*(?:never|jamais|nunca|nie|niemals)\s*[,;:.!]|"
    # "nunca, não é a nossa filosofia", "never, it's not us": the marker, then a reason, no verb for the assistant
    r"(?:never|jamais|nunca|nie|niemals)\s*[,;:]\s*(?:it's|it is|that's|not|ce n'est|c'est|pas|no es|eso no|"
    r"das ist|nicht|não|isso não)\b)",
    re.IGNORECASE,
)
#: Words of encouragement said to the other speaker: an imperative, but no standing instruction to an assistant.
_ENCOURAGEMENT = re.compile(
    r"\b(?:yourself|give up|lose sight|be (?:scared|afraid)|stop believing|your (?:dreams?|goals?|passion|heart)|"
    r"keep (?:pushing|going|pursuing|believing|it up)|abandonne pas|te rindas|gib nicht auf|desistas)\b",
    re.IGNORECASE,
)


_TO_ME = re.compile(
    r"\b(?:with me|to me|for me|me|your|avec moi|pour moi|moi|tes|vos|conmigo|para mí|tus|sus|mit mir|für mich|mir|"
    r"deine|deinen|ihre|comigo|para mim|tuas|teus|suas)\b|-moi\b|-me\b|^(?:(?:please|bitte|por favor)[\s,]+)?"
    r"(?:avoid|skip|évite|évitez|evita|evite|vermeide|vermeiden)\b",
    re.IGNORECASE,
)
#: "Answer in English even if I write in German", "Please use metric units": how every answer is given.
_ANSWER_IN = re.compile(
    r"^(?:(?:please|bitte|por favor|s'il te plaît|just|always)[\s,]+)?(?:answer|reply|respond|write|speak|talk|"
    r"réponds|répondez|écris|parle|responde|contesta|escribe|habla|antworte|schreib|schreibe|sprich|fala|escreve|"
    r"responda|use|utilise|usa|benutze|verwende)(?:-moi|-me)?\b.*\b(?:in|en|em|auf)\s+(?:{langs})\b|"
    r"\b(?:use|utilise|usa|benutze|verwende)\s+(?:the\s+|le\s+système\s+|el\s+sistema\s+|das\s+|o\s+sistema\s+)?"
    r"(?:metric|imperial|métrique|impérial|métrico|imperial|metrische|metrisch|métrico)\b".replace(
        "{langs}", LANGUAGE_NAMES.pattern[5:-3]
    ),
    re.IGNORECASE,
)
#: A wish about how the assistant behaves: "I'd rather you didn't use emojis", "Prefiero que me respondas en
#: castellano", "Je préfère qu'on me vouvoie", "Ich möchte, dass du mich duzt".
_WISH_TO_YOU = re.compile(
    r"^(?:I'd rather you|I would rather you|I'd prefer (?:it )?if you|I would prefer (?:it )?if you|I prefer (?:that )?you|"
    r"I'd like you to|prefiero que (?:me )?|preferiría que (?:me )?|je préfère qu(?:e|')|je préférerais qu(?:e|')|"
    r"j'aimerais qu(?:e|')|ich möchte,? dass du|ich hätte gern,? dass du|mir wäre lieber,? wenn du|prefiro que|"
    r"preferia que)\b",
    re.IGNORECASE,
)


#: A label of up to three words before a colon ("Ground rule:", "One thing:", "Regla de oro:"): what follows is the
#: instruction, read on its own.
_RULE_LABEL = re.compile(r"^[^\W\d][\w'’-]*(?: [\w'’-]+){0,3}\s?:\s+(?=\S)")


#: A label that names a rule ("One rule for you:", "Ground rule:", "Règle :", "Regla de oro:").
_RULE_WORD = re.compile(r"\b(?:rules?|règles?|reglas?|regeln?|regras?)\b", re.IGNORECASE)
#: "From now on" and its kin anywhere in the clause (not "always" / "never", which statements say too).
_FROM_NOW_ON = re.compile(
    r"\b(?:from now on|going forward|désormais|dorénavant|à partir de maintenant|a partir de ahora|"
    r"de ahora en adelante|ab jetzt|von nun an|ab sofort|künftig|a partir de agora|de agora em diante)\b",
    re.IGNORECASE,
)
#: A clause with its own first-person subject ("I'm vegan from now on"): a statement, not a rule for the assistant.
_SUBJECT_FIRST = re.compile(
    r"^(?:I|I'm|I've|I'll|we|we're|we'll|my|our|je|j'|on|nous|mon|ma|yo|mi|ich|wir|mein|meine|eu|nós|meu|minha)\b",
    re.IGNORECASE,
)
#: A finite verb of being or having: the clause states something ("the meetings are on Tuesdays").
_FINITE = re.compile(
    r"\b(?:is|are|was|were|will|has|have|had|est|sont|sera|seront|a|ont|es|son|será|serán|está|están|ha|han|"
    r"ist|sind|wird|werden|hat|haben|é|são|será|serão|está|estão|tem|têm)\b",
    re.IGNORECASE,
)
#: "No grapefruit ever", "nothing with nuts, ever", "jamais de sucre": a standing prohibition without a verb.
_NO_X_EVER = re.compile(
    r"^(?:(?:but|and|so|mais|et|pero|y|aber|und|mas|e)\s+)?(?:no|nothing with|pas de|jamais de|nada de|nunca|"
    r"kein(?:e|en)?|nie|nenhum|nenhuma)\s+[^,.;!?]{2,40}?,?\s+(?:ever|jamais|nunca|jamás|nie|niemals)\b",
    re.IGNORECASE,
)


#: An infinitive opening what a "can you …?" question asks for ("responderme", "répondre", "responder-me").
_INFINITIVE_OPENER = re.compile(r"^\w+(?:ar|er|ir|re)(?:me|te|nos|-me|-moi)?$")


def _instruction(sentence: str, lang: str) -> tuple[str, str] | None:
    """(value, slot) of a standing instruction to the assistant: an imperative with always/never/from now on, an
    imperative after "about how you answer me:", or a request for units or a currency ("prices in euros")."""
    meta = _ANSWER_STYLE.search(sentence)
    if meta:
        sentence = sentence[
            meta.end() :
        ]  # "One thing about how you answer me: keep it short" → "keep it short"
    units = _IN_UNITS.search(sentence)
    styled = bool(STYLE_NOUN.search(sentence) and _TO_ME.search(sentence)) or bool(
        _ANSWER_IN.search(sentence)
    )
    if (
        not meta
        and not units
        and not styled
        and not INSTRUCTION_MARKER.search(sentence)
        and not _DONT_OPENER.match(sentence)
        and not _NO_X_EVER.match(LEAD_FILLER.sub("", sentence.strip()))
        and not re.search(r"\b(?:don't|do not) ever\b", sentence, re.I)
    ):
        return None
    body = LEAD_FILLER.sub("", sentence.strip()).strip()
    body = _LEAD_MARKER.sub("", body)
    body = LEAD_FILLER.sub("", body).strip()
    label = _RULE_LABEL.match(body)
    if label is not None:
        body = body[label.end() :]  # "Ground rule: never write jokes for me" → "never write jokes for me"
    wanted = _WANT_YOU_TO.match(body)
    # Said as a rule without a verb: "One rule for you: quantities in metric", "code questions in GDScript from
    # now on", "no grapefruit ever": what the rule names is how every answer goes.
    verbless = (
        (label is not None and _RULE_WORD.search(label.group(0)) is not None)
        or (
            _FROM_NOW_ON.search(sentence) is not None
            and not _SUBJECT_FIRST.match(body)
            and not _FINITE.search(body)
        )
        or _NO_X_EVER.match(body) is not None
    )
    if verbless:
        body = re.sub(r"^(?:but|and|so|mais|et|pero|y|aber|und|mas|e)\s+", "", body, flags=re.IGNORECASE)
    if wanted:
        body = body[wanted.end() :]
    elif not verbless:
        verbs = {fold(v) for v in IMPERATIVES.get(lang, frozenset())} | {fold(v) for v in IMPERATIVES["en"]}
        # "Réponds-moi", "Dime", "Gib mir": the verb is the part before a hyphenated pronoun.
        words = [fold(w).strip(",").split("-")[0] for w in body.split()]
        asked_infinitive = bool(
            words
            and lang != "en"
            and body[:1].islower()
            and INSTRUCTION_MARKER.search(body)
            and (
                _INFINITIVE_OPENER.match(words[0])
                or (lang == "de" and words[-1].rstrip("?.!").endswith("en"))
            )
        )  # "¿Puedes responderme siempre en español?" → "responderme siempre en español"
        if not words or (words[0] not in verbs and not asked_infinitive):
            return None
        if words[0] in _MARKER_FIRST:
            # "Never use X" is an instruction, "Nunca tive gatos" (never had cats) is a statement: the word after
            # the marker (clitic pronouns skipped) must be an imperative too.
            rest = [w for w in words[1:] if w not in _CLITICS]
            if not rest or rest[0] not in verbs:
                return None
    if _ABOUT_THIS_ONE.match(body) and not INSTRUCTION_MARKER.search(sentence):
        return None  # "Don't answer that, just thinking out loud": the question just asked, not every answer
    if _ENCOURAGEMENT.search(body):
        return None  # "never give up on your dreams", "keep pushing yourself": advice to a friend, not to the assistant
    if _HELP_ME.match(body) or _BARE_MARKER.match(body):
        return None  # "I'd like you to help me keep track of …": what the session is for; "Não, nunca, …": an answer
    value = _TRAILING_PLEASE.sub("", body.rstrip(".!").strip())
    value = _OWN_SUBJECT_CLAUSE.split(value, maxsplit=1)[0].strip()
    if len([t for t in content_tokens(value) if not INSTRUCTION_MARKER.fullmatch(t)]) < 2:
        return None  # "never mind", "always be honest": too little to act on
    value = value[:1].lower() + value[1:]
    slot = "instruction.language" if LANGUAGE_NAMES.search(value) else ""
    return value, slot


#: Permission to use the familiar "you" ("tu peux me tutoyer", "du kannst mich duzen"): a standing instruction.
_REGISTER = re.compile(
    r"\b(?:(?:tu peux|vous pouvez) me (?:tutoyer|vouvoyer)|on peut se tutoyer|tutoie-moi|tutoyez-moi|vouvoie-moi|"
    r"(?:puedes|puede) tutearme|tutéame|trátame(?: siempre)? de tú|háblame(?: siempre)? de tú|podemos tutearnos|"
    r"(?:du kannst|sie können) mich duzen|"
    r"duze mich|sag du zu mir|wir können uns duzen|"
    r"duz mich|(?:podes|pode) tratar-me por tu|trata-me por tu)\b",
    re.IGNORECASE,
)


#: A reply that is only a language and "please" ("English please", "Sim, português de Portugal, por favor"): the
#: language the user wants to be answered in.
_LANGUAGE_REPLY = re.compile(
    rf"^(?:(?:yes|yeah|sim|oui|sí|si|ja|ok|okay)[\s,!.]+)?(?P<v>(?:in |en |em |auf )?(?:{LANGUAGE_NAMES.pattern[5:-3]})"
    r"(?: (?:de|do|da|from|of) [\w-]+| only| seulement| solamente| nur| apenas)?)[\s,]*(?:please|pls|por favor|s'il te plaît|s'il vous plaît|"
    r"bitte|por favor)\s*[.!]*$",
    re.IGNORECASE,
)


def _language_reply(sentence: str) -> tuple[str, str] | None:
    found = _LANGUAGE_REPLY.match(sentence.strip())
    if found is None:
        return None
    # The user's own words from the language on ("English please"): every word of the fact is in the sentence.
    said = sentence.strip()[found.start("v") :].rstrip(" .!")
    return said, "instruction.language"


def _wish(sentence: str) -> tuple[str, str] | None:
    """(value, slot) of a wish about how the assistant acts, in the user's words ("I'd rather you didn't use
    emojis")."""
    value = _TRAILING_PLEASE.sub("", LEAD_FILLER.sub("", sentence.strip()).rstrip(".!").strip())
    if len(content_tokens(value)) < 2:
        return None
    wished = _WISH_TO_YOU.match(value)
    if wished is not None and _HELP_ME.match(value[wished.end() :].lstrip(" ,")):
        return (
            None  # "I'd like you to help me keep track of the training": what the session is for, not a rule
        )
    if not re.match(r"I\b|I'", value):
        value = value[:1].lower() + value[1:]
    return value, "instruction.language" if LANGUAGE_NAMES.search(value) else ""


def _register(sentence: str) -> tuple[str, str] | None:
    """The register asked for, and the rest of the clause said with it ("duz mich und antworte kurz")."""
    found = _REGISTER.search(sentence)
    if found is None:
        return None
    return joined_rules(sentence, found.start(), found.end()), "instruction.register"


def _manner(clause: str) -> tuple[str, str] | None:
    """A rule of manners.py; its slot is the language one where it names a language."""
    found = manner_instruction(clause)
    if found is None:
        return None
    value = _OWN_SUBJECT_CLAUSE.split(found[0], maxsplit=1)[0].strip()  # "…, I'm not into them": the reason
    slot = found[1]
    return value, slot or ("instruction.language" if LANGUAGE_NAMES.search(value) else "")


def wishes_to_assistant(clause: str) -> bool:
    """Whether the clause is a wish about how the assistant acts ("I'd rather you …"): no taste of the user's."""
    return _WISH_TO_YOU.match(LEAD_FILLER.sub("", clause.strip())) is not None


def standing_instruction(
    clause: str, lang: str, languages: frozenset[str] | None
) -> tuple[str, str, str] | None:
    """(value in the user's words, slot, language it was said in) of a standing instruction, or None."""
    instruction = (
        _instruction(clause, lang)
        or _register(clause)
        or _manner(clause)
        or _language_reply(clause)
        or (_wish(clause) if wishes_to_assistant(clause) else None)
    )
    if instruction is None:
        joined = _joined_instructions(clause, lang, languages)
        if joined is not None:
            return joined
    said_in = lang
    if instruction is None and languages is None:
        # No language evidence ("Responde siempre en español"): the imperative itself tells the language.
        for other in LANGUAGES:
            instruction = _instruction(clause, other) if other != lang else None
            if instruction is not None:
                said_in = other
                break
    if instruction is None:
        return None
    return instruction[0], instruction[1], said_in


#: Where one instruction ends and the next starts in one breath: a comma or a semicolon.
_RULE_BREAK = re.compile(r"\s*[,;]\s*")


def _joined_instructions(
    clause: str, lang: str, languages: frozenset[str] | None
) -> tuple[str, str, str] | None:
    """Instructions joined by a comma or a semicolon ("Please keep answers short, no bullet points", "Sé breve; nada
    de emojis"): the clause is one instruction when every part of it is an instruction on its own; a part that is
    not ("keep answers short, my boss says", "she answers briefly, no bullet points") leaves the whole unread. The
    value is the clause in the user's words; the slot is the first part's."""
    body = _TRAILING_PLEASE.sub("", LEAD_FILLER.sub("", clause.strip()).rstrip(".!").strip())
    parts = [p for p in _RULE_BREAK.split(body) if p.strip()]
    if len(parts) < 2 or "?" in body:
        return None
    read = [r for r in (standing_instruction(part, lang, languages) for part in parts) if r is not None]
    if len(read) != len(parts):
        return None
    return body[:1].lower() + body[1:], read[0][1], read[0][2]


__all__ = ["standing_instruction", "wishes_to_assistant"]
