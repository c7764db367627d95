"""A pull request's reviews, read from a stand-in for GitHub's API, decide the review check."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from phasegate.cli import main
from phasegate.gates.checks.review import ReviewCheck
from phasegate.gates.protocol import CheckContext, NoOptions
from phasegate.gates.pull_request_reviews import ReviewImportError, fetch_reviews
from phasegate.report.comment import GitHubClient
from tests.conftest import REPO_ROOT

from .samples import git

MakeContext = Callable[..., CheckContext]
RECORDED = (REPO_ROOT / "tests/data/github-pull-request-reviews.json").read_text()


class Reviews:
    """Pull request 7 of octo/app: pages of reviews, and the requests made."""

    def __init__(self, pages: list[Any]) -> None:
        self.pages = pages
        self.paths: list[str] = []


@pytest.fixture
def serve() -> Iterator[Callable[[list[Any]], tuple[Reviews, str]]]:
    servers: list[ThreadingHTTPServer] = []

    def start(pages: list[Any]) -> tuple[Reviews, str]:
        fake = Reviews(pages)

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                assert self.headers["Authorization"] == "Bearer t0ken"
                fake.paths.append(self.path)
                page = int(self.path.split("page=")[-1]) if "page=" in self.path else 1
                known = self.path.startswith("/repos/octo/app/pulls/7/reviews")
                answer = fake.pages[page - 1] if known and page <= len(fake.pages) else []
                payload = json.dumps(answer).encode()
                self.send_response(200 if known else 404)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        servers.append(server)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return fake, f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def recorded(one: str = "a" * 40, two: str = "b" * 40) -> list[Any]:
    data: list[Any] = json.loads(RECORDED.replace("HEAD_ONE", one).replace("HEAD_TWO", two))
    return data


def test_outcomes_are_read_and_comments_left_out(
    serve: Callable[[list[Any]], tuple[Reviews, str]],
) -> None:
    fake, url = serve([recorded()])
    records = fetch_reviews(GitHubClient(url, "octo/app", "t0ken"), 7)
    assert [(r.reviewer, r.status.value, r.commit) for r in records] == [
        ("octocat", "changes_requested", "a" * 40),
        ("octocat", "approved", "b" * 40),
    ]
    assert records[0].note == "Please rename the helper."
    assert records[1].url == "https://github.com/octo/app/pull/7#pullrequestreview-82"
    assert fake.paths == ["/repos/octo/app/pulls/7/reviews?per_page=100&page=1"]


def test_every_page_is_read(serve: Callable[[list[Any]], tuple[Reviews, str]]) -> None:
    approval = recorded()[2]
    first = [{**approval, "id": n, "html_url": f"u{n}"} for n in range(100)]
    fake, url = serve([first, recorded()])
    records = fetch_reviews(GitHubClient(url, "octo/app", "t0ken"), 7)
    assert len(records) == 102
    assert len(fake.paths) == 2


@pytest.mark.parametrize(
    "answer",
    [{"message": "Not a list"}, [{"state": "APPROVED"}], [{**recorded()[2], "state": "SHRUG"}]],
)
def test_an_answer_not_recognised_is_an_error(
    serve: Callable[[list[Any]], tuple[Reviews, str]], answer: Any
) -> None:
    _fake, url = serve([answer])
    with pytest.raises(ReviewImportError):
        fetch_reviews(GitHubClient(url, "octo/app", "t0ken"), 7)


def test_the_imported_approval_of_the_head_passes_the_merge_commit_in_a_pull_request(
    serve: Callable[[list[Any]], tuple[Reviews, str]],
    tmp_path: Path,
    make_context: MakeContext,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The repository as actions/checkout leaves it in a pull request: HEAD is the merge of
    # the pull request's head (approved) into main.
    (tmp_path / "pyproject.toml").write_text("[tool.phasegate]\n")
    (tmp_path / "a.txt").write_text("a\n")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "feat: start")
    git(tmp_path, "checkout", "-qb", "topic")
    (tmp_path / "b.txt").write_text("b\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "feat: topic")
    head = git(tmp_path, "rev-parse", "HEAD")
    git(tmp_path, "checkout", "-q", "main")
    (tmp_path / "c.txt").write_text("c\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "feat: main moved")
    git(tmp_path, "merge", "-q", "--no-ff", "-m", "Merge topic", "topic")

    _fake, url = serve([recorded(one="f" * 40, two=head)])
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7}}))
    for name, value in {
        "GITHUB_API_URL": url,
        "GITHUB_REPOSITORY": "octo/app",
        "GITHUB_TOKEN": "t0ken",
        "GITHUB_EVENT_PATH": str(event),
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    assert main(["review", "import-pr"]) == 0
    assert main(["review", "import-pr"]) == 0  # twice: nothing recorded twice
    out = capsys.readouterr().out
    assert "2 review(s) with an outcome, 2 newly recorded" in out
    assert "2 review(s) with an outcome, 0 newly recorded" in out

    check = ReviewCheck()
    in_pr = check.measure(make_context(tmp_path, in_pull_request=True), NoOptions())
    assert in_pr.metrics["approved"] is True
    assert "approved by octocat" in in_pr.summary
    outside = check.measure(make_context(tmp_path), NoOptions())  # the merge itself: unreviewed
    assert outside.metrics["approved"] is False
