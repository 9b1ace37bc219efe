"""Scoring of grounded distillation against the frozen labelled set (bench/distill_set): matcher, item checks, figures.

Pure functions over plain data, no gRPC: bench/bench_distill.py turns what memoryd stored into `StoredItem`s and
calls `score_agent` per simulated user. The matching rule is the one bench/distill_set/README.md documents.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.distill_truth import true_to_transcript

SET_PATH = Path(__file__).resolve().parent / "distill_set" / "sessions.jsonl"

#: Kinds of stored item the bench reads from an Export.
PINNED = "pinned_fact"
IDENTITY_FACT = "identity_fact"
NARRATIVE = "identity_narrative"
SUMMARY = "episode_summary"
DECISION = "decision"
ACTION = "action_item"
ENTITY = "entity"
#: Precision is judged on the standing facts a user sees injected: pinned and identity facts.
PRECISION_KINDS = frozenset({PINNED, IDENTITY_FACT})
#: A labelled fact counts as yielded when one of these holds it (the brief: pinned, identity, decision, action).
RECALL_KINDS = frozenset({PINNED, IDENTITY_FACT, DECISION, ACTION})
#: Where a stale fact must no longer be active: the standing facts and the narrative built from them.
STANDING_KINDS = frozenset({PINNED, IDENTITY_FACT, NARRATIVE})
#: Headers of the distillation prompt (memoryd/write/phrase.py, and the older build_prompt it replaced); any of them in a stored item is
#: copied scaffolding, not something the user said.
SCAFFOLDING = (
    "Conversation date:",
    "Recent past sessions",
    "Conversation turns",
    "What we already know",
    "Distill this session",
)
COPY_SPAN_WORDS = 8
LOOP_NGRAM_WORDS = 4
SHORT_PATTERN_CHARS = 3
WHYS = ("assistant_guess", "hypothetical", "third_party", "small_talk", "secret")

_WORDS = re.compile(r"\w+", re.UNICODE)
_SPACE = re.compile(r"\s+")


# ------------------------------------------------------------------------------------------------------ the set
@dataclass(frozen=True)
class Fact:
    """A labelled fact of one session (`about` is identity, preference, instruction, relation, plan, …)."""

    id: str
    about: str
    match: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class MustNot:
    """Something that must never reach derived memory, and why."""

    why: str
    match: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Supersession:
    """`stale` (a fact id of an earlier session) is corrected by `by` (a fact id of this session)."""

    stale: str
    by: str


@dataclass(frozen=True)
class Session:
    """One labelled session of the set."""

    id: str
    split: str
    agent_id: str
    lang: str
    date: str
    turns: tuple[tuple[str, str], ...]
    facts: tuple[Fact, ...]
    allowed: tuple[tuple[tuple[str, ...], ...], ...]
    supersedes: tuple[Supersession, ...]
    must_not: tuple[MustNot, ...]


def _groups(raw: Sequence[Sequence[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(str(word) for word in group) for group in raw)


def parse_session(row: dict[str, object]) -> Session:
    """One JSON line of sessions.jsonl → Session."""
    turns = row["turns"]
    facts = row.get("facts", [])
    allowed = row.get("allowed", [])
    supersedes = row.get("supersedes", [])
    must_not = row.get("must_not", [])
    assert isinstance(turns, list) and isinstance(facts, list) and isinstance(allowed, list)
    assert isinstance(supersedes, list) and isinstance(must_not, list)
    return Session(
        id=str(row["id"]),
        split=str(row["split"]),
        agent_id=str(row["agent_id"]),
        lang=str(row["lang"]),
        date=str(row["date"]),
        turns=tuple((str(t["user"]), str(t["assistant"])) for t in turns),
        facts=tuple(Fact(str(f["id"]), str(f["about"]), _groups(f["match"])) for f in facts),
        allowed=tuple(_groups(a["match"]) for a in allowed),
        supersedes=tuple(Supersession(str(s["stale_fact"]), str(s["by"])) for s in supersedes),
        must_not=tuple(MustNot(str(m["why"]), _groups(m["match"])) for m in must_not),
    )


def load_set(path: Path = SET_PATH, split: str = "test") -> list[Session]:
    """Sessions of one split ("dev", "test" or "all"), in file order (by agent, then date)."""
    sessions = [
        parse_session(json.loads(line)) for line in path.read_text("utf-8").splitlines() if line.strip()
    ]
    return [s for s in sessions if split == "all" or s.split == split]


def by_agent(sessions: Iterable[Session]) -> dict[str, list[Session]]:
    """agent_id → its sessions in date order."""
    grouped: dict[str, list[Session]] = {}
    for session in sessions:
        grouped.setdefault(session.agent_id, []).append(session)
    return {agent: sorted(rows, key=lambda s: s.date) for agent, rows in grouped.items()}


# ------------------------------------------------------------------------------------------------------ matcher
def fold(text: str) -> str:
    """NFKD, casefold, combining marks removed: "Lucía" → "lucia", "STRASSE" → "strasse"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _compact(text: str) -> str:
    return _SPACE.sub("", text)


