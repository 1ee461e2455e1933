"""`ragwire query` and `ragwire retrieve` with an empty or blank argument: a usage error, before any config is read."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ragwire.cli import main


@pytest.mark.parametrize("text", ["", "   ", "\t\n"])
@pytest.mark.parametrize(("command", "name", "what"), [
    # guards: `ragwire query ""` exited 1 with a runtime error
    ("query", "QUESTION", "the question"),
    # guards: `ragwire retrieve ""` printed 5 arbitrary hits
    ("retrieve", "QUERY", "the words to search for"),
])
def test_an_empty_question_or_query_is_a_usage_error(tmp_path, command, name, what, text):
    # no config.yaml exists: the check must come before anything is opened
    result = CliRunner().invoke(main, [command, text, "--config", str(tmp_path / "config.yaml")])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert errors == [f"Error: Invalid value for {name}: is empty: write {what} in quotes"]
