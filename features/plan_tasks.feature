Feature: The approved plan becomes EXECUTE tasks; a task waits for its dependencies

  Background:
    Given a workflow file "delivery.toml":
      """
      name = "delivery"
      phases = ["PLAN", "EXECUTE", "TRACK"]

      [phase.PLAN]
      exit_gate = "sdlc-3"
      generates_tasks = "docs/plans/{instance}_plan.toml"

      [phase.EXECUTE]
      requires_tasks = true
      """
    And the file "docs/plans/login_plan.toml" contains:
      """
      retry_budget = 2

      [[tasks]]
      id = "T1"
      title = "validate the form of a code"
      estimate_min = 30

      [[tasks]]
      id = "T2"
      title = "send the code by e-mail"
      estimate_min = 40
      depends_on = ["T1"]
      retries = 1
      """
    And an instance "login" of the "delivery" workflow

  Scenario: Leaving PLAN queues one task per task of the plan, with its dependencies and budget
    When "ann" advances "login"
    Then "login" is in phase EXECUTE
    And "login" generated the tasks "EXEC_login_T1" and "EXEC_login_T2"
    And the task "EXEC_login_T2" depends on "EXEC_login_T1" and may be retried 1 times
    And the task "EXEC_login_T1" depends on nothing and may be retried 2 times
    And the events of "login" include "tasks.generated"

  Scenario: A task whose dependency is not completed is refused at claim, with the reason
    When "ann" advances "login"
    And "wes" claims the task "EXEC_login_T2"
    Then it was refused with an error mentioning "task EXEC_login_T2 cannot be claimed: it depends on EXEC_login_T1 (queue/), which must be in completed/ first"
    When "wes" claims a task
    Then "wes" holds the task "EXEC_login_T1"
    When "vic" claims a task
    Then nothing was claimed
    And no task is ready, EXEC_login_T2 waiting for EXEC_login_T1
    When "wes" submits the task "EXEC_login_T1"
    And "sue" approves the task "EXEC_login_T1"
    And "vic" claims a task
    Then "vic" holds the task "EXEC_login_T2"

  Scenario: EXECUTE is left only when every task of the plan is completed
    When "ann" advances "login"
    And "ann" advances "login"
    Then the advance halted with a diagnosis mentioning "task EXEC_login_T1 is in queue/, not completed/"
    When "wes" claims a task
    And "wes" submits the task "EXEC_login_T1"
    And "sue" approves the task "EXEC_login_T1"
    And "wes" claims a task
    And "wes" submits the task "EXEC_login_T2"
    And "sue" approves the task "EXEC_login_T2"
    And "ann" advances "login"
    Then "login" is in phase TRACK

  Scenario: Each move of a task leaves a message in the worker's or the supervisor's inbox
    When "ann" advances "login"
    And "wes" claims a task
    And "wes" asks about the task "EXEC_login_T1": "six digits, or six characters?"
    And "wes" submits the task "EXEC_login_T1"
    And "sue" rejects the task "EXEC_login_T1" saying "no test for letters"
    And "wes" claims a task
    And "wes" submits the task "EXEC_login_T1"
    And "sue" approves the task "EXEC_login_T1"
    Then the worker inbox holds "TASK_ASSIGNED", "TASK_REJECTED", "TASK_ASSIGNED" and "TASK_APPROVED"
    And the supervisor inbox holds "CLARIFICATION_REQUEST", "TASK_SUBMITTED" and "TASK_SUBMITTED"
    And the worker inbox tells "wes" about "EXEC_login_T1": "no test for letters"

  Scenario: A gate run for a task decides it, and every verdict is kept for the task
    Given a gate "compiles" that requires the syntax check
    And the file "src/app.py" contains:
      """
      def broken(:
      """
    When "ann" advances "login"
    And "wes" claims a task
    And "wes" submits the task "EXEC_login_T1"
    And "sue" runs the gate "compiles" on the task "EXEC_login_T1"
    Then the task "EXEC_login_T1" is in rejected/
    When the file "src/app.py" contains:
      """
      def fixed() -> None:
          pass
      """
    And "wes" claims a task
    And "wes" submits the task "EXEC_login_T1"
    And "sue" runs the gate "compiles" on the task "EXEC_login_T1"
    Then the task "EXEC_login_T1" is in completed/
    And the task "EXEC_login_T1" kept the verdicts "insufficient" and "sufficient"

  Scenario: A plan the plan check finds wrong generates no task
    Given the file "docs/plans/login_plan.toml" contains:
      """
      retry_budget = 2

      [[tasks]]
      id = "T1"
      title = "a loop"
      estimate_min = 10
      depends_on = ["T1"]
      """
    When "ann" queues the tasks of the plan of "login"
    Then it was refused with an error mentioning "cannot be turned into tasks: the dependencies form a cycle"
