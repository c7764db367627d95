"""Shard identities and phasegate merge's refusals: a gap is an error, never a silent pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.errors import UsageError
from phasegate.model.run import Outcome, RunReport, ShardInfo
from phasegate.shards.merge import MergeError, merge_reports, read_shards
from phasegate.shards.spec import ShardSpec, parse_shard, split
from tests.factories import record, run_report

SUITE = [f"tests/test_m.py::test_{n}" for n in range(7)]


def test_parse_shard_accepts_k_of_n_and_names_the_source() -> None:
    assert parse_shard(" 2/4 ", "--shard") == ShardSpec(2, 4)
    with pytest.raises(UsageError, match=r"--shard = '5/4': the shard number K must be from 1"):
        parse_shard("5/4", "--shard")
    with pytest.raises(UsageError, match=r"PHASEGATE_SHARD = 'two' is not a shard: write K/N"):
        parse_shard("two", "PHASEGATE_SHARD")


def test_the_split_is_round_robin_over_sorted_ids_and_covers_the_suite() -> None:
    parts = [split(list(reversed(SUITE)), ShardSpec(k, 3))[0] for k in (1, 2, 3)]
    assert [len(p) for p in parts] == [3, 2, 2]
    assert set().union(*parts) == set(SUITE)
    assert parts[0] == {SUITE[0], SUITE[3], SUITE[6]}
    digests = {split(SUITE, ShardSpec(k, 3))[1].digest for k in (1, 2, 3)}
    assert len(digests) == 1


def shard_report(
    k: int,
    n: int,
    *,
    outcomes: dict[str, Outcome] | None = None,
    suite: list[str] = SUITE,
    sha: str = "a" * 40,
) -> RunReport:
    mine, info = split(suite, ShardSpec(k, n))
    tests = [record(t, (outcomes or {}).get(t, Outcome.PASSED)) for t in sorted(mine)]
    report = run_report(
        tests,
        run_id=f"run-{k}",
        shard=ShardInfo(
            index=k, total=n, suite_size=info.size, suite_digest=info.digest, gate="default"
        ),
    )
    assert report.git is not None
    report.git.sha = sha
    report.counts.deselected = len(suite) - len(mine)
    return report


def write(tmp_path: Path, name: str, report: RunReport) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "report.json").write_text(report.model_dump_json())
    return folder


def test_merged_counts_add_up_and_failures_are_kept(tmp_path: Path) -> None:
    failing = {SUITE[4]: Outcome.FAILED}
    folders = [write(tmp_path, f"s{k}", shard_report(k, 3, outcomes=failing)) for k in (3, 1, 2)]
    merged = merge_reports(read_shards(folders), rootdir=tmp_path)
    assert merged.counts.collected == 7
    assert (merged.counts.passed, merged.counts.failed, merged.counts.deselected) == (6, 1, 0)
    assert sorted(t.nodeid for t in merged.tests) == sorted(SUITE)
    assert merged.exit_status == 1
    assert merged.merged is not None
    assert [s.index for s in merged.merged.shards] == [1, 2, 3]
    assert merged.shard is None


def test_a_missing_shard_is_an_error(tmp_path: Path) -> None:
    folders = [write(tmp_path, f"s{k}", shard_report(k, 3)) for k in (1, 3)]
    with pytest.raises(MergeError, match=r"shard 2/3 is missing \(given: 1/3 \(.*s1\), 3/3"):
        read_shards(folders)


def test_a_duplicated_shard_is_an_error(tmp_path: Path) -> None:
    folders = [
        write(tmp_path, name, shard_report(k, 2)) for name, k in (("a", 1), ("b", 2), ("c", 2))
    ]
    with pytest.raises(MergeError, match=r"shard 2/2 was given twice: .*b \(run run-2\) and "):
        read_shards(folders)


def test_shards_of_different_suites_or_commits_are_refused(tmp_path: Path) -> None:
    other_suite = [*SUITE, "tests/test_m.py::test_new"]
    folders = [
        write(tmp_path, "a", shard_report(1, 2)),
        write(tmp_path, "b", shard_report(2, 2, suite=other_suite)),
    ]
    with pytest.raises(MergeError, match=r"collected different suites: 7 tests in 1/2"):
        read_shards(folders)
    folders = [
        write(tmp_path, "c", shard_report(1, 2)),
        write(tmp_path, "d", shard_report(2, 2, sha="b" * 40)),
    ]
    with pytest.raises(MergeError, match=r"tested different commits: aaaaaaaaaaaa in 1/2"):
        read_shards(folders)


def test_a_test_reported_by_two_shards_is_an_error(tmp_path: Path) -> None:
    second = shard_report(2, 2)
    second.tests.append(record(SUITE[0]))
    second.counts.passed += 1  # a shard's counts agree with its records, as the run wrote them
    second.counts.collected += 1
    folders = [write(tmp_path, "a", shard_report(1, 2)), write(tmp_path, "b", second)]
    with pytest.raises(
        MergeError,
        match=r"1 test\(s\) were reported by more than one shard: "
        r"tests/test_m.py::test_0 \(shards 1 and 2\)",
    ):
        merge_reports(read_shards(folders), rootdir=tmp_path)


def test_a_report_that_is_not_a_shard_or_a_folder_without_one(tmp_path: Path) -> None:
    plain = write(tmp_path, "plain", run_report([record(SUITE[0])]))
    with pytest.raises(MergeError, match=r"plain/report.json is not a shard's report"):
        read_shards([plain])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(MergeError, match=r"empty holds no report.json"):
        read_shards([empty])


def test_incomplete_shards_make_an_incomplete_merge(tmp_path: Path) -> None:
    broken = shard_report(2, 2)
    broken.incomplete = True
    broken.incomplete_reasons = ["the run was interrupted (exit status 2)"]
    folders = [write(tmp_path, "a", shard_report(1, 2)), write(tmp_path, "b", broken)]
    merged = merge_reports(read_shards(folders), rootdir=tmp_path)
    assert merged.incomplete is True
    assert merged.incomplete_reasons == ["shard 2/2: the run was interrupted (exit status 2)"]
