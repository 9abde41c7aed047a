"""PyInstaller hook: llama-cpp-python opens its shared libraries by path with ctypes, so the
import analysis never sees them. Collect llama_cpp/lib/* where llama_cpp looks for them, and the
CPU-variant backends of the portable build (CMake installs them to <site-packages>/bin/) into
ggml_backends/, where packaging/hooks/pyi_rth_ggml_backends.py loads them from."""

from pathlib import Path

from PyInstaller.utils.hooks import collect_data_files, get_package_paths

_site, _pkg = (Path(p) for p in get_package_paths("llama_cpp"))


def _shared_libs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*") if p.is_file() and (".so" in p.name or p.suffix in (".dylib", ".dll")))


# The sapphirerapids (AMX) variant is left out: on a VM that advertises AMX (seen on the build
# machine) it dies with SIGILL at the first matmul even after arch_prctl(ARCH_REQ_XCOMP_PERM), while
# zen4/cooperlake (AVX-512 BF16/VNNI) run fine there. ggml then picks the next best variant.
_SKIPPED_VARIANTS = ("sapphirerapids",)


def _wanted_backend(path: Path) -> bool:
    return path.name.startswith(("libggml-", "ggml-")) and not any(v in path.name for v in _SKIPPED_VARIANTS)


binaries = [(str(p), "llama_cpp/lib") for p in _shared_libs(_pkg / "lib")]
binaries += [(str(p), "ggml_backends") for p in _shared_libs(_site / "bin") if _wanted_backend(p)]
# The server and its FastAPI stack are not used; the chat-format templates and grammars are data.
excludedimports = ["llama_cpp.server"]
datas = collect_data_files("llama_cpp", excludes=["**/*.so", "**/*.so.*", "**/*.dylib", "**/*.dll",
                                                  "lib/**", "include/**"])
