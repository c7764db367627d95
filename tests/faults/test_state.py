"""Every artifact kind truncated, garbled, of the wrong schema, or of a newer major version.

A file phasegate cannot read is moved aside (``<name>.corrupt-<time>``, byte for byte) before
anything replaces it; one written by a newer major version is refused (exit 4) and left as it
is. Tried on every artifact kind through the store, and through the entry points that write
or read them: the run report, the verdict, the refinement loop, workflow instances, tasks and
shards.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from phasegate.errors import SchemaVersionError
from phasegate.model import ARTIFACTS
from phasegate.model.run import Outcome
from phasegate.model.workflow import TaskStatus
from phasegate.shards.merge import MergeError, merge_coverage, read_shards
from phasegate.store import Store
from phasegate.workflow.instances import InstanceStore
from phasegate.workflow.queue import HandoffQueue
from tests.factories import record, run_report
from tests.faults.artifacts import FAULTS, faulty, minimal_document
from tests.faults.conftest import Tried
from tests.shards.test_merge import shard_report


def _aside(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.corrupt-*"))


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("kind", sorted(ARTIFACTS))
def test_an_artifact_file_is_kept_aside_or_refused_before_it_is_replaced(
    kind: str, fault: str, tmp_path: Path, tried: Tried
) -> None:
    store = Store(tmp_path / ".phasegate", on_notice=lambda _message: None)
    path = store.path(f"files/{kind}.json")
    path.parent.mkdir(parents=True)
    spoiled = faulty(kind, fault)
    path.write_bytes(spoiled)
    fresh = ARTIFACTS[kind].model_validate(minimal_document(kind))
    with tried("state", f"{kind} file {fault}"):
        if fault == "newer major":
            with pytest.raises(SchemaVersionError, match="newer than"):
                store.write_model(f"files/{kind}.json", fresh)
            with pytest.raises(SchemaVersionError):
                store.read_model(f"files/{kind}.json", ARTIFACTS[kind])
            assert path.read_bytes() == spoiled
            assert _aside(path) == []
        else:
            store.write_model(f"files/{kind}.json", fresh)
            (kept,) = _aside(path)
            assert kept.read_bytes() == spoiled
            assert ARTIFACTS[kind].model_validate_json(path.read_bytes()) == fresh


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("kind", sorted(ARTIFACTS))
def test_an_artifact_line_is_set_aside_or_refused(
    kind: str, fault: str, tmp_path: Path, tried: Tried
) -> None:
    store = Store(tmp_path / ".phasegate", on_notice=lambda _message: None)
    good = json.dumps(minimal_document(kind)).encode()
    bad = faulty(kind, fault).replace(b"\n", b" ")
    path = store.path("lines.jsonl")
    path.parent.mkdir(parents=True)
    path.write_bytes(good + b"\n" + bad + b"\n" + good + b"\n")
    before = path.read_bytes()
    with tried("state", f"{kind} line {fault}"):
        if fault == "newer major":
            with pytest.raises(SchemaVersionError, match="line 2"):
                store.read_jsonl("lines.jsonl", ARTIFACTS[kind])
            assert path.read_bytes() == before
        else:
            read = store.read_jsonl("lines.jsonl", ARTIFACTS[kind])
            assert len(read.entries) == 2
            assert [line.number for line in read.rejected] == [2]
            assert read.moved_to is not None
            (kept,) = [json.loads(line) for line in read.moved_to.read_text().splitlines()]
            assert kept["text"] == bad.decode("utf-8", errors="replace")
            assert path.read_bytes() == good + b"\n" + good + b"\n"


SOURCE = "def f():\n    return 1\n"


def _gate_project(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.phasegate]\ngate_paths = ["ci"]\n')
    (pytester.path / "ci").mkdir()
    (pytester.path / "ci" / "quick.toml").write_text('name = "quick"\n[checks.syntax]\n')
    pytester.makepyfile(test_it="def test_it():\n    assert True\n")


@pytest.mark.parametrize("name", ["gates/quick.json", "refinement.json", "report.json"])
def test_a_newer_major_artifact_stops_the_run_before_its_tests(
    name: str, pytester: pytest.Pytester, tried: Tried
) -> None:
    _gate_project(pytester)
    kind = {"gates": "gate-verdict", "refinement.json": "refinement", "report.json": "run-report"}
    spoiled = faulty(kind[name.split("/")[0]], "newer major")
    path = pytester.path / ".phasegate" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(spoiled)
    with tried("state", f"{name} of a newer major, under `pytest --gate`"):
        result = pytester.runpytest_inprocess("--gate=quick", "-p", "no:cacheprovider")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert "newer than the 1.0 this phasegate understands" in result.stderr.str()
        assert path.read_bytes() == spoiled
        assert "test_it" not in result.stdout.str()


@pytest.mark.parametrize("name", ["gates/quick.json", "refinement.json", "report.json"])
def test_a_wrong_schema_artifact_is_kept_aside_by_a_run(
    name: str, pytester: pytest.Pytester, tried: Tried
) -> None:
    _gate_project(pytester)
    kind = {"gates": "gate-verdict", "refinement.json": "refinement", "report.json": "run-report"}
    document = minimal_document(kind[name.split("/")[0]])
    # A header phasegate writes, a closing brace, and a body of the wrong shape.
    spoiled = json.dumps({**document, "checks": "none", "tests": 3, "rounds": {}}).encode()
    path = pytester.path / ".phasegate" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(spoiled)
    with tried("state", f"{name} of the wrong schema, under `pytest --gate`"):
        result = pytester.runpytest_inprocess("--gate=quick", "-p", "no:cacheprovider")
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()
        (kept,) = _aside(path)
        assert kept.read_bytes() == spoiled
        assert ARTIFACTS[kind[name.split("/")[0]]].model_validate_json(path.read_bytes())


def test_a_newer_major_workflow_instance_is_refused_and_left(tmp_path: Path, tried: Tried) -> None:
    store = Store(tmp_path / ".phasegate")
    path = store.path("workflows/w1.json")
    path.parent.mkdir(parents=True)
    spoiled = faulty("workflow-instance", "newer major").replace(b'"x"', b'"w1"', 1)
    path.write_bytes(spoiled)
    with tried("state", "a workflow instance of a newer major"):
        with pytest.raises(SchemaVersionError):
            InstanceStore(store).load("w1")
        assert path.read_bytes() == spoiled
        assert _aside(path) == []


def test_a_newer_major_task_is_not_claimed_and_left(tmp_path: Path, tried: Tried) -> None:
    queue = HandoffQueue(tmp_path / "tasks")
    queue.add("a task", task_id="t1")
    (found,) = queue._files(TaskStatus.QUEUE)
    data = json.loads(found.path.read_text())
    spoiled = json.dumps({**data, "schema_version": "2.0"}).encode()
    found.path.write_bytes(spoiled)
    with tried("state", "a task of a newer major, claimed"):
        with pytest.raises(SchemaVersionError):
            queue.claim("w1")
        assert found.path.read_bytes() == spoiled
        running = queue.root / "running" / found.path.name
        running.parent.mkdir()
        found.path.rename(running)
        with pytest.raises(SchemaVersionError):
            queue.fail("t1", by="w1", error="no")
        assert running.read_bytes() == spoiled


def _shards(tmp_path: Path) -> list[Path]:
    folders = []
    for k in (1, 2):
        folder = tmp_path / f"s{k}"
        folder.mkdir()
        (folder / "report.json").write_text(shard_report(k, 2).model_dump_json())
        folders.append(folder)
    return folders


def test_a_newer_major_shard_is_refused(tmp_path: Path, tried: Tried) -> None:
    folders = _shards(tmp_path)
    report = folders[1] / "report.json"
    report.write_text(
        report.read_text().replace('"schema_version":"1.0"', '"schema_version":"2.0"')
    )
    with (
        tried("state", "a shard report of a newer major, merged"),
        pytest.raises(SchemaVersionError, match="newer than"),
    ):
        read_shards(folders)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"passed": 99}, "passed 99 but its records hold"),
        ({"failed": 0, "passed": 4}, "passed 4 but its records hold 3"),
        ({"collected": 1}, "collected 1 but its records hold"),
    ],
)
def test_shard_counts_that_disagree_with_its_records_are_refused(
    change: dict[str, int], says: str, tmp_path: Path, tried: Tried
) -> None:
    folders = _shards(tmp_path)
    path = folders[0] / "report.json"
    report = shard_report(1, 2, outcomes={"tests/test_m.py::test_0": Outcome.FAILED})
    report.counts = report.counts.model_copy(update=change)
    path.write_text(report.model_dump_json())
    with (
        tried("state", f"a shard whose counts disagree with its records ({change})"),
        pytest.raises(MergeError, match=says),
    ):
        read_shards(folders)


@pytest.mark.parametrize("content", [b"", b"not a database at all", b"SQLite format 3\x00"])
def test_a_corrupt_coverage_shard_is_an_error_naming_it(
    content: bytes, tmp_path: Path, tried: Tried
) -> None:
    folders = _shards(tmp_path)
    for folder in folders:
        (folder / "coverage").mkdir()
        shutil.copyfile(__file__, folder / "coverage" / "unused.txt")
    (folders[0] / "coverage" / ".coverage").write_bytes(content)
    (folders[1] / "coverage" / ".coverage").write_bytes(content)
    shards = read_shards(folders)
    with (
        tried("state", f"a corrupt coverage shard: {content[:16]!r}"),
        pytest.raises(MergeError, match=r"coverage data of shard 1/2 .* cannot be read"),
    ):
        merge_coverage(shards, tmp_path / "merged" / ".coverage", rootdir=tmp_path)


def test_counts_of_a_sound_shard_still_merge(tmp_path: Path) -> None:
    """The other side: a shard whose counts are its records' passes."""
    folders = _shards(tmp_path)
    assert [s.info.index for s in read_shards(folders)] == [1, 2]
    assert run_report([record("a::b")]).counts.passed == 1
