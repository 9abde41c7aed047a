"""Benchmarks: Burrow side by side with raw llama-cpp-python, ripgrep and an empty Qt window.

Every figure is a ratio against a reference measured in the same run, because the machines this runs
on are shared and noisy. `python -m bench` runs them all, prints a table and writes
bench/results.json. Benchmarks never assert: a missing part is reported as "not measured".
"""