def occurs(pattern: str, folded_text: str) -> bool:
    """`pattern` (folded) starts at a word start in `folded_text`; a pattern of ≤ 3 chars must also end a word."""
    if not pattern:
        return False
    start = folded_text.find(pattern)
    while start >= 0:
        end = start + len(pattern)
        starts_word = start == 0 or not folded_text[start - 1].isalnum()
        ends_word = end == len(folded_text) or not folded_text[end].isalnum()
        if starts_word and (len(pattern) > SHORT_PATTERN_CHARS or ends_word):
            return True
        start = folded_text.find(pattern, start + 1)
    return False


def matches(groups: Sequence[Sequence[str]], text: str, *, secret: bool = False) -> bool:
    """Every group has one pattern that occurs in the folded text (secrets: also with whitespace removed)."""
    if not groups:
        return False
    folded = fold(text)
    compact = _compact(folded)
    for group in groups:
        hit = False
        for raw in group:
            pattern = fold(raw)
            if occurs(pattern, folded) or (secret and _compact(pattern) in compact):
                hit = True
                break
        if not hit:
            return False
    return True


# ------------------------------------------------------------------------------------------------ item checks
@dataclass(frozen=True)
class StoredItem:
    """One piece of derived memory as read back from memoryd (text in clear, from Export)."""

    kind: str
    row_id: str
    agent_id: str
    text: str
    active: bool
    #: When the session it came from happened (the episode's conversation time), 0 when unknown.
    session_at_ms: int = 0
    conversation_id: str = ""


def words(text: str) -> list[str]:
    """Folded word tokens."""
    return _WORDS.findall(fold(text))


def copied_scaffolding(text: str) -> str | None:
    """The prompt header the text contains as a run of words (punctuation and spacing ignored), if any."""
    tokens = words(text)
    for header in SCAFFOLDING:
        wanted = tuple(words(header))
        if wanted in ngrams(tokens, len(wanted)):
            return header
    return None


def ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    """Consecutive n-word windows."""
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def copied_span(
    text: str,
    earlier_summaries: Iterable[str],
    span: int = COPY_SPAN_WORDS,
    own_turns: Sequence[str] | None = None,
) -> bool:
    """Whether the text repeats a `span`-word run of an earlier episode summary that the item's own session does
    not account for.

    `own_turns`: the user's turns of the item's own session (None: the rule before 2026-12-07, any shared run
    counts). A shared run is the user saying it again, not a copy, when every word of it that is neither short
    (three letters or fewer: articles, pronouns, auxiliaries) nor one of the memory's frame words (FRAME_WORDS: "the
    user", "Décision de l'utilisateur :") occurs in those turns, in any inflection (a common start of all but its
    last two letters: "runs" / "run", "décidé" / "décidée"). See bench/distill_set/README.md."""
    mine = set(ngrams(words(text), span))
    if not mine:
        return False
    said = None if own_turns is None else {w for turn in own_turns for w in words(turn)}
    for summary in earlier_summaries:
        for run in mine.intersection(ngrams(words(summary), span)):
            if said is None or not said_again(run, said):
                return True
    return False


