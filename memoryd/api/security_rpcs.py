"""Console RPCs of the store's protection: SetEncryption, RotateKey, RecoverStore, and Diagnose's store fields."""

from __future__ import annotations

import grpc

from memoryd.security.keys import (
    MODE_KEY_FILE,
    MODE_PASSPHRASE,
    MODE_PLAINTEXT,
    SOURCE_FILE,
    SOURCE_MEMORY,
    SOURCE_REQUEST,
)
from memoryd.security.manager import ACTION_RESET, ACTION_RETRY, STATE_DEGRADED, StoreSecurity, StoreStatus
from memoryd.security.opener import SOURCE_KEY_FILE
from osaurus.memory.v1 import console_pb2 as cpb
from servicekit.errors import FailedPreconditionError, not_yet_available
from servicekit.validate import Violations

MAX_PASSPHRASE_CHARS = 1_024
_SERVICE = "osaurus.memory.v1.MemoryConsoleService"
#: ErrorInfo reason of SetEncryption / RotateKey / RecoverStore on a PostgreSQL store.
NOT_SQLITE_STORE = "NOT_SQLITE_STORE"

MODE_FROM_PB = {
    cpb.ENCRYPTION_MODE_PLAINTEXT: MODE_PLAINTEXT,
    cpb.ENCRYPTION_MODE_KEY_FILE: MODE_KEY_FILE,
    cpb.ENCRYPTION_MODE_PASSPHRASE: MODE_PASSPHRASE,
}
MODE_TO_PB = {mode: number for number, mode in MODE_FROM_PB.items()}
ACTION_TO_PB = {ACTION_RETRY: cpb.RECOVERY_ACTION_RETRY, ACTION_RESET: cpb.RECOVERY_ACTION_RESET}
FILE_KIND_TO_PB = {
    "missing": cpb.STORE_FILE_KIND_MISSING,
    "plaintext": cpb.STORE_FILE_KIND_PLAINTEXT,
    "encrypted": cpb.STORE_FILE_KIND_ENCRYPTED,
}
KEY_SOURCE_TO_PB = {
    SOURCE_KEY_FILE: cpb.KEY_SOURCE_KEY_FILE,
    SOURCE_FILE: cpb.KEY_SOURCE_PASSPHRASE_FILE,
    SOURCE_REQUEST: cpb.KEY_SOURCE_PASSPHRASE_REQUEST,
    SOURCE_MEMORY: cpb.KEY_SOURCE_PASSPHRASE_MEMORY,
}


def degraded_store(status: StoreStatus) -> cpb.DegradedStore | None:
    """What the degraded store's file looks like and which key sources were tried; None while healthy."""
    if status.state != STATE_DEGRADED:
        return None
    return cpb.DegradedStore(
        file_kind=FILE_KIND_TO_PB.get(status.file_kind, cpb.STORE_FILE_KIND_UNSPECIFIED),
        file_bytes=status.file_bytes,
        key_attempts=[
            cpb.KeyAttempt(source=KEY_SOURCE_TO_PB.get(source, cpb.KEY_SOURCE_UNSPECIFIED), keys_tried=n)
            for source, n in status.attempts.tried
        ],
        passphrase_keys_untried=status.attempts.passphrase_untried,
        quarantine_folder=status.quarantine,
    )


def store_fields(status: StoreStatus) -> dict[str, object]:
    """DiagnoseResponse's store_state, degraded_reason, recovery_actions, encrypted and (degraded) degraded_store."""
    fields: dict[str, object] = {
        "store_state": cpb.STORE_STATE_DEGRADED
        if status.state == STATE_DEGRADED
        else cpb.STORE_STATE_HEALTHY,
        "degraded_reason": status.reason,
        "recovery_actions": [ACTION_TO_PB[a] for a in status.actions],
        "encrypted": status.is_encrypted,
    }
    detail = degraded_store(status)
    if detail is not None:
        fields["degraded_store"] = detail
    return fields


