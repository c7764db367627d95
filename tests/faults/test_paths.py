"""Paths read from files, and symbolic links: nothing is written outside the root or into tests.

Auto-debug's journal names the files to put back after a crash: a journal naming a file
outside the project, in ``.git``, in a virtual environment, not a Python file, or reached
through a link out of the root is refused whole, and nothing is written. Auto-debug never
writes a candidate through a link (into ``tests/``, out of the root, into a virtual
environment), nor into a virtual environment of any name inside the root. A perf baseline
named outside the root is refused too.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from phasegate.autodebug.diagnosis import FileEdit
from phasegate.autodebug.project import Project, TestFiles
from phasegate.autodebug.settings import DEFAULT_TEST_FILES
from phasegate.autodebug.workspace import EditRefused, Workspace
from phasegate.cli import main
from phasegate.gates.protocol import SessionData
from tests.faults.conftest import Tried
from tests.faults.kit import a_run, judge, refused, small_project

EVIL = b"#!/bin/sh\necho owned\n"


def _journal(root: Path, entries: dict[str, dict[str, object]]) -> Path:
    path = root / ".phasegate" / "autodebug" / "journal.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def _entry(data: bytes = EVIL, mode: object = 0o755) -> dict[str, object]:
    return {
        "original": base64.b64encode(data).decode("ascii"),
        "mode": mode,
        "mtime_ns": 0,
        "candidate_sha256": hashlib.sha256(b"whatever").hexdigest(),
    }


def _journal_faults(root: Path, outside: Path) -> dict[str, tuple[str, dict[str, object]]]:
    (root / "link.py").symlink_to(outside / "target.py")
    (root / "src").mkdir(exist_ok=True)
    return {
        "an absolute path outside the root": (str(outside / "evil.py"), _entry()),
        "a relative path out of the root": ("../outside/evil.py", _entry()),
        "a git hook, executable": (".git/hooks/pre-commit", _entry()),
        "a file that is not Python": ("Makefile", _entry()),
        "a file in the virtual environment": (".venv/lib/site.py", _entry()),
        "a link out of the root": ("link.py", _entry()),
        "an original that is not base64": ("src/a.py", {**_entry(), "original": "%%%"}),
        "a mode that is not a number": ("src/a.py", _entry(mode="0755")),
        "an entry that is not a table": ("src/a.py", []),  # type: ignore[dict-item]
    }


@pytest.mark.parametrize(
    "fault",
    [
        "an absolute path outside the root",
        "a relative path out of the root",
        "a git hook, executable",
        "a file that is not Python",
        "a file in the virtual environment",
        "a link out of the root",
        "an original that is not base64",
        "a mode that is not a number",
        "an entry that is not a table",
    ],
)
def test_a_journal_naming_what_autodebug_never_writes_is_refused(
    fault: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tried: Tried,
) -> None:
    root = small_project(tmp_path / "project", commit=False)
    (root / ".git" / "hooks").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.py").write_bytes(b"untouched\n")
    name, entry = _journal_faults(root, outside)[fault]
    journal = _journal(root, {name: entry})
    before = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    monkeypatch.chdir(root)
    with tried("paths", f"autodebug restore: the journal names {fault}"):
        assert main(["autodebug", "restore"]) == 4
        error = capsys.readouterr().err
        assert "nothing was restored" in error
        assert journal.is_file(), "the journal was not kept for a person to read"
        after = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
        assert after == before, "a file was written"
        assert not (root / ".git" / "hooks" / "pre-commit").exists()


def test_a_sound_journal_still_restores(tmp_path: Path, tried: Tried) -> None:
    """The other side: a journal of the project's own file is put back."""
    root = small_project(tmp_path / "project", commit=False)
    module = root / "src" / "small" / "more.py"
    original = module.read_bytes()
    module.write_bytes(b"CANDIDATE = 1\n")
    entry = {
        **_entry(original, 0o644),
        "candidate_sha256": hashlib.sha256(b"CANDIDATE = 1\n").hexdigest(),
    }
    _journal(root, {"src/small/more.py": entry})
    with tried("paths", "autodebug restore: a sound journal is restored"):
        from phasegate.autodebug.workspace import recover

        (message,) = recover(root / ".phasegate" / "autodebug" / "journal.json", root)
        assert message.startswith("restored")
        assert module.read_bytes() == original