#: Words the memory's own fact and summary frames add about the user, in the five languages (folded): "The user …",
#: "Décision de l'utilisateur : …", "Standing instruction from the user: …". A run made of these and of the user's
#: own words of the session is the memory restating what the user said again, not text copied from the prompt.
_FRAME = (
    "user users utilisateur utilisateurs utilisatrice usuario usuaria usuarios nutzer nutzers nutzerin "
    "utilizador utilizadora decision decisao entscheidung decided instruction consigne instruccion anweisung "
    "instrucao permanente standing standige prevu planejado geplant plan reminded rappel demande recordatorio "
    "pedido erinnerung lembrete goal objectif objetivo ziel tarea aufgabe tarefa faire needs asked wants"
)
FRAME_WORDS = frozenset(_FRAME.split())
#: Words this short are function words in the five languages ("the", "de", "j", "ai", "que", "ist").
_SHORT_WORD = 3


def said_again(run: Sequence[str], said: set[str]) -> bool:
    """Whether every word of a run that is not short and not a frame word occurs in `said`, in any inflection."""
    for word in run:
        if len(word) <= _SHORT_WORD or word in FRAME_WORDS or word in said:
            continue
        stem = word[: max(_SHORT_WORD, len(word) - 2)]
        if not any(other.startswith(stem) and abs(len(other) - len(word)) <= 2 for other in said):
            return False
    return True


def is_looping(text: str, n: int = LOOP_NGRAM_WORDS) -> bool:
    """Whether some word n-gram occurs twice (a generation loop: "I'm 12 years old. I'm 12 years old")."""
    seen: set[tuple[str, ...]] = set()
    for gram in ngrams(words(text), n):
        if gram in seen:
            return True
        seen.add(gram)
    return False


# ------------------------------------------------------------------------------------------------------ scoring
@dataclass
class ItemVerdict:
    """What the bench concluded about one stored item."""

    item: StoredItem
    facts: list[str] = field(default_factory=list)
    allowed: int = 0
    must_not: list[str] = field(default_factory=list)
    scaffolding: str | None = None
    copied_summary: bool = False
    #: The rule before 2026-12-07: any shared 8-word run, even one the user said again in the item's own session.
    copied_any_run: bool = False
    looping: bool = False
    #: Matches no label, but the transcript check (bench/distill_truth.py) finds it is what the user said: the
    #: user's own name as they introduced themselves, or someone named with "my <relation>".
    checked: bool = False

    @property
    def labelled_true(self) -> bool:
        """Matches a labelled fact or allowed fact of its agent and nothing it must not hold."""
        return bool(self.facts or self.allowed) and not self.must_not

    @property
    def checked_true(self) -> bool:
        """Labelled true, or unlabelled and true to the transcript (never when it matches a must_not)."""
        return self.labelled_true or (self.checked and not self.must_not)


@dataclass
class AgentScore:
    """Figures of one agent (simulated user) after all of its sessions were distilled."""

    agent_id: str
    verdicts: list[ItemVerdict]
    #: fact id → ids of the active items that yielded it (empty: missed); stale facts excluded.
    recall: dict[str, list[str]]
    #: (stale fact, replacement) → (stale still active, replacement active)
    supersession: dict[tuple[str, str], tuple[bool, bool]]
    #: why → (violated must_not entries, must_not entries)
    must_not: dict[str, tuple[int, int]]
    #: The pairs whose replacement a later pair replaced in turn (A → B with B → C): scored by the chain rule.
    chained: frozenset[tuple[str, str]] = frozenset()

    @property
    def precision_pool(self) -> list[ItemVerdict]:
        return [v for v in self.verdicts if v.item.active and v.item.kind in PRECISION_KINDS]


def _earlier_summaries(item: StoredItem, items: Sequence[StoredItem]) -> list[str]:
    """Summaries of episodes from sessions strictly before the item's own (all others when its date is unknown)."""
    out = []
    for other in items:
        if other.kind != SUMMARY or other is item:
            continue
        if item.session_at_ms and other.session_at_ms:
            if other.session_at_ms < item.session_at_ms:
                out.append(other.text)
        elif other.conversation_id != item.conversation_id or not item.conversation_id:
            out.append(other.text)
    return out


