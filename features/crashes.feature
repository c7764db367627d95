Feature: Crashed work is retried, then failed, by the sweep; a sign of life keeps it

  Background:
    Given the crash timeout is 30 minutes with 1 crash retries
    And a workflow file "build.toml":
      """
      name = "build"
      phases = ["code", "ship"]
      """
    And "ann" starts an instance "work" of the "build" workflow

  Scenario: An instance whose owner is gone past the timeout is retried once, then failed
    Then "work" is owned by "ann"
    When 31 minutes pass
    And the sweep runs
    Then "work" is RUNNING
    And "work" has no owner after 1 crash retry
    And the events of "work" include "stale" and "retried"
    When 31 minutes pass
    And the sweep runs
    Then "work" is FAILED
    And the failure of "work" says "no sign of life for 31 min"
    And the events of "work" include "failed"

  Scenario: A heartbeat keeps its owner's instance from being swept
    When 20 minutes pass
    And "bob" sends a heartbeat for "work"
    And 20 minutes pass
    And the sweep runs
    Then "work" is RUNNING
    And "work" is owned by "bob"
    And the events of "work" include "owner.changed"

  Scenario: An instance blocked for a person is not a crash
    When "ann" escalates "work" because "which database?"
    And 120 minutes pass
    And the sweep runs
    Then "work" is BLOCKED

  Scenario: A running task whose worker is gone goes back to the queue, then to failed/
    Given the task "fix" with priority HIGH
    When "wes" claims a task
    And 31 minutes pass
    And the sweep runs
    Then the sweep gave the task "fix" back to queue/
    When "vic" claims a task
    And 10 minutes pass
    And "vic" sends a heartbeat for the task "fix"
    And 25 minutes pass
    And the sweep runs
    Then the task "fix" is in running/
