"""``phasegate report``: every registered report format, a diff of two runs, and
``report github``, which publishes all of them in a GitHub Actions step.

The formats (Markdown, SARIF, annotations, and those plugins add) come from
:class:`~phasegate.report.formats.FormatRegistry`: each is a sub-command,
``phasegate report NAME``, and this module names none of them but ``markdown``, which the job
summary is. Every sub-command reads an artifacts folder (``--dir``, default the project's
``.phasegate``). ``report github`` sets the step outputs ``verdict``, ``score`` and
``next-action`` first, from the verdict file alone; writes the Markdown report into
``GITHUB_STEP_SUMMARY`` (within what is left of the step's 1 MiB); then writes each format's
file into the artifacts folder (``comment.md``, ``phasegate.sarif``, ...) or prints it in the
step's log (the annotations), and sets the outputs naming the files (``comment-path``,
``sarif-path``, ...) and ``report-path``.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pluggy

from phasegate.cli import Subcommands
from phasegate.config import LoadedConfig, find_project_root, load_config
from phasegate.errors import PhasegateError, UsageError
from phasegate.extensions import make_plugin_manager
from phasegate.jsonvalues import is_int, value_at
from phasegate.report.bundle import Bundle, load_bundle
from phasegate.report.diff import ReportDiff, diff_bundles
from phasegate.report.formats import FormatRegistry, ReportContext, ReportFormat
from phasegate.report.limits import COMMENT, SUMMARY, Budget
from phasegate.report.markdown import ExtraSection, render_markdown
from phasegate.store import write_atomically

if TYPE_CHECKING:
    from phasegate.report.comment import GitHubClient

__all__ = ["github_client", "pull_number", "register"]


def register(subparsers: Subcommands) -> None:
    """Add ``report FORMAT`` for every registered format, and ``report diff|github|comment``."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "report",
        help="render the gate's reports: Markdown, SARIF, annotations, diff",
        description="Render the reports of a gate run from its artifacts folder.",
    )
    commands = parser.add_subparsers(title="report commands", metavar="COMMAND")
    formats = FormatRegistry(_extensions_for_help())
    for registered in formats.formats():
        report_format = registered.format
        command = commands.add_parser(report_format.name, help=report_format.description)
        _common(command)
        _format_options(command)
        command.set_defaults(handler=_render, format_name=report_format.name)

    diff = commands.add_parser(
        "diff", help="what changed between two runs", description="Compare BASE with HEAD."
    )
    diff.add_argument("base", type=Path, help="the base run's artifacts folder")
    diff.add_argument("head", type=Path, help="the head run's artifacts folder")
    diff.add_argument("--gate", metavar="NAME", help="which verdict, when a folder has several")
    diff.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    diff.set_defaults(handler=_diff)

    github = commands.add_parser(
        "github", help="publish in a GitHub Actions step (summary, annotations, outputs)"
    )
    _common(github)
    github.add_argument("--compare", type=Path, metavar="BASE_DIR", help="base run's artifacts")
    github.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=formats.names(),
        metavar="FORMAT",
        help=f"publish no FORMAT ({', '.join(formats.names())}); may be repeated",
    )
    github.add_argument(
        "--no-annotations",
        action="append_const",
        const="annotations",
        dest="skip",
        help="print no annotations (--skip annotations)",
    )
    github.set_defaults(handler=_github)

    comment = commands.add_parser(
        "comment",
        help="post or update the sticky pull-request comment",
        description="Post BODY as the sticky phasegate comment of a pull request, or update "
        "it. Needs GITHUB_TOKEN (pull-requests: write) and GITHUB_REPOSITORY.",
    )
    comment.add_argument("body", type=Path, help="the Markdown (phasegate report markdown)")
    where = comment.add_mutually_exclusive_group()
    where.add_argument("--pr", type=int, metavar="N", help="the pull request's number")
    where.add_argument(
        "--pr-file", type=Path, metavar="FILE", help="pr.json written by `report github`"
    )
    comment.add_argument(
        "--expect-head-sha",
        metavar="SHA",
        help="post only if the pull request's head is this commit (for workflow_run jobs)",
    )
    comment.add_argument("--author", default="github-actions[bot]", help="the comment's author")
    comment.set_defaults(handler=_comment)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", type=Path, help="the artifacts folder (default: .phasegate)")
    parser.add_argument("--gate", metavar="NAME", help="which verdict, when there are several")
    parser.add_argument(
        "--path-prefix",
        metavar="PATH",
        help="the project's folder inside the repository (default: asked of git)",
    )


