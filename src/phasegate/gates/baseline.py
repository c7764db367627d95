"""A first run on an existing project: findings accepted once, so that only new ones count.

Without ``--base`` every line of an existing project is new code, and a gate fails it on years
of old findings. SonarQube answers with a new-code period, ruff and mypy users with a baseline
file; phasegate keeps a baseline file: ``phasegate baseline record`` measures the gate's code
checks (:data:`BASELINE_CHECKS`) and writes each finding to ``phasegate-baseline.json`` in the
project root, which the project commits. From then on a finding the baseline holds is not new
code: conditions on new code do not count it, and conditions on all code (``overall``) still do.

A finding is matched by a fingerprint of its check, its rule, its file and the text of its
line with the whitespace collapsed, not by its line number: lines moving up or down keep it
accepted; a changed line, another rule, another file, or one more line of the same text than
was recorded (a copied line) is new. The baseline can hide nothing new by design, and each
check says how many findings it accepted. Only findings with a file and a line can be
accepted; the tests, coverage and every other check are never touched by it. Written by hand:
ruff's and mypy's baselines are each for their own tool, and this one spans several.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from phasegate import clock
from phasegate.errors import UsageError
from phasegate.model.base import SCHEMA_VERSION, schema_major
from phasegate.model.baseline import Baseline, BaselineEntry
from phasegate.model.gate import Finding
from phasegate.store import write_atomically

__all__ = [
    "BASELINE_CHECKS",
    "DEFAULT_BASELINE",
    "AcceptedFindings",
    "baseline_path",
    "build_baseline",
    "fingerprint",
    "load_baseline",
    "write_baseline",
]

#: The checks whose findings a baseline may accept: findings on lines of code.
BASELINE_CHECKS = ("lint", "security", "types", "docs")
#: The baseline's file name in the project root, unless ``baseline`` in the settings says.
DEFAULT_BASELINE = "phasegate-baseline.json"


def fingerprint(check: str, rule: str, path: str, text: str) -> str:
    """The fingerprint of a finding: its check, rule, file and line text (whitespace folded)."""
    folded = " ".join(text.split())
    return hashlib.sha256(f"{check}\0{rule}\0{path}\0{folded}".encode()).hexdigest()


@dataclass
class AcceptedFindings:
    """The baseline's entries of one check, consumed as findings match them.

    One object per measurement: each entry accepts as many findings as it recorded, and
    :attr:`accepted` counts those that matched.
    """

    root: Path
    check: str
    entries: Sequence[BaselineEntry]
    accepted: int = 0
    _remaining: Counter[str] = field(default_factory=Counter)
    _lines: dict[str, list[str] | None] = field(default_factory=dict)
    _digest: str = ""

    def __post_init__(self) -> None:
        for entry in self.entries:
            self._remaining[entry.fingerprint] += entry.count
        hasher = hashlib.sha256(self.check.encode())
        for key in sorted(self._remaining):
            hasher.update(f"{key}:{self._remaining[key]}".encode())
        self._digest = hasher.hexdigest()[:16]

    def digest(self) -> str:
        """A fingerprint of the entries, part of the check's cache key."""
        return self._digest

    def accept(self, rule: str, path: str | None, line: int | None) -> bool:
        """Whether the baseline accepts this finding (and counts it, once per entry's count)."""
        if not self._remaining or path is None or line is None:
            return False
        text = line_text(self.root, path, line, self._lines)
        if text is None:
            return False
        key = fingerprint(self.check, rule, path, text)
        if self._remaining[key] <= 0:
            return False
        self._remaining[key] -= 1
        self.accepted += 1
        return True


def line_text(
    root: Path, path: str, line: int, cache: dict[str, list[str] | None] | None = None
) -> str | None:
    """Line ``line`` (1-based) of ``path`` under ``root``; ``None`` outside the root or file."""
    lines = cache.get(path) if cache is not None and path in cache else _read_lines(root, path)
    if cache is not None:
        cache[path] = lines
    if lines is None or not 1 <= line <= len(lines):
        return None
    return lines[line - 1]


def _read_lines(root: Path, path: str) -> list[str] | None:
    target = (root / path).resolve()
    if root.resolve() not in target.parents:
        return None  # a path that leaves the project is never read
    try:
        return target.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None


def baseline_path(root: Path, setting: str) -> Path:
    """The baseline file ``setting`` names, inside the project root, or a usage error."""
    target = (root / setting).resolve()
    if root.resolve() not in target.parents:
        raise UsageError(
            f"baseline = {setting!r} in [tool.phasegate] leaves the project root {root}; "
            f"name a file inside it (default {DEFAULT_BASELINE!r})"
        )
    return target


def load_baseline(path: Path) -> Baseline | None:
    """The baseline in ``path``; ``None`` when there is none; a usage error when unreadable.

    The file is the project's, committed: a bad one is not moved aside but named, and the
    gate does not run on a guess (exit status 4).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"the baseline {path} cannot be read: {exc}") from exc
    return _parsed_baseline(path, text)


def _parsed_baseline(path: Path, text: str) -> Baseline:
    """The baseline ``text`` (read from ``path``) holds; a usage error naming the file when it
    is no baseline, or one of a newer schema than this phasegate reads."""
    try:
        baseline = Baseline.model_validate_json(text)
    except ValidationError as exc:
        raise UsageError(
            f"the baseline {path} is not a phasegate baseline: {exc.errors()[0]['msg']} at "
            f"{'.'.join(str(part) for part in exc.errors()[0]['loc']) or 'the top'}; record it "
            "again with `phasegate baseline record`"
        ) from exc
    if schema_major(baseline.schema_version) > schema_major(SCHEMA_VERSION):
        raise UsageError(
            f"the baseline {path} has schema version {baseline.schema_version}, newer than "
            f"this phasegate's {SCHEMA_VERSION}: upgrade phasegate"
        )
    return baseline


def build_baseline(root: Path, gate: str, findings: Mapping[str, Iterable[Finding]]) -> Baseline:
    """The baseline of ``findings`` by check; findings without a file and line are left out."""
    entries: dict[str, BaselineEntry] = {}
    cache: dict[str, list[str] | None] = {}
    for check, found in findings.items():
        for finding in found:
            _count(entries, check, finding, root, cache)
    ordered = sorted(entries.values(), key=lambda e: (e.check, e.path, e.line or 0, e.rule))
    return Baseline(
        recorded_at=clock.utc_now(), gate=gate, checks=sorted(findings), entries=ordered
    )


def _count(
    entries: dict[str, BaselineEntry],
    check: str,
    finding: Finding,
    root: Path,
    cache: dict[str, list[str] | None],
) -> None:
    """Count ``finding`` in the entry of its fingerprint, made on its first; one without a
    line of text to fingerprint is left out."""
    if finding.path is None or finding.line is None:
        return
    text = line_text(root, finding.path, finding.line, cache)
    if text is None:
        return
    key = fingerprint(check, finding.rule, finding.path, text)
    known = entries.get(key)
    if known is not None:
        known.count += 1
        return
    entries[key] = BaselineEntry(
        check=check,
        rule=finding.rule,
        path=finding.path,
        fingerprint=key,
        line=finding.line,
        message=finding.message,
    )


def write_baseline(path: Path, baseline: Baseline) -> None:
    """Write ``baseline`` to ``path`` atomically (a reader sees the old file or the new one)."""
    write_atomically(path, (baseline.model_dump_json(indent=1) + "\n").encode("utf-8"))
