"""Token counts of a block from its lines' counts: the block's CountTokens round trip off the request path.

A block is lines joined by newlines (`retrieval/blocks.py`: the frame, the date, the overrides, a header and one
line per row, none starting or ending with whitespace). With a byte-level BPE tokenizer that splits text at such a
newline before applying its merges (GPT-2's pre-tokenizer and the ones built on it, SmolLM2's among them), the count
of the whole is the sum of its lines' counts plus one newline's count per newline. So once each line's count is
known, a block is counted without asking inferd.

Line counts are learnt from every CountTokens answer and filled ahead of time for stored rows
(`read/line_token_filler.py`), keyed by the model inferd says counted them (CountTokensResponse.model, which the
configured core model resolves to) and the line's text (its 64-bit hash: a collision between two different lines
is ~3e-10 likely at 100k lines, and would misstate one line's count). Nothing is assumed about a tokenizer:

- per model, one calibration call counts varied lines (five languages, code, emoji, dates, punctuation at the end)
  and their joins; the shortcut is used only if no join counts more than the sum of its parts (`calibrate`);
- a sample of the blocks answered by the sum are counted by inferd afterwards, on a helper thread, off the request
  path; a block that counts more than its sum turns the shortcut off for that model (logged, never again used);
- a text with any line not known yet, or any text while inferd is down, goes to the wrapped InferdTokenCounter (one
  round trip, or its estimate), whose answer for single lines is learnt.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from memoryd.retrieval.tokens import InferdTokenCounter

_log = logging.getLogger("memoryd.retrieval.line_tokens")

NEWLINE = "\n"
#: Lines learnt per model at most (81 bytes each measured: 9.4 MB for bench_assemble's 116k rows, ~32 MB at the
#: cap); beyond it, new lines are counted by inferd as before.
MAX_LINES = 400_000
#: The first this many blocks answered by the sum are checked against inferd's count, then one in VERIFY_EVERY (0:
#: none after the first). Each check is a CountTokens call beside the next request: few, since the calibration
#: already covers the shapes a block takes (SmolLM2: 1,615 blocks and lines summed exactly, test_line_tokens_model).
VERIFY_FIRST = 8
VERIFY_EVERY = 64
#: Lines per CountTokens call when prefilling (inferd takes at most 1,024 texts a call).
PREFILL_TEXTS = 512

#: Lines in the shapes blocks.py renders, and the kinds of text rows hold. calibrate() counts each, and each join
#: of CALIBRATION_JOINS.
CALIBRATION_LINES: tuple[str, ...] = (
    "[Memory]",
    "[/Memory]",
    "Current date: 7 December 2026",
    "## What I should always remember",
    "## Things I remember",
    "## What we discussed before",
    "## Earlier in our chats",
    "## About you",
    "- [2026-05-01, user] I'm allergic to peanuts, so no satay please…",
    "- [2026-05-02, assistant] Noted: the beta ships on 15 December (decision: ship on Monday)",
    "- Ich heiße Zoë und wohne seit 2019 in München.",
    "- Je m'appelle Zoé ; j'habite à Montréal depuis l'été dernier.",
    "- Me mudé a Lisboa en marzo; ¿qué tal el clima?",
    "- 我住在北京，喜欢吃饺子。下周三交报告。",
    "- def area(r: float) -> float: return 3.14159 * r ** 2  # TODO(bob): use math.pi",
    '- {"key": [1, 2, 3], "ok": true} <tag attr="x">&amp;</tag> C:\\path\\file.txt',
    "- emoji 🎉🙂 and an en dash – and an em dash —",
    "- 1234567890 +1 (555) 010-9999 v2.3.4 12:30pm 3.5%",
    "- ends with punctuation!?.",
    "- 'quoted' \"double\" `code` ...",
    "- x",
)
#: Index tuples into CALIBRATION_LINES; -1 stands for an empty line (a blank line between block parts).
CALIBRATION_JOINS: tuple[tuple[int, ...], ...] = (
    (0, 2, -1, 3, 8, -1, 4, 9, 10, 11, -1, 1),
    (0, 2, -1, 5, 12, 13, 14, 15, -1, 1),
    (0, 2, -1, 6, 16, 17, 18, 19, 20, -1, 1),
    (0, 2, -1, 7, 8, 9, -1, 1),
    (8, 9),
    (13, 14),
    (14, 15),
    (16, 17),
    (18, 19),
    (19, 20),
    (15, 16),
    (10, -1, 11),
    (20, -1, -1, 20),
    (8, -1),
    (-1, 8),
)


@dataclass(frozen=True)
class Calibration:
    """What calibrate() found for one model: whether sums may be used, and one newline's count."""

    is_additive: bool
    newline_tokens: int = 0
    #: Every join counted exactly its sum (else some counted less: the sum over-counts them, never under-counts).
    is_exact: bool = False