def _format_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target",
        choices=("comment", "summary"),
        default="comment",
        help="size it for a pull-request comment (65,536 characters) or a job summary (1 MiB)",
    )
    parser.add_argument("--compare", type=Path, metavar="BASE_DIR", help="base run's artifacts")
    parser.add_argument("--out", type=Path, help="write to this file instead of printing")


def _loaded() -> LoadedConfig:
    return load_config(find_project_root(Path.cwd()))


def _extensions_for_help() -> pluggy.PluginManager:
    """The plugin manager whose formats become sub-commands.

    A configuration that cannot be read still lets the built-in formats be named: running one
    then reports the configuration's error (a format a configured plugin adds is unknown till
    then).
    """
    try:
        plugins = _loaded().config.plugins
    except PhasegateError:
        plugins = []
    try:
        return make_plugin_manager(plugins)
    except PhasegateError:
        return make_plugin_manager()


def _folder(args: argparse.Namespace, loaded: LoadedConfig) -> Path:
    folder: Path = args.dir if args.dir is not None else loaded.artifacts_path
    return folder


def _context(
    loaded: LoadedConfig,
    extensions: pluggy.PluginManager,
    bundle: Bundle,
    *,
    budget: Budget = COMMENT,
    diff: ReportDiff | None = None,
    path_prefix: str | None = None,
) -> ReportContext:
    settings = loaded.config.report
    hint = os.environ.get("PHASEGATE_ARTIFACT_HINT") or f"the artifacts folder ({bundle.source})"
    return ReportContext(
        budget=budget,
        max_failures=settings.max_failures,
        max_findings=settings.max_findings,
        traceback_lines=settings.traceback_lines,
        artifact_hint=hint,
        run_url=_run_url(os.environ),
        diff=diff,
        find_path_prefix=functools.partial(_prefix, path_prefix, loaded),
        find_extra_sections=functools.partial(_extra_sections, extensions, bundle),
    )


def _extra_sections(extensions: pluggy.PluginManager, bundle: Bundle) -> list[ExtraSection]:
    hook = extensions.hook.phasegate_report_sections
    found: list[ExtraSection] = []
    for returned in hook(verdict=bundle.verdict, report=bundle.run):
        found.extend(returned or ())
    return found


def _run_url(environment: dict[str, str] | os._Environ[str]) -> str | None:
    server = environment.get("GITHUB_SERVER_URL")
    repo = environment.get("GITHUB_REPOSITORY")
    run = environment.get("GITHUB_RUN_ID")
    return f"{server}/{repo}/actions/runs/{run}" if server and repo and run else None


def _prefix(given: str | None, loaded: LoadedConfig) -> str:
    """``--path-prefix``, else the project's folder in its repository as git says."""
    if given is not None:
        return given
    try:
        completed = subprocess.run(
            ["git", "rev-parse", "--show-prefix"],
            cwd=loaded.project_root,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return completed.stdout.strip() if completed.returncode == 0 else ""


def _emit(text: str, out: Path | None) -> None:
    if out is None:
        sys.stdout.write(text)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"phasegate: wrote {out}", file=sys.stderr)


def _compare(path: Path | None, gate: str | None, head: Bundle) -> ReportDiff | None:
    if path is None:
        return None
    name = gate or (head.verdict.gate if head.verdict else None)
    return diff_bundles(load_bundle(path, name), head)


def _render(args: argparse.Namespace) -> int:
    """``phasegate report FORMAT``: one registered format, printed or written to ``--out``."""
    loaded = _loaded()
    extensions = make_plugin_manager(loaded.config.plugins)
    formats = FormatRegistry(extensions)
    registered = formats.get(args.format_name)
    bundle = load_bundle(_folder(args, loaded), args.gate)
    context = _context(
        loaded,
        extensions,
        bundle,
        budget=COMMENT if args.target == "comment" else SUMMARY,
        diff=_compare(args.compare, args.gate, bundle),
        path_prefix=args.path_prefix,
    )
    _emit(formats.render(registered, bundle, context), args.out)
    for note in context.notes:
        print(f"phasegate: {note}", file=sys.stderr)
    return 0


