"""osaurus.memory.v1.MemoryConsoleService servicer: validates requests, calls memoryd.console.core, converts results."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import grpc

from memoryd.api import console_convert as cc
from memoryd.api.console_convert import changes_from_proto, config_to_proto
from memoryd.api.security_rpcs import ConsoleSecurityRpcs, store_fields
from memoryd.config import ConfigStore
from memoryd.console import transfer as console_transfer
from memoryd.console.core import Console, ConsoleDeps, ContextAssembler
from memoryd.console.listing import MAX_PAGE_SIZE, ItemListing
from memoryd.domain import MAX_AGENT_ID_CHARS
from memoryd.storage.listing import LISTED_KINDS
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2 as pb
from servicekit.errors import NotFoundError, not_yet_available
from servicekit.planned import planned_rpcs
from servicekit.validate import Violations

MAX_SEARCH_QUERY_CHARS = 2_000
MAX_PREVIEW_QUERY_CHARS = 50_000
DEFAULT_SEARCH_LIMIT = 20
MAX_SEARCH_LIMIT = 200
MAX_PREVIEW_TOKENS = 4_000
_SERVICE = "osaurus.memory.v1.MemoryConsoleService"

__all__ = ["MemoryConsoleService", "changes_from_proto", "config_to_proto"]


def _deadline_s(context: grpc.ServicerContext) -> float | None:
    remaining = context.time_remaining()
    return remaining if remaining is not None and remaining < 1e6 else None


def _agent(v: Violations, value: str, *, required: bool) -> str | None:
    agent = v.require_id(
        value, "agent_id", max_chars=MAX_AGENT_ID_CHARS, reason="INVALID_AGENT_ID", required=required
    )
    return agent or None


@planned_rpcs(cpb_grpc.MemoryConsoleServiceServicer, _SERVICE)
class MemoryConsoleService(ConsoleSecurityRpcs, cpb_grpc.MemoryConsoleServiceServicer):
    """Operator API. RecoverStore / SetEncryption / RotateKey (api/security_rpcs.py) need attach_security()."""

    def __init__(self, config: ConfigStore, deps: ConsoleDeps | None = None) -> None:
        self._config = config
        self._console = Console(deps) if deps is not None else None
        if deps is not None:
            deps.errors.attach()

    def attach_read_path(
        self, read_path: ContextAssembler, invalidate: Callable[[str | None], None] | None = None
    ) -> None:
        """Wire the read path for PreviewContext (and its cache invalidation, e.g. ReadPath.invalidate)."""
        console = self._require("PreviewContext")
        console.deps.read_path = read_path
        if invalidate is not None:
            console.deps.on_memory_changed.append(invalidate)

    def close(self) -> None:
        """Stop capturing storage errors."""
        if self._console is not None:
            self._console.deps.errors.close()

    def _require(self, rpc: str) -> Console:
        if self._console is None:
            raise not_yet_available(f"{_SERVICE}/{rpc}")
        return self._console

    # ---------------------------------------------------------------------------------------------- config
    def GetConfig(
        self, request: cpb.GetConfigRequest, context: grpc.ServicerContext
    ) -> cpb.GetConfigResponse:
        return cpb.GetConfigResponse(config=config_to_proto(self._config.get()))

    def UpdateConfig(
        self, request: cpb.UpdateConfigRequest, context: grpc.ServicerContext
    ) -> cpb.UpdateConfigResponse:
        changes = changes_from_proto(request)
        updated = self._config.update(changes) if changes else self._config.get()
        return cpb.UpdateConfigResponse(config=config_to_proto(updated))

    # ------------------------------------------------------------------------------------------------ rows
    def Inspect(self, request: cpb.InspectRequest, context: grpc.ServicerContext) -> cpb.InspectResponse:
        console = self._require("Inspect")
        with Violations() as v:
            kind, row_id = cc.item(v, request.item)
            owner = _agent(v, request.agent_id, required=False)
        return cc.inspection(console.inspect(kind, row_id, owner))

    def Search(self, request: cpb.SearchRequest, context: grpc.ServicerContext) -> cpb.SearchResponse:
        console = self._require("Search")
        with Violations() as v:
            query = v.require_text(request.query, "query", max_chars=MAX_SEARCH_QUERY_CHARS)
            if query and not query.strip():
                v.add("query", "must not be only whitespace", "MISSING_FIELD")
            v.require_enum(request.scope, cpb.ConsoleScope.DESCRIPTOR, "scope", required=False)
            agent = _agent(v, request.agent_id, required=False)
            limit = request.limit or DEFAULT_SEARCH_LIMIT
            v.require_range(limit, "limit", 1, MAX_SEARCH_LIMIT, "LIMIT_OUT_OF_RANGE")
        scope = cc.SCOPE_FROM_PB[request.scope]
        hits = console.search(query, scope, agent, request.include_disabled, limit)
        return cpb.SearchResponse(hits=[cc.hit(h) for h in hits])

    def ListItems(
        self, request: cpb.ListItemsRequest, context: grpc.ServicerContext
    ) -> cpb.ListItemsResponse:
        console = self._require("ListItems")
        with Violations() as v:
            agent = _agent(v, request.agent_id, required=True)
            kind = cc.KIND_FROM_PB.get(request.kind, "")
            if kind not in LISTED_KINDS:
                v.add("kind", "must be ITEM_KIND_PINNED_FACT or ITEM_KIND_EPISODE", "INVALID_KIND")
            v.require_range(request.page_size, "page_size", 0, MAX_PAGE_SIZE, "INVALID_PAGE_SIZE")
            v.require_text(request.page_token, "page_token", max_chars=1_000, required=False)
        assert agent is not None
        if console.deps.store.agents.get(agent) is None:
            raise NotFoundError("AGENT_NOT_FOUND", "no agent with that id")
        page = ItemListing(console.deps.store.listing).page(
            agent, kind, request.page_size, request.page_token, request.include_disabled
        )
        return cc.item_page(page)

    def Disable(self, request: cpb.DisableRequest, context: grpc.ServicerContext) -> cpb.DisableResponse:
        console = self._require("Disable")
        with Violations() as v:
            kind, row_id = cc.item(v, request.item)
            owner = _agent(v, request.agent_id, required=False)
        return cpb.DisableResponse(changed=console.disable(kind, row_id, owner))

    def Enable(self, request: cpb.EnableRequest, context: grpc.ServicerContext) -> cpb.EnableResponse:
        console = self._require("Enable")
        with Violations() as v:
            kind, row_id = cc.item(v, request.item)
            owner = _agent(v, request.agent_id, required=False)
        return cpb.EnableResponse(changed=console.enable(kind, row_id, owner))

    def Forget(self, request: cpb.ForgetRequest, context: grpc.ServicerContext) -> cpb.ForgetResponse:
        console = self._require("Forget")
        with Violations() as v:
            kind, row_id = cc.item(v, request.item)
            owner = _agent(v, request.agent_id, required=False)
        return cpb.ForgetResponse(vector_removed=console.forget(kind, row_id, owner).vector_removed)

    # ----------------------------------------------------------------------------------------- whole store
    def Diagnose(self, request: cpb.DiagnoseRequest, context: grpc.ServicerContext) -> cpb.DiagnoseResponse:
        response = cc.diagnosis(self._require("Diagnose").diagnose())
        fault_state, fault_reason = response.store_state, response.degraded_reason
        if self._security is not None:
            status = self._security.status()
            for name, value in store_fields(status).items():
                if name == "recovery_actions":
                    response.recovery_actions.extend(value)  # type: ignore[arg-type]
                elif name == "degraded_store":
                    response.degraded_store.CopyFrom(value)  # type: ignore[arg-type]
                else:
                    setattr(response, name, value)
            # A degraded store (memoryd.security) outranks a write fault; an open one shows the fault.
            if response.store_state == cpb.STORE_STATE_HEALTHY:
                response.store_state, response.degraded_reason = fault_state, fault_reason
        return response

    def PreviewContext(
        self, request: cpb.PreviewContextRequest, context: grpc.ServicerContext
    ) -> cpb.PreviewContextResponse:
        console = self._require("PreviewContext")
        with Violations() as v:
            agent = _agent(v, request.agent_id, required=True)
            query = v.require_text(request.query, "query", max_chars=MAX_PREVIEW_QUERY_CHARS)
            if not request.max_tokens:
                v.add("max_tokens", "is required", "MISSING_FIELD")
            else:
                v.require_range(
                    request.max_tokens, "max_tokens", 1, MAX_PREVIEW_TOKENS, "BUDGET_OUT_OF_RANGE"
                )
        assert agent is not None
        preview = console.preview(agent, query, request.max_tokens, _deadline_s(context))
        return cpb.PreviewContextResponse(
            block=preview.block,
            section=cc.SECTION_TO_PB.get(preview.section, pb.SECTION_UNSPECIFIED),
            reason=preview.reason,
            block_tokens=preview.block_tokens,
        )

    def ClearAll(self, request: cpb.ClearAllRequest, context: grpc.ServicerContext) -> cpb.ClearAllResponse:
        return cpb.ClearAllResponse(rows_deleted=self._require("ClearAll").clear_all(request.confirm))

    def Reindex(self, request: cpb.ReindexRequest, context: grpc.ServicerContext) -> cpb.ReindexResponse:
        console = self._require("Reindex")
        with Violations() as v:
            agent = _agent(v, request.agent_id, required=False)
        result = console.reindex(agent)
        return cpb.ReindexResponse(
            vector_indexes=[cc.vector_state(s) for s in result.vector_indexes],
            fts_rebuilt=result.is_fts_rebuilt,
        )

    def Export(
        self, request: cpb.ExportRequest, context: grpc.ServicerContext
    ) -> Iterator[cpb.ExportResponse]:
        console = self._require("Export")
        with Violations() as v:
            agent = _agent(v, request.agent_id, required=False)
        if agent is not None and console.deps.store.agents.get(agent) is None:
            raise NotFoundError("AGENT_NOT_FOUND", "no agent with that id")
        for line in console_transfer.export(console, agent):
            yield cpb.ExportResponse(line=line)

    def Import(
        self, request_iterator: Iterator[cpb.ImportRequest], context: grpc.ServicerContext
    ) -> cpb.ImportResponse:
        console = self._require("Import")
        # A message may carry several complete lines.
        lines = (line for request in request_iterator for line in request.line.split("\n"))
        result = console_transfer.import_lines(console, lines)
        return cpb.ImportResponse(
            imported=result.imported, skipped=result.skipped, reembedded=result.reembedded
        )
