"""Offline by construction: the audit hook refuses non-loopback connects and lookups."""

from __future__ import annotations

import socket

import pytest

from app.errors import NetworkBlockedError
from app.netguard import NetworkGuard, install_network_guard, is_local_destination


@pytest.fixture
def guard() -> NetworkGuard:
    guard = install_network_guard()
    guard.clear()
    return guard


def test_a_connect_to_a_public_address_is_refused_and_logged(guard):
    with pytest.raises(NetworkBlockedError, match="offline"):
        socket.create_connection(("93.184.216.34", 80), timeout=1)
    assert [a.destination for a in guard.attempts] == ["93.184.216.34:80"]


def test_a_raw_socket_connect_is_refused(guard):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s, pytest.raises(NetworkBlockedError):
        s.connect(("1.1.1.1", 443))
    assert [(a.event, a.destination) for a in guard.attempts] == [("socket.connect", "1.1.1.1:443")]


def test_name_lookups_are_refused(guard):
    for lookup in (lambda: socket.getaddrinfo("example.com", 443),
                   lambda: socket.gethostbyname("pypi.org")):
        with pytest.raises(NetworkBlockedError):
            lookup()
    assert [a.event for a in guard.attempts] == ["socket.getaddrinfo", "socket.gethostbyname"]


def test_a_udp_send_to_a_public_address_is_refused(guard):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s, pytest.raises(NetworkBlockedError):
        s.sendto(b"x", ("8.8.8.8", 53))


def test_loopback_still_works(guard):
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass
        with socket.create_connection(("localhost", port), timeout=2):
            pass
    assert guard.attempts == []


@pytest.mark.parametrize("target,local", [
    (("127.0.0.1", 80), True), (("::1", 80, 0, 0), True), ("localhost", True), (None, True),
    ("/tmp/some.sock", True), (("10.0.0.1", 80), False), ("example.com", False),
    (("2001:db8::1", 80, 0, 0), False), (("0.0.0.0", 80), False),
])
def test_what_counts_as_local(target, local):
    assert is_local_destination(target) is local


def test_installing_twice_keeps_one_guard():
    assert install_network_guard() is install_network_guard()
