"""Cache keys tell apart settings that plain JSON text would confuse."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from phasegate.canonical import canonical_json, typed
from phasegate.gates.cache import cache_key


def test_values_that_print_alike_have_different_texts() -> None:
    texts = [
        canonical_json({"since": datetime.date(2026, 1, 2)}),
        canonical_json({"since": "2026-01-02"}),
        canonical_json({"since": '["date", "2026-01-02"]'}),
        canonical_json({"since": 1}),
        canonical_json({"since": 1.0}),
        canonical_json({"since": True}),
        canonical_json({"since": None}),
        canonical_json({"since": [1]}),
    ]
    assert len(set(texts)) == len(texts)


def test_the_text_does_not_depend_on_key_order_and_reads_back() -> None:
    assert canonical_json({"a": 1, "b": [2, "x"]}) == canonical_json({"b": [2, "x"], "a": 1})
    assert json.loads(canonical_json({"a": (1, 2)})) == typed({"a": [1, 2]})
    assert typed({"t": datetime.time(12, 30)}) == {"t": ["time", "12:30:00"]}


def test_a_check_option_changed_from_text_to_a_date_is_another_cache_key(tmp_path: Path) -> None:
    def key(options: dict[str, object]) -> str:
        return cache_key("lint", tool=None, options=options, new_code="", root=tmp_path, inputs=[])

    assert key({"since": datetime.date(2026, 1, 2)}) != key({"since": "2026-01-02"})
    assert key({"since": "2026-01-02"}) == key({"since": "2026-01-02"})
