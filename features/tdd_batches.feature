Feature: TDD cycles: every cycle approved before the next batch, and an adjusted test is TA

  Background:
    Given a TDD project of a stack whose tests pass
    And pytest --tdd=green runs
    And the test "test_size_counts_the_items" is added to tests/test_stack.py, asserting stack.size() == 0
    And pytest --tdd=red runs for the cycle "size" on "test_size_counts_the_items"

  @slow
  Scenario: The dptr-tdd gate holds the TDD phase until every cycle is approved
    Given the file "src/stack.py" contains:
      """
      class Stack:
          def __init__(self) -> None:
              self.items: list[int] = []

          def push(self, item: int) -> None:
              self.items.append(item)

          def size(self) -> int:
              return len(self.items)
      """
    When pytest --tdd=green runs
    Then the TDD verdict passed with the status "GC"
    When the gate "dptr-tdd" is run
    Then the gate "dptr-tdd" is insufficient, its tdd check counting 1 unapproved cycle(s)
    When "ana" approves the TDD cycle "size"
    And the gate "dptr-tdd" is run
    Then the gate "dptr-tdd" is sufficient, its tdd check counting 0 unapproved cycle(s)

  @slow
  Scenario: An adjusted red test is TA, and the next cycle's red waits for the approval
    Given the test "test_size_is_zero_at_first" is added to tests/test_stack.py, asserting stack.size() == 0
    When pytest --tdd=red runs for the cycle "size" on "test_size_is_zero_at_first"
    Then the TDD verdict passed with the status "RC" and "TA"
    Given the file "src/stack.py" contains:
      """
      class Stack:
          def __init__(self) -> None:
              self.items: list[int] = []

          def push(self, item: int) -> None:
              self.items.append(item)

          def size(self) -> int:
              return len(self.items)
      """
    When pytest --tdd=green runs
    And the test "test_pop_takes_the_last" is added to tests/test_stack.py, asserting stack.pop() is None
    And pytest --tdd=red runs for the cycle "pop" on "test_pop_takes_the_last"
    Then the TDD verdict failed on the rule review-pending
    When "ana" approves the TDD cycle "size"
    And pytest --tdd=red runs for the cycle "pop" on "test_pop_takes_the_last"
    Then the TDD verdict passed with the status "RC"
