"""app.gui.pyside_boot: PySide6's per-import source scan, read from the file's bytes, says what
PySide6's own scan says."""

from __future__ import annotations

import json
import sys
import types

import app.gui.app
import app.paths
from app.gui import pyside_boot


def _scans():
    feature = sys.modules["shibokensupport.feature"]
    original = feature._mod_uses_pyside
    inner = original.__closure__ and next(
        (c.cell_contents for c in original.__closure__ if callable(c.cell_contents)), None)
    return feature, original, inner


def test_the_hook_is_replaced_once():
    feature, replaced, inner = _scans()
    assert getattr(replaced, pyside_boot._MARK, False)
    assert pyside_boot.install() is True
    assert feature._mod_uses_pyside is replaced  # a second install keeps the one replacement
    assert inner is not None and not getattr(inner, pyside_boot._MARK, False)


def test_the_bytes_scan_agrees_with_pyside6s_own(tmp_path):
    _, fast, original = _scans()
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
