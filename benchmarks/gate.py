"""How fast the gate is: against running the same tools by hand, warm against cold, and in pytest.

Measured on two projects, each in one run of this script, side by side:

* phasegate's own repository (its tests without the ``slow`` marker, to keep the run short);
* a generated package of at least 20,000 lines (``--lines``) with a test per module.

Three comparisons (issue #3):

(a) ``phasegate gate run --gate twelve-check`` from cold (no cache) against the serial sum of
    running the same tools by hand, one after the other: the tests under coverage, ruff,
    bandit, a PEP 517 build, pip check, griffe (API and docstrings), git log. Target <= 0.6.
(b) the gate's static checks re-run with nothing changed (warm cache) against the same checks
    from cold, both through the gate engine in this process. Target <= 0.1.
(c) ``pytest --gate=twelve-check`` against max(plain pytest, the slowest single tool).
    Target <= 1.2.

Every figure is the median of ``--rounds`` runs; the variants alternate within each round.

    python benchmarks/gate.py [--rounds 3] [--lines 20000] [--only generated|self]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as on a user's machine
    env.pop("GITHUB_BASE_REF", None)
    env.pop("GITHUB_EVENT_NAME", None)
    return env


def timed(command: list[str], cwd: Path, *, ok: tuple[int, ...] = (0, 1)) -> float:
    start = time.perf_counter()
    completed = subprocess.run(
        command, cwd=cwd, env=environment(), capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - start
    if completed.returncode not in ok:
        tail = (completed.stdout + completed.stderr)[-2000:]
        raise SystemExit(f"{' '.join(command)} exited {completed.returncode}:\n{tail}")
    return elapsed


# -- the generated package ---------------------------------------------------------------------


MODULE = '''\
"""Ledger operations, part {index}."""

from __future__ import annotations

from collections.abc import Iterable


class Account{index}:
    """An account with a balance and a history of movements."""

    def __init__(self, owner: str, balance: int = 0) -> None:
        self.owner = owner
        self.balance = balance
        self.history: list[int] = []

    def deposit(self, amount: int) -> int:
        """Add ``amount`` and return the new balance."""
        if amount <= 0:
            raise ValueError("a deposit must be positive")
        self.balance += amount
        self.history.append(amount)
        return self.balance

    def withdraw(self, amount: int) -> int:
        """Take ``amount`` out and return the new balance."""
        if amount <= 0:
            raise ValueError("a withdrawal must be positive")
        if amount > self.balance:
            raise ValueError("not enough money")
        self.balance -= amount
        self.history.append(-amount)
        return self.balance
'''

FUNCTION = '''

def total_{index}_{n}(values: Iterable[int], limit: int = {limit}) -> int:
    """Sum the values below ``limit``, counting negatives as zero."""
    result = 0
    for value in values:
        if value < 0:
            continue
        if value >= limit:
            break
        result += value
    return result
'''

TEST = """\
from ledgerly.part{index} import Account{index}, total_{index}_0


def test_account_{index}() -> None:
    account = Account{index}("sam")
    assert account.deposit(5) == 5
    assert account.withdraw(2) == 3


def test_total_{index}() -> None:
    assert total_{index}_0([1, -2, 3, 1000]) == 4
"""


def generate_package(root: Path, lines: int) -> int:
    """Write a package of at least ``lines`` lines with tests; return the lines written."""
    (root / "pyproject.toml").write_text(
        textwrap.dedent(
            """\
            [build-system]
            requires = ["hatchling"]
            build-backend = "hatchling.build"

            [project]
            name = "ledgerly"
            version = "1.0.0"
            description = "A generated package for phasegate's gate benchmark."
            requires-python = ">=3.10"

            [tool.hatch.build.targets.wheel]
            packages = ["src/ledgerly"]

            [tool.pytest.ini_options]
            pythonpath = ["src"]
            testpaths = ["tests"]

            [tool.ruff.lint]
            select = ["E", "F"]
            """
        )
    )
    package = root / "src" / "ledgerly"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""A generated ledger package."""\n')
    tests = root / "tests"
    tests.mkdir()
    written = 0
    index = 0
    while written < lines:
        body = MODULE.format(index=index)
        body += "".join(FUNCTION.format(index=index, n=n, limit=100 + n) for n in range(20))
        (package / f"part{index}.py").write_text(body)
        (tests / f"test_part{index}.py").write_text(TEST.format(index=index))
        written += body.count("\n")
        index += 1
    for command in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "."],
        ["git", "-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit", "-qm",
         "feat: a generated ledger package"],
    ):  # fmt: skip
        subprocess.run(command, cwd=root, check=True, capture_output=True)
    return written


# -- the variants ------------------------------------------------------------------------------


def by_hand(root: Path, package: Path, pytest_args: list[str]) -> dict[str, Callable[[], float]]:
    """The tools of the twelve-check gate, each run the way a person would run it."""
    out = Path(tempfile.mkdtemp(prefix="phasegate-bench-build-"))
    files = [str(path) for path in sorted(package.rglob("*.py"))]
    everything = [str(p) for p in sorted(root.rglob("*.py")) if ".phasegate" not in p.parts]
    return {
        "pytest+coverage": lambda: timed(
            [PY, "-m", "coverage", "run", "--branch", f"--source={package}", "-m", "pytest",
             "-q", "-p", "no:cacheprovider", *pytest_args], root,
        )
        + timed([PY, "-m", "coverage", "json", "-q", "-o", str(out / "cov.json")], root),
        "ruff": lambda: timed(
            [PY, "-m", "ruff", "check", "--output-format", "json", *everything], root
        ),
        "bandit": lambda: timed([PY, "-m", "bandit", "-q", "-f", "json", *files], root),
        "build": lambda: timed(
            [PY, "-m", "build", "--sdist", "--wheel", "--no-isolation", "--outdir", str(out)], root
        ),
        "pip check": lambda: timed([PY, "-m", "pip", "check"], root),
        "griffe": lambda: timed(
            [PY, "-m", "griffe", "dump", "-s", str(package.parent), "-o", str(out / "api.json"),
             package.name], root,
        ),
        "git log": lambda: timed(["git", "log", "-1", "--format=%H %s"], root),
    }  # fmt: skip


