"""The rules on their own: lexical checks, the secrets list, .gitignore matching, the symlink policy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.errors import PathRefusedError, WorkspaceError
from app.settings import Settings
from app.workspace import Workspace
from app.workspace.ignore import IgnoreLayer, glob_regex, is_ignored, parse_gitignore
from app.workspace.lexical import split_relative
from app.workspace.secrets import SecretsRule

from .conftest import STRATEGIES


@pytest.mark.parametrize("path,parts", [
    (".", ()), ("", ()), ("./src//a.py", ("src", "a.py")), ("src/", ("src",)), ("a~/b~", ("a~", "b~")),
    ("-x", ("-x",)), ("données/résumé.py", ("données", "résumé.py")), ("日本/語.md", ("日本", "語.md")),
])
def test_legitimate_paths_pass(path: str, parts: tuple[str, ...]) -> None:
    assert split_relative(path, 1024) == parts


@pytest.mark.parametrize("path,reason", [
    ("/etc/passwd", "absolute"), ("C:/x", "absolute"), ("../x", "'..'"), ("a/../../x", "'..'"),
    ("~", "'~'"), ("~/x", "'~'"), ("a\\b", "backslash"), ("a\x00b", "NUL"), ("a\nb", "control"),
    ("a\x1b[0m", "control"), ("a\x85b", "control"), ("x" * 1025, "longer than"), ("a/" + "b" * 300, "255 bytes"),
    ("\udcff", "surrogate"),
])
def test_lexical_refusals_before_disk(path: str, reason: str) -> None:
    with pytest.raises(PathRefusedError, match=reason):
        split_relative(path, 1024)


@pytest.mark.parametrize("rel", [
    ".env", ".ENV.local", "config/prod.env", ".ssh/id_rsa", "keys/ID_ED25519", "certs/server.pem", "tls.KEY",
    ".git/config", "sub/.git/config", ".netrc", ".npmrc", ".pypirc", "gcp/credentials.json", ".aws/credentials",
    "home/.ssh/known_hosts", "infra/terraform.tfstate", "app/client_secret_123.json",
])
def test_secret_names_match_case_insensitively(rel: str) -> None:
    assert SecretsRule().matches(rel) or SecretsRule().matches_dir(rel.split("/")[0])
    assert not SecretsRule(enabled=False).matches(rel)


@pytest.mark.parametrize("rel", [
    "environment.py", "env.py", "keyboard.py", "monkey.py", "secrets.py", "credentials.py", "id_rsa.pub",
    "docs/pem_format.md", "src/key_handler.go", "tokens.ts", "git/config.py",
])
def test_ordinary_code_is_not_called_a_secret(rel: str) -> None:
    assert not SecretsRule().matches(rel)


def test_gitignore_semantics() -> None:
    rules = parse_gitignore("# c\n*.log\n/build\nout/\n!keep.log\ndocs/**/*.tmp\n")
    layers = (IgnoreLayer("", rules),)
    assert is_ignored(layers, "a/b/x.log", False) and not is_ignored(layers, "keep.log", False)
    assert is_ignored(layers, "build", True) and not is_ignored(layers, "src/build", True)
    assert is_ignored(layers, "src/out", True) and not is_ignored(layers, "src/out", False)
    assert is_ignored(layers, "docs/a/b/c.tmp", False) and not is_ignored(layers, "x.tmp", False)
    nested = (IgnoreLayer("sub", parse_gitignore("*.txt\n")),)
    assert is_ignored(nested, "sub/a.txt", False) and not is_ignored(nested, "a.txt", False)
    assert glob_regex("**/*.py").match("a/b.py") and glob_regex("**/*.py").match("b.py")
    assert not glob_regex("src/*.py").match("src/a/b.py")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_symlink_policy_is_the_same_for_both_strategies(tmp_path: Path, strategy: str) -> None:
    root = tmp_path / "ws"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "README.md").write_text("top\n")
    os.symlink("../../README.md", root / "src" / "pkg" / "back.md")  # uses '..' but stays beneath
    os.symlink("src/pkg", root / "pkg_alias")
    os.symlink("pkg_alias/back.md", root / "chained.md")
    with Workspace(root, Settings(), force_fallback=strategy == "fallback") as ws:
        for path in ("src/pkg/back.md", "chained.md", "pkg_alias/back.md"):
            assert ws.read_text(path).text == "top\n", path


def test_workspace_root_must_be_a_folder(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="does not exist"):
        Workspace(tmp_path / "missing", Settings())
    (tmp_path / "f").write_text("x")
    with pytest.raises(WorkspaceError, match="is a file"):
        Workspace(tmp_path / "f", Settings())


def test_root_is_held_by_descriptor_not_by_name(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("original\n")
    with Workspace(root, Settings()) as ws:
        root.rename(tmp_path / "moved")
        root.mkdir()
        (root / "a.txt").write_text("impostor\n")
        assert ws.read_text("a.txt").text == "original\n"


def test_compiled_secret_regex_agrees_with_fnmatch() -> None:
    import fnmatch
    import random

    from app.workspace import secrets

    def by_fnmatch(rel: str) -> bool:
        low = rel.lower()
        name = low.rsplit("/", 1)[-1]
        return (any(fnmatch.fnmatchcase(name, p) for p in secrets.SECRET_NAME_PATTERNS)
                or any(fnmatch.fnmatchcase(low, p) for p in secrets.SECRET_PATH_PATTERNS))

    atoms = [".env", "id_rsa", "x", ".pem", "/", ".ssh", ".git", "config", "Key", "credentials", ".JSON",
             "client_secret", ".aws", "known_hosts", ".tfstate", ".backup", ".", "\n", "_sk", ".pub"]
    rng = random.Random(7)
    rule = SecretsRule()
    for _ in range(20000):
        rel = "".join(rng.choice(atoms) for _ in range(rng.randrange(1, 5)))
        if not rel.lower().endswith(".pub"):
            assert rule.matches(rel) == by_fnmatch(rel), rel
