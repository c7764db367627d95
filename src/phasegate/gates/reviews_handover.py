"""The reviews file handed over to the tests' process by the one that starts it (review s17d, 2).

The plugin keeps the reviews file in ``pytest_load_initial_conftests``, before the conftest
files run; but pytest imports ``-p`` plugins (``addopts`` is the change's to edit) and every
``pytest11`` entry point (the project's own, once CI installs it) before that hook, and a
module of the change loaded so could record an approval first. The GitHub Action therefore
takes the file's sha256 before it starts pytest, in a process the change's code did not run in
(``phasegate review digest``), and gives it on pytest's command line (``--reviews-sha256``,
never read from the settings); the plugin refuses to judge a file that no longer has it.
"""

from __future__ import annotations

import hashlib

__all__ = ["DIGEST_OPTION", "changed_since_handover", "reviews_digest"]

#: The pytest option that hands the digest over.
DIGEST_OPTION = "--reviews-sha256"


def reviews_digest(raw: bytes) -> str:
    """The sha256 of the reviews file's bytes (``b""`` when there is none), in hex."""
    return hashlib.sha256(raw).hexdigest()


def changed_since_handover(name: str, raw: bytes, expected: str) -> str | None:
    """Why the reviews file ``name``, holding ``raw``, is not the one handed over; else None."""
    found = reviews_digest(raw)
    if found == expected.strip().lower():
        return None
    return (
        f"{name} changed after it was handed over ({DIGEST_OPTION}={expected:.16}..., the "
        f"file's sha256 is now {found:.16}...): code that ran before phasegate kept it (a `-p` "
        "plugin of addopts, a pytest11 entry point) wrote it, and none of its reviews can be "
        "believed; take the digest again with `phasegate review digest` right before pytest"
    )
