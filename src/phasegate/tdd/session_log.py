"""The session log: what each actor (a person, a QA or DE agent, pytest) said about a cycle.

A session is a cycle; an observation is a round, an actor, a status and the content, in time
order. Two sources make the log:

* the ledger: every judged run (actor: ``--tdd-actor``, default ``pytest``; status: its codes,
  or ``PASSED``/``FAILED``) and every review is an observation, derived when the log is read,
  so the log can never disagree with the ledger and a run pays nothing to keep it;
* ``.phasegate/tdd/log.jsonl``: the notes actors add with ``phasegate tdd note``, one
  :class:`~phasegate.model.tdd.Observation` per line. A status code an actor claims (``GC``...)
  is marked ``confirmed`` only when the ledger has a run with that code for that cycle.

The log records what was said; the ledger decides.
"""

from __future__ import annotations

from collections.abc import Iterable

from phasegate.errors import UsageError
from phasegate.model.tdd import Observation, ReviewEntry, RunEntry, TddState
from phasegate.store import Store
from phasegate.tdd.ledger import Entry
from phasegate.tdd.state import apply

__all__ = [
    "LEDGER_CODES",
    "LOG_FILE",
    "NOTE_STATUSES",
    "SessionLog",
    "confirm",
    "ledger_observations",
    "observations_for_run",
]

#: The log's path inside the artifacts folder.
LOG_FILE = "tdd/log.jsonl"
#: Status codes the ledger itself records.
LEDGER_CODES = ("RC", "GC", "RTC", "RIC", "P0C", "TI", "TA")
#: What an actor's note may say: the ledger's codes, review outcomes, note.
NOTE_STATUSES = (*LEDGER_CODES, "approved", "changes_requested", "note")
_CONTENT_CHARS = 2000


class SessionLog:
    """The observation log of one artifacts folder."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def add(self, observation: Observation) -> None:
        """Append an actor's note."""
        self._store.append_jsonl(LOG_FILE, observation, exclude_none=True)

    def notes(self) -> list[Observation]:
        """The actors' notes, in order; unreadable lines are moved aside."""
        return self._store.read_jsonl(LOG_FILE, Observation).entries

    def read(self, entries: Iterable[Entry], session: str | None = None) -> list[Observation]:
        """The whole log (of one session): the ledger's observations and the notes, by time."""
        merged = [*ledger_observations(entries), *self.notes()]
        merged.sort(key=lambda observation: observation.time)  # stable: ties keep this order
        return [o for o in merged if session is None or o.session == session]


def ledger_observations(entries: Iterable[Entry]) -> list[Observation]:
    """An observation for each judged run (one per cycle) and each review, with its round."""
    state = TddState()
    observations: list[Observation] = []
    for entry in entries:
        apply(state, entry)
        if isinstance(entry, RunEntry):
            observations.extend(observations_for_run(entry, state, entry.actor or "pytest"))
        elif isinstance(entry, ReviewEntry):
            observations.append(
                Observation(
                    time=entry.time,
                    session=entry.cycle,
                    round=entry.round,
                    actor=entry.reviewer,
                    status=entry.status,
                    content=entry.note or f"review: {entry.status}",
                )
            )
    return observations


def observations_for_run(entry: RunEntry, state_after: TddState, actor: str) -> list[Observation]:
    """One observation per cycle the run was for (one for the run when it had none)."""
    status = "+".join(entry.status) if entry.status else entry.verdict.upper()
    content = f"{entry.phase}: {_run_summary(entry)}"[:_CONTENT_CHARS]
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


def _run_summary(entry: RunEntry) -> str:
    """The run's first violation (and how many more), else its last note."""
    if not entry.violations:
        return entry.notes[-1] if entry.notes else "passed"
    first = entry.violations[0]
    more = len(entry.violations) - 1
    return f"[{first.rule}] {first.message}" + (f" (+{more} more)" if more else "")


def confirm(status: str, session: str, entries: Iterable[Entry]) -> bool | None:
    """Whether the ledger backs a claimed status code; ``None`` for statuses it does not keep."""
    if status not in NOTE_STATUSES:
        allowed = ", ".join(NOTE_STATUSES)
        raise UsageError(f"--status {status!r} is not a known status; allowed: {allowed}")
    if status not in LEDGER_CODES:
        return None
    return any(
        isinstance(entry, RunEntry) and status in entry.status and _of_session(entry, session)
        for entry in entries
    )


def _of_session(entry: RunEntry, session: str) -> bool:
    """A run of the session's cycle; session ``-`` stands for runs of no cycle."""
    return session in entry.cycles or (session == "-" and not entry.cycles)