def calibrate(counts: Callable[[list[str]], list[int] | None]) -> Calibration | None:
    """Count CALIBRATION_LINES, a newline and their joins in one call; None when the call failed."""
    joins = [
        NEWLINE.join("" if i < 0 else CALIBRATION_LINES[i] for i in indices) for indices in CALIBRATION_JOINS
    ]
    texts = [*CALIBRATION_LINES, NEWLINE, *joins]
    answer = counts(texts)
    if answer is None or len(answer) != len(texts):
        return None
    by_line = dict(zip(CALIBRATION_LINES, answer, strict=False))
    newline = answer[len(CALIBRATION_LINES)]
    is_exact = True
    for indices, join, real in zip(
        CALIBRATION_JOINS, joins, answer[len(CALIBRATION_LINES) + 1 :], strict=True
    ):
        total = sum(by_line[CALIBRATION_LINES[i]] for i in indices if i >= 0) + newline * (len(indices) - 1)
        if real > total:
            _log.info("token counts of joined lines exceed the sum of their parts: block counts go to inferd")
            return Calibration(is_additive=False)
        is_exact = is_exact and real == total and bool(join)
    return Calibration(is_additive=True, newline_tokens=newline, is_exact=is_exact)


class LineTokenCounter:
    """A TokenCounter answering multi-line texts from their lines' known counts (see the module docstring).

    Counts are kept per counting model as inferd names it (`count_exact`): the configured core model ("" = inferd's
    default) maps to the model that answered its calibration; a later answer naming another model (inferd restarted
    with another default) drops the mapping, so the next count calibrates and learns under the new name.
    """

    def __init__(
        self,
        inner: InferdTokenCounter,
        *,
        max_lines: int = MAX_LINES,
        verify_first: int = VERIFY_FIRST,
        verify_every: int = VERIFY_EVERY,
    ) -> None:
        self._inner = inner
        self._max_lines = max_lines
        self._verify_first = verify_first
        self._verify_every = verify_every
        self._lock = threading.Lock()
        #: Configured model → the model inferd said counted for it.
        self._counted_by: dict[str, str] = {}
        #: Per counting model: line hash → tokens, its calibration, and how many texts were summed.
        self._lines: dict[str, dict[int, int]] = {}
        self._calibrations: dict[str, Calibration] = {}
        self._summed: dict[str, int] = {}
        self._verifying = False
        self._calibrated_callbacks: list[Callable[[], None]] = []
        self._verifier = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memoryd-token-verify")
        self._last_source = "estimate"
        #: Blocks answered by a sum, and sums found short (both since start; tests and benchmarks read them).
        self.summed_texts = 0
        self.short_sums = 0

    @property
    def source(self) -> str:
        """ "model:<name>" when the last count came from the model's tokenizer (directly or summed), else "estimate"."""
        return self._last_source

    @property
    def model(self) -> str:
        """The model the wrapped counter asks for now (configured; "" = inferd's default)."""
        return self._inner.model

    def close(self) -> None:
        """Stop the verifying thread (a pending check is dropped)."""
        self._verifier.shutdown(wait=True, cancel_futures=True)

    def calibration(self, model: str) -> Calibration | None:
        """The calibration of the model counting for `model` (configured), made now (one CountTokens call) when
        there is none yet; None while inferd fails."""
        found = self._calibrated(model)
        return None if found is None else found[1]

    def on_calibrated(self, callback: Callable[[], None]) -> None:
        """Call `callback` after each new calibration (the filler starts then: the model is loaded)."""
        self._calibrated_callbacks.append(callback)

    def _calibrated(self, model: str, *, only_if_resident: bool = False) -> tuple[str, Calibration] | None:
        """(counting model, its calibration) for the configured `model`, calibrating it first if needed
        (only_if_resident: not when that would load the model)."""
        with self._lock:
            counted_by = self._counted_by.get(model)
            found = self._calibrations.get(counted_by) if counted_by is not None else None
        if counted_by is not None and found is not None:
            return counted_by, found
        reported: list[str] = []

        def counts(texts: list[str]) -> list[int] | None:
            answer = self._inner.count_exact(texts, model, only_if_resident=only_if_resident)
            if answer is None:
                return None
            reported.append(answer[1])
            return answer[0]

        made = calibrate(counts)
        if made is None:
            return None
        with self._lock:
            self._counted_by[model] = reported[0]
            made = self._calibrations.setdefault(reported[0], made)
            # Counts of a model nothing counts with any more are dropped.
            self._lines = {key: held for key, held in self._lines.items() if key in self._counted_by.values()}
        for callback in self._calibrated_callbacks:
            callback()
        return reported[0], made

    def _answered_by(self, model: str, counted_by: str, reported: str) -> bool:
        """True when inferd's answer came from the model the counts are kept under; else forget the mapping."""
        if reported == counted_by:
            return True
        with self._lock:
            if self._counted_by.get(model) == counted_by:
                del self._counted_by[model]
        _log.info("the token-counting model changed: line counts are learnt again")
        return False

    def known_lines(self, model: str) -> int:
        """How many line counts are held for the configured `model` (0 before its calibration)."""
        with self._lock:
            return (
                len(self._lines.get(self._counted_by.get(model, ""), {})) if model in self._counted_by else 0
            )

    def unknown(self, model: str, lines: Sequence[str]) -> list[str]:
        """The lines (distinct, in order) whose count is not held for the configured `model`."""
        with self._lock:
            held = self._lines.get(self._counted_by.get(model, ""), {}) if model in self._counted_by else {}
            return [line for line in dict.fromkeys(lines) if line and hash(line) not in held]

    def _learn(self, counted_by: str, lines: Sequence[str], counts: Sequence[int]) -> None:
        """Hold these lines' counts (texts without a newline; others are ignored) under the counting model."""
        with self._lock:
            held = self._lines.setdefault(counted_by, {})
            for line, n in zip(lines, counts, strict=True):
                if NEWLINE not in line and len(held) < self._max_lines:
                    held[hash(line)] = n

    def prefill(self, lines: Sequence[str]) -> int | None:
        """Count the lines not held yet, PREFILL_TEXTS per CountTokens call (the filler, off the request path); how
        many were learnt, or None when inferd failed, the model is not loaded (it is never loaded for this), the
        counting model changed or its counts cannot be summed."""
        model = self._inner.model
        calibrated = self._calibrated(model, only_if_resident=True)
        if calibrated is None or not calibrated[1].is_additive:
            return None
        counted_by = calibrated[0]
        missing = self.unknown(model, [line for line in lines if NEWLINE not in line])
        for start in range(0, len(missing), PREFILL_TEXTS):
            chunk = missing[start : start + PREFILL_TEXTS]
            answer = self._inner.count_exact(chunk, model, only_if_resident=True)
            if answer is None or not self._answered_by(model, counted_by, answer[1]):
                return None
            self._learn(counted_by, chunk, answer[0])
        return len(missing)

    def count(self, texts: Sequence[str]) -> list[int]:
        """Token counts in input order: sums of known line counts where possible, else the wrapped counter's."""
        model = self._inner.model
        calibrated = self._calibrated(model)
        if calibrated is None or not calibrated[1].is_additive:
            counts = self._inner.count(texts)
            self._last_source = self._inner.source
            return counts
        counted_by, calibration = calibrated
        pieces = [text.split(NEWLINE) if text else [] for text in texts]
        missing = self.unknown(model, [piece for split in pieces for piece in split])
        fetched: dict[int, int] = {}
        if missing:
            counted = self._inner.count(missing)
            if not self._inner.source.startswith(
                "model:"
            ):  # inferd failed: its estimate, for the whole texts
                counts = self._inner.count(texts)
                self._last_source = self._inner.source
                return counts
            self._learn(counted_by, missing, counted)
            fetched = {hash(line): n for line, n in zip(missing, counted, strict=True)}
        with self._lock:
            held = self._lines.get(counted_by, {})
            sums = [
                sum(held[key] if key in held else fetched[key] for key in (hash(p) for p in split if p))
                + calibration.newline_tokens * max(len(split) - 1, 0)
                for split in pieces
            ]
        self._last_source = f"model:{model or 'default'}"
        summed = [(t, n) for t, n, p in zip(texts, sums, pieces, strict=True) if len(p) > 1]
        self._maybe_verify(model, counted_by, summed)
        return sums

    def _maybe_verify(self, model: str, counted_by: str, summed: list[tuple[str, int]]) -> None:
        """Have inferd count a sample of the summed texts after this request (one check at a time)."""
        if not summed:
            return
        with self._lock:
            self.summed_texts += len(summed)
            seen = self._summed.get(counted_by, 0)
            self._summed[counted_by] = seen + 1
            sampled = seen < self._verify_first or (self._verify_every > 0 and seen % self._verify_every == 0)
            if self._verifying or not sampled:
                return
            self._verifying = True
        try:
            self._verifier.submit(self._verify, model, counted_by, summed)
        except RuntimeError:  # closing
            with self._lock:
                self._verifying = False

    def _verify(self, model: str, counted_by: str, summed: list[tuple[str, int]]) -> None:
        try:
            answer = self._inner.count_exact([text for text, _ in summed], model, only_if_resident=True)
            if answer is None or not self._answered_by(model, counted_by, answer[1]):
                return
            short = sum(n > total for n, (_, total) in zip(answer[0], summed, strict=True))
            if short:
                with self._lock:
                    self.short_sums += short
                    self._calibrations[counted_by] = Calibration(is_additive=False)
                _log.warning(
                    "%d block(s) counted more tokens than the sum of their lines: block counts go to inferd",
                    short,
                )
        finally:
            with self._lock:
                self._verifying = False


__all__ = ["CALIBRATION_LINES", "Calibration", "LineTokenCounter", "calibrate"]
