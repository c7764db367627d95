"""The TDD ledger: a committed ledger rewritten or deleted is caught; appending to it is not."""

from __future__ import annotations

import pytest

from .conftest import BASE_FILES, FIXED_CALC, MakeChange

LEDGER = ".phasegate/tdd/ledger.jsonl"
RED = '{"phase": "red", "cycle": "mean", "passed": false}\n'
GREEN = '{"phase": "green", "cycle": "mean", "passed": true}\n'


@pytest.mark.parametrize(
    ("ledger", "expected"),
    [
        pytest.param(
            RED.replace("false", "true") + GREEN,
            f"{LEDGER}:1 the TDD ledger's recorded entries were changed or removed",
            id="entry-edited",
        ),
        pytest.param(
            GREEN, f"{LEDGER}:1 the TDD ledger's recorded entries were changed", id="red-removed"
        ),
        pytest.param(
            None, f"{LEDGER} the TDD ledger deleted: the recorded proof", id="ledger-deleted"
        ),
    ],
)
def test_a_rewritten_ledger_is_caught(
    make_change: MakeChange, ledger: str | None, expected: str
) -> None:
    change = make_change({**BASE_FILES, LEDGER: RED + GREEN}).write({LEDGER: ledger})
    sentences = change.sentences()
    assert len(sentences) == 1, sentences
    assert sentences[0].startswith(expected), sentences


def test_a_ledger_appended_to_is_honest(make_change: MakeChange) -> None:
    change = make_change({**BASE_FILES, LEDGER: RED}).write(
        {LEDGER: RED + GREEN, "src/calc/__init__.py": FIXED_CALC}
    )
    assert change.sentences() == []


@pytest.mark.parametrize(
    "artifact",
    [".phasegate/cache/lint.json", ".phasegate/gates/default.json", ".phasegate/reviews.jsonl"],
)
def test_an_artifact_committed_with_the_change_is_caught(
    make_change: MakeChange, artifact: str
) -> None:
    # A check result cached under the key of the change's files is believed without running
    # the tool: forged and committed (forced past the folder's .gitignore), it passes in CI.
    change = make_change({**BASE_FILES, LEDGER: RED}).write(
        {LEDGER: RED + GREEN, artifact: '{"key": "0", "measurement": {"findings": []}}\n'}
    )
    assert change.sentences() == []  # not tracked: a clone of the change has no such file
    change.commit()
    assert change.sentences() == [
        f"{artifact} committed with the change: an artifact of an earlier run, which a check may "
        "take for its own result (the artifacts folder is build output, not sources)"
    ]