def _current_labels(
    sessions: Sequence[Session], sp: Supersession, stale_ids: set[str]
) -> list[tuple[tuple[str, ...], ...]]:
    """Facts and allowed facts of the correcting session and later ones (stale facts left out).

    An item they label is true now, so it is not the stale fact lingering even when it names the old value:
    "Dana left the company" mentions the old manager but is itself what the later session says.
    """
    by_session = next((s for s in sessions if any(f.id == sp.by for f in s.facts)), None)
    if by_session is None:
        return []
    later = [s for s in sessions if s.date >= by_session.date]
    labels = [f.match for s in later for f in s.facts if f.id not in stale_ids]
    return labels + [groups for s in later for groups in s.allowed]


def _own_user_turns(item: StoredItem, sessions: Sequence[Session]) -> list[str]:
    """The user's turns of the item's own session; none when the session is not known (every shared run counts)."""
    return [user for s in sessions if s.id == item.conversation_id for user, _ in s.turns]


def _user_turns(item: StoredItem, sessions: Sequence[Session]) -> list[str]:
    """The user's turns of the session an item came from (of all the agent's sessions when it is not known)."""
    own = [s for s in sessions if s.id == item.conversation_id]
    return [user for s in own or sessions for user, _ in s.turns]


def _stored(fact: Fact, verdicts: Sequence[ItemVerdict]) -> bool:
    """Whether a replacement a later session replaced in turn was stored at all (active or superseded).

    In a chain A → B → C, B is the stale fact of the pair B → C, so it must be inactive at the end: the pair A → B
    cannot ask for B active (it never could be right). It asks that B was yielded as a recall item, active or since
    superseded; the staleness of A is checked as for any pair."""
    return any(v.item.kind in RECALL_KINDS and matches(fact.match, v.item.text) for v in verdicts)


def score_agent(agent_id: str, sessions: Sequence[Session], items: Sequence[StoredItem]) -> AgentScore:
    """Score everything stored for one agent against the labels of all its sessions."""
    facts = {f.id: f for s in sessions for f in s.facts}
    allowed = [a for s in sessions for a in s.allowed]
    must_not = [m for s in sessions for m in s.must_not]
    supersessions = [sp for s in sessions for sp in s.supersedes]
    stale_ids = {sp.stale for sp in supersessions}
    mine = [item for item in items if item.agent_id in (agent_id, "")]

    verdicts = []
    for item in mine:
        verdict = ItemVerdict(item)
        verdict.facts = [fid for fid, fact in facts.items() if matches(fact.match, item.text)]
        verdict.allowed = sum(matches(groups, item.text) for groups in allowed)
        verdict.must_not = [m.why for m in must_not if matches(m.match, item.text, secret=m.why == "secret")]
        verdict.scaffolding = copied_scaffolding(item.text)
        earlier = _earlier_summaries(item, mine)
        verdict.copied_summary = copied_span(item.text, earlier, own_turns=_own_user_turns(item, sessions))
        verdict.copied_any_run = copied_span(item.text, earlier)
        verdict.looping = is_looping(item.text)
        if not verdict.labelled_true and not verdict.must_not and item.kind in PRECISION_KINDS:
            verdict.checked = true_to_transcript(item.text, _user_turns(item, sessions))
        verdicts.append(verdict)

    active_recall = [v for v in verdicts if v.item.active and v.item.kind in RECALL_KINDS]
    recall = {
        fid: [f"{v.item.kind}:{v.item.row_id}" for v in active_recall if fid in v.facts]
        for fid in facts
        if fid not in stale_ids
    }

    supersession: dict[tuple[str, str], tuple[bool, bool]] = {}
    for sp in supersessions:
        stale, new = facts.get(sp.stale), facts.get(sp.by)
        if stale is None or new is None:
            continue
        current = _current_labels(sessions, sp, stale_ids)
        still = any(
            v.item.active
            and v.item.kind in STANDING_KINDS
            and matches(stale.match, v.item.text)
            and not matches(new.match, v.item.text)
            and not any(matches(groups, v.item.text) for groups in current)
            for v in verdicts
        )
        replaced = bool(recall.get(sp.by)) if sp.by not in stale_ids else _stored(new, verdicts)
        supersession[(sp.stale, sp.by)] = (still, replaced)

    violated: dict[str, tuple[int, int]] = {}
    for why in WHYS:
        entries = [m for m in must_not if m.why == why]
        hit = sum(
            any(matches(m.match, v.item.text, secret=why == "secret") for v in verdicts) for m in entries
        )
        violated[why] = (hit, len(entries))
    chained = frozenset(pair for pair in supersession if pair[1] in stale_ids)
    return AgentScore(agent_id, verdicts, recall, supersession, violated, chained)


