"""HTTP to an OpenAI-compatible inference server: stdlib http.client only, no new dependency.

Three things the backend needs and urllib does not give: a socket another thread can shut down
(Stop closes the stream at once instead of waiting for the next byte), a read timeout that means
"this long without a byte" (a long answer is not a timeout, a stalled server is), and every way a
request goes wrong turned into one named ServerError whose message a user can act on.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from typing import Any
from urllib.parse import urlsplit

from app.errors import BurrowError, NetworkBlockedError
from app.netguard import is_local_destination

STOP_POLL_S = 0.05  # how often the stop watcher looks at the cancel event (Stop must take < 0.5 s)
EXCERPT_CHARS = 200  # of a garbage reply, quoted in the error


class ServerFailure(str, Enum):
    """Every way a server request fails; the value is the name a run's stop message carries."""

    UNREACHABLE = "server_unreachable"
    MODEL_MISSING = "server_model_missing"
    DROPPED = "server_dropped"
    TIMEOUT = "server_timeout"
    GARBAGE = "server_garbage"
    NOT_ALLOWED = "server_not_allowed"


class ServerError(BurrowError):
    """A request to the inference server failed; `failure` says how, the message what to do."""

    def __init__(self, failure: ServerFailure, message: str) -> None:
        super().__init__(f"{message} [{failure.value}]")
        self.failure = failure


@dataclass(frozen=True)
class ServerAddress:
    """Where a server listens: scheme, host, port and the API's path prefix (normally /v1)."""

    scheme: str
    host: str
    port: int
    prefix: str

    @property
    def label(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}{self.prefix}"

    @property
    def is_loopback(self) -> bool:
        return is_local_destination(self.host)


def parse_server_url(url: str) -> ServerAddress:
    """http://host[:port][/v1]; a missing /v1 is added (every supported server serves it)."""
    text = url.strip()
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ServerError(ServerFailure.UNREACHABLE,
                          f"{url!r} is not a server URL; use e.g. http://127.0.0.1:8080/v1")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise ServerError(ServerFailure.UNREACHABLE, f"{url!r} has a bad port") from None
    prefix = parts.path.rstrip("/")
    if not prefix.endswith("/v1"):
        prefix += "/v1"
    return ServerAddress(parts.scheme, parts.hostname, port, prefix)


class Connection:
    """One request's connection; given a cancel event, a watcher thread shuts its socket on Stop."""

    def __init__(self, address: ServerAddress, connect_timeout_s: float, read_timeout_s: float) -> None:
        cls = http.client.HTTPSConnection if address.scheme == "https" else http.client.HTTPConnection
        self.address = address
        self._conn = cls(address.host, address.port, timeout=connect_timeout_s)
        self._read_timeout_s = read_timeout_s
        self._done = threading.Event()
        self.closed_by_stop = False

    def open(self, method: str, path: str, body: dict[str, Any] | None = None,
             cancel: threading.Event | None = None) -> http.client.HTTPResponse:
        """Send the request, then wait for the reply's head; with `cancel`, Stop ends that wait.

        The watcher starts once the request is sent, not before: starting a thread costs ~0.1 ms
        (a third of the client's whole time to first token), which then overlaps the server's work
        instead of delaying the request. Connecting and sending are bounded by the timeouts.
        """
        data = json.dumps(body).encode("utf-8") if body is not None else None
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream, application/json"}
        with failures(self.address):
            self._conn.connect()
            self._conn.sock.settimeout(self._read_timeout_s)
            self._conn.request(method, self.address.prefix + path, body=data, headers=headers)
            if cancel is not None:
                self._close_when(cancel)
            return self._conn.getresponse()

    def _close_when(self, cancel: threading.Event) -> None:
        """Watch `cancel` until close(); when it is set, shut the socket so a blocked read ends.

        A plain Event.wait cannot be used: the harness's per-turn cancel is set through its
        is_set() (it also follows the run's event), so it is polled.
        """
        def watch() -> None:
            while not self._done.wait(STOP_POLL_S):
                if cancel.is_set():
                    self.closed_by_stop = True
                    self._shutdown()
                    return

        threading.Thread(target=watch, name="burrow-server-stop", daemon=True).start()

    def _shutdown(self) -> None:
        sock = self._conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by the server: the read ends anyway

    def close(self) -> None:
        self._done.set()
        self._conn.close()


@contextmanager
def failures(address: ServerAddress, mid_answer: bool = False) -> Iterator[None]:
    """Turns socket and HTTP exceptions into ServerErrors naming the server."""
    try:
        yield
    except ServerError:
        raise
    except (OSError, http.client.HTTPException) as exc:  # timeouts and refusals are OSErrors
        raise _named(exc, address, mid_answer) from None


