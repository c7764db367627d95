"""A name a suspicious function's module reads and nothing binds: a lost import whose
``NameError`` the code catches.

A deleted ``from decimal import Decimal`` raises a ``NameError`` where ``Decimal(val)`` runs;
when the code catches it (``except Exception as e: raise ValueError(...) from e``, and a caller
that turns any ``ValueError`` into "no result"), the tests see only a wrong value, and the
failure is an assertion or another exception that is localized (:mod:`..localize`). This module
reads the modules of the most suspicious functions for names they read that no scope binds
(:func:`~phasegate.autodebug.unbound.unbound_names`, the compiler's own symbol tables) and
proposes the imports the name pattern proposes for a ``NameError`` there
(:func:`.names.import_candidates`: the standard library, the project, an alias). A module
with a star import is not judged. The tests decide, as for every candidate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from phasegate.autodebug.patterns.names import import_candidates
from phasegate.autodebug.unbound import unbound_names

if TYPE_CHECKING:
    from phasegate.autodebug.diagnosis import Candidate
    from phasegate.autodebug.project import Project
    from phasegate.model.autodebug import SuspiciousFunction

__all__ = ["unbound_import_candidates"]

#: The suspects whose modules are read, best first.
_FUNCTIONS = 3


def unbound_import_candidates(
    project: Project, suspicious: Sequence[SuspiciousFunction]
) -> list[Candidate]:
    """The imports of each name the top suspects' modules read and nothing binds."""
    paths = dict.fromkeys(s.path for s in suspicious[:_FUNCTIONS] if project.editable(s.path))
    return [candidate for path in paths for candidate in _imports_for(project, path)]


def _imports_for(project: Project, path: str) -> list[Candidate]:
    """The import candidates of each unbound name of the module at ``path``."""
    source = project.editable_source(path)
    if source is None:
        return []
    missing = sorted(unbound_names(source.text, path) or ())
    return [
        candidate
        for name in missing
        for candidate in import_candidates(source.text, path, name, None, project)
    ]
