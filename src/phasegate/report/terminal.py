"""The short phasegate section at the end of a pytest run, as styled lines.

Returns ``(text, markup)`` pairs; the pytest plugin writes them with pytest's own terminal
writer so colour and ``-q`` behave as the rest of pytest's output does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from phasegate.gates.score import shown_score

if TYPE_CHECKING:
    from phasegate.documents import RunDocument
    from phasegate.model.gate import CheckResult, GateVerdict
    from phasegate.model.refine import RefinementState

__all__ = ["Line", "counts_phrase", "gate_lines", "round_lines", "run_lines"]

Line = tuple[str, dict[str, bool]]

_ORDER = ("passed", "failed", "errors", "skipped", "xfailed", "xpassed")


def counts_phrase(counts: Mapping[str, object]) -> str:
    """``12 collected: 11 passed, 1 failed`` (zero counts left out)."""
    parts = [f"{counts[name]} {name}" for name in _ORDER if counts.get(name)]
    text = f"{counts['collected']} collected"
    if parts:
        text += ": " + ", ".join(parts)
    aside = [
        f"{counts[name]} {label}"
        for name, label in (
            ("deselected", "deselected"),
            ("skipped_at_collection", "skipped at collection"),
        )
        if counts.get(name)
    ]
    if aside:
        text += f" ({', '.join(aside)})"
    return text


def run_lines(
    report: RunDocument | None,
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
    lines.extend(_incomplete_lines(report["incomplete_reasons"], verbosity))
    if verbosity < 0:
        lines.append((f"phasegate: report {report_path}", {}))
        return lines
    lines.append((f"tests: {counts_phrase(report['counts'])}", {}))
    lines.append((f"report: {report_path}", {}))
    return lines


def _incomplete_lines(reasons: Sequence[str], verbosity: int) -> list[Line]:
    """Why the run is incomplete: three reasons, or all of them from ``-v`` on."""
    if not reasons:
        return []
    shown = reasons if verbosity > 0 else reasons[:3]
    lines: list[Line] = [("incomplete run:", {"yellow": True, "bold": True})]
    lines.extend((f"  - {reason}", {"yellow": True}) for reason in shown)
    if len(shown) < len(reasons):
        more = len(reasons) - len(shown)
        lines.append((f"  ... and {more} more (-v shows all)", {"yellow": True}))
    return lines


_STATUS_STYLE: dict[str, dict[str, bool]] = {
    "passed": {"green": True},
    "failed": {"red": True, "bold": True},
    "error": {"red": True, "bold": True},
    "skipped": {"yellow": True},
}


def gate_lines(
    verdict: GateVerdict, verdict_path: str | None, *, verbosity: int, width: int = 100
) -> list[Line]:
    """The gate's table: one row per check, one actionable sentence each.

    ``-q`` prints the verdict line only (with the reasons when insufficient). The sentence of
    a check that failed or could not run is printed whole at any width, wrapped under its row
    (it names the threshold that failed); a passing check's sentence is cut to the terminal's
    width unless ``-v``. An optional check that did not pass is shown as a ``warning``: it
    does not decide the verdict, and a sufficient table should not say "failed".
    """
    sufficient = verdict.verdict == "sufficient"
    headline = (
        f"gate {verdict.gate}: {verdict.verdict.upper()} (score {shown_score(verdict.score)}, "
        f"{verdict.duration_s:.1f}s)"
    )
    lines: list[Line] = [(headline, {"green": True, "bold": True} if sufficient else _RED)]
    if verbosity < 0:
        lines.extend((f"  {reason}", _RED) for reason in verdict.reasons)
        return lines
    lines.extend(_table(verdict.checks, verbosity=verbosity, width=width))
    if not verdict.base.available:
        lines.append((f"  note: {verdict.base.note}", {"yellow": True}))
    if verdict_path:
        lines.append((f"verdict: {verdict_path}", {}))
    return lines


def _table(checks: Sequence[CheckResult], *, verbosity: int, width: int) -> list[Line]:
    """A row for each check, with its findings under it from ``-v`` on."""
    name_width = max((len(check.id) for check in checks), default=5)
    lines: list[Line] = []
    for check in checks:
        lines.extend(_check_row(check, name_width, verbosity=verbosity, width=width))
        if verbosity > 0:
            lines.extend(_finding_lines(check))
    return lines


def _check_row(check: CheckResult, name_width: int, *, verbosity: int, width: int) -> list[Line]:
    """A check's row: id, status, time and its sentence, wrapped when it did not pass."""
    status = check.status.value
    required = check.requirement == "required"
    prefix = _row_prefix(check, name_width, required=required)
    sentence = _sentence(check, required=required)
    style = _STATUS_STYLE[status] if required else {"yellow": True}
    if status in ("failed", "error"):
        return [(text, style) for text in _wrapped(prefix, sentence, width)]
    if verbosity <= 0 and len(prefix) + len(sentence) > width:
        sentence = sentence[: max(20, width - len(prefix) - 3)] + "..."
    return [(prefix + sentence, style)]


def _row_prefix(check: CheckResult, name_width: int, *, required: bool) -> str:
    """The row's columns before the sentence: id, status and time (and whether it was cached).

    An optional check that did not pass shows as a warning: it does not decide the verdict.
    """
    status = check.status.value
    shown = status if required or status in ("passed", "skipped") else "warning"
    cached = " cached" if check.cached else ""
    return f"  {check.id:<{name_width}}  {shown:<7} {check.duration_s:>6.1f}s{cached}  "


def _sentence(check: CheckResult, *, required: bool) -> str:
    sentence = ("" if required else "optional: ") + check.reasoning
    return sentence + (f" Fix: {check.fix}" if check.fix else "")


def _finding_lines(check: CheckResult) -> list[Line]:
    lines: list[Line] = []
    for finding in check.findings[:20]:
        where = f"{finding.path}:{finding.line}" if finding.path else "-"
        new = " new" if finding.new else ""
        lines.append((f"      {where} {finding.rule}{new}: {finding.message}", {}))
    return lines


def _wrapped(prefix: str, sentence: str, width: int) -> list[str]:
    """``prefix + sentence`` in lines of ``width``, the rest indented under the sentence.

    Words are never cut, so a long path or number stays whole; a narrow terminal gets the
    continuation lines indented less, never fewer words.
    """
    import textwrap

    indent = " " * min(len(prefix), max(4, width // 3))
    return textwrap.wrap(
        sentence,
        width=max(width, len(prefix) + 20),
        initial_indent=prefix,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [prefix.rstrip()]


_RED = {"red": True, "bold": True}


def round_lines(state: RefinementState, *, verbosity: int) -> list[Line]:
    """The round this run was and the router's next action (only the action at ``-q``)."""
    lines: list[Line] = []
    latest = state.rounds[-1]
    if verbosity >= 0:
        status = state.status.value.replace("_", " ")
        lines.append(
            (
                f"round {latest.round} of {state.task} (loop {state.loop}, at most "
                f"{state.settings.max_rounds} rounds): score {shown_score(latest.score)}, moving "
                f"average {latest.ema:.2f}; {status}",
                {},
            )
        )
    decision = state.next_action
    if decision is not None:
        target = f" {decision.target}" if decision.target else ""
        action = decision.action.value.replace("_", " ")
        style = {"green": True} if decision.action.value == "proceed" else {"yellow": True}
        lines.append((f"next: {action}{target}: {decision.reason}", style))
    return lines
