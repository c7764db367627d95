"""False positives of the ``integrity`` check on honest history: 30 releases of three projects.

``python benchmarks/integrity_history.py`` measures this. No code host is reachable offline,
so each project's history is made from its releases: the last 31 source distributions on PyPI
(frozen below by version and sha256, fetched once into ``PHASEGATE_REAL_HISTORY_CACHE``, else
``~/.cache/phasegate/real-history/``; offline after that) become a git repository of 31
commits, the oldest release as the root commit, each later commit the next release's files
exactly (files the release dropped are deleted). A release is many commits of the project's own
history squashed into one, so each diff judged here is much larger than a single commit's.

Then, for each of the 30 commits that have a parent, the check runs the way a user runs it:
the commit is checked out (``git clean`` removes the previous run's files) and
``phasegate gate run --gate <gate file holding only [checks.integrity]> --base HEAD~1`` is
run in it, with the release's code on ``PYTHONPATH`` (``src/`` when it has one) so that its own
tests import it rather than an installed copy. The findings are read from the verdict file
(``.phasegate/gates/<gate>.json``) and printed one row per commit: the release, the check's
status, the findings counted by rule, the verdict. ``--json FILE`` writes every finding (after
each commit, so an interrupted run keeps what it measured). ``--engine`` calls the check's
engine in-process on each commit instead (no pytest run, so no comparison with the node ids a
run collected): seconds instead of the projects' whole suites.

    python benchmarks/integrity_history.py [--project NAME ...] [--json FILE] [--work DIR]
    python benchmarks/integrity_history.py --engine --json FILE   # the engine only, quick
    python benchmarks/integrity_history.py --fetch-only      # download what is missing
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: The package index's JSON API, which names each release's files and their digests.
INDEX_JSON = "https://pypi.org/pypi/{name}/json"
#: The gate every commit is judged by: the integrity check alone.
GATE_NAME = "integrity-history"
GATE_TEXT = (
    f'name = "{GATE_NAME}"\ndescription = "The integrity check alone."\n\n[checks.integrity]\n'
)
#: A fixed identity and clock for the commits, so that the same releases make the same ids.
GIT_IDENTITY = ("-c", "user.name=Sam", "-c", "user.email=sam@example.invalid")
COMMIT_EPOCH = 1_600_000_000
#: What a run leaves behind that is not the release's: ignored (``.git/info/exclude``), so that
#: the check never sees it as the change's, and removed between runs.
RUN_LEFTOVERS = ("/.phasegate/", "/.pytest_cache/", "/.hypothesis/", "__pycache__/")
RUN_TIMEOUT_S = 1800.0


@dataclass(frozen=True)
class Release:
    """One source distribution, frozen by version and digest."""

    version: str
    sha256: str


def _releases(table: str) -> tuple[Release, ...]:
    """Parse ``version sha256`` lines, oldest first."""
    rows = [line.split() for line in table.strip().splitlines()]
    return tuple(Release(version, sha256) for version, sha256 in rows)


#: The last 31 final releases with an sdist of each project, oldest first (PyPI, 2026-11-27).
HISTORIES: dict[str, tuple[Release, ...]] = {
    "more-itertools": _releases(
        """
        8.0.2   b84b238cce0d9adad5ed87e745778d20a3f8487d0f0cb8b8a586816c7496458d
        8.1.0   c468adec578380b6281a114cb8a5db34eb1116277da92d7c46f904f0b52d3288
        8.2.0   b1ddb932186d8a6ac451e1d95844b382f55e12686d51ca0c68b6f61f2ab7a507
        8.3.0   558bb897a2232f5e4f8e2399089e35aecb746e1f9191b6584a151647e89267be
        8.4.0   68c70cc7167bdf5c7c9d8f6954a7837089c6a36bf565383919bb595efb8a17e5
        8.5.0   6f83822ae94818eae2612063a5101a7311e68ae8002005b5e05f03fd74a86a20
        8.6.0   b3a9005928e5bed54076e6e549c792b306fddfe72b2d1d22dd63d42d5d3899cf
        8.7.0   c5d6da9ca3ff65220c3bfd2a8db06d698f05d4d2b9be57e1deb2be5a45019713
        8.8.0   83f0308e05477c68f56ea3a888172c78ed5d5b3c282addb67508e7ba6c8f813a
        8.9.0   8c746e0d09871661520da4f1241ba6b908dc903839733c8203b552cffaf173bd
        8.10.0  1debcabeb1df793814859d64a81ad7cb10504c24349368ccf214c664c474f41f
        8.12.0  7dc6ad46f05f545f900dd59e8dfb4e84a4827b97b3cfecb175ea0c7d247f6064
        8.13.0  a42901a0a5b169d925f6f217cd5a190e32ef54360905b9c39ee7db5313bfec0f
        8.14.0  c09443cd3d5438b8dafccd867a6bc1cb0894389e90cb53d227456b0b0bccb750
        9.0.0   5a6257e40878ef0520b1803990e3e22303a41b5714006c32a3fd8304b26ea1ab
        9.1.0   cabaa341ad0389ea83c17a94566a53ae4c9d07349861ecb14dc6d0345cf9ac5d
        10.0.0  cd65437d7c4b615ab81c0640c0480bc29a550ea032891977681efd28344d51e1
        10.1.0  626c369fa0eb37bac0291bce8259b332fd59ac792fa5497b59837309cd5b114a
        10.2.0  8fccb480c43d3e99a00087634c06dd02b0d50fbf088b380de5a41a015ec239e1
        10.3.0  e5d93ef411224fbcef366a6e8ddc4c5781bc6359d43412a65dd5964e46111463
        10.4.0  fe0e63c4ab068eac62410ab05cccca2dc71ec44ba8ef29916a0090df061cf923
        10.5.0  5482bfef7849c25dc3c6dd53a6173ae4795da2a41a80faea6700d9f5846c5da6
        10.6.0  2cd7fad1009c31cc9fb6a035108509e6547547a7a738374f10bd49a09eb3ee3b
        10.7.0  9fddd5403be01a94b204faadcff459ec3568cf110265d3c54323e1e866ad29d3
        10.8.0  f638ddf8a1a0d134181275fb5d58b086ead7c6a72429ad725c67503f13ba30bd
        11.0.0  1fca6853f57fbfabc36ad31b3c3d72490340a414f1cc0eec78436fb847837304
        11.0.1  fefaf25b7ab08f0b45fa9f1892cae93b9fc0089ef034d39213bce15f1cc9e199
        11.0.2  392a9e1e362cbc106a2457d37cabf9b36e5e12efd4ebff1654630e76597df804
        11.1.0  48e8f4d9e7e5878571ecf6f2b4e57634f93cd474cc8cfbd2376f2d11b396e30d
        11.2.0  59960f488835254863a857eb501f69e4ec92fdc8822f098c0f48dba530afd487
        11.2.1  cbf08fd0af284dc69718b9b76a8e6203df624d70209ea511e4219d350c856f63
        """
    ),
    "attrs": _releases(
        """
        16.0.0  de6827a454d23716442b571bb35b0efb32a1b5c1037f09cfc7aaf405c7d68abc
        16.1.0  50f1277dbc9880098afc13cda5eb1bb2efbc1d083559a932f528baee3fba1282
        16.2.0  136f2ec0f94ec77ff2990830feee965d608cab1e8922370e3abdded383d52001
        16.3.0  80203177723e36f3bbe15aa8553da6e80d47bfe53647220ccaa9ad7a5e473ccc
        17.1.0  91a2160e61ffb778a8d017c9b1dcc60758d65d39bf7b480e5e9c6005a4462321
        17.2.0  5d4d1b99f94d69338f485984127e4473b3ab9e20f43821b0e546cc3b2302fd11
        17.3.0  c78f53e32d7cf36d8597c8a2c7e3c0ad210f97b9509e152e4c37fa80869f823c
        17.4.0  1c7960ccfd6a005cd9f7ba884e6316b5e430a3f1a6c37c5f87d8b43f83b54ec9
        18.1.0  e0d0eb91441a3b53dab4d9b743eafc1ac44476296a2053b6ca3af0b139faf87b
        18.2.0  10cbf6e27dbce8c30807caf056c8eb50917e0eaafe86347671b57254006c3e69
        19.1.0  f0b870f674851ecbfbbbd364d6b5cbdff9dcedbc7f3f5e18a6891057f21fe399
        19.2.0  f913492e1663d3c36f502e5e9ba6cd13cf19d7fab50aa13239e420fef95e1396
        19.3.0  f7b7ce16570fe9965acd6d30101a28f62fb4a7f9e926b3bbc9b61f8b04247e72
        20.1.0  0ef97238856430dcf9228e07f316aefc17e8939fc8507e18c6501b761ef1a42a
        20.2.0  26b54ddbbb9ee1d34d5d3668dd37d6cf74990ab23c828c2888dccdceee395594
        20.3.0  832aa3cde19744e49938b91fea06d69ecb9e649c93ba974535d08ad92164f700
        21.2.0  ef6aaac3ca6cd92904cdd0d83f629a15f18053ec84e6432106f7a4d04ae4f5fb
        21.3.0  50f3c9b216dc9021042f71b392859a773b904ce1a029077f58f6598272432045
        21.4.0  626ba8234211db98e869df76230a137c4c40a12d72445c45d5f5b716f076e2fd
        22.1.0  29adc2665447e5191d0e7c568fde78b21f9672d344281d0c6e1ab085429b22b6
        22.2.0  c9227bfc2f01993c03f68db37d1d15c9690188323c067c641f1a35ca58185f99
        23.1.0  6279836d581513a26f1bf235f9acd333bc9115683f14f7e8fae46c98fc50e015
        23.2.0  935dc3b529c262f6cf76e50877d35a4bd3c1de194fd41f47a2b7ae8f19971f30
        24.1.0  adbdec84af72d38be7628e353a09b6a6790d15cd71819f6e9d7b0faa8a125745
        24.2.0  5cfb1b9148b5b086569baec03f20d7b6bf3bcacc9a42bebf87ffaaca362f6346
        24.3.0  8f5c07333d543103541ba7be0e2ce16eeee8130cb0b3f9238ab904ce1e85baff
        25.1.0  1c97078a80c814273a76b2a298a932eb681c87415c11dee0a6921de7f1b02c3e
        25.2.0  18a06db706db43ac232cce80443fcd9f2500702059ecf53489e3c5a3f417acaf
        25.3.0  75d7cefc7fb576747b2c81b4442d4d4a1ce0900973527c011d1030fd3bf4af1b
        25.4.0  16d5969b87f0859ef33a48b35d55ac1be6e42ae49d5e853b597db70c35c57e11
        26.1.0  d03ceb89cb322a8fd706d4fb91940737b6642aa36998fe130a9bc96c985eff32
        """
    ),
    "cachetools": _releases(
        """
        7.0.1   e31e579d2c5b6e2944177a0397150d312888ddf4e16e12f1016068f0c03b8341
        7.0.2   7e7f09a4ca8b791d8bb4864afc71e9c17e607a28e6839ca1a644253c97dbeae0
        7.0.3   8c246313b95849964e54a909c03b327a87ab0428b068fac10da7b105ca275ef6
        7.0.4   7042c0e4eea87812f04744ce6ee9ed3de457875eb1f82d8a206c46d6e48b6734
        7.0.5   0cd042c24377200c1dcd225f8b7b12b0ca53cc2c961b43757e774ebe190fd990
        7.0.6   e5d524d36d65703a87243a26ff08ad84f73352adbeafb1cde81e207b456aaf24
        7.1.0   ea5406e92956f9006b121f8032177c6b02cc5f9a488d1e53b2e4d9cb5aae15c6
        7.1.1   27bdf856d68fd3c71c26c01b5edc312124ed427524d1ddb31aa2b7746fe20d4b
        7.1.2   c1373e3cad0933dfb46bb04d04ef67b5204f8220eb906096dd89a76196053d57
        7.1.3   135cfe944bc3c1e805505f65dae0bef375a2f96261171ab66c79ef77d0bda39d
        7.1.4   437f55a4e0c1b01a4f3077cc470e6991d47430970e36fbcb77e2be0df4fc1cd6
        7.1.5   0def7134eba79e59448edaf5d2e3cc8e49978ab2fd56189c1efd19856b134ab5
        7.1.6   c7a79e7f30ba9943c1cefd08cc36f006aaae086e017af9166f1d59d6170c47e1
        7.1.7   a3e2a00b14d8f8a6b70c1dae7b4685e7ad3bc965c5b42124a2d6ce895da6cf50
        7.1.8   1221d547a0b24b7f26fa891d40d488b5258beab9aebd8ed68c729be3af849c43
        7.2.0   bcac1a1b8da6909994a2957238a57b8140dab7c5c5c69a43669654fe87a33c1d
        7.2.1   b1a7537025c06abf96fcc1443e496af9a3fb95e774e70e1f0af226f73f7f2dcc
        7.2.2   d521dc98d501ba9efd8d2b1663bbf88163509c0c0a090eea6dc154b421ec5410
        7.2.3   e6fafd06de4a5bd915ff7d247588ea497e28c9a568c62db8678d9a5f11515a9a
        7.2.4   e0203b04b75fe13e62098eeb5b2018c4eb1a14c04e2b5b450e70db3ee7e92ec5
        7.2.5   a2223b80de434291ddf4c105354e533bbaf4d29382f5d1bc3e4b9332cb31061e
        7.2.6   1096513bdeed468ba505df3d123e4578a5a22c955f4a9ba3912fd71f3f95363a
        7.2.7   e2154c809ce9e1247120258c36821467597b5663d44c3255a9790785f23c2b1e
        7.2.8   3f9b146b2160975da273e7c23ec882f3996b65df608150d52083c07de0682075
        7.3.0   3f63fc208410f0c3a3b37883c4903ecdacd6f0b259134e6d2e82debd5b2e01de
        7.3.1   32e20b38b9cb7ff8d9fa7692e2f8969be3010083e6e7eac54226d51a91425d15
        7.3.2   43e5db663b58c4337a9959069d93f54dd2e065fdd0438a504cd1100fbeb48beb
        7.3.3   46e92905f580cb137c499b9ec6acd73d569c2c3542ddfeb286618685e55cb340
        8.0.0   5ed01bd676800d51f0025605e4fd8ad0891550513e7b0a4c3da478463764e5c3
        8.0.1   deb1d376d4d28c2f33f3e3058043b005e0af75c35c094bd54053e27d2906ad95
        8.0.2   30ac523adfc118b51d2b2e7bad8a0ddb31370dfe2700c7f10ca224f36ccf81e0
        """
    ),
}


# -- fetching ---------------------------------------------------------------------------------


def cache_dir() -> Path:
    """Where fetched source distributions are kept."""
    configured = os.environ.get("PHASEGATE_REAL_HISTORY_CACHE")
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "phasegate" / "real-history"


def sdist_path(project: str, release: Release, folder: Path | None = None) -> Path:
    """Where ``release``'s sdist is kept (named by project and version, whatever PyPI calls it)."""
    return (folder or cache_dir()) / project / f"{project}-{release.version}.tar.gz"


