"""Stop inside a prompt batch: llama.cpp's abort callback, set only while a prompt is evaluated.

A prompt is evaluated in batches of up to n_batch tokens, and one batch of a 1.5B model on two
cores takes seconds. The harness's Stop used to be seen only between batches; with this callback
ggml asks between the nodes of the compute graph, so Stop ends the batch at once. llama.cpp then
drops that batch's positions from the KV cache and llama_decode returns 2, which llama-cpp-python
raises as a RuntimeError; what was evaluated before the batch stays cached and valid.

The callback is a Python function called by C, so it is set only around prompt evaluation: while
tokens are generated (one small graph per token) the harness checks Stop on every token anyway.
Part of the llama-cpp backend: only llama_backend uses it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class BatchAbort:
    """The abort callback of one llama context, watching one cancel event at a time."""

    def __init__(self, llama_cpp: Any, ctx: Any) -> None:
        self._ctx = ctx
        self._set = llama_cpp.llama_set_abort_callback
        self._cancel: threading.Event | None = None
        self._interrupted = False  # Ctrl-C arrived while watching (on the main thread)
        self.aborted = False  # the last watched evaluation was ended by the callback
        # Both kept as attributes: C holds only the function pointer, Python must keep it alive.
        self._callback = llama_cpp.ggml_abort_callback(self._should_abort)
        self._none = llama_cpp.ggml_abort_callback()  # a NULL function pointer: no callback

    def _should_abort(self, _data: Any) -> bool:
        cancel = self._cancel
        if self._interrupted or (cancel is not None and cancel.is_set()):
            self.aborted = True
            return True
        return False

    @contextmanager
    def watching(self, cancel: threading.Event) -> Iterator[None]:
        """While inside, a set `cancel` ends the batch being evaluated. On the main thread (the
        CLI) Ctrl-C does too, and KeyboardInterrupt is raised when the batch has ended: raised
        inside the callback, ctypes would print and drop it and llama.cpp would fail the batch."""
        self._cancel, self.aborted, self._interrupted = cancel, False, False
        previous = _catch_sigint(self)
        self._set(self._ctx, self._callback, None)
        try:
            yield
        finally:
            self._set(self._ctx, self._none, None)
            self._cancel = None
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        if self._interrupted:
            raise KeyboardInterrupt


def _catch_sigint(abort: BatchAbort) -> Any:
    """Note Ctrl-C on the abort instead of raising it, where Python's own handler is installed;
    the handler it replaced, or None when it left the handler alone."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:
        return None

    def interrupted(signum: int, frame: Any) -> None:
        abort._interrupted = True

    signal.signal(signal.SIGINT, interrupted)
    return previous
