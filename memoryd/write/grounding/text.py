"""Text primitives for grounding: accent folding, tokens, multilingual stop words, light stems, sentences, language."""

from __future__ import annotations

import re
from functools import lru_cache

from memoryd.retrieval.stem import stem as porter_stem
from memoryd.text import ENGLISH_STOP_WORDS as EN_STOP_WORDS
from memoryd.text import fold as _fold_uncached

LANGUAGES = ("en", "fr", "es", "de", "pt")


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of a word list written as text."""
    return frozenset(text.split())


_words = word_set


# Function words per language: they carry no fact, so support is measured on the rest. Negations stay content.
_STOP = {
    "en": EN_STOP_WORDS
    | _words(
        "user users user's im ive id ill dont doesnt isnt wasnt cant wont didnt lets theyre youre also "
        "session conversation assistant discussed discussion talked mentioned said asked"
    ),
    "fr": _words(
        """le la les l un une des du de d au aux et ou mais donc car ni que qu qui quoi dont ce cet cette ces
        mon ma mes ton ta tes son sa ses notre nos votre vos leur leurs je j tu il elle on nous vous ils elles
        me m te t se s lui y en est es suis sont sommes etes etait ete etre a ai as avons avez ont avoir
        dans sur sous avec pour par chez vers plus tres bien aussi ca cela c oui merci bonjour salut alors
        utilisateur utilisatrice"""
    ),
    "es": _words(
        """el la los las lo un una unos unas de del al a y o e u pero que quien como cuando donde mi mis tu
        tus su sus nuestro nuestra nuestros nuestras yo tu el ella nosotros vosotros ellos ellas me te se nos
        le les es soy eres somos son era fue ser estar estoy esta estan he ha han hay haber en con por para
        sin sobre muy mas tambien si gracias hola bueno usuario usuaria"""
    ),
    "de": _words(
        """der die das den dem des ein eine einen einem einer eines und oder aber denn dass wer was wie wo
        mein meine meinen meinem meiner dein deine sein seine ihr ihre unser unsere ich du er sie es wir
        ihr mich dich sich uns euch mir dir ihm ihnen bin bist ist sind war waren sein habe hast hat haben
        in im an am auf aus bei mit nach von vom zu zum zur fur uber unter sehr auch ja danke hallo also
        nutzer nutzerin benutzer benutzerin"""
    ),
    "pt": _words(
        """o a os as um uma uns umas de do da dos das no na nos nas ao aos e ou mas que quem como quando onde
        meu minha meus minhas teu tua seu sua seus suas nosso nossa eu tu ele ela nos voces eles elas me te se
        lhe sou es e somos sao era foi ser estar estou esta estao tenho tem temos ter em com por para pelo
        pela sem sobre muito mais tambem sim obrigado obrigada ola usuario usuaria utilizador"""
    ),
}
#: Negations: never stop words, because they flip a fact.
NEGATIONS = _words("not no never nor n't ne pas jamais nunca nada nicht kein keine keinen nie nao nem")
STOP_WORDS: frozenset[str] = frozenset().union(*_STOP.values()) - NEGATIONS
#: Stop words that belong to one language only: the evidence for detect_language.
_OWN_STOP = {
    lang: _STOP[lang] - frozenset().union(*(_STOP[other] for other in LANGUAGES if other != lang))
    for lang in LANGUAGES
}

NUMBER_WORDS: dict[str, str] = {}
for _lang_words in (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty",
    "zero un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize dix-sept "
    "dix-huit dix-neuf vingt",
    "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciseis "
    "diecisiete dieciocho diecinueve veinte",
    "null eins zwei drei vier funf sechs sieben acht neun zehn elf zwolf dreizehn vierzehn funfzehn sechzehn "
    "siebzehn achtzehn neunzehn zwanzig",
    "zero um dois tres quatro cinco seis sete oito nove dez onze doze treze catorze quinze dezesseis dezessete "
    "dezoito dezenove vinte",
):
    for _number, _word in enumerate(_lang_words.split()):
        NUMBER_WORDS.setdefault(_word, str(_number))
for _word, _digit in (("une", "1"), ("una", "1"), ("ein", "1"), ("eine", "1"), ("uma", "1"), ("duas", "2")):
    NUMBER_WORDS.setdefault(_word, _digit)

_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*", re.UNICODE)
_TOKEN = re.compile(r"[^\W_]+")
_GERMAN_MONTH = re.compile(
    r"(?:Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember)\b"
)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[\"'“(¿¡]?[^\W\d_])|\n+|(?<=[.!?])\s*$")


@lru_cache(maxsize=16_384)
def fold(text: str) -> str:
    """Lower-case and strip diacritics (memoryd.text.fold, the read path's; cached: turns are folded many times)."""
    return _fold_uncached(text)


#: The extractor reads at most this much of one turn: facts about the user are said in prose, not in long pastes.
MAX_PROSE_CHARS = 4000
_CODE = re.compile(r"```.*?(?:```|$)|`[^`\n]*`", re.DOTALL)


def prose(text: str) -> str:
    """A turn without code (fenced blocks and inline code), cut to MAX_PROSE_CHARS at a word boundary."""
    without_code = _CODE.sub(" ", text) if "`" in text else text
    if len(without_code) <= MAX_PROSE_CHARS:
        return without_code
    return without_code[:MAX_PROSE_CHARS].rsplit(" ", 1)[0]


#: "Melanie: …" opening a turn: a chat log pasted or replayed with its speakers' names.
_SPEAKER_LABEL = re.compile(r"^\s*(?-i:([A-ZÀ-ÖØ-Þ][\w'’-]{1,30}(?: [A-ZÀ-ÖØ-Þ][\w'’-]{1,30})?)):\s+")
#: "[shares a photo of a tent]": a stage direction of a chat log (an image caption), not words the speaker said;
#: a markdown link "[here](…)" and a bracketed capitalised note "[Update]" are kept.
_STAGE_DIRECTION = re.compile(r"\s*\[(?-i:[a-z])[^\[\]\n]{2,300}\](?!\()")
#: How many of a session's user turns must open with the same label before it is read as a speaker label.
SPEAKER_LABEL_MIN_TURNS = 2


def speaker_label(text: str) -> str:
    """The "Name" of a turn opening "Name: …", or ""."""
    found = _SPEAKER_LABEL.match(text)
    return found.group(1) if found else ""


def without_speaker_labels(user_turns: list[str], assistant_turns: list[str]) -> tuple[list[str], list[str]]:
    """A replayed chat log's speaker names and stage directions removed from its turns.

    A label is stripped only where the session's user turns open with the same "Name: " at least twice (a log
    format, not "Update: we moved" said once), so the words after it are read as the speaker's own; the other
    side's label goes too. Bracketed stage directions ("[shares a photo of …]") are dropped either way."""
    labels = [speaker_label(text) for text in user_turns]
    counted = {label: labels.count(label) for label in labels if label}
    logged = bool(counted) and max(counted.values()) >= SPEAKER_LABEL_MIN_TURNS

    def clean(text: str) -> str:
        if logged and speaker_label(text):
            text = _SPEAKER_LABEL.sub("", text, count=1)
        return _STAGE_DIRECTION.sub("", text) if "[" in text else text

    return [clean(text) for text in user_turns], [clean(text) for text in assistant_turns]


def words(text: str) -> list[str]:
    """Surface words in order (hyphen and apostrophe compounds kept whole, case kept)."""
    return _WORD.findall(text)


@lru_cache(maxsize=16_384)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(fold(text)))


