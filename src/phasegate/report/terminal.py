"""The short phasegate section at the end of a pytest run, as styled lines.

Returns ``(text, markup)`` pairs; the pytest plugin writes them with pytest's own terminal
writer so colour and ``-q`` behave as the rest of pytest's output does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["Line", "counts_phrase", "run_lines"]

Line = tuple[str, dict[str, bool]]

_ORDER = ("passed", "failed", "errors", "skipped", "xfailed", "xpassed")


def counts_phrase(counts: Mapping[str, int]) -> str:
    """``12 collected: 11 passed, 1 failed`` (zero counts left out)."""
    parts = [f"{counts[name]} {name}" for name in _ORDER if counts.get(name)]
    text = f"{counts['collected']} collected"
    if parts:
        text += ": " + ", ".join(parts)
    if counts.get("deselected"):
        text += f" ({counts['deselected']} deselected)"
    return text


def run_lines(
    report: Mapping[str, Any] | None,
    report_path: str | None,
    errors: Sequence[str],
    *,
    verbosity: int,
) -> list[Line]:
    """The lines of the section; one line at ``-q``, more detail from ``-v`` on."""
    lines: list[Line] = []
    for message in errors:
        lines.append((f"error: {message}", {"red": True, "bold": True}))
    if report is None:
        return lines
    for warning in report["warnings"]:
        lines.append((f"warning: {warning}", {"yellow": True}))
    reasons = report["incomplete_reasons"]
    if reasons:
        lines.append(("incomplete run:", {"yellow": True, "bold": True}))
        shown = reasons if verbosity > 0 else reasons[:3]
        lines.extend((f"  - {reason}", {"yellow": True}) for reason in shown)
        if len(shown) < len(reasons):
            more = len(reasons) - len(shown)
            lines.append((f"  ... and {more} more (-v shows all)", {"yellow": True}))
    if verbosity < 0:
        lines.append((f"phasegate: report {report_path}", {}))
        return lines
    lines.append((f"tests: {counts_phrase(report['counts'])}", {}))
    lines.append((f"report: {report_path}", {}))
    return lines
