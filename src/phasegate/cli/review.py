"""``phasegate review``: record peer-review outcomes, import them from GitHub, list them.

``record`` appends to ``.phasegate/reviews.jsonl`` (the file the ``review`` gate check reads);
with ``--instance`` the outcome also applies to that workflow instance's current phase
(approved: kept; changes_requested: kept, rework next cycle; rejected: discarded, the phase
repeats). ``import-github`` reads a ``pull_request_review`` event payload; a COMMENTED review
carries no outcome and is skipped, with a message saying so. ``--commit`` is kept as the full
id git resolves it to (a short id, ``HEAD``): the review check matches full ids only.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from phasegate.cli import Subcommands
from phasegate.gates.git import NO_SUCH_REVISION, NOT_A_REPOSITORY, git_text
from phasegate.model.review import REVIEWS_FILE, ReviewRecord
from phasegate.workflow.reviews import parse_status, read_github_event

if TYPE_CHECKING:
    from phasegate.model.workflow import WorkflowInstance

__all__ = ["register"]


def register(subparsers: Subcommands) -> None:
    """Add ``review record``, ``import-github``, ``import-pr``, ``digest`` and ``list``."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "review", help="record peer-review outcomes", description="Peer reviews."
    )
    commands = parser.add_subparsers(title="review commands", metavar="COMMAND")

    record = commands.add_parser("record", help="record one review outcome")
    record.add_argument("--subject", required=True, help="what was reviewed (PR, instance, ...)")
    record.add_argument("--status", required=True, help="approved, changes_requested or rejected")
    record.add_argument("--reviewer", required=True)
    record.add_argument("--commit", help="the commit reviewed (the review check matches HEAD)")
    record.add_argument("--note", default="")
    record.add_argument(
        "--instance", help="a workflow instance: apply the outcome to its current phase"
    )
    record.add_argument("--json", action="store_true")
    record.set_defaults(handler=_record)

    imported = commands.add_parser(
        "import-github", help="record a GitHub pull_request_review event payload"
    )
    imported.add_argument("event", type=Path, help="the payload file (GITHUB_EVENT_PATH)")
    imported.add_argument("--instance", help="a workflow instance to apply the outcome to")
    imported.add_argument("--json", action="store_true")
    imported.set_defaults(handler=_import_github)

    pulled = commands.add_parser(
        "import-pr",
        help="record the reviews of a pull request, read from GitHub (for the review check in CI)",
    )
    pulled.add_argument(
        "--pr", type=int, help="the pull request's number (default: the pull_request event's)"
    )
    pulled.set_defaults(handler=_import_pr)

    digest = commands.add_parser(
        "digest",
        help="the reviews file's sha256 for pytest's --reviews-sha256, taken before it starts",
    )
    digest.set_defaults(handler=_digest)

    listing = commands.add_parser("list", help="the reviews recorded")
    listing.add_argument("--subject")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=_list)


def _record(args: argparse.Namespace) -> int:
    status = parse_status(args.status)  # before anything is read or written
    from phasegate.cli.phase import engine_here

    record, inst = engine_here().review(
        subject=args.subject,
        status=status,
        reviewer=args.reviewer,
        note=args.note,
        commit=_full_commit(args.commit),
        instance_id=args.instance,
    )
    return _show(args, record, inst)


def _full_commit(given: str | None) -> str | None:
    """The full id of the commit ``given`` names in the repository here; ``given`` itself when
    git names none (outside a repository, an id of another repository's workflow)."""
    if given is None:
        return None
    full = git_text(
        Path.cwd(),
        ["rev-parse", "--verify", "--end-of-options", f"{given}^{{commit}}"],
        none_when=(*NOT_A_REPOSITORY, *NO_SUCH_REVISION),
    )
    return full or given


def _import_github(args: argparse.Namespace) -> int:
    imported = read_github_event(args.event)
    if imported.record is None:
        if args.json:
            print(json.dumps({"recorded": None, "skipped": imported.skipped}))
        else:
            print(f"phasegate: skipped: {imported.skipped}")
        return 0
    from phasegate.cli.phase import engine_here

    found = imported.record
    record, inst = engine_here().review(
        subject=found.subject,
        status=found.status,
        reviewer=found.reviewer,
        note=found.note,
        commit=found.commit,
        instance_id=args.instance,
        source="github",
        recorded_at=found.recorded_at,
        pull_request=found.pull_request,
        url=found.url,
    )
    return _show(args, record, inst)


def _show(args: argparse.Namespace, record: ReviewRecord, inst: WorkflowInstance | None) -> int:
    if args.json:
        print(json.dumps({"recorded": record.model_dump(mode="json"), "skipped": None}, indent=2))
        return 0
    commit = f" at {record.commit[:12]}" if record.commit else ""
    print(
        f"recorded: {record.subject}{commit}: {record.status.value} by {record.reviewer} "
        f"-> {record.outcome}"
    )
    if inst is not None:
        print(f"{inst.id}: {inst.state.value} in {inst.phase} (cycle {inst.cycle})")
    return 0


def _list(args: argparse.Namespace) -> int:
    from phasegate.cli.phase import engine_here

    reviews = engine_here().store.read_jsonl(REVIEWS_FILE, ReviewRecord).entries
    if args.subject:
        reviews = [r for r in reviews if r.subject == args.subject]
    if args.json:
        print(json.dumps([r.model_dump(mode="json") for r in reviews], indent=2))
        return 0
    for review in reviews:
        print(_review_line(review))
    if not reviews:
        print("no reviews recorded")
    return 0


def _review_line(review: ReviewRecord) -> str:
    where = f" [{review.instance}/{review.phase}]" if review.instance else ""
    at = f" at {review.commit[:12]}" if review.commit else ""
    note = f": {review.note}" if review.note else ""
    return (
        f"{review.recorded_at:%Y-%m-%d %H:%M} {review.subject}{where} {review.status.value} by "
        f"{review.reviewer}{at}{note}"
    )


def _digest(args: argparse.Namespace) -> int:
    """Print the sha256 of the reviews file the settings name (of no bytes when there is none)."""
    from phasegate.config import find_project_root, load_config
    from phasegate.gates.reviews_handover import reviews_digest

    path = load_config(find_project_root(Path.cwd())).artifacts_path / REVIEWS_FILE
    print(reviews_digest(path.read_bytes() if path.is_file() else b""))
    return 0


def _import_pr(args: argparse.Namespace) -> int:
    """Read the pull request's reviews from GitHub's API; record the new outcomes."""
    import os

    from phasegate.cli.report import github_client, pull_number
    from phasegate.config import find_project_root, load_config
    from phasegate.gates.pull_request_reviews import fetch_reviews, import_reviews
    from phasegate.store import Store

    client = github_client("review import-pr")
    number = pull_number(args.pr, None, os.environ)
    records = fetch_reviews(client, number)
    loaded = load_config(find_project_root(Path.cwd()))
    added = import_reviews(Store(loaded.artifacts_path), records)
    print(
        f"phasegate: pull request #{number}: {len(records)} review(s) with an outcome, "
        f"{len(added)} newly recorded"
    )
    return 0
