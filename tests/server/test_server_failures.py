"""Failures a user meets, each a named ServerError and, inside a run, a recorded model_error stop:
no server, a server that never answers (timeout), and garbage replies (tiny local servers here:
these are the unhappy paths; every happy path runs against the real server)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from app.harness.events import RunStopped
from app.llm.base import TurnRequest
from app.llm.server_backend import ServerChatModel, connect_server
from app.llm.server_http import ServerError, ServerFailure, parse_server_url
from app.settings import Settings

from .llama_server import free_port

QUESTION = TurnRequest(({"role": "user", "content": "hi"},))


@contextmanager
def raw_server(reply: bytes | None, received: threading.Event | None = None) -> Iterator[int]:
    """A loopback listener that sends `reply` to each request (None: reads and never answers);
    `received` is set once a request has arrived."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    done = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)
            conn.recv(65536)
            if received is not None:
                received.set()
            if reply is not None:
                conn.sendall(reply)
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        done.set()
        try:
            listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
        except OSError:
            pass
        listener.close()
        for conn in held:
            conn.close()
        thread.join(5)


def model_at(port: int, **settings: object) -> ServerChatModel:
    return ServerChatModel(parse_server_url(f"http://127.0.0.1:{port}"), "m", Settings(**settings))


def failure_of(model: ServerChatModel) -> ServerError:
    with pytest.raises(ServerError) as caught:
        list(model.generate(QUESTION))
    return caught.value


def test_no_server_running_is_named_with_what_to_do() -> None:
    port = free_port()  # nothing listens here
    with pytest.raises(ServerError) as caught:
        connect_server(f"http://127.0.0.1:{port}/v1", None, Settings())
    assert caught.value.failure is ServerFailure.UNREACHABLE
    assert "is it running?" in str(caught.value) and f"127.0.0.1:{port}" in str(caught.value)


def test_a_server_that_never_answers_times_out() -> None:
    with raw_server(None) as port:
        error = failure_of(model_at(port, server_timeout_s=0.3))
    assert error.failure is ServerFailure.TIMEOUT and "server_timeout_s" in str(error)


@pytest.mark.parametrize("reply", [
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 25\r\n\r\n<html>not an API</html>\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {not json\n\n",
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: [1, 2]\n\n",
    b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 5\r\n\r\noops!",
    b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nNot Found",  # a wrong URL
])
def test_garbage_replies_are_named(reply: bytes) -> None:
    with raw_server(reply) as port:
        error = failure_of(model_at(port))
    assert error.failure is ServerFailure.GARBAGE, error


def test_stop_while_the_server_is_silent_closes_the_connection() -> None:
    """Stop must not wait for the server's next byte: the blocked read is ended by shutting the
    socket (with an hour's timeout, only that can end this turn)."""
    received, cancel = threading.Event(), threading.Event()
    with raw_server(None, received) as port:
        model = model_at(port, server_timeout_s=3600)
        turn = model.generate(QUESTION, cancel)
        stopper = threading.Thread(target=lambda: received.wait(30) and cancel.set())
        stopper.start()
        events = list(turn)
        stopper.join()
    assert received.is_set() and cancel.is_set()
    assert [type(e).__name__ for e in events] == ["TurnCompleted"]
    assert events[0].stop_reason == "cancelled"


def test_stop_pressed_before_the_request_went_out_still_ends_the_turn() -> None:
    """The stop watcher starts only once the request is sent (its thread start then overlaps the
    server's work); a Stop that came earlier must still end the wait for a silent server."""
    received, cancel = threading.Event(), threading.Event()
    cancel.set()
    with raw_server(None, received) as port:
        events = list(model_at(port, server_timeout_s=3600).generate(QUESTION, cancel))
    assert received.is_set()
    assert [type(e).__name__ for e in events] == ["TurnCompleted"]
    assert events[0].stop_reason == "cancelled"


def test_a_stream_cut_off_before_its_end_is_a_drop() -> None:
    chunk = b'data: {"choices": [{"delta": {"content": "Hel"}, "finish_reason": null}]}\n\n'
    reply = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + chunk
    with raw_server(reply) as port:
        error = failure_of(model_at(port))
    assert error.failure is ServerFailure.DROPPED


def test_a_missing_model_reply_is_named() -> None:
    body = b'{"error": {"message": "model \\"x\\" not found, try pulling it first"}}'
    reply = b"HTTP/1.1 404 Not Found\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    with raw_server(reply) as port:
        error = failure_of(model_at(port))
    assert error.failure is ServerFailure.MODEL_MISSING and "not found" in str(error)


def test_inside_a_run_a_failure_is_a_recorded_model_error_stop(tmp_path: Path) -> None:
    from app.harness.records import RunStore
    from app.harness.session import Session
    from app.paths import app_paths

    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "README.md").write_text("# hi\n", encoding="utf-8")
    settings = Settings(server_timeout_s=0.3)
    with raw_server(None) as port:
        model = model_at(port, server_timeout_s=0.3)
        with Session.open(tmp_path / "ws", model, settings, paths=app_paths()) as session:
            events = list(session.ask("q?"))
    stop = events[-1]
    assert isinstance(stop, RunStopped) and stop.reason == "model_error"
    assert "[server_timeout]" in stop.message
    runs = RunStore(app_paths()).list_runs(tmp_path / "ws")
    assert len(runs) == 1


def test_a_remote_server_needs_its_host_named_in_the_settings() -> None:
    with pytest.raises(ServerError) as caught:
        connect_server("http://192.0.2.10:8080/v1", None, Settings())
    assert caught.value.failure is ServerFailure.NOT_ALLOWED
    assert "server_allowed_host" in str(caught.value)