def cached(project: str, release: Release, folder: Path | None = None) -> Path | None:
    """The cached sdist when it is present and its digest is the frozen one, else ``None``."""
    path = sdist_path(project, release, folder)
    if path.is_file() and sha256_of(path) == release.sha256:
        return path
    return None


def fetch(project: str, releases: Sequence[Release], *, timeout_s: float = 60.0) -> list[Path]:
    """Every release's sdist, downloading (network) only those not cached yet."""
    missing = [release for release in releases if cached(project, release) is None]
    if missing:
        index = INDEX_JSON.format(name=project)
        with urllib.request.urlopen(index, timeout=timeout_s) as response:  # noqa: S310 (https only)
            listed = json.load(response).get("releases", {})
        for release in missing:
            url = _sdist_url(index, listed, project, release)
            with urllib.request.urlopen(url, timeout=timeout_s) as response:  # noqa: S310 (https only)
                data = response.read()
            digest = hashlib.sha256(data).hexdigest()
            if digest != release.sha256:
                raise RuntimeError(
                    f"{url} has sha256 {digest}, expected {release.sha256} "
                    f"({project} {release.version})"
                )
            _write_atomically(sdist_path(project, release), data)
    return [path for release in releases if (path := cached(project, release)) is not None]


def _sdist_url(index: str, listed: dict[str, Any], project: str, release: Release) -> str:
    for entry in listed.get(release.version, []):
        if entry.get("digests", {}).get("sha256") == release.sha256:
            return urllib.parse.urljoin(index, entry["url"])
    raise RuntimeError(f"{index} lists no file with sha256 {release.sha256} for {release.version}")


