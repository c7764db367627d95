"""The TDD ledger rewritten: a committed ledger is only ever appended to.

``.phasegate/tdd/ledger.jsonl`` proves red before green (see :mod:`phasegate.tdd.ledger`); a
project commits it for the ``tdd`` check to see it in CI. A change that deletes it, or whose
ledger does not begin with the base's ledger byte for byte (an entry edited, removed or
reordered), rewrites the proof instead of adding to it.
"""

from __future__ import annotations

from phasegate.integrity.sources import ChangedSources
from phasegate.integrity.trick import Trick

__all__ = ["ledger_tricks"]


def ledger_tricks(sources: ChangedSources, ledger: str) -> list[Trick]:
    """A trick when the change deletes or rewrites the ledger at ``ledger`` (root-relative)."""
    was = sources.base_text(ledger)
    if was is None:
        return []  # no ledger at the base: there is no recorded proof to rewrite
    now = sources.head_text(ledger)
    if now is None:
        return [
            Trick(
                "evidence",
                "tdd-ledger-rewritten",
                ledger,
                None,
                "the TDD ledger deleted: the recorded proof of red before green is gone",
            )
        ]
    if now.startswith(was):
        return []
    old_lines, new_lines = was.splitlines(), now.splitlines()
    first = next(
        (n for n, (a, b) in enumerate(zip(old_lines, new_lines, strict=False), 1) if a != b),
        min(len(old_lines), len(new_lines)) + 1,
    )
    return [
        Trick(
            "evidence",
            "tdd-ledger-rewritten",
            ledger,
            first,
            "the TDD ledger's recorded entries were changed or removed: a ledger is only "
            "appended to, so the proof of red before green no longer holds",
        )
    ]
