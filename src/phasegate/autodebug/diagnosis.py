"""What a failure is (:class:`Diagnosis`) and what might repair it (:class:`Candidate`).

A diagnosis is made where the test ran, from the live exception, and travels to the process
that writes artifacts (across pytest-xdist) as a dict of plain JSON values: :meth:`to_dict`
and :meth:`from_dict`. Candidates are made in the writing process, from the diagnosis and the
files as they are when the candidate is tried.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TypedDict, cast

__all__ = [
    "ERROR_CLASSES",
    "REPAIRABLE_CLASSES",
    "Candidate",
    "Diagnosis",
    "DiagnosisDocument",
    "FileEdit",
]

#: The classes a failure falls into; third-party patterns may add their own.
ERROR_CLASSES = ("syntax", "name", "attribute", "import", "type", "none", "assertion", "other")

#: Classes for which built-in patterns propose repairs; the rest are localized only.
REPAIRABLE_CLASSES = ("syntax", "name", "attribute", "import", "type", "none")


class DiagnosisDocument(TypedDict):
    """A :class:`Diagnosis` as plain JSON values (:meth:`Diagnosis.to_dict`), one key a field."""

    pattern: str
    error_class: str
    kind: str
    exc_type: str
    message: str
    path: str | None
    line: int | None
    col: int | None
    end_line: int | None
    end_col: int | None
    facts: dict[str, object]
    cpython_suggestion: str | None


@dataclass
class Diagnosis:
    """One failure, classified: the pattern, where the fault is, and the facts a repair needs.

    ``path`` is relative to the project root with ``/`` separators, or ``None`` when the
    fault is outside the project (a library, the standard library). ``line`` is 1-based;
    ``col`` and ``end_col`` are 0-based character columns. ``facts`` holds plain JSON values
    only, and is the pattern's own business: free-form, typed ``object`` here (each built-in
    pattern casts it to its own TypedDict; a third-party pattern's facts may hold any keys).
    """

    pattern: str
    error_class: str
    kind: str
    exc_type: str
    message: str
    path: str | None = None
    line: int | None = None
    col: int | None = None
    end_line: int | None = None
    end_col: int | None = None
    facts: dict[str, object] = field(default_factory=dict)
    cpython_suggestion: str | None = None

    def to_dict(self) -> DiagnosisDocument:
        """The diagnosis as plain values (what crosses from an xdist worker)."""
        return cast("DiagnosisDocument", asdict(self))  # one key a field: tests/test_documents.py

    @classmethod
    def from_dict(cls, data: DiagnosisDocument) -> Diagnosis:
        """Rebuild a diagnosis from :meth:`to_dict`'s output; unknown keys are ignored."""
        return cls(
            pattern=data["pattern"],
            error_class=data["error_class"],
            kind=data["kind"],
            exc_type=data["exc_type"],
            message=data["message"],
            path=data.get("path"),
            line=data.get("line"),
            col=data.get("col"),
            end_line=data.get("end_line"),
            end_col=data.get("end_col"),
            facts=data.get("facts", {}),
            cpython_suggestion=data.get("cpython_suggestion"),
        )

    def root_cause(self) -> tuple[object, ...]:
        """What failures with the same cause share: several tests hitting one typo.

        A None traced to where it came from (a function without ``return``, a variable set
        to None) has that place as its cause, however many places it is used in.
        """
        source = self.facts.get("source")
        if isinstance(source, dict) and source.get("path"):
            line = source.get("line") or source.get("function_line")
            if line is not None:
                return (self.pattern, "origin", source.get("how"), source["path"], line)
        return (
            self.pattern,
            self.kind,
            self.path,
            self.line,
            self.col,
            self.exc_type,
            self.facts.get("name"),
        )

    def span(self) -> tuple[int, int, int, int] | None:
        """``(line, col, end_line, end_col)`` when the exact place is known."""
        line, col, end_line, end_col = self.line, self.col, self.end_line, self.end_col
        if line is None or col is None or end_line is None or end_col is None:
            return None
        return (line, col, end_line, end_col)


@dataclass(frozen=True)
class FileEdit:
    """The complete new text of one file (``path`` relative to the project root)."""

    path: str
    text: str


@dataclass
class Candidate:
    """One proposed repair: what it does, in one sentence, and the files it rewrites.

    ``score`` orders the candidates of a failure (higher first); ``kind`` names the repair
    (``typo``, ``missing-import``, ``rename-definition``...).
    """

    kind: str
    description: str
    edits: list[FileEdit]
    score: float
    detail: dict[str, object] = field(default_factory=dict)

    @property
    def paths(self) -> list[str]:
        """The files this candidate rewrites."""
        return [edit.path for edit in self.edits]
