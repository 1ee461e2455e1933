"""The CLI turns ragwire's own errors into one line and an exit code, and lets a bug keep its traceback."""

import click
import pytest
from click.testing import CliRunner

from ragwire.cli import EXIT_LOCKED, handle_errors
from ragwire.errors import ConfigError, LoaderError, StoreLockedError


def _cli(exc: BaseException, **codes_kw):
    @click.group()
    @click.option("--debug", is_flag=True)
    def root(debug: bool) -> None:
        pass

    @root.command()
    @handle_errors(**codes_kw)
    def boom() -> None:
        raise exc

    return root


def test_a_ragwire_error_is_one_line_and_exit_1():
    result = CliRunner().invoke(_cli(LoaderError("a.pdf: encrypted PDF\n— decrypt it first")), ["boom"])
    assert result.exit_code == 1
    assert result.stderr == "error: a.pdf: encrypted PDF — decrypt it first\n"


def test_a_config_error_lists_each_problem():
    result = CliRunner().invoke(_cli(ConfigError(["a: bad", "b: worse"], source="c.yaml")), ["boom"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["error: 2 problems in c.yaml:", "  c.yaml: a: bad", "  c.yaml: b: worse"]


@pytest.mark.parametrize("bug", [ValueError("bad value"), ImportError("no module x"), FileNotFoundError("gone"),
                                 KeyError("k")])
def test_an_error_that_is_not_ragwires_keeps_its_traceback(bug):
    # Regression: every ValueError/ImportError/FileNotFoundError became one "error:" line, hiding real bugs.
    result = CliRunner().invoke(_cli(bug), ["boom"])
    assert result.exception is bug
    assert "error:" not in result.stderr


def test_debug_raises_a_ragwire_error_with_its_traceback():
    exc = LoaderError("a.pdf: damaged")
    result = CliRunner().invoke(_cli(exc), ["--debug", "boom"])
    assert result.exception is exc


def test_an_error_with_its_own_exit_code_is_one_line_even_with_debug():
    cli = _cli(StoreLockedError("the store is held by pid 7"), codes={StoreLockedError: EXIT_LOCKED})
    for args in (["boom"], ["--debug", "boom"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == EXIT_LOCKED
        assert result.stderr == "error: the store is held by pid 7\n"


def test_interrupt_is_one_line():
    result = CliRunner().invoke(_cli(KeyboardInterrupt()), ["boom"])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: interrupted")
