"""The request's open slot (gate-v9): about the world or about the user, and which kind of memory fills it.

gate-v8's false injections on the fitting sets (133 of 1,685 no-memory queries on full profiles, TRAIN and DEV) are
mostly requests that NAME something memory holds but are complete without it (83 entity traps: "Quais são as
principais atrações do Chiado?" for a user who lives there, "do standard poodles shed", "Is kidney disease common in
older cats generally?"), 101 of them with no person word at all; a stored row would not change their answer. Its
section errors are mostly among the distilled sections: 71 pinned questions and 35 transcript questions got the
episodes. Four request frames are read, each a general rule in en/fr/es/de/pt on folded text (gate.fold):

- **ask_generic**: the question is about a kind of thing or about the world, not about the asker: a generic marker
  ("usually", "in general", "normally", "actually", "en général", "en gros", "por lo general", "normalerweise",
  "eigentlich", "em geral"), a kind as subject ("can a greyhound …", "do cats …", "un loro", "los galgos"), or a
  world-fact slot (opening hours, when a thing was built / founded / discovered, a record, a distance between
  places, the weather or sights of a place) — and no first-person word (the unambiguous ones: German "im" and
  English "id" are not "I'm" / "I'd") and no name only this agent's memory holds (gate_own).
- **task_given**: a task whose inputs the request gives (code, a formula, a regex, a query, a quote or verse
  about a general theme, a mnemonic): products with the personal frame let the model undo `ask_for_user` there
  ("Dame una consulta SQL…", "regex pour trouver les montants…").
- **ask_said**: what was SAID, literally (said / told / mentioned / pasted / the link / the exact name, in five
  languages): the transcript holds the words.
- **ask_decided**: a decision or outcome of an earlier session (decided / agreed / settled / ended up / how did it
  go): the episodes hold it.
- **ask_id_slot**: an identity slot of the asker (my name, my job, where I live / work, how old I am): identity.

`id_place` (read from the identity facts, not the request): the identity holds a place ("physiotherapist in
Bergen"); the read path's place rule (gate_evidence) puts the identity first for a place-dependent request.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from memoryd.retrieval import gate_signals as sig
from memoryd.retrieval.answer_kinds import value_kinds

SLOT_FEATURES: tuple[str, ...] = (
    "ask_generic",
    "task_given",
    "for_user_x_task",
    "ask_said",
    "ask_decided",
    "ask_id_slot",
    "id_place",
    "generic_x_known",
    "said_x_t_cov",
    "decided_x_e_cov",
    "id_slot_x_id_has",
)

#: First-person words that are another word in another of the five languages ("im" German "in the", "id").
_AMBIGUOUS_FIRST = frozenset({"im", "id"})
_FIRST = (sig.FIRST_SINGULAR | sig.FIRST_PLURAL) - _AMBIGUOUS_FIRST

_GENERIC = re.compile(
    "|".join(
        (
            # generic markers
            r"\b(?:usually|generally|normally|typically|in general|on average|actually|commonly|in the wild"
            r"|en general|en gros|generalement|normalement|habituellement|d'habitude|en moyenne"
            r"|por lo general|generalmente|normalmente|usualmente|en promedio|de media"
            r"|normalerweise|im allgemeinen|allgemein|generell|ublicherweise|eigentlich|durchschnittlich"
            r"|em geral|geralmente|normalmente|costuma|em media)\b",
            # a kind as subject: an indefinite article right after the question's verb or word
            r"\b(?:can|could|does|do|is|are|will|should|would|how (?:fast|long|big|tall|old|much|many)"
            r" (?:can|does|do|is|are)) (?:a|an)\b"
            r"|\b(?:un|une|uno|una|ein|eine|einen|um|uma) \w+ (?:vit|vive|lebt|peut|puede|kann|pode|mange|come|isst)\b"
            r"|\b(?:cuanto|combien de temps|wie lange|quanto tempo) (?:vive|vit|lebt) (?:un|une|ein|eine|um|uma)\b",
            # world-fact slots: opening hours, built / founded / discovered, records, distances, sights, weather
            r"\b(?:open (?:all year|on|until|till)|opening hours|world record|record holder|(?:was|were) (?:it )?"
            r"(?:built|founded|discovered|established|opened)|population of|distance (?:from|between)"
            r"|how (?:far|long) (?:is it )?from \w+ to|weather (?:in|like in)|main (?:sights|attractions))\b",
            r"\b(?:ouvert (?:jusqu|le|toute)|heures? d'ouverture|record du monde|(?:a ete|fut) (?:construit|fonde"
            r"|decouvert)e?s?|depuis quand (?:il|elle|ca|c'est) existe|combien de (?:km|kilometres|habitants)"
            r"|quelle temperature (?:a|en)|que (?:voir|visiter) (?:a|en|au))\b",
            r"\b(?:a que hora (?:abre|cierra)|horario de|record (?:mundial|del mundo)|(?:fue|se) (?:construy|fund"
            r"|descubri)\w*|que (?:ver|visitar|hacer) en|cuantos habitantes|esta en peligro)\b",
            r"\b(?:wann (?:offnet|schliesst|hat .{1,30} geoffnet)|offnungszeiten|weltrekord|(?:wurde|wann ist) .{1,40}"
            r"(?:gebaut|gegrundet|entdeckt|eroffnet)|seit wann gibt es|wie lange (?:fahrt|braucht) man|wie hoch is"
            r"|wie viele einwohner)\b",
            r"\b(?:a que horas (?:abre|fecha)|horario de funcionamento|recorde mundial|(?:foi|foram) (?:construid|fundad"
            r"|descobert|colonizad)\w*|quais sao as (?:principais )?atracoes|quantos habitantes|o que (?:ver|visitar)"
            r" em)\b",
        )
    )
)

_TASK = re.compile(
    r"\b(?:sql|regex|regexp|formula|formule|formel|excel|google sheets|python|javascript|bash|script|query|consulta"
    r"|funcion|function|fonction|funktion|funcao|quote|citation|cita|zitat|citacao|verse|verset|versiculo|vers"
    r"|mnemonic|mnemotechni\w*|mnemotecni\w*|eselsbrucke|gedachtnistraining)\b"
    r"|[\"«“][^\"»”]{3,}[\"»”]|(?:^|\s)'[^']{3,}'(?:\s|$|[?.,!])|:\s*\S.{10,}"
)

_SAID = re.compile(
    "|".join(
        (
            r"\b(?:(?:i|you|we|he|she|they) (?:said|told|mentioned|wrote|pasted|sent|shared|quoted|called it)"
            r"|(?:did|what) (?:i|you|we) (?:say|tell|mention|call)|exact (?:words?|name|phrase|wording|link|url)"
            r"|the (?:link|url|address|number|name|quote) (?:i|you) (?:gave|pasted|sent|shared|suggested|used)"
            r"|word for word|verbatim)\b",
            r"\b(?:j'ai dit|tu (?:m'as|as) dit|on a dit|on avait dit|(?:je t'|tu m')ai? (?:envoye|colle|donne|ecrit)"
            r"|mot pour mot|mots exacts|le lien (?:que|qu')|qu'est-ce que (?:j'ai|tu as|on a) dit|tu m'avais dit)\b",
            r"\b(?:dije|dijiste|dijimos|dijo|mencione|mencionaste|te (?:mande|pase|pegue|escribi)|me (?:dijiste|pasaste"
            r"|mandaste)|palabras exactas|al pie de la letra|el (?:enlace|link) que|lo que me dijiste)\b",
            r"\b(?:gesagt|erwahnt|genannt|geschrieben|geschickt|eingefugt|wortlich|genauen? (?:worte|namen|link)"
            r"|der link,? den|was hab(?:e)? ich (?:gesagt|geschrieben)|was hast du (?:gesagt|mir gesagt))\b",
            r"\b(?:eu disse|voce disse|a gente disse|dissemos|disse|falei|falou|mencionei|mencionou|te (?:mandei|passei"
            r"|colei)|me (?:mandou|passou|disse)|palavras exatas|o link que|ao pe da letra)\b",
        )
    )
)

_DECIDED = re.compile(
    "|".join(
        (
            r"\b(?:(?:we|i|you) (?:decided|agreed|settled|concluded|chose|picked|went with|ended up|landed on)"
            r"|did (?:we|i) (?:decide|agree|settle|choose|end up)|what was the (?:outcome|result|decision|verdict|plan)"
            r"|how did (?:the|my|our|it) \w*(?: \w+)? ?(?:go|turn out|end)|what came out of)\b",
            r"\b(?:(?:on a|on avait|j'ai|j'avais|nous avons|vous avez) (?:decide|convenu|choisi|tranche|conclu|opte)"
            r"|qu'est-ce qu'on a (?:decide|conclu)|comment (?:s'est passe|ca s'est passe|ca a fini)"
            r"|qu'est-ce que ca a donne|le resultat)\b",
            r"\b(?:decidimos|decidi|decidiste|acordamos|quedamos en|elegimos|optamos|al final|como (?:salio|fue|quedo)"
            r"|en que quedamos|que se decidio|el resultado)\b",
            r"\b(?:entschieden|vereinbart|ausgemacht|geeinigt|beschlossen|abgemacht|wie (?:lief|ist .{1,30}"
            r" gelaufen|ging es aus)|was kam (?:dabei )?(?:raus|heraus)|am ende)\b",
            r"\b(?:decidimos|decidi|combinamos|acertamos|escolhemos|optamos|no fim|no final|como (?:foi|ficou|correu)"
            r"|o que ficou (?:decidido|combinado)|o resultado)\b",
        )
    )
)

_ID_SLOT = re.compile(
    "|".join(
        (
            # en: my name / job / age / city, where I live / work, who I am; a text presenting the asker
            r"\b(?:what(?:'s| is) my (?:full )?(?:name|surname|job|occupation|profession|age|birthday|address|hometown"
            r"|city)|(?:where|what \w+|which \w+) (?:do )?i (?:live|work|study)|how old am i|what do i do for (?:a living"
            r"|work)|who (?:am i|i am)|where am i (?:from|based)|(?:my|a) (?:short )?(?:bio|linkedin|headline|cv|resume"
            r"|introduction)|introduce me|about me)\b",
            r"\b(?:je m'appelle comment|comment je m'appelle|quel est mon (?:nom|prenom|metier|travail|age|adresse)"
            r"|ou (?:est-ce que )?j'habite|ou je (?:vis|travaille|bosse)|je fais quoi (?:comme|dans la vie)|j'ai quel age"
            r"|qui (?:je suis|suis-je)|presente-moi|je me presente|ma (?:bio|presentation))\b",
            r"\b(?:como me llamo|cual es mi (?:nombre|apellido|trabajo|profesion|edad|direccion)|(?:donde|en que \w+"
            r"|que) (?:\w+ )?(?:vivo|trabajo|curro|estudio)\b|a que me dedico|cuantos anos tengo|de donde soy"
            r"|quien soy|presentame|mi (?:cv|curriculum|bio))\b",
            r"\b(?:wie heiss(?:e)? ich|wie ist mein name|(?:wo|bei wem|als was|was) (?:\w+ )?(?:wohne|arbeite"
            r"|studiere) ich|was ist mein (?:beruf|job|name)|wie alt bin ich|woher komme ich|wer (?:ich bin|bin ich)"
            r"|stell mich vor)\b",
            r"\b(?:como (?:eu )?me chamo|qual (?:e )?(?:o )?meu (?:nome|trabalho|emprego|endereco)|qual (?:e )?a minha"
            r" (?:profissao|idade|cidade)|onde (?:eu )?(?:moro|trabalho|vivo)|quantos anos (?:eu )?tenho"
            r"|em que (?:eu )?trabalho|de onde (?:eu )?sou|quem (?:eu )?sou|me apresenta|apresente-me|meu (?:cv"
            r"|curriculo))\b",
        )
    )
)


def has_first_person(words: Collection[str]) -> bool:
    """Whether the request holds an unambiguous first-person word (any of the five languages)."""
    return any(word in _FIRST for word in words)


def identity_place(facts: Sequence[str]) -> bool:
    """Whether an identity fact holds a place ("physiotherapist in Bergen"; answer_kinds, cached per text)."""
    return any("place" in value_kinds(text) for text in facts)


def slot_features(
    folded: str,
    words: Collection[str],
    f: Mapping[str, float],
    *,
    names_own: bool,
    identity_facts: Sequence[str],
) -> dict[str, float]:
    """SLOT_FEATURES of one request: folded text (gate.fold), its words, the features already computed (f:
    `ask_for_user`, `{p,e,t}_known`, `{t,e}_cov`, `id_has`), whether it names a thing only memory holds
    (gate_own), and the identity's facts."""
    generic = (
        1.0 if not names_own and not has_first_person(words) and _GENERIC.search(folded) is not None else 0.0
    )
    task = 1.0 if _TASK.search(folded) is not None else 0.0
    said = 1.0 if _SAID.search(folded) is not None else 0.0
    decided = 1.0 if _DECIDED.search(folded) is not None else 0.0
    id_slot = 1.0 if _ID_SLOT.search(folded) is not None else 0.0
    known = max(f.get("p_known", 0.0), f.get("e_known", 0.0), f.get("t_known", 0.0))
    return {
        "ask_generic": generic,
        "task_given": task,
        "for_user_x_task": f.get("ask_for_user", 0.0) * task,
        "ask_said": said,
        "ask_decided": decided,
        "ask_id_slot": id_slot,
        "id_place": 1.0 if identity_place(identity_facts) else 0.0,
        "generic_x_known": generic * known,
        "said_x_t_cov": said * f.get("t_cov", 0.0),
        "decided_x_e_cov": decided * f.get("e_cov", 0.0),
        "id_slot_x_id_has": id_slot * f.get("id_has", 0.0),
    }


__all__ = ["SLOT_FEATURES", "has_first_person", "identity_place", "slot_features"]
