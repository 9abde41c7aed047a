"""Fetching and unpacking the eval's code bases, offline: a .deb unpacks without dpkg, the sha256
guards the cache, a Debian package is fetched from the mirror's pool path."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from bench.eval import codebases as cb


def _deb(files: dict[str, bytes]) -> bytes:
    """A minimal .deb: an ar archive with debian-binary, control.tar.xz and data.tar.xz."""
    def tar_xz(members: dict[str, bytes]) -> bytes:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:xz") as tar:
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        return buf.getvalue()

    members = [("debian-binary", b"2.0\n"), ("control.tar.xz", tar_xz({"./control": b"x\n"})),
               ("data.tar.xz", tar_xz(files))]
    out = b"!<arch>\n"
    for name, data in members:
        header = f"{name + '/':<16}{0:<12}{0:<6}{0:<6}{100644:<8}{len(data):<10}`\n"
        out += header.encode() + data + (b"\n" if len(data) % 2 else b"")
    return out


@pytest.fixture
def catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A one-entry catalog of a Debian package served from a local 'mirror' folder."""
    deb = _deb({"./usr/share/gocode/src/example.com/lib/lib.go": b"package lib\n",
                "./usr/share/gocode/src/example.com/lib/dist/lib.js": b"// built\n"})
    mirror = tmp_path / "mirror"
    (mirror / "pool" / "main").mkdir(parents=True)
    (mirror / "pool" / "main" / "golang-lib-dev_1.0-1_all.deb").write_bytes(deb)
    path = tmp_path / "codebases.json"
    path.write_text(json.dumps({"codebases": [{
        "name": "lib", "kind": "debian", "package": "golang-lib-dev", "version": "1.0-1",
        "archive": "golang-lib-dev_1.0-1_all.deb", "sha256": hashlib.sha256(deb).hexdigest(),
        "root": "usr/share/gocode/src/example.com/lib", "license": "MIT", "language": "Go",
        "pool": "pool/main/golang-lib-dev_1.0-1_all.deb"}]}))
    monkeypatch.setattr(cb, "CATALOG", path)
    monkeypatch.setenv(cb.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(cb.DEBIAN_MIRROR_ENV, mirror.as_uri() + "/")
    return path


def test_a_debian_package_is_fetched_by_pool_path_and_unpacked_at_its_root(catalog: Path) -> None:
    root = cb.ensure_codebase("lib")
    assert (root / "lib.go").read_text() == "package lib\n"
    assert root == cb.cached_root(cb.load_codebases(catalog)["lib"])


def test_built_copies_the_catalog_drops_are_gone_even_from_an_older_unpacked_tree(catalog: Path) -> None:
    root = cb.ensure_codebase("lib")
    assert (root / "dist" / "lib.js").is_file()  # unpacked before the catalog said to drop it
    data = json.loads(catalog.read_text())
    data["codebases"][0]["drop"] = ["dist"]
    catalog.write_text(json.dumps(data))
    assert cb.ensure_codebase("lib") == root and not (root / "dist").exists()
    assert (root / "lib.go").is_file()


def test_a_wrong_sha256_is_refused_and_nothing_is_cached(catalog: Path) -> None:
    data = json.loads(catalog.read_text())
    data["codebases"][0]["sha256"] = "0" * 64
    catalog.write_text(json.dumps(data))
    with pytest.raises(cb.CodebaseError, match="sha256"):
        cb.ensure_codebase("lib")
    assert not cb.cached_root(cb.load_codebases(catalog)["lib"]).exists()


def test_a_file_that_is_not_a_deb_says_so(tmp_path: Path) -> None:
    bad = tmp_path / "x.deb"
    bad.write_bytes(b"PK\x03\x04 not an ar archive")
    with pytest.raises(cb.CodebaseError, match="not a .deb"):
        cb.deb_data(bad)
