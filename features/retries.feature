Feature: A halted phase is retried under the retry policy, with backoff, a bounded number of times

  Background:
    Given a gate "compiles" that requires the syntax check
    And a workflow file "build.toml":
      """
      name = "build"
      phases = ["code", "ship"]

      [phase.code]
      exit_gate = "compiles"
      """
    And the file "src/app.py" contains:
      """
      def broken(:
      """
    And the retry policy allows 2 retries, 10 seconds apart
    And an instance "work" of the "build" workflow

  Scenario: A retry before the backoff has passed is refused without spending a retry
    When "ann" advances "work"
    And "ann" advances "work"
    Then it was refused with an error mentioning "retry policy backoff"
    When 10 seconds pass
    And "ann" advances "work"
    Then the advance halted with a diagnosis mentioning "syntax"
    And "work" is RUNNING

  Scenario: The backoff doubles after each failed attempt
    When "ann" advances "work"
    And 10 seconds pass
    And "ann" advances "work"
    And 10 seconds pass
    And "ann" advances "work"
    Then it was refused with an error mentioning "10.0s from now"

  Scenario: When the retries are spent the instance fails
    When "ann" advances "work"
    And 10 seconds pass
    And "ann" advances "work"
    And 20 seconds pass
    And "ann" advances "work"
    Then "work" is FAILED
    And the events of "work" include "halted", "retry.scheduled" and "failed"

  Scenario: Spent retries can escalate to a person instead
    Given spent retries escalate to a person
    When "ann" advances "work"
    And 10 seconds pass
    And "ann" advances "work"
    And 20 seconds pass
    And "ann" advances "work"
    Then "work" is BLOCKED
    And the events of "work" include "escalation.required"
