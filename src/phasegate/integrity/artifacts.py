"""Artifacts of earlier runs committed with the change.

The artifacts folder (``.phasegate/``) holds what phasegate's runs wrote: check results kept for
the next run (``cache/<check>.json``), verdicts, reviews, coverage data. The ``.gitignore`` the
folder holds keeps all of it out of the repository but the TDD ledger, which a project commits
on purpose (judged by :mod:`~phasegate.integrity.tddledger`). Any other file of the folder that
the change adds or edits was forced past that ``.gitignore``, and in CI a check may take it for
its own result: a check result cached under the key of the change's files is believed without
running the tool. So each is a trick, whatever it holds.
"""

from __future__ import annotations

from phasegate.integrity.sources import ChangedSources
from phasegate.integrity.trick import Trick

__all__ = ["artifact_tricks"]

_MESSAGE = (
    "committed with the change: an artifact of an earlier run, which a check may take for its "
    "own result (the artifacts folder is build output, not sources)"
)


def artifact_tricks(sources: ChangedSources, folder: str, ledger: str) -> list[Trick]:
    """Each file of the artifacts ``folder`` (root-relative) that git tracks and the change adds
    or edits, but the TDD ``ledger``. Files git does not track stay on this machine: a clone of
    the change, as CI checks it out, has none of them."""
    return [
        Trick("evidence", "artifact-committed", path, None, _MESSAGE)
        for path in sources.tracked_paths_inside(folder)
        if path != ledger and sources.head_text(path) is not None
    ]
