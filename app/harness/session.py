"""One object wires a question: a workspace folder, its tools, a model, settings and the run record.

The CLI, the window, the eval and the benchmarks all ask through a Session, so the wiring (which
folder checks, which tools, which recorder) exists once:

    with Session.open(folder, model, settings, paths=app_paths()) as session:
        for event in session.ask("where is the config parsed?", cancel):
            ...
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from app.errors import BurrowError
from app.harness.budget import ContextBudget
from app.harness.calls import ToolExecutor
from app.harness.control import tool_policy
from app.harness.events import IndexProgress, IndexReady, RunEvent
from app.harness.first_prompt import system_message
from app.harness.loop import run_question
from app.harness.records import ChatSoFar, RunRecorder, RunStore
from app.index.values import IndexStats
from app.llm.base import ChatModel
from app.paths import AppPaths
from app.settings import Settings, ToolPolicy
from app.tools.code_search import CodeSearch
from app.tools.registry import ToolRegistry, default_tools
from app.workspace import Workspace, check_folder

ToolsFor = Callable[[CodeSearch], ToolRegistry]  # the tools, given the index their search_code uses

log = logging.getLogger(__name__)
PROGRESS_STEPS = 50  # progress events per refresh, at most (a big tree has thousands of files)


@dataclass(frozen=True)
class _Waiting:
    """Another process holds the index lock: how far that one is."""

    done: int
    total: int


class QuestionRefusedError(BurrowError):
    """A question is not sent to the model: it cannot fit its context, or the workspace holds
    nothing to answer from. The message says why and what to do (ask exits 2; the window shows it)."""


def open_toolbox(folder: Path | str, settings: Settings, registry: ToolRegistry | None = None,
                 code_search: CodeSearch | None = None) -> ToolExecutor:
    """The tools over a checked workspace folder (WorkspaceError says why a folder is refused)."""
    registry = registry or default_tools(code_search)
    return ToolExecutor(Workspace(check_folder(folder), settings), settings, registry)


class Session:
    """A workspace with its tools, its code index and a loaded model; answers questions one at a
    time. Open one per workspace and model and ask it every question: the index stays open."""

    def __init__(self, tools: ToolExecutor, model: ChatModel, settings: Settings,
                 paths: AppPaths | None = None, code_search: CodeSearch | None = None) -> None:
        self.tools = tools
        self.model = model
        self.settings = settings
        self._paths = paths  # where runs are recorded; None records nothing (bench, tests)
        self._code_search = code_search  # the index the tools search, refreshed before a question

    @classmethod
    def open(cls, folder: Path | str, model: ChatModel, settings: Settings, *,
             paths: AppPaths | None = None, tools: ToolsFor = default_tools) -> Session:
        """`tools` makes the registry around the session's own index, so a custom set of tools
        still searches the index the session refreshes."""
        code_search = CodeSearch()
        return cls(open_toolbox(folder, settings, tools(code_search)), model, settings, paths, code_search)

    @property
    def workspace(self) -> Workspace:
        return self.tools.workspace

    def ask(self, question: str, cancel: threading.Event | None = None,
            chat: ChatSoFar | None = None) -> Iterator[RunEvent]:
        """The run's events, the last one a RunStopped; the run is recorded when paths were given.
        With `chat`, the question continues that chat (its history is in the prompt)."""
        recorder = RunRecorder(self._paths) if self._paths is not None else None
        self._check_length(question)
        stats = yield from self._refresh_index()
        self._check_readable(stats)
        # The refresh walked the tree; the run's path checks use that walk instead of a second one.
        tools = self.tools.with_files(stats.paths) if stats is not None else self.tools
        yield from run_question(question, tools=tools, model=self.model, settings=self.settings,
                                cancel=cancel, recorder=recorder, history=chat.history if chat else (),
                                chat_id=chat.chat_id if chat else "")

    def _check_length(self, question: str) -> None:
        """Refuse, before the model runs, a question that does not fit in its context beside the
        instructions, the tool schemas and the room kept for the answer. The lines Burrow reads for
        it are left out of the sum: the first prompt fits them to what is left (and a server model's
        token counts are estimates, so a stricter sum refused short questions)."""
        context = min(self.settings.n_ctx, self.model.context_length or self.settings.n_ctx)
        budget = ContextBudget(self.model.count_tokens, context)
        specs = () if tool_policy(self.settings, self.model) is ToolPolicy.RETRIEVAL else tuple(self.tools.schemas())
        fixed = budget.measure([system_message(), {"role": "user", "content": ""}], specs)
        room = context - self.settings.context_reserve_tokens - fixed
        tokens = budget.tokens(question)
        if tokens > room:
            raise QuestionRefusedError(
                f"The question is too long for the model: {tokens:,} tokens ({len(question):,} characters), "
                f"and at most {max(0, room):,} fit in its context of {context:,} tokens beside Burrow's "
                "instructions and the answer. Shorten the question (or raise the "
                "context size in Settings).")

    def _check_readable(self, stats: IndexStats | None) -> None:
        """Refuse a question about a workspace with no text to read: a model asked anyway invents
        files and lines. Without an index, the folder's listing decides."""
        if stats is not None:
            if stats.chunks:
                return
        elif self._code_search is not None or self.workspace.file_list(1):
            return  # the index failed (it was logged): the tools will say what they can read
        skipped = f" ({stats.describe_skipped()})" if stats is not None and stats.skipped else ""
        raise QuestionRefusedError(
            f"There is nothing to answer from: the folder {self.workspace.root} has no readable "
            f"text files{skipped}. Choose the folder that holds the code.")

    def _refresh_index(self) -> Iterator[RunEvent]:
        """Bring the code index up to date before the question (only changed files are read), with
        progress; the build runs on its own thread so its progress can be yielded as it goes.
        Returns what the refresh did (None without an index, or when it failed)."""
        if self._code_search is None:
            return None
        updates: queue.Queue[tuple[int, int] | _Waiting | IndexStats | None] = queue.Queue()
        worker = threading.Thread(target=self._refresh_into, args=(updates,), daemon=True)
        worker.start()
        shown, stats, waited = 0, None, None
        while (item := updates.get()) is not None:
            if isinstance(item, _Waiting):
                if item != waited:  # polled every fraction of a second: said when it moved
                    waited = item
                    yield IndexProgress(item.done, item.total, waiting=True)
            elif isinstance(item, IndexStats):
                stats = item
                yield IndexReady(item.files, item.chunks, item.changed, item.removed, item.seconds,
                                 item.skipped, item.skipped_folders)
            elif item[0] == item[1] or item[0] - shown >= max(1, item[1] // PROGRESS_STEPS):
                shown = item[0]
                yield IndexProgress(*item)
        worker.join()
        return stats

    def _refresh_into(self, updates: queue.Queue) -> None:
        try:
            updates.put(self._code_search.refresh(self.workspace, lambda done, total: updates.put((done, total)),
                                                  lambda done, total: updates.put(_Waiting(done, total))))
        except Exception:  # the index is a help: without it search_code says what failed
            log.exception("refreshing the code index failed")
        finally:
            updates.put(None)

    def load_chat(self, ref: str) -> ChatSoFar:
        """A recorded chat of this workspace ("last" or a run id), to continue with ask(chat=...)."""
        if self._paths is None:
            raise BurrowError("this session records no runs, so it has no chats to continue")
        return RunStore(self._paths).load_chat(self.tools.label, ref)

    def close(self) -> None:
        if self._code_search is not None:
            self._code_search.close()
        self.tools.workspace.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
