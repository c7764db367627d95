"""The deps check: declared imports and pip check, on small projects in this environment.

The samples import distributions phasegate's own dev environment installs (PyYAML, pluggy,
packaging, griffe), so the mapping from import names to distributions is the real one.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version
from pydantic import ValidationError

from phasegate import processes
from phasegate.gates.checks import deps_measure
from phasegate.gates.checks.deps import DepsCheck
from phasegate.gates.consistency import (
    broken_requirements,
    installed_distributions,
    legacy_installs,
)
from phasegate.gates.protocol import CheckContext, CheckError, NoOptions

from .samples import git

MakeContext = Callable[..., CheckContext]
WriteFiles = Callable[..., Path]

#: The in-process answer is given where pip reads the metadata with importlib.metadata.
IMPORTLIB_PIP = pytest.mark.skipif(
    sys.version_info < (3, 11) or "_PIP_USE_IMPORTLIB_METADATA" in os.environ,
    reason="pip reads the installed metadata with pkg_resources here; the check asks pip itself",
)

PYPROJECT = """\
[project]
name = "sample"
version = "1.0"
dependencies = ["packaging>=20"]

[project.optional-dependencies]
docs = ["griffe>=1"]
"""
CLEAN_SOURCE = """\
\"\"\"Only declared, standard-library, own and guarded imports.\"\"\"
from __future__ import annotations

import os.path
from typing import TYPE_CHECKING

import packaging.version

import sample.helpers
from . import helpers

if TYPE_CHECKING:
    import yaml

try:
    import ujson as json
except ImportError:
    import json


def docs() -> object:
    import griffe  # an optional dependency, imported where it is needed

    return griffe
