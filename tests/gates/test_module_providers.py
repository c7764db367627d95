"""The distributions providing given modules: the standard library's mapping, for those names."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterable
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from phasegate.gates import module_providers
from phasegate.gates.module_providers import ModuleProviders


def _dist_info(site: Path, stem: str, name: str, files: dict[str, str]) -> None:
    info = site / f"{stem}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    for file, text in files.items():
        (info / file).write_text(text)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Distributions of every kind the rule reads, first on sys.path."""
    folder = tmp_path / "site"
    _dist_info(folder, "declared_top-1.0", "Declared.Top", {"top_level.txt": "alpha\nbeta\n"})
    _dist_info(
        folder,
        "recorded-1.0",
        "recorded",
        {
            "RECORD": "gamma/__init__.py,,\ngamma/data.txt,,\nsolo.py,,\n"
            "recorded-1.0.dist-info/METADATA,,\n"
        },
    )
    _dist_info(folder, "other-1.0", "other", {"RECORD": "unrelated/__init__.py,,\n"})
    # A second distribution claiming gamma: the mapping lists both, in sys.path order.
    _dist_info(folder, "twin-1.0", "Twin", {"top_level.txt": "gamma\n"})
    _dist_info(folder, "meta-1.0", "meta", {"RECORD": "meta-1.0.dist-info/METADATA,,\n"})
    # An empty top_level.txt declares nothing: the rule reads the files instead.
    _dist_info(folder, "blank-1.0", "blank", {"top_level.txt": "\n", "RECORD": "delta.py,,\n"})
    egg = folder / "egged-1.0.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Metadata-Version: 1.2\nName: egged\nVersion: 1.0\n")
    (egg / "SOURCES.txt").write_text("egged/__init__.py\nsetup.py\n")
    monkeypatch.syspath_prepend(str(folder))
    return folder


NAMES = ["alpha", "beta", "gamma", "solo", "unrelated", "egged", "setup", "delta", "absent_module"]


def _whole_for(names: Iterable[str]) -> dict[str, list[str]]:
    whole = importlib.metadata.packages_distributions()
    return {name: whole[name] for name in names if name in whole}


def test_the_answers_are_the_standard_librarys_mapping_for_the_names_asked(site: Path) -> None:
    providers = ModuleProviders(NAMES)
    assert providers.by_module == _whole_for(NAMES)
    assert providers.distributions("gamma")[:2] == ["recorded", "Twin"]
    assert providers.distributions("alpha")[0] == "Declared.Top"
    assert providers.distributions("egged")[0] == "egged"
    assert providers.distributions("delta")[0] == "blank"
    assert providers.distributions("absent_module") == []


def test_every_module_of_this_environment_maps_as_the_standard_library_maps_it() -> None:
    whole = importlib.metadata.packages_distributions()
    assert ModuleProviders([*whole, "absent_module"]).by_module == whole


def test_a_record_naming_none_of_the_modules_is_not_parsed(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inferred = importlib.metadata._top_level_inferred  # type: ignore[attr-defined]
    parsed: list[str] = []

    def counting(dist: importlib.metadata.Distribution) -> object:
        parsed.append(dist.metadata["Name"])
        return inferred(dist)

    monkeypatch.setattr(importlib.metadata, "_top_level_inferred", counting)
    assert ModuleProviders(["gamma"]).distributions("gamma")[:2] == ["recorded", "Twin"]
    assert "recorded" in parsed
    assert "egged" in parsed  # no RECORD: the rule reads its file list another way
    assert "other" not in parsed
    assert "meta" not in parsed


def test_a_distribution_installing_no_module_is_told_apart(site: Path) -> None:
    providers = ModuleProviders([])
    assert providers.by_module == {}
    assert not providers.installs_modules(canonicalize_name("meta"))
    assert not providers.installs_modules(canonicalize_name("not-installed-anywhere"))
    assert providers.installs_modules(canonicalize_name("recorded"))
    assert providers.installs_modules(canonicalize_name("declared-top"))


def test_without_the_standard_librarys_rule_the_whole_mapping_is_read(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As on Python 3.10, whose importlib.metadata has no per-distribution rule to call.
    monkeypatch.setattr(module_providers, "_stdlib_rule", lambda: None)
    providers = ModuleProviders(NAMES)
    assert providers.by_module == _whole_for(NAMES)
    assert not providers.installs_modules(canonicalize_name("meta"))
    assert providers.installs_modules(canonicalize_name("recorded"))