@dataclass(frozen=True)
class Totals:
    """Figures over all agents of a split."""

    precision_items: int
    precision_true: int
    precision_wrong: int
    #: Unlabelled items the transcript check found true (bench/distill_truth.py).
    precision_checked: int
    facts: int
    facts_found: int
    stale: int
    stale_ok: int
    must_not: dict[str, tuple[int, int]]
    copied: int
    looping: int
    items: int
    #: Pairs right as they were scored before the chain rule (a chained pair never counted): for comparison.
    stale_ok_before_chain_rule: int = 0
    #: Copied by the rule before 2026-12-07 (any shared run), reported beside `copied`.
    copied_any_run: int = 0

    @property
    def precision_strict(self) -> float | None:
        return self.precision_true / self.precision_items if self.precision_items else None

    @property
    def precision_checked_strict(self) -> float | None:
        """Strict precision with unlabelled items checked against the transcript: (labelled true + checked true)
        / all items; an item neither labelled nor checked still counts against it."""
        if not self.precision_items:
            return None
        return (self.precision_true + self.precision_checked) / self.precision_items

    @property
    def precision_lenient(self) -> float | None:
        judged = self.precision_true + self.precision_wrong
        return self.precision_true / judged if judged else None

    @property
    def recall(self) -> float | None:
        return self.facts_found / self.facts if self.facts else None

    @property
    def supersession(self) -> float | None:
        return self.stale_ok / self.stale if self.stale else None


def totals(scores: Sequence[AgentScore]) -> Totals:
    """Sum the per-agent figures.

    Strict precision: labelled-true pinned+identity items / all of them. Checked: an unlabelled item the transcript
    check finds true counts as true too. Lenient: unlabelled items left out, so labelled-true / (labelled-true +
    items matching a must_not).
    """
    pool = [v for s in scores for v in s.precision_pool]
    must_not: dict[str, tuple[int, int]] = {}
    for why in WHYS:
        must_not[why] = (
            sum(s.must_not[why][0] for s in scores),
            sum(s.must_not[why][1] for s in scores),
        )
    every = [v for s in scores for v in s.verdicts]
    return Totals(
        precision_items=len(pool),
        precision_true=sum(v.labelled_true for v in pool),
        precision_wrong=sum(bool(v.must_not) for v in pool),
        precision_checked=sum(v.checked_true and not v.labelled_true for v in pool),
        facts=sum(len(s.recall) for s in scores),
        facts_found=sum(bool(found) for s in scores for found in s.recall.values()),
        stale=sum(len(s.supersession) for s in scores),
        stale_ok=sum((not still) and replaced for s in scores for still, replaced in s.supersession.values()),
        must_not=must_not,
        copied=sum(bool(v.scaffolding) or v.copied_summary for v in every),
        looping=sum(v.looping for v in every),
        items=len(every),
        stale_ok_before_chain_rule=sum(
            (not still) and replaced and pair not in s.chained
            for s in scores
            for pair, (still, replaced) in s.supersession.items()
        ),
        copied_any_run=sum(bool(v.scaffolding) or v.copied_any_run for v in every),
    )


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..1); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1))
    return ordered[rank]
