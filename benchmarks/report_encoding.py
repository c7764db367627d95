"""What writing the run report's passed tests costs: the row template against the C encoder.

A run that only records its tests writes each plainly passed test from its row
(``phasegate.recording.encode_passed_row``, a template). The plain alternative is to build
each test's record (``materialize``, the ``TestRecordDocument`` dicts) and let the standard
library's C encoder write them, one by one (``json.dumps`` of each record) or as one list.
This script counts, under callgrind, the instructions of a child process that builds the
rows of ``--tests`` passed tests and writes them each way, minus a child that only builds
the rows; it prints the instructions per test and for the whole suite, and the difference
as a share of ``--plain-run`` instructions (a plain pytest run of the same number of tests,
as ``benchmarks/overhead.py --instructions`` counts it).

    python benchmarks/report_encoding.py [--tests 5000] [--plain-run 14323000000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from instructions import available, count_instructions

#: The child: builds the rows as the plugin does, then writes them as ``mode`` says.
CHILD = """
import gc, sys
from phasegate.recording import PassedRow, encode_passed_row, materialize
from phasegate.recording import _encode as encode

mode, tests = sys.argv[1], int(sys.argv[2])
rows = [
    PassedRow(
        f"tests/test_gen_{i // 100:03d}.py::test_{i % 100}",
        (f"tests/test_gen_{i // 100:03d}.py", i % 100 * 3, f"test_{i % 100}"),
        0.000123,
        0.000045 + i * 1e-6,
        0.000031,
        (),
    )
    for i in range(tests)
]
gc.disable()  # as the recorder writes the report
if mode == "template":
    text = ",".join([encode_passed_row(row) for row in rows])
elif mode == "records-each":
    text = ",".join([encode(record) for record in materialize(rows)])
elif mode == "records-list":
    text = encode(materialize(rows))
else:
    text = ""
print(len(text))
"""

MODES = {
    "template": "rows written by the template (what phasegate does)",
    "records-each": "records built, each written by the C encoder",
    "records-list": "records built, the list written by the C encoder",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=5000)
    parser.add_argument(
        "--plain-run",
        type=int,
        default=14_323_000_000,
        help="instructions of a plain pytest run of as many tests (benchmarks/overhead.py)",
    )
    args = parser.parse_args()
    if not available():
        raise SystemExit("this script needs valgrind (Debian: apt-get install valgrind)")
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="phasegate-encoding-") as tmp:
        child = Path(tmp) / "child.py"
        child.write_text(CHILD, encoding="utf-8")
        counts = {
            mode: count_instructions(
                [sys.executable, str(child), mode, str(args.tests)], Path(tmp), env
            )
            for mode in ("rows-only", *MODES)
        }
    base = counts["rows-only"]
    template = counts["template"] - base
    print(f"{args.tests} passed tests; instructions beyond building their rows:")
    print(f"{'way':<14} {'total':>13} {'per test':>9} {'vs template':>12} {'of a plain run':>15}")
    for mode, label in MODES.items():
        cost = counts[mode] - base
        extra = (cost - template) / args.plain_run
        print(
            f"{mode:<14} {cost:>13,} {cost // args.tests:>9,} {cost / template:>11.2f}x "
            f"{extra:>+14.2%}  {label}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
