"""The built-in report formats: Markdown, SARIF and annotations.

They register through the ``phasegate_report_formats`` hook, as a third party's formats do
(:mod:`phasegate.report.formats` registers this module with the plugin manager). Each wraps
its renderer module and says what ``phasegate report github`` does with it: the Markdown
report becomes ``comment.md`` (step output ``comment-path``), SARIF ``phasegate.sarif``
(``sarif-path``), and the annotations are printed in the step's log, where GitHub reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from phasegate.hookspecs import hookimpl
from phasegate.report.annotations import render_annotations
from phasegate.report.bundle import Bundle
from phasegate.report.formats import ReportContext, ReportFormat, require_verdict
from phasegate.report.markdown import render_markdown
from phasegate.report.sarif import render_sarif

__all__ = [
    "AnnotationsFormat",
    "MarkdownFormat",
    "SarifFormat",
    "phasegate_report_formats",
]


class MarkdownFormat:
    """The Markdown report: a pull-request comment or a job summary, within the budget."""

    name = "markdown"
    description = "the Markdown report (comment or summary)"
    reads: Literal["verdict", "run", "any"] = "any"
    bundle_file: str | None = "comment.md"
    step_output: str | None = "comment-path"

    def render(self, bundle: Bundle, context: ReportContext) -> str:
        """The report, sized to ``context.budget``."""
        return render_markdown(bundle, context).text


class SarifFormat:
    """SARIF 2.1.0 of the verdict's findings, for GitHub code scanning."""

    name = "sarif"
    description = "SARIF 2.1.0 for code scanning"
    reads: Literal["verdict", "run", "any"] = "verdict"
    bundle_file: str | None = "phasegate.sarif"
    step_output: str | None = "sarif-path"

    def render(self, bundle: Bundle, context: ReportContext) -> str:
        """The SARIF log; what GitHub's limits left out becomes a note."""
        verdict = require_verdict(bundle, self.name)
        output = render_sarif(verdict, path_prefix=context.path_prefix)
        for reason, count in output.left_out.items():
            context.notes.append(f"SARIF left out {count} {reason}")
        return output.dumps()


class AnnotationsFormat:
    """The verdict's findings as GitHub workflow commands, printed in the step's log."""

    name = "annotations"
    description = "GitHub workflow command annotations"
    reads: Literal["verdict", "run", "any"] = "verdict"
    bundle_file: str | None = None
    step_output: str | None = None

    def render(self, bundle: Bundle, context: ReportContext) -> str:
        """One workflow command a line."""
        verdict = require_verdict(bundle, self.name)
        lines = render_annotations(verdict, path_prefix=context.path_prefix).lines
        return "".join(f"{line}\n" for line in lines)


@hookimpl
def phasegate_report_formats() -> Sequence[ReportFormat]:
    """The built-in formats, in the order ``phasegate report --help`` lists them."""
    return (MarkdownFormat(), SarifFormat(), AnnotationsFormat())
