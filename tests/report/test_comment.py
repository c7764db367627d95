"""The sticky comment, against a small stand-in for GitHub's REST API on the loopback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from phasegate.cli import main
from phasegate.report.comment import CommentError, GitHubClient, StaleHead, upsert_comment
from phasegate.report.markdown import MARKER


class FakeGitHub:
    """Pull request 7 of octo/app: its head, its comments, the requests made."""

    def __init__(self) -> None:
        self.head = "c" * 40
        self.comments: list[dict[str, Any]] = []
        self.requests: list[tuple[str, str]] = []
        self.refuse_writes = False
        self.reviews: list[dict[str, Any]] = []

    def handle(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        self.requests.append((method, path.split("?")[0]))
        if method == "GET" and path.startswith("/repos/octo/app/pulls/7/reviews"):
            return 200, self.reviews
        if method == "GET" and path == "/repos/octo/app/pulls/7":
            return 200, {"number": 7, "head": {"sha": self.head}}
        if method == "GET" and path.startswith("/repos/octo/app/issues/7/comments"):
            page = int(path.split("page=")[-1])
            return 200, self.comments[(page - 1) * 100 : page * 100]
        if self.refuse_writes:
            return 403, {"message": "Resource not accessible by integration"}
        if method == "POST" and path == "/repos/octo/app/issues/7/comments":
            comment = {
                "id": 1000 + len(self.comments),
                "body": body["body"],
                "user": {"login": "github-actions[bot]"},
            }
            self.comments.append(comment)
            return 201, comment
        if method == "PATCH" and path.startswith("/repos/octo/app/issues/comments/"):
            wanted = int(path.rsplit("/", 1)[1])
            for comment in self.comments:
                if comment["id"] == wanted:
                    comment["body"] = body["body"]
                    return 200, comment
        return 404, {"message": "Not Found"}


@pytest.fixture
def github() -> Iterator[tuple[FakeGitHub, str]]:
    fake = FakeGitHub()

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else None
            assert self.headers["Authorization"] == "Bearer t0ken"
            status, answer = fake.handle(self.command, self.path, body)
            payload = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PATCH = _serve

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield fake, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


BODY = f"{MARKER}\n### report\n"


def test_the_first_comment_is_created_then_updated(github: tuple[FakeGitHub, str]) -> None:
    fake, url = github
    fake.comments = [
        {"id": n, "body": "unrelated", "user": {"login": "someone"}} for n in range(150)
    ] + [{"id": 999, "body": f"{MARKER} forged", "user": {"login": "someone"}}]
    client = GitHubClient(url, "octo/app", "t0ken")
    assert upsert_comment(client, 7, BODY) == ("created", 1151)
    assert upsert_comment(client, 7, BODY + "again\n") == ("updated", 1151)
    ours = [c for c in fake.comments if c["user"]["login"] == "github-actions[bot]"]
    assert [c["body"] for c in ours] == [BODY + "again\n"]
    assert fake.comments[150]["body"] == f"{MARKER} forged"  # never taken over
    assert ("GET", "/repos/octo/app/issues/7/comments") in fake.requests


def test_a_stale_head_posts_nothing(github: tuple[FakeGitHub, str]) -> None:
    fake, url = github
    client = GitHubClient(url, "octo/app", "t0ken")
    with pytest.raises(StaleHead, match=r"pull request #7.s head is c+, not d+"):
        upsert_comment(client, 7, BODY, expect_head_sha="d" * 40)
    assert fake.comments == []


class _Answers(GitHubClient):
    """A client whose requests get the answers given, by method, without a server."""

    def __init__(self, answers: dict[str, object]) -> None:
        super().__init__("https://api.github.com", "octo/app", "t0ken")
        self.answers = answers

    def request(self, method: str, path: str, body: object = None) -> object:
        return self.answers[method]


@pytest.mark.parametrize(
    ("answers", "said"),
    [
        ({"GET": {"message": "moved"}}, r"GET /repos/octo/app/issues/7/comments.*not a list"),
        ({"GET": [], "POST": {"message": "created"}}, r"POST .* a comment without an id"),
        ({"GET": [], "POST": {"id": "1151"}}, r"POST .* a comment without an id"),
        (
            {
                "GET": [
                    {"id": None, "body": f"{MARKER} ours", "user": {"login": "github-actions[bot]"}}
                ]
            },
            r"GET .* a comment without an id",
        ),
    ],
)
def test_an_answer_github_never_gives_is_an_error(answers: dict[str, object], said: str) -> None:
    with pytest.raises(CommentError, match=said):
        upsert_comment(_Answers(answers), 7, BODY)


def test_a_read_only_token_is_explained(github: tuple[FakeGitHub, str]) -> None:
    fake, url = github
    fake.refuse_writes = True
    client = GitHubClient(url, "octo/app", "t0ken")
    with pytest.raises(CommentError, match=r"GitHub answered 403 to POST .*forks get"):
        upsert_comment(client, 7, BODY)


def test_the_comment_command_reads_pr_json(
    github: tuple[FakeGitHub, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _fake, url = github
    body = tmp_path / "comment.md"
    body.write_text(BODY)
    pr = tmp_path / "pr.json"
    pr.write_text(json.dumps({"number": 7, "head_sha": "c" * 40}))
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    monkeypatch.setenv("GITHUB_REPOSITORY", "octo/app")
    monkeypatch.setenv("GITHUB_API_URL", url)
    args = ["report", "comment", str(body), "--pr-file", str(pr)]
    assert main([*args, "--expect-head-sha", "c" * 40]) == 0
    assert "phasegate: created comment 1000 on pull request #7" in capsys.readouterr().out
    assert main([*args, "--expect-head-sha", "e" * 40]) == 0
    assert capsys.readouterr().out.startswith("::warning title=phasegate::pull request #7's head")
    pr.write_text('{"number": "7; rm -rf /"}')
    assert main(args) == 4
    assert "must be a positive integer" in capsys.readouterr().err


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "http://api.github.com", "ftp://127.0.0.1/", "gopher://x"]
)
def test_only_https_or_loopback_http_is_allowed(url: str) -> None:
    with pytest.raises(CommentError, match=r"must be https \(http only to a loopback"):
        GitHubClient(url, "octo/app", "t0ken")


@pytest.mark.parametrize(
    "repository", ["octo", "octo/app/pulls/1", "../app", "octo/..", "octo/app?page=2", "octo/a b"]
)
def test_a_repository_that_is_not_owner_slash_name_is_refused(repository: str) -> None:
    # It goes into the path of every request, with the token.
    with pytest.raises(CommentError, match=r"is not of the form owner/name") as caught:
        GitHubClient("https://api.github.com", repository, "t0ken")
    assert repr(repository) in str(caught.value)
    GitHubClient("https://api.github.com", "octo-org/my_app.py", "t0ken")
