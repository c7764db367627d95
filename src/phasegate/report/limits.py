"""GitHub's size limits on what phasegate publishes, and a budget that measures against them.

The limits, as GitHub documents them:

* a pull-request comment body holds at most 65,536 characters;
* a job summary holds at most 1 MiB per step (``GITHUB_STEP_SUMMARY``; GitHub refuses to show
  a larger one);
* annotations: at most 10 of each level (error, warning, notice) per step and 50 per job;
* a SARIF upload is at most 10 MB once gzipped, with at most 20 runs per file and 25,000
  results per run.

Renderers cut deliberately to stay below them and say what they left out.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ANNOTATIONS_PER_JOB",
    "ANNOTATIONS_PER_LEVEL",
    "COMMENT",
    "COMMENT_MAX_CHARS",
    "SARIF_MAX_GZIP_BYTES",
    "SARIF_MAX_RESULTS_PER_RUN",
    "SARIF_MAX_RUNS",
    "SUMMARY",
    "SUMMARY_MAX_BYTES",
    "Budget",
]

COMMENT_MAX_CHARS = 65_536
SUMMARY_MAX_BYTES = 1024 * 1024
ANNOTATIONS_PER_LEVEL = 10
ANNOTATIONS_PER_JOB = 50
SARIF_MAX_GZIP_BYTES = 10 * 1000 * 1000
SARIF_MAX_RUNS = 20
SARIF_MAX_RESULTS_PER_RUN = 25_000


@dataclass(frozen=True)
class Budget:
    """A size limit in characters, in UTF-8 bytes, or both; ``name`` is how a note says it."""

    name: str
    max_chars: int | None = None
    max_bytes: int | None = None

    def size(self, text: str) -> int:
        """The size of ``text`` in the unit that binds (bytes when a byte limit is set)."""
        return len(text.encode("utf-8")) if self.max_bytes is not None else len(text)

    @property
    def limit(self) -> int:
        """The limit in the unit :meth:`size` counts."""
        if self.max_bytes is not None:
            return self.max_bytes
        if self.max_chars is not None:
            return self.max_chars
        raise ValueError("a budget needs max_chars or max_bytes")

    def fits(self, text: str) -> bool:
        """Whether ``text`` is within every limit of the budget."""
        if self.max_chars is not None and len(text) > self.max_chars:
            return False
        return self.max_bytes is None or len(text.encode("utf-8")) <= self.max_bytes

    def less(self, used: int) -> Budget:
        """The budget left once ``used`` (in :meth:`size` units) is taken, e.g. by text
        already in the job summary file."""
        if self.max_bytes is not None:
            return Budget(self.name, None, max(0, self.max_bytes - used))
        return Budget(self.name, max(0, self.limit - used), None)


#: A pull-request comment (a small margin stays free for GitHub's own accounting).
COMMENT = Budget("GitHub's 65,536-character comment limit", max_chars=COMMENT_MAX_CHARS - 256)
#: A job summary of one step.
SUMMARY = Budget("GitHub's 1 MiB job summary limit", max_bytes=SUMMARY_MAX_BYTES - 1024)
