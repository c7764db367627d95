Feature: The handoff queue hands out work by priority and gives up after three retries

  Scenario: Workers pick up CRITICAL before HIGH before MEDIUM before LOW
    Given the task "tidy" with priority LOW
    And the task "outage" with priority CRITICAL
    And the task "feature" with priority HIGH
    When "w1" claims a task
    Then "w1" holds the task "outage"
    When "w2" claims a task
    Then "w2" holds the task "feature"

  Scenario: A task rejected more than three times moves to failed
    Given the task "flaky" with priority HIGH
    When the task "flaky" is submitted and rejected 3 times
    Then the task "flaky" is in rejected/ with 3 retries recorded
    When the task "flaky" is submitted and rejected 1 times
    Then the task "flaky" is in failed/ with 4 retries recorded