def _named(exc: BaseException, address: ServerAddress, mid_answer: bool) -> ServerError:
    where = f"the inference server at {address.label}"
    if isinstance(exc, NetworkBlockedError):
        return ServerError(ServerFailure.NOT_ALLOWED, f"{where} is not on this machine, and Burrow "
                           f"only connects to a non-loopback server named in the server_allowed_host "
                           f"setting ({exc})")
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return ServerError(ServerFailure.TIMEOUT, f"{where} sent nothing for too long (the "
                           f"server_timeout_s setting); it may be overloaded or stuck")
    if mid_answer and isinstance(exc, (OSError, http.client.HTTPException)):
        return ServerError(ServerFailure.DROPPED, f"{where} dropped the connection in the middle "
                           f"of the answer ({type(exc).__name__}); was it stopped or did it crash?")
    if isinstance(exc, (ConnectionRefusedError, socket.gaierror)):
        return ServerError(ServerFailure.UNREACHABLE, f"no inference server answers at "
                           f"{address.base_url}: is it running? (e.g. `ollama serve`, LM Studio's "
                           f"server, `llama-server -m MODEL`)")
    return ServerError(ServerFailure.DROPPED, f"{where} closed the connection "
                       f"({type(exc).__name__}: {exc})")


def garbage(address: ServerAddress, what: str, sample: str | bytes) -> ServerError:
    text = sample.decode("utf-8", "replace") if isinstance(sample, bytes) else sample
    excerpt = text.strip()[:EXCERPT_CHARS] or "(nothing)"
    return ServerError(ServerFailure.GARBAGE, f"the inference server at {address.label} sent "
                       f"something that is not {what}: {excerpt!r}")


def http_failure(address: ServerAddress, status: int, body: bytes, model: str) -> ServerError:
    """A non-2xx reply: a missing model gets its own name, anything else is quoted."""
    detail = _error_detail(body)
    lowered = detail.lower()
    if "model" in lowered and any(w in lowered for w in ("not found", "not loaded", "no model")):
        return ServerError(ServerFailure.MODEL_MISSING, f"the inference server at {address.label} "
                           f"has no model {model!r} loaded ({status}: {detail}); load or pull it "
                           f"there, or pick one of its models")
    if status == 404:
        return ServerError(ServerFailure.GARBAGE, f"{address.base_url} is not an OpenAI-compatible "
                           f"API (404: {detail}); check the server URL (it usually ends in /v1)")
    return ServerError(ServerFailure.GARBAGE, f"the inference server at {address.label} refused "
                       f"the request ({status}: {detail})")


def _error_detail(body: bytes) -> str:
    """The message of a JSON error reply (`{"error": {"message": ...}}`), else the body's text; cut short."""
    text = body.decode("utf-8", "replace")
    try:
        detail = json.loads(text)
        detail = detail.get("error", detail) if isinstance(detail, dict) else detail
        detail = detail.get("message", detail) if isinstance(detail, dict) else detail
    except ValueError:
        detail = text
    return str(detail).strip()[:EXCERPT_CHARS]


def get_json(address: ServerAddress, path: str, timeout_s: float) -> Any:
    """GET a JSON document (a model list, server properties); ServerError when that fails."""
    conn = Connection(address, timeout_s, timeout_s)
    try:
        response = conn.open("GET", path)
        with failures(address):
            body = response.read()
        if response.status >= 400:
            raise http_failure(address, response.status, body, "")
        try:
            return json.loads(body)
        except ValueError:
            raise garbage(address, "JSON", body) from None
    finally:
        conn.close()


def sse_events(response: http.client.HTTPResponse, address: ServerAddress) -> Iterator[Any]:
    """The JSON objects of a server-sent event stream, until [DONE] or the end of the stream.

    The caller decides whether an end without [DONE] is a drop (it knows if an answer finished).
    """
    with failures(address, mid_answer=True):
        for line in response:
            text = line.decode("utf-8", "replace").strip()
            if not text or text.startswith(":") or not text.startswith("data:"):
                if text.startswith("{") or text.startswith("<"):  # a plain body, not events
                    raise garbage(address, "an event stream", text + response.read(500).decode(
                        "utf-8", "replace"))
                continue
            data = text[5:].strip()
            if data == "[DONE]":
                return
            try:
                yield json.loads(data)
            except ValueError:
                raise garbage(address, "JSON in an event stream", data) from None
