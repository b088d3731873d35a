"""The command line per command (issue 39, item 8): each command's arguments
are defined in its `*_args` module, in option groups, apart from the module
that runs it."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.cli import build_parser
from gpu_alloc_verify.verify.cli.entry import COMMANDS
from gpu_alloc_verify.verify.cli.parser import SUBCOMMANDS

PKG = Path(__file__).resolve().parents[2] / "gpu_alloc_verify"
CLI = PKG / "verify" / "cli"
DEFAULT_GROUPS = {"positional arguments", "options"}
# Options every command has, kept in argparse's own group.
EVERYWHERE = {"--help", "--debug"}


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _own_options(p: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in p._actions if a.option_strings and not EVERYWHERE & set(a.option_strings)]


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_option_of_a_command_is_in_a_named_group(name: str) -> None:
    p = _commands()[name]
    own = _own_options(p)
    if not own:  # lowerings, invariants: nothing to group
        return
    grouped = {id(a) for g in p._action_groups if g.title not in DEFAULT_GROUPS
               for a in g._group_actions}
    loose = [a.option_strings[-1] for a in own if id(a) not in grouped]
    assert not loose, f"{name}: options outside an argument group: {loose}"
    text = p.format_help()
    titles = [g.title for g in p._action_groups
              if g.title not in DEFAULT_GROUPS and g._group_actions]
    assert titles and all(f"\n{t}:\n" in text for t in titles), (name, titles)


def test_fuzz_help_has_the_groups_of_its_concerns() -> None:
    titles = [g.title for g in _commands()["fuzz"]._action_groups]
    for title in ("lowering under test", "what to check", "programs generated",
                  "campaign size and time", "output", "cluster"):
        assert title in titles, titles


def test_the_parser_and_the_runners_name_the_same_commands() -> None:
    assert list(SUBCOMMANDS) == list(_commands())
    assert set(COMMANDS) == set(SUBCOMMANDS)


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_a_commands_arguments_live_apart_from_its_runner(name: str) -> None:
    _, add_arguments = SUBCOMMANDS[name]
    takes = [a for a in _commands()[name]._actions if not EVERYWHERE & set(a.option_strings)]
    if takes:  # positionals too; lowerings and invariants take nothing
        assert add_arguments.__module__ == f"gpu_alloc_verify.verify.cli.{name}_args"
    assert not COMMANDS[name].__module__.endswith(("_args", ".arguments", ".parser"))


def _calls(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.func.attr for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}


def test_only_the_argument_modules_define_arguments() -> None:
    defining = {p.name for p in CLI.glob("*.py")
                if {"add_argument", "add_argument_group"} & _calls(p)}
    assert defining and all(n.endswith("_args.py") or n in ("arguments.py", "parser.py")
                            for n in defining), defining
    for path in CLI.glob("*_args.py"):  # argument modules run nothing
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not [n.name for n in tree.body
                    if isinstance(n, ast.FunctionDef) and n.name.startswith("cmd_")], path.name
