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
from types import ModuleType

import PySide6.QtCore  # noqa: F401  (loads shibokensupport.feature, the hook replaced below)

_MARK = "_burrow_bytes_scan"


def install() -> bool:
    """Replace the hook's source scan; True when it is (or already was) replaced."""
    feature = sys.modules.get("shibokensupport.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    if original is None:
        return False
    if getattr(original, _MARK, False):
        return True

    def uses_pyside(module: ModuleType) -> bool:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            return original(module)
        try:
            with open(path, "rb") as source:
                return b"PySide6" in source.read()
        except OSError:
            return original(module)

    setattr(uses_pyside, _MARK, True)
    feature._mod_uses_pyside = uses_pyside
    return True


install()
