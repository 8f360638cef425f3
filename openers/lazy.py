"""A command group that imports an area's commands only when one of them runs.

``openers --help`` must answer at once, yet the areas' command modules import the
engine, DuckDB, polars or Streamlit. Each area is registered by one line (its
module and the names it registers, see :mod:`openers.cli`); the module is imported,
and its ``register(app)`` called, only when one of its commands is run or asked for
``--help``. The one-line descriptions of ``openers --help`` are read from the
modules' source without importing them (:func:`command_docs`): the docstring of the
function each ``app.command("name")`` registers, so the description is written once,
in the command's docstring, as before. A module whose registrations cannot be read
that way is simply imported (slower, never wrong); a test holds every area to the
fast way.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import typer
from typer.core import TyperCommand, TyperGroup

if TYPE_CHECKING:
    from typer import _click as click


@dataclass(frozen=True)
class Area:
    """An area's command module and the command names its ``register(app)`` adds."""

    module: str
    commands: tuple[str, ...]


def area(module: str, *commands: str) -> Area:
    """One registration line: ``area("audit.cli", "check", "audit", "rules")``."""
    return Area(module, commands)


def _command_name(call: ast.expr) -> tuple[str, str | None] | None:
    """``app.command("name", help=...)`` -> (name, help keyword if a plain string)."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr == "command" and call.args
            and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
        return None
    help_text = next((k.value.value for k in call.keywords if k.arg == "help"
                      and isinstance(k.value, ast.Constant)
                      and isinstance(k.value.value, str)), None)
    return call.args[0].value, help_text


def _source_file(module: str) -> Path | None:
    """The file of ``module`` without importing it or its parent packages.

    (``importlib.util.find_spec("a.b.c")`` imports ``a.b``, whose ``__init__`` may be
    heavy; the top-level package's spec imports nothing.)
    """
    top, *rest = module.split(".")
    spec = importlib.util.find_spec(top)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        base = Path(folder).joinpath(*rest)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


@cache
def command_docs(module: str) -> dict[str, str]:
    """The help text of each command ``module.register`` adds, read from the source."""
    source = _source_file(module)
    if source is None:
        return {}
    tree = ast.parse(source.read_text(encoding="utf-8"))
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    register = functions.get("register")
    docs: dict[str, str] = {}
    if register is None:
        return docs
    for node in ast.walk(register):
        if isinstance(node, ast.FunctionDef):  # @app.command("name") def f(...): """doc"""
            for decorator in node.decorator_list:
                found = _command_name(decorator)
                if found:
                    docs[found[0]] = found[1] or ast.get_docstring(node) or ""
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name):
            found = _command_name(node.func)  # app.command("name")(function)
            target = functions.get(node.args[0].id)
            if found and target is not None:
                docs[found[0]] = found[1] or ast.get_docstring(target) or ""
    return {name: inspect.cleandoc(doc) for name, doc in docs.items() if doc}


class LazyGroup(TyperGroup):
    """A typer group whose commands are loaded area by area, on first use."""

    areas: ClassVar[tuple[Area, ...]] = ()
    #: Settings each area's commands are built with (as the root app's).
    app_settings: ClassVar[dict[str, Any]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._by_name = {name: a for a in self.areas for name in a.commands}
        self._listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for a in self.areas for name in a.commands] + [
            name for name in self.commands if name not in self._by_name]

    def load(self, which: Area) -> None:
        """Import the area and add the commands its ``register(app)`` makes."""
        sub = typer.Typer(**self.app_settings)
        importlib.import_module(which.module).register(sub)
        group = typer.main.get_group(sub)
        for name, command in getattr(group, "commands", {}).items():
            self.commands.setdefault(name, command)

    def all_commands(self, ctx: click.Context) -> dict[str, click.Command]:
        """Every command, every area loaded (for the reference page and tests)."""
        found = {name: self.get_command(ctx, name) for name in self.list_commands(ctx)}
        return {name: command for name, command in found.items() if command is not None}

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        which = self._by_name.get(cmd_name)
        if which is None:
            return None
        if self._listing:
            doc = command_docs(which.module).get(cmd_name)
            if doc:
                return TyperCommand(name=cmd_name, help=doc)
        self.load(which)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command with its whole first sentence, wrapped, never cut with "..."."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=10_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True  # the listing needs descriptions only, not the commands
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False
