"""The artifacts store: atomic writes, locks, JSONL, schema checks, nothing ever lost."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
from pathlib import Path

import pytest

from phasegate import store as store_module
from phasegate.errors import SchemaVersionError, StoreError
from phasegate.model.base import ArtifactModel, Model
from phasegate.store import Store, write_atomically


class Note(ArtifactModel):
    text: str


class Entry(Model):
    schema_version: str = "1.0"
    n: int


@pytest.fixture
def store(tmp_path: Path) -> Store:
    notices: list[str] = []
    store = Store(tmp_path / ".phasegate", on_notice=notices.append)
    store.ensure_writable()
    return store


def test_ensure_writable_creates_the_folder_and_ignores_it_for_git(tmp_path: Path) -> None:
    store = Store(tmp_path / "deep" / ".phasegate")
    store.ensure_writable()
    assert (tmp_path / "deep" / ".phasegate" / ".gitignore").read_text().strip().endswith("*")


def test_an_unwritable_folder_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match=r"cannot write artifacts to .*a-file.*artifacts_dir"):
        Store(blocker / ".phasegate").ensure_writable()


def test_model_round_trip_leaves_no_temporary_files(store: Store) -> None:
    store.write_model("note.json", Note(text="hello"))
    assert store.read_model("note.json", Note) == Note(text="hello")
    assert sorted(p.name for p in store.root.iterdir()) == [".gitignore", "note.json"]


def test_an_atomic_write_gets_the_mode_asked_for_or_a_new_files_mode(tmp_path: Path) -> None:
    write_atomically(tmp_path / "plain.txt", b"plain")
    write_atomically(tmp_path / "kept.txt", b"kept", mode=0o640)
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "plain.txt").read_bytes() == b"plain"
    # Not the 0600 its temporary file was created with: the mode a new file gets.
    assert (tmp_path / "plain.txt").stat().st_mode & 0o777 == 0o666 & ~umask
    assert (tmp_path / "kept.txt").stat().st_mode & 0o777 == 0o640


def test_an_atomic_write_that_fails_leaves_the_old_file_and_no_temporary_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "note.txt"
    target.write_bytes(b"old")

    def refuse(source: str, destination: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="No space left"):
        write_atomically(target, b"new")
    assert target.read_bytes() == b"old"
    assert [path.name for path in tmp_path.iterdir()] == ["note.txt"]


def test_missing_file_reads_as_none(store: Store) -> None:
    assert store.read_model("absent.json", Note) is None


def test_corrupt_file_is_moved_aside_with_a_notice(store: Store) -> None:
    (store.root / "note.json").write_text('{"text": "half')
    assert store.read_model("note.json", Note) is None
    (aside,) = store.root.glob("note.json.corrupt-*")
    assert aside.read_text() == '{"text": "half'
    assert not (store.root / "note.json").exists()
    assert "note.json could not be read: it is not valid JSON" in store.notices[0]
    assert aside.name in store.notices[0]


def test_file_not_matching_the_schema_is_moved_aside(store: Store) -> None:
    (store.root / "note.json").write_text('{"schema_version": "1.0", "text": 5}')
    assert store.read_model("note.json", Note) is None
    assert len(list(store.root.glob("note.json.corrupt-*"))) == 1
    assert "does not match the schema (text:" in store.notices[0]


def test_writing_over_a_corrupt_file_keeps_the_old_one(store: Store) -> None:
    (store.root / "note.json").write_text("garbage")
    store.write_model("note.json", Note(text="new"))
    (aside,) = store.root.glob("note.json.corrupt-*")
    assert aside.read_text() == "garbage"
    assert json.loads((store.root / "note.json").read_text())["text"] == "new"


def test_newer_major_schema_is_refused_and_left_alone(store: Store) -> None:
    newer = '{"schema_version": "2.3", "text": "from the future"}'
    (store.root / "note.json").write_text(newer)
    with pytest.raises(SchemaVersionError, match=r"schema version 2\.3, newer than the 1\.0"):
        store.read_model("note.json", Note)
    with pytest.raises(SchemaVersionError):
        store.write_model("note.json", Note(text="x"))
    assert (store.root / "note.json").read_text() == newer


def test_a_file_as_written_is_not_parsed_and_one_changed_since_is(store: Store) -> None:
    # Valid JSON of the wrong shape: only the kept digest lets it through unparsed.
    text = '{"schema_version": "1.0", "text": 5}'
    store.write_text("note.json", text, keep_digest=True)
    store.vet("note.json", Note)
    assert (store.root / "note.json").read_text() == text
    (store.root / "note.json").write_text(text.replace(" ", ""))
    Store(store.root, on_notice=store.notices.append).vet("note.json", Note)
    assert not (store.root / "note.json").exists()
    assert "does not match the schema (text:" in store.notices[0]


class _CountingSha256:
    """hashlib with sha256 counted: how many times the store hashed a file."""

    def __init__(self) -> None:
        self.calls = 0

    def sha256(self, data: bytes) -> hashlib._Hash:
        self.calls += 1
        return hashlib.sha256(data)


def test_a_file_vetted_again_unchanged_is_not_hashed_again(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.write_text("note.json", Note(text="a").model_dump_json(), keep_digest=True)
    counting = _CountingSha256()
    monkeypatch.setattr(store_module, "hashlib", counting)
    store.vet("note.json", Note)  # before a run's tests
    store.vet("note.json", Note)  # before the run replaces it
    assert counting.calls == 1
    assert store.notices == []


def test_a_file_changed_between_two_vets_is_vetted_again(store: Store) -> None:
    store.write_text("note.json", Note(text="a").model_dump_json(), keep_digest=True)
    store.vet("note.json", Note)
    # Replaced while the tests ran: a header and a closing brace, a body of the wrong shape.
    (store.root / "note.json").write_text('{"schema_version": "1.0", "text": 5}')
    store.vet("note.json", Note)
    (aside,) = store.root.glob("note.json.corrupt-*")
    assert aside.read_text() == '{"schema_version": "1.0", "text": 5}'
    assert "does not match the schema (text:" in store.notices[0]


def test_newer_minor_schema_with_unknown_keys_is_read(store: Store) -> None:
    (store.root / "note.json").write_text('{"schema_version": "1.7", "text": "a", "extra": 1}')
    assert store.read_model("note.json", Note) == Note(schema_version="1.7", text="a")


def test_paths_outside_the_folder_are_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="outside the artifacts folder"):
        store.write_text("../escape.txt", "x")


def test_jsonl_append_and_read_in_order(store: Store) -> None:
    store.append_jsonl("log.jsonl", Entry(n=1))
    store.append_jsonl("log.jsonl", [Entry(n=2), Entry(n=3)])
    read = store.read_jsonl("log.jsonl", Entry)
    assert [e.n for e in read.entries] == [1, 2, 3]
    assert read.rejected == []


class Sparse(Model):
    schema_version: str = "1.0"
    note: str | None = None


def test_jsonl_may_leave_out_null_fields_which_read_back_as_null(store: Store) -> None:
    store.append_jsonl("sparse.jsonl", [Sparse(), Sparse(note="x")], exclude_none=True)
    lines = (store.root / "sparse.jsonl").read_text().splitlines()
    assert lines == ['{"schema_version":"1.0"}', '{"schema_version":"1.0","note":"x"}']
    assert [e.note for e in store.read_jsonl("sparse.jsonl", Sparse).entries] == [None, "x"]


def test_write_bytes_is_exact_and_leaves_no_temporary_files(store: Store) -> None:
    data = b"caf\xe9\r\nno newline"
    path = store.write_bytes("deep/blob", data)
    assert path.read_bytes() == data
    assert sorted(p.name for p in path.parent.iterdir()) == ["blob"]


def test_jsonl_bad_lines_are_set_aside_and_good_ones_kept(store: Store) -> None:
    path = store.root / "log.jsonl"
    path.write_text(
        '{"n": 1}\nnot json\n{"n": "two"}\n{"n": 4}\n{"n": 5, "trunc',
    )
    read = store.read_jsonl("log.jsonl", Entry)
    assert [e.n for e in read.entries] == [1, 4]
    assert [r.number for r in read.rejected] == [2, 3, 5]
    assert read.moved_to is not None
    kept_aside = [json.loads(line) for line in read.moved_to.read_text().splitlines()]
    assert [k["text"] for k in kept_aside] == ["not json", '{"n": "two"}', '{"n": 5, "trunc']
    assert path.read_text() == '{"n": 1}\n{"n": 4}\n'
    assert "3 unreadable line(s) (line 2, 3, 5)" in store.notices[0]
    assert "2 valid entries kept" in store.notices[0]


def test_append_after_a_truncated_line_does_not_glue_lines(store: Store) -> None:
    path = store.root / "log.jsonl"
    path.write_text('{"n": 1}\n{"n": 2, "cut')
    store.append_jsonl("log.jsonl", Entry(n=3))
    read = store.read_jsonl("log.jsonl", Entry)
    assert [e.n for e in read.entries] == [1, 3]
    assert [r.text for r in read.rejected] == ['{"n": 2, "cut']


def test_jsonl_entry_from_a_newer_major_schema_is_refused(store: Store) -> None:
    (store.root / "log.jsonl").write_text('{"n": 1}\n{"schema_version": "9.0", "n": 2}\n')
    with pytest.raises(SchemaVersionError, match="line 2"):
        store.read_jsonl("log.jsonl", Entry)


def _append_many(root: str, worker: int) -> None:
    store = Store(Path(root))
    for i in range(50):
        store.append_jsonl("race.jsonl", Entry(n=worker * 1000 + i))


def test_concurrent_appenders_never_interleave(store: Store) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_append_many, args=(str(store.root), w)) for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=120)
        assert process.exitcode == 0
    read = store.read_jsonl("race.jsonl", Entry)
    assert read.rejected == []
    assert sorted(e.n for e in read.entries) == sorted(
        w * 1000 + i for w in range(4) for i in range(50)
    )


@pytest.mark.parametrize("name", ["../../escape", "a/b", "a\\b", ""])
def test_a_lock_name_that_is_a_path_is_refused(store: Store, name: str) -> None:
    refused = pytest.raises(StoreError, match=f"the lock name {re.escape(repr(name))} is not")
    with refused, store.lock(name):
        pass  # pragma: no cover - never entered
    assert sorted(p.name for p in store.root.parent.rglob("*.lock")) == []
