"""``docs/cli.md`` and the README's command table are generated and current (datasette style)."""

from __future__ import annotations

from openers.cli_docs import PAGE, README, command_table, readme_with_table, reference


def test_the_cli_reference_is_current() -> None:
    assert PAGE.read_text(encoding="utf-8") == reference(), (
        "docs/cli.md is stale: run `python -m openers.cli_docs`")


def test_the_readme_command_table_is_the_reference_table() -> None:
    text = README.read_text(encoding="utf-8")
    assert readme_with_table(text) == text, (
        "README.md's command table is stale: run `python -m openers.cli_docs`")
    assert command_table() in text


def test_every_command_and_option_is_in_the_reference() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for flag in ("--output-format", "--fail-on SEVERITY", "--baseline", "--write-baseline",
                 "--statistics", "--exit-zero", "--since DATE", "--force", "--version"):
        assert flag in page, flag
