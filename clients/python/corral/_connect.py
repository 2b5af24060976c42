"""A cluster's Ray client port on a local one, as `corral clusters connect`.

Client.connect() asks Corral once (a GET of the cluster's client route
without the upgrade, so a refusal is a CorralError at once), then listens
on 127.0.0.1; each connection it accepts becomes one WebSocket to
`.../clusters/{name}/client`, whose binary messages carry its bytes both
ways. The WebSocket is a small client of RFC 6455 over the standard
library's socket and ssl, with the connection's token, CA and client
certificate; it is not a general one: binary messages, pings answered,
the close handshake.
"""

from __future__ import annotations

import base64
import hashlib
import os
import socket
import ssl
import struct
import threading
from typing import Optional
from urllib.parse import urlsplit

from ._config import Connection
from ._http import CONNECT_TIMEOUT, Transport, path_of

#: The Ray client server's port, which `ray.init` users expect locally too.
DEFAULT_PORT = 10001
_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_BINARY, _CLOSE, _PING, _PONG = 0x2, 0x8, 0x9, 0xA
_CHUNK = 64 * 1024


def client_path(namespace: str, name: str) -> str:
    """The cluster's client tunnel route."""
    return path_of("/apis/v1alpha2", "namespaces", namespace, "clusters", name, "client")


class Forwarding:
    """A local port forwarded to a cluster's Ray client port, until close().

    `address` is what ray.init() takes: "ray://127.0.0.1:PORT". Use it as a
    context manager, or call close(), to stop listening and close the
    connections open through it.
    """

    def __init__(self, connection: Connection, path: str, port: int) -> None:
        self._connection = connection
        self._path = path
        self._listener = socket.create_server(("127.0.0.1", port))
        self.port: int = self._listener.getsockname()[1]
        self.address = f"ray://127.0.0.1:{self.port}"
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._accept, name="corral-connect", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                local, _ = self._listener.accept()
            except OSError:
                return
            if self._closed:
                local.close()
                return
            threading.Thread(target=self._serve, args=(local,), daemon=True).start()

    def _serve(self, local: socket.socket) -> None:
        try:
            remote = open_websocket(self._connection, self._path)
        except OSError:
            local.close()
            return
        with self._lock:
            if self._closed:
                local.close()
                remote.close()
                return
            self._open.update((local, remote))
        try:
            splice(local, remote)
        finally:
            with self._lock:
                self._open.difference_update((local, remote))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            sockets = list(self._open)
        # A close does not wake accept() in another thread: a connection does.
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=CONNECT_TIMEOUT).close()
        except OSError:
            pass
        self._thread.join()
        self._listener.close()
        for sock in sockets:
            _shut(sock)

    def __enter__(self) -> "Forwarding":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Forwarding({self.address!r})"


class Connecting:
    """Client.connect()."""

    _transport: Transport
    namespace: str
    connection: Connection

    def connect(self, name: str, port: int = DEFAULT_PORT, namespace: Optional[str] = None) -> Forwarding:
        """Forwards 127.0.0.1:`port` (0 picks a free one) to cluster `name`'s
        Ray client port through Corral, for `ray.init(forwarding.address)`.

        Needs `proxy` on the cluster, as its dashboard does; raises
        CorralError when Corral refuses (403, the cluster not ready), and
        OSError when the port is taken.
        """
        path = client_path(namespace or self.namespace, name)
        self._transport.send("GET", path).close()
        return Forwarding(self.connection, path, port)


def open_websocket(connection: Connection, path: str) -> socket.socket:
    """A WebSocket to Corral at `path`, its handshake done; OSError if refused."""
    url = urlsplit(connection.server)
    secure = url.scheme == "https"
    host = url.hostname or "127.0.0.1"
    sock = socket.create_connection((host, url.port or (443 if secure else 80)), timeout=CONNECT_TIMEOUT)
    try:
        if secure:
            context = ssl.create_default_context(cafile=connection.certificate_authority)
            if connection.client_certificate and connection.client_key:
                context.load_cert_chain(connection.client_certificate, connection.client_key)
            sock = context.wrap_socket(sock, server_hostname=host)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {url.path.rstrip('/')}{path} HTTP/1.1",
            f"Host: {url.netloc}",
            "Connection: Upgrade",
            "Upgrade: websocket",
            "Sec-WebSocket-Version: 13",
            f"Sec-WebSocket-Key: {key}",
        ]
        if connection.token:
            lines.append(f"Authorization: Bearer {connection.token}")
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = _read_head(sock)
        status = head.split(b"\r\n", 1)[0]
        expected = base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest())
        if b" 101 " not in status + b" " or expected not in head:
            raise ConnectionRefusedError(f"Corral refused the tunnel: {status.decode(errors='replace')}")
        sock.settimeout(None)
        return sock
    except BaseException:
        sock.close()
        raise


def _read_head(sock: socket.socket) -> bytes:
    """The answer's head, byte by byte: nothing after it is read."""
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        byte = sock.recv(1)
        if not byte or len(head) > 16384:
            raise ConnectionError("Corral closed the connection before answering the upgrade")
        head += byte
    return head


def send_frame(sock: socket.socket, opcode: int, payload: bytes) -> None:
    """One final, masked frame (a client's frames are masked)."""
    length = len(payload)
    if length < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
    elif length < 0x10000:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
    mask = os.urandom(4)
    sock.sendall(head + mask + _masked(payload, mask))


def _masked(payload: bytes, mask: bytes) -> bytes:
    """`payload` XOR the repeated `mask`, as one big integer (fast)."""
    length = len(payload)
    key = (mask * (length // 4 + 1))[:length]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(length, "big")


def _recv_exact(sock: socket.socket, length: int) -> bytes:
    data = b""
    while len(data) < length:
        chunk = sock.recv(length - len(data))
        if not chunk:
            raise ConnectionError("the tunnel closed")
        data += chunk
    return data


def read_frame(sock: socket.socket) -> tuple[int, bytes]:
    """The next frame's opcode and payload (a server's are unmasked)."""
    first, second = _recv_exact(sock, 2)
    length = second & 0x7F
    if length == 126:
        (length,) = struct.unpack("!H", _recv_exact(sock, 2))
    elif length == 127:
        (length,) = struct.unpack("!Q", _recv_exact(sock, 8))
    mask = _recv_exact(sock, 4) if second & 0x80 else b""
    payload = _recv_exact(sock, length)
    if mask:
        payload = _masked(payload, mask)
    return first & 0x0F, payload


def splice(local: socket.socket, remote: socket.socket) -> None:
    """Bytes both ways until either side ends; both closed after."""
    send_lock = threading.Lock()

    def upward() -> None:
        try:
            while True:
                data = local.recv(_CHUNK)
                with send_lock:
                    if not data:
                        send_frame(remote, _CLOSE, struct.pack("!H", 1000))
                        return
                    send_frame(remote, _BINARY, data)
        except OSError:
            _shut(remote)

    sender = threading.Thread(target=upward, daemon=True)
    sender.start()
    try:
        while True:
            opcode, payload = read_frame(remote)
            if opcode == _CLOSE:
                break
            if opcode == _PING:
                with send_lock:
                    send_frame(remote, _PONG, payload)
            elif opcode != _PONG:
                local.sendall(payload)
    except OSError:
        pass
    _shut(local)
    _shut(remote)
    sender.join()
    local.close()
    remote.close()


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
