Feature: A refinement round's task metrics keep the phase, auto-debug's iterations and context figures

  Scenario: The round of an exit gate records its phase and what auto-debug did in that run
    Given auto-debug worked on the run "r1": 2 and 3 candidates tried, 4 context queries
    When the gate run "r1" of the phase EXECUTE is recorded as a refinement round
    Then the task metrics record the phase EXECUTE, debug iterations 2 and 3 and 4 context queries

  Scenario: Auto-debug's report of another run does not count
    Given auto-debug worked on the run "r1": 2 candidates tried, 1 context queries
    When the gate run "r2" of the phase PLAN is recorded as a refinement round
    Then the task metrics record the phase PLAN, debug iterations none and 0 context queries
