"""The cache of validated settings: a hit needs no pydantic, a miss validates, bad input fails."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from phasegate.config import LoadedConfig, PhasegateConfig, load_config, settings_cache
from phasegate.errors import ConfigError

RICH = """
[tool.phasegate]
artifacts_dir = "out/pg"
gate = "strict"
plugins = ["my_checks"]
max_traceback_chars = 900
exclude = ["build/*"]
check_timeout_s = 12.5

[tool.phasegate.checks.lint]
required = false
timeout_s = 30

[tool.phasegate.refine]
threshold = 0.7

[tool.phasegate.tdd]
right_reasons = ["assertion"]

[tool.phasegate.report]
max_failures = 5
"""


def write_pyproject(folder: Path, body: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(body, encoding="utf-8")
    return path


def cache_file(root: Path, artifacts: str = ".phasegate") -> Path:
    return root / artifacts / settings_cache.CACHE_FILE


def test_a_second_load_reads_the_same_settings_from_the_cache(tmp_path: Path) -> None:
    write_pyproject(tmp_path, RICH)
    first = load_config(tmp_path, {"gate": ("--gate", "record")}, cache=True)
    assert cache_file(tmp_path, "out/pg").is_file()
    second = load_config(tmp_path, {"gate": ("--gate", "record")}, cache=True)
    assert "config" not in second.__dict__  # the model was not built: nothing was validated
    assert second.values == first.values
    assert second.values["gate"] == "record"
    assert second.artifacts_path == (tmp_path / "out" / "pg").resolve()
    # The model built from the cached values is the one validation made.
    assert (
        second.config
        == first.config
        == load_config(tmp_path).config.model_copy(update={"gate": "record"})
    )


def test_every_setting_survives_the_trip_through_plain_values(tmp_path: Path) -> None:
    write_pyproject(tmp_path, RICH)
    model = load_config(tmp_path).config
    assert model != PhasegateConfig()
    rebuilt = LoadedConfig(json.loads(json.dumps(model.model_dump(mode="json"))), tmp_path, None)
    assert rebuilt.config == model


def test_a_hit_loads_no_pydantic(tmp_path: Path) -> None:
    write_pyproject(tmp_path, RICH)
    load_config(tmp_path, cache=True)
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from phasegate.config import load_config\n"
        f"loaded = load_config(Path({str(tmp_path)!r}), cache=True)\n"
        "print(loaded.values['max_traceback_chars'], 'pydantic' in sys.modules)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert completed.stdout.split() == ["900", "False"]


def test_runs_that_alternate_between_settings_each_find_their_own(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.phasegate]\ngate = "strict"\n')
    gates = [f"gate{n}" for n in range(settings_cache.ENTRIES + 1)]
    for gate in gates:
        load_config(tmp_path, {"gate": ("--gate", gate)}, cache=True)
    load_config(tmp_path, cache=True)
    for gate in gates[-(settings_cache.ENTRIES - 1) :]:  # the oldest two made way
        again = load_config(tmp_path, {"gate": ("--gate", gate)}, cache=True)
        assert "config" not in again.__dict__, gate  # read back, not validated
        assert again.values["gate"] == gate
    assert "config" not in load_config(tmp_path, cache=True).__dict__
    data = json.loads(cache_file(tmp_path).read_text())
    assert len(data["entries"]) == settings_cache.ENTRIES
    missed = load_config(tmp_path, {"gate": ("--gate", gates[0])}, cache=True)
    assert "config" in missed.__dict__


def test_a_changed_table_is_validated_again(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.phasegate]\ngate = "strict"\n')
    load_config(tmp_path, cache=True)
    write_pyproject(tmp_path, '[tool.phasegate]\ngate = "strict"\nmax_traceback_chars = 5\n')
    with pytest.raises(ConfigError, match="max_traceback_chars"):
        load_config(tmp_path, cache=True)
    write_pyproject(tmp_path, '[tool.phasegate]\ngate = "lenient"\n')
    assert load_config(tmp_path, cache=True).values["gate"] == "lenient"


def test_a_bad_table_is_never_cached(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.phasegate]\nartifact_dir = "x"\n')
    for _attempt in range(2):
        with pytest.raises(ConfigError, match=r"unknown key tool\.phasegate\.artifact_dir"):
            load_config(tmp_path, cache=True)
    assert not cache_file(tmp_path).exists()


def test_a_bad_override_is_never_cached(tmp_path: Path) -> None:
    for _attempt in range(2):
        with pytest.raises(ConfigError, match="--phasegate-dir"):
            load_config(tmp_path, {"artifacts_dir": ("--phasegate-dir", "")}, cache=True)
    assert not cache_file(tmp_path).exists()


def test_the_cache_names_the_code_that_validated(tmp_path: Path) -> None:
    write_pyproject(tmp_path, RICH)
    load_config(tmp_path, cache=True)
    data = json.loads(cache_file(tmp_path, "out/pg").read_text())
    files = {Path(entry[0]).as_posix() for entry in data["entries"][0]["modules"]}
    assert any(file.endswith("phasegate/config/models.py") for file in files)
    assert any(file.endswith("phasegate/tdd/config.py") for file in files)
    assert any(file.endswith("pydantic/__init__.py") for file in files)


def test_an_edited_or_missing_module_makes_the_cache_stale(tmp_path: Path) -> None:
    module = tmp_path / "validator.py"
    module.write_text("RULE = 1\n")
    status = module.stat()
    path = tmp_path / "config.json"
    values = dict(settings_cache.LIGHT_DEFAULTS)
    settings_cache.save(path, "k", values)
    data = json.loads(path.read_text())
    data["entries"][0]["modules"] = [[str(module), status.st_mtime_ns, status.st_size]]
    path.write_text(json.dumps(data))
    assert settings_cache.lookup(path, "k") == values
    assert settings_cache.lookup(path, "other") is None
    module.write_text("RULE = 22\n")
    assert settings_cache.lookup(path, "k") is None
    module.unlink()
    assert settings_cache.lookup(path, "k") is None


@pytest.mark.parametrize(
    "content",
    ["", "{not json", '{"format": 1, "key": 3}', '{"format": 2, "entries": {}}', "[]"],
)
def test_an_unreadable_cache_is_a_miss_and_is_replaced(tmp_path: Path, content: str) -> None:
    write_pyproject(tmp_path, '[tool.phasegate]\ngate = "strict"\n')
    path = cache_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(content)
    assert load_config(tmp_path, cache=True).values["gate"] == "strict"
    assert json.loads(path.read_text())["entries"][0]["values"]["gate"] == "strict"


def test_an_unwritable_folder_only_loses_the_cache(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.phasegate]\nartifacts_dir = "blocked/pg"\n')
    (tmp_path / "blocked").write_text("a file where a folder should be")
    assert load_config(tmp_path, cache=True).values["artifacts_dir"] == "blocked/pg"


def test_toml_dates_are_part_of_the_key() -> None:
    import datetime

    first = settings_cache.input_key({"x": datetime.date(2026, 1, 2)}, {})
    assert first == settings_cache.input_key({"x": datetime.date(2026, 1, 2)}, {})
    # No string stands for a date, whatever it spells.
    for text in ("2026-01-02", "date:2026-01-02", '["date", "2026-01-02"]'):
        assert first != settings_cache.input_key({"x": text}, {})
    assert settings_cache.input_key({"x": 1}, {}) != settings_cache.input_key({"x": 1.0}, {})
    assert settings_cache.input_key({"x": 1}, {}) != settings_cache.input_key({"x": True}, {})


def test_a_string_spelling_a_date_does_not_let_a_date_skip_validation(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.phasegate]\ngate = "date:2020-01-01"\n')
    assert load_config(tmp_path, cache=True).values["gate"] == "date:2020-01-01"
    write_pyproject(tmp_path, "[tool.phasegate]\ngate = 2020-01-01\n")
    with pytest.raises(ConfigError, match=r"tool\.phasegate\.gate"):
        load_config(tmp_path, cache=True)


def test_another_installation_of_the_validators_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_pyproject(tmp_path, '[tool.phasegate]\ngate = "strict"\n')
    load_config(tmp_path, cache=True)
    assert "config" not in load_config(tmp_path, cache=True).__dict__  # a hit
    elsewhere = ["/elsewhere/phasegate/__init__.py", None, None]
    monkeypatch.setattr(settings_cache, "_installation", lambda: elsewhere)
    assert "config" in load_config(tmp_path, cache=True).__dict__  # validated again


def test_a_check_named_config_shares_no_file_with_the_settings(tmp_path: Path) -> None:
    from phasegate.gates.cache import CheckCache
    from phasegate.gates.protocol import Measurement
    from phasegate.store import Store

    write_pyproject(tmp_path, '[tool.phasegate]\ngate = "strict"\n')
    notices: list[str] = []
    checks = CheckCache(Store(tmp_path / ".phasegate", on_notice=notices.append))
    for _run in range(2):
        load_config(tmp_path, cache=True)
        assert checks.get("config", "k") in (None, Measurement(summary="kept"))
        checks.put("config", "k", Measurement(summary="kept"))
    assert checks.get("config", "k") == Measurement(summary="kept")
    assert "config" not in load_config(tmp_path, cache=True).__dict__  # still a hit
    assert notices == []
    assert not list((tmp_path / ".phasegate").rglob("*corrupt*"))


def test_cache_false_in_the_table_turns_the_settings_cache_off(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.phasegate]\ncache = false\ngate = "strict"\n')
    for _attempt in range(2):
        loaded = load_config(tmp_path, cache=True)
        assert "config" in loaded.__dict__  # validated every time
        assert loaded.values["gate"] == "strict"
    assert not cache_file(tmp_path).exists()


@pytest.mark.parametrize("value", ["2026-01-02", "12:30:00", "nan", "inf"])
def test_a_value_json_cannot_carry_is_validated_every_time(tmp_path: Path, value: str) -> None:
    write_pyproject(tmp_path, f"[tool.phasegate.checks.lint.options]\nsince = {value}\n")
    first, second = load_config(tmp_path, cache=True), load_config(tmp_path, cache=True)
    assert "config" in second.__dict__  # not read back from the cache
    before, after = (loaded.config.checks["lint"].options or {} for loaded in (first, second))
    assert type(before["since"]) is type(after["since"]) is not str
    assert not cache_file(tmp_path).exists()


def test_a_deeply_nested_cache_file_is_a_miss(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(b"[" * 200_000)
    assert settings_cache.lookup(path, "k") is None


def test_one_table_is_built_alone_and_agrees_with_the_whole(tmp_path: Path) -> None:
    from phasegate.tdd.config import TddConfig

    write_pyproject(tmp_path, RICH)
    load_config(tmp_path, cache=True)
    cached = load_config(tmp_path, cache=True)
    tdd = cached.section("tdd", TddConfig)
    assert "config" not in cached.__dict__  # the whole configuration was not built for it
    assert tdd.right_reasons == ["assertion"]
    assert tdd == load_config(tmp_path).config.tdd == cached.config.tdd
