# Windows build recipe. UNTESTED: written on Linux. Run from the repo root in PowerShell with
# Python 3.11, Visual Studio Build Tools (C++), CMake and Inno Setup 6 (iscc on PATH).
$ErrorActionPreference = "Stop"
$Version = (Select-String -Path pyproject.toml -Pattern '^version = "(.*)"').Matches[0].Groups[1].Value
python -m venv packaging\build\venv
$Py = "packaging\build\venv\Scripts\python.exe"
& $Py -m pip install --upgrade pip
# Portable llama-cpp-python: every CPU variant as a DLL, chosen at run time (see build_portable_wheel.sh).
# MSVC builds fewer variants (no ivybridge/piledriver/cooperlake/zen4/sapphirerapids).
$WheelDir = "$env:LOCALAPPDATA\burrow-build\wheels"
if (-not (Test-Path "$WheelDir\llama_cpp_python-*.whl")) {
    $env:CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON -DLLAVA_BUILD=OFF"
    & $Py -m pip wheel --no-deps -w $WheelDir "llama-cpp-python==0.3.36"
}
& $Py -m pip install pyinstaller pillow (Get-ChildItem "$WheelDir\llama_cpp_python-*.whl")[0].FullName
& $Py -c "import tomllib;p=tomllib.load(open('pyproject.toml','rb'))['project'];print('\n'.join(d for d in p['dependencies'] if not d.startswith('llama-cpp-python')))" > packaging\build\deps.txt
& $Py -m pip install -r packaging\build\deps.txt
& $Py -m PyInstaller --noconfirm --distpath packaging\build\pyi-dist --workpath packaging\build\pyi-work packaging\burrow.spec
iscc "/DAppVersion=$Version" packaging\windows\burrow.iss
