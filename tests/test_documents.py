"""The typed documents of the run report hold exactly the fields of the models they mirror."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from phasegate import documents
from phasegate.model import run

PAIRS = [
    (documents.PhaseDocument, run.PhaseResult),
    (documents.LocationDocument, run.Location),
    (documents.FailureDocument, run.Failure),
    (documents.TestRecordDocument, run.TestRecord),
    (documents.CountsDocument, run.Counts),
    (documents.EnvironmentDocument, run.Environment),
    (documents.GitDocument, run.GitInfo),
    (documents.InvocationDocument, run.Invocation),
    (documents.CollectionErrorDocument, run.CollectionError),
    (documents.CollectionSkipDocument, run.CollectionSkip),
    (documents.ShardDocument, run.ShardInfo),
    (documents.MergedShardDocument, run.MergedShard),
    (documents.MergeDocument, run.MergeInfo),
    (documents.RunDocument, run.RunReport),
]


@pytest.mark.parametrize(("document", "model"), PAIRS, ids=lambda thing: thing.__name__)
def test_each_document_has_every_field_of_its_model_and_no_other(
    document: type, model: type[BaseModel]
) -> None:
    keys = document.__required_keys__ | document.__optional_keys__  # type: ignore[attr-defined]
    assert keys == set(model.model_fields)
    assert not document.__optional_keys__  # type: ignore[attr-defined]  # writers write every key


def test_every_document_is_paired_with_its_model() -> None:
    paired = {document.__name__ for document, _model in PAIRS}
    unpaired = set(documents.__all__) - paired - {"OutcomeName", "RaisedDocument"}
    assert not unpaired


def test_the_raised_exception_is_a_failure_without_its_traceback() -> None:
    raised = documents.RaisedDocument.__required_keys__
    assert raised == set(run.Failure.model_fields) - {"traceback", "traceback_truncated"}


def test_the_outcome_names_are_the_outcome_values() -> None:
    assert set(documents.OutcomeName.__args__) == {outcome.value for outcome in run.Outcome}


def test_a_diagnosis_document_has_every_field_of_a_diagnosis_and_no_other() -> None:
    from dataclasses import fields

    from phasegate.autodebug.diagnosis import Diagnosis, DiagnosisDocument

    assert DiagnosisDocument.__required_keys__ == {field.name for field in fields(Diagnosis)}
    assert not DiagnosisDocument.__optional_keys__


def test_a_diagnosis_crosses_as_a_document_and_back_unchanged() -> None:
    import json

    from phasegate.autodebug.diagnosis import Diagnosis

    diagnosis = Diagnosis(
        "names",
        "name",
        "undefined-name",
        "NameError",
        "name 'totl' is not defined",
        path="src/tally.py",
        line=3,
        col=11,
        end_line=3,
        end_col=15,
        facts={"name": "totl", "scope": ["total", "count"]},
        cpython_suggestion="total",
    )
    document = json.loads(json.dumps(diagnosis.to_dict()))
    assert Diagnosis.from_dict({**document, "added_later": 1}) == diagnosis
