"""What the numbers were measured on: CPU, cores, memory, versions, load, date."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _rg_version(rg: str) -> str:
    try:
        out = subprocess.run([rg, "--version"], capture_output=True, text=True, timeout=10).stdout
        return out.splitlines()[0] if out else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "not found"


def machine_info(rg: str) -> dict[str, Any]:
    import psutil

    return {
        "cpu": _cpu_model(),
        "logical_cores": psutil.cpu_count(logical=True),
        "physical_cores": psutil.cpu_count(logical=False),
        "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "llama_cpp_python": _version("llama-cpp-python"),
        "pyside6": _version("PySide6-Essentials") if _version("PySide6") == "not installed" else _version("PySide6"),
        "ripgrep": _rg_version(rg),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    }


def describe(info: dict[str, Any]) -> str:
    return (
        f"{info['cpu']}, {info['logical_cores']} logical / {info['physical_cores']} physical cores, "
        f"{info['ram_gb']} GiB RAM, {info['os']}; Python {info['python']}, "
        f"llama-cpp-python {info['llama_cpp_python']}, PySide6 {info['pyside6']}, {info['ripgrep']}; "
        f"load average at start {info['load_average_at_start']}; {info['date']}"
    )