def _workspace(root: Path) -> Workspace:
    return Workspace(
        Project(root, TestFiles(DEFAULT_TEST_FILES)), root / ".phasegate" / "autodebug" / "j.json"
    )


def _link_faults(root: Path, outside: Path) -> dict[str, Path]:
    tests = root / "tests"
    tests.mkdir()
    (tests / "test_small.py").write_text("def test_it():\n    assert True\n")
    venv = root / "myenv"
    (venv / "lib").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr\n")
    (venv / "lib" / "site.py").write_text("SITE = 1\n")
    (outside / "far.py").write_text("FAR = 1\n")
    src = root / "src" / "small"
    (src / "into_tests.py").symlink_to(tests / "test_small.py")
    (src / "out_of_root.py").symlink_to(outside / "far.py")
    (src / "into_venv.py").symlink_to(venv / "lib" / "site.py")
    (root / "linked_dir").symlink_to(tests, target_is_directory=True)
    return {
        "src/small/into_tests.py": tests / "test_small.py",
        "src/small/out_of_root.py": outside / "far.py",
        "src/small/into_venv.py": venv / "lib" / "site.py",
        "myenv/lib/site.py": venv / "lib" / "site.py",
        "linked_dir/test_small.py": tests / "test_small.py",
    }


@pytest.mark.parametrize(
    "relpath",
    [
        "src/small/into_tests.py",
        "src/small/out_of_root.py",
        "src/small/into_venv.py",
        "myenv/lib/site.py",
        "linked_dir/test_small.py",
    ],
)
def test_autodebug_never_writes_through_a_link_or_into_an_environment(
    relpath: str, tmp_path: Path, tried: Tried
) -> None:
    root = small_project(tmp_path / "project", commit=False)
    outside = tmp_path / "outside"
    outside.mkdir()
    target = _link_faults(root, outside)[relpath]
    before = target.read_bytes()
    workspace = _workspace(root)
    with tried("paths", f"auto-debug asked to write {relpath}"):
        assert not workspace.project.editable(relpath)
        with pytest.raises(EditRefused), workspace.trial([FileEdit(relpath, "X = 1\n")]):
            pass
        assert target.read_bytes() == before


@pytest.mark.parametrize("option", ["baseline", "benchmark_json"])
def test_a_perf_file_named_outside_the_root_is_refused(
    option: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tried: Tried
) -> None:
    root = small_project(tmp_path / "project")
    outside = tmp_path / "outside.json"
    run = a_run(("tests/test_a.py::test_slow", "passed", ["perf"]))
    with tried("paths", f"perf option {option} = '../outside.json'"):
        verdict, result = judge(
            root, "perf", session=SessionData(run=run), options={option: "../outside.json"}
        )
        refused(verdict, result, "outside the project root")
        assert not outside.exists()


@pytest.mark.parametrize("link", ["gates", "cache", "report.json"])
def test_a_link_inside_the_artifacts_folder_leading_out_is_refused(
    link: str, tmp_path: Path, tried: Tried
) -> None:
    from phasegate.errors import StoreError
    from phasegate.store import Store

    outside = tmp_path / "outside"
    outside.mkdir()
    store = Store(tmp_path / "project" / ".phasegate")
    store.root.mkdir(parents=True)
    target = outside / "x.json" if link.endswith(".json") else outside
    (store.root / link).symlink_to(target)
    relpath = link if link.endswith(".json") else f"{link}/x.json"
    with tried("paths", f"a symbolic link .phasegate/{link} leading out of the root"):
        with pytest.raises(StoreError, match="symbolic link"):
            store.write_text(relpath, "{}")
        assert not any(outside.iterdir())
