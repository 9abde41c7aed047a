"""Offline by construction: an audit hook that refuses every network connection but loopback.

CPython raises an audit event before any socket connect, send-to or name lookup; the hook sees it
first and raises NetworkBlockedError, so no library (telemetry, update checks, a model hub client)
can reach the network from inside Burrow. Each refused attempt is logged and kept on the guard so
tests can assert that a whole run made none.

One exception can be made, explicitly: an inference server the user runs on another machine
(`allow_server`). Then exactly that host and port (and the addresses the name resolved to when it
was allowed) get through; every other host, and every other port of that host, is still refused.
"""

from __future__ import annotations

import ipaddress
import logging
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from app.errors import NetworkBlockedError

log = logging.getLogger(__name__)

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})

# audit event -> index of the argument that holds the destination (host or address tuple)
_WATCHED_EVENTS = {
    "socket.connect": 1,
    "socket.sendto": 1,
    "socket.sendmsg": 1,
    "socket.getaddrinfo": 0,
    "socket.gethostbyname": 0,
    "socket.gethostbyname_ex": 0,
    "socket.gethostbyaddr": 0,
    "socket.getnameinfo": 0,
}


@dataclass(frozen=True)
class NetworkAttempt:
    event: str
    destination: str


@dataclass
class NetworkGuard:
    """Refuses non-loopback network use while enabled; remembers every attempt it refused."""

    enabled: bool = True
    attempts: list[NetworkAttempt] = field(default_factory=list)
    allowed: frozenset[tuple[str, int]] = frozenset()  # (host or address, port) of one server
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        index = _WATCHED_EVENTS.get(event)
        if index is None or not self.enabled or len(args) <= index:
            return
        target = args[index]
        if is_local_destination(target):
            return
        port = args[1] if event == "socket.getaddrinfo" and len(args) > 1 and args[1] else None
        if self._is_allowed(target, port):
            return
        attempt = NetworkAttempt(event, _describe((target, port) if port else target))
        with self._lock:
            self.attempts.append(attempt)
        log.warning("blocked a network attempt: %s to %s", attempt.event, attempt.destination)
        raise NetworkBlockedError(
            f"Burrow works offline and refused a network connection ({event} to {attempt.destination})."
        )

    def clear(self) -> None:
        with self._lock:
            self.attempts.clear()

    def allow_server(self, host: str, port: int) -> None:
        """Let exactly host:port through (replacing any server allowed before).

        The name is resolved once here, so a connect to the address it names matches too.
        """
        import socket

        wanted = {(_host_key(host), int(port))}
        self.allowed = frozenset(wanted)  # first, so the lookup below is let through
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError:
            infos = []  # unresolvable now: the connection will say so
        wanted |= {(_host_key(str(info[4][0])), int(port)) for info in infos}
        self.allowed = frozenset(wanted)

    def forbid_servers(self) -> None:
        self.allowed = frozenset()

    def _is_allowed(self, target: Any, port: Any) -> bool:
        """A (host, port) address, or a lookup of host with that port, of the allowed server."""
        if not self.allowed:
            return False
        if isinstance(target, tuple) and len(target) >= 2:
            target, port = target[0], target[1]
        if isinstance(target, bytes):
            target = target.decode("ascii", "replace")
        try:
            return (_host_key(str(target)), int(port)) in self.allowed
        except (TypeError, ValueError):
            return False  # no port: a bare name lookup is not the server's connection


def is_local_destination(target: Any) -> bool:
    """True for loopback hosts and addresses, Unix socket paths and passive (None) lookups."""
    if target is None or isinstance(target, (str, bytes)) and _is_unix_path(target):
        return True
    if isinstance(target, tuple) and target:
        target = target[0]
    if isinstance(target, bytes):
        target = target.decode("ascii", "replace")
    if not isinstance(target, str):
        return False
    host = target.strip().strip("[]").lower().rstrip(".")
    if host in LOOPBACK_NAMES or host == "":
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _host_key(host: str) -> str:
    return host.strip().strip("[]").lower().rstrip(".")


def _is_unix_path(target: str | bytes) -> bool:
    text = target.decode("ascii", "replace") if isinstance(target, bytes) else target
    return text.startswith(("/", "\0", "./")) or text == ""


def _describe(target: Any) -> str:
    if isinstance(target, tuple) and len(target) >= 2:
        return f"{target[0]}:{target[1]}"
    return str(target)


class _Installed:
    # Audit hooks are process-wide and can never be removed, so the one installed guard is
    # process state by nature; this holder keeps it from being installed twice.
    guard: NetworkGuard | None = None
    lock = threading.Lock()


def install_network_guard() -> NetworkGuard:
    """Install the guard once per process (idempotent) and return it, enabled."""
    with _Installed.lock:
        if _Installed.guard is None:
            guard = NetworkGuard()
            sys.addaudithook(guard)
            _Installed.guard = guard
        _Installed.guard.enabled = True
        return _Installed.guard


def installed_guard() -> NetworkGuard | None:
    return _Installed.guard
