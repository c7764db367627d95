Feature: The plan loop: the spec agent and the critic talk until the plan is accepted (PA)

  Background:
    Given a workflow file "planned.toml":
      """
      name = "planned"
      phases = ["PLAN", "EXECUTE"]

      [phase.PLAN]
      exit_gate = "sdlc-3"

      [phase.PLAN.loop]
      kind = "plan"
      max_rounds = 2
      max_dialogue = 1
      """
    And the file "docs/plans/login_plan.toml" contains:
      """
      retry_budget = 2

      [[tasks]]
      id = "T1"
      title = "validate the form of a code"
      estimate_min = 30
      """
    And an instance "login" of the "planned" workflow

  Scenario: A plan revised after a critique, argued, and accepted lets PLAN be left
    When "sam" says PC on the plan of "login"
    And "cleo" says NR on the plan of "login" because "T1 has no test"
    And "sam" says PR on the plan of "login"
    Then it was refused with an error mentioning "unchanged since the last statement"
    When the file "docs/plans/login_plan.toml" contains:
      """
      retry_budget = 2

      [[tasks]]
      id = "T1"
      title = "validate the form of a code, test first"
      estimate_min = 30
      """
    And "sam" says PR on the plan of "login"
    And "cleo" says DA on the plan of "login" because "why thirty minutes?"
    And "sam" says DG on the plan of "login" because "it is one regular expression"
    And "ann" advances "login"
    Then the advance halted with a diagnosis mentioning "round 1 of the plan awaits the critic"
    When "cleo" says PA on the plan of "login"
    Then the plan of "login" is accepted
    And the dialogue of the plan of "login" reads:
      """
      R0|sam|PC|
      R0|cleo|NR|T1 has no test
      R1|sam|PR|
      R1|cleo|DA|why thirty minutes?
      R1|sam|DG|it is one regular expression
      R1|cleo|PA|
      """
    When "ann" advances "login"
    Then "login" is in phase EXECUTE
    And the events of "login" include "plan.created", "plan.needs_revision", "plan.revised", "plan.dialogue", "plan.disagreed" and "plan.accepted"

  Scenario: Turns alternate, and the critic is not the spec agent who spoke last
    When "sam" says NR on the plan of "login"
    Then it was refused with an error mentioning "it is the spec agent's turn"
    When "sam" says PC on the plan of "login"
    And "sam" says PC on the plan of "login"
    Then it was refused with an error mentioning "it is the critic's turn"
    When "sam" says PA on the plan of "login"
    Then it was refused with an error mentioning "sam spoke for the plan last"

  Scenario: A plan gate 3 would refuse cannot be accepted
    Given the file "docs/plans/login_plan.toml" contains:
      """
      [[tasks]]
      id = "T1"
      title = "everything at once"
      estimate_min = 90
      """
    When "sam" says PC on the plan of "login"
    And "cleo" says PA on the plan of "login"
    Then it was refused with an error mentioning "task T1 is estimated at 90 min"
    And the plan loop of "login" is in round 0, critic to speak

  Scenario: EN, and rounds past max_rounds, hand the plan to a person
    When "sam" says PC on the plan of "login"
    And "cleo" says EN on the plan of "login" because "the scope is unclear"
    Then "login" is BLOCKED
    When "ann" resumes "login"
    And "sam" says DG on the plan of "login" because "the scope is the request"
    And "cleo" says NR on the plan of "login"
    And the file "docs/plans/login_plan.toml" contains:
      """
      retry_budget = 1

      [[tasks]]
      id = "T1"
      title = "validate codes"
      estimate_min = 20
      """
    And "sam" says PR on the plan of "login"
    And "cleo" says NR on the plan of "login"
    Then "login" is BLOCKED
    And the events of "login" include "plan.escalation_needed" and "escalation.required"

  Scenario: A second DA in a round is refused: a verdict is due
    When "sam" says PC on the plan of "login"
    And "cleo" says DA on the plan of "login"
    And "sam" says DG on the plan of "login"
    And "cleo" says DA on the plan of "login"
    Then it was refused with an error mentioning "give a verdict: NR, PA or EN"
