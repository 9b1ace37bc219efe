"""AssembleContext and InjectMemory servicer methods: validation, protobuf conversion, the ReadPath call."""

from __future__ import annotations

import grpc

from memoryd.domain import MAX_AGENT_ID_CHARS, MAX_CONVERSATION_ID_CHARS
from memoryd.read.assemble import Assembly, ChatMessage, Explanation, ReadPath
from memoryd.retrieval.items import ItemKind, ItemRef, Section
from osaurus.memory.v1 import memory_pb2 as pb
from servicekit.validate import Violations

MAX_QUERY_CHARS = 50_000
MAX_MESSAGES = 10_000
MAX_MESSAGE_CHARS = 1_000_000
MAX_BUDGET_TOKENS = 4_000

SECTION_TO_PB = {
    Section.NONE: pb.SECTION_NONE,
    Section.IDENTITY: pb.SECTION_IDENTITY,
    Section.PINNED: pb.SECTION_PINNED,
    Section.EPISODES: pb.SECTION_EPISODES,
    Section.TRANSCRIPT: pb.SECTION_TRANSCRIPT,
}
KIND_TO_PB = {
    ItemKind.PINNED_FACT: pb.ITEM_KIND_PINNED_FACT,
    ItemKind.EPISODE: pb.ITEM_KIND_EPISODE,
    ItemKind.TRANSCRIPT_TURN: pb.ITEM_KIND_TRANSCRIPT_TURN,
    ItemKind.IDENTITY_FACT: pb.ITEM_KIND_IDENTITY_FACT,
}
ROLE_FROM_PB = {
    pb.ROLE_SYSTEM: "system",
    pb.ROLE_USER: "user",
    pb.ROLE_ASSISTANT: "assistant",
    pb.ROLE_TOOL: "tool",
}


def _deadline_s(context: grpc.ServicerContext) -> float | None:
    remaining = context.time_remaining()
    return remaining if remaining is not None and remaining < 1e6 else None


def _agent_id(v: Violations, value: str) -> str:
    return v.require_id(value, "agent_id", max_chars=MAX_AGENT_ID_CHARS, reason="INVALID_AGENT_ID")


def _optional_ids(v: Violations, conversation_id: str) -> None:
    v.require_id(
        conversation_id,
        "conversation_id",
        max_chars=MAX_CONVERSATION_ID_CHARS,
        reason="INVALID_CONVERSATION_ID",
        required=False,
    )


def _budget(v: Violations, value: int, field: str) -> int:
    if value != 0:
        v.require_range(value, field, 1, MAX_BUDGET_TOKENS, "BUDGET_OUT_OF_RANGE")
    return value


def item_refs(placed: tuple[ItemRef, ...]) -> list[pb.ItemRef]:
    """Domain refs → proto ItemRefs."""
    return [pb.ItemRef(kind=KIND_TO_PB[ref.kind], id=ref.id) for ref in placed]


def decision_message(explanation: Explanation) -> pb.GateDecision:
    """Explanation → GateDecision (features in model order, one score per section)."""
    return pb.GateDecision(
        model_version=explanation.model_version,
        features=[pb.GateFeature(name=name, value=value) for name, value in explanation.features],
        scores=[
            pb.SectionScore(section=SECTION_TO_PB[section], probability=p)
            for section, p in explanation.scores
        ],
        budget_tokens=explanation.budget_tokens,
    )


def assemble_response(assembly: Assembly) -> pb.AssembleContextResponse:
    """Assembly → AssembleContextResponse."""
    return pb.AssembleContextResponse(
        block=assembly.block,
        section=SECTION_TO_PB[assembly.section],
        reason=assembly.reason,
        block_tokens=assembly.tokens,
        placed=item_refs(assembly.placed),
        cached=assembly.cached,
        items_considered=assembly.considered,
        items_dropped=assembly.dropped,
        overrides_tokens=assembly.overrides_tokens,
        decision=decision_message(assembly.explanation),
    )


class ReadPathRpcs:
    """Mixin for the MemoryService servicer; the servicer sets `self.read_path` in its constructor."""

    read_path: ReadPath

    def AssembleContext(
        self, request: pb.AssembleContextRequest, context: grpc.ServicerContext
    ) -> pb.AssembleContextResponse:
        """Gate + planner for one query; the block may be empty, the response says why."""
        with Violations() as v:
            agent = _agent_id(v, request.agent_id)
            query = v.require_text(request.query, "query", max_chars=MAX_QUERY_CHARS)
            _budget(v, request.budget_tokens, "budget_tokens")
            _optional_ids(v, request.conversation_id)
            if request.model_context_tokens < 0:
                v.add("model_context_tokens", "must not be negative", "CONTEXT_SIZE_OUT_OF_RANGE")
        assembly = self.read_path.assemble(
            agent,
            query,
            request.budget_tokens,
            deadline_s=_deadline_s(context),
            model_context_tokens=request.model_context_tokens,
        )
        return assemble_response(assembly)

    def InjectMemory(
        self, request: pb.InjectMemoryRequest, context: grpc.ServicerContext
    ) -> pb.InjectMemoryResponse:
        """The request's messages with the block prepended to the latest user message when the rules allow."""
        with Violations() as v:
            agent = _agent_id(v, request.agent_id)
            _optional_ids(v, request.conversation_id)
            if not request.messages:
                v.add("messages", "is required", "MISSING_FIELD")
            elif len(request.messages) > MAX_MESSAGES:
                v.add(
                    "messages",
                    f"has {len(request.messages)} items; at most {MAX_MESSAGES}",
                    "TOO_MANY_MESSAGES",
                )
            else:
                for i, message in enumerate(request.messages):
                    v.require_enum(message.role, pb.Role.DESCRIPTOR, f"messages[{i}].role")
                    v.require_text(
                        message.content, f"messages[{i}].content", max_chars=MAX_MESSAGE_CHARS, required=False
                    )
            if request.model_context_tokens < 0:
                v.add("model_context_tokens", "must not be negative", "CONTEXT_SIZE_OUT_OF_RANGE")
            _budget(v, request.budget_tokens, "budget_tokens")
        messages = [
            ChatMessage(ROLE_FROM_PB.get(m.role, ""), m.content, is_multimodal=len(m.attachments) > 0)
            for m in request.messages
        ]
        result = self.read_path.inject(
            agent,
            messages,
            model_context_tokens=request.model_context_tokens,
            budget_tokens=request.budget_tokens,
            deadline_s=_deadline_s(context),
        )
        out = pb.InjectMemoryResponse(
            injected=result.is_injected,
            section=SECTION_TO_PB[result.section],
            reason=result.reason,
            block_tokens=result.block_tokens,
        )
        if result.assembly is not None:
            out.decision.CopyFrom(decision_message(result.assembly.explanation))
        out.messages.extend(request.messages)
        if result.is_injected and result.target_index is not None:
            out.messages[result.target_index].content = result.messages[result.target_index].content
        return out


__all__ = [
    "KIND_TO_PB",
    "SECTION_TO_PB",
    "ReadPathRpcs",
    "assemble_response",
    "decision_message",
    "item_refs",
]
