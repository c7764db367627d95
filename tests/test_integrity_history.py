"""The honest-history benchmark's history building: releases become commits, offline."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import load_benchmark


@pytest.fixture(scope="module")
def history() -> ModuleType:
    return load_benchmark("integrity_history")


def make_sdist(folder: Path, name: str, files: dict[str, str]) -> Path:
    """A gzipped tar with ``files`` under the one top-level folder ``name``, as sdists are."""
    path = folder / f"{name}.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for relative, text in files.items():
            data = text.encode()
            member = tarfile.TarInfo(f"{name}/{relative}")
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    return path


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout.strip()


def test_each_release_is_one_commit_on_its_parent_with_exactly_its_files(
    history: ModuleType, tmp_path: Path
) -> None:
    first = make_sdist(
        tmp_path,
        "calc-1.0",
        {
            "calc.py": "def mean(xs):\n    return sum(xs) / len(xs)\n",
            "tests/test_calc.py": "def test_mean():\n    assert mean([2]) == 2\n",
            "old.py": "OLD = 1\n",
        },
    )
    second = make_sdist(
        tmp_path,
        "calc-1.1",
        {
            "calc.py": "def mean(xs):\n    return sum(xs) / max(len(xs), 1)\n",
            "tests/test_calc.py": "def test_mean():\n    assert True\n",
        },
    )

    commits = history.build_history([("1.0", first), ("1.1", second)], tmp_path / "repo")

    root = tmp_path / "repo"
    assert [commit.version for commit in commits] == ["1.0", "1.1"]
    assert git(root, "rev-list", "--parents", "-n", "1", commits[0].sha) == commits[0].sha
    assert git(root, "rev-parse", f"{commits[1].sha}~1") == commits[0].sha
    assert git(root, "ls-tree", "-r", "--name-only", commits[0].sha).split() == [
        "calc.py",
        "old.py",
        "tests/test_calc.py",
    ]
    # What the later release dropped is deleted, and what it changed is its own text.
    assert git(root, "ls-tree", "-r", "--name-only", "HEAD").split() == [
        "calc.py",
        "tests/test_calc.py",
    ]
    assert "max(len(xs), 1)" in git(root, "show", "HEAD:calc.py")
    assert git(root, "log", "--format=%s").splitlines() == ["release 1.1", "release 1.0"]
    assert git(root, "status", "--porcelain") == ""


def test_the_same_releases_make_the_same_commit_ids(history: ModuleType, tmp_path: Path) -> None:
    sdist = make_sdist(tmp_path, "calc-1.0", {"calc.py": "X = 1\n"})

    one = history.build_history([("1.0", sdist)], tmp_path / "one")
    two = history.build_history([("1.0", sdist)], tmp_path / "two")

    assert one == two


def test_what_a_run_leaves_behind_is_ignored_by_git(history: ModuleType, tmp_path: Path) -> None:
    sdist = make_sdist(tmp_path, "calc-1.0", {"calc.py": "X = 1\n"})
    root = tmp_path / "repo"
    history.build_history([("1.0", sdist)], root)

    (root / ".phasegate" / "gates").mkdir(parents=True)
    (root / ".phasegate" / "gates" / "integrity-history.json").write_text("{}")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "calc.cpython-311.pyc").write_bytes(b"")

    assert git(root, "status", "--porcelain") == ""


def test_an_sdist_with_two_top_level_folders_is_refused_by_name(
    history: ModuleType, tmp_path: Path
) -> None:
    path = tmp_path / "odd-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name in ("a/x.py", "b/y.py"):
            member = tarfile.TarInfo(name)
            archive.addfile(member, io.BytesIO(b""))

    with pytest.raises(RuntimeError, match=r"odd-1\.0\.tar\.gz: an sdist has one top-level"):
        history.build_history([("1.0", path)], tmp_path / "repo")


def test_a_cached_sdist_with_another_digest_is_not_taken(
    history: ModuleType, tmp_path: Path
) -> None:
    release = history.Release("1.0", "0" * 64)
    path = history.sdist_path("calc", release, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not the frozen file")

    assert history.cached("calc", release, tmp_path) is None
    frozen = history.Release("1.0", history.sha256_of(path))
    assert history.cached("calc", frozen, tmp_path) == path


def test_every_history_has_31_releases_oldest_first(history: ModuleType) -> None:
    from packaging.version import Version

    assert len(history.HISTORIES) >= 3
    for releases in history.HISTORIES.values():
        versions = [Version(release.version) for release in releases]
        assert len(versions) == 31
        assert versions == sorted(set(versions))
        assert all(len(release.sha256) == 64 for release in releases)


def test_the_engine_judges_each_release_against_the_one_before(
    history: ModuleType, tmp_path: Path
) -> None:
    tests = "import pytest\n\n\ndef test_mean():\n    assert mean([2]) == 2\n"
    first = make_sdist(tmp_path, "calc-1.0", {"calc.py": "X = 1\n", "tests/test_calc.py": tests})
    second = make_sdist(
        tmp_path,
        "calc-1.1",
        {
            "calc.py": "X = 2\n",
            "tests/test_calc.py": tests.replace(
                "def test_mean", "@pytest.mark.skip\ndef test_mean"
            ),
        },
    )
    root = tmp_path / "repo"
    commits = history.build_history([("1.0", first), ("1.1", second)], root)

    judged = history.judge_engine("calc", root, commits[0], commits[1])

    assert (judged.version, judged.parent, judged.status) == ("1.1", "1.0", "failed")
    assert [(f["rule"], f["path"], f["line"]) for f in judged.findings] == [
        ("newly-skipped", "tests/test_calc.py", 4)
    ]
    honest = history.judge_engine("calc", root, commits[0], commits[0])
    assert (honest.status, honest.findings) == ("passed", [])
