"""Tenant isolation probe: tenants with the same agent ids and overlapping content, each with private words, and
every read RPC of every tenant checked for another tenant's words.

Each tenant gets, for the same agent ids, a pinned fact, an episode, a buffered turn and an ingested turn around the
same shared words and in the same conversation id, plus an identity override and an agent only it has. Private words
are made-up and pronounceable (redaction leaves them alone). The probe asks every tenant, through gRPC with the
tenant in x-osaurus-tenant (none for the default tenant), about every other tenant's words and about the shared
words: SearchMemory (three scopes), AssembleContext, InjectMemory, console Search, PreviewContext, ListItems,
Export, ListAgents, GetIdentity and GetStats. Used by tests/integration/test_tenants.py and bench/bench_tenants.py.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import cast

import grpc

from memoryd.app import App
from memoryd.domain import now_ms
from memoryd.storage.db import Database
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from servicekit.tenancy import DEFAULT_TENANT, TENANT_METADATA_KEY

SYLLABLES = (
    "ka",
    "zu",
    "mi",
    "tor",
    "vex",
    "lo",
    "rin",
    "dra",
    "pel",
    "qua",
    "sto",
    "nym",
    "fa",
    "gri",
    "jo",
)
SHARED = "favourite colour blue project code word"
CONVERSATION = "shared-conversation"
#: The same agent ids in every tenant.
AGENTS = ("assistant", "coder")
LAYERS = ("pinned", "episode", "turn", "ingested")


@dataclass(frozen=True)
class TenantSeed:
    """One tenant's private words: (agent, layer) → word, its override word and its own agent id."""

    tenant: str
    words: dict[tuple[str, str], str]
    override: str
    solo_agent: str

    @property
    def all_words(self) -> set[str]:
        return {*self.words.values(), self.override}


def metadata(tenant: str) -> tuple[tuple[str, str], ...]:
    """The call metadata naming `tenant` (none for the default tenant: today's clients send nothing)."""
    return () if tenant == DEFAULT_TENANT else ((TENANT_METADATA_KEY, tenant),)


def make_world(tenants: tuple[str, ...], seed: int) -> list[TenantSeed]:
    """Private words for each tenant, no word a part of another."""
    rng = random.Random(seed)
    used: set[str] = set()

    def word() -> str:
        while True:
            candidate = "".join(rng.choice(SYLLABLES) for _ in range(4))
            if candidate not in used and not any(candidate in u or u in candidate for u in used):
                used.add(candidate)
                return candidate

    return [
        TenantSeed(
            tenant,
            {(agent, layer): word() for agent in AGENTS for layer in LAYERS},
            word(),
            f"solo-{tenant}",
        )
        for tenant in tenants
    ]


def _insert_rows(db: Database, agent: str, pinned: str, episode: str) -> None:
    """A pinned fact and an episode as the writer would store them (SQL both backends take; the agent exists)."""
    stamp = now_ms()
    with db.write():
        db.insert(
            "INSERT INTO pinned_facts (agent_id, content, salience, tags_csv, created_at_ms, updated_at_ms) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (agent, pinned, 0.7, "", stamp, stamp),
        )
        db.insert(
            "INSERT INTO episodes (agent_id, conversation_id, summary, topics_csv, entities_csv, decisions, "
            "action_items, conversation_at_ms, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (agent, CONVERSATION, episode, "", "", "decided something", "do something", stamp, stamp),
        )


@contextmanager
def tenant_app(app: App, tenant: str) -> Iterator[App]:
    """The App serving `tenant` (opened if needed), kept open for the block."""
    assert app.tenants is not None
    with app.tenants.use(tenant) as services:
        yield cast(App, services.owner)


def seed_world(
    app: App, memory: mpb_grpc.MemoryServiceStub, world: list[TenantSeed], rng: random.Random
) -> None:
    """Write every tenant's rows: pinned facts and episodes straight into its store (as the writer would), turns,
    ingests, overrides and agents through gRPC with its metadata; then index its vectors."""
    for seed in world:
        md = metadata(seed.tenant)
        for agent in AGENTS:
            w = {layer: seed.words[(agent, layer)] for layer in LAYERS}
            memory.UpsertAgent(
                mpb.UpsertAgentRequest(agent_id=agent, search_memory_enabled=True), metadata=md, timeout=10
            )
            with tenant_app(app, seed.tenant) as owner:
                _insert_rows(
                    owner.store.db,
                    agent,
                    f"The {SHARED} of this user is {w['pinned']}",
                    f"Talked about the {SHARED}: {w['episode']}",
                )
            memory.BufferTurn(
                mpb.BufferTurnRequest(
                    agent_id=agent,
                    conversation_id=CONVERSATION,
                    user_message=f"my {SHARED} is {w['turn']}, {rng.choice(['really', 'honestly', 'truly'])}",
                ),
                metadata=md,
                timeout=10,
            )
            memory.Ingest(
                mpb.IngestRequest(
                    agent_id=agent,
                    conversation_id=CONVERSATION,
                    turns=[mpb.Turn(user=f"remember the {SHARED} {w['ingested']}", assistant="noted")],
                    skip_extraction=True,
                ),
                metadata=md,
                timeout=10,
            )
        memory.UpsertAgent(mpb.UpsertAgentRequest(agent_id=seed.solo_agent), metadata=md, timeout=10)
        memory.AddOverride(
            mpb.AddOverrideRequest(text=f"The {SHARED} override is {seed.override}"), metadata=md, timeout=10
        )
        with tenant_app(app, seed.tenant) as owner:
            assert owner.indexer.run_once() > 0  # vectors too: hybrid search goes through each tenant's faiss