def _recover_response(status: StoreStatus) -> cpb.RecoverStoreResponse:
    state = cpb.STORE_STATE_DEGRADED if status.state == STATE_DEGRADED else cpb.STORE_STATE_HEALTHY
    return cpb.RecoverStoreResponse(
        store_state=state, degraded_reason=status.reason, degraded_store=degraded_store(status)
    )


class ConsoleSecurityRpcs:
    """Mixin for MemoryConsoleService; answers NOT_YET_AVAILABLE until attach_security() was called."""

    _security: StoreSecurity | None = None
    #: The store is not a SQLite file (PostgreSQL): SQLCipher, key files and quarantine do not apply.
    _on_postgres: bool = False

    def attach_security(self, security: StoreSecurity | None) -> None:
        """Serve the encryption and recovery RPCs (and Diagnose's store fields) from `security`; None: the store is
        on PostgreSQL, and those RPCs answer FAILED_PRECONDITION (NOT_SQLITE_STORE)."""
        self._security = security
        self._on_postgres = security is None

    def _secured(self, rpc: str) -> StoreSecurity:
        if self._on_postgres:
            raise FailedPreconditionError(
                NOT_SQLITE_STORE,
                f"{rpc} protects the SQLite store file; this memoryd keeps its store on PostgreSQL, where "
                "encryption at rest (disk or tablespace encryption) and recovery (backups, replicas) are the "
                "database's",
            )
        if self._security is None:
            raise not_yet_available(f"{_SERVICE}/{rpc}")
        return self._security

    def SetEncryption(
        self, request: cpb.SetEncryptionRequest, context: grpc.ServicerContext
    ) -> cpb.SetEncryptionResponse:
        security = self._secured("SetEncryption")
        with Violations() as v:
            v.require_enum(request.mode, cpb.EncryptionMode.DESCRIPTOR, "mode", required=True)
            mode = MODE_FROM_PB.get(request.mode, "")
            if mode == MODE_PASSPHRASE:
                v.require_text(request.passphrase, "passphrase", max_chars=MAX_PASSPHRASE_CHARS)
            elif request.passphrase:
                v.add("passphrase", "is only used with ENCRYPTION_MODE_PASSPHRASE", "UNEXPECTED_FIELD")
        return cpb.SetEncryptionResponse(mode=MODE_TO_PB[security.set_encryption(mode, request.passphrase)])

    def RotateKey(
        self, request: cpb.RotateKeyRequest, context: grpc.ServicerContext
    ) -> cpb.RotateKeyResponse:
        security = self._secured("RotateKey")
        with Violations() as v:
            if request.new_passphrase:
                v.require_text(request.new_passphrase, "new_passphrase", max_chars=MAX_PASSPHRASE_CHARS)
        return cpb.RotateKeyResponse(mode=MODE_TO_PB[security.rotate_key(request.new_passphrase)])

    def RecoverStore(
        self, request: cpb.RecoverStoreRequest, context: grpc.ServicerContext
    ) -> cpb.RecoverStoreResponse:
        security = self._secured("RecoverStore")
        with Violations() as v:
            v.require_enum(request.action, cpb.RecoveryAction.DESCRIPTOR, "action", required=True)
            if request.passphrase:  # secret: violations name the field, never its value
                if request.action != cpb.RECOVERY_ACTION_RETRY:
                    v.add("passphrase", "is only used with RECOVERY_ACTION_RETRY", "UNEXPECTED_FIELD")
                else:
                    v.require_text(request.passphrase, "passphrase", max_chars=MAX_PASSPHRASE_CHARS)
        if request.action == cpb.RECOVERY_ACTION_RETRY:
            return _recover_response(security.retry(request.passphrase))
        return _recover_response(security.reset(request.confirm))


__all__ = [
    "MODE_FROM_PB",
    "MODE_TO_PB",
    "NOT_SQLITE_STORE",
    "ConsoleSecurityRpcs",
    "degraded_store",
    "store_fields",
]
