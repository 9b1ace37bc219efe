"""MemoryClient calls for the store's protection: SetEncryption, RotateKey, RecoverStore (typed, no protobuf out)."""

from __future__ import annotations

from dataclasses import dataclass

from memoryd.console.records import DegradedStoreInfo
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from servicekit.channel import typed_errors

#: Converting a large store rewrites every page; allow minutes.
CONVERSION_DEADLINE_S = 1800.0
ENCRYPTION_MODES = {
    "plaintext": cpb.ENCRYPTION_MODE_PLAINTEXT,
    "key_file": cpb.ENCRYPTION_MODE_KEY_FILE,
    "passphrase": cpb.ENCRYPTION_MODE_PASSPHRASE,
}
_MODE_NAMES = {number: name for name, number in ENCRYPTION_MODES.items()}
RECOVERY_ACTIONS = {"retry": cpb.RECOVERY_ACTION_RETRY, "reset": cpb.RECOVERY_ACTION_RESET}
ACTION_NAMES = {number: name for name, number in RECOVERY_ACTIONS.items()}
_FILE_KINDS = {
    cpb.STORE_FILE_KIND_MISSING: "missing",
    cpb.STORE_FILE_KIND_PLAINTEXT: "plaintext",
    cpb.STORE_FILE_KIND_ENCRYPTED: "encrypted",
}
_KEY_SOURCES = {
    cpb.KEY_SOURCE_KEY_FILE: "key_file",
    cpb.KEY_SOURCE_PASSPHRASE_FILE: "passphrase_file",
    cpb.KEY_SOURCE_PASSPHRASE_REQUEST: "passphrase_request",
    cpb.KEY_SOURCE_PASSPHRASE_MEMORY: "passphrase_memory",
}


def degraded_store_info(owner: cpb.DiagnoseResponse | cpb.RecoverStoreResponse) -> DegradedStoreInfo | None:
    """The DegradedStore detail of a Diagnose or RecoverStore answer (None when not set)."""
    if not owner.HasField("degraded_store"):
        return None
    d = owner.degraded_store
    return DegradedStoreInfo(
        file_kind=_FILE_KINDS.get(d.file_kind, "unspecified"),
        file_bytes=d.file_bytes,
        key_attempts=tuple((_KEY_SOURCES.get(a.source, "unspecified"), a.keys_tried) for a in d.key_attempts),
        passphrase_keys_untried=d.passphrase_keys_untried,
        quarantine_folder=d.quarantine_folder,
    )


@dataclass(frozen=True)
class Recovery:
    """State after RecoverStore: "healthy" or "degraded", why when still degraded, and the file/key detail."""

    store_state: str
    degraded_reason: str
    degraded_store: DegradedStoreInfo | None = None


class SecurityCalls:
    """Mixed into MemoryClient (which provides the console stub)."""

    _console: cpb_grpc.MemoryConsoleServiceStub

    def set_encryption(
        self, mode: str, passphrase: str = "", *, timeout_s: float = CONVERSION_DEADLINE_S
    ) -> str:
        """Convert the store to plaintext, key_file or passphrase; the mode in force afterwards."""
        request = cpb.SetEncryptionRequest(mode=ENCRYPTION_MODES[mode], passphrase=passphrase)
        with typed_errors():
            return _MODE_NAMES.get(
                self._console.SetEncryption(request, timeout=timeout_s).mode, "unspecified"
            )

    def rotate_key(self, new_passphrase: str = "", *, timeout_s: float = CONVERSION_DEADLINE_S) -> str:
        """Re-encrypt under a new key file (or a key from new_passphrase); the mode afterwards."""
        request = cpb.RotateKeyRequest(new_passphrase=new_passphrase)
        with typed_errors():
            return _MODE_NAMES.get(self._console.RotateKey(request, timeout=timeout_s).mode, "unspecified")

    def recover_store(self, action: str, *, confirm: bool = False, passphrase: str = "") -> Recovery:
        """RecoverStore retry|reset (reset needs confirm); `passphrase` (retry only) unlocks a passphrase store."""
        request = cpb.RecoverStoreRequest(
            action=RECOVERY_ACTIONS[action], confirm=confirm, passphrase=passphrase
        )
        with typed_errors():
            reply = self._console.RecoverStore(request, timeout=CONVERSION_DEADLINE_S)
        state = "degraded" if reply.store_state == cpb.STORE_STATE_DEGRADED else "healthy"
        return Recovery(state, reply.degraded_reason, degraded_store_info(reply))


__all__ = [
    "ACTION_NAMES",
    "ENCRYPTION_MODES",
    "RECOVERY_ACTIONS",
    "Recovery",
    "SecurityCalls",
    "degraded_store_info",
]
