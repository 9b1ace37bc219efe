"""Credential-shaped values: API keys, URL tokens, passwords, IBANs (mod-97) and card numbers (Luhn)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache

REDACTED = "[redacted]"

_KEY_PATTERNS = (
    re.compile(r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}"),
    re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}\b"),
    re.compile(r"\bglpat-[A-Za-z0-9_-]{16,}\b"),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),
    re.compile(r"\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"),
    # Credentials in a URL: query parameters and user:password@host.
    re.compile(
        r"[?&#](?:access_token|refresh_token|id_token|token|api_key|apikey|api-key|key|secret|client_secret|"
        r"password|passwd|pwd|auth|sig|signature|session|sessionid)=[^&\s#]{4,}",
        re.IGNORECASE,
    ),
    re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]+@", re.IGNORECASE),
)
# "my password is X" in the five languages: the value after the keyword and a linking verb or colon.
_PASSWORD = re.compile(
    r"\b(?:password|passwd|pwd|pw|passcode|pass phrase|passphrase|pin(?: code)?|mot de passe|mdp|code secret|"
    r"contrase[ñn]a|clave|passwort|kennwort|senha|api[ -]?key|secret key|token|"
    # Bank details that open an account like a password does: "account number is 41234567", "sort code: 20-45-77".
    r"(?:bank )?(?:account|acct) (?:number|no\.?|#)|sort code|routing number|n[úu]mero de (?:cuenta|conta)|"
    r"num[ée]ro de compte|kontonummer|bankleitzahl|\bnib|"
    # An access code guards a door or an account like a password does ("code d'accès", "lock-box code").
    r"(?:access|entry|door|gate|alarm|lock-?box|lock box|login|key ?safe|key box|safe|padlock|garage|wifi|wi-fi|"
    r"security|unlock|building) code|code d'acc[èe]s|code d'entr[ée]e|code du (?:portail|coffre|cadenas|garage)|"
    r"c[óo]digo de (?:acesso|acceso|entrada)|zugangscode|t[üu]rcode|"
    # The code of a door said the other way round: "the code for the gate", "el código de la alarma".
    r"code (?:for|of|to) (?:the |my |our )?(?:gate|door|front door|alarm|building|safe|lock-?box|garage|entrance|"
    r"padlock|key ?safe)|c[óo]digo (?:de la|del|da|do|de) (?:alarma|alarme|puerta|porta|portal|port[ãa]o|garaje|"
    r"garagem|caja fuerte|cofre|entrada)|code (?:de la|de l'|du|des) ?(?:porte|alarme|immeuble|portail|garage|coffre|"
    r"cadenas|interphone|entrée)|(?:alarm|tor|garagen|haus|safe)code|code (?:für|fürs|der|des) (?:die |das |den )?"
    r"(?:t[üu]r|tor|alarm|alarmanlage|haus|garage|safe))\b"
    # What it opens, up to four words: "the password of the hospital portal is", "mein Passwort fürs Fitnessstudio ist".
    r"(?:\s+(?:for|of|to|on|de|du|au|à|pour|para|del|al|f[üu]r|fürs|von|vom|zum|zur|do|da|no|na|ao|dans|en|bei|im|am)"
    r"(?:\s+[^\s:=]+){1,6}?)?"
    r"\s*(?:is|was|c'est|c’est|est|était|es|era|ist|war|é|era|:|=|->|→)\s*[\"'“«]?(?!\[redacted\])(?P<value>[^\s\"'”»]{3,})",
    re.IGNORECASE,
)
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b")
_CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")
_LONG_TOKEN = re.compile(r"(?<![\w/.-])[A-Za-z0-9_+/=-]{24,}(?![\w/.-])")
#: Shannon entropy (bits per character) above which a long mixed token reads as a key, not a word or a path.
ENTROPY_MIN_BITS = 3.6


def _iban_ok(candidate: str) -> bool:
    compact = candidate.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    moved = compact[4:] + compact[:4]
    digits = "".join(str(int(ch, 36)) for ch in moved)
    return int(digits) % 97 == 1


def _luhn_ok(candidate: str) -> bool:
    digits = [int(ch) for ch in candidate if ch.isdigit()]
    if not 13 <= len(digits) <= 19 or len(set(digits)) == 1:
        return False
    total = 0
    for position, digit in enumerate(reversed(digits)):
        if position % 2:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


def _entropy_bits(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _high_entropy(token: str) -> bool:
    """A long token mixing letters and digits with high entropy; pure hex (commit hashes) and words are not."""
    if re.fullmatch(r"[0-9a-fA-F]+", token) or token.isalpha() or token.isdigit():
        return False
    classes = sum(
        (any(c.islower() for c in token), any(c.isupper() for c in token), any(c.isdigit() for c in token))
    )
    return classes >= 2 and any(c.isdigit() for c in token) and _entropy_bits(token) >= ENTROPY_MIN_BITS


#: A credential named, then given after a colon a few words on ("my API key so you can check galleries: pxs_…"),
#: or an account number with no "number" ("account 71839254").
_NAMED_VALUE = re.compile(
    r"\b(?:password|passwort|kennwort|mot de passe|contrase[ñn]a|senha|api[ -]?key|keys?|cl[ée]s?|clave|schlüssel|"
    r"chave|token|secret|login|credentials?)\b[^:\n]{0,90}"
    r":\s*(?P<value>(?=\S*\d)(?=\S*[A-Za-z])[^\s\"'”»]{8,})|\b(?:account|compte|cuenta|conta|konto)\s+(?P<number>\d{6,12})\b",
    re.IGNORECASE,
)
#: A credential's keyword with its value close by, in the other shapes people type: a bare value ("password
#: Sunflower88", "Passwort lautet Sommer2023", "my pin's 4821", "Password - Moustache2019"), the value first
#: ("I use Summer2024! as my password") or a code with what it opens after it ("the code is 4512 for the key box").
#: The value holds a digit, so "password manager" or "the PIN is on the card" stays prose.
_CREDENTIAL = (
    r"(?:password|passwd|pwd|pw|pass(?=\s*:)|passcode|passphrase|pin|mot de passe|mdp|contrase[ñn]a|clave|passwort|"
    r"kennwort|senha|combination|combo|backup code|recovery code|recovery phrase|verification code|2fa code|"
    r"one-time code|otp|licen[cs]e key|product key|serial(?: number)?|cvv|cvc|security code)"
)
_NEAR_VALUE = re.compile(
    rf"\b{_CREDENTIAL}(?:'s|’s)?\s*(?:lautet|[-–—:]|is now|is|was|now)?\s*(?P<value>(?=[^\s\"'”»]*\d)[^\s\"'”»,;]{{3,}})"
    rf"|(?P<first>(?=[^\s\"'“«]*\d)(?=[^\s\"'“«]*[A-Za-z])[^\s\"'“«,;]{{4,}})\s+(?:as|is|for) (?:my|the|our) "
    rf"(?:\w+ ){{0,2}}?{_CREDENTIAL}\b"
    r"|\bcode (?:is|was|:)\s*(?P<code>\d{3,8}#?)(?=\s+(?:for|to|on|of)\b)",
    re.IGNORECASE,
)
#: A login pasted as "user / password" (or "user:password", "user, password") after a login word and a colon: the
#: pair is the credential ("the box office login so you can check: maeveg / Bookies4Nan!").
_LOGIN_PAIR = re.compile(
    r"\b(?:login|log-in|logins|credentials|sign-in|account details|identifiants?|accès|credenciales|acceso|"
    r"zugangsdaten|anmeldedaten|login-daten|credenciais|acesso|dados de acesso)\b[^:\n]{0,60}:\s*"
    r"(?P<pair>[^\s/:,]{2,}\s*(?:/|:|,)\s*[^\s\"'”»]{4,})"
    # Or said with a linking verb, the pair then joined by a slash or a colon and the password holding a digit or a
    # symbol ("Mein Login fürs Dienstplanportal ist gesine.k / Lok2026!", "my login is tom.h / Harbour22").
    r"|\b(?:login|log-in|logins|credentials|sign-in|identifiants?|credenciales|zugangsdaten|anmeldedaten|login-daten|"
    r"credenciais)\b[^:\n]{0,60}?\s(?:is|are|ist|sind|lautet|lauten|est|sont|c'est|es|son|é|são)\s+"
    r"(?P<pair2>[^\s/:,]{2,}\s*(?:/|:)\s*(?=[^\s\"'”»]*[\d!@#$%^&*])[^\s\"'”»]{4,})",
    re.IGNORECASE,
)
_IBAN_NAMED = re.compile(
    r"\b(?:IBAN|NIB|RIB|BIC|bank details|dados bancários|coordonnées bancaires|Bankverbindung)\b", re.I
)


def _spans(text: str) -> Iterator[tuple[int, int]]:
    for pattern in _KEY_PATTERNS:
        for match in pattern.finditer(text):
            yield match.span()
    for match in _PASSWORD.finditer(text):
        yield match.span("value")
    for match in _NAMED_VALUE.finditer(text):
        yield match.span("value") if match.group("value") else match.span("number")
    for match in _LOGIN_PAIR.finditer(text):
        yield match.span("pair") if match.group("pair") else match.span("pair2")
    for match in _NEAR_VALUE.finditer(text):
        yield match.span(next(g for g in ("value", "first", "code") if match.group(g)))
    for match in _IBAN.finditer(text):
        # An IBAN-shaped value the user calls an IBAN is one, whether or not its check digits are right.
        if _iban_ok(match.group()) or _IBAN_NAMED.search(text, max(0, match.start() - 60), match.start()):
            yield match.span()
    for match in _CARD.finditer(text):
        if _luhn_ok(match.group()):
            yield match.span()
    for match in _LONG_TOKEN.finditer(text):
        if _high_entropy(match.group()):
            yield match.span()


@lru_cache(maxsize=8_192)
def contains_secret(text: str) -> bool:
    """True when the text holds a credential-shaped value (key, URL token, password, IBAN, card number)."""
    return next(_spans(text), None) is not None


def redact_secrets(text: str) -> str:
    """The text with every credential-shaped value replaced by "[redacted]"."""
    spans = sorted(_spans(text))
    if not spans:
        return text
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    pieces: list[str] = []
    cursor = 0
    for start, end in merged:
        pieces.append(text[cursor:start])
        pieces.append(REDACTED)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


_ASKS_CREDENTIAL = re.compile(
    rf"\b(?:{_CREDENTIAL}|login|log-in|username|user name|(?:door|gate|alarm|access|entry|lock-?box|key ?safe|wi-?fi|security|building|garage) code|iban|card number|account number|sort code|token|"
    r"api key|mot de passe|identifiant|contraseña|usuario|zugangsdaten|benutzername|senha|utilizador)\b",
    re.IGNORECASE,
)


def asks_for_credential(assistant: str) -> bool:
    """Whether an assistant turn ends asking for a credential ("What's the wifi password?"): the reply is one."""
    tail = assistant.rstrip()[-200:]
    question = tail[max(tail.rfind(". "), tail.rfind("! ")) + 1 :]
    return tail.endswith("?") and bool(_ASKS_CREDENTIAL.search(question))


__all__ = ["REDACTED", "asks_for_credential", "contains_secret", "redact_secrets"]
