"""New code: the lines changed against a base ref, as SonarQube's "new code" and diff-cover use.

The base is ``--base`` (or ``base`` in ``[tool.phasegate]``), else the pull request's base
branch in GitHub Actions (``GITHUB_BASE_REF``); in a pull request, a base given that would
leave some of its commits out gives way to the pull request's base. Changed lines are those of
``git diff <merge-base>`` against the work tree (uncommitted changes count), plus every line of
files git does not track yet, and of changed files git diffs as binary (a notebook marked
``binary`` or ``-diff`` in ``.gitattributes``): no hunk says which of their lines changed. With
no base, every line is new: new-code conditions are then evaluated over all code, never
skipped, and :attr:`NewCode.base` says so.

One ``git diff --numstat --patch -z`` gives both: its numstat records name the binary files, its
patch the changed lines. Both are parsed here (``-\t-\tpath``, ``@@ -a,b +c,d @@``): the
formats are fixed by git, and the libraries that parse diffs carry far more than this needs.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from phasegate.errors import UsageError
from phasegate.gates.git import git_environment
from phasegate.gates.protocol import CheckError
from phasegate.model.gate import BaseInfo
from phasegate.processes import GroupTimeout, run_in_group

if TYPE_CHECKING:
    from phasegate.gates.baseline import AcceptedFindings
    from phasegate.gates.project import GateProject

__all__ = [
    "NewCode",
    "changed_package_files",
    "parse_unified_diff",
    "require_base",
    "resolve_new_code",
]

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_NUMSTAT = re.compile(r"(\d+|-)\t(\d+|-)\t(.*)", re.DOTALL)
# One git run gives both what each changed file counts (binary files count no lines) and the
# patch whose hunks say which lines changed.
_DIFF = ("diff", "--no-color", "--no-ext-diff", "--unified=0", "--numstat", "--patch", "-z")
_GIT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class NewCode:
    """Which lines are new. ``changed`` is ``None`` when every line counts as new."""

    base: BaseInfo
    changed: Mapping[str, frozenset[int]] | None = None
    whole_files: frozenset[str] = frozenset()
    #: The baseline's accepted findings of the check this view is for (see
    #: :mod:`phasegate.gates.baseline`): what it accepts is not new code.
    accepted: AcceptedFindings | None = None

    @property
    def all_new(self) -> bool:
        """Whether there is no base, so that all code is new code."""
        return self.changed is None

    def contains(self, path: str | None, line: int | None) -> bool:
        """Whether ``path:line`` (relative to the project root) is new code."""
        if self.changed is None:
            return True
        if path is None:
            return False
        if path in self.whole_files:
            return True
        if line is None:
            return path in self.changed
        return line in self.changed.get(path, frozenset())

    def is_new_finding(self, rule: str, path: str | None, line: int | None) -> bool:
        """Whether a finding of ``rule`` at ``path:line`` is on new code and not accepted."""
        return self.contains(path, line) and not self.accepts(rule, path, line)

    def accepts(self, rule: str, path: str | None, line: int | None) -> bool:
        """Whether the baseline accepts this finding (each accepted finding counts once)."""
        return self.accepted is not None and self.accepted.accept(rule, path, line)

    def touches(self, path: str, first: int, last: int) -> bool:
        """Whether any line from ``first`` to ``last`` of ``path`` is new code."""
        lines = self.lines_of(path)
        return lines is None or any(first <= line <= last for line in lines)

    def lines_of(self, path: str) -> frozenset[int] | None:
        """The new lines of ``path``; ``None`` means all of them."""
        if self.changed is None or path in self.whole_files:
            return None
        return self.changed.get(path, frozenset())

    def digest(self) -> str:
        """A short fingerprint, part of the cache key of checks with new-code metrics."""
        hasher = hashlib.sha256(repr(self.base.sha).encode())
        if self.changed is not None:
            for path in sorted(self.changed):
                hasher.update(f"{path}:{sorted(self.changed[path])}".encode())
        for path in sorted(self.whole_files):
            hasher.update(f"+{path}".encode())
        if self.accepted is not None:
            hasher.update(f"baseline:{self.accepted.digest()}".encode())
        return hasher.hexdigest()[:16]


def changed_package_files(
    project: GateProject, new_code: NewCode
) -> dict[str, frozenset[int] | None]:
    """The package's Python files with new lines, tests aside (``None``: the whole file is new).

    What the mutation check mutates, and so whether the test run must record which test ran
    each line (:attr:`phasegate.gates.runner.GateRunner.wants_test_contexts`).
    """
    found: dict[str, frozenset[int] | None] = {}
    for path in project.source_files:
        if path.name == "conftest.py" or path.name.startswith("test_"):
            continue
        relpath = project.relative(path)
        lines = new_code.lines_of(relpath)
        if lines is None or lines:
            found[relpath] = lines
    return found


def parse_unified_diff(text: str) -> dict[str, frozenset[int]]:
    """``{path: added or changed line numbers}`` from ``git diff --unified=0`` output."""
    changed: dict[str, set[int]] = {}
    current: set[int] | None = None
    for line in text.splitlines():
        if line.startswith("+++ "):
            target = _new_path(line[4:])
            current = None if target is None else changed.setdefault(target, set())
        elif current is not None and line.startswith("@@"):
            current.update(_hunk_lines(line))
    return {path: frozenset(lines) for path, lines in changed.items()}


def _new_path(target: str) -> str | None:
    """The path a ``+++`` line names (``None`` for a deleted file's ``/dev/null``)."""
    if target == "/dev/null":
        return None
    # git ends a name with a space in a tab on ``---``/``+++`` lines.
    return _unquote(target.removesuffix("\t")).removeprefix("b/")


def _hunk_lines(header: str) -> range:
    """The new side's lines of a hunk header ``@@ -a,b +c,d @@`` (none if it is not one)."""
    match = _HUNK.match(header)
    if not match:
        return range(0)
    start = int(match.group(1))
    length = int(match.group(2)) if match.group(2) is not None else 1
    return range(start, start + length)


def resolve_new_code(
    root: Path,
    base: str | None,
    environment: Mapping[str, str],
    *,
    project: GateProject | None = None,
) -> NewCode:
    """Find the base and the changed lines; a base given but unknown is a usage error.

    ``project``, the run's project at ``root``, says whether ``root`` is in a git work tree
    with the answer its checks take (one git process fewer before they start); where it
    cannot say (git failed), git is asked here, and a failure counts all code as new.
    """
    if not _in_work_tree(root, project):
        if base:
            require_base(root, base)
        return NewCode(BaseInfo(note="not a git work tree: all code is treated as new code"))
    ref, origin = _choose_ref(root, base, environment)
    if ref is None:
        return NewCode(BaseInfo(note=origin))
    merge_base, note = _merge_base(root, ref, origin)
    return _changed_since(root, ref, merge_base, note)


def _merge_base(root: Path, ref: str, origin: str) -> tuple[str | None, str]:
    """The commit new code is counted from (``None`` if git cannot say), and a note on it."""
    merge_base = _git(root, ["merge-base", "HEAD", ref])
    if merge_base is not None:
        return merge_base, (
            f"new code: lines changed since the merge base of HEAD and {ref} ({origin})"
        )
    return _git(root, ["rev-parse", f"{ref}^{{commit}}"]), (
        f"new code: lines changed since {ref} ({origin}; no merge base with HEAD)"
    )


def _changed_since(root: Path, ref: str, merge_base: str | None, note: str) -> NewCode:
    """The lines changed since ``merge_base`` and the untracked files; all code is new when
    git fails at either."""
    output = _git(root, [*_DIFF, merge_base or ref])
    split = None if output is None else split_numstat_and_patch(output)
    if split is None:
        return NewCode(BaseInfo(ref=ref, note=f"git diff against {ref} failed: all code is new"))
    binary, diff = split
    changed = parse_unified_diff(diff)
    untracked = _git(root, ["ls-files", "--others", "--exclude-standard"])
    if untracked is None:
        # New files would go unseen: judge all code as new rather than too little of it.
        return NewCode(BaseInfo(ref=ref, note="git ls-files failed: all code is new"))
    whole = frozenset(name for name in untracked.splitlines() if name) | binary
    info = BaseInfo(
        ref=ref,
        sha=merge_base,
        available=True,
        note=note,
        changed_files=len(changed) + len(whole - changed.keys()),
        changed_lines=sum(len(lines) for lines in changed.values()),
    )
    return NewCode(info, changed, whole)


def split_numstat_and_patch(output: str) -> tuple[frozenset[str], str] | None:
    """The files git diffs as binary and the patch, from one ``git diff --numstat --patch -z``.

    git prints the NUL-terminated numstat records first (``-\t-\tpath`` for a binary file;
    ``-\t-\t``, old path, new path for a rename), an empty record, then the patch. ``None``
    when the output has not that shape: the caller then counts all code as new.
    """
    if not output:
        return frozenset(), ""
    numstat, separator, patch = output.partition("\0\0")
    binary = _binary_paths(numstat) if separator else None
    return None if binary is None else (binary, patch)


def _binary_paths(numstat: str) -> frozenset[str] | None:
    """The paths of the numstat records that count no lines (binary), ``None`` on garbage."""
    found: set[str] = set()
    records = iter(numstat.split("\0"))
    for record in records:
        match = _NUMSTAT.fullmatch(record)
        if match is None:
            return None
        path = match.group(3) or _rename_target(records)
        if path is None:
            return None
        if match.group(1) == "-":
            found.add(path)
    return frozenset(found)


def _rename_target(records: Iterator[str]) -> str | None:
    """The new path of a renamed file's numstat record: the second of the two paths after it."""
    next(records, None)
    return next(records, None) or None


def require_base(root: Path, base: str) -> None:
    """A usage error unless ``base`` names a commit of the git work tree ``root`` is in."""
    if _git(root, ["rev-parse", "--is-inside-work-tree"]) != "true":
        raise UsageError(
            f"--base {base!r} needs a git work tree, and {root} is not in one: run the "
            "gate inside the project's git repository, or leave out --base (and base in "
            "[tool.phasegate]) to treat all code as new code"
        )
    _require_commit(root, base)


def _require_commit(root: Path, base: str) -> None:
    """A usage error unless ``base`` names a commit (``root`` is in a git work tree)."""
    if _git(root, ["rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"]) is None:
        raise UsageError(
            f"--base {base!r} is not a commit in this repository; fetch it first "
            "(in GitHub Actions: actions/checkout with fetch-depth: 0)"
        )


def _in_work_tree(root: Path, project: GateProject | None) -> bool:
    if project is not None:
        with contextlib.suppress(CheckError):
            return project.in_git
    return _git(root, ["rev-parse", "--is-inside-work-tree"]) == "true"


def _choose_ref(
    root: Path, base: str | None, environment: Mapping[str, str]
) -> tuple[str | None, str]:
    if base:
        _require_commit(root, base)  # in a work tree: the caller has asked
        return _given_or_pull_requests(root, base, environment)
    pull_request_base = environment.get("GITHUB_BASE_REF", "")
    if pull_request_base:
        candidate = _fetched_pull_request_base(root, pull_request_base)
        if candidate is not None:
            return candidate, "the pull request's base branch"
        return None, (
            f"the pull request's base {pull_request_base!r} is not fetched (use "
            "actions/checkout with fetch-depth: 0): all code is treated as new code"
        )
    return None, "no base ref (--base, or a pull request's base): all code is treated as new code"


def _unquote(path: str) -> str:
    """git quotes paths with unusual characters C-style: ``"b/caf\\303\\251.py"``."""
    if not (path.startswith('"') and path.endswith('"')):
        return path
    raw = path[1:-1].encode("latin-1").decode("unicode_escape").encode("latin-1")
    return raw.decode("utf-8", errors="replace")


def _fetched_pull_request_base(root: Path, branch: str) -> str | None:
    """``origin/<branch>`` or ``<branch>``, whichever names a commit here."""
    for candidate in (f"origin/{branch}", branch):
        if _git(root, ["rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}"]):
            return candidate
    return None


def _given_or_pull_requests(
    root: Path, base: str, environment: Mapping[str, str]
) -> tuple[str, str]:
    """The base given, unless in a pull request it would leave commits of the pull request
    unjudged: then the pull request's base.

    ``base`` may come from the change itself (``[tool.phasegate] base = "HEAD"``, or
    ``--base=HEAD`` in its pytest ``addopts``): judged against itself, the change shows nothing
    to the checks that read it (integrity, mutation, new code). A base whose merge base with
    HEAD is the pull request's, or older, judges the whole pull request and is kept; where git
    cannot tell, the pull request's base is taken.
    """
    branch = environment.get("GITHUB_BASE_REF", "")
    pull_request = _fetched_pull_request_base(root, branch) if branch else None
    if pull_request is None or not _hides_commits(root, base, pull_request):
        return base, "the base given"
    return pull_request, (
        f"the pull request's base branch: the base given, {base!r}, would leave commits of "
        "the pull request unjudged"
    )


def _hides_commits(root: Path, base: str, pull_request: str) -> bool:
    """Whether commits since the pull request's merge base with HEAD lie at or before
    ``base``'s merge base with HEAD (so that ``base`` leaves them out); true when git fails."""
    ours = _git(root, ["merge-base", "HEAD", base])
    theirs = _git(root, ["merge-base", "HEAD", pull_request])
    if ours is None or theirs is None:
        return True
    return _git(root, ["rev-list", "--count", f"{theirs}..{ours}"]) != "0"


def _git(root: Path, args: list[str]) -> str | None:
    """git's output, or ``None`` when it failed: every caller then counts more code as new."""
    try:
        finished = run_in_group(
            ["git", *args], cwd=root, timeout_s=_GIT_TIMEOUT_S, env=git_environment()
        )
    except (OSError, GroupTimeout):
        return None
    if finished.returncode != 0:
        return None
    return finished.stdout.decode("utf-8", errors="replace").strip("\n")
