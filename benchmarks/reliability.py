"""Run the fault-injection suite and print (or write) what was tried and what held, per area.

    python benchmarks/reliability.py                 # print the table
    python benchmarks/reliability.py --write         # and write docs/reliability.md

Runs ``pytest tests/faults`` (slow tests included) with ``PHASEGATE_RELIABILITY_OUT`` set, so
that every fault test records its area, the fault and whether it held (see
``tests/faults/conftest.py``). A fault that did not hold is a failing test and a
``fail-open`` row: the script exits 1 when there is any, or when the suite failed otherwise.
The CPU time of the whole run (this process's children) is printed too, since the suite is
part of every CI run and should cost minutes at most.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "reliability.md"
COMMAND = "python benchmarks/reliability.py --write"

#: The areas in the order the document lists them, with what each covers.
AREAS = {
    "tools": "every tool a check runs (ruff, bandit, mypy, radon, pip check, the isolated PEP "
    "517 build) replaced by a fake that crashes, hangs, exits with a status the tool never "
    "uses, prints nothing, garbage, `{}` or a valid document of the wrong shape; a PEP 517 "
    "backend in the project's tree that crashes, exits with a status, ends without answering, "
    "hangs, names a file it did not write, writes two, or asks for requirements missing or "
    "malformed",
    "libraries": "griffe raising, answering nothing or a module read from elsewhere, hanging; "
    "coverage.py's report missing, `{}`, of another shape, or with totals that do not add up",
    "git": "a corrupt index; git crashing, exiting 1 in silence, printing nothing or garbage, "
    "killed by a signal, hanging with a child, or not installed",
    "configuration": "coerced types, numbers that are not finite, unknown check ids, quoted "
    "thresholds, poisoned and garbled settings caches",
    "paths": "journal, setting and option paths leaving the root, through `..` or a link; "
    "auto-debug asked to write through links or into a virtual environment",
    "state": "every artifact kind truncated, garbled, of the wrong schema or of a newer "
    "major, as a file and as a JSONL line; through the store and through the commands; "
    "shards with wrong counts, corrupt coverage data or a newer major",
    "races": "12 processes racing over 200 tasks (claims mixed with fail, reject and "
    "complete, three seeds), and 12 `phasegate task claim` commands at once",
    "processes": "Ctrl-C during auto-debug and `phasegate gate run`; the static checks' "
    "process stopped while a tool hangs; a pytest-xdist worker dying mid-test",
    "fuzzing": "hypothesis over every loader: settings tables and bytes, gate files, "
    "workflow files, every artifact kind, settings caches, journals, task files",
}


#: What the suite does not show, said plainly.
LIMITS = [
    "- A forgery made to look complete is believed: a fake tool printing the whole, valid",
    "  report a clean run of the real tool would print passes, as would a check-result or",
    "  settings cache entry written with the right key and digest. Recognition refuses",
    "  what is missing, empty, garbled or of another shape; it does not authenticate.",
    "- Process groups are POSIX: on Windows a timeout stops the tool, not what it started.",
    "- A worker killed while it moves a task leaves the task in the queue's `.transit/`",
    "  folder, where `task show` says it is being moved; nothing yet moves it back by itself.",
    "- `report.json` byte for byte as phasegate wrote it (its SHA-256 is kept) is not parsed",
    "  again before it is replaced; any other content is.",
]


def run_suite(workers: str) -> tuple[list[dict[str, object]], int, float, float]:
    """The records the suite wrote, its exit status, and its wall and CPU seconds."""
    with tempfile.TemporaryDirectory(prefix="phasegate-reliability-") as folder:
        out = Path(folder) / "records.jsonl"
        command = [sys.executable, "-m", "pytest", "tests/faults", "-q", "-p", "no:cacheprovider"]
        if workers != "0":
            command += ["-n", workers]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        completed = subprocess.run(
            command, cwd=ROOT, env={**os.environ, "PHASEGATE_RELIABILITY_OUT": str(out)}
        )
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        records = (
            [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
            if out.exists()
            else []
        )
    return records, completed.returncode, wall, cpu


def table(records: list[dict[str, object]]) -> list[str]:
    """The Markdown table: tried, held and fail-open per area."""
    by_area: dict[str, list[dict[str, object]]] = defaultdict(list)
    for record in records:
        by_area[str(record["area"])].append(record)
    lines = ["| area | tried | held | fail-open |", "|---|---:|---:|---:|"]
    order = [*AREAS, *sorted(set(by_area) - set(AREAS))]
    for area in order:
        rows = by_area.get(area, [])
        held = sum(1 for row in rows if row["held"])
        lines.append(f"| {area} | {len(rows)} | {held} | {len(rows) - held} |")
    total = len(records)
    held = sum(1 for row in records if row["held"])
    lines.append(f"| **all** | **{total}** | **{held}** | **{total - held}** |")
    return lines


def document(records: list[dict[str, object]], wall: float, cpu: float) -> str:
    """docs/reliability.md."""
    failed_open = [r for r in records if not r["held"]]
    lines = [
        "# Reliability: what was tried, and what held",
        "",
        "phasegate fails closed: a check passes only on tool output it recognizes as a",
        "complete, clean result; every path read from a file is confined to the project root;",
        "every task transition is one atomic rename of a complete file; settings are strict; a",
        "file phasegate cannot read is moved aside before anything replaces it, and one of a",
        "newer major schema is refused with exit 4 and left as it is. The fault-injection",
        "suite in `tests/faults/` tries each of these as a hostile environment would, and",
        "records every fault it tried with whether it held. This page is written by",
        "",
        "```",
        COMMAND,
        "```",
        "",
        "which runs that suite (slow tests included) and fails when any fault did not hold.",
        f"Last run: {len(records)} faults tried, {len(records) - len(failed_open)} held, "
        f"**{len(failed_open)} fail-open**; the suite took {wall:.0f} s of wall time and "
        f"{cpu:.0f} s of CPU.",
        "",
        *table(records),
        "",
        "A fault *held* when the test that tried it saw what fail-closed means for it: the",
        "check an `error` (a build that crashes is a `failed` build), never `passed`, and the",
        "verdict insufficient; the bad setting",
        "refused with exit 4 naming the file, the key, the value and what is allowed; the",
        "unreadable file kept aside byte for byte, or the newer one left untouched; no task",
        "claimed twice or lost; no process left running; nothing written outside the root.",
        "",
        "## What each area tries",
        "",
    ]
    by_area: dict[str, list[str]] = defaultdict(list)
    for record in records:
        by_area[str(record["area"])].append(str(record["fault"]))
    for area, what in AREAS.items():
        lines += [f"### {area}", "", *textwrap.wrap(f"{what[0].upper()}{what[1:]}.", 96), ""]
        faults = sorted(set(by_area.get(area, [])))
        shown = faults if len(faults) <= 40 else [*faults[:40], f"... and {len(faults) - 40} more"]
        lines += [f"- {fault}" for fault in shown] + [""]
    if failed_open:
        lines += ["## Fail-open", ""] + [f"- {r['area']}: {r['fault']}" for r in failed_open]
        lines.append("")
    lines += ["## What this does not claim", "", *LIMITS]
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {DOC.relative_to(ROOT)}")
    parser.add_argument("-n", default="2", help="pytest-xdist workers (0: none; default 2)")
    args = parser.parse_args()
    records, status, wall, cpu = run_suite(args.n)
    print("\n".join(table(records)))
    print(f"suite exit status {status}; wall {wall:.1f} s; CPU {cpu:.1f} s")
    if args.write:
        DOC.write_text(document(records, wall, cpu), encoding="utf-8")
        print(f"wrote {DOC.relative_to(ROOT)}")
    fail_open = sum(1 for record in records if not record["held"])
    return 1 if fail_open or status != 0 or not records else 0


if __name__ == "__main__":
    raise SystemExit(main())
