"""Sentence rules of the extractor: grammar patterns per language that turn one user sentence into fact hits.

Each rule is a first-person pattern ("I live in", "j'habite à", "vivo en", "ich wohne in", "moro em") around a
captured value (a capitalised name, a number, or the rest of the clause). The extractor (extract.py) decides which
sentences are statements at all (no questions, hypotheticals, reported speech); this module only reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memoryd.writer.grounding.lexicon import (
    CHOICE_CATEGORIES,
    CLAUSE_END,
    DIET_WORDS,
    FOR_TARGET,
    HEDGE,
    NAME,
    NEGATION_NEAR,
    NOT_ROLES,
    NOT_TASKS,
    OBJ,
    PETS,
    PLACE,
    REL_RE,
    RELATIONS,
    REPORTED,
    ROLE_SUFFIX,
)
from memoryd.writer.grounding.model import FactKind
from memoryd.writer.grounding.templates import render
from memoryd.writer.grounding.text import STOP_WORDS, fold, tokens

_I = re.IGNORECASE


@dataclass(frozen=True)
class Rule:
    """One pattern: `key` names the template (and the handling), `slot` may hold "{v}" / "{what}"."""

    lang: str
    key: str
    kind: FactKind
    slot: str
    pattern: re.Pattern[str]
    verb: str = ""


@dataclass(frozen=True)
class Hit:
    """A fact read from one sentence, before provenance is attached."""

    kind: FactKind
    slot: str
    value: str
    text: str
    is_identity: bool
    start: int
    end: int


_K = FactKind
_CE = CLAUSE_END
_AGE_END = r"(?=\s*(?:years? old|y/?o\b|[.,;!]|$|and\b|now\b|this year\b))"
_RULES_SPEC: list[tuple[str, str, FactKind, str, str, str]] = [
    # --- English
    ("en", "name", _K.IDENTITY, "identity.name", rf"\bmy (?:full |first )?name(?: is|'s) {NAME}", ""),
    ("en", "name", _K.IDENTITY, "identity.name", rf"\bI(?:'m| am) called {NAME}", ""),
    ("en", "address_as", _K.IDENTITY, "identity.address_as",
     rf"\b(?:call me|you can call me|I go by|I prefer to be called|I'd like to be called|address me as) {NAME}", ""),
    ("en", "pronouns", _K.IDENTITY, "identity.pronouns", r"\bmy pronouns are (?P<v>[a-z]+/[a-z]+(?:/[a-z]+)?)", ""),
    ("en", "home", _K.IDENTITY, "identity.home",
     rf"\bI (?:currently |now |still )?(?:live|am living|'m living|am based|'m based|reside) in {PLACE}", ""),
    ("en", "home", _K.IDENTITY, "identity.home", rf"\bI(?:'m| am) (?:currently |now )?based in {PLACE}", ""),
    ("en", "moved", _K.IDENTITY, "identity.home",
     rf"\bI(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) to {PLACE}", ""),
    ("en", "origin", _K.IDENTITY, "identity.origin", rf"\bI(?:'m| am) (?:originally )?from {PLACE}", ""),
    ("en", "age", _K.IDENTITY, "identity.age", rf"\bI(?:'m| am) (?P<v>\d{{1,3}}){_AGE_END}", ""),
    ("en", "age", _K.IDENTITY, "identity.age", r"\bI (?:just )?turned (?P<v>\d{1,3})\b", ""),
    ("en", "works_as", _K.IDENTITY, "identity.role", r"\bI work as (?P<v>an? [\w -]{2,40}?)(?=\s+(?:at|for|in)\b|[.,;!]|$)", ""),
    ("en", "role", _K.IDENTITY, "identity.role",
     r"\bI(?:'m| am) (?:now |currently |also )?(?P<v>an? (?:[\w-]+ ){0,3}?[\w-]+?)(?=\s+(?:at|for|in|by|with)\b|\s*[.,;!]|$)", ""),
    ("en", "employer", _K.IDENTITY, "identity.employer",
     rf"\bI(?: work|'m working| am working| am employed) (?:at|for) {NAME}", ""),
    ("en", "employer", _K.IDENTITY, "identity.employer", rf"\bI(?:'m| am) an? [\w -]{{2,40}}? (?:at|for) {NAME}", ""),
    ("en", "diet", _K.PREFERENCE, "preference.diet",
     r"\bI(?:'m| am) (?:(?:a|an|strictly|fully|mostly|now|also|completely) )*(?P<v>vegetarian|vegan|pescatarian|"
     r"pescetarian|plant-based)\b", ""),
    ("en", "diet", _K.PREFERENCE, "diet.{v}",
     r"\bI(?:'m| am) (?:(?:a|an|also|now) )*(?P<v>lactose[- ]intolerant|gluten[- ]free|celiac|coeliac|diabetic|"
     r"kosher|halal|teetotal|sober)\b", ""),
    ("en", "allergy", _K.PREFERENCE, "allergy.{v}",
     rf"\bI(?:'m| am) (?:[\w-]+(?: [\w-]+)? and )?(?:severely |very |really |mildly |also )?allergic to {OBJ}", ""),
    ("en", "pref", _K.PREFERENCE, "", rf"\bI (?:do not|don't|never) (?:eat|drink) {OBJ}", "The user doesn't {w}"),
    ("en", "pref", _K.PREFERENCE, "",
     rf"\bI (?:really |much |strongly |definitely |generally |usually |also |actually |still |just |absolutely |"
     rf"totally |honestly |kind of )*(?P<w>prefer|love|adore|like|enjoy|hate|dislike|detest|can't stand|cannot "
     rf"stand|can not stand|don't like|do not like|don't enjoy|do not enjoy|can't tolerate)\s+{OBJ}", ""),
    ("en", "pref", _K.PREFERENCE, "", rf"\bI'd (?:really |much )?(?P<w>prefer|rather have)\s+{OBJ}", ""),
    ("en", "pref", _K.PREFERENCE, "", rf"\bI(?:'m| am) (?P<w>(?:not )?(?:a )?(?:huge |big |great )?fan of)\s+{OBJ}", ""),
    ("en", "favorite", _K.PREFERENCE, "favorite.{what}",
     rf"\bmy (?:all-time )?favou?rite (?P<what>[\w -]{{2,30}}?) is {OBJ}", ""),
    ("en", "decision", _K.DECISION, "choice",
     r"\b(?:we|I)(?:'ll| will|'re going to| are going to|'m going to| am going to)(?: just)? (?P<v>(?:go with|use|"
     r"pick|choose|switch to|stick with|adopt|move to|migrate to|settle on|take|book|buy|order)\s[^.;!?]+)", "to "),
    ("en", "decision", _K.DECISION, "choice",
     r"\blet's (?:just )?(?P<v>(?:go with|use|pick|choose|switch to|stick with|adopt|move to|migrate to|settle on|"
     r"take|book|do)\s[^.;!?]+)", "to "),
    ("en", "decision", _K.DECISION, "choice",
     r"\b(?:we|I)(?:'ve| have)?(?: finally| just| now)? decided (?P<v>(?:to|on|that|against)\s[^.;!?]+)", ""),
    ("en", "decision", _K.DECISION, "choice", r"\b(?:we|I)(?:'re| are|'m| am) going with (?P<v>[^.;!?]+)", "to go with "),
    ("en", "chose", _K.DECISION, "choice",
     r"\b(?:we|I) (?:finally )?(?:chose|picked|opted for|settled on|went with|selected) (?P<v>[^.;!?]+)", ""),
    ("en", "action", _K.ACTION_ITEM, "",
     r"\bI (?:really |still |also |just )?(?:need to|have to|must|'ve got to|have got to|gotta) (?P<v>[^.;!?]+)", ""),
    ("en", "remind", _K.ACTION_ITEM, "",
     r"\b(?:remind me|don't let me forget|do not let me forget) (?:to |about )(?P<v>[^.;!?]+)", ""),
    ("en", "target", _K.PLAN, "target", r"\bmy (?:goal|target|aim) (?:is|for [\w ]{2,30}? is) (?:to )?(?P<v>[^.;!?]+)", ""),
    ("en", "target", _K.PLAN, "target", r"\bI(?:'m| am) (?:aiming|training|trying) (?:for|to) (?P<v>[^.;!?]+)", ""),
    # --- French
    ("fr", "name", _K.IDENTITY, "identity.name", rf"\bje m'appelle {NAME}", ""),
    ("fr", "name", _K.IDENTITY, "identity.name", rf"\bmon (?:pr[ée]nom|nom) (?:est|c'est) {NAME}", ""),
    ("fr", "address_as", _K.IDENTITY, "identity.address_as",
     rf"\b(?:appelle-moi|appelez-moi|tu peux m'appeler|vous pouvez m'appeler|on m'appelle) {NAME}", ""),
    ("fr", "home", _K.IDENTITY, "identity.home",
     rf"\b(?:j'habite|je vis|je réside)(?: maintenant| actuellement| toujours)? (?:à|a|en|au|aux|dans) {PLACE}", ""),
    ("fr", "moved", _K.IDENTITY, "identity.home",
     rf"\b(?:j'ai (?:récemment |enfin )?déménagé|je viens de déménager|je me suis installée?) (?:à|a|en|au|dans) {PLACE}", ""),
    ("fr", "origin", _K.IDENTITY, "identity.origin", rf"\bje (?:viens|suis originaire) (?:de|du|d') ?{PLACE}", ""),
    ("fr", "age", _K.IDENTITY, "identity.age", r"\bj'ai (?P<v>\d{1,3}) ans\b", ""),
    ("fr", "works_as", _K.IDENTITY, "identity.role", r"\bje travaille (?:comme|en tant que) (?P<v>[^.,;!?]{2,40}?)(?=\s+(?:chez|à|pour)\b|[.,;!]|$)", ""),
    ("fr", "role", _K.IDENTITY, "identity.role",
     r"\bje suis (?P<v>(?:un |une )?[\w-]+(?:eur|ien|ienne|iste|ier|ière|ecte|ologue|ine|in))(?=\s+(?:chez|à|pour|de)\b|\s*[.,;!]|$)", ""),
    ("fr", "employer", _K.IDENTITY, "identity.employer", rf"\bje travaille (?:chez|pour) {NAME}", ""),
    ("fr", "diet", _K.PREFERENCE, "preference.diet",
     r"\bje suis (?:devenue? |maintenant )?(?P<v>végétarien(?:ne)?|végétalien(?:ne)?|végane?|vegan(?:e)?|"
     r"pescétarien(?:ne)?)\b", ""),
    ("fr", "diet", _K.PREFERENCE, "diet.{v}",
     r"\bje suis (?P<v>intolérante? au (?:lactose|gluten)|cœliaque|coeliaque|diabétique)\b", ""),
    ("fr", "allergy", _K.PREFERENCE, "allergy.{v}", rf"\bje suis (?:[\w-]+ et )?allergique (?P<v>(?:à|a|aux|au) [^.,;:!?()]{{2,60}}?){_CE}", ""),
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
    ("fr", "action", _K.ACTION_ITEM, "",
     r"\b(?:je dois|il faut que je|j'ai besoin de|je vais devoir) (?P<v>[^.;!?]+)", ""),
    ("fr", "remind", _K.ACTION_ITEM, "",
     r"\b(?:rappelle-moi|rappelez-moi|fais-moi penser à|n'oublie pas de me rappeler) (?:de |d'|que )?(?P<v>[^.;!?]+)", ""),
    ("fr", "target", _K.PLAN, "target", r"\bmon (?:objectif|but) (?:est|c'est) (?:de |d')?(?P<v>[^.;!?]+)", ""),
    # --- Spanish
    ("es", "name", _K.IDENTITY, "identity.name", rf"\b(?:me llamo|mi nombre es) {NAME}", ""),
    ("es", "address_as", _K.IDENTITY, "identity.address_as", rf"\b(?:llámame|llamame|puedes llamarme) {NAME}", ""),
    ("es", "home", _K.IDENTITY, "identity.home", rf"\b(?:vivo|resido)(?: ahora| actualmente)? en {PLACE}", ""),
    ("es", "moved", _K.IDENTITY, "identity.home", rf"\bme (?:mudé|he mudado|acabo de mudar) a {PLACE}", ""),
    ("es", "origin", _K.IDENTITY, "identity.origin", rf"\bsoy de {PLACE}", ""),
    ("es", "age", _K.IDENTITY, "identity.age", r"\btengo (?P<v>\d{1,3}) años\b", ""),
    ("es", "works_as", _K.IDENTITY, "identity.role", r"\btrabajo (?:como|de) (?P<v>[^.,;!?]{2,40}?)(?=\s+(?:en|para)\b|[.,;!]|$)", ""),
    ("es", "role", _K.IDENTITY, "identity.role",
     r"\bsoy (?P<v>(?:un |una )?[\w-]+(?:ero|era|ista|or|ora|ólogo|óloga|ario|aria|ente|ico|ica))(?=\s+(?:en|de|para)\b|\s*[.,;!]|$)", ""),
    ("es", "employer", _K.IDENTITY, "identity.employer", rf"\btrabajo (?:en|para) {NAME}", ""),
    ("es", "diet", _K.PREFERENCE, "preference.diet", r"\bsoy (?P<v>vegetarian[oa]|vegan[oa]|pescetarian[oa])\b", ""),
    ("es", "diet", _K.PREFERENCE, "diet.{v}", r"\bsoy (?P<v>celíac[oa]|diabétic[oa]|intolerante a la lactosa)\b", ""),
    ("es", "allergy", _K.PREFERENCE, "allergy.{v}", rf"\b(?:soy (?:[\w-]+ y )?alérgic[oa]|tengo alergia) (?:a |al )(?P<v>[^.,;:!?()]{{2,60}}?){_CE}", ""),
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
     r"(?:he|hemos) decidido|decidí|decidimos|elegí|elegimos|optamos por|opté por|me quedo con|voy a usar|"
     r"iremos con)\s[^.;!?]+)", ""),
    ("es", "action", _K.ACTION_ITEM, "", r"\b(?:tengo que|necesito|debo) (?P<v>[^.;!?]+)", ""),
    ("es", "remind", _K.ACTION_ITEM, "", r"\b(?:recuérdame|recuerdame) (?:que |de )?(?P<v>[^.;!?]+)", ""),
    ("es", "target", _K.PLAN, "target", r"\bmi (?:objetivo|meta) es (?P<v>[^.;!?]+)", ""),
    # --- German
    ("de", "name", _K.IDENTITY, "identity.name", rf"\b(?:ich heiße|ich heisse|mein Name ist) {NAME}", ""),
    ("de", "address_as", _K.IDENTITY, "identity.address_as", rf"\b(?:nenn|nenne|nennt|nennen Sie) mich {NAME}", ""),
    ("de", "home", _K.IDENTITY, "identity.home", rf"\bich (?:wohne|lebe)(?: jetzt| derzeit| seit [\w ]+?)? in {PLACE}", ""),
    ("de", "moved", _K.IDENTITY, "identity.home", rf"\bich bin (?:gerade |kürzlich |jetzt )?nach {PLACE} gezogen", ""),
    ("de", "origin", _K.IDENTITY, "identity.origin", rf"\bich (?:komme|stamme) aus {PLACE}", ""),
    ("de", "age", _K.IDENTITY, "identity.age", r"\bich bin (?P<v>\d{1,3})(?= Jahre|\s*[.,;!]|$| und)", ""),
    ("de", "works_as", _K.IDENTITY, "identity.role", r"\bich arbeite als (?P<v>[^.,;!?]{2,40}?)(?=\s+(?:bei|in|für)\b|[.,;!]|$)", ""),
    ("de", "role", _K.IDENTITY, "identity.role",
     r"\bich bin (?:von Beruf )?(?-i:(?P<v>[A-ZÄÖÜ][a-zäöüß]+(?:er|erin|ist|istin|eur|eurin|ant|antin|ent|entin|"
     r"ekt|ektin|loge|login|arzt|ärztin)))\b", ""),
    ("de", "employer", _K.IDENTITY, "identity.employer", rf"\bich arbeite (?:bei|für) {NAME}", ""),
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
    ("de", "action", _K.ACTION_ITEM, "", r"\bich (?:muss|sollte unbedingt) (?P<v>[^.;!?]+)", ""),
    ("de", "remind", _K.ACTION_ITEM, "", r"\b(?:erinnere|erinner) mich (?:bitte )?(?:daran,? )?(?:dass )?(?P<v>[^.;!?]+)", ""),
    ("de", "target", _K.PLAN, "target", r"\bmein Ziel ist(?: es)?,? (?P<v>[^.;!?]+)", ""),
    # --- Portuguese
    ("pt", "name", _K.IDENTITY, "identity.name", rf"\b(?:meu nome é|me chamo|chamo-me|eu me chamo) {NAME}", ""),
    ("pt", "address_as", _K.IDENTITY, "identity.address_as",
     rf"\b(?:pode me chamar de|podes chamar-me|me chame de|me chama de) {NAME}", ""),
    ("pt", "home", _K.IDENTITY, "identity.home", rf"\b(?:eu )?(?:moro|vivo|resido)(?: agora| atualmente)? (?:em|no|na|nos|nas) {PLACE}", ""),
    ("pt", "moved", _K.IDENTITY, "identity.home", rf"\b(?:me mudei|mudei-me|acabei de me mudar) (?:para|pra) (?:o |a )?{PLACE}", ""),
    ("pt", "origin", _K.IDENTITY, "identity.origin", rf"\bsou (?:de|do|da) {PLACE}", ""),
    ("pt", "age", _K.IDENTITY, "identity.age", r"\btenho (?P<v>\d{1,3}) anos\b", ""),
    ("pt", "works_as", _K.IDENTITY, "identity.role", r"\btrabalho como (?P<v>[^.,;!?]{2,40}?)(?=\s+(?:na|no|em|para)\b|[.,;!]|$)", ""),
    ("pt", "role", _K.IDENTITY, "identity.role",
     r"\bsou (?P<v>(?:um |uma )?[\w-]+(?:eiro|eira|ista|or|ora|ólogo|óloga|ário|ária|ente|ico|ica))(?=\s+(?:na|no|em|de|para)\b|\s*[.,;!]|$)", ""),
    ("pt", "employer", _K.IDENTITY, "identity.employer", rf"\btrabalho (?:na|no|em|para a|para o|para) {NAME}", ""),
    ("pt", "diet", _K.PREFERENCE, "preference.diet", r"\bsou (?P<v>vegetarian[oa]|vegan[oa]|pescetarian[oa])\b", ""),
    ("pt", "diet", _K.PREFERENCE, "diet.{v}", r"\bsou (?P<v>celíac[oa]|diabétic[oa]|intolerante à lactose)\b", ""),
    ("pt", "allergy", _K.PREFERENCE, "allergy.{v}", rf"\b(?:sou (?:[\w-]+ e )?alérgic[oa]|tenho alergia) (?:a |à |ao |aos |às )(?P<v>[^.,;:!?()]{{2,60}}?){_CE}", ""),
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
    ("pt", "action", _K.ACTION_ITEM, "", r"\b(?:(?:eu )?preciso|tenho que|tenho de|devo) (?P<v>[^.;!?]+)", ""),
    ("pt", "remind", _K.ACTION_ITEM, "", r"\b(?:me lembra|me lembre|lembre-me|lembra-me) de (?P<v>[^.;!?]+)", ""),
    ("pt", "target", _K.PLAN, "target", r"\b(?:meu objetivo|minha meta) é (?P<v>[^.;!?]+)", ""),
]  # fmt: skip

RULES: tuple[Rule, ...] = tuple(
    Rule(lang, key, kind, slot, re.compile(pattern, _I), verb)
    for lang, key, kind, slot, pattern, verb in _RULES_SPEC
)
_REL_SPEC = (
    (
        "en",
        rf"\b(?P<poss>my|our) (?P<rel>{REL_RE})(?:,)?(?: (?:is|'s)(?: called| named)?| (?:called|named)|,)? {NAME}",
    ),
    ("fr", rf"\b(?P<poss>mon|ma|notre) (?P<rel>{REL_RE})(?: (?:s'appelle|est|c'est)(?: le| la)?|,)? {NAME}"),
    ("es", rf"\b(?P<poss>mi|nuestro|nuestra) (?P<rel>{REL_RE})(?: (?:se llama|es)(?: el| la)?|,)? {NAME}"),
    ("de", rf"\b(?P<poss>mein|meine|unser|unsere) (?P<rel>{REL_RE})(?: (?:heißt|heisst|ist)|,)? {NAME}"),
    (
        "pt",
        rf"\b(?P<poss>meu|minha|nosso|nossa) (?P<rel>{REL_RE})(?: (?:se chama|chama-se|é)(?: o| a)?|,)? {NAME}",
    ),
    ("en", rf"{NAME},? (?:is )?(?:my|our) (?P<rel>{REL_RE})\b"),
)
RELATION_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (lang, re.compile(p, _I)) for lang, p in _REL_SPEC
)

_EN_PREF_VERBS = {
    "prefer": "The user prefers", "love": "The user loves", "adore": "The user loves", "like": "The user likes",
    "enjoy": "The user enjoys", "hate": "The user hates", "dislike": "The user dislikes", "detest": "The user hates",
    "don't like": "The user doesn't like", "do not like": "The user doesn't like",
    "don't enjoy": "The user doesn't enjoy", "do not enjoy": "The user doesn't enjoy",
    "can't stand": "The user can't stand", "cannot stand": "The user can't stand",
    "can not stand": "The user can't stand", "can't tolerate": "The user can't tolerate",
    "rather have": "The user would rather have",
}  # fmt: skip
_DE_VERBS = {"esse": "Der Nutzer isst", "trinke": "Der Nutzer trinkt"}
_VAGUE_OBJECTS = frozenset(
    [
        "it",
        "that",
        "this",
        "them",
        "those",
        "these",
        "you",
        "your",
        "yours",
        "how",
        "what",
        "when",
        "where",
        "if",
        "which",
        "everything",
        "anything",
        "something",
        "ça",
        "cela",
        "ce",
        "c",
        "lo",
        "eso",
        "esto",
        "es",
        "das",
        "dies",
        "isso",
        "isto",
    ]
)
_NOT_NAMES = frozenset(
    ["i", "the", "a", "an", "my", "our", "we", "you", "he", "she", "they", "it", "this", "that"]
)
_NOT_ROLES_ROMANCE = frozenset(
    [
        "mayor",
        "menor",
        "mejor",
        "peor",
        "sincero",
        "sincera",
        "soltero",
        "soltera",
        "primero",
        "primera",
        "único",
        "única",
        "rico",
        "rica",
        "maior",
        "melhor",
        "pior",
        "solteiro",
        "solteira",
        "certain",
        "certaine",
        "malin",
        "plein",
        "pleine",
        "voisin",
        "voisine",
        "premier",
        "première",
        "dernier",
        "dernière",
        "fier",
        "fière",
        "entier",
        "entière",
        "meilleur",
        "majeur",
        "mineur",
        "ancien",
        "ancienne",
        "bien",
        "rien",
        "chien",
        "triste",
        "optimiste",
        "pessimiste",
        "réaliste",
        "idéaliste",
        "perfectionniste",
        "feliz",
        "capaz",
        "pronto",
        "pronta",
        "claro",
        "clara",
        "seguro",
        "segura",
        "serio",
        "seria",
        "cansado",
        "cansada",
        "dueño",
        "dueña",
        "lento",
        "lenta",
        "tranquilo",
        "tranquila",
        "vero",
    ]
)
_EN_PERSON = (
    (re.compile(r"\bmyself\b", _I), "themselves"),
    (re.compile(r"\bmy\b", _I), "their"),
    (re.compile(r"\bmine\b", _I), "theirs"),
    (re.compile(r"\bme\b", _I), "them"),
    (re.compile(r"\bI(?:'m| am)\b"), "they are"),
    (re.compile(r"\bI(?:'ve| have)\b"), "they have"),
    (re.compile(r"\bI(?:'ll| will)\b"), "they will"),
    (re.compile(r"\bI\b"), "they"),
    (re.compile(r"\bour\b", _I), "their"),
)
_INFINITIVE = re.compile(r"^\w+(?:ar|er|ir|or|re|ôr)(?:lo|la|le|los|las|les|me|te|se|nos)?\b", _I)


def to_third_person_en(text: str) -> str:
    """First-person words of an English clause moved to the third person ("my report" → "their report")."""
    for pattern, replacement in _EN_PERSON:
        text = pattern.sub(replacement, text)
    return text


def _clean(value: str) -> str:
    return " ".join(value.strip(" \t\"'“”«»").split()).rstrip(".,;:!?")


def _slug(text: str, max_words: int = 3) -> str:
    found = [t for t in tokens(text) if t not in STOP_WORDS]
    return "_".join(found[:max_words])


def _is_name(value: str) -> bool:
    first = fold(value.split()[0]) if value.split() else ""
    return bool(first) and first not in _NOT_NAMES and first not in STOP_WORDS


def _choice_slot(value: str) -> str:
    target = FOR_TARGET.search(value)
    if target:
        return f"choice.{_slug(target.group(1), 2)}"
    category = CHOICE_CATEGORIES.search(value)
    if category:
        return f"choice.{_slug(category.group(0), 2)}"
    return ""


def _vague(value: str) -> bool:
    found = tokens(value)
    return not found or found[0] in _VAGUE_OBJECTS or not [t for t in found if t not in STOP_WORDS]


_CLAUSE_BREAK = re.compile(
    r"[,;:]|\b(?:but|and|so|mais|et|donc|pero|y|así que|aber|und|also|mas|e|então)\b", re.IGNORECASE
)


def _accepts_prefix(sentence: str, start: int) -> bool:
    """No hedge, reported speech or nearby negation before the match in its clause ("my wife thinks I'm")."""
    prefix = sentence[:start]
    breaks = list(_CLAUSE_BREAK.finditer(prefix))
    if breaks:
        prefix = prefix[breaks[-1].end() :]
    return not REPORTED.search(prefix) and not NEGATION_NEAR.search(prefix)


def _hit(rule: Rule, match: re.Match[str], sentence: str) -> Hit | None:
    groups = match.groupdict()
    value = _clean(groups.get("v") or "")
    if not value:
        return None
    lang, key = rule.lang, rule.key
    slot = rule.slot
    if key in ("name", "address_as", "home", "moved", "origin", "employer"):
        if not _is_name(value):
            return None
        text = render(key, lang, value)
    elif key == "age":
        if not 1 <= int(value) <= 120:
            return None
        text = render(key, lang, value)
    elif key in ("role", "works_as"):
        last = fold(value.split()[-1])
        words_folded = [fold(w) for w in value.split()]
        if DIET_WORDS.match(value.split()[-1]) or any(w in NOT_ROLES for w in words_folded):
            return None
        if lang == "en" and key == "role" and not ROLE_SUFFIX.search(last):
            return None
        if lang in ("fr", "es", "pt") and key == "role" and last in {fold(w) for w in _NOT_ROLES_ROMANCE}:
            return None
        text = render(key, lang, value)
    elif key in ("diet", "allergy"):
        if key == "allergy" and _vague(value):
            return None
        slot = slot.format(v=_slug(value))
        shown = value if lang != "en" else to_third_person_en(value)
        text = render(key, lang, shown)
    elif key == "pref":
        if _vague(value):
            return None
        spoken = groups.get("w") or ""
        if rule.verb:
            verb = rule.verb.format(w=spoken.lower())
            if lang == "de" and spoken:
                verb = _DE_VERBS.get(spoken.lower(), verb)
        else:
            verb = _EN_PREF_VERBS.get(" ".join(spoken.lower().split()), f"The user {spoken.lower()}")
        shown = to_third_person_en(value) if lang == "en" else value
        text = render(key, lang, shown, verb=verb)
    elif key == "favorite":
        what = _clean(groups.get("what") or "")
        if not what or _vague(value):
            return None
        slot = slot.format(what=_slug(what, 2))
        text = render(key, lang, value, what=what)
    elif key in ("decision", "chose"):
        if HEDGE.search(sentence):
            return None
        shown = rule.verb + (to_third_person_en(value) if lang == "en" else value)
        slot = _choice_slot(value)
        text = render(key, lang, shown)
    elif key in ("action", "remind"):
        if NOT_TASKS.search(value) or (
            lang in ("es", "pt", "fr") and key == "action" and not _INFINITIVE.match(value)
        ):
            return None
        shown = to_third_person_en(value) if lang == "en" else value
        text = render(key, lang, shown)
    elif key == "target":
        slot = f"target.{_slug(value, 1)}" if _slug(value, 1) else ""
        shown = to_third_person_en(value) if lang == "en" else value
        text = render(key, lang, shown)
    else:  # pragma: no cover - every key of the table is handled above
        return None
    return Hit(rule.kind, slot, value, text, rule.kind is FactKind.IDENTITY, match.start(), match.end())


def apply_rules(sentence: str) -> list[Hit]:
    """Every fact hit of one (already filtered) user sentence, relations included; overlapping weaker hits dropped."""
    hits: list[Hit] = []
    normal = sentence.replace("’", "'")
    for rule in RULES:
        for match in rule.pattern.finditer(normal):
            if not _accepts_prefix(normal, match.start()):
                continue
            hit = _hit(rule, match, normal)
            if hit is not None:
                hits.append(hit)
    for lang, pattern in RELATION_RULES:
        for match in pattern.finditer(normal):
            if not _accepts_prefix(normal, match.start()):
                continue
            hit = _relation_hit(lang, match)
            if hit is not None:
                hits.append(hit)
    return _without_overlaps(hits)


def _relation_hit(lang: str, match: re.Match[str]) -> Hit | None:
    name = _clean(match.group("v"))
    rel = match.group("rel")
    if not _is_name(name):
        return None
    key, is_single = (
        RELATIONS[rel.lower()] if rel.lower() in RELATIONS else RELATIONS.get(fold(rel), ("", False))
    )
    if not key:
        return None
    if key in PETS:
        slot = f"pet.{_slug(name, 2)}"
        text = render("pet", lang, name, rel=rel.lower() if lang == "en" else rel)
    else:
        slot = f"relation.{key}" if is_single else f"relation.{key}.{_slug(name, 2)}"
        text = render("relation", lang, name, rel=rel.lower() if lang == "en" else rel)
    return Hit(FactKind.RELATION, slot, name, text, False, match.start(), match.end())


_PRIORITY = {FactKind.IDENTITY: 0, FactKind.RELATION: 1, FactKind.DECISION: 2, FactKind.PREFERENCE: 3,
             FactKind.ACTION_ITEM: 4, FactKind.INSTRUCTION: 5, FactKind.PLAN: 6}  # fmt: skip


def _without_overlaps(hits: list[Hit]) -> list[Hit]:
    """Among hits over the same words keep one: identity before relation before the rest, longer spans first.

    An employer hit ("I'm an engineer at Acme") and a role hit share words but say different things, so hits
    whose slots differ in family (identity.role vs identity.employer) are both kept."""
    ordered = sorted(hits, key=lambda h: (_PRIORITY[h.kind], -(h.end - h.start), h.start))
    kept: list[Hit] = []
    for hit in ordered:
        clash = any(
            hit.start < other.end
            and other.start < hit.end
            and hit.kind is other.kind
            and hit.slot == other.slot
            for other in kept
        )
        if not clash:
            kept.append(hit)
    return sorted(kept, key=lambda h: h.start)


__all__ = ["RELATION_RULES", "RULES", "Hit", "Rule", "apply_rules", "to_third_person_en"]