def _diff(args: argparse.Namespace) -> int:
    head = load_bundle(args.head, args.gate)
    name = args.gate or (head.verdict.gate if head.verdict else None)
    base = load_bundle(args.base, name)
    diff = diff_bundles(base, head)
    if args.format == "json":
        print(diff.model_dump_json(indent=2))
    elif args.format == "markdown":
        loaded = _loaded()
        extensions = make_plugin_manager(loaded.config.plugins)
        context = _context(loaded, extensions, head, diff=diff)
        print(render_markdown(head, context).text, end="")
    else:
        for line in _diff_lines(diff):
            print(line)
    return 0


def _diff_lines(diff: ReportDiff) -> list[str]:
    lines = [f"base: {diff.base}", f"head: {diff.head}"]
    if diff.score_delta is not None:
        lines.append(
            f"verdict: {diff.verdict_before} -> {diff.verdict_after}; score "
            f"{diff.score_before:.2f} -> {diff.score_after:.2f} ({diff.score_delta:+.2f})"
        )
    for name, (before, after) in sorted(diff.coverage.items()):
        lines.append(f"coverage {name}: {_pct(before)} -> {_pct(after)}")
    return lines + _test_change_lines(diff) + _finding_change_lines(diff) + _duration_lines(diff)


def _test_change_lines(diff: ReportDiff) -> list[str]:
    lines = [
        f"tests: {diff.tests_before} -> {diff.tests_after} ({diff.added_tests} added, "
        f"{len(diff.removed_tests)} removed)",
        f"failures: {len(diff.new_failures)} new, {len(diff.fixed_failures)} fixed, "
        f"{diff.still_failing} still failing",
    ]
    lines.extend(f"  new: {c.nodeid}: {c.detail}" for c in diff.new_failures[:50])
    lines.extend(f"  fixed: {c.nodeid}" for c in diff.fixed_failures[:50])
    return lines


def _finding_change_lines(diff: ReportDiff) -> list[str]:
    lines = [f"findings: {len(diff.new_findings)} new, {diff.fixed_findings} fixed"]
    for change in diff.new_findings[:50]:
        f = change.finding
        where = f"{f.path}:{f.line}" if f.path else "-"
        lines.append(f"  new: {change.check} {f.rule} {where}: {f.message}")
    return lines


def _duration_lines(diff: ReportDiff) -> list[str]:
    lines: list[str] = []
    if diff.duration_before_s is not None and diff.duration_after_s is not None:
        lines.append(
            f"duration: {diff.duration_before_s:.1f}s -> {diff.duration_after_s:.1f}s; "
            f"{len(diff.slower)} tests slower, {len(diff.faster)} faster"
        )
    lines.extend(
        f"  slower: {c.nodeid}: {c.before_s:.3f}s -> {c.after_s:.3f}s (x{c.ratio:.2f})"
        for c in diff.slower[:20]
    )
    return lines


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _github(args: argparse.Namespace) -> int:
    """Everything a GitHub Actions step publishes, from one artifacts folder.

    The verdict's outputs are set before any format is rendered, from the verdict file alone:
    a format that fails stops the step with an error, and cannot change or hide the verdict.
    """
    loaded = _loaded()
    folder = _folder(args, loaded)
    environment = os.environ
    # Said first, so that the artifacts are uploaded even when they cannot be rendered.
    _write_outputs(environment.get("GITHUB_OUTPUT"), {"report-path": str(folder)})
    bundle = load_bundle(folder, args.gate)
    if args.dir is None:  # the project's own folder, as the action publishes it
        _refuse_another_commits(bundle, loaded.project_root)
    _refuse_a_contradicted_verdict(bundle)
    _write_outputs(environment.get("GITHUB_OUTPUT"), _verdict_outputs(bundle))
    _pull_request_file(folder, environment)
    extensions = make_plugin_manager(loaded.config.plugins)
    formats = FormatRegistry(extensions)
    diff = _compare(args.compare, args.gate, bundle)
    context = _context(loaded, extensions, bundle, diff=diff, path_prefix=args.path_prefix)
    _job_summary(environment.get("GITHUB_STEP_SUMMARY"), formats, bundle, context)
    outputs = _render_formats(formats, bundle, context, folder, skip=args.skip)
    for note in context.notes:
        print(f"phasegate: {note}", file=sys.stderr)
    _write_outputs(environment.get("GITHUB_OUTPUT"), outputs)
    return 0


