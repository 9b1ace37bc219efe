"""Memory planner: fill exactly one section under the token budget and report what was placed and dropped."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from memoryd.retrieval import blocks
from memoryd.retrieval.evidence import SectionEvidence
from memoryd.retrieval.filler import without_filler
from memoryd.retrieval.gate import fold
from memoryd.retrieval.items import IdentitySnapshot, ItemKind, ItemRef, MemoryHit, Section
from memoryd.retrieval.terms import query_terms, term_counts
from memoryd.retrieval.tokens import TokenCounter

#: Lines whose word sets overlap this much with a line already placed are dropped as near-duplicates.
NEAR_DUPLICATE_JACCARD = 0.85
#: The identity narrative is cut to fit only if at least this many tokens are left for it.
MIN_NARRATIVE_TOKENS = 12
_WORD = re.compile(r"\w+")
_DATE_PREFIX = re.compile(r"^- \[[^\]]*\] ")


@dataclass(frozen=True)
class Candidate:
    """One line the planner may place. rank orders the greedy fill; order_key orders the lines on display."""

    ref: ItemRef | None
    line: str
    rank: float
    order_key: int = 0
    is_truncatable: bool = False


class NotedHits(tuple[MemoryHit, ...]):
    """Search hits plus a note on how the search ran: "" normally, "fts_only:<why>" when it ran without vectors
    although vectors are configured (the query embedding was late or inferd is unavailable), and the section's
    retrieval evidence for the relevance gate when the search measured it (None otherwise)."""

    note: str
    evidence: SectionEvidence | None

    def __new__(
        cls, hits: Iterable[MemoryHit], note: str = "", evidence: SectionEvidence | None = None
    ) -> NotedHits:
        made = super().__new__(cls, hits)
        made.note = note
        made.evidence = evidence
        return made


@dataclass(frozen=True)
class Plan:
    """The planner's result: the section body ("" when nothing fits) and the bookkeeping for the response."""

    section: Section
    body: str
    placed: tuple[ItemRef, ...]
    considered: int
    dropped: int
    #: Counts of the texts `extra(body)` returned, taken in the same counting call that verified the body.
    extra_counts: tuple[int, ...] = ()
    #: How the section's search ran when it matters for the decision (NotedHits.note), else "".
    search_note: str = ""


class SectionSource(Protocol):
    """The storage the planner reads from and reports usage to."""

    def search(
        self, agent_id: str, scope: Section, query: str, limit: int, *, vector_timeout_s: float | None = None
    ) -> Sequence[MemoryHit]:
        """Hybrid search of one scope (pinned / episodes / transcript) of one agent, best first.

        vector_timeout_s caps the wait for the query embedding (None: the embedder's own cap). May return NotedHits.
        """
        ...

    def bump_pinned_usage(self, agent_id: str, fact_ids: Sequence[str], used_at_ms: int) -> None:
        """use_count += 1 and last_used = used_at_ms for exactly these pinned facts."""
        ...