@dataclass
class TenantCollector:
    """Every text one tenant's probes returned, checked against the other tenants' words."""

    seed: TenantSeed
    foreign: dict[str, str]
    seen: list[str] = field(default_factory=list)
    probes: int = 0
    leaks: list[tuple[str, str, str]] = field(default_factory=list)

    def add(self, where: str, *texts: str) -> None:
        self.probes += 1
        for text in texts:
            for word, owner in self.foreign.items():
                if word in text:
                    self.leaks.append((where, word, owner))
            self.seen.append(text)

    def own_words_seen(self) -> set[str]:
        return {w for w in self.seed.all_words if any(w in t for t in self.seen)}


def _queries(seed: TenantSeed, foreign: dict[str, str]) -> list[str]:
    return [
        *(f"what do you remember about {w}" for w in sorted(foreign)),
        f"what did we discuss about the {SHARED}",
        SHARED,
        " ".join(sorted(foreign)),
        " ".join(sorted(seed.all_words)),
    ]


def probe_tenant(
    memory: mpb_grpc.MemoryServiceStub,
    console: cpb_grpc.MemoryConsoleServiceStub,
    seed: TenantSeed,
    world: list[TenantSeed],
) -> TenantCollector:
    """Ask one tenant every read RPC about every other tenant's words; collect what came back."""
    foreign = {w: other.tenant for other in world if other is not seed for w in other.all_words}
    out = TenantCollector(seed, foreign)
    md = metadata(seed.tenant)
    for agent in AGENTS:
        for query in _queries(seed, foreign):
            _probe_query(memory, console, md, agent, query, out)
        for kind in (mpb.ITEM_KIND_PINNED_FACT, mpb.ITEM_KIND_EPISODE):
            listed = console.ListItems(
                cpb.ListItemsRequest(agent_id=agent, kind=kind, include_disabled=True),
                metadata=md,
                timeout=10,
            )
            out.add("ListItems", *(i.preview for i in listed.items))
        out.add(
            "Export",
            *(r.line for r in console.Export(cpb.ExportRequest(agent_id=agent), metadata=md, timeout=30)),
        )
    out.add("Export all", *(r.line for r in console.Export(cpb.ExportRequest(), metadata=md, timeout=30)))
    agents = memory.ListAgents(mpb.ListAgentsRequest(page_size=1000), metadata=md, timeout=10).agents
    foreign_agents = {other.solo_agent for other in world if other is not seed}
    out.add("ListAgents", *(a.agent_id for a in agents if a.agent_id in foreign_agents))
    identity = memory.GetIdentity(mpb.GetIdentityRequest(), metadata=md, timeout=10).identity
    out.add(
        "GetIdentity",
        identity.content,
        *(o.text for o in identity.overrides),
        *(f.text for f in identity.facts),
    )
    stats = memory.GetStats(mpb.GetStatsRequest(), metadata=md, timeout=10)
    out.add("GetStats", *(s.agent_id for s in stats.agents if s.agent_id in foreign_agents))
    return out


def _probe_query(
    memory: mpb_grpc.MemoryServiceStub,
    console: cpb_grpc.MemoryConsoleServiceStub,
    md: tuple[tuple[str, str], ...],
    agent: str,
    query: str,
    out: TenantCollector,
) -> None:
    for scope in (mpb.SCOPE_PINNED, mpb.SCOPE_EPISODES, mpb.SCOPE_TRANSCRIPT):
        reply = memory.SearchMemory(
            mpb.SearchMemoryRequest(agent_id=agent, scope=scope, query=query, limit=20),
            metadata=md,
            timeout=10,
        )
        out.add("SearchMemory", *(h.text for h in reply.hits))
    assembled = memory.AssembleContext(
        mpb.AssembleContextRequest(
            agent_id=agent, query=query, budget_tokens=2000, conversation_id=CONVERSATION
        ),
        metadata=md,
        timeout=10,
    )
    out.add("AssembleContext", assembled.block)
    injected = memory.InjectMemory(
        mpb.InjectMemoryRequest(
            agent_id=agent,
            conversation_id=CONVERSATION,
            messages=[mpb.ChatMessage(role=mpb.ROLE_USER, content=query)],
            model_context_tokens=32768,
        ),
        metadata=md,
        timeout=10,
    )
    out.add("InjectMemory", *(m.content.replace(query, "") for m in injected.messages))  # minus the echo
    hits = console.Search(
        cpb.SearchRequest(query=query, agent_id=agent, limit=50, include_disabled=True),
        metadata=md,
        timeout=10,
    )
    out.add("console Search", *(h.preview for h in hits.hits))
    preview = console.PreviewContext(
        cpb.PreviewContextRequest(agent_id=agent, query=query, max_tokens=2000), metadata=md, timeout=10
    )
    out.add("PreviewContext", preview.block)


def stub_pair(channel: grpc.Channel) -> tuple[mpb_grpc.MemoryServiceStub, cpb_grpc.MemoryConsoleServiceStub]:
    """Both memoryd stubs on one channel."""
    return mpb_grpc.MemoryServiceStub(channel), cpb_grpc.MemoryConsoleServiceStub(channel)


__all__ = [
    "AGENTS",
    "CONVERSATION",
    "SHARED",
    "TenantCollector",
    "TenantSeed",
    "make_world",
    "metadata",
    "probe_tenant",
    "seed_world",
    "stub_pair",
    "tenant_app",
]
