"""The network guard with a server allowed: exactly that host and port get through, everything
else is still refused (both directions, on the guard itself and through real sockets)."""

from __future__ import annotations

import fcntl
import socket
import struct
from collections.abc import Iterator

import pytest

from app.errors import NetworkBlockedError
from app.netguard import NetworkGuard, install_network_guard


def test_only_the_allowed_host_and_port_pass() -> None:
    guard = NetworkGuard()
    guard.allow_server("10.1.2.3", 8080)
    guard("socket.connect", (None, ("10.1.2.3", 8080)))  # the server: let through
    guard("socket.getaddrinfo", ("10.1.2.3", 8080, 0, 1, 0, 0))
    for event, args in [("socket.connect", (None, ("10.1.2.3", 8081))),   # other port
                        ("socket.connect", (None, ("10.1.2.4", 8080))),   # other host
                        ("socket.getaddrinfo", ("example.com", 443, 0, 1, 0, 0)),
                        ("socket.getaddrinfo", ("10.1.2.3", None, 0, 1, 0, 0)),
                        ("socket.sendto", (None, b"x", ("8.8.8.8", 53)))]:
        with pytest.raises(NetworkBlockedError):
            guard(event, args)
    assert len(guard.attempts) == 5
    guard("socket.connect", (None, ("127.0.0.1", 11434)))  # loopback stays allowed


def test_without_an_allowed_server_every_other_host_is_refused() -> None:
    guard = NetworkGuard()
    with pytest.raises(NetworkBlockedError):
        guard("socket.connect", (None, ("10.1.2.3", 8080)))
    guard.allow_server("10.1.2.3", 8080)
    guard.forbid_servers()
    with pytest.raises(NetworkBlockedError):
        guard("socket.connect", (None, ("10.1.2.3", 8080)))


def _own_non_loopback_address() -> str | None:
    """An IPv4 address of this machine that is not loopback (None when it has none)."""
    for _, name in socket.if_nameindex():
        if name == "lo":
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            try:
                packed = fcntl.ioctl(sock.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue  # no IPv4 address on this interface
        return socket.inet_ntoa(packed[20:24])
    return None


@pytest.fixture
def guard_with_listener() -> Iterator[tuple[NetworkGuard, str, int, int]]:
    address = _own_non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    guard = install_network_guard()
    allowed, other = socket.socket(), socket.socket()
    allowed.bind((address, 0))
    other.bind((address, 0))
    allowed.listen()
    other.listen()
    try:
        yield guard, address, allowed.getsockname()[1], other.getsockname()[1]
    finally:
        guard.forbid_servers()
        allowed.close()
        other.close()


def test_real_sockets_reach_the_allowed_server_and_nothing_else(guard_with_listener) -> None:
    guard, address, port, other_port = guard_with_listener
    with pytest.raises(NetworkBlockedError):  # not allowed yet
        socket.create_connection((address, port), timeout=2)
    guard.allow_server(address, port)
    with socket.create_connection((address, port), timeout=2):
        pass  # reached the allowed host:port
    with pytest.raises(NetworkBlockedError):  # same host, another port
        socket.create_connection((address, other_port), timeout=2)
