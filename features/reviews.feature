Feature: Peer-review outcomes map to phase outcomes, and rejection loops are bounded
  approved keeps the phase outcome; changes_requested keeps it and marks it for rework in
  the next cycle; rejected discards it and the phase repeats. A rejection loops back at most
  three times: the fourth fails the instance.

  Background:
    Given the team "ann, bob"
    And a workflow file "reviewed.toml":
      """
      name = "reviewed"
      phases = ["draft", "implement", "review", "release"]

      [phase.review]
      review = true
      on_reject = "implement"
      """
    And an instance "pr" of the "reviewed" workflow
    And "pr" has advanced to review

  Scenario: A phase that needs a review waits for one
    When "ann" advances "pr"
    Then the advance halted with a diagnosis mentioning "needs a peer review"
    And "pr" is in phase review

  Scenario: An approved review keeps the outcome and lets the phase be left
    When "bob" reviews "pr" as approved
    And "ann" advances "pr"
    Then "pr" is in phase release
    And "pr" kept 1 outcome(s) of review
    And the last review of "pr" is stored as approved with outcome accepted

  Scenario: Changes requested keeps the outcome and marks rework for the next cycle
    When "bob" reviews "pr" as changes_requested saying "rename the flag"
    And "ann" advances "pr"
    Then "pr" is in phase release
    And "pr" has rework due in review
    And the last review of "pr" is stored as changes_requested with outcome rework

  Scenario: A rejected review discards the outcome and loops back
    Given "ann" queues the update "draft-notes" = "v1" on "pr"
    When "bob" reviews "pr" as rejected saying "tests are missing"
    Then "pr" is in phase implement
    And "pr" still has 0 queued update(s)
    And the last review of "pr" is stored as rejected with outcome discarded
    And the history of "pr" records a repeat by "bob" because "tests are missing"
    And the events of "pr" include "review.rejected" and "phase.repeated"

  Scenario: The fourth rejection fails the instance
    When "bob" reviews "pr" as rejected
    And "ann" advances "pr"
    And "bob" reviews "pr" as rejected
    And "ann" advances "pr"
    And "bob" reviews "pr" as rejected
    And "ann" advances "pr"
    Then "pr" is in phase review
    And "pr" is RUNNING
    When "bob" reviews "pr" as rejected
    Then "pr" is FAILED
    And the events of "pr" include "review.rejected_max" and "failed"

  Scenario: An unknown review status is refused and nothing is recorded
    When "bob" reviews "pr" as maybe
    Then it was refused with an error mentioning "unknown review status 'maybe'; allowed: approved, changes_requested, rejected"
    And "pr" is in phase review
