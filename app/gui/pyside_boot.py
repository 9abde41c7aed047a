"""PySide6, imported; and its import hook made cheap.

PySide6 looks at every module imported after it to decide whether its `__feature__` switches
(snake_case, true_property) apply there: shibokensupport.feature reads the module's source with
inspect.getsource and searches it for "PySide6". Through inspect and linecache (encoding
detection, line splitting, a cache entry) that is ~0.1 ms a module, ~8 ms for the ~70 modules the
window imports before its first paint (measured with `python -m bench --only gui`). `install`
swaps in the same test on the file's bytes; a module without a readable `.py` file (built in,
frozen by the installer) still goes to PySide6's own function, which says what it always said.
Burrow uses no `__feature__`, so the answer never changes what it runs either way.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

import PySide6.QtCore  # noqa: F401  (loads shibokensupport.feature, the hook replaced below)

_pyside_scan: Callable[[ModuleType], bool] | None = None  # PySide6's own, for modules without a .py file


def uses_pyside(module: ModuleType) -> bool:
    """PySide6's test ("PySide6" in the module's source), on the file's bytes."""
    path = getattr(module, "__file__", None)
    if isinstance(path, str) and path.endswith(".py"):
        try:
            with open(path, "rb") as source:
                return b"PySide6" in source.read()
        except OSError:
            pass
    return _pyside_scan(module) if _pyside_scan is not None else False


def install() -> bool:
    """Put uses_pyside in place of the hook's source scan; True when it is there."""
    global _pyside_scan
    feature = sys.modules.get("shibokensupport.feature")
    current = getattr(feature, "_mod_uses_pyside", None)
    if current is None:
        return False
    if current is not uses_pyside:
        _pyside_scan = current
        feature._mod_uses_pyside = uses_pyside
    return True


install()