def _refuse_another_commits(bundle: Bundle, root: Path) -> None:
    """A UsageError when the verdict or the run report judged another commit than the one
    checked out: an artifact of another run (committed with the change, or restored) would be
    published as this run's, and a run that ended before judging anything would pass on it."""
    from phasegate.gates.project import GateProject

    head = GateProject(root).head
    if not head:
        return  # outside git (a workspace without a checkout): no commit to match
    unnamed = _naming_no_commit(bundle)
    if unnamed:
        raise UsageError(
            f"the artifacts in {bundle.source} cannot be matched to the commit checked out: "
            f"the {unnamed} names no commit it judged, so it is not published as this run's"
        )
    others = sorted(_judged_commits(bundle) - {head})
    if others:
        raise UsageError(
            f"the artifacts in {bundle.source} judged commit {others[0][:12]}, not the one "
            f"checked out ({head[:12]}): they are another run's, and are not published "
            "as this one's; run the gate in this checkout first"
        )


def _refuse_a_contradicted_verdict(bundle: Bundle) -> None:
    """A UsageError when the verdict says sufficient against its own checks' results."""
    from phasegate.gates.evaluation import contradiction

    why = contradiction(bundle.verdict) if bundle.verdict is not None else None
    if why is not None:
        raise UsageError(f"{bundle.source}: {why}; it is not published")


def _naming_no_commit(bundle: Bundle) -> str:
    """Which artifact decides and names no commit: the verdict, or without one (``record``, a
    shard) the run report; "" when it names one."""
    if bundle.verdict is not None:
        return "" if bundle.verdict.commit else "verdict"
    return "" if getattr(getattr(bundle.run, "git", None), "sha", None) else "run report"


def _judged_commits(bundle: Bundle) -> set[str]:
    """The commits the verdict and the run report say they judged."""
    verdict = getattr(bundle.verdict, "commit", None)
    run = getattr(getattr(bundle.run, "git", None), "sha", None)
    return {commit for commit in (verdict, run) if commit}


def _render_formats(
    formats: FormatRegistry,
    bundle: Bundle,
    context: ReportContext,
    folder: Path,
    *,
    skip: Sequence[str],
) -> dict[str, str]:
    """Each format the bundle has the input of, but those skipped: written to its file in
    ``folder`` (printed in the log when it has none); the step outputs naming the files."""
    outputs: dict[str, str] = {}
    for registered in formats.formats():
        report_format = registered.format
        if report_format.name in skip or not _has_input(report_format, bundle):
            continue
        text = formats.render(registered, bundle, context)
        if report_format.bundle_file is None:
            sys.stdout.write(text)
            continue
        path = folder / report_format.bundle_file
        write_atomically(path, text.encode("utf-8"))
        if report_format.step_output is not None:
            outputs[report_format.step_output] = str(path)
    return outputs


def _verdict_outputs(bundle: Bundle) -> dict[str, str]:
    """The step outputs the action decides on: the verdict, its score, the next action."""
    outputs = {"verdict": "none"}
    if bundle.verdict is not None:
        outputs["verdict"] = bundle.verdict.verdict
        outputs["score"] = f"{bundle.verdict.score:.4f}"
    if bundle.refinement is not None and bundle.refinement.next_action is not None:
        outputs["next-action"] = bundle.refinement.next_action.action.value
    return outputs


def _has_input(report_format: ReportFormat, bundle: Bundle) -> bool:
    """Whether the bundle holds what the format reads (a run without a gate has no verdict)."""
    if report_format.reads == "verdict":
        return bundle.verdict is not None
    if report_format.reads == "run":
        return bundle.run is not None
    return True


def _job_summary(
    summary_path: str | None, formats: FormatRegistry, bundle: Bundle, context: ReportContext
) -> None:
    """The Markdown report appended to the job summary, within what is left of its 1 MiB."""
    if not summary_path:
        return
    path = Path(summary_path)
    used = path.stat().st_size if path.is_file() else 0
    summary = dataclasses.replace(context, budget=SUMMARY.less(used), notes=[])
    text = formats.render(formats.get("markdown"), bundle, summary)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)


