"""Third-party extensions: found through the `phasegate` entry-point group and `plugins`."""

from __future__ import annotations

import importlib.metadata
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from phasegate.errors import ConfigError, UsageError
from phasegate.extensions import make_plugin_manager
from phasegate.gates import registry
from phasegate.gates.registry import CheckRegistry

PLUGIN_SOURCE = """
from phasegate.hookspecs import hookimpl
from phasegate.gates.checks.syntax import SyntaxCheck


class LicenseHeaderCheck(SyntaxCheck):
    id = "license-header"
    title = "every file starts with a licence line"


@hookimpl
def phasegate_register_checks():
    return [LicenseHeaderCheck()]
"""


class FakeDistribution(importlib.metadata.Distribution):
    """A distribution that exists only in this test, as pluggy's own tests fake them."""

    def __init__(self, entry_points: str) -> None:
        self._entry_points = entry_points

    def read_text(self, filename: str) -> str | None:
        if filename == "entry_points.txt":
            return self._entry_points
        if filename == "METADATA":
            return "Metadata-Version: 2.1\nName: acme-phasegate-checks\nVersion: 2.0\n"
        return None

    def locate_file(self, path: Any) -> Path:
        return Path(str(path))


@pytest.fixture
def plugin_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "acme_checks.py").write_text(PLUGIN_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "acme_checks"
    sys.modules.pop("acme_checks", None)


def test_checks_are_found_through_an_installed_entry_point(
    plugin_module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    dist = FakeDistribution(f"[phasegate]\nacme = {plugin_module}\n")
    monkeypatch.setattr(importlib.metadata, "distributions", lambda **_: [dist])
    manager = make_plugin_manager()
    registry = CheckRegistry(manager)
    assert "license-header" in registry.ids()
    assert registry.get("license-header").origin == "acme"
    assert manager.list_plugin_distinfo()[0][1].project_name == "acme-phasegate-checks"


def test_checks_are_found_through_the_plugins_setting(plugin_module: str) -> None:
    registry = CheckRegistry(make_plugin_manager([plugin_module]))
    assert registry.get("license-header").check.title == "every file starts with a licence line"


def test_a_plugin_that_cannot_be_imported_is_a_config_error() -> None:
    with pytest.raises(
        ConfigError, match="plugins names 'no_such_plugin', which cannot be imported"
    ):
        make_plugin_manager(["no_such_plugin"])


def _plugin_returning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, returned: str) -> str:
    (tmp_path / "odd_checks.py").write_text(
        "from phasegate.hookspecs import hookimpl\n"
        "from phasegate.gates.checks.syntax import SyntaxCheck\n\n\n"
        "class OwnCheck(SyntaxCheck):\n"
        "    id = 'own'\n\n\n"
        "@hookimpl\n"
        f"def phasegate_register_checks():\n    return {returned}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "odd_checks", raising=False)
    return "odd_checks"


def test_a_plugin_returning_one_check_not_a_list_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = make_plugin_manager([_plugin_returning(tmp_path, monkeypatch, "OwnCheck()")])
    with pytest.raises(
        UsageError, match=r"plugin 'odd_checks' returned <odd_checks\.OwnCheck object .*must return"
    ):
        CheckRegistry(manager)


def test_a_plugin_returning_what_is_not_a_check_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = make_plugin_manager([_plugin_returning(tmp_path, monkeypatch, "[3]")])
    with pytest.raises(UsageError, match="plugin 'odd_checks' registered 3, which is not a check"):
        CheckRegistry(manager)


def test_a_plugin_returning_a_check_class_is_told_to_return_an_instance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = make_plugin_manager([_plugin_returning(tmp_path, monkeypatch, "[OwnCheck]")])
    with pytest.raises(
        UsageError, match=r"registered the class OwnCheck, not a check: .* OwnCheck\(\)"
    ):
        CheckRegistry(manager)


def test_a_plugin_returning_none_or_a_tuple_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = make_plugin_manager([_plugin_returning(tmp_path, monkeypatch, "(OwnCheck(),)")])
    assert CheckRegistry(manager).get("own").origin == "odd_checks"
    monkeypatch.delitem(sys.modules, "odd_checks")
    manager = make_plugin_manager([_plugin_returning(tmp_path, monkeypatch, "None")])
    assert "own" not in CheckRegistry(manager).ids()


def test_mypy_is_shown_every_built_in_check_with_its_options_model() -> None:
    source = Path(registry.__file__).read_text(encoding="utf-8")
    proven = dict(re.findall(r"^    _(\w+): Check\[[\w.]+\] = \w+\.(\w+)\(\)$", source, re.M))
    built_in = {check_id: where.partition(":")[2] for check_id, where in registry.BUILT_IN.items()}
    assert proven == built_in
