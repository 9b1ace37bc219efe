"""Store protection: opt-in SQLCipher encryption, keys, conversion, quarantine and degraded mode (docs/security.md)."""
