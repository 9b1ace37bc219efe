"""Assistant filler in the transcript section: replies that only acknowledge ("Understood.", "Thanks, noted.",
"Got it, 240k for Falcon.") are left out of the block.

Why: they cost tokens and say nothing the user's own turn does not (note 10, checked by hand). The rule is general,
not a list of sentences: an assistant turn is filler when no word is left once acknowledgement and courtesy words
(with the function words such replies are made of, in English, French, Spanish, German and Portuguese) and the
words it echoes from the user turn it answers are taken out. A number, a name or any other word that user turn did
not say keeps the line. The user's own turns are never filler.

The user turn a reply answers is the row just before it (a turn's user and assistant rows are inserted in that
order by one statement, so their ids are adjacent; storage/transcript.py), and only when that row is among the
same hits: an echo of a turn the block does not show is the only place its words appear. Echoes are never measured
against a pool of the user's turns: on LoCoMo, a whole conversation's user words covered the words of 169 evidence
turns.
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
    """Transcript hits minus the assistant turns that are filler. An echo counts only against the user turn the
    reply answers (the row just before it, of the same conversation) when that turn is among `hits`."""
    users = {hit.ref.id: hit for hit in hits if hit.role == "user"}
    kept: list[MemoryHit] = []
    for hit in hits:
        if hit.role == "assistant" and is_filler(hit.text, _answered_words(hit, users)):
            continue
        kept.append(hit)
    return kept


def _answered_words(reply: MemoryHit, users: dict[str, MemoryHit]) -> frozenset[str]:
    """The stems of the user turn `reply` answers, when it is among the hits; empty otherwise."""
    if not reply.ref.id.isdigit():
        return frozenset()
    turn = users.get(str(int(reply.ref.id) - 1))
    if turn is None or turn.conversation_id != reply.conversation_id:
        return frozenset()
    return frozenset(term_counts(turn.text))


__all__ = ["FILLER_WORDS", "is_filler", "without_filler"]