def tokens(text: str) -> list[str]:
    """Folded word tokens, compounds split on apostrophes and hyphens ("l'utilisateur" → l, utilisateur)."""
    return list(_tokens(text))


@lru_cache(maxsize=65_536)
def light_stem(token: str) -> str:
    """A crude multilingual stem: Porter for English-looking words, then common Romance/German endings dropped."""
    word = porter_stem(token) if token.isascii() else token
    for suffix in ("ements", "ement", "ations", "ation", "iones", "ions", "ion", "mente", "ungen", "ung",
                   "oes", "ao", "aes", "es", "os", "as", "en", "er", "e", "o", "a", "s"):  # fmt: skip
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=16_384)
def _content_tokens(text: str) -> tuple[str, ...]:
    result: list[str] = []
    for token in _tokens(text):
        if token in NUMBER_WORDS:
            result.append(NUMBER_WORDS[token])
        elif token not in STOP_WORDS and (len(token) > 1 or token.isdigit()):
            result.append(token)
    return tuple(result)


def content_tokens(text: str) -> list[str]:
    """Folded tokens that carry content: stop words dropped, number words turned into digits."""
    return list(_content_tokens(text))


#: Abbreviations whose dot ends no sentence ("our vet is Dr. Ruiz"). "No." and "Nr." abbreviate only before a
#: number, where no sentence is split anyway; before a word "no." ends one ("Todavía no. Mi pareja …").
_ABBREVIATIONS = word_set("dr dra mr mrs ms mx prof sr sra sres st vs etc eg ie approx dept jr")


