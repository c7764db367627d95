Feature: Complex subtasks get child instances in EXPAND and come back through review in REFINE

  Background:
    Given the team "ann, bob"
    And the complexity threshold is 5
    And the file "src/parser.py" contains:
      """
      def parse(text, strict):
          if not text:
              return []
          words = []
          for word in text.split():
              if word.startswith("#"):
                  continue
              if strict and not word.isalpha():
                  raise ValueError(word)
              words.append(word)
          return words
      """
    And the file "src/docs.py" contains:
      """
      def title(text):
          return text.title()
      """
    And an instance "epic" of the "edrr" workflow

  Scenario: Only subtasks above the threshold get a child instance
    When "ann" spawns children of "epic" for "parser=src/parser.py", "docs=src/docs.py"
    Then "epic" has 1 child instance(s)
    And "epic-c1" is CREATED

  Scenario: A finished child is integrated through an approved review
    When "ann" spawns children of "epic" for "parser=src/parser.py"
    And "ann" advances "epic-c1"
    And "epic-c1" has advanced to RETROSPECT
    And "ann" advances "epic-c1"
    And "ann" advances "epic"
    And "ann" advances "epic"
    And "bob" reviews "epic" as approved
    And "ann" advances "epic"
    Then the advance halted with a diagnosis mentioning "child epic-c1 (parser) is not integrated yet"
    When "bob" approves the result of "epic-c1"
    And "ann" advances "epic"
    Then "epic" is in phase RETROSPECT
    And the child "epic-c1" of "epic" is integrated

  Scenario: A failed child falls back to the parent with its error recorded
    When "ann" spawns children of "epic" for "parser=src/parser.py"
    And "ann" fails "epic-c1" because "the grammar is ambiguous"
    And "ann" advances "epic"
    And "ann" advances "epic"
    And "bob" reviews "epic" as approved
    And "ann" advances "epic"
    Then "epic" is in phase RETROSPECT
    And the child "epic-c1" of "epic" is fallen back
    And the error "the grammar is ambiguous" of "epic-c1" is recorded in "epic"

  Scenario: Children are spawned only in EXPAND
    When "ann" advances "epic"
    And "ann" spawns children of "epic" for "parser=src/parser.py"
    Then it was refused with an error mentioning "children are spawned in: EXPAND"