def fetch_limit(section: Section, budget_tokens: int) -> int:
    """Rows to fetch: the reference topK for the budget, doubled to leave room for dedup and skips."""
    if section is Section.PINNED:
        top_k = min(max(budget_tokens // 60, 3), 15)
    elif section is Section.EPISODES:
        top_k = min(max(budget_tokens // 120, 2), 8)
    elif section is Section.TRANSCRIPT:
        # Turns are short and the evidence for a recall question is often just past the reference top 4: one turn
        # per ~130 tokens of budget (6 at 800) found the evidence for 81% of LoCoMo DEV questions against 74% with
        # the reference's 4, at 554 tokens mean; the budget still binds when turns are long.
        top_k = min(max(budget_tokens // 130, 2), 12)
    else:
        return 0
    return top_k * 2


def _relevance(hits: Sequence[MemoryHit]) -> list[float]:
    top = max((h.score for h in hits), default=0.0)
    if top <= 0:
        # No usable scores: keep the search order.
        n = len(hits)
        return [1.0 - i / max(n, 1) for i in range(n)]
    return [max(h.score, 0.0) / top for h in hits]


def hit_candidates(
    section: Section,
    hits: Sequence[MemoryHit],
    query: str,
    redact: Callable[[str], str] | None = None,
    is_stale: Callable[[str], bool] | None = None,
) -> list[Candidate]:
    """Lines for a searched section, ranked by relevance (and salience for pinned facts and episodes).

    redact (when given) rewrites transcript text before it is shown: the user's own words may hold a credential,
    which a block quotes only when the user asks for the literal turn. is_stale (when given) names rows that still
    state a value the user has since corrected; they are left out."""
    folded_query = fold(query)
    hits = without_filler(hits) if section is Section.TRANSCRIPT else hits  # assistant acknowledgements
    out: list[Candidate] = []
    for hit, rel in zip(hits, _relevance(hits), strict=True):
        if not hit.text.strip():
            continue
        if is_stale is not None and is_stale(hit.text):
            continue
        if section is Section.PINNED:
            out.append(Candidate(hit.ref, blocks.pinned_line(hit.text), 0.75 * rel + 0.25 * hit.salience))
        elif section is Section.EPISODES:
            line = blocks.episode_line(hit.occurred_at_ms, hit.text, hit.decisions)
            out.append(Candidate(hit.ref, line, 0.8 * rel + 0.2 * hit.salience, hit.occurred_at_ms))
        elif section is Section.TRANSCRIPT:
            if fold(hit.text) == folded_query:
                continue  # the question itself, already buffered: not a recollection
            text = redact(hit.text) if redact is not None else hit.text
            line = blocks.transcript_line(hit.occurred_at_ms, hit.role, text)
            out.append(Candidate(hit.ref, line, rel, hit.occurred_at_ms))
    return out


def with_shared_terms(hits: Sequence[MemoryHit], query: str) -> list[MemoryHit]:
    """Only hits that share a search term with the query (vector neighbours always exist, relevant or not)."""
    wanted = set(term_counts(" ".join(query_terms(query))))
    return [hit for hit in hits if wanted & set(term_counts(hit.text))] if wanted else []


def identity_candidates(identity: IdentitySnapshot) -> list[Candidate]:
    """The narrative first (cut to fit if needed), then auto facts by how many sessions support them."""
    out: list[Candidate] = []
    if identity.narrative.strip():
        out.append(Candidate(None, blocks.one_line(identity.narrative, 4000), 2.0, is_truncatable=True))
    facts = sorted(identity.facts, key=lambda f: -f.source_count)
    for i, fact in enumerate(facts):
        if fact.text.strip():
            ref = ItemRef(ItemKind.IDENTITY_FACT, fact.id)
            out.append(Candidate(ref, blocks.identity_fact_line(fact.text), 1.0 - i / (len(facts) + 1)))
    return out


def _words(line: str) -> frozenset[str]:
    return frozenset(_WORD.findall(fold(_DATE_PREFIX.sub("", line))))


def _is_near_duplicate(words: frozenset[str], placed: list[frozenset[str]]) -> bool:
    if not words:
        return False
    for other in placed:
        union = len(words | other)
        if union and len(words & other) / union >= NEAR_DUPLICATE_JACCARD:
            return True
    return False


def fit(
    section: Section,
    candidates: Sequence[Candidate],
    budget_tokens: int,
    counter: TokenCounter,
    frame: Callable[[str], str],
    extra: Callable[[str], Sequence[str]] | None = None,
) -> Plan:
    """Greedy fill by rank, skipping lines that do not fit, then verified on the rendered text.

    Guarantee: counter.count([frame(plan.body)])[0] <= budget_tokens, or plan.body == "". `extra(body)` names
    texts to count in the verifying call (saves a round trip to the tokenizer); empty when the body is "".
    """
    considered = len(candidates)
    ranked = sorted(candidates, key=lambda c: -c.rank)
    header_cost = counter.count([frame(blocks.section_text(section, [""]))])[0]
    if not ranked or header_cost >= budget_tokens:
        return Plan(section, "", (), considered, considered)
    lines = [c.line + "\n" for c in ranked]
    words_of = [_words(c.line) for c in ranked]
    # The body if every line fits is counted in the same call as the lines: when the budget does not bind, the
    # verifying count below then finds it cached (one tokenizer round trip instead of two); otherwise one text was
    # counted for nothing. What is chosen does not depend on it.
    likely = _body(section, _unbounded_choice(ranked, words_of))
    speculated = [frame(likely), *(extra(likely) if extra else ())]
    costs = counter.count([*lines, *speculated])[: len(lines)]
    used = header_cost
    chosen: list[Candidate] = []
    chosen_words: list[frozenset[str]] = []
    for cand, cost, words in zip(ranked, costs, words_of, strict=True):
        if _is_near_duplicate(words, chosen_words):
            continue
        if used + cost <= budget_tokens:
            chosen.append(cand)
            chosen_words.append(words)
            used += cost
        elif cand.is_truncatable and budget_tokens - used >= MIN_NARRATIVE_TOKENS:
            cut = _cut_to_fit(cand, budget_tokens - used, cost, counter)
            if cut is not None:
                chosen.append(cut)
                chosen_words.append(words)
                used += counter.count([cut.line + "\n"])[0]
    # Token counts of parts need not add up to the count of the whole; drop the weakest lines until it fits.
    extra_counts: tuple[int, ...] = ()
    while chosen:
        body = _body(section, chosen)
        counts = counter.count([frame(body), *(extra(body) if extra else ())])
        if counts[0] <= budget_tokens:
            extra_counts = tuple(counts[1:])
            break
        chosen.pop()
    body = _body(section, chosen)
    placed = tuple(c.ref for c in chosen if c.ref is not None)
    return Plan(section, body, placed, considered, considered - len(chosen), extra_counts)


def _unbounded_choice(ranked: Sequence[Candidate], words_of: Sequence[frozenset[str]]) -> list[Candidate]:
    """What fit() chooses when every line fits its budget: the candidates in rank order, near-duplicates left out."""
    chosen: list[Candidate] = []
    chosen_words: list[frozenset[str]] = []
    for cand, words in zip(ranked, words_of, strict=True):
        if not _is_near_duplicate(words, chosen_words):
            chosen.append(cand)
            chosen_words.append(words)
    return chosen


def _cut_to_fit(cand: Candidate, tokens_left: int, full_cost: int, counter: TokenCounter) -> Candidate | None:
    """The longest cut of a truncatable line that fits tokens_left (a few shrinking tries)."""
    chars = int(len(cand.line) * tokens_left / max(full_cost, 1))
    for _ in range(8):
        if chars < 24:
            return None
        line = blocks.cut(cand.line, chars)
        if counter.count([line + "\n"])[0] <= tokens_left:
            return Candidate(cand.ref, line, cand.rank, cand.order_key)
        chars = int(chars * 0.85)
    return None


def _chronological(cand: Candidate) -> tuple[int, int]:
    """When a line was said, then its row id: turns of one millisecond keep the order they were stored in, on every
    backend (a tie left to the rank would follow each backend's own scores)."""
    row = cand.ref.id if cand.ref is not None else ""
    return cand.order_key, int(row) if row.isdigit() else 0


def _body(section: Section, chosen: Sequence[Candidate]) -> str:
    if section in (Section.EPISODES, Section.TRANSCRIPT):
        shown = sorted(chosen, key=_chronological)  # chronological reads best
    else:
        shown = list(chosen)
    return blocks.section_text(section, [c.line for c in shown])


class Planner:
    """Fetches the chosen section, fits it under the budget, and bumps usage of the pinned facts it placed."""

    def __init__(self, source: SectionSource, counter: TokenCounter, now_ms: Callable[[], int]) -> None:
        self._source = source
        self._counter = counter
        self._now_ms = now_ms

    def plan(
        self,
        agent_id: str,
        section: Section,
        query: str,
        budget_tokens: int,
        frame: Callable[[str], str],
        identity: IdentitySnapshot | None = None,
        extra: Callable[[str], Sequence[str]] | None = None,
        *,
        is_usage_recorded: bool = True,
        vector_timeout_s: float | None = None,
        require_shared_term: bool = False,
        searched: Sequence[MemoryHit] | None = None,
        redact: Callable[[str], str] | None = None,
        is_stale: Callable[[str], bool] | None = None,
    ) -> Plan:
        """One section's body under budget_tokens, counting the frame that will surround it.

        Pinned facts placed in the body get their usage bumped unless is_usage_recorded is False (previews).
        vector_timeout_s: how long the search may wait for the query embedding (None: the embedder's default).
        require_shared_term: keep only hits sharing a word with the query (a fallback section must show evidence).
        searched: the section's search results when the caller already searched (the gate's evidence pass), so the
        section is not searched twice.
        redact: applied to transcript text before it becomes a line (credentials, unless the literal turn is asked).
        is_stale: rows for which it is true (they state a corrected value) are left out.
        """
        if section is Section.NONE:
            return Plan(section, "", (), 0, 0)
        note = ""
        hits: Sequence[MemoryHit] = ()
        if section is Section.IDENTITY:
            candidates = identity_candidates(identity or IdentitySnapshot())
        else:
            limit = fetch_limit(section, budget_tokens)
            if searched is not None:
                hits = searched
            elif vector_timeout_s is None:
                hits = self._source.search(agent_id, section, query, limit)
            else:
                hits = self._source.search(agent_id, section, query, limit, vector_timeout_s=vector_timeout_s)
            note = hits.note if isinstance(hits, NotedHits) else ""
            usable = with_shared_terms(hits, query) if require_shared_term else hits
            candidates = hit_candidates(section, usable, query, redact, is_stale)
        plan = fit(section, candidates, budget_tokens, self._counter, frame, extra)
        if note:
            plan = replace(plan, search_note=note)
        if section is not Section.IDENTITY and len(hits) != plan.considered:
            # Rows skipped before ranking (empty, the query itself) count as considered and dropped.
            skipped = len(hits) - plan.considered
            plan = replace(plan, considered=len(hits), dropped=plan.dropped + skipped)
        if section is Section.PINNED and plan.placed and is_usage_recorded:
            ids = [ref.id for ref in plan.placed if ref.kind is ItemKind.PINNED_FACT]
            self._source.bump_pinned_usage(agent_id, ids, self._now_ms())
        return plan


__all__ = [
    "Candidate",
    "NotedHits",
    "Plan",
    "Planner",
    "SectionSource",
    "fetch_limit",
    "fit",
    "hit_candidates",
    "identity_candidates",
    "with_shared_terms",
]
