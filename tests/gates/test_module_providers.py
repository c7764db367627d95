"""The distributions providing given modules: Python 3.11's mapping, for those names."""

from __future__ import annotations

import importlib.metadata
import sys
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
    _install(site, [line.split(",")[0] for line in files.get("RECORD", "").splitlines()])


def _install(site: Path, paths: Iterable[str]) -> None:
    """The listed files inside the site (Python 3.12 and later skip a listed file not there)."""
    for path in paths:
        target = site / path
        if not path.startswith("..") and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("")


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
    # Data only, no .py file: Python 3.11's rule infers no module from it.
    _dist_info(folder, "data-1.0", "data", {"RECORD": "datadir/table.csv,,\n"})
    # A second distribution claiming gamma: the mapping lists both, in sys.path order.
    _dist_info(folder, "twin-1.0", "Twin", {"top_level.txt": "gamma\n"})
    # A meta-package: metadata and a script, no module.
    _dist_info(
        folder,
        "meta-1.0",
        "meta",
        {"RECORD": "meta-1.0.dist-info/METADATA,,\n../../bin/meta-tool,,\n"},
    )
    # An empty top_level.txt declares nothing: the rule reads the files instead.
    _dist_info(folder, "blank-1.0", "blank", {"top_level.txt": "\n", "RECORD": "delta.py,,\n"})
    egg = folder / "egged-1.0.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Metadata-Version: 1.2\nName: egged\nVersion: 1.0\n")
    (egg / "SOURCES.txt").write_text("egged/__init__.py\nsetup.py\n")
    _install(folder, ["egged/__init__.py", "setup.py"])
    monkeypatch.syspath_prepend(str(folder))
    return folder


NAMES = [
    "alpha",
    "beta",
    "gamma",
    "solo",
    "unrelated",
    "datadir",
    "egged",
    "setup",
    "delta",
    "absent_module",
]

#: What Python 3.11's rule gives for NAMES on the site; the fixture's distributions come first.
EXPECTED = {
    "alpha": ["Declared.Top"],
    "beta": ["Declared.Top"],
    "gamma": ["recorded", "Twin"],
    "solo": ["recorded"],
    "unrelated": ["other"],
    "egged": ["egged"],
    "setup": ["egged"],
    "delta": ["blank"],
}

#: The standard library's mapping follows the rule only on 3.11.
ON_311_ONLY = pytest.mark.skipif(
    sys.version_info[:2] != (3, 11),
    reason="packages_distributions() follows Python 3.11's rule only on 3.11: 3.10 reads only "
    "top_level.txt, 3.12 and later infer modules from files of any kind",
)


def _whole_for(names: Iterable[str]) -> dict[str, list[str]]:
    whole = importlib.metadata.packages_distributions()
    return {name: whole[name] for name in names if name in whole}


def test_the_answers_follow_python_311s_rule_on_every_python(site: Path) -> None:
    providers = ModuleProviders(NAMES)
    answers = {name: providers.distributions(name)[: len(want)] for name, want in EXPECTED.items()}
    assert answers == EXPECTED
    assert providers.distributions("datadir") == []
    assert providers.distributions("absent_module") == []


@ON_311_ONLY
def test_the_answers_are_the_standard_librarys_mapping_for_the_names_asked(site: Path) -> None:
    assert ModuleProviders(NAMES).by_module == _whole_for(NAMES)


@ON_311_ONLY
def test_every_module_of_this_environment_maps_as_the_standard_library_maps_it() -> None:
    whole = importlib.metadata.packages_distributions()
    assert ModuleProviders([*whole, "absent_module"]).by_module == whole


def test_a_record_naming_none_of_the_modules_is_not_parsed(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inferred = module_providers._inferred_modules
    parsed: list[str] = []

    def counting(dist: importlib.metadata.Distribution) -> set[str]:
        parsed.append(dist.metadata["Name"])
        return inferred(dist)

    monkeypatch.setattr(module_providers, "_inferred_modules", counting)
    assert ModuleProviders(["gamma"]).distributions("gamma")[:2] == ["recorded", "Twin"]
    assert "recorded" in parsed
    assert "egged" in parsed  # no RECORD: the rule reads its file list another way
    assert "other" not in parsed
    assert "meta" not in parsed


def test_a_distribution_installing_no_module_is_told_apart(site: Path) -> None:
    providers = ModuleProviders([])
    assert providers.by_module == {}
    assert not providers.installs_modules(canonicalize_name("meta"))
    assert not providers.installs_modules(canonicalize_name("data"))
    assert not providers.installs_modules(canonicalize_name("not-installed-anywhere"))
    assert providers.installs_modules(canonicalize_name("declared-top"))


def test_a_distribution_without_top_level_txt_installs_the_modules_of_its_files(
    site: Path,
) -> None:
    # Hatchling, flit and poetry-core write no top_level.txt; Python 3.10's mapping knows only
    # that file, and taking such a distribution for a meta-package would accept its requirements.
    providers = ModuleProviders([])
    assert providers.installs_modules(canonicalize_name("recorded"))
    assert providers.installs_modules(canonicalize_name("blank"))
    assert providers.installs_modules(canonicalize_name("egged"))


def test_a_distribution_of_compiled_modules_only_is_no_meta_package(site: Path) -> None:
    # By Python 3.11's rule such a distribution provides no module (only .py files count), but
    # taking it for a meta-package would count its requirements as declared.
    _dist_info(
        site, "fastext-1.0", "fastext", {"RECORD": "fastext.cpython-311-x86_64-linux-gnu.so,,\n"}
    )
    _dist_info(
        site, "cpkg-1.0", "cpkg", {"RECORD": "cpkg/_core.cpython-311-x86_64-linux-gnu.so,,\n"}
    )
    providers = ModuleProviders([])
    assert providers.installs_modules(canonicalize_name("fastext"))
    assert providers.installs_modules(canonicalize_name("cpkg"))
    assert not providers.installs_modules(canonicalize_name("meta"))
    assert not providers.installs_modules(canonicalize_name("data"))