"""


@pytest.fixture
def fake_process_counter(monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[list[str]]]:
    """Call it to start recording the commands the checks start (they still run)."""

    def start() -> list[list[str]]:
        started: list[list[str]] = []
        real = processes.start_in_group

        def recording(command: Sequence[str], **kwargs: Any) -> Any:
            started.append(list(command))
            return real(command, **kwargs)

        monkeypatch.setattr(processes, "start_in_group", recording)
        return started

    return start


@pytest.fixture
def clean(write_files: WriteFiles) -> Path:
    return write_files(
        {
            "pyproject.toml": PYPROJECT,
            "src/sample/__init__.py": CLEAN_SOURCE,
            "src/sample/helpers.py": '"""Helpers."""\n',
            # Tests are not package source: their imports need no declaration.
            "tests/test_it.py": "import hypothesis\n",
        }
    )


def test_declared_imports_pass(clean: Path, make_context: MakeContext) -> None:
    measurement = DepsCheck().measure(make_context(clean), NoOptions())
    assert measurement.metrics == {"undeclared": 0, "pip_problems": 0}
    assert measurement.new_code_metrics == {"undeclared": 0, "pip_problems": None}
    assert measurement.findings == []
    assert "declared in pyproject.toml" in measurement.summary


def test_undeclared_imports_are_findings_at_their_lines(
    clean: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files(
        {
            "src/sample/extra.py": (
                '"""Imports it does not declare."""\n'
                "import yaml\n"
                "\n"
                "from pluggy import HookimplMarker\n"
                "import no_such_module_anywhere\n"
            )
        },
        clean,
    )
    measurement = DepsCheck().measure(make_context(clean), NoOptions())
    by_line = {finding.line: finding for finding in measurement.findings}
    assert set(by_line) == {2, 4, 5}
    assert all(f.path == "src/sample/extra.py" for f in measurement.findings)
    assert all(f.rule == "undeclared-dependency" for f in measurement.findings)
    assert "'yaml' from 'PyYAML'" in by_line[2].message
    # pluggy comes with pytest, but the package imports it itself: it must declare it.
    assert "'pluggy'" in by_line[4].message
    assert "no installed distribution provides" in by_line[5].message
    assert measurement.metrics["undeclared"] == 3
    assert "src/sample/extra.py:2" in measurement.summary


@pytest.mark.parametrize(
    ("requires_python", "undeclared"),
    [(">=3.9", []), (None, []), (">=3.9,<3.14", ["annotationlib"])],
)
def test_a_module_of_a_later_pythons_standard_library_is_not_third_party(
    clean: Path,
    write_files: WriteFiles,
    make_context: MakeContext,
    requires_python: str | None,
    undeclared: list[str],
) -> None:
    # attrs: `import annotationlib` (standard library from Python 3.14) under a version check.
    pyproject = PYPROJECT.replace(
        'version = "1.0"', f'version = "1.0"\nrequires-python = "{requires_python}"'
    )
    write_files(
        {
            "pyproject.toml": pyproject if requires_python else PYPROJECT,
            "src/sample/compat.py": (
                '"""Compat."""\nimport sys\n\nif sys.version_info >= (3, 14):\n'
                "    import annotationlib\n"
            ),
        },
        clean,
    )
    measurement = DepsCheck().measure(make_context(clean), NoOptions())
    found = sorted({f.message.split("'")[1] for f in measurement.findings})
    assert found == undeclared


def test_a_malformed_requires_python_is_an_error_naming_it(
    clean: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    pyproject = PYPROJECT.replace('version = "1.0"', 'version = "1.0"\nrequires-python = "3.10+"')
    write_files({"pyproject.toml": pyproject}, clean)
    with pytest.raises(CheckError, match=r"requires-python '3\.10\+' is not a version specifier"):
        DepsCheck().measure(make_context(clean), NoOptions())


def test_only_imports_on_changed_lines_are_new(
    clean: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({"src/sample/extra.py": '"""Old."""\nimport yaml\n'}, clean)
    git(clean, "init", "-q", "-b", "main")
    git(clean, "add", ".")
    git(clean, "commit", "-qm", "base")
    git(clean, "checkout", "-qb", "feature")
    write_files({"src/sample/newer.py": '"""New."""\nimport pluggy\n'}, clean)
    measurement = DepsCheck().measure(make_context(clean, base="main"), NoOptions())
    assert measurement.metrics["undeclared"] == 2
    assert measurement.new_code_metrics["undeclared"] == 1
    (new,) = [finding for finding in measurement.findings if finding.new]
    assert (new.path, new.line) == ("src/sample/newer.py", 2)


def pip_names_unnamed() -> bool:
    """Whether the installed pip names a distribution without ``Name`` by its folder (24.2+)."""
    return Version(importlib.metadata.version("pip")) >= Version("24.2")


def test_a_distribution_without_a_name_is_named_by_its_folder_or_skipped(tmp_path: Path) -> None:
    site = broken_site(tmp_path / "site")
    named = broken_requirements(installed_distributions([str(site)]), unsupported_wheels=False)
    skipped = broken_requirements(
        installed_distributions([str(site)], unnamed_from_folder=False), unsupported_wheels=False
    )
    line = "noname 1.0 requires zzz-not-installed, which is not installed."
    assert line in named  # pip 24.2 and later
    assert line not in skipped  # pip before 24.2
    assert [problem for problem in named if problem != line] == skipped


def test_requirements_are_read_as_importlib_reads_them_each_metadata_parsed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    listed = site / "listed-1.0.dist-info"
    listed.mkdir(parents=True)
    (listed / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: listed\nVersion: 1.0\nRequires-Dist: one>=1\n"
        'Requires-Dist: two ; extra == "fancy"\n'
    )
    egg = site / "legacy-2.0.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Metadata-Version: 1.1\nName: legacy\nVersion: 2.0\n")
    (egg / "requires.txt").write_text(
        "first>=1\n\n[fancy]\nsecond\n\n[:python_version < '3']\nold\n"
    )
    bare = site / "bare-1.0.dist-info"
    bare.mkdir()
    (bare / "METADATA").write_text("Metadata-Version: 2.1\nName: bare\nVersion: 1.0\n")
    expected = {
        dist.metadata["Name"]: tuple(dist.requires or ())
        for dist in importlib.metadata.distributions(path=[str(site)])
    }
    parsed: list[str] = []
    real = importlib.metadata.PathDistribution.metadata.fget
    assert real is not None
    monkeypatch.setattr(
        importlib.metadata.PathDistribution,
        "metadata",
        property(lambda dist: parsed.append(str(dist._path)) or real(dist)),
    )
    found = installed_distributions([str(site)])
    assert {dist.name: dist.requires for dist in found} == expected
    assert expected["legacy"] == (
        "first>=1",
        'second; extra == "fancy"',
        "old; python_version < '3'",
    )
    assert expected["bare"] == ()
    assert expected["listed"] == ("one>=1", 'two ; extra == "fancy"')
    # Each metadata read once; only requires.txt's conversion is left to importlib (again).
    assert sorted(Path(folder).name for folder in parsed) == [
        "bare-1.0.dist-info",
        "legacy-2.0.egg-info",
        "legacy-2.0.egg-info",
        "listed-1.0.dist-info",
    ]


def broken_site(folder: Path) -> Path:
    """A folder of installed distributions with every kind of problem pip check reports."""
    distributions = {
        "brokenlib-1.0": "Name: brokenlib\nVersion: 1.0\n"
        "Requires-Dist: no-such-distribution-xyz\n"
        'Requires-Dist: Packaging<1 ; python_version >= "3"\n'
        'Requires-Dist: only-with-an-extra ; extra == "fancy"\n'
        'Requires-Dist: never-needed ; python_version < "3"\n',
        "Other_Lib-01.0": "Name: Other_Lib\nVersion: 01.0\nRequires-Dist: brokenlib>=2.0\n"
        "Requires-Dist: pluggy>=0\n",
        "pre-1.0": "Name: pre\nVersion: 1.0\nRequires-Dist: Other-Lib>=1.0rc1\n",
        # No name: pip before 24.2 skips it; later pips name it by its folder.
        "noname-1.0": "Version: 1.0\nRequires-Dist: zzz-not-installed\n",
    }
    for stem, metadata in distributions.items():
        info = folder / f"{stem}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\n{metadata}")
    return folder


@IMPORTLIB_PIP
def test_pip_check_problems_are_findings_without_starting_pip(
    clean: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    make_context: MakeContext,
    fake_process_counter: Callable[[], list[list[str]]],
) -> None:
    monkeypatch.syspath_prepend(str(broken_site(tmp_path / "site")))
    started = fake_process_counter()
    measurement = DepsCheck().measure(make_context(clean), NoOptions())
    expected = {
        "brokenlib 1.0 requires no-such-distribution-xyz, which is not installed.",
        'brokenlib 1.0 has requirement Packaging<1; python_version >= "3", but you have '
        f"packaging {importlib.metadata.version('packaging')}.",
        "other-lib 1.0 has requirement brokenlib>=2.0, but you have brokenlib 1.0.",
    }
    if pip_names_unnamed():
        expected.add("noname 1.0 requires zzz-not-installed, which is not installed.")
    assert measurement.metrics["pip_problems"] == len(expected)
    assert {finding.message for finding in measurement.findings} == expected
    assert all(
        finding.rule == "pip-check" and finding.path is None for finding in measurement.findings
    )
    assert f"pip check reports {len(expected)} broken requirement" in measurement.summary
    assert not [command for command in started if "pip" in command]  # answered in-process


@IMPORTLIB_PIP
@pytest.mark.slow
def test_the_in_process_answer_is_pip_checks_own(tmp_path: Path) -> None:
    site = broken_site(tmp_path / "site")
    environment = {**os.environ, "PYTHONPATH": str(site)}
    by_pip = subprocess.run(
        [sys.executable, "-m", "pip", "check", "--disable-pip-version-check", "--no-color"],
        capture_output=True, text=True, env=environment, cwd=tmp_path, check=False,
    )  # fmt: skip
    paths = [str(site), *sys.path]
    installed = installed_distributions(paths, unnamed_from_folder=pip_names_unnamed())
    mine = broken_requirements(installed, unsupported_wheels=False)
    assert by_pip.returncode == 1
    assert by_pip.stdout.splitlines() == mine
    # And on the environment these tests run in, as it is: both say it is consistent.
    clean_pip = subprocess.run(
        [sys.executable, "-m", "pip", "check", "--disable-pip-version-check"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert clean_pip.stdout.strip() == "No broken requirements found."
    assert broken_requirements(installed_distributions()) == []


def test_a_wheel_this_python_cannot_use_is_reported_as_newer_pip_does(tmp_path: Path) -> None:
    info = tmp_path / "alien-2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: alien\nVersion: 2.0\n")
    (info / "WHEEL").write_text("Wheel-Version: 1.0\nTag: cp27-cp27m-win32\n")
    installed = installed_distributions([str(tmp_path)])
    assert broken_requirements(installed) == ["alien 2.0 is not supported on this platform"]
    assert broken_requirements(installed, unsupported_wheels=False) == []


def test_an_unreadable_installed_requirement_is_an_error(tmp_path: Path) -> None:
    info = tmp_path / "odd-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: odd\nVersion: 1.0\nRequires-Dist: not a requirement!!\n"
    )
    with pytest.raises(CheckError, match=r"odd 1\.0 .* 'not a requirement!!'"):
        broken_requirements(installed_distributions([str(tmp_path)]))


@pytest.mark.parametrize("importlib_python", [(3, 11), (99, 0)])
def test_a_pip_reading_metadata_with_pkg_resources_is_asked_itself(
    importlib_python: tuple[int, int],
    clean: Path,
    monkeypatch: pytest.MonkeyPatch,
    make_context: MakeContext,
    fake_process_counter: Callable[[], list[list[str]]],
) -> None:
    # (99, 0): a Python before the one from which pip reads importlib.metadata; (3, 11): this
    # one, with the variable that tells pip to read pkg_resources.
    monkeypatch.setattr(deps_measure, "_PIP_IMPORTLIB_PYTHON", importlib_python)
    if importlib_python == (3, 11):
        monkeypatch.setenv("_PIP_USE_IMPORTLIB_METADATA", "0")
    started = fake_process_counter()
    measurement = DepsCheck().measure(make_context(clean), NoOptions())
    assert measurement.metrics["pip_problems"] == 0
    assert [command for command in started if command[1:4] == ["-m", "pip", "check"]]


def test_legacy_egg_installs_send_the_question_to_pip(
    clean: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    make_context: MakeContext,
    fake_process_counter: Callable[[], list[list[str]]],
) -> None:
    site = tmp_path / "legacy"
    site.mkdir()
    (site / "oldthing.egg-link").write_text(f"{tmp_path}\n.\n")
    monkeypatch.syspath_prepend(str(site))
    assert legacy_installs() == [site / "oldthing.egg-link"]
    started = fake_process_counter()
    measurement = DepsCheck().measure(make_context(clean), NoOptions())
    assert measurement.metrics["pip_problems"] == 0
    assert [command for command in started if command[1:4] == ["-m", "pip", "check"]]


def test_dynamic_dependencies_come_from_the_installed_metadata(
    write_files: WriteFiles,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    make_context: MakeContext,
) -> None:
    root = write_files(
        {
            "pyproject.toml": '[project]\nname = "dynsample"\ndynamic = ["dependencies"]\n',
            "src/dynsample/__init__.py": '"""Dynamic."""\nimport yaml\nimport pluggy\n',
        }
    )
    site = tmp_path / "site"
    info = site / "dynsample-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: dynsample\nVersion: 1.0\nRequires-Dist: PyYAML>=6\n"
    )
    monkeypatch.syspath_prepend(str(site))
    measurement = DepsCheck().measure(make_context(root), NoOptions())
    (finding,) = measurement.findings
    assert (finding.path, finding.line) == ("src/dynsample/__init__.py", 3)
    assert "the installed metadata of dynsample does not declare" in finding.message


def test_undeclarable_project_is_an_error(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = write_files({"setup.py": "", "notinstalledpkg/__init__.py": "import yaml\n"})
    with pytest.raises(CheckError, match="declared dependencies are unknown") as caught:
        DepsCheck().measure(make_context(root), NoOptions())
    assert caught.value.fix is not None
    assert "pip install -e ." in caught.value.fix


def test_takes_no_options() -> None:
    with pytest.raises(ValidationError, match="extra"):
        DepsCheck.options_model.model_validate({"ignore": ["yaml"]})


def test_without_pip_is_an_error_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pip" else real(name, *a)
    )
    with pytest.raises(CheckError) as caught:
        DepsCheck().tool_info()
    assert "pip is not installed" in caught.value.reason
    assert caught.value.fix is not None
    assert "pip install 'pytest-phasegate[gate]'" in caught.value.fix
