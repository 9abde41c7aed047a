"""app.gui.pyside_boot: PySide6's per-import source scan, read from the file's bytes, says what
PySide6's own scan says."""

from __future__ import annotations

import json
import sys
import types

import app.gui.app
import app.paths
from app.gui import pyside_boot


def test_the_hook_is_replaced_once():
    feature = sys.modules["shibokensupport.feature"]
    assert feature._mod_uses_pyside is pyside_boot.uses_pyside
    original = pyside_boot._pyside_scan
    assert original is not None and original is not pyside_boot.uses_pyside
    assert pyside_boot.install() is True
    assert feature._mod_uses_pyside is pyside_boot.uses_pyside
    assert pyside_boot._pyside_scan is original  # a second install keeps PySide6's own scan


def test_the_bytes_scan_agrees_with_pyside6s_own(tmp_path):
    fast, original = pyside_boot.uses_pyside, pyside_boot._pyside_scan
    written = tmp_path / "uses_qt.py"
    written.write_text("# a plugin\nfrom PySide6.QtWidgets import QLabel\n", encoding="utf-8")
    plain = tmp_path / "plain.py"
    plain.write_text("VALUE = 'PySide' + '6 is not named here as one word'\n", encoding="utf-8")
    modules = [app.gui.app, app.paths, json, sys]
    for path in (written, plain):
        module = types.ModuleType(path.stem)
        module.__file__ = str(path)
        modules.append(module)
    gone = types.ModuleType("gone")
    gone.__file__ = str(tmp_path / "deleted.py")  # a frozen app's modules have no file on disk
    modules.append(gone)
    for module in modules:
        assert fast(module) == original(module), module.__name__
    assert [fast(m) for m in modules] == [True, False, False, False, True, False, False]
