Feature: Only the primus spawns subagents, for subtasks whose measured complexity is high

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

  Scenario: The primus spawns; the complexity is measured from the files each subtask touches
    Then "ann" holds the primus role of "epic"
    When "ann" spawns children of "epic" for "parser=src/parser.py", "docs=src/docs.py;docs/new.py"
    Then "epic" has 1 child instance(s)
    And the child "epic-c1" of "epic" was measured at complexity 6
    And "epic" keeps the subtask "docs" measured at complexity 1

  Scenario: A member without the primus role may not spawn
    When "bob" spawns children of "epic" for "parser=src/parser.py"
    Then it was refused with an error mentioning "bob may not spawn subagents: only the primus role decomposes the task"
    And "epic" has 0 child instance(s)

  Scenario: A file whose complexity cannot be measured is refused
    When "ann" spawns children of "epic" for "notes=README.md"
    Then it was refused with an error mentioning "README.md is not a Python file"
