"""The design and plan loops' rules, as pure functions of the loop's state."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from phasegate.model.loops import Draft
from phasegate.workflow import design_loop, plan_loop
from phasegate.workflow.definition import LoopSpec
from phasegate.workflow.machine import TransitionError

NOW = datetime(2030, 1, 1, tzinfo=timezone.utc)
DESIGN = LoopSpec(kind="design", max_rounds=3, max_rejections=1)
PLAN = LoopSpec(kind="plan", max_rounds=2, max_dialogue=1)


def draft(path: str, sha: str, by: str = "dan") -> Draft:
    return Draft(path=path, sha256=sha, by=by, at=NOW)


def test_the_architecture_comes_first_then_each_module_in_its_order() -> None:
    loop = design_loop.new_design_loop("shop", "DESIGN", 1)
    events = design_loop.submit(
        loop, DESIGN, draft=draft("a.md", "a1"), now=NOW, modules=["cart", "pay"]
    )
    assert [e.event for e in events.events] == ["design.submitted"]
    design_loop.verdict(loop, DESIGN, decision="ACCEPT", by="cora", now=NOW)
    assert design_loop.current_item(loop).name == "cart"  # type: ignore[union-attr]
    with pytest.raises(TransitionError, match="pay is not due: the design of cart comes first"):
        design_loop.submit(loop, DESIGN, draft=draft("p.md", "p1"), now=NOW, item="pay")
    design_loop.submit(loop, DESIGN, draft=draft("c.md", "c1"), now=NOW)
    design_loop.verdict(loop, DESIGN, decision="ACCEPT", by="cora", now=NOW)
    design_loop.submit(loop, DESIGN, draft=draft("p.md", "p1"), now=NOW)
    done = design_loop.verdict(loop, DESIGN, decision="ACCEPT", by="cora", now=NOW)
    assert [e.event for e in done.events] == ["design.accepted", "design.done"]
    assert loop.done_at == NOW
    assert design_loop.waiting(loop, "DESIGN", "shop") == []
    assert [t.line() for t in loop.turns][:2] == ["R1|dan|submitted|", "R1|cora|ACCEPT|"]


def test_an_architecture_without_modules_is_refused() -> None:
    loop = design_loop.new_design_loop("shop", "DESIGN", 1)
    with pytest.raises(TransitionError, match=r"a\.md names no module"):
        design_loop.submit(loop, DESIGN, draft=draft("a.md", "a1"), now=NOW, modules=[])
    with pytest.raises(TransitionError, match="lists the module\\(s\\) cart twice"):
        design_loop.submit(
            loop, DESIGN, draft=draft("a.md", "a1"), now=NOW, modules=["cart", "cart"]
        )


def test_one_draft_is_audited_at_a_time_by_someone_else() -> None:
    loop = design_loop.new_design_loop("shop", "DESIGN", 1)
    design_loop.submit(loop, DESIGN, draft=draft("a.md", "a1"), now=NOW, modules=["cart"])
    with pytest.raises(TransitionError, match="awaits the critic's verdict"):
        design_loop.submit(loop, DESIGN, draft=draft("a.md", "a2"), now=NOW, modules=["cart"])
    with pytest.raises(TransitionError, match="dan wrote this draft of architecture"):
        design_loop.verdict(loop, DESIGN, decision="ACCEPT", by="dan", now=NOW)


def test_revise_needs_a_changed_draft_and_too_many_drafts_escalate() -> None:
    loop = design_loop.new_design_loop("shop", "DESIGN", 1)
    design_loop.submit(loop, DESIGN, draft=draft("a.md", "a1"), now=NOW, modules=["cart"])
    assert design_loop.verdict(loop, DESIGN, decision="REVISE", by="c", now=NOW).escalate is None
    with pytest.raises(TransitionError, match="unchanged since the critic asked to REVISE"):
        design_loop.submit(loop, DESIGN, draft=draft("a.md", "a1"), now=NOW, modules=["cart"])
    design_loop.submit(loop, DESIGN, draft=draft("a.md", "a2"), now=NOW, modules=["cart"])
    design_loop.verdict(loop, DESIGN, decision="REVISE", by="c", now=NOW)
    design_loop.submit(loop, DESIGN, draft=draft("a.md", "a3"), now=NOW, modules=["cart"])
    third = design_loop.verdict(loop, DESIGN, decision="REVISE", by="c", now=NOW)
    assert third.escalate is not None
    assert "not accepted in 3 draft(s) (max_rounds = 3)" in third.escalate


def test_reject_discards_the_draft_and_more_rejections_than_allowed_fail() -> None:
    loop = design_loop.new_design_loop("shop", "DESIGN", 1)
    design_loop.submit(loop, DESIGN, draft=draft("a.md", "a1"), now=NOW, modules=["cart"])
    first = design_loop.verdict(loop, DESIGN, decision="REJECT", by="c", now=NOW)
    assert (first.fail, loop.architecture.draft, loop.architecture.discarded) == (
        None,
        None,
        ["a1"],
    )
    with pytest.raises(TransitionError, match="rejected and discarded already"):
        design_loop.submit(loop, DESIGN, draft=draft("a.md", "a1"), now=NOW, modules=["cart"])
    design_loop.submit(loop, DESIGN, draft=draft("a.md", "a2"), now=NOW, modules=["cart"])
    second = design_loop.verdict(loop, DESIGN, decision="REJECT", by="c", now=NOW)
    assert second.fail is not None
    assert "rejected 2 times in this loop (max_rejections = 1)" in second.fail


def test_an_accepted_document_that_changed_is_named_and_can_be_audited_again() -> None:
    loop = design_loop.new_design_loop("shop", "DESIGN", 1)
    design_loop.submit(loop, DESIGN, draft=draft("a.md", "a1"), now=NOW, modules=["cart"])
    design_loop.verdict(loop, DESIGN, decision="ACCEPT", by="c", now=NOW)
    design_loop.submit(loop, DESIGN, draft=draft("c.md", "c1"), now=NOW)
    design_loop.verdict(loop, DESIGN, decision="ACCEPT", by="c", now=NOW)
    assert design_loop.changed_since_accepted(loop, {"a.md": "a1", "c.md": "c1"}, "shop") == []
    changed = design_loop.changed_since_accepted(loop, {"a.md": "a1", "c.md": "c2"}, "shop")
    assert changed == [
        "c.md changed since the design of cart was accepted; submit it again for a verdict "
        "(phasegate design submit shop --item cart)"
    ]
    gone = design_loop.changed_since_accepted(loop, {"a.md": "a1"}, "shop")
    assert "c.md is gone" in gone[0]
    with pytest.raises(TransitionError, match="cart is accepted and its document is unchanged"):
        design_loop.submit(loop, DESIGN, draft=draft("c.md", "c1"), now=NOW, item="cart")
    design_loop.submit(loop, DESIGN, draft=draft("c.md", "c2"), now=NOW, item="cart")
    assert loop.done_at is None
    assert "awaits the critic's verdict" in design_loop.waiting(loop, "DESIGN", "shop")[0]


def test_the_plan_loop_alternates_and_ends_with_pa() -> None:
    loop = plan_loop.new_plan_loop("login", "PLAN", 1)
    plan = draft("plan.toml", "p1", by="sam")
    plan_loop.say(loop, PLAN, code="PC", by="sam", now=NOW, plan=plan)
    assert (loop.turn, loop.round) == ("critic", 0)
    plan_loop.say(loop, PLAN, code="NR", by="cleo", now=NOW, plan=plan, note="T1 too big")
    assert (loop.turn, loop.round) == ("spec", 1)
    revised = draft("plan.toml", "p2", by="sam")
    plan_loop.say(loop, PLAN, code="PR", by="sam", now=NOW, plan=revised)
    accepted = plan_loop.say(loop, PLAN, code="PA", by="cleo", now=NOW, plan=revised)
    assert [e.event for e in accepted.events] == ["plan.accepted"]
    assert loop.turn == "done"
    assert loop.accepted is not None
    assert loop.accepted.sha256 == "p2"
    assert [t.line() for t in loop.turns] == [
        "R0|sam|PC|",
        "R0|cleo|NR|T1 too big",
        "R1|sam|PR|",
        "R1|cleo|PA|",
    ]
    with pytest.raises(TransitionError, match="accepted \\(PA\\) already"):
        plan_loop.say(loop, PLAN, code="NR", by="cleo", now=NOW, plan=revised)


@pytest.mark.parametrize(
    ("codes", "last", "message"),
    [
        ([], ("NR", "cleo", "p1"), "it is the spec agent's turn"),
        ([], ("PR", "sam", "p1"), "the loop opens with PC"),
        ([], ("DG", "sam", "p1"), "the loop opens with PC"),
        ([("PC", "sam", "p1")], ("PA", "sam", "p1"), "sam spoke for the plan last"),
        ([("PC", "sam", "p1")], ("PA", "cleo", "p2"), "changed after the spec agent put it"),
        ([("PC", "sam", "p1"), ("NR", "c", "p1")], ("PR", "sam", "p1"), "is unchanged since"),
        ([("PC", "sam", "p1"), ("NR", "c", "p1")], ("DG", "sam", "p2"), "changed since; say PR"),
        ([("PC", "sam", "p1"), ("DA", "c", "p1"), ("DG", "s", "p1")], ("DA", "c", "p1"),
         "give a verdict: NR, PA or EN"),
        ([], ("XX", "sam", "p1"), "'XX' is not a plan-loop code"),
    ],
)  # fmt: skip
def test_plan_statements_out_of_turn_are_refused_with_the_rule(
    codes: list[tuple[str, str, str]], last: tuple[str, str, str], message: str
) -> None:
    loop = plan_loop.new_plan_loop("login", "PLAN", 1)
    for code, by, sha in codes:
        plan_loop.say(loop, PLAN, code=code, by=by, now=NOW, plan=draft("p.toml", sha, by))
    code, by, sha = last
    before = loop.model_copy(deep=True)
    with pytest.raises(TransitionError, match=message):
        plan_loop.say(loop, PLAN, code=code, by=by, now=NOW, plan=draft("p.toml", sha, by))
    assert loop == before


def test_pa_is_refused_while_the_plan_check_finds_problems_and_pc_needs_a_plan() -> None:
    loop = plan_loop.new_plan_loop("login", "PLAN", 1)
    with pytest.raises(TransitionError, match="PC needs the plan file"):
        plan_loop.say(loop, PLAN, code="PC", by="sam", now=NOW, plan=None)
    plan = draft("p.toml", "p1")
    plan_loop.say(loop, PLAN, code="PC", by="sam", now=NOW, plan=plan)
    with pytest.raises(TransitionError, match=r"PA refused: .*estimated at 90 min"):
        plan_loop.say(loop, PLAN, code="PA", by="c", now=NOW, plan=plan,
                      problems=["task T1 is estimated at 90 min"])  # fmt: skip


def test_en_and_the_last_round_escalate_and_a_pr_reopens_an_accepted_plan() -> None:
    loop = plan_loop.new_plan_loop("login", "PLAN", 1)
    p1, p2, p3 = (draft("p.toml", sha) for sha in ("p1", "p2", "p3"))
    plan_loop.say(loop, PLAN, code="PC", by="sam", now=NOW, plan=p1)
    en = plan_loop.say(loop, PLAN, code="EN", by="c", now=NOW, plan=p1, note="scope?")
    assert en.escalate == "the spec critic asks for escalation (EN): scope?"
    plan_loop.say(loop, PLAN, code="DG", by="sam", now=NOW, plan=p1)
    assert plan_loop.say(loop, PLAN, code="NR", by="c", now=NOW, plan=p1).escalate is None
    plan_loop.say(loop, PLAN, code="PR", by="sam", now=NOW, plan=p2)
    last = plan_loop.say(loop, PLAN, code="NR", by="c", now=NOW, plan=p2)
    assert last.escalate is not None
    assert "not accepted in 2 round(s)" in last.escalate
    plan_loop.say(loop, PLAN, code="PR", by="sam", now=NOW, plan=p3)
    plan_loop.say(loop, PLAN, code="PA", by="c", now=NOW, plan=p3)
    assert plan_loop.changed_since_accepted(loop, "p3", "login") == []
    assert (
        "changed since the plan was accepted"
        in plan_loop.changed_since_accepted(loop, "p4", "login")[0]
    )
    with pytest.raises(TransitionError, match="says PR to take it through the loop again"):
        plan_loop.say(loop, PLAN, code="PR", by="sam", now=NOW, plan=p3)
    plan_loop.say(loop, PLAN, code="PR", by="sam", now=NOW, plan=draft("p.toml", "p4"))
    assert (loop.turn, loop.round, loop.accepted) == ("critic", 3, None)