def _pull_request_file(folder: Path, environment: dict[str, str] | os._Environ[str]) -> None:
    """Keep the pull request's number and head commit beside the reports (``pr.json``), for
    the job that comments from a ``workflow_run`` (which checks them against GitHub's API)."""
    pull = _event_pull_request(environment.get("GITHUB_EVENT_PATH"))
    if pull is None:
        return
    head = pull.get("head") or {}
    data = {
        "number": pull["number"],
        "head_sha": value_at(head, "sha"),
    }
    write_atomically(folder / "pr.json", (json.dumps(data) + "\n").encode("utf-8"))


def _event_pull_request(event_path: str | None) -> dict[str, object] | None:
    """The event's ``pull_request`` object when it has a number; None for other events or an
    event file that cannot be read (there is then no pull request to keep)."""
    if not event_path or not Path(event_path).is_file():
        return None
    try:
        event = json.loads(Path(event_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    pull = value_at(event, "pull_request")
    if not isinstance(pull, dict) or not isinstance(pull.get("number"), int):
        return None
    return pull


def _write_outputs(path: str | None, outputs: dict[str, str]) -> None:
    if not path:
        for key, value in outputs.items():
            print(f"phasegate: output {key}={value}", file=sys.stderr)
        return
    with open(path, "a", encoding="utf-8") as handle:
        for key, value in outputs.items():
            if "\n" in value:
                raise UsageError(f"the output {key} holds a line break: {value!r}")
            handle.write(f"{key}={value}\n")


def _comment(args: argparse.Namespace) -> int:
    from phasegate.report.comment import StaleHead, upsert_comment

    client = github_client("report comment")
    number = pull_number(args.pr, args.pr_file, os.environ)
    try:
        body = args.body.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(
            f"cannot read the comment body {args.body}: {exc.strerror or exc}"
        ) from exc
    try:
        done, comment_id = upsert_comment(
            client, number, body, author=args.author, expect_head_sha=args.expect_head_sha
        )
    except StaleHead as exc:
        print(f"::warning title=phasegate::{exc}")
        return 0
    print(f"phasegate: {done} comment {comment_id} on pull request #{number}")
    return 0


def github_client(command: str) -> GitHubClient:
    """A client of GitHub's API for ``command``, from ``GITHUB_TOKEN`` (or ``GH_TOKEN``),
    ``GITHUB_REPOSITORY`` and ``GITHUB_API_URL``; a usage error when one it needs is missing."""
    from phasegate.report.comment import GitHubClient

    environment = os.environ
    token = environment.get("GITHUB_TOKEN") or environment.get("GH_TOKEN")
    repository = environment.get("GITHUB_REPOSITORY")
    if not token or not repository:
        raise UsageError(f"{command} needs GITHUB_TOKEN and GITHUB_REPOSITORY in the environment")
    return GitHubClient(
        environment.get("GITHUB_API_URL", "https://api.github.com"), repository, token
    )


def pull_number(
    pr: int | None, pr_file: Path | None, environment: dict[str, str] | os._Environ[str]
) -> int:
    """The pull request's number: ``--pr``, else ``--pr-file``'s, else the event's."""
    number: object
    if pr is not None:
        number = pr
    elif pr_file is not None:
        number = _number_in_file(pr_file)
    else:
        number = _number_in_event(environment.get("GITHUB_EVENT_PATH", ""))
    if not is_int(number) or number < 1:
        raise UsageError(f"the pull request number must be a positive integer, not {number!r}")
    return number


def _number_in_file(pr_file: Path) -> object:
    """The ``number`` of a ``pr.json`` that ``report github`` wrote."""
    try:
        data = json.loads(pr_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{pr_file} is not a pr.json file: {exc}") from exc
    if not isinstance(data, dict):
        raise UsageError(f"{pr_file} is not a pr.json file: it holds {type(data).__name__}")
    return data.get("number")


def _number_in_event(event_path: str) -> object:
    """The pull request's number in the GitHub event that started the workflow."""
    try:
        event = json.loads(Path(event_path).read_text(encoding="utf-8"))
        number: object = event["pull_request"]["number"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(
            "no pull request number: give --pr N or --pr-file pr.json, or run on a "
            "pull_request event"
        ) from exc
    return number