def _write_atomically(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".part-")
    with os.fdopen(handle, "wb") as stream:
        stream.write(data)
    os.replace(temporary, target)


def sha256_of(path: Path) -> str:
    """The file's sha256, hex."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# -- building the history -------------------------------------------------------------------


@dataclass(frozen=True)
class Commit:
    """One release as a commit of the made history."""

    version: str
    sha: str


def build_history(releases: Sequence[tuple[str, Path]], root: Path) -> list[Commit]:
    """Make ``root`` a git repository with one commit per ``(version, sdist)``, oldest first.

    Each commit holds exactly the files of its sdist's one top-level folder: what the previous
    release had and this one has not is deleted. The first release is the root commit.
    """
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    exclude = root / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.write_text("".join(f"{pattern}\n" for pattern in RUN_LEFTOVERS), encoding="utf-8")
    commits: list[Commit] = []
    for number, (version, sdist) in enumerate(releases):
        for child in root.iterdir():
            if child.name == ".git":
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        _extract_release(sdist, root)
        git(root, "add", "-A")
        when = f"@{COMMIT_EPOCH + number * 86_400} +0000"
        environment = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
        git(
            root,
            *GIT_IDENTITY,
            "commit",
            "-q",
            "--no-verify",
            "--allow-empty",
            "-m",
            f"release {version}",
            env=environment,
        )
        commits.append(Commit(version, git(root, "rev-parse", "HEAD")))
    return commits


def _extract_release(sdist: Path, root: Path) -> None:
    """Put the contents of ``sdist``'s single top-level folder into ``root``."""
    with tempfile.TemporaryDirectory(dir=root.parent, prefix=".unpack-") as folder:
        with tarfile.open(sdist, "r:*") as archive:
            tops = {member.name.split("/", 1)[0] for member in archive.getmembers()}
            if len(tops) != 1:
                raise RuntimeError(
                    f"{sdist}: an sdist has one top-level folder; this one has {sorted(tops)}"
                )
            archive.extractall(folder, filter="data")
        top = Path(folder) / tops.pop()
        if not top.is_dir():
            raise RuntimeError(f"{sdist}: its top-level entry {top.name!r} is not a folder")
        for child in top.iterdir():
            os.replace(child, root / child.name)


