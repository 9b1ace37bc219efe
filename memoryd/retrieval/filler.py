"""Assistant filler in the transcript section: replies that only acknowledge ("Understood.", "Thanks, noted.",
"Got it, 240k for Falcon.") are left out of the block.

Why: they cost tokens and say nothing the user's own turn does not (note 10, checked by hand). The rule is general,
not a list of sentences: an assistant turn is filler when no word is left once acknowledgement and courtesy words
(with the function words such replies are made of, in English, French, Spanish, German and Portuguese) and the
words it echoes from the user's turns among the same hits are taken out. A number, a name or any other word the
user did not say keeps the line. The user's own turns are never filler.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.retrieval.items import MemoryHit
from memoryd.retrieval.terms import term_counts, tokens
from memoryd.text import fold, word_list

#: Acknowledgements said in several words, taken out before the words are looked at ("no" alone is an answer).
_PHRASES = re.compile(
    r"\b(?:no (?:problem|worries)|not at all|de nada|de rien|pas de (?:probleme|souci)|sin problema|"
    r"kein problem|sem problema|ca marche|in ordnung|de acuerdo|d accord|com certeza)\b"
)

#: Acknowledgement and courtesy words, and the function words acknowledgements are made of, folded (no accents).
FILLER_WORDS = word_list(
    """
    a about absolument accord ach acuerdo ai all alles alright am amazing an and anotado anotei any anytime
    appreciate appreciated apuntado apunto are as at avec awesome be beaucoup been beleza bem bien bitte bon
    brilliant buena bueno but by c ca can certainly certeza certo cheers claro combinado comigo comprendo
    compris con congrats congratulations cool course d dank danke das de definitely deixa del did dir do does
    done down du e el enregistre entendi entendido entendu entiendo es est esta estupendo et eu exactement
    exactly exacto excellent fait fantastic fine for from genau genial gern gerne get glad good got gotcha
    gracias great gusto gut ha hab habe haha happy has have hear heard hecho help hey hi hmm how i ich if ihnen
    in indeed into is isso ist it its j ja je just keep kept klar klasse know la le legal lembrar les let listo
    ll lo lol los lovely m makes maravilha me merci merke mil mind mir muchas muito muy my nada natuerlich
    naturlich neat nice nota note noted notiert noting o obrigada obrigado of oh ok okay on os otima otimo oui
    parfait perfect perfecto perfekt placer plaisir please pleasure pode por pour prazer prima re really
    recorded remember remembered retenu retiens right s saved schon see sehr sense si sicher so sound sounds
    super superb supuesto sure t ta te tengo terrific thank thanks that the there this those thx to toll tomo
    too tout tres tu ty un una und understand understood une us vale valeu vaya ve verstanden verstehe very voce
    volontiers vou vous we welcome well will with wonderful wow wunderbar y yeah yep yes you your
    """
)


def is_filler(text: str, echoed: frozenset[str] = frozenset()) -> bool:
    """True when `text` says nothing beyond acknowledgement once the stems in `echoed` (the user's words) are
    taken out. Text with no word at all is not filler (the planner skips it on its own)."""
    folded = _PHRASES.sub(" ", " ".join(tokens(text)))
    words = folded.split()
    if not words and not fold(text).strip():
        return False
    left = [word for word in words if word not in FILLER_WORDS]
    return all(stem in echoed for word in left for stem in term_counts(word))


def without_filler(hits: Sequence[MemoryHit]) -> list[MemoryHit]:
    """Transcript hits minus the assistant turns that are filler; echoes are measured against the user turns of
    the same conversation among `hits`."""
    said: dict[str, set[str]] = {}
    for hit in hits:
        if hit.role == "user":
            said.setdefault(hit.conversation_id, set()).update(term_counts(hit.text))
    return [
        hit
        for hit in hits
        if hit.role != "assistant" or not is_filler(hit.text, frozenset(said.get(hit.conversation_id, ())))
    ]


__all__ = ["FILLER_WORDS", "is_filler", "without_filler"]
