"""Run a command as a user the file permissions bind: tests run as root, whose override makes
`chmod 000` mean nothing, so the command runs without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH."""

from __future__ import annotations

import os
import shutil

import pytest

_DROPPED = "-dac_override,-dac_read_search"


def as_non_root(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: permissions cannot be tested")
    return [setpriv, "--bounding-set", _DROPPED, "--inh-caps", _DROPPED, *argv]