def clear_cache(root: Path) -> None:
    shutil.rmtree(root / ".phasegate" / "cache", ignore_errors=True)
    shutil.rmtree(root / ".phasegate" / "perf", ignore_errors=True)


def gate_cli(root: Path, pytest_args: list[str]) -> float:
    clear_cache(root)
    return timed(
        [PY, "-m", "phasegate", "gate", "run", "--gate", "twelve-check", "--",
         "-p", "no:cacheprovider", *pytest_args], root,
    )  # fmt: skip


def gate_pytest(root: Path, pytest_args: list[str]) -> float:
    clear_cache(root)
    return timed(
        [PY, "-m", "pytest", "-q", "--gate=twelve-check", "-p", "no:cacheprovider", *pytest_args],
        root,
    )


def plain_pytest(root: Path, pytest_args: list[str]) -> float:
    return timed([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args], root)


def static_checks(root: Path, *, cold: bool) -> float:
    """The twelve-check gate's static checks through the engine, in this process."""
    from phasegate.config import load_config
    from phasegate.gates.cache import CheckCache
    from phasegate.gates.definition import load_gate
    from phasegate.gates.newcode import resolve_new_code
    from phasegate.gates.project import Project
    from phasegate.gates.protocol import CheckContext
    from phasegate.gates.registry import CheckRegistry
    from phasegate.gates.runner import GateRunner
    from phasegate.store import Store

    if cold:
        clear_cache(root)
    loaded = load_config(root)
    gate, source = load_gate("twelve-check", root)
    store = Store(loaded.artifacts_path)
    store.ensure_writable()
    registry = CheckRegistry()
    static = {
        cid: spec for cid, spec in gate.checks.items() if registry.get(cid).check.kind == "static"
    }
    gate = gate.model_copy(update={"checks": static})
    start = time.perf_counter()
    context = CheckContext(
        project=Project(root, packages_setting=loaded.config.packages, excluded=(store.root,)),
        new_code=resolve_new_code(root, None, {}),
        store=store,
        timeout_s=900,
    )
    runner = GateRunner(gate, source, registry, context, cache=CheckCache(store))
    runner.start()
    runner.finish(None)
    return time.perf_counter() - start


def measure(name: str, root: Path, package: Path, pytest_args: list[str], rounds: int) -> None:
    hand = by_hand(root, package, pytest_args)
    results: dict[str, list[float]] = {}

    def add(key: str, value: float) -> None:
        results.setdefault(key, []).append(value)

    for _ in range(rounds):
        tools = {tool: run() for tool, run in hand.items()}
        for tool, seconds in tools.items():
            add(f"tool {tool}", seconds)
        add("by hand, serial sum", sum(tools.values()))
        add("slowest single tool", max(seconds for tool, seconds in tools.items()))
        add("plain pytest", plain_pytest(root, pytest_args))
        add("phasegate gate run (cold)", gate_cli(root, pytest_args))
        add("pytest --gate=twelve-check (cold)", gate_pytest(root, pytest_args))
        add("static checks cold", static_checks(root, cold=True))
        add("static checks warm", static_checks(root, cold=False))
    median = {key: statistics.median(values) for key, values in results.items()}
    print(f"\n== {name} ({rounds} rounds, medians) ==")
    for key, value in median.items():
        print(f"  {key:<38} {value:8.2f} s")
    a = median["phasegate gate run (cold)"] / median["by hand, serial sum"]
    b = median["static checks warm"] / median["static checks cold"]
    c = median["pytest --gate=twelve-check (cold)"] / max(
        median["plain pytest"], median["slowest single tool"]
    )
    print(f"  (a) gate run / tools by hand in series:      {a:.2f}  (target <= 0.6)")
    print(f"  (b) warm static re-run / cold static run:    {b:.3f} (target <= 0.1)")
    print(f"  (c) pytest --gate / max(pytest, slowest tool): {c:.2f}  (target <= 1.2)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--only", choices=("generated", "self"))
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}")
    if args.only in (None, "generated"):
        with tempfile.TemporaryDirectory(prefix="phasegate-bench-pkg-") as tmp:
            root = Path(tmp)
            lines = generate_package(root, args.lines)
            print(
                f"generated package: {lines} lines in {len(list(root.rglob('part*.py')))} modules"
            )
            measure("generated package", root, root / "src" / "ledgerly", [], args.rounds)
    if args.only in (None, "self"):
        with tempfile.TemporaryDirectory(prefix="phasegate-bench-self-") as tmp:
            root = Path(tmp) / "phasegate"
            subprocess.run(["git", "clone", "-q", str(REPO), str(root)], check=True)
            measure(
                "phasegate itself",
                root,
                root / "src" / "phasegate",
                ["-m", "not slow"],
                args.rounds,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
