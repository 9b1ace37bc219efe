"""Logging setup shared by the services: one line per record, with the request id of the call being served."""

from __future__ import annotations

import logging
import sys

from servicekit.interceptors import request_id_var


class _RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True


def setup_logging(level: str = "INFO", service: str = "osaurus") -> None:
    """Configure the root logger once; memory content must only ever be logged at DEBUG."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_osaurus", False):
            root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler._osaurus = True  # type: ignore[attr-defined]
    handler.addFilter(_RequestIdFilter())
    handler.setFormatter(
        logging.Formatter(f"%(asctime)s {service} %(levelname)s %(name)s [%(request_id)s] %(message)s")
    )
    root.addHandler(handler)
    root.setLevel(level.upper())
