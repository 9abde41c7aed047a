"""The values a benchmark figure produces and how they are shown: one table row per figure."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Subject = Literal["ratio", "measured"]


@dataclass(frozen=True)
class Target:
    """A bound on the ratio (or on the measured value itself, e.g. a stall in ms)."""

    limit: float | None  # None: report only, nothing to pass or miss
    at_least: bool = False  # True: measured must be >= limit (throughput); else <= limit
    subject: Subject = "ratio"

    def check(self, measured: float, ratio: float | None) -> bool | None:
        value = measured if self.subject == "measured" else ratio
        if self.limit is None or value is None:
            return None
        return value >= self.limit if self.at_least else value <= self.limit

    def __str__(self) -> str:
        if self.limit is None:
            return "report"
        op = ">=" if self.at_least else "<="
        suffix = "x" if self.subject == "ratio" else ""
        return f"{op} {self.limit:g}{suffix}"


@dataclass(frozen=True)
class FigureResult:
    key: str  # short id, e.g. "gen_tps"
    title: str
    unit: str
    target: Target
    measured: float | None = None
    reference: float | None = None
    reference_title: str = ""
    note: str = ""  # why it was not measured, or what to keep in mind reading it
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.measured is None or not self.reference:
            return None
        return self.measured / self.reference

    @property
    def passed(self) -> bool | None:
        if self.measured is None:
            return None
        return self.target.check(self.measured, self.ratio)

    @property
    def verdict(self) -> str:
        if self.measured is None:
            return "not measured"
        return {True: "pass", False: "MISS", None: "report"}[self.passed]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["target"] = str(self.target)
        data.update(ratio=self.ratio, verdict=self.verdict)
        return data


def from_json(data: dict[str, Any], target: Target) -> FigureResult:
    """Rebuild a result a child process printed; the target comes from the parent's spec."""
    return FigureResult(data["key"], data["title"], data["unit"], target, data.get("measured"),
                        data.get("reference"), data.get("reference_title", ""), data.get("note", ""),
                        data.get("details") or {})


def not_measured(key: str, title: str, unit: str, target: Target, why: str) -> FigureResult:
    return FigureResult(key, title, unit, target, note=f"not measured: {why}")


def _fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    text = f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"
    return f"{text} {unit}".strip()


def table_rows(results: list[FigureResult]) -> list[list[str]]:
    rows = [["figure", "measured", "reference", "ratio", "target", "result"]]
    for r in results:
        ref = _fmt(r.reference, r.unit)
        if r.reference_title:
            ref = f"{ref} ({r.reference_title})"
        rows.append([r.title, _fmt(r.measured, r.unit), ref, _fmt(r.ratio), str(r.target), r.verdict])
    return rows


def markdown_table(results: list[FigureResult]) -> str:
    rows = table_rows(results)
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(cell.replace("|", "/") for cell in row) + " |" for row in rows[1:]]
    return "\n".join(lines)


def text_table(results: list[FigureResult]) -> str:
    rows = table_rows(results)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    out.insert(1, "  ".join("-" * w for w in widths))
    notes = [f"  [{r.key}] {r.note}" for r in results if r.note]
    return "\n".join(out + ([""] + notes if notes else []))