def git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run git in ``root``; its output, stripped. A failure raises with git's own message."""
    completed = subprocess.run(
        ["git", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} in {root}: {completed.stderr.strip()}")
    return completed.stdout.strip()


# -- judging each commit --------------------------------------------------------------------


@dataclass
class Judged:
    """The integrity check's answer on one commit against its parent."""

    project: str
    version: str
    parent: str
    commit: str
    verdict: str
    status: str
    reasoning: str
    findings: list[dict[str, Any]] = field(default_factory=list)
    exit_code: int | None = None
    wall_s: float = 0.0

    def by_rule(self) -> Counter[str]:
        return Counter(str(finding.get("rule")) for finding in self.findings)


def judge(
    project: str,
    root: Path,
    parent: Commit,
    commit: Commit,
    gate_file: Path,
    pytest_args: Sequence[str],
) -> Judged:
    """Check ``commit`` out in ``root`` and run the integrity gate on it against ``HEAD~1``."""
    git(root, "checkout", "-q", "--force", "--detach", commit.sha)
    git(root, "clean", "-q", "-f", "-d", "-x")
    code = root / "src" if (root / "src").is_dir() else root
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(code), os.environ.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        ),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    command = [
        sys.executable,
        "-m",
        "phasegate",
        "gate",
        "run",
        "--gate",
        str(gate_file),
        "--base",
        "HEAD~1",
        "--",
        "-p",
        "no:cacheprovider",
        *pytest_args,
    ]
    started = time.monotonic()
    try:
        completed = subprocess.run(
            command,
            cwd=root,
            env=environment,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Judged(
            project,
            commit.version,
            parent.version,
            commit.sha,
            "not judged",
            "timeout",
            f"gate run took over {RUN_TIMEOUT_S:.0f}s",
            wall_s=RUN_TIMEOUT_S,
        )
    wall = time.monotonic() - started
    verdict_file = root / ".phasegate" / "gates" / f"{GATE_NAME}.json"
    try:
        verdict = json.loads(verdict_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        tail = (completed.stdout + completed.stderr).strip().splitlines()[-3:]
        return Judged(
            project,
            commit.version,
            parent.version,
            commit.sha,
            "not judged",
            "no verdict",
            f"{verdict_file.name}: {exc}; {' | '.join(tail)}",
            exit_code=completed.returncode,
            wall_s=wall,
        )
    checks = [check for check in verdict.get("checks", []) if check.get("id") == "integrity"]
    if len(checks) != 1:
        return Judged(
            project,
            commit.version,
            parent.version,
            commit.sha,
            str(verdict.get("verdict")),
            "missing",
            f"the verdict holds {len(checks)} integrity results",
            exit_code=completed.returncode,
            wall_s=wall,
        )
    check = checks[0]
    return Judged(
        project,
        commit.version,
        parent.version,
        commit.sha,
        str(verdict.get("verdict")),
        str(check.get("status")),
        str(check.get("reasoning", "")),
        list(check.get("findings", [])),
        exit_code=completed.returncode,
        wall_s=wall,
    )


def judge_engine(project: str, root: Path, parent: Commit, commit: Commit) -> Judged:
    """Check ``commit`` out and call the check's engine on it against ``parent``, in-process.

    The same families the check runs, without pytest: quick, but without the comparison with
    the node ids a run collected (``test-deselected``) and without a TDD ledger's tricks.
    """
    from phasegate.integrity.configuration import configuration_tricks
    from phasegate.integrity.evidence import evidence_tricks
    from phasegate.integrity.gatechanges import gate_tricks
    from phasegate.integrity.sources import ChangedSources
    from phasegate.integrity.suppressions import SuppressionPolicy, suppression_tricks

    git(root, "checkout", "-q", "--force", "--detach", commit.sha)
    git(root, "clean", "-q", "-f", "-d", "-x")
    code = root / "src" if (root / "src").is_dir() else root
    packages = frozenset(path.parent.name for path in code.glob("*/__init__.py"))
    started = time.monotonic()
    sources = ChangedSources(root, parent.sha, timeout_s=120.0)
    sources.check_listed()
    tricks = [
        *evidence_tricks(sources, packages, None),
        *suppression_tricks(sources, SuppressionPolicy()),
        *configuration_tricks(sources),
        *gate_tricks(sources),
    ]
    findings = [
        {"rule": trick.rule, "path": trick.path, "line": trick.line, "message": trick.message}
        for trick in tricks
    ]
    status = "failed" if findings else "passed"
    return Judged(
        project,
        commit.version,
        parent.version,
        commit.sha,
        "insufficient" if findings else "sufficient",
        status,
        f"{len(findings)} trick(s) (engine, no run)",
        findings,
        wall_s=time.monotonic() - started,
    )


# -- the report -----------------------------------------------------------------------------


def table(results: Sequence[Judged]) -> list[str]:
    """One row per commit: project, release (and its parent), status, findings by rule, verdict."""
    lines = [
        "| project | commit (release) | integrity | findings by rule | verdict | wall s |",
        "|---|---|---|---|---|---|",
    ]
    for result in results:
        rules = ", ".join(f"{rule} {count}" for rule, count in sorted(result.by_rule().items()))
        lines.append(
            f"| {result.project} | {result.parent} -> {result.version} | {result.status} "
            f"| {rules or '-'} | {result.verdict} | {result.wall_s:.1f} |"
        )
    return lines


def summary(results: Sequence[Judged]) -> list[str]:
    """Per project: commits judged, with findings, the check's statuses, findings by rule."""
    lines = []
    for project in dict.fromkeys(result.project for result in results):
        mine = [result for result in results if result.project == project]
        statuses = Counter(result.status for result in mine)
        rules: Counter[str] = Counter()
        for result in mine:
            rules.update(result.by_rule())
        flagged = sum(1 for result in mine if result.findings)
        lines.append(
            f"{project}: {len(mine)} commits, {flagged} with findings; statuses "
            + ", ".join(f"{status} {count}" for status, count in sorted(statuses.items()))
            + "; findings "
            + (", ".join(f"{rule} {count}" for rule, count in sorted(rules.items())) or "none")
        )
    return lines


def run(
    projects: Sequence[str],
    work: Path,
    pytest_args: Sequence[str],
    *,
    offline: bool,
    json_file: Path | None = None,
    engine: bool = False,
) -> list[Judged]:
    """Build each project's history under ``work`` and judge its commits; print as it goes.

    With ``json_file``, every result so far is written there after each commit, so that an
    interrupted run keeps what it measured.
    """
    gate_file = work / f"{GATE_NAME}.toml"
    gate_file.write_text(GATE_TEXT, encoding="utf-8")
    results: list[Judged] = []
    for project in projects:
        releases = HISTORIES[project]
        if offline:
            sdists = [cached(project, release) for release in releases]
            absent = [r.version for r, path in zip(releases, sdists, strict=True) if path is None]
            if absent:
                raise SystemExit(
                    f"{project} {', '.join(absent)} not cached in {cache_dir()}; "
                    "run once without --offline (or with --fetch-only)"
                )
            paths = [path for path in sdists if path is not None]
        else:
            paths = fetch(project, releases)
        root = work / project
        if root.exists():
            shutil.rmtree(root)
        commits = build_history(
            [(release.version, path) for release, path in zip(releases, paths, strict=True)], root
        )
        print(f"{project}: {len(commits)} releases as commits in {root}", flush=True)
        for parent, commit in itertools.pairwise(commits):
            if engine:
                result = judge_engine(project, root, parent, commit)
            else:
                result = judge(project, root, parent, commit, gate_file, pytest_args)
            results.append(result)
            if json_file is not None:
                write_json(json_file, pytest_args, results)
            rules = ", ".join(f"{rule} {n}" for rule, n in sorted(result.by_rule().items()))
            print(
                f"  {parent.version} -> {commit.version}: {result.status}, {result.verdict}"
                f" ({rules or 'no findings'}; {result.wall_s:.1f}s)",
                flush=True,
            )
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", nargs="+", choices=list(HISTORIES), default=list(HISTORIES))
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every finding here")
    parser.add_argument("--work", type=Path, help="keep the history repositories here")
    parser.add_argument("--offline", action="store_true", help="never fetch; fail when missing")
    parser.add_argument("--fetch-only", action="store_true", help="download what is missing")
    parser.add_argument(
        "--engine",
        action="store_true",
        help="call the check's engine in-process instead of `phasegate gate run` (no pytest run)",
    )
    parser.add_argument(
        "--pytest-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an argument for the projects' pytest runs (repeat for more)",
    )
    args = parser.parse_args(argv)
    if args.fetch_only:
        for project in args.project:
            paths = fetch(project, HISTORIES[project])
            print(f"{project}: {len(paths)} sdists in {cache_dir() / project}")
        return 0
    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]}; load average {load:.1f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="phasegate-history-") as temporary:
        work = args.work.resolve() if args.work else Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        results = run(
            args.project,
            work,
            args.pytest_arg,
            offline=args.offline,
            json_file=args.json,
            engine=args.engine,
        )
    print()
    print("\n".join(table(results)))
    print()
    print("\n".join(summary(results)))
    if args.json:
        print(f"findings written to {args.json}")
    return 0


def write_json(path: Path, pytest_args: Sequence[str], results: Sequence[Judged]) -> None:
    """Every result, with the gate and the pytest arguments they were measured with."""
    document = {
        "gate": GATE_TEXT,
        "pytest_args": list(pytest_args),
        "results": [asdict(result) for result in results],
    }
    _write_atomically(path, (json.dumps(document, indent=2) + "\n").encode())


if __name__ == "__main__":
    sys.exit(main())
