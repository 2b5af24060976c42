"""A stand-in for Corral's HTTP API, for the SDK's tests: a server on
127.0.0.1 answering each route as a test says, recording each request.

A route's answer is a function of the request giving (status, body): a
dict or list is sent as JSON, bytes as they are, a `Stream` as NDJSON
lines (each `{"result": ...}` or `{"error": ...}`) ending the stream after
the last. Routes are matched by method and path (the query apart); a route
not given answers Corral's 404 body.
"""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any


@dataclass
class Stream:
    """An NDJSON answer: one line per item, then the end of the stream."""

    lines: list[dict[str, Any]] = field(default_factory=list)


Answer = Callable[[Request], "tuple[int, Any]"]


def _body(raw: bytes, kind: str) -> Any:
    """JSON, or a form (an issuer's token endpoint) as a dict of fields."""
    if not raw:
        return None
    if kind.startswith("application/x-www-form-urlencoded"):
        return {k: v[0] for k, v in parse_qs(raw.decode()).items()}
    return json.loads(raw)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that leaves mid-stream (a watch read no further) is
        no error of the server's."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, BrokenPipeError)):
            super().handle_error(request, client_address)


class FakeCorral:
    """Start with `with FakeCorral() as corral:`; `corral.url` is its address."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str, str], Answer] = {}
        self.requests: list[Request] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: Any) -> None:
                pass

            def handle_one(self) -> None:
                url = urlsplit(self.path)
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                request = Request(
                    self.command,
                    url.path,
                    {k: v[0] for k, v in parse_qs(url.query).items()},
                    {k.lower(): v for k, v in self.headers.items()},
                    _body(raw, self.headers.get("content-type") or ""),
                )
                fake.requests.append(request)
                answer = fake.routes.get((self.command, url.path))
                status, body = answer(request) if answer else (404, {"code": 5, "message": f"no route {url.path}"})
                self.reply(status, body)

            def reply(self, status: int, body: Any) -> None:
                if isinstance(body, Stream):
                    data = b"".join(json.dumps(line).encode() + b"\n" for line in body.lines)
                    kind = "application/x-ndjson"
                elif isinstance(body, bytes):
                    data, kind = body, "text/plain"
                else:
                    data, kind = json.dumps(body).encode(), "application/json"
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_one

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread: Optional[threading.Thread] = None

    def route(self, method: str, path: str, answer: Answer) -> None:
        self.routes[(method, path)] = answer

    def answers(self, method: str, path: str, *answers: "tuple[int, Any]") -> None:
        """The route answers these in turn, the last one from then on."""
        queue = list(answers)

        def next_answer(_: Request) -> "tuple[int, Any]":
            return queue.pop(0) if len(queue) > 1 else queue[0]

        self.route(method, path, next_answer)

    def __enter__(self) -> "FakeCorral":
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        if self.thread:
            self.thread.join()


class FakeClock:
    """Time that passes only when asked: `step` seconds a reading, and what
    sleep() is given."""

    def __init__(self, step: float = 0.0) -> None:
        self.now = 0.0
        self.step = step
        self.slept: list[float] = []

    def __call__(self) -> float:
        self.now += self.step
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
