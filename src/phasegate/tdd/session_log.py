"""The session log: what each actor (a person, a QA or DE agent, pytest) said about a cycle.

``.phasegate/tdd/log.jsonl`` holds one :class:`~phasegate.model.tdd.Observation` per line:
the session (a cycle is one session), the round, the actor, a status and the content, in the
order they were recorded. Every judged run adds one observation per cycle it was for; actors
add their own with ``phasegate tdd note``. The log records what was said; the ledger decides.
A status code an actor claims (``GC``...) is marked ``confirmed`` only when the ledger has a
run with that code for that cycle.
"""

from __future__ import annotations

from collections.abc import Iterable

from phasegate.errors import UsageError
from phasegate.model.tdd import Observation, RunEntry, TddState
from phasegate.store import Store
from phasegate.tdd.ledger import Entry

__all__ = [
    "LEDGER_CODES",
    "LOG_FILE",
    "NOTE_STATUSES",
    "SessionLog",
    "confirm",
    "observations_for_run",
]

#: The log's path inside the artifacts folder.
LOG_FILE = "tdd/log.jsonl"
#: Status codes the ledger itself records.
LEDGER_CODES = ("RC", "GC", "RTC", "RIC", "P0C", "TI")
#: What an actor's note may say: the ledger's codes, TA (test adjusted), review outcomes, note.
NOTE_STATUSES = (*LEDGER_CODES, "TA", "approved", "changes_requested", "note")
_CONTENT_CHARS = 2000


class SessionLog:
    """The observation log of one artifacts folder."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def add(self, observations: Observation | Iterable[Observation]) -> None:
        """Append observations, in order."""
        batch = [observations] if isinstance(observations, Observation) else list(observations)
        if batch:
            self._store.append_jsonl(LOG_FILE, batch, exclude_none=True)

    def read(self, session: str | None = None) -> list[Observation]:
        """Every observation (of one session), in order; bad lines are moved aside."""
        entries = self._store.read_jsonl(LOG_FILE, Observation).entries
        return [o for o in entries if session is None or o.session == session]


def observations_for_run(entry: RunEntry, state_after: TddState, actor: str) -> list[Observation]:
    """One observation per cycle the run was for (one for the run when it had none)."""
    status = "+".join(entry.status) if entry.status else entry.verdict.upper()
    if entry.violations:
        first = entry.violations[0]
        more = len(entry.violations) - 1
        content = f"[{first.rule}] {first.message}" + (f" (+{more} more)" if more else "")
    else:
        content = entry.notes[-1] if entry.notes else "passed"
    content = f"{entry.phase}: {content}"[:_CONTENT_CHARS]
    sessions = entry.cycles or ["-"]
    return [
        Observation(
            time=entry.time,
            session=session,
            round=state_after.cycles[session].round if session in state_after.cycles else 0,
            actor=actor,
            status=status,
            content=content,
            run_id=entry.run_id,
        )
        for session in sessions
    ]


def confirm(status: str, session: str, entries: Iterable[Entry]) -> bool | None:
    """Whether the ledger backs a claimed status code; ``None`` for statuses it does not keep."""
    if status not in NOTE_STATUSES:
        allowed = ", ".join(NOTE_STATUSES)
        raise UsageError(f"--status {status!r} is not a known status; allowed: {allowed}")
    if status not in LEDGER_CODES:
        return None
    for entry in entries:
        if not isinstance(entry, RunEntry) or status not in entry.status:
            continue
        if session in entry.cycles or (session == "-" and not entry.cycles):
            return True
    return False
