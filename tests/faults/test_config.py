"""Bad configurations: refused with exit 4, naming the file, the key, the value and what is allowed.

No type coercion (``"4000"``, ``"off"``, ``1`` for a boolean), no number that is not finite, no
unknown check id under ``[tool.phasegate.checks]``, no quoted threshold that would never fire,
no folder outside the project root, and a poisoned settings cache set aside and validated
again, never an INTERNALERROR.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from phasegate.cli import main
from phasegate.config import load_config, settings_cache
from phasegate.errors import ConfigError, PhasegateError
from tests.faults.conftest import Tried

#: (TOML under [tool.phasegate], the dotted key the error names, the value as shown).
COERCIONS = [
    ('max_traceback_chars = "4000"', "tool.phasegate.max_traceback_chars", "'4000'"),
    ("max_traceback_chars = 4000.0", "tool.phasegate.max_traceback_chars", "4000.0"),
    ('cache = "off"', "tool.phasegate.cache", "'off'"),
    ("cache = 1", "tool.phasegate.cache", "1"),
    ('cache = "false"', "tool.phasegate.cache", "'false'"),
    ("check_timeout_s = inf", "tool.phasegate.check_timeout_s", "inf"),
    ("check_timeout_s = nan", "tool.phasegate.check_timeout_s", "nan"),
    ('check_timeout_s = "60"', "tool.phasegate.check_timeout_s", "'60'"),
    ('plugins = "one"', "tool.phasegate.plugins", "'one'"),
    ('[refine]\nthreshold = "0.9"', "tool.phasegate.refine.threshold", "'0.9'"),
    ("[refine]\nenabled = 0", "tool.phasegate.refine.enabled", "0"),
    ("[report]\nmax_failures = 5.5", "tool.phasegate.report.max_failures", "5.5"),
    ('[checks.lint]\nrequired = "false"', "tool.phasegate.checks.lint.required", "'false'"),
    ("[checks.lint]\ntimeout_s = inf", "tool.phasegate.checks.lint.timeout_s", "inf"),
    ("[checks.lint]\nskip_allowed = 1", "tool.phasegate.checks.lint.skip_allowed", "1"),
    ("[workflow]\nmax_task_retries = true", "tool.phasegate.workflow.max_task_retries", "True"),
    ('[tdd]\nright_reasons = "assertion"', "tool.phasegate.tdd.right_reasons", "'assertion'"),
    ("[autodebug]\nmax_iterations = -inf", "tool.phasegate.autodebug.max_iterations", "-inf"),
]


def _pyproject(root: Path, body: str) -> Path:
    """pyproject.toml with ``body`` under [tool.phasegate] (``[x]`` is [tool.phasegate.x])."""
    lines = [
        f"[tool.phasegate.{line[1:]}" if line.startswith("[") else line
        for line in body.splitlines()
    ]
    path = root / "pyproject.toml"
    path.write_text("[tool.phasegate]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("body", "key", "shown"), COERCIONS)
def test_a_value_of_the_wrong_type_is_refused_not_coerced(
    body: str, key: str, shown: str, tmp_path: Path, tried: Tried
) -> None:
    path = _pyproject(tmp_path, body)
    with tried("configuration", f"{body.splitlines()[-1]} ({key})"):
        with pytest.raises(ConfigError) as caught:
            load_config(tmp_path)
        message = str(caught.value)
        assert str(path) in message
        assert f"key {key} = {shown}" in message
        assert "is not allowed" in message


def _run_cli(root: Path, monkeypatch: pytest.MonkeyPatch, *argv: str) -> int:
    monkeypatch.chdir(root)
    return main(list(argv))


def test_a_bad_value_exits_4_from_the_command(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tried: Tried,
) -> None:
    _pyproject(tmp_path, 'cache = "off"')
    with tried("configuration", 'cache = "off" through `phasegate gate explain`: exit 4'):
        assert _run_cli(tmp_path, monkeypatch, "gate", "explain", "default") == 4
        error = capsys.readouterr().err
        assert "key tool.phasegate.cache = 'off' is not allowed" in error
        assert "Traceback" not in error


def test_an_unknown_check_id_is_refused_with_what_is_allowed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tried: Tried,
) -> None:
    path = _pyproject(tmp_path, "[checks.covrage]\nrequired = false")
    with tried("configuration", "[tool.phasegate.checks.covrage] (a misspelt check id)"):
        assert _run_cli(tmp_path, monkeypatch, "gate", "explain", "default") == 4
        error = capsys.readouterr().err
        assert f"{path}: unknown key tool.phasegate.checks.covrage" in error
        assert "known checks: syntax, tests, coverage," in error
        assert "did you mean 'coverage'?" in error


#: Conditions whose threshold is of the wrong type for the metric.
QUOTED = [
    ("review", "approved", '"false"', "'false'", "true or false"),
    ("lint", "violations", '"0"', "'0'", "a number"),
    ("coverage", "line_rate", "true", "True", "a number"),
    ("review", "approved", "0", "0", "true or false"),
]


@pytest.mark.parametrize(("check_id", "metric", "written", "shown", "allowed"), QUOTED)
@pytest.mark.parametrize("where", ["a gate file", "pyproject.toml"])
def test_a_threshold_of_the_wrong_type_is_refused_not_left_never_firing(
    check_id: str,
    metric: str,
    written: str,
    shown: str,
    allowed: str,
    where: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tried: Tried,
) -> None:
    condition = f'fail_when = [{{ metric = "{metric}", op = "==", value = {written} }}]'
    if where == "a gate file":
        _pyproject(tmp_path, 'gate_paths = ["ci"]')
        (tmp_path / "ci").mkdir()
        blamed = tmp_path / "ci" / "mine.toml"
        blamed.write_text(f'name = "mine"\n[checks.{check_id}]\n{condition}\n', encoding="utf-8")
        key = f"checks.{check_id}.fail_when.0.value"
        gate = "mine"
    else:
        blamed = _pyproject(tmp_path, f"[checks.{check_id}]\n{condition}")
        key = f"tool.phasegate.checks.{check_id}.fail_when.0.value"
        gate = "twelve-check"
    with tried("configuration", f"{metric} == {written} in {where}"):
        assert _run_cli(tmp_path, monkeypatch, "gate", "explain", gate) == 4
        error = capsys.readouterr().err
        assert f"{blamed}: key {key} = {shown} is not allowed" in error
        assert allowed in error


@pytest.mark.parametrize("key", ["artifacts_dir", "gate_paths", "workflow.tasks_dir"])
@pytest.mark.parametrize("how", ["../outside", "a symbolic link out"])
def test_a_folder_outside_the_root_is_refused(
    key: str,
    how: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tried: Tried,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    value = "../outside"
    if how == "a symbolic link out":
        (root / "link").symlink_to(outside, target_is_directory=True)
        value = "link"
    table, _, name = key.rpartition(".")
    shown = json.dumps([value]) if name == "gate_paths" else json.dumps(value)
    body = f"[{table}]\n{name} = {shown}" if table else f"{name} = {shown}"
    _pyproject(root, body)
    command = ["task", "list"] if name == "tasks_dir" else ["gate", "list"]
    if name == "artifacts_dir":
        command = ["autodebug", "show"]
    with tried("paths", f"{key} = {value!r} ({how})"):
        assert _run_cli(root, monkeypatch, *command) == 4
        error = capsys.readouterr().err
        assert f"key tool.phasegate.{key} = {value!r} is not allowed" in error
        assert "outside the project root" in error
        assert not any(outside.iterdir()), "something was written outside the root"


def _cached_entry(root: Path) -> tuple[Path, dict[str, object]]:
    load_config(root, cache=True)
    path = root / ".phasegate" / settings_cache.CACHE_FILE
    return path, json.loads(path.read_text())


POISONS = {
    "a value edited, its digest not": {"max_traceback_chars": "x", "_keep_digest": False},
    "artifacts_dir = '../../x', digest recomputed": {"artifacts_dir": "../../x"},
    "a value that fails validation, digest recomputed": {"check_timeout_s": -1},
    "a table of the wrong type, digest recomputed": {"refine": "fast"},
    "max_traceback_chars as text, digest recomputed": {"max_traceback_chars": "x"},
    "a default the table leaves out made weaker, digest recomputed": {
        "checks": {"tests": {"required": False}},
    },
}


@pytest.mark.parametrize("poison", sorted(POISONS))
def test_a_poisoned_settings_cache_is_set_aside_and_validated_again(
    poison: str, tmp_path: Path, tried: Tried
) -> None:
    _pyproject(tmp_path, 'gate = "strict"\n[refine]\nthreshold = 0.7')
    path, data = _cached_entry(tmp_path)
    changes = dict(POISONS[poison])
    keep = changes.pop("_keep_digest", True)
    entries = data["entries"]
    assert isinstance(entries, list)
    entries[0]["values"].update(changes)
    if keep:
        entries[0]["sha256"] = settings_cache._digest(entries[0]["values"])
    path.write_text(json.dumps(data))
    with tried("configuration", f"a poisoned settings-cache entry: {poison}"):
        loaded = load_config(tmp_path, cache=True)
        assert loaded.artifacts_path == (tmp_path / ".phasegate").resolve()
        assert int(loaded.values["max_traceback_chars"]) == 4000
        assert loaded.config.refine.threshold == 0.7
        assert loaded.config.check_timeout_s == 900.0
        assert loaded.config.gate == "strict"
        assert loaded.config.checks == {}
        assert list(path.parent.glob("config.json.corrupt-*")), "the poisoned file was not kept"
        assert not (tmp_path.parent / "x").exists()


def test_a_poisoned_table_the_settings_leave_out_is_not_read_alone_either(
    tmp_path: Path, tried: Tried
) -> None:
    from phasegate.tdd.config import TddConfig

    _pyproject(tmp_path, 'gate = "strict"')
    path, data = _cached_entry(tmp_path)
    entries = data["entries"]
    assert isinstance(entries, list)
    entries[0]["values"]["tdd"]["require_review"] = False
    entries[0]["sha256"] = settings_cache._digest(entries[0]["values"])
    path.write_text(json.dumps(data))
    with tried("configuration", "a poisoned settings cache: a table read alone (tdd)"):
        loaded = load_config(tmp_path, cache=True)
        assert loaded.section("tdd", TddConfig).require_review is True
        assert list(path.parent.glob("config.json.corrupt-*")), "the poisoned file was not kept"


@pytest.mark.parametrize("content", [b"", b"{garbage", b'{"format": 3, "entries": [1, 2]}'])
def test_a_garbled_settings_cache_is_set_aside(
    content: bytes, tmp_path: Path, tried: Tried
) -> None:
    _pyproject(tmp_path, 'gate = "strict"')
    path = tmp_path / ".phasegate" / settings_cache.CACHE_FILE
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    with tried("configuration", f"a garbled settings cache: {content[:20]!r}"):
        assert load_config(tmp_path, cache=True).config.gate == "strict"
        assert json.loads(path.read_text())["entries"][0]["values"]["gate"] == "strict"
        if content:  # an empty file has nothing worth keeping
            assert list(path.parent.glob("config.json.corrupt-*"))


def test_a_poisoned_cache_does_not_crash_a_pytest_run(
    pytester: pytest.Pytester, tried: Tried
) -> None:
    pytester.makepyprojecttoml('[tool.phasegate]\ngate = "record"\n')
    pytester.makepyfile("def test_one():\n    assert True\n")
    first = pytester.runpytest_inprocess("--gate", "-p", "no:cacheprovider")
    assert first.ret == 0
    path = pytester.path / ".phasegate" / settings_cache.CACHE_FILE
    data = json.loads(path.read_text())
    data["entries"][0]["values"]["max_traceback_chars"] = "lots"
    data["entries"][0]["sha256"] = settings_cache._digest(data["entries"][0]["values"])
    path.write_text(json.dumps(data))
    with tried("configuration", "a poisoned settings cache under `pytest --gate`"):
        again = pytester.runpytest_inprocess("--gate", "-p", "no:cacheprovider")
        assert again.ret == 0, again.stdout.str()
        assert "INTERNALERROR" not in again.stdout.str()


def test_strict_settings_still_take_what_is_written_right(tmp_path: Path) -> None:
    """The other side of strictness: well-typed values (an integer for a float) load."""
    _pyproject(
        tmp_path,
        "check_timeout_s = 60\ncache = false\n[checks.lint]\ntimeout_s = 30\n"
        '[checks.coverage]\nfail_when = [{ metric = "line_rate", op = "<", value = 1 }]',
    )
    loaded = load_config(tmp_path)
    assert loaded.config.check_timeout_s == 60.0
    assert loaded.config.cache is False
    assert loaded.config.checks["lint"].timeout_s == 30.0


def test_every_flag_error_is_a_phasegate_error(tmp_path: Path) -> None:
    """A flag is checked like the file: an error phasegate prints, exit 4, no traceback."""
    _pyproject(tmp_path, "")
    with pytest.raises(PhasegateError, match=r"--gate \(key tool\.phasegate\.gate\) = ''"):
        load_config(tmp_path).with_overrides({"gate": ("--gate", "")})
