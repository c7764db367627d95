"""The Markdown report: a pull-request comment or a job summary, within GitHub's limits.

Sections, most important first: the verdict and the router's next action; the checks; the
failing tests with their diagnoses; coverage on new code; what changed against the base; the
review and TDD state; the quality trend over the refinement rounds (a Mermaid ``xychart-beta``,
which GitHub draws); the findings. Each section comes in a full and a compact form. Within the
budget (:mod:`phasegate.report.limits`) each section gets its full form if it fits, else its
compact form, else it is left out whole; a closing note names what was left out and where the
full artifacts are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from phasegate import __version__
from phasegate.failures import first_line
from phasegate.gates.score import shown_score
from phasegate.jsonvalues import is_number
from phasegate.model.gate import (
    BaseInfo,
    CheckResult,
    CheckStatus,
    Finding,
    GateVerdict,
    Severity,
)
from phasegate.model.refine import RefinementState, RoundRecord, RouterDecision
from phasegate.model.review import ReviewRecord
from phasegate.model.run import CollectionError, Outcome, RunReport, TestRecord
from phasegate.report import escape as md
from phasegate.report.bundle import Bundle
from phasegate.report.diff import ReportDiff
from phasegate.report.limits import COMMENT, Budget
from phasegate.report.terminal import counts_phrase

__all__ = ["MARKER", "ExtraSection", "MarkdownOptions", "Rendered", "diagnose", "render_markdown"]

#: Opens every report; the sticky comment is found again by it.
MARKER = "<!-- phasegate:report -->"

_STATUS_ICON = {
    CheckStatus.PASSED: "\u2705",
    CheckStatus.FAILED: "\u274c",
    CheckStatus.ERROR: "\u26a0\ufe0f",
    CheckStatus.SKIPPED: "\u23ed\ufe0f",
}
_SEVERITY_ORDER = {Severity.CRITICAL: 0, Severity.HIGH: 1, Severity.MEDIUM: 2, Severity.LOW: 3}
_ACTION_WORDS = {
    "proceed": "proceed",
    "route_to_debug": "route to debug",
    "retry_with_feedback": "retry with feedback",
    "add_step": "add a step",
    "truncate_from": "truncate from",
    "escalate": "escalate to a person",
}
#: Room kept for the closing note whatever the sections take.
_FOOTER_RESERVE = 1200

_KINDS: dict[str, str] = {
    "AssertionError": "an assertion did not hold: the code returned something the test does "
    "not expect",
    "ModuleNotFoundError": "a module cannot be imported: a missing dependency or a wrong name",
    "ImportError": "an import failed: a missing name or a circular import",
    "NameError": "a name is used but never defined",
    "AttributeError": "an object lacks the attribute used (often None where a value was expected)",
    "TypeError": "a value of the wrong type, or a call with the wrong arguments",
    "ValueError": "a value of the right type but not acceptable",
    "KeyError": "a key missing from a mapping",
    "IndexError": "an index past the end of a sequence",
    "SyntaxError": "the code does not parse",
    "ZeroDivisionError": "a division by zero",
    "RecursionError": "unbounded recursion",
    "TimeoutError": "something took too long",
    "FileNotFoundError": "a file the code expects is missing",
    "NotImplementedError": "code that is not written yet",
}


@dataclass(frozen=True)
class ExtraSection:
    """A section a plugin adds (``phasegate_report_sections``): a title and Markdown body."""

    title: str
    body: str
    compact: str | None = None


@dataclass
class MarkdownOptions:
    """What the report shows and how large it may be.

    ``budget`` is the size the output must fit (a pull-request comment or a job summary);
    ``diff`` the changes against a base run (``--compare``), if any. The sections plugins add
    (``extra_sections``, the ``phasegate_report_sections`` hook's) are found only when a report
    asks for them.
    """

    budget: Budget = COMMENT
    max_failures: int = 50
    max_findings: int = 100
    traceback_lines: int = 25
    artifact_hint: str = "the artifacts folder (.phasegate/)"
    run_url: str | None = None
    diff: ReportDiff | None = None
    find_extra_sections: Callable[[], Sequence[ExtraSection]] = tuple

    @functools.cached_property
    def extra_sections(self) -> Sequence[ExtraSection]:
        """The sections plugins add to a Markdown report."""
        return self.find_extra_sections()


@dataclass
class Rendered:
    """The Markdown and what was left out of it."""

    text: str
    left_out: list[str] = field(default_factory=list)
    compacted: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Section:
    title: str
    variants: tuple[str, ...]  # fullest first
    items: str = ""  # e.g. "1,234 tests", said when the section is left out


def diagnose(test: TestRecord) -> str:
    """One sentence on what kind of failure this is and where it was raised."""
    failure = test.failure
    if failure is None:
        return test.reason or f"the test ended as {test.outcome.value}"
    short = failure.exc_type.rsplit(".", 1)[-1]
    kind = _KINDS.get(short, f"{short} was raised")
    if failure.phase in ("setup", "teardown"):
        kind = f"the {failure.phase} of the test failed (a fixture): {kind}"
    where = f" at {failure.path}:{failure.line}" if failure.path and failure.line else ""
    return f"{kind}{where}"


def render_markdown(bundle: Bundle, options: MarkdownOptions | None = None) -> Rendered:
    """The report as Markdown within ``options.budget``."""
    opts = options or MarkdownOptions()
    header = _header(bundle)
    sections = [
        _checks(bundle.verdict),
        _failing_tests(bundle.run, opts),
        _coverage(bundle.verdict),
        _changes(bundle.verdict, opts.diff),
        _review_and_tdd(bundle, opts.extra_sections),
        _trend(bundle.refinement),
        _findings(bundle.verdict, opts.max_findings),
    ]
    rendered = Rendered(text="")
    chosen = _fitted(
        [section for section in sections if section is not None],
        opts.budget,
        opts.budget.size(header) + _FOOTER_RESERVE,
        rendered,
    )
    footer = _footer(rendered, opts)
    rendered.text = "\n\n".join([header, *chosen, footer]) + "\n"
    if not opts.budget.fits(rendered.text):  # the header alone is bounded, so this is a bug
        raise RuntimeError(f"the Markdown report exceeds {opts.budget.name}")
    return rendered


def _fitted(sections: list[_Section], budget: Budget, used: int, rendered: Rendered) -> list[str]:
    """Each section's fullest form that fits in what is left of the budget, in order; the
    sections compacted or left out are noted in ``rendered``."""
    chosen: list[str] = []
    for section in sections:
        for number, variant in enumerate(section.variants):
            size = budget.size(variant) + 2
            if used + size <= budget.limit:
                chosen.append(variant)
                used += size
                if number > 0:
                    rendered.compacted.append(section.title)
                break
        else:
            rendered.left_out.append(
                f"{section.title} ({section.items})" if section.items else section.title
            )
    return chosen


# -- sections ------------------------------------------------------------------------------


def _header(bundle: Bundle) -> str:
    verdict, run = bundle.verdict, bundle.run
    lines = [MARKER, _title(verdict)]
    facts = _facts(bundle)
    if facts:
        lines.append(" \u00b7 ".join(facts))
    lines += _incomplete_warning(run)
    decision = bundle.refinement.next_action if bundle.refinement else None
    if decision is not None:
        lines += ["", _decision_line(decision)]
    if verdict is not None and verdict.reasons:
        lines += ["", *_reasons(verdict.reasons)]
    return "\n".join(lines)


def _incomplete_warning(run: RunReport | None) -> list[str]:
    """A warning that the run is incomplete, with its first reasons."""
    if run is None or not run.incomplete:
        return []
    reasons = "; ".join(run.incomplete_reasons[:3])
    return [f"\n> [!WARNING]\n> The run is incomplete: {md.text(reasons, 600)}"]


def _title(verdict: GateVerdict | None) -> str:
    if verdict is None:
        return "### phasegate: run recorded (no gate evaluated)"
    icon = "\u2705" if verdict.verdict == "sufficient" else "\u274c"
    return f"### {icon} phasegate gate {md.code(verdict.gate, 80)}: **{verdict.verdict}**"


def _facts(bundle: Bundle) -> list[str]:
    """The header's second line: score, tests, shards, commit and base, as far as known."""
    verdict, run = bundle.verdict, bundle.run
    facts: list[str] = []
    if verdict is not None:
        facts.append(f"score **{shown_score(verdict.score)}**")
    if run is not None:
        facts += _run_facts(run)
    commit = _commit(bundle)
    if commit:
        facts.append(f"commit {md.code(commit[:12])}")
    if verdict is not None and verdict.base.available and verdict.base.ref:
        facts.append(
            f"base {md.code(verdict.base.ref, 80)} ({verdict.base.changed_files} files, "
            f"{verdict.base.changed_lines} lines changed)"
        )
    return facts


def _run_facts(run: RunReport) -> list[str]:
    """The run's test counts, and the shards it was merged from."""
    facts = [f"tests: {md.text(counts_phrase(run.counts.model_dump()))}"]
    if run.merged is not None:
        facts.append(f"merged from {len(run.merged.shards)} shards")
    return facts


def _commit(bundle: Bundle) -> str | None:
    """The commit judged: the verdict's, else the one the run report was recorded at."""
    if bundle.verdict is not None and bundle.verdict.commit:
        return bundle.verdict.commit
    run = bundle.run
    return run.git.sha if run is not None and run.git is not None else None


def _reasons(reasons: Sequence[str]) -> list[str]:
    lines = ["Why it is insufficient:"]
    lines.extend(f"- {md.text(reason, 300)}" for reason in reasons[:10])
    if len(reasons) > 10:
        lines.append(f"- \u2026 and {len(reasons) - 10} more reasons")
    return lines


def _decision_line(decision: RouterDecision) -> str:
    words = _ACTION_WORDS.get(decision.action.value, decision.action.value)
    target = f" {md.code(decision.target, 200)}" if decision.target else ""
    return f"**Next action: {words}**{target}: {md.text(decision.reason, 600)}"


def _checks(verdict: GateVerdict | None) -> _Section | None:
    if verdict is None or not verdict.checks:
        return None

    def table(checks: Sequence[CheckResult], limit: int) -> str:
        rows = ["| | check | status | score | reasoning |", "|---|---|---|---|---|"]
        for check in checks:
            optional = " (optional)" if check.requirement != "required" else ""
            reasoning = md.text(check.reasoning, limit)
            if check.fix:
                reasoning += f" Fix: {md.text(check.fix, 200)}"
            rows.append(
                f"| {_STATUS_ICON[check.status]} | {md.cell(md.code(check.id, 60))}{optional} "
                f"| {check.status.value} | {shown_score(check.score)} | {md.cell(reasoning)} |"
            )
        return "\n".join(rows)

    title = "#### Checks"
    full = f"{title}\n\n{table(verdict.checks, 400)}"
    bad = [c for c in verdict.checks if c.status is not CheckStatus.PASSED]
    passed = len(verdict.checks) - len(bad)
    compact = f"{title}\n\n{passed} of {len(verdict.checks)} checks passed." + (
        f"\n\n{table(bad, 160)}" if bad else ""
    )
    return _Section("Checks", (full, compact), f"{len(verdict.checks)} checks")


def _failing_tests(run: RunReport | None, opts: MarkdownOptions) -> _Section | None:
    if run is None:
        return None
    failing = [t for t in run.tests if t.outcome in (Outcome.FAILED, Outcome.ERROR)]
    errors = run.collection_errors
    if not failing and not errors:
        return None
    total = len(failing) + len(errors)
    title = f"#### Failing tests ({total})"
    full = [title, "", *_failing_in_full(failing, errors, opts)]
    compact = [title, "", *_failing_in_short(failing, errors, opts.artifact_hint)]
    return _Section(
        "Failing tests", ("\n".join(full), "\n".join(compact)), f"{total} failing tests"
    )


def _failing_in_full(
    failing: Sequence[TestRecord], errors: Sequence[CollectionError], opts: MarkdownOptions
) -> list[str]:
    """Collection errors first, then each failing test's details, up to ``max_failures``."""
    shown_errors = errors[: opts.max_failures]
    lines = [
        f"- collection error in {md.code(error.nodeid)}: "
        f"{md.code(error.failure.exc_type)} {md.text(error.failure.message, 300)}"
        for error in shown_errors
    ]
    shown = failing[: max(0, opts.max_failures - len(errors))]
    lines.extend(_test_details(test, opts.traceback_lines) for test in shown)
    hidden = len(failing) + len(errors) - len(shown_errors) - len(shown)
    if hidden > 0:
        lines.append(f"\n\u2026 and {hidden} more, listed in {md.text(opts.artifact_hint)}.")
    return lines


def _failing_in_short(
    failing: Sequence[TestRecord], errors: Sequence[CollectionError], artifact_hint: str
) -> list[str]:
    """One line each for the first 20 failures, collection errors after the tests."""
    few = 20
    lines = [f"- {md.code(test.nodeid)}: {md.text(_one_line(test), 200)}" for test in failing[:few]]
    lines.extend(
        f"- collection error in {md.code(error.nodeid)}"
        for error in errors[: max(0, few - len(failing))]
    )
    rest = len(failing) + len(errors) - min(len(failing) + len(errors), few)
    if rest:
        lines.append(f"- \u2026 and {rest} more, listed in {md.text(artifact_hint)}")
    return lines


def _test_details(test: TestRecord, traceback_lines: int) -> str:
    failure = test.failure
    summary = f"<code>{_html(test.nodeid, 200)}</code>: {_html(_one_line(test), 200)}"
    body = [f"Diagnosis: {md.text(diagnose(test), 400)}."]
    if test.location.path:
        line = f":{test.location.line}" if test.location.line else ""
        body.append(f"Test at {md.code(test.location.path + line)}.")
    if failure is not None and failure.traceback and traceback_lines > 0:
        lines = failure.traceback.rstrip().splitlines()[-traceback_lines:]
        body.append(md.fence("\n".join(line[:300] for line in lines), "python"))
    return "<details><summary>" + summary + "</summary>\n\n" + "\n\n".join(body) + "\n</details>"


def _coverage(verdict: GateVerdict | None) -> _Section | None:
    if verdict is None:
        return None
    check = _check_named(verdict, "coverage")
    title = "#### Coverage on new code"
    if check is None:
        return _Section("Coverage", (f"{title}\n\nThe gate has no coverage check.",))
    if check.status is CheckStatus.ERROR:
        body = f"Not measured: {md.text(check.reasoning)}"
        return _Section("Coverage", (f"{title}\n\n{body}",))
    note = "" if verdict.base.available else f"\n\n{md.text(verdict.base.note)}"
    compact = f"{title}\n\n" + "\n".join(_coverage_rows(check)) + note
    listing = _uncovered(check)
    full = compact + ("\n\nNew lines no test ran:\n" + "\n".join(listing) if listing else "")
    return _Section("Coverage", (full, compact))


def _coverage_rows(check: CheckResult) -> list[str]:
    rows = ["| scope | line rate | lines covered | branch rate |", "|---|---|---|---|"]
    for label, metrics in (("new code", check.new_code_metrics), ("overall", check.metrics)):
        rows.append(
            f"| {label} | {_pct(metrics.get('line_rate'))} | "
            f"{metrics.get('lines_covered', 'n/a')} of {metrics.get('lines', 'n/a')} | "
            f"{_pct(metrics.get('branch_rate'))} |"
        )
    return rows


def _uncovered(check: CheckResult) -> list[str]:
    """The first 20 new lines no test ran, and how many more there are."""
    uncovered = [f for f in check.findings if f.rule == "uncovered"]
    listing = [f"- {md.code(f'{f.path}')}: {md.text(f.message, 200)}" for f in uncovered[:20]]
    if len(uncovered) > 20 or check.findings_total > len(check.findings):
        listing.append(
            f"- \u2026 {max(check.findings_total, len(uncovered)) - min(20, len(uncovered))} more"
        )
    return listing


def _changes(verdict: GateVerdict | None, diff: ReportDiff | None) -> _Section | None:
    if diff is None and (verdict is None or not verdict.base.available):
        return None
    lines = ["#### Changes against the base", ""]
    if verdict is not None:
        lines.append(_base_line(verdict.base))
    if diff is None:
        return _Section("Changes against the base", ("\n".join(lines),))
    facts = _diff_facts(diff)
    full = "\n".join(lines + facts + _diff_details(diff))
    return _Section("Changes against the base", (full, "\n".join(lines + facts)))


def _base_line(base: BaseInfo) -> str:
    if not base.available:
        return md.text(base.note)
    commit = md.code((base.sha or "")[:12]) if base.sha else "unknown commit"
    return (
        f"Base {md.code(base.ref or '?')} ({commit}): "
        f"{base.changed_files} files and {base.changed_lines} lines changed."
    )


def _diff_facts(diff: ReportDiff) -> list[str]:
    """One line each: score, coverage, tests, findings and durations against the base run."""
    facts = _score_fact(diff)
    for name, (rate_before, rate_after) in sorted(diff.coverage.items()):
        scope = "new code" if name.endswith("_new") else "overall"
        facts.append(f"- line coverage ({scope}): {_pct(rate_before)} \u2192 {_pct(rate_after)}")
    facts.append(
        f"- tests: {diff.tests_before} \u2192 {diff.tests_after} ({diff.added_tests} added, "
        f"{len(diff.removed_tests)} removed); {len(diff.new_failures)} new failures, "
        f"{len(diff.fixed_failures)} fixed, {diff.still_failing} still failing"
    )
    facts.append(f"- findings: {len(diff.new_findings)} new, {diff.fixed_findings} fixed")
    if diff.slower or diff.faster:
        facts.append(f"- durations: {len(diff.slower)} tests slower, {len(diff.faster)} faster")
    return facts


def _score_fact(diff: ReportDiff) -> list[str]:
    """The score and the verdict before and after, when both runs were judged."""
    before, after = diff.score_before, diff.score_after
    if diff.score_delta is None or before is None or after is None:
        return []
    return [
        f"- score {shown_score(before)} \u2192 {shown_score(after)} "
        f"({diff.score_delta:+.2f}); verdict {diff.verdict_before} \u2192 {diff.verdict_after}"
    ]


def _diff_details(diff: ReportDiff) -> list[str]:
    """The new failures, new findings and slower tests, for the full form."""
    details = [
        f"  - new failure {md.code(change.nodeid)}: {md.text(change.detail, 200)}"
        for change in diff.new_failures[:20]
    ]
    for found in diff.new_findings[:20]:
        where = f"{found.finding.path}:{found.finding.line}" if found.finding.path else "-"
        details.append(
            f"  - new finding {md.code(found.check)} {md.code(found.finding.rule)} at "
            f"{md.code(where)}: {md.text(found.finding.message, 200)}"
        )
    details.extend(
        f"  - slower {md.code(slower.nodeid)}: {slower.before_s:.3f}s \u2192 "
        f"{slower.after_s:.3f}s (x{slower.ratio:.2f})"
        for slower in diff.slower[:10]
    )
    return details


def _review_and_tdd(bundle: Bundle, extra: Sequence[ExtraSection]) -> _Section:
    lines = ["#### Review and TDD", "", *_review_lines(bundle), *_tdd_line(bundle, extra)]
    full = list(lines)
    compact = list(lines)
    for section in extra:
        full.append(f"\n**{md.text(section.title, 120)}**\n\n{section.body}")
        if section.compact:
            compact.append(f"\n**{md.text(section.title, 120)}**\n\n{section.compact}")
    return _Section("Review and TDD", ("\n".join(full), "\n".join(compact)))


def _tdd_line(bundle: Bundle, extra: Sequence[ExtraSection]) -> list[str]:
    """The tdd check's line; without the check or a section of its own, that none ran."""
    tdd = _check_named(bundle.verdict, "tdd")
    if tdd is not None:
        return [f"- TDD: {tdd.status.value}: {md.text(tdd.reasoning, 300)}"]
    return [] if extra else ["- TDD: no TDD cycle was recorded for this run"]


def _review_lines(bundle: Bundle) -> list[str]:
    """The review check, and the latest review recorded for the commit judged."""
    review = _check_named(bundle.verdict, "review")
    commit = bundle.verdict.commit if bundle.verdict else None
    latest = _latest([r for r in bundle.reviews if commit is None or r.commit == commit])
    lines: list[str] = []
    if review is not None:
        lines.append(f"- review check: {review.status.value}: {md.text(review.reasoning, 300)}")
    if latest is not None:
        lines.append(
            f"- latest review of this commit: **{latest.status.value}** by "
            f"{md.code(latest.reviewer, 80)} ({latest.recorded_at:%Y-%m-%d %H:%M} UTC)"
        )
    elif review is None:
        lines.append("- review: none recorded for this commit")
    return lines


def _check_named(verdict: GateVerdict | None, check_id: str) -> CheckResult | None:
    if verdict is None:
        return None
    return next((c for c in verdict.checks if c.id == check_id), None)


def _trend(state: RefinementState | None) -> _Section | None:
    if state is None or not state.rounds:
        return None
    rounds = state.rounds[-state.settings.max_rounds :]
    title = "#### Quality over the refinement rounds"
    status = state.status.value.replace("_", " ")
    summary = (
        f"Task {md.code(state.task, 120)}, loop {state.loop}: round {rounds[-1].round} of "
        f"at most {state.settings.max_rounds}, {status}. Moving average "
        f"{(state.ema or 0.0):.2f} (alpha {state.settings.alpha}); the loop passes at "
        f"{state.settings.threshold:.2f} and stops early at {state.settings.early_stop:.2f}."
    )
    full = f"{title}\n\n{summary}\n\n{_trend_chart(rounds)}\n\n" + "\n".join(_rounds_table(rounds))
    scores = ", ".join(shown_score(r.score) for r in rounds)
    compact = f"{title}\n\n{summary} Scores by round: {scores}."
    return _Section("Quality trend", (full, compact))


def _trend_chart(rounds: Sequence[RoundRecord]) -> str:
    """A Mermaid chart: each round's score as a bar, the moving average as a line."""
    xs = ", ".join(str(r.round) for r in rounds)
    return "\n".join(
        [
            "```mermaid",
            "xychart-beta",
            '    title "Quality score (bars) and its moving average (line) by round"',
            f"    x-axis [{xs}]",
            '    y-axis "score" 0 --> 1',
            f"    bar [{', '.join(f'{r.score:.3f}' for r in rounds)}]",
            f"    line [{', '.join(f'{r.ema:.3f}' for r in rounds)}]",
            "```",
        ]
    )


def _rounds_table(rounds: Sequence[RoundRecord]) -> list[str]:
    table = ["| round | verdict | score | average | next action |", "|---|---|---|---|---|"]
    for item in rounds[-10:]:
        action = item.decision.action.value.replace("_", " ") if item.decision else ""
        table.append(
            f"| {item.round} | {item.verdict} | {shown_score(item.score)} "
            f"| {item.ema:.2f} | {action} |"
        )
    return table


def _findings(verdict: GateVerdict | None, limit: int) -> _Section | None:
    if verdict is None or limit <= 0:
        return None
    found, total = _ranked_findings(verdict.checks)
    if not found:
        return None
    title = f"#### Findings ({total}, new code first)"
    full = _findings_table(found, total, limit)
    compact = _findings_table(found, total, min(limit, 15))
    return _Section(
        "Findings", (f"{title}\n\n{full}", f"{title}\n\n{compact}"), f"{total} findings"
    )


def _ranked_findings(checks: Sequence[CheckResult]) -> tuple[list[tuple[str, Finding]], int]:
    """The findings of every check but tests (whose failing tests have their own section),
    new code and the most severe first; and how many there are in all, kept or not."""
    kept = [check for check in checks if check.id != "tests"]
    found = [(check.id, finding) for check in kept for finding in check.findings]
    found.sort(key=lambda pair: (not pair[1].new, _SEVERITY_ORDER[pair[1].severity]))
    return found, sum(max(check.findings_total, len(check.findings)) for check in kept)


def _findings_table(found: list[tuple[str, Finding]], total: int, count: int) -> str:
    """The first ``count`` findings as a table, and how many more the verdict file holds."""
    rows = ["| severity | check | where | rule | message |", "|---|---|---|---|---|"]
    for check_id, item in found[:count]:
        rows.append(
            f"| {item.severity.value}{' (new)' if item.new else ''} | {check_id} | "
            f"{md.cell(md.code(_where(item), 160))} | {md.cell(md.code(item.rule, 60))} | "
            f"{md.cell(md.text(item.message, 200))} |"
        )
    more = total - min(count, len(found))
    tail = f"\n\n\u2026 and {more} more findings in the verdict file." if more > 0 else ""
    return "\n".join(rows) + tail


def _footer(rendered: Rendered, opts: MarkdownOptions) -> str:
    lines = ["---"]
    if rendered.left_out:
        lines.append(
            f"**Left out** to stay within {opts.budget.name}: "
            + md.text(", ".join(rendered.left_out), 600)
            + f". Everything is in {md.text(opts.artifact_hint, 300)}."
        )
    if rendered.compacted:
        lines.append("Shortened to fit: " + md.text(", ".join(rendered.compacted), 300) + ".")
    run = f" \u00b7 [workflow run]({opts.run_url})" if opts.run_url else ""
    lines.append(f"<sub>phasegate {__version__}{run}</sub>")
    return "\n".join(lines)


# -- helpers -------------------------------------------------------------------------------


def _one_line(test: TestRecord) -> str:
    if test.failure is None:
        return test.reason or test.outcome.value
    return f"{test.failure.exc_type}: {first_line(test.failure.message)}"


def _html(value: str, limit: int) -> str:
    import html

    flat = " ".join(md.truncate(value, limit).split())
    return html.escape(flat).replace("@", "@\u2060")


def _pct(value: object) -> str:
    return f"{value:.1%}" if is_number(value) else "n/a"


def _where(item: Finding) -> str:
    if item.path is None:
        return "-"
    return f"{item.path}:{item.line}" if item.line else item.path


def _latest(reviews: Sequence[ReviewRecord]) -> ReviewRecord | None:
    return max(reviews, key=lambda r: r.recorded_at) if reviews else None
