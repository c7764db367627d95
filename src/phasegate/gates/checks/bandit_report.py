"""bandit's JSON report of a list of files, made in this process with bandit's own library.

``python -m bandit -f json -q [-c pyproject.toml] FILE...`` starts an interpreter and imports
bandit, its plugins found through their entry points, before it scans a file: 581 million
instructions of the 3,194 million bandit took on more-itertools (by callgrind). The static
checks' process has an interpreter already, so the security check asks bandit's library
there, taking the steps of bandit's command line (``bandit.cli.main.main``) for those
arguments:

- the configuration: ``pyproject.toml`` when it has a ``[tool.bandit]`` table, else none;
- the profile: the configuration's ``tests`` and ``skips``, checked against bandit's plugins
  (tests both run and skipped are an error, as on the command line);
- the files given, less those the configuration's ``exclude_dirs`` and bandit's default
  excluded paths leave out, each default taken as a folder when the project has one of that
  name (the command line looks in its working folder, which was the project's; here the
  files are tested against them before bandit sees them, as bandit would test them, since
  bandit's own test looks in this process's working folder, which need not be the project);
- the scan, then the document bandit's JSON formatter prints, as a dict: every result (of
  every severity and confidence) sorted by file, each with its documentation link, the files
  it could not scan under ``errors``, and its ``metrics``.

What the command does and this does not: it reads no ``.bandit`` file (given files, not
folders, the command finds none either), leaves out each result's code lines and the report's
time stamp (nothing reads them), and holds bandit's loggers at ``WARNING``, as ``-q`` does,
which also keeps its progress bar (drawn for more than 50 files at ``INFO``) off.
"""

from __future__ import annotations

import fnmatch
import logging
import operator
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from phasegate.gates.protocol import CheckError

if TYPE_CHECKING:  # bandit ships no types: its own classes, named for the reader
    from bandit.core.config import BanditConfig
    from bandit.core.manager import BanditManager

__all__ = ["bandit_report"]


def bandit_report(root: Path, files: Sequence[Path], config_file: Path | None) -> dict[str, object]:
    """bandit's JSON report of ``files`` (see the module's docstring); a CheckError when its
    configuration or profile is refused, or its profile leaves no test to run."""
    from bandit.core import manager

    logging.getLogger("bandit").setLevel(logging.WARNING)
    settings = _configuration(config_file)
    scan = manager.BanditManager(settings, "file", profile=_profile(settings), quiet=True)
    excluded = _excluded_paths(root)
    scan.discover_files([str(path) for path in files if not _dropped(path, excluded)], False)
    if not scan.b_ts.tests:
        raise CheckError(
            "bandit's profile leaves no test to run, so nothing would be scanned",
            fix="check `tests` and `skips` in [tool.bandit]",
        )
    scan.run_tests()
    return _json_document(scan)


def _configuration(config_file: Path | None) -> BanditConfig:
    """bandit's configuration read from ``config_file`` (its defaults when None)."""
    from bandit.core import config, utils

    try:
        return config.BanditConfig(config_file=str(config_file) if config_file else None)
    except utils.ConfigError as exc:
        raise CheckError(
            f"bandit refused its configuration: {exc}", fix="fix [tool.bandit]"
        ) from exc


def _profile(settings: BanditConfig) -> dict[str, set[str]]:
    """The tests to run and to skip, as the command line takes them from the configuration."""
    from bandit.core import extension_loader

    profile = {
        "include": set(settings.get_option("tests") or []),
        "exclude": set(settings.get_option("skips") or []),
    }
    try:
        extension_loader.MANAGER.validate_profile(profile)
    except ValueError as exc:
        raise CheckError(f"bandit refused its profile: {exc}", fix="fix [tool.bandit]") from exc
    return profile


def _excluded_paths(root: Path) -> list[str]:
    """bandit's default excluded paths, each one the project has a folder of taken as that
    folder's files (``.git/*``), as the command line run in the project takes them."""
    from bandit.core import constants

    return [f"{path}/*" if (root / path).is_dir() else path for path in constants.EXCLUDE]


def _dropped(path: Path, excluded: Sequence[str]) -> bool:
    """bandit's test of a file given on its command line against the excluded paths (a glob
    its path matches, or a part of its path), made here: bandit's own first turns each
    excluded path that is a folder *of this process's working folder* into ``folder/*``, so
    its verdict on a project would hang on where the gate happens to run."""
    name = str(path)
    return any(fnmatch.fnmatch(name, pattern) or pattern in name for pattern in excluded)


def _json_document(scan: BanditManager) -> dict[str, object]:
    """What bandit's JSON formatter prints for a finished scan, less code lines and time."""
    from bandit.core import constants, docs_utils

    lowest = constants.RANKING[0]
    results = [
        {**issue.as_dict(with_code=False), "more_info": docs_utils.get_url(issue.test_id)}
        for issue in scan.get_issue_list(sev_level=lowest, conf_level=lowest)
    ]
    return {
        "results": sorted(results, key=operator.itemgetter("filename")),
        "errors": [{"filename": name, "reason": why} for name, why in scan.get_skipped()],
        "metrics": scan.metrics.data,
    }
