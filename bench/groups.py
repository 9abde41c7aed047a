"""The figures, grouped by what they share (a loaded model, an executor, a display), in table order."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bench import fig_gui, fig_index, fig_memory, fig_model, fig_retrieval, fig_server, fig_tools
from bench.context import BenchContext
from bench.report import FigureResult


@dataclass(frozen=True)
class Group:
    name: str
    specs: list[tuple]  # (key, title, unit, Target) of each figure it measures
    measure: Callable[[BenchContext], list[FigureResult]]
    timeout_s: float  # a hung part costs at most this much of the 10-minute run


GROUPS = [
    Group("model", fig_model.SPECS, fig_model.measure, 300),
    Group("tools", [fig_tools.SEARCH, fig_tools.FIND], fig_tools.measure, 180),
    Group("gui", [fig_gui.STALL, fig_gui.LAUNCH, fig_gui.READY], fig_gui.measure, 300),
    Group("memory", [fig_memory.MEMORY], fig_memory.measure, 200),
    Group("server", fig_server.SPECS, fig_server.measure, 300),
    Group("index", [fig_index.BUILD, fig_index.REFRESH, fig_index.SEARCH], fig_index.measure, 600),
    Group("retrieval", [fig_retrieval.SPAN, fig_retrieval.FILE], fig_retrieval.measure, 300),
]
BY_NAME = {g.name: g for g in GROUPS}
