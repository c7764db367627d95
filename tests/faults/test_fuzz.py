"""Hypothesis fuzzing of every loader: each answer is a value or phasegate's own error.

A loader given anything (settings tables, gate files, workflow files, artifact files of every
kind, settings caches, auto-debug journals, task files) either returns what it reads or
raises the error a user is shown with exit 4 (:class:`~phasegate.errors.PhasegateError`):
never a ``TypeError``, ``KeyError`` or ``RecursionError`` that would end in a traceback, and
never a file changed or lost on the way (an unreadable one is kept aside, byte for byte).
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import date, datetime, time, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phasegate.autodebug.workspace import recover
from phasegate.config import PhasegateConfig, load_config, settings_cache
from phasegate.errors import PhasegateError, SchemaVersionError
from phasegate.gates.definition import GateDefinition, load_gate
from phasegate.gates.registry import CheckRegistry
from phasegate.gates.runner import plan_gate
from phasegate.model import ARTIFACTS
from phasegate.report.bundle import read_artifact
from phasegate.store import Store
from phasegate.workflow.definition import read_workflow
from phasegate.workflow.queue import HandoffQueue
from tests.faults.artifacts import minimal_document
from tests.faults.conftest import Tried

FUZZ = settings(
    max_examples=60,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@contextmanager
def _folder() -> Iterator[Path]:
    """A fresh folder per example (hypothesis runs many examples in one test)."""
    folder = Path(tempfile.mkdtemp(prefix="phasegate-fuzz-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- TOML, written by hand: the standard library reads TOML but does not write it ------------


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{" + items + "}"
    raise TypeError(value)


def _toml(table: dict[str, Any], header: str | None = None) -> str:
    lines = [f"[{header}]"] if header else []
    lines += [f"{json.dumps(key)} = {_toml_value(value)}" for key, value in table.items()]
    return "\n".join(lines) + "\n"


CONFIG_KEYS = [
    *PhasegateConfig.model_fields,
    "required", "skip_allowed", "timeout_s", "options", "fail_when", "metric", "op", "value",
    "scope", "threshold", "alpha", "enabled", "max_rounds", "right_reasons", "paths",
    "max_task_retries", "tasks_dir", "lint", "coverage", "covrage", "types", "index",
]  # fmt: skip

scalars = (
    st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["default", "record", ".phasegate", "../x", "in-pull-request", "<"])
    | st.datetimes(timezones=st.just(timezone.utc)).map(lambda d: d.replace(microsecond=0))
)
keys = st.sampled_from(CONFIG_KEYS) | st.text(min_size=1, max_size=8)
tables = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)
config_tables = st.dictionaries(keys, tables, max_size=6)


@FUZZ
@given(table=config_tables)
def _settings_tables(table: dict[str, Any]) -> None:
    with _folder() as root:
        (root / "pyproject.toml").write_text(_toml(table, "tool.phasegate"), encoding="utf-8")
        answers: list[object] = []
        for cache in (False, True, True):  # validated, then cached, then read from the cache
            try:
                loaded = load_config(root, cache=cache)
                answers.append((loaded.config, loaded.artifacts_path))
            except PhasegateError as exc:
                answers.append(str(exc))
        assert answers[0] == answers[1] == answers[2], "the settings cache changed the answer"


@FUZZ
@given(text=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def _pyproject_bytes(text: bytes) -> None:
    with _folder() as root:
        (root / "pyproject.toml").write_bytes(text)
        with suppress(PhasegateError):
            assert isinstance(load_config(root).config, PhasegateConfig)


@FUZZ
@given(document=config_tables, checks=st.dictionaries(keys, config_tables, max_size=3))
def _gate_files(document: dict[str, Any], checks: dict[str, Any]) -> None:
    with _folder() as root:
        body = _toml(document) + "".join(
            _toml(spec, f"checks.{json.dumps(check_id)}") for check_id, spec in checks.items()
        )
        path = root / "fuzzed.toml"
        try:
            path.write_text(body, encoding="utf-8")
        except ValueError:  # a lone surrogate cannot even be written
            return
        try:
            gate, source = load_gate("fuzzed.toml", root)
            assert isinstance(gate, GateDefinition)
            plan_gate(gate, source, CheckRegistry(), in_pull_request=False)
        except PhasegateError:
            pass


@FUZZ
@given(document=config_tables)
def _workflow_files(document: dict[str, Any]) -> None:
    with _folder() as root:
        path = root / "flow.toml"
        try:
            path.write_text(_toml(document), encoding="utf-8")
        except ValueError:
            return
        with suppress(PhasegateError):
            read_workflow(path)


def _mutations(kind: str) -> st.SearchStrategy[bytes]:
    document = minimal_document(kind)
    keys_of = sorted(document)
    spoiled = st.builds(
        lambda key, value: json.dumps({**document, key: value}),
        st.sampled_from([*keys_of, "extra"]),
        st.recursive(scalars.filter(lambda v: not isinstance(v, datetime)), st.lists, max_leaves=4),
    )
    dropped = st.sampled_from(keys_of).map(
        lambda key: json.dumps({k: v for k, v in document.items() if k != key})
    )
    return (spoiled | dropped).map(str.encode) | st.binary(max_size=120)


@pytest.mark.parametrize("kind", sorted(ARTIFACTS))
def test_any_artifact_file_reads_or_is_kept_aside(kind: str, tried: Tried) -> None:
    @FUZZ
    @given(raw=_mutations(kind))
    def attempt(raw: bytes) -> None:
        with _folder() as folder:
            store = Store(folder, on_notice=lambda _message: None)
            path = folder / "artifact.json"
            path.write_bytes(raw)
            try:
                read = store.read_model("artifact.json", ARTIFACTS[kind])
            except SchemaVersionError:
                assert path.read_bytes() == raw  # refused and left as it is
                return
            if read is None:
                (kept,) = folder.glob("artifact.json.corrupt-*")
                assert kept.read_bytes() == raw
                assert not path.exists()
            else:
                assert path.read_bytes() == raw
            path.write_bytes(raw)
            with suppress(PhasegateError):
                read_artifact(path, ARTIFACTS[kind])

    with tried("fuzzing", f"hypothesis: {kind} files of any content (60 examples)"):
        attempt()


@FUZZ
@given(
    raw=st.binary(max_size=300) | config_tables.map(lambda t: json.dumps(t, default=str).encode())
)
def _settings_caches(raw: bytes) -> None:
    with _folder() as root:
        (root / "pyproject.toml").write_text('[tool.phasegate]\ngate = "strict"\n')
        path = root / ".phasegate" / settings_cache.CACHE_FILE
        path.parent.mkdir(parents=True)
        path.write_bytes(raw)
        loaded = load_config(root, cache=True)
        assert loaded.config.gate == "strict"
        assert loaded.artifacts_path == (root / ".phasegate").resolve()


journal_entries = st.dictionaries(
    st.sampled_from(["src/a.py", "../a.py", "/etc/passwd", ".git/hooks/pre-commit", "a"])
    | st.text(max_size=10),
    st.fixed_dictionaries(
        {},
        optional={
            "original": st.sampled_from(["YQ==", "%%", ""]) | st.text(max_size=5),
            "mode": scalars,
            "mtime_ns": scalars,
            "candidate_sha256": scalars,
        },
    )
    | scalars,
    max_size=3,
)


@FUZZ
@given(journal=journal_entries | tables)
def _journals(journal: Any) -> None:
    with _folder() as folder:
        root = folder / "project"
        (root / "src").mkdir(parents=True)
        (root / "src" / "a.py").write_text("A = 1\n")
        outside = folder / "a.py"
        path = root / ".phasegate" / "journal.json"
        path.parent.mkdir()
        path.write_text(json.dumps(journal, default=str))
        try:
            recover(path, root)
        except PhasegateError:
            assert path.exists()  # refused: kept for a person to look at
        assert not outside.exists()
        written = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
        assert written <= {"project/src/a.py", "project/.phasegate/journal.json"}


@FUZZ
@given(raw=_mutations("task"))
def _task_files(raw: bytes) -> None:
    with _folder() as folder:
        queue = HandoffQueue(folder / "tasks")
        queue.add("first", task_id="t1")
        (queue.root / "queue" / "HIGH_20260101T000000000000Z_t2.json").write_bytes(raw)
        try:
            claimed = queue.claim("w")
        except PhasegateError:
            claimed = None
        files = [p.name for p in queue.root.rglob("*.json*") if "history" not in p.parts]
        assert any(name.endswith("_t1.json") for name in files)
        assert any("_t2.json" in name for name in files), "the fuzzed task file was lost"
        assert (
            not any((queue.root / ".transit").glob("*"))
            if (queue.root / ".transit").exists()
            else True
        )
        assert claimed is None or claimed.id in ("t1", "t2")
        if claimed is not None and claimed.id == "t2":
            assert any("_t2.json" in p.name for p in (queue.root / "running").iterdir())


#: Each loader's fuzzing, by what it is given.
LOADERS = {
    "[tool.phasegate] tables of any shape, loaded with and without the settings cache": (
        _settings_tables
    ),
    "pyproject.toml of any bytes": _pyproject_bytes,
    "gate files of any shape, loaded and planned": _gate_files,
    "workflow files of any shape": _workflow_files,
    "settings caches of any content": _settings_caches,
    "auto-debug journals of any shape, restored": _journals,
    "task files of any content in the queue, claimed": _task_files,
}


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_every_loader_answers_a_value_or_a_usage_error(loader: str, tried: Tried) -> None:
    with tried("fuzzing", f"hypothesis: {loader} (60 examples)"):
        LOADERS[loader]()