@lru_cache(maxsize=8_192)
def _sentences(text: str) -> tuple[str, ...]:
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        before = text[start : match.start()].rstrip()
        last_word = before.rsplit(None, 1)[-1].rstrip(".").lower() if before.split() else ""
        if before.endswith(".") and (
            last_word in _ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha())
        ):
            continue  # "Dr. Ruiz", "J. Smith": the dot belongs to the word
        if before.endswith(".") and last_word.isdigit() and _GERMAN_MONTH.match(text, match.end()):
            continue  # "am 3. Februar": a German ordinal date, not the end of a sentence
        if before.endswith(".") and last_word.isdigit() and text[match.end() : match.end() + 1].islower():
            continue  # "auf den 22. bis 28. August": an ordinal before a lowercase word ends no sentence
        pieces.append(text[start : match.start()])
        start = match.end()
    pieces.append(text[start:])
    return tuple(piece.strip() for piece in pieces if piece.strip())


def sentences(text: str) -> list[str]:
    """Sentences of a turn (split on end punctuation followed by a capital or a new line), stripped, non-empty."""
    return list(_sentences(text))


_DIACRITIC = re.compile(r"[à-öø-ÿÀ-ÖØ-Þœß]")
#: Letters and marks that point at languages, with their weight: "¿", "ñ" are Spanish, "ã", "õ" Portuguese, "ß"
#: German, "œ", "ù", "è" French; letters several languages share give each a little.
_LETTER_EVIDENCE: dict[str, dict[str, int]] = {
    "¿": {"es": 3}, "¡": {"es": 3}, "ñ": {"es": 3},
    "ã": {"pt": 3}, "õ": {"pt": 3}, "â": {"pt": 1, "fr": 1}, "ê": {"pt": 1, "fr": 1}, "ô": {"pt": 1, "fr": 1},
    "ç": {"pt": 1, "fr": 1}, "à": {"pt": 1, "fr": 1},
    "á": {"es": 1, "pt": 1}, "í": {"es": 1, "pt": 1}, "ó": {"es": 1, "pt": 1}, "ú": {"es": 1, "pt": 1},
    "é": {"es": 1, "pt": 1, "fr": 1},
    "è": {"fr": 2}, "ù": {"fr": 3}, "œ": {"fr": 3}, "î": {"fr": 2}, "ï": {"fr": 2}, "û": {"fr": 2}, "ë": {"fr": 1},
    "ß": {"de": 3}, "ä": {"de": 2}, "ö": {"de": 2}, "ü": {"de": 2},
}  # fmt: skip
#: An own stop word (used by one language only) weighs this much more than one several languages share.
_OWN_WEIGHT = 3
#: How far the letter and shared-word evidence must put one language ahead of the next to decide.
_MARGIN = 2


@lru_cache(maxsize=4_096)
def detect_language(text: str, default: str = "en") -> str:
    """The language (of LANGUAGES) whose own stop words cover the most tokens. Without such evidence (none, or a
    tie), the letters that mark a language ("¿", "ñ", "ã", "ß", "œ") and the stop words it shares with others
    decide when they point at one language by a clear margin; else `default`."""
    found = _tokens(text)
    own_scores = {lang: sum(1 for t in found if t in _OWN_STOP[lang]) for lang in LANGUAGES}
    best_own = max(own_scores.values())
    own_leaders = [lang for lang in LANGUAGES if own_scores[lang] == best_own]
    if best_own > 0 and len(own_leaders) == 1 and not (own_leaders[0] == "en" and _DIACRITIC.search(text)):
        return own_leaders[0]
    scores = {lang: _OWN_WEIGHT * own_scores[lang] for lang in LANGUAGES}
    for lang in LANGUAGES:
        scores[lang] += sum(1 for t in found if t in _STOP[lang] and t not in _OWN_STOP[lang])
    for ch in text.lower():
        for lang, weight in _LETTER_EVIDENCE.get(ch, {}).items():
            scores[lang] += weight
    ranked = sorted(LANGUAGES, key=lambda lang: -scores[lang])
    if scores[ranked[0]] - scores[ranked[1]] >= _MARGIN:
        return ranked[0]
    if best_own > 0 and own_leaders[0] == "en" and len(own_leaders) == 1:
        # Folding makes "thé" the English "the": accented letters are evidence against English on a near tie.
        rival = max((lang for lang in LANGUAGES if lang != "en"), key=lambda lang: own_scores[lang])
        return rival if own_scores[rival] >= best_own else "en"
    return default


def normalized_key(text: str) -> frozenset[str]:
    """Stems of the content words: the dedup key within a session."""
    return frozenset(light_stem(t) for t in _content_tokens(text))


__all__ = [
    "LANGUAGES",
    "NEGATIONS",
    "NUMBER_WORDS",
    "SPEAKER_LABEL_MIN_TURNS",
    "STOP_WORDS",
    "content_tokens",
    "detect_language",
    "fold",
    "light_stem",
    "normalized_key",
    "prose",
    "sentences",
    "speaker_label",
    "tokens",
    "without_speaker_labels",
    "word_set",
    "words",
]
