"""Block counts summed from line counts never under-count the real tokenizer: SmolLM2's (the default core model,
through a real inferd), on many blocks rendered as the read path renders them, in five languages, code and emoji."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from inferd.app import App, close_all, start
from inferd.client import InferenceClient
from inferd.config import for_tests
from memoryd.retrieval import blocks
from memoryd.retrieval.items import Section
from memoryd.retrieval.line_tokens import LineTokenCounter
from memoryd.retrieval.tokens import InferdTokenCounter
from servicekit.server import RunningServer

pytestmark = pytest.mark.model

TEXTS = [
    "I'm vegetarian and allergic to peanuts, so no satay please.",
    "Our Ledgerly beta ships on December 15 — actually it moved to December 18.",
    "I owe Priya the quarterly report by Wednesday at 9:30am (EST).",
    "Ich heiße Zoë, wohne in München und fahre jeden Tag 12,5 km mit dem Rad.",
    "Je m'appelle Zoé ; j'habite à Montréal depuis l'été dernier… et j'adore ça !",
    "Me mudé a Lisboa en marzo; ¿qué tal el clima en otoño? ¡Muy bien!",
    "Mudei-me para o Porto em 2021 e trabalho como enfermeira no hospital São João.",
    "我住在北京，喜欢吃饺子。下周三要交报告，别忘了提醒我。",
    "東京の会議は午後3時からです。",
    "def area(r: float) -> float:    return 3.14159 * r ** 2  # TODO: use math.pi",
    'const cfg = {"retries": 3, "url": "https://api.example.com/v2?q=1&x=y"}; // keep',
    "SELECT id, name FROM users WHERE created_at > '2024-01-01' ORDER BY id DESC LIMIT 10;",
    "emoji 🎉🙂👍🏽 and symbols ©®™ ± ≤ ≥ → ← ∞ and an en dash – there",
    "Call me at +1 (555) 010-9999 or 0049 89 1234567; v2.3.4 released 12/03/2025 at 14:05.",
    "   leading and trailing spaces and\ttabs   ",
    "a",
    "ok!!!???...",
    "'quoted' \"double\" `code` [brackets] {braces} <angle> /slashes\\ |pipes|",
    "x" * 300 + " a very long word then words " * 12,
]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InferenceClient]:
    home: Path = tmp_path_factory.mktemp("inferd-line-tokens")
    served: tuple[RunningServer, App] = start(for_tests(home, fake=False))
    c = InferenceClient(served[0].target, deadline_s=300)
    try:
        yield c
    finally:
        c.close()
        close_all(*served, grace_s=1)


def _lines(rng: random.Random, section: Section) -> list[str]:
    picked = rng.sample(TEXTS, rng.randint(1, 8))
    at = 1_700_000_000_000 + rng.randint(0, 10**10)
    if section is Section.TRANSCRIPT:
        return [blocks.transcript_line(at, rng.choice(["user", "assistant"]), t) for t in picked]
    if section is Section.EPISODES:
        return [blocks.episode_line(at, t, rng.sample(TEXTS, rng.randint(0, 1))) for t in picked]
    return [blocks.pinned_line(t) for t in picked]


def test_summed_block_counts_never_under_count_smollm2(client: InferenceClient) -> None:
    counter = LineTokenCounter(InferdTokenCounter(client, "", timeout_s=60.0))
    try:
        calibration = counter.calibration("")
        assert calibration is not None and calibration.is_additive
        rng = random.Random(17)
        rendered: list[str] = []
        for _ in range(300):
            section = rng.choice([Section.PINNED, Section.EPISODES, Section.TRANSCRIPT, Section.IDENTITY])
            lines = _lines(rng, Section.PINNED if section is Section.IDENTITY else section)
            overrides = rng.sample(TEXTS, rng.randint(0, 2))
            body = blocks.section_text(section, lines)
            rendered.append(blocks.render_block("7 December 2026", blocks.overrides_section(overrides), body))
            rendered += [line + "\n" for line in lines]
        assert counter.prefill([piece for text in rendered for piece in text.split("\n")]) is not None
        summed = counter.count(rendered)
        real = [n for i in range(0, len(rendered), 500) for n in client.count_tokens(rendered[i : i + 500])]
        assert counter.summed_texts >= 300  # the blocks were summed, not sent
        under = [(text, s, r) for text, s, r in zip(rendered, summed, real, strict=True) if s < r]
        assert under == []
        # The read path's lines hold no edge whitespace: for them the sum is the count itself.
        exact = sum(s == r for s, r in zip(summed, real, strict=True))
        assert exact == len(rendered)
    finally:
        counter.close()
