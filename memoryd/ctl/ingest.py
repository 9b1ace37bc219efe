"""memoryctl ingest: read a JSON Lines file of sessions or a LoCoMo-format file, and draw a progress bar.

Sessions format (one JSON object per line, the body of POST /memory/ingest):
  {"agent_id": "a", "conversation_id": "s1", "turns": [{"user": "…", "assistant": "…"}],
   "session_date": "2024-03-15T10:00:00Z", "skip_extraction": false}
A JSON array of such objects is accepted too. LoCoMo: the benchmark's JSON (a list of samples with
"conversation": {"speaker_a", "speaker_b", "session_N", "session_N_date_time"}); each session becomes one
conversation "<sample_id>-session-<N>" of agent "locomo-<sample_id>" (or --agent), speakers paired as
user (speaker_a) / assistant (speaker_b), each line prefixed with its speaker's name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

FORMATS = ("auto", "jsonl", "locomo")
_LOCOMO_TIME = "%I:%M %p on %d %B, %Y"


@dataclass(frozen=True)
class IngestSession:
    """One conversation to send with the Ingest RPC."""

    agent_id: str
    conversation_id: str
    turns: tuple[tuple[str, str], ...]
    session_time_ms: int = 0
    skip_extraction: bool | None = None


def _iso_ms(value: Any, where: str) -> int:
    if value in (None, ""):
        return 0
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    try:
        stamp = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError as error:
        raise ValueError(f"{where}: session_date {str(value)[:40]!r} is not ISO 8601") from error
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return int(stamp.timestamp() * 1000)


def _session(data: Any, default_agent: str | None, where: str) -> IngestSession:
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected a JSON object")
    agent = data.get("agent_id") or default_agent
    if not isinstance(agent, str) or not agent:
        raise ValueError(f"{where}: agent_id is missing (give it in the file or with --agent)")
    conversation = data.get("conversation_id")
    if not isinstance(conversation, str) or not conversation:
        raise ValueError(f"{where}: conversation_id is missing")
    raw_turns = data.get("turns")
    if not isinstance(raw_turns, list) or not raw_turns:
        raise ValueError(f"{where}: turns must be a non-empty list")
    turns: list[tuple[str, str]] = []
    for index, turn in enumerate(raw_turns):
        if not isinstance(turn, dict) or not isinstance(turn.get("user"), str):
            raise ValueError(f"{where}: turns[{index}] needs a string 'user'")
        assistant = turn.get("assistant") or ""
        if not isinstance(assistant, str):
            raise ValueError(f"{where}: turns[{index}].assistant must be a string")
        turns.append((turn["user"], assistant))
    skip = data.get("skip_extraction")
    return IngestSession(
        agent_id=agent,
        conversation_id=conversation,
        turns=tuple(turns),
        session_time_ms=_iso_ms(data.get("session_date", data.get("session_time_ms")), where),
        skip_extraction=bool(skip) if skip is not None else None,
    )


def _locomo_line(turn: dict[str, Any]) -> str:
    text = f"{turn.get('speaker', '?')}: {turn.get('text', '')}"
    if turn.get("blip_caption"):
        text += f" [shares {turn['blip_caption']}]"
    return text


def _locomo_turns(lines: list[dict[str, Any]], speaker_a: str) -> tuple[tuple[str, str], ...]:
    """Pair speaker_a's line with speaker_b's reply; a line without a partner becomes a turn of its own."""
    turns: list[tuple[str, str]] = []
    pending: str | None = None
    for line in lines:
        text = _locomo_line(line)
        if line.get("speaker") == speaker_a:
            if pending is not None:
                turns.append((pending, ""))
            pending = text
        elif pending is not None:
            turns.append((pending, text))
            pending = None
        else:
            turns.append((text, ""))
    if pending is not None:
        turns.append((pending, ""))
    return tuple(turns)


def _locomo_time(text: Any) -> int:
    try:
        return int(datetime.strptime(str(text).strip(), _LOCOMO_TIME).replace(tzinfo=UTC).timestamp() * 1000)
    except ValueError:
        return 0


def locomo_sessions(samples: list[Any], default_agent: str | None) -> list[IngestSession]:
    """Every session of every LoCoMo sample, in order."""
    sessions: list[IngestSession] = []
    for position, sample in enumerate(samples):
        if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
            raise ValueError(f"sample {position}: not a LoCoMo sample (no 'conversation' object)")
        sample_id = str(sample.get("sample_id") or f"sample-{position}")
        conversation = sample["conversation"]
        speaker_a = conversation.get("speaker_a")
        number = 1
        while f"session_{number}" in conversation:
            lines = [t for t in conversation[f"session_{number}"] if isinstance(t, dict)]
            turns = _locomo_turns(lines, speaker_a)
            if turns:
                sessions.append(
                    IngestSession(
                        agent_id=default_agent or f"locomo-{sample_id}",
                        conversation_id=f"{sample_id}-session-{number}",
                        turns=turns,
                        session_time_ms=_locomo_time(conversation.get(f"session_{number}_date_time", "")),
                    )
                )
            number += 1
    return sessions


def _is_locomo(data: Any) -> bool:
    first = data[0] if isinstance(data, list) and data else data
    return isinstance(first, dict) and isinstance(first.get("conversation"), dict)


def read_sessions(
    path: Path, file_format: str = "auto", default_agent: str | None = None
) -> list[IngestSession]:
    """Sessions of a file; ValueError naming the line or sample when it cannot be read."""
    text = path.read_text(encoding="utf-8")
    whole: Any = None
    if file_format != "jsonl" and text.lstrip()[:1] in ("[", "{"):
        try:
            whole = json.loads(text)
        except ValueError:
            whole = None  # not one JSON document: JSON Lines
    if file_format == "locomo" or (file_format == "auto" and whole is not None and _is_locomo(whole)):
        if whole is None:
            raise ValueError("not a LoCoMo JSON file")
        return locomo_sessions(whole if isinstance(whole, list) else [whole], default_agent)
    if whole is not None and file_format == "auto":
        items = whole if isinstance(whole, list) else [whole]
        return [_session(item, default_agent, f"item {i}") for i, item in enumerate(items)]
    sessions = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as error:
            raise ValueError(f"line {number}: not valid JSON") from error
        sessions.append(_session(data, default_agent, f"line {number}"))
    if not sessions:
        raise ValueError("no sessions in the file")
    return sessions


class ProgressBar:
    """A one-line bar on a terminal (redrawn in place); elsewhere a line at every 10 %."""

    def __init__(
        self, out: TextIO, total: int, unit: str, *, is_enabled: bool = True, width: int = 30
    ) -> None:
        self._out = out
        self._total = max(total, 1)
        self._unit = unit
        self._is_enabled = is_enabled
        self._width = width
        self._is_tty = bool(getattr(out, "isatty", lambda: False)())
        self._last_decile = -1

    def update(self, done: int, note: str = "") -> None:
        """Show `done` of the total."""
        if not self._is_enabled:
            return
        fraction = min(done / self._total, 1.0)
        filled = int(fraction * self._width)
        bar = "#" * filled + "-" * (self._width - filled)
        line = f"[{bar}] {done}/{self._total} {self._unit} {fraction:4.0%}" + (f"  {note}" if note else "")
        if self._is_tty:
            self._out.write("\r" + line)
            self._out.flush()
            return
        decile = int(fraction * 10)
        if decile != self._last_decile:
            self._last_decile = decile
            print(line, file=self._out, flush=True)

    def finish(self) -> None:
        """End the bar's line."""
        if self._is_enabled and self._is_tty:
            self._out.write("\n")
            self._out.flush()


__all__ = ["FORMATS", "IngestSession", "ProgressBar", "locomo_sessions", "read_sessions"]
