"""The pytest plugin (entry point ``pytest11: phasegate``): options and wiring, nothing else.

Without one of phasegate's switches (``--gate``, ``--tdd``, ``--autodebug``) this module adds
its options and returns: no hook of phasegate runs per test and no artifact is written. With
one:

* the process that runs tests registers an annotator (:mod:`phasegate.plugin.annotator`);
* the process that writes artifacts (a serial run, or the pytest-xdist controller) registers
  the :class:`~phasegate.plugin.recorder.Recorder`, kept in ``config.stash[RECORDER_KEY]``;
* each feature module in :data:`FEATURES` gets ``configure(config, recorder)`` (``recorder``
  is ``None`` on a pytest-xdist worker) and registers its own hooks if it was asked for. A
  feature reads the assembled run report in its ``pytest_sessionfinish`` from
  ``recorder.outcome``, writes its artifacts through ``recorder.store``, and fails the run by
  setting ``session.exitstatus``, never by raising.

The engines do the work; every module here is pytest hooks and wiring, one job each:

==================  ==========================================================================
``annotator``       where tests run: markers and the live failure, attached to each report
``recorder``        where artifacts are written: every report kept, the run report written
``convert``         pytest's reports to the plain values of :mod:`phasegate.recording`
``display``         how the terminal sections name a file they wrote
``coverage``        coverage.py started before the project's code is imported, xdist included
``gate``            ``--gate=NAME``: builds the runner and starts the static checks
``gate_session``    the gate at the end of the session: verdict, refinement round, exit status
``shard``           ``--shard=K/N``: the shard's tests, and what ``phasegate merge`` needs
``progress``        how far the tests are, for ``phasegate gate run``
``tdd``             ``--tdd=PHASE``: the run judged by the TDD rules, the ledger appended
``autodebug``       ``--autodebug``: diagnoses where tests run, the engine where artifacts are
``contexts``        per-test coverage contexts (auto-debug's localization, mutation's baseline)
==================  ==========================================================================
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING

import pytest

# Imported as pytest starts, before any test can freeze or mock the clock (see its docstring).
from phasegate import clock  # noqa: F401

if TYPE_CHECKING:
    from pathlib import Path

    from phasegate.config import LoadedConfig
    from phasegate.plugin.recorder import Recorder

__all__ = ["FEATURES", "RECORDER_KEY", "SWITCHES", "Recorder"]

#: Where the active recorder is kept for the length of the run.
RECORDER_KEY = pytest.StashKey["Recorder"]()

#: Options that turn phasegate on; any of them starts the recording.
SWITCHES: tuple[str, ...] = ("gate", "tdd", "autodebug")

#: pytest's options, as named in its namespace, with which it runs no test.
_SHOWS_ONLY = ("collectonly", "help", "markers", "showfixtures", "show_fixtures_per_test")

#: Modules with ``configure(config, recorder)``, imported only when phasegate is on.
FEATURES: tuple[str, ...] = (
    "phasegate.plugin.shard",
    "phasegate.plugin.gate",
    "phasegate.plugin.tdd",
    "phasegate.plugin.autodebug",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("phasegate", "phasegate quality gate")
    group.addoption(
        "--gate",
        action="store",
        nargs="?",
        const="",
        default=None,
        metavar="NAME",
        help="record the run to .phasegate/report.json and evaluate the gate NAME "
        "(default: the gate named in [tool.phasegate], else 'default'; 'record' evaluates "
        "none). Write --gate=NAME when paths follow.",
    )
    group.addoption(
        "--base",
        action="store",
        default=None,
        dest="phasegate_base",
        metavar="REF",
        help="git ref that new code is measured against (overrides base; default: a pull "
        "request's base branch, else none: all code counts as new)",
    )
    group.addoption(
        "--shard",
        action="store",
        default=None,
        dest="phasegate_shard",
        metavar="K/N",
        help="run shard K of N of the suite (with --gate); `phasegate merge` judges the gate "
        "on all shards together (default: the PHASEGATE_SHARD environment variable)",
    )
    group.addoption(
        "--reviews-sha256",
        action="store",
        default=None,
        dest="phasegate_reviews_sha256",
        metavar="HEX",
        help="the sha256 the reviews file must have as the run begins (`phasegate review "
        "digest`, taken before pytest starts; the GitHub Action gives it): a review recorded "
        "by a plugin loaded before phasegate kept the file is refused. Command line only",
    )
    group.addoption(
        "--autodebug",
        action="store",
        nargs="?",
        const="suggest",
        default=None,
        metavar="MODE",
        help="classify every failure, validate candidate repairs by re-running the tests, and "
        "write each validated repair as a diff under .phasegate/autodebug/ ('suggest', the "
        "default) or leave it applied ('apply'); never edits a test file, never commits. "
        "Write --autodebug=MODE when paths follow.",
    )
    group.addoption(
        "--tdd",
        action="store",
        default=None,
        choices=("red", "green", "refactor", "phase0", "auto"),
        metavar="PHASE",
        help="judge the run by the TDD rules of PHASE (red, green, refactor, phase0 or auto) "
        "and record the verdict in .phasegate/tdd/ledger.jsonl; see docs/tdd.md",
    )
    group.addoption(
        "--tdd-cycle",
        action="store",
        default=None,
        metavar="NAME",
        help="the cycle a --tdd run is for (default: the red cycle, or a new one named c1, c2...)",
    )
    group.addoption(
        "--tdd-actor",
        action="store",
        default=None,
        metavar="NAME",
        help="who drives the run, for the TDD session log (default: pytest)",
    )
    group.addoption(
        "--phasegate-dir",
        action="store",
        default=None,
        metavar="DIR",
        help="folder for phasegate's artifacts (overrides artifacts_dir; default .phasegate)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, args: list[str]) -> None:
    # Coverage must start before conftest files and test modules import the project's code.
    if getattr(early_config.known_args_namespace, "gate", None) is not None:
        from phasegate.plugin.coverage import start_early
        from phasegate.plugin.gate import keep_environment, keep_reviews, start_static_early

        keep_environment(early_config)  # before a conftest.py can change it
        keep_reviews(early_config)  # before a conftest.py can add one
        start_static_early(early_config)  # first: it is on the gate's critical path
        start_early(early_config, args)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "perf: the perf check of a phasegate gate compares this test's duration with a baseline",
    )
    switched_on = any(config.getoption(name, default=None) is not None for name in SWITCHES)
    _check_options(config, switched_on=switched_on)
    if not switched_on:
        return
    # Imported here so that a run without phasegate never pays for pydantic and the engines.
    from phasegate.plugin.annotator import WorkerAnnotator

    recorder: Recorder | None = None
    if hasattr(config, "workerinput"):
        # A pytest-xdist worker only annotates; the controller records and writes.
        config.pluginmanager.register(WorkerAnnotator(config), "phasegate-annotator")
    elif _shows_only(config.option):
        return  # no test runs, so there is nothing to record
    else:
        recorder = _register_recorder(config)
    for name in FEATURES:
        importlib.import_module(name).configure(config, recorder)


def _shows_only(options: object) -> bool:
    """Whether pytest, given these options (its namespace), only shows something and runs no
    test: the collected tests, its help, the markers or the fixtures."""
    return any(getattr(options, name, False) for name in _SHOWS_ONLY)


def _check_options(config: pytest.Config, *, switched_on: bool) -> None:
    """A usage error for an option given without the one it needs."""
    for option in ("tdd_cycle", "tdd_actor"):
        if config.getoption(option, default=None) is not None and not config.getoption("tdd"):
            flag = "--" + option.replace("_", "-")
            raise pytest.UsageError(f"phasegate: {flag} needs --tdd=PHASE")
    if not switched_on and config.getoption("phasegate_shard", default=None) is not None:
        raise pytest.UsageError(
            "phasegate: --shard needs --gate=NAME (the gate the merged shards are judged "
            "by) or --gate=record"
        )


def _register_recorder(config: pytest.Config) -> Recorder:
    """Load the settings, open the artifacts folder, and register the annotator and recorder.

    Where the run writes its artifacts: a serial run, or the pytest-xdist controller.
    """
    from phasegate.errors import PhasegateError
    from phasegate.extensions import make_plugin_manager
    from phasegate.plugin.annotator import Annotator
    from phasegate.plugin.recorder import REPORT_MODEL, Recorder
    from phasegate.store import RUN_REPORT_FILE, Store

    try:
        loaded = _load(config)
        store = Store(loaded.artifacts_path, on_notice=lambda _message: None)
        store.ensure_writable()
        # A newer schema or a corrupt file shows before the tests run.
        store.vet(RUN_REPORT_FILE, REPORT_MODEL)
        extensions = make_plugin_manager(loaded.value_of("plugins", list))
    except PhasegateError as exc:
        raise pytest.UsageError(f"phasegate: {exc}") from exc
    config.pluginmanager.register(Annotator(config), "phasegate-annotator")
    recorder = Recorder(config, loaded, store, extensions)
    config.stash[RECORDER_KEY] = recorder
    config.pluginmanager.register(recorder, "phasegate-recorder")
    return recorder


def pytest_unconfigure(config: pytest.Config) -> None:
    # A gate refused after coverage started early (a usage error in its configuration) never
    # reaches the session that stops the measurement: stop it here, so none outlives the run.
    if config.getoption("gate", None) is not None:
        from phasegate.plugin.coverage import stop_unneeded

        stop_unneeded(config)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    recorder = config.stash.get(RECORDER_KEY, None)
    if recorder is None:
        return
    from phasegate.report.terminal import run_lines

    outcome = recorder.outcome
    verbosity = config.get_verbosity()
    lines = run_lines(outcome.document, outcome.report_path, outcome.errors, verbosity=verbosity)
    if verbosity >= 0:
        terminalreporter.write_sep("=", "phasegate")
    for text, markup in lines:
        terminalreporter.write_line(text, **markup)


def _load(config: pytest.Config) -> LoadedConfig:
    from phasegate.config import load_config

    overrides: dict[str, tuple[str, object]] = {}
    requested = config.getoption("gate")
    if requested:
        _refuse_path_as_gate(requested)
        overrides["gate"] = ("--gate", requested)
    directory = config.getoption("phasegate_dir")
    if directory is not None:
        overrides["artifacts_dir"] = ("--phasegate-dir", directory)
    # The cache spares a run that only records its tests from loading pydantic at all.
    return load_config(_project_root(config), overrides, cache=True)


def _project_root(config: pytest.Config) -> Path:
    """Where the settings are read from: the folder of the ``pyproject.toml`` pytest found,
    else pytest's root."""
    inipath = config.inipath
    if inipath is not None and inipath.name == "pyproject.toml":
        return inipath.parent
    return config.rootpath


def _refuse_path_as_gate(value: str) -> None:
    """``pytest --gate tests/`` reads ``tests/`` as the gate's name: say so, do not guess.

    A gate file may be named directly (``--gate=ci/strict.toml``).
    """
    if value.endswith(".toml"):
        return
    if "/" in value or "::" in value or value.endswith(".py") or os.path.exists(value):
        from phasegate.errors import UsageError

        raise UsageError(
            f"--gate was given {value!r} as the gate name, which looks like a test path; "
            f"write --gate=NAME, or put --gate after the paths"
        )
