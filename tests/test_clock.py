"""phasegate's clock keeps real time while a test freezes ``datetime`` and ``time``."""

from __future__ import annotations

import datetime as datetime_module
import sys
import time
from datetime import datetime, timedelta, timezone

from freezegun import freeze_time

from phasegate import clock


def test_the_clock_keeps_real_time_under_freezegun() -> None:
    real_start = datetime.now(timezone.utc)
    with freeze_time("2018-03-06 10:00:00"):
        assert datetime.now(timezone.utc).year == 2018  # the test's view: frozen
        assert time.monotonic() == time.monotonic()
        before = clock.monotonic()
        now = clock.utc_now()
        time.sleep(0.01)
        elapsed = clock.monotonic() - before
        spent = clock.perf_counter() - clock.perf_counter()
    assert type(now) is datetime  # not freezegun's FakeDatetime, which pydantic rejects
    assert real_start - timedelta(seconds=1) <= now <= datetime.now(timezone.utc)
    assert elapsed >= 0.01
    assert spent <= 0


def test_listing_the_models_does_not_load_them() -> None:
    # freezegun's freeze_time reads every name dir() lists in every loaded module.
    import phasegate.model as models

    listed = dir(models)
    for name in listed:
        getattr(models, name)
    assert set(listed) == set(vars(models))
    assert "phasegate.model.workflow" in sys.modules or "WorkflowEvent" not in listed


def test_a_leaked_freeze_is_lifted_only_inside_the_block() -> None:
    freezer = freeze_time("2001-01-01")
    freezer.start()
    try:
        with clock.real_datetime_classes():
            assert datetime_module.datetime.now().year > 2001
        assert datetime_module.datetime.now().year == 2001  # the project's fake is back
    finally:
        freezer.stop()
    with clock.real_datetime_classes():  # nothing to lift
        assert datetime_module.datetime is datetime
